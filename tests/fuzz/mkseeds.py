#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write the hand-made seed corpus of the fuzz targets.

    tests/fuzz/mkseeds.py            # rewrites tests/fuzz/corpus/*/seed-*

Input layouts are described at the top of fuzz_host.c, fuzz_ftp.c and
fuzz_sip.c.
The packets have correct lengths and checksums; the IPv6 ones carry
extension headers (a Destination Options header before TCP is the case
libnetfilter_queue 1.0.5 gets wrong).
"""
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))

from wire import ip, sdp, sipmsg, tcp, udp  # noqa: E402  (tests/lib)


def packet(v6, proto, payload, ext=b"", ext_first=0, seq=0x01020304,
           src=None, dst=None, sport=40001, dport=21):
    if v6:
        src = src or bytes.fromhex("20010db8000000000000000000000001")
        dst = dst or bytes.fromhex("20010db8000000000000000000000002")
    else:
        src = src or bytes([10, 0, 0, 1])
        dst = dst or bytes([192, 168, 7, 9])
    if proto == 6:
        l4 = tcp(sport, dport, seq, 1, 0x18, 0xFAF0, payload)
    else:
        l4 = udp(sport, dport, payload)
    return ip(src, dst, proto, l4, ext, ext_first)


DSTOPTS_TCP = bytes([6, 0, 1, 4, 0, 0, 0, 0])
HBH_DST_UDP = bytes([60, 1, 1, 12] + [0] * 12 + [17, 0, 1, 4, 0, 0, 0, 0])


# --- fuzz_host ---------------------------------------------------------

def mangle(off, ln, repl, op=0x00):
    return bytes([op]) + struct.pack("!HHH", off, ln, len(repl)) + repl


def mangle_big(off, ln, rlen):
    return bytes([0x60]) + struct.pack("!HHH", off, ln, rlen)


def host(flags, pkt, script, flags2=0, priv=b"", kept=None):
    """kept: bytes an earlier segment keeps (sets flags bit 64)."""
    priv = priv.ljust(32, b"\0")
    if kept is not None:
        flags |= 64
        priv += struct.pack("!H", len(kept)) + kept
    return (bytes([flags, flags2]) + struct.pack("!H", len(pkt)) + pkt +
            bytes([len(priv) - (0 if kept is None else 2 + len(kept))]) +
            priv + script)


def keep(off, op=0x5F):
    """cth_keep(off); op bit 16 takes off modulo payload_len + 2."""
    return bytes([op]) + struct.pack("!H", off)


ACCEPT = bytes([7, 1])
EXPECT = (bytes([2, 0, 0, 0, 0]) + struct.pack("!HH", 0, 2121) + bytes(16) +
          bytes(16) + bytes([1]) + bytes(16) + struct.pack("!H", 2121) +
          bytes([1, 1, 0, 0]))
# answers to a broadcast from 10.0.0.0/24 (CTH_EXPECT_SRC_PREFIX, host
# bits left set for the host to clear), UDP to the master's (zero, as
# this target's tuples are) address, port 40001
EXPECT_NET = (bytes([2, 0, 0x20, 0, 1]) + struct.pack("!HH", 0, 40001) +
              bytes([10, 0, 0, 77]) + bytes(12) + bytes(16) +
              bytes([0]) + bytes(16) + struct.pack("!H", 0) + bytes([0, 0, 0, 24]))


def link(in_, out, src, dst, addrs):
    """cth_link(): interfaces, the packet's addresses (IPv4), and
    (ifindex, prefix, flags, addr, brd) IPv4 interface addresses."""
    b = bytes([0xE7, in_, out]) + src.ljust(16, b"\0") + dst.ljust(16, b"\0")
    b += bytes([len(addrs)])
    for ifindex, prefix, flags, addr, brd in addrs:
        b += bytes([ifindex, 0, prefix, 0, flags]) + addr + brd
    return b

HOST_SEEDS = {
    # IPv6 + Destination Options + TCP, EPRT rewritten under source NAT
    "seed-v6-dstopts-eprt": host(
        1 | 2,
        packet(True, 6, b"EPRT |2|2001:db8::1|4000|\r\n", DSTOPTS_TCP, 60,
               seq=0xFEDCBA98),
        mangle(5, 20, b"|2|2001:db8:ffff::abcd|40123|") + EXPECT + ACCEPT),
    # IPv4 PORT, edits out of order, expectation, timeout, mark, state
    "seed-v4-port-edits": host(
        4,
        packet(False, 6, b"PORT 10,0,0,1,15,160\r\n"),
        mangle(10, 2, b"xyz") + mangle(0, 4, b"port") + mangle(22, 0, b"!") +
        EXPECT + bytes([3]) + struct.pack("!I", 600) + bytes([4]) +
        struct.pack("!I", 7) + bytes([6, 3, 0x55]) + ACCEPT),
    # IPv4 UDP grown by 3000 bytes, then many small edits
    "seed-v4-udp-grow": host(
        0,
        packet(False, 17, b"INVITE sip:a@10.0.0.1 SIP/2.0\r\n"),
        mangle_big(4, 2, 3000) + b"".join(
            mangle(i, 1, b"ab") for i in range(8, 30, 2)) + ACCEPT),
    # IPv6 hop-by-hop + destination options + UDP, a shrink
    "seed-v6-ext-udp": host(
        1,
        packet(True, 17, b"INVITE sip:x@[2001:db8::1] SIP/2.0", HBH_DST_UDP, 0),
        mangle(13, 13, b"[::2]") + ACCEPT),
    # a NetBIOS-NS-like query this host sends to its subnet's broadcast:
    # the link view, then the answers from the subnet
    "seed-v4-udp-link-broadcast": host(
        0,
        packet(False, 17, b"\x12\x34\x01\x10\x00\x01", src=bytes([10, 0, 0, 1]),
               dst=bytes([10, 0, 0, 255]), sport=40001, dport=137),
        link(0, 2, bytes([10, 0, 0, 1]), bytes([10, 0, 0, 255]),
             [(2, 24, 2, bytes([10, 0, 0, 1]), bytes([10, 0, 0, 255])),
              (3, 16, 1, bytes([172, 16, 0, 1]), bytes(4))]) + EXPECT_NET + ACCEPT),
    # GSO and truncated: every edit refused
    "seed-v4-gso": host(
        4 | 16,
        packet(False, 6, b"PORT 10,0,0,1,15,160\r\n"),
        mangle(5, 15, b"1,2,3,4,5,6") + ACCEPT),
    "seed-v6-truncated": host(
        1 | 2 | 8,
        packet(True, 6, b"EPRT |2|2001:db8::1|4000|\r\n", DSTOPTS_TCP, 60),
        mangle(5, 20, b"|2|::1|1|") + ACCEPT),
    # TCP without NAT: a length change is refused, a same-length one not
    "seed-v4-tcp-no-nat": host(
        0,
        packet(False, 6, b"PORT 10,0,0,1,15,160\r\n"),
        mangle(5, 15, b"1,2,3,4,5,6") + mangle(5, 15, b"10,0,0,2,15,161") +
        bytes([5]) + ACCEPT),
    # 32 edits recorded last to first, the 33rd refused
    "seed-v4-udp-33-edits": host(
        0,
        packet(False, 17, bytes(range(100))),
        b"".join(mangle(i * 3, 1, b"xy") for i in range(32, -1, -1)) + ACCEPT),
    # IPv6 TCP under NAT grown to the limit, a shrink, then growth again
    "seed-v6-tcp-limit": host(
        1 | 4,
        packet(True, 6, bytes(range(200)), DSTOPTS_TCP, 60),
        mangle_big(10, 0, 65531 - 48 - 20 - 200) + mangle(50, 20, b"") +
        mangle_big(100, 0, 21) + ACCEPT),
    # grown to exactly 65531 bytes, then one more byte is refused
    "seed-v4-udp-limit": host(
        0,
        packet(False, 17, bytes(range(64))),
        mangle_big(10, 0, 65531 - 20 - 8 - 64) +
        mangle_big(20, 0, 1) + ACCEPT),
    # kept bytes joined: an edit inside them refused, one after them
    # translated, then the end kept again
    "seed-v4-keep-join": host(
        4,
        packet(False, 6, b"sip:b@10.0.0.2 SIP/2.0\r\nVia: x\r\n"),
        mangle(3, 4, b"XXXX") + mangle(13, 3, b"SIP") + keep(22, 0x4F) +
        ACCEPT,
        kept=b"INVITE "),
    # IPv6 with a gap before the packet: nothing joined, the whole kept
    "seed-v6-keep-gap": host(
        1 | 128,
        packet(True, 6, b"REGISTER sip:x SIP/2.0\r\n", DSTOPTS_TCP, 60),
        keep(0, 0x4F) + ACCEPT,
        kept=b"OPTIONS sip:y "),
    # joined, kept again, then dropped: the joined bytes stay
    "seed-v4-keep-drop": host(
        0,
        packet(False, 6, b"Content-Length: 0\r\n\r\n"),
        keep(5, 0x4F) + bytes([0x17]),
        kept=b"BYE sip:z SIP/2.0\r\n"),
    # one byte more than the 16384 an earlier segment may keep: refused
    "seed-v4-keep-bound": host(
        0,
        packet(False, 6, b"x"),
        keep(0, 0x4F) + ACCEPT,
        kept=bytes(i % 251 for i in range(16385))),
}


# --- fuzz_ftp ----------------------------------------------------------

def ftp(flags, pkt, expect_mode=0, priv=b"", nat_addr=b"", nat_port=0):
    return (bytes([flags, expect_mode]) + priv.ljust(20, b"\0") +
            nat_addr.ljust(16, b"\0") + struct.pack("!H", nat_port) + pkt)


def ftp_priv(seq, d=0):
    """struct ftp_priv: nl_seq[2][2] (host order, little endian here),
    nl_num[2], version, reserved.  seq starts a line in direction d: with
    no line start known the plugin parses nothing (a failover's state)."""
    seqs = [0, 0, 0, 0]
    seqs[2 * d] = seq
    num = [0, 0]
    num[d] = 1
    return struct.pack("<IIII", *seqs) + bytes(num + [1, 0])


SEQ = 0x01020304   # packet()'s default

V4_NAT = bytes([192, 0, 2, 77])
V6_NAT = bytes.fromhex("20010db8ffff00000000000000000001")
SERVER4 = bytes([192, 168, 7, 9])
SERVER6 = bytes.fromhex("20010db8000000000000000000000002")

FTP_SEEDS = {
    "seed-v4-port": ftp(0, packet(False, 6, b"PORT 10,0,0,1,15,160\r\n"), 0, ftp_priv(SEQ)),
    # no state (a failover): not parsed, the line after it is recorded
    "seed-v4-port-nostate": ftp(0, packet(False, 6, b"PORT 10,0,0,1,15,160\r\n")),
    "seed-v4-port-nat": ftp(
        2, packet(False, 6, b"PORT 10,0,0,1,15,160\r\n"), 0, ftp_priv(SEQ), V4_NAT,
        40000),
    "seed-v6-dstopts-eprt-nat": ftp(
        1 | 2,
        packet(True, 6, b"EPRT |2|2001:db8::1|4000|\r\n", DSTOPTS_TCP, 60,
               seq=0xFEDCBA98),
        (3 << 2) | 1, ftp_priv(0xFEDCBA98), V6_NAT, 40000),
    "seed-v4-227-nat": ftp(
        32 | 4,
        packet(False, 6, b"227 Entering Passive Mode (192,168,7,9,19,137).\r\n",
               src=SERVER4, dst=bytes([10, 0, 0, 1]), sport=21, dport=40001),
        0, ftp_priv(SEQ, 1), V4_NAT, 21),
    "seed-v6-229": ftp(
        1 | 32,
        packet(True, 6, b"229 Entering Extended Passive Mode (|||6446|)\r\n",
               src=SERVER6, dst=bytes.fromhex("20010db8000000000000000000000001"),
               sport=21, dport=40001), 0, ftp_priv(SEQ, 1)),
    "seed-v4-eprt-loose": ftp(
        64, packet(False, 6, b"EPRT |1|10.9.9.9|4000|\r\n"), 0, ftp_priv(SEQ)),
    "seed-v4-port-state": ftp(
        2,
        packet(False, 6, b"PORT 10,0,0,1,15,160\r\n", seq=0x11223344),
        2, ftp_priv(0x11223344), V4_NAT, 40000),
}


# --- fuzz_sip ----------------------------------------------------------
# Addresses as fuzz_sip.c builds them: phone 192.168.1.10 / 2001:db8::10
# on 5060 calls the proxy 198.51.100.2 / 2001:db8:1::2 on 5060; SNAT
# shows the phone as 203.0.113.5 / 2001:db8:ffff::1 port 5062, DNAT has it
# call 203.0.113.5 / 2001:db8:ffff::1.

S_IPV6, S_TCP, S_SNAT, S_DNAT, S_REPLY, S_TURN, S_EXPECTED = 1, 2, 4, 8, 16, 32, 64
H_MEDIA_ANY, H_SIGNAL_ANY, H_OLD_HOST, H_REFRESH_ENOENT, H_CTL_FAIL = 1, 2, 4, 8, 64


def sip(flags, p1, p2=b"", host=0, expect_mode=0, priv=b""):
    return (bytes([flags, host, expect_mode]) + struct.pack("!H", len(p1)) +
            priv.ljust(16, b"\0") + p1 + p2)


def invite(a, uri="bob@198.51.100.2", via="UDP", cseq=1):
    return ("INVITE sip:%s SIP/2.0\r\n"
            "Via: SIP/2.0/%s %s;branch=z9hG4bK-1;rport\r\n"
            "From: \"Alice\" <sip:alice@%s>;tag=a1\r\n"
            "To: <sip:%s>\r\n"
            "Call-ID: c1@192.168.1.10\r\n"
            "CSeq: %d INVITE\r\n"
            "Contact: <sip:alice@%s>\r\n"
            "Content-Type: application/sdp\r\n" % (uri, via, a, a, uri, cseq, a))


def response(code, cseq, method, via, extra=""):
    return ("SIP/2.0 %d Whatever\r\n"
            "Via: SIP/2.0/UDP %s;branch=z9hG4bK-1\r\n"
            "From: \"Alice\" <sip:alice@%s>;tag=a1\r\n"
            "To: <sip:bob@198.51.100.2>;tag=b1\r\n"
            "Call-ID: c1@192.168.1.10\r\n"
            "CSeq: %d %s\r\n%s" % (code, via, via, cseq, method, extra))


def register(a, params=";expires=600", cseq=10, via="192.168.1.10:5060"):
    return sipmsg("REGISTER sip:198.51.100.2 SIP/2.0\r\n"
                  "Via: SIP/2.0/UDP %s;branch=r1;rport\r\n"
                  "From: <sip:alice@198.51.100.2>;tag=r\r\n"
                  "To: <sip:alice@198.51.100.2>\r\n"
                  "Call-ID: r1\r\n"
                  "CSeq: %d REGISTER\r\n"
                  "Contact: <sip:alice@%s>%s\r\n" % (via, cseq, a, params))


def options(a, via="TCP"):
    return sipmsg("OPTIONS sip:bob@198.51.100.2 SIP/2.0\r\n"
                  "Via: SIP/2.0/%s %s;branch=t1\r\n"
                  "Contact: <sip:alice@%s;transport=tcp>\r\n"
                  "CSeq: 1 OPTIONS\r\n" % (via, a, a))


PHONE = "192.168.1.10:5060"
PUB = "203.0.113.5:5062"
INVITE_PHONE = sipmsg(invite(PHONE), sdp("192.168.1.10"))
TCP_INVITE = sipmsg(invite(PHONE, via="TCP", cseq=2), sdp("192.168.1.10"))
V6_INVITE = sipmsg(invite("[2001:db8::10]:5060", uri="bob@[2001:db8:1::2]"),
                   sdp("2001:db8::10", ip="IP6"))

SIP_SEEDS = {
    "seed-v4-udp-invite": sip(0, INVITE_PHONE),
    "seed-v4-udp-invite-snat": sip(S_SNAT, INVITE_PHONE),
    "seed-v4-udp-invite-snat-busy": sip(S_SNAT, sipmsg(invite(PHONE), sdp(
        "192.168.1.10", "m=audio 49171 RTP/AVP 0\r\nm=video 5000 RTP/AVP 31\r\n"
        "c=IN IP4 192.168.1.10\r\nm=image 6000 udptl t38\r\n")), expect_mode=(3 << 2) | 1),
    "seed-v4-udp-200-snat": sip(S_SNAT | S_REPLY, sipmsg(
        response(200, 1, "INVITE", PUB, "Contact: <sip:bob@198.51.100.2:5060>\r\n")
        .replace(";branch=z9hG4bK-1", ";branch=z9hG4bK-1;received=203.0.113.5;rport=5062"),
        sdp("198.51.100.2", "m=audio 30000 RTP/AVP 0\r\n"))),
    "seed-v4-udp-invite-487": sip(S_TURN, INVITE_PHONE,
                                  sipmsg(response(487, 1, "INVITE", PHONE))),
    "seed-v4-udp-bye": sip(0, sipmsg(invite(PHONE).replace("INVITE", "BYE"))),
    "seed-v4-udp-register-snat-200": sip(
        S_SNAT | S_TURN, register(PHONE),
        sipmsg(response(200, 10, "REGISTER", PUB,
                        "Contact: <sip:alice@203.0.113.5:5062>;expires=600\r\n"))),
    "seed-v4-udp-register-403": sip(
        S_TURN, register("192.168.1.10:5070", ";transport=tcp", 11),
        sipmsg(response(403, 11, "REGISTER", PHONE))),
    "seed-v4-udp-register-refresh-gone": sip(
        S_TURN, register(PHONE, "", 12),
        sipmsg(response(200, 12, "REGISTER", PHONE,
                        "Contact: <sip:alice@192.168.1.10:5060>\r\nExpires: 60\r\n")),
        host=H_REFRESH_ENOENT | H_SIGNAL_ANY),
    "seed-v4-udp-dnat-invite-200": sip(
        S_DNAT | S_TURN,
        sipmsg(invite("192.168.1.10:5060", uri="bob@203.0.113.5"), sdp("192.168.1.10")),
        sipmsg(response(200, 1, "INVITE", PHONE, "Contact: <sip:bob@198.51.100.2:5060>\r\n"),
               sdp("198.51.100.2", "m=audio 40000 RTP/AVP 0\r\n"))),
    "seed-v4-udp-media-any": sip(0, sipmsg(invite(PHONE), sdp("192.0.2.99")), host=H_MEDIA_ANY),
    "seed-v4-udp-expected-register": sip(S_EXPECTED, register(PHONE)),
    "seed-v4-udp-compact-folded-snat": sip(S_SNAT, (
        "INVITE sip:bob@198.51.100.2 SIP/2.0\r\n"
        "v: SIP/2.0/UDP 192.168.1.10:5060;branch=c1;maddr=192.168.1.10\r\n"
        "f: <sip:alice@192.168.1.10:5060>;tag=1\r\n"
        "t: <sip:bob@198.51.100.2>\r\n"
        "i: c1\r\n"
        "cseq: 1 invite\r\n"
        "m: \"A, \\\"x\\\"\" <sip:alice@192.168.1.10:5060>,\r\n"
        " <sip:alice@192.168.1.10:5060;transport=tcp>\r\n"
        "l: %d\r\n\r\n%s" % (len(sdp("192.168.1.10")), sdp("192.168.1.10"))).encode()),
    "seed-v4-udp-lf-only-snat": sip(S_SNAT, (
        "INVITE sip:bob@198.51.100.2 SIP/2.0\n"
        "Via: SIP/2.0/UDP 192.168.1.10:5060\n"
        "CSeq: 1 INVITE\n"
        "Content-Length: 48\n\n"
        "v=0\nc=IN IP4 192.168.1.10\nm=audio 4000 RTP/AVP 0\n").encode()),
    "seed-v6-udp-invite-snat": sip(S_IPV6 | S_SNAT, V6_INVITE),
    "seed-v6-udp-200-received-snat": sip(S_IPV6 | S_SNAT | S_REPLY, sipmsg(
        response(200, 1, "INVITE", "[2001:db8:ffff::1]:5062")
        .replace(";branch=z9hG4bK-1",
                 ";branch=z9hG4bK-1;received=2001:db8:ffff::1;rport=5062"),
        sdp("2001:db8:1::2", ip="IP6"))),
    "seed-v4-udp-update-200-snat": sip(
        S_SNAT | S_TURN,
        sipmsg(invite(PHONE).replace("INVITE", "UPDATE"), sdp("192.168.1.10")),
        sipmsg(response(200, 1, "UPDATE", PUB), sdp("198.51.100.2")), expect_mode=(5 << 2) | 1),
    "seed-v4-udp-prack-ack": sip(
        0, sipmsg(invite(PHONE).replace("INVITE", "PRACK"), sdp("192.168.1.10")),
        sipmsg(invite(PHONE).replace("INVITE", "ACK"), sdp("192.168.1.10"))),
    "seed-v4-udp-200-prack-reply": sip(
        S_REPLY | S_TURN, sipmsg(response(200, 4, "PRACK", PHONE), sdp("198.51.100.2")),
        sipmsg(invite(PHONE).replace("INVITE", "PRACK"), sdp("192.168.1.10"))),
    "seed-v4-udp-invite-snat-exhausted": sip(S_SNAT, INVITE_PHONE, expect_mode=2,
                                             host=H_CTL_FAIL),
    "seed-v4-udp-invite-snat-rtcp-error": sip(S_SNAT, INVITE_PHONE, expect_mode=(1 << 2) | 3,
                                              host=H_CTL_FAIL),
    "seed-v4-tcp-two-messages-snat": sip(S_TCP | S_SNAT, options(PHONE) + b"\r\n" + TCP_INVITE),
    "seed-v4-tcp-split-snat": sip(S_TCP | S_SNAT, options(PHONE) + TCP_INVITE[:60],
                                  TCP_INVITE[60:] + options(PHONE)),
    "seed-v4-tcp-split-plain": sip(S_TCP, TCP_INVITE[:100], TCP_INVITE[100:]),
    "seed-v6-tcp-register-dnat": sip(
        S_IPV6 | S_TCP | S_DNAT | S_TURN,
        register("[2001:db8::10]:5060", ";transport=tcp;expires=60", 5,
                 via="[2001:db8::10]:5060"),
        sipmsg(response(200, 5, "REGISTER", "[2001:db8::10]:5060",
                        "Contact: <sip:alice@[2001:db8::10]:5060;transport=tcp>\r\n"))),
}


def write(target, seeds):
    d = os.path.join(HERE, "corpus", target)
    os.makedirs(d, exist_ok=True)
    for name in os.listdir(d):
        if name.startswith("seed-"):
            os.unlink(os.path.join(d, name))
    for name, data in seeds.items():
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    write("fuzz_host", HOST_SEEDS)
    write("fuzz_ftp", FTP_SEEDS)
    write("fuzz_sip", SIP_SEEDS)
