#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write the hand-made seed corpus of fuzz_rpc.

    tests/fuzz/mkseeds_rpc.py        # rewrites tests/fuzz/corpus/fuzz_rpc/seed-*

The input layout is described at the top of fuzz_rpc.c: flags, host byte,
expect mode, 32 bytes of private state, then packets (a byte: 1 from the
server, 2 truncated, 4 a lost segment before it; a 16-bit length; the
payload).  Addresses as fuzz_rpc.c builds them: client 192.168.1.10 /
2001:db8::10 port 812, server 198.51.100.2 / 2001:db8:1::2 port 111,
NAT address 203.0.113.5 / 2001:db8:ffff::1.
"""
import struct

from mkseeds import write
from wire import (denied, getaddr, getport, port_reply, record as rec, rpc_reply as reply_head,
                  u32, uaddr_reply)

F_IPV6, F_TCP, F_SNAT, F_DNAT, F_STATE, F_EXPECTED = 1, 2, 4, 8, 16, 32
H_PERMANENT, H_OLD_HOST, H_TCP_NEW, H_CTL_FAIL = 1, 2, 4, 8
P_REPLY, P_TRUNCATED, P_GAP = 1, 2, 4
TCP, UDP = 6, 17


def pkt(payload, bits=0):
    return bytes([bits]) + struct.pack("!H", len(payload)) + payload


def seed(flags, packets, host=0, expect_mode=0, state=b""):
    return bytes([flags, host, expect_mode]) + state.ljust(32, b"\0") + b"".join(packets)


def call_reply(call, reply, tcp=False, nfrag=1):
    if tcp:
        return [pkt(rec(call, nfrag)), pkt(rec(reply, nfrag), P_REPLY)]
    return [pkt(call), pkt(reply, P_REPLY)]


BIG = u32(0x77777777) + u32(1) + b"\x55" * 3000

SEEDS = {
    "seed-v4-udp-getport": seed(0, call_reply(getport(1, 100005, UDP), port_reply(1, 20048))),
    "seed-v4-udp-getport-tcp-service": seed(
        0, call_reply(getport(2, 100003, TCP), port_reply(2, 2049)), host=H_PERMANENT),
    "seed-v4-udp-getport-port0": seed(0, call_reply(getport(3, 100021, UDP), port_reply(3, 0))),
    "seed-v4-udp-denied": seed(0, call_reply(getport(4, 100003, TCP), denied(4))),
    "seed-v4-udp-prog-unavail": seed(0, call_reply(getport(5, 100003, TCP),
                                                   reply_head(5, 1))),
    "seed-v4-udp-wrong-xid": seed(0, call_reply(getport(6, 100003, TCP), port_reply(7, 2049))),
    "seed-v4-tcp-getport-fragments": seed(
        F_TCP, call_reply(getport(8, 100003, TCP), port_reply(8, 2049), True, 3)),
    "seed-v4-tcp-pipelined": seed(F_TCP, [
        pkt(rec(getport(9, 100005, UDP), 2) + rec(getaddr(10, "tcp"), 1) +
            rec(getport(11, 100021, TCP), 3)),
        pkt(rec(uaddr_reply(10, "198.51.100.2.8.1")) + rec(port_reply(11, 32768), 2) +
            rec(port_reply(9, 20048)), P_REPLY)]),
    "seed-v4-tcp-split-call": seed(F_TCP, [
        pkt(rec(getport(12, 100003, TCP))[:30]), pkt(rec(getport(12, 100003, TCP))[30:]),
        pkt(rec(port_reply(12, 2049))[:7], P_REPLY), pkt(rec(port_reply(12, 2049))[7:], P_REPLY)]),
    "seed-v4-tcp-skip-long-record": seed(F_TCP, [
        pkt(rec(getport(13, 100003, TCP))),
        pkt(rec(BIG, 2)[:1000], P_REPLY), pkt(rec(BIG, 2)[1000:2000], P_REPLY),
        pkt(rec(BIG, 2)[2000:] + rec(port_reply(13, 2049)), P_REPLY)]),
    "seed-v4-tcp-old-host-cut": seed(F_TCP, [
        pkt(rec(getport(14, 100003, TCP)) + rec(getport(15, 100005, UDP))),
        pkt((rec(port_reply(14, 2049)) + rec(port_reply(15, 20048)))[:-5], P_REPLY),
        pkt(rec(port_reply(15, 20048))[-5:], P_REPLY)], host=H_OLD_HOST),
    "seed-v4-tcp-gap": seed(F_TCP, [
        pkt(rec(getport(16, 100003, TCP))[:20]),
        pkt(rec(getport(16, 100003, TCP))[20:], P_GAP)]),
    "seed-v4-udp-getaddr3": seed(0, call_reply(getaddr(17, "tcp", 3),
                                               uaddr_reply(17, "198.51.100.2.8.1"))),
    "seed-v4-udp-getversaddr": seed(0, call_reply(getaddr(18, "udp", 4, 9),
                                                  uaddr_reply(18, "0.0.0.0.78.80"))),
    "seed-v4-udp-getaddr-other-host": seed(0, call_reply(getaddr(19, "tcp"),
                                                         uaddr_reply(19, "192.0.2.99.8.1"))),
    "seed-v4-udp-getaddr-empty": seed(0, call_reply(getaddr(20, "tcp"), uaddr_reply(20, ""))),
    "seed-v6-udp-getaddr-tcp6": seed(F_IPV6, call_reply(getaddr(21, "tcp6"),
                                                        uaddr_reply(21, "2001:db8:1::2.8.1"))),
    "seed-v6-tcp-getversaddr-udp6": seed(F_IPV6 | F_TCP, call_reply(
        getaddr(22, "udp6", 4, 9), uaddr_reply(22, "2001:db8:1::2.78.80"), True)),
    "seed-v4-udp-dnat-getport": seed(F_DNAT, call_reply(getport(23, 100003, TCP),
                                                        port_reply(23, 2049))),
    "seed-v4-udp-snat-getport-busy": seed(F_SNAT, call_reply(
        getport(24, 100003, TCP), port_reply(24, 2049)), expect_mode=(2 << 2) | 1),
    "seed-v4-udp-dnat-getaddr": seed(F_DNAT, call_reply(getaddr(25, "tcp"),
                                                        uaddr_reply(25, "198.51.100.2.8.1"))),
    "seed-v4-tcp-dnat-getaddr-busy": seed(F_TCP | F_DNAT, call_reply(
        getaddr(26, "tcp"), uaddr_reply(26, "198.51.100.2.78.80"), True),
        expect_mode=(1 << 2) | 1),
    "seed-v6-tcp-dnat-getaddr-grows": seed(F_IPV6 | F_TCP | F_DNAT, call_reply(
        getaddr(27, "tcp6"), uaddr_reply(27, "2001:db8:1::2.78.80"), True)),
    "seed-v6-udp-snat-dnat-getaddr-shrinks": seed(F_IPV6 | F_SNAT | F_DNAT, call_reply(
        getaddr(28, "udp6"), uaddr_reply(28, "2001:0db8:0001:0000:0000:0000:0000:0002.8.1"))),
    "seed-v4-udp-dnat-exhausted": seed(F_DNAT, call_reply(
        getport(29, 100003, TCP), port_reply(29, 2049)), expect_mode=2),
    "seed-v4-udp-dnat-mangle-remove-fails": seed(F_DNAT, call_reply(
        getaddr(30, "tcp"), uaddr_reply(30, "198.51.100.2.8.1")), host=H_CTL_FAIL),
    "seed-v4-udp-state": seed(F_STATE, [pkt(port_reply(31, 2049), P_REPLY)],
                              state=struct.pack("<I", 31) + b"\0" * 20 + bytes([0x09, 0, 0, 0, 1, 0, 0, 0])),
}


if __name__ == "__main__":
    write("fuzz_rpc", SEEDS)
