#!/usr/bin/env python3
"""Captures of the VM's end-to-end cases against cthelper-replay (issue 16).

Standard library only (struct): a small pcap/pcapng reader, a pcap writer,
TCP and UDP over IPv4/IPv6 (extension headers walked), and three commands
used by tests/replay/vmcompare.sh.  PORT and PROTO (--port, --proto tcp|udp,
default either) name the helped flows, as cthelper-replay's -p and -P do:
a TCP connection whose SYN goes to PORT, a UDP flow whose first datagram
does.  A UDP flow is known by its two ports (NAT in the VM's topology
changes addresses, not ports), a TCP connection by its initial sequence
numbers.

  merge CLIENT.pcap SERVER.pcap OUT.pcap [--port 21] [--proto P]
      What entered the router, i.e. what the helper is shown: the frames
      the client sent (CLIENT.pcap, ingress on r-cl) and the frames the
      server sent (SERVER.pcap, ingress on r-sv), as captured, in time
      order.  Payloads are as their senders wrote them, before any
      rewrite; under NAT the server's frames carry the NATed tuple, which
      cthelper-replay takes as the reply direction of the NATed connection
      (the "helper's view" capture).  Who sent a frame is read from its
      source MAC: the client's is the source of the first packet to PORT
      (a SYN, or a datagram) in CLIENT.pcap, the server's the destination
      of that packet in SERVER.pcap.

  cut IN.pcap OUT.pcap [--port 21] [--proto P] [--data-frames 2]
          [--udp-frames 1]
      The helped flows whole (both directions) and, of every other flow
      direction, only the first TCP frames without payload (the
      handshake) or the first UDP datagrams: a small replay case.

  compare --input IN.pcap --out OUT.pcap --client CLIENT.pcap
          --server SERVER.pcap --kernel EXPECT.txt --replay REPLAY.txt
          [--port 21] [--proto P]
      (a) every expectation the kernel reported ("conntrack -E expect",
      [NEW] lines: proto, dst address and port, the source address unless
      its mask is zero) is among the replay's "expect ...: created" and
      successful "expect-ctl refresh" lines (a refresh is sent to the
      kernel as the expectation again, which replaces it: [DESTROY] and
      [NEW]), and there are as many of each; (b) each helped flow as the
      replay wrote it (OUT.pcap) equals what left the router, per
      direction: what the client sent as SERVER.pcap has it, what the
      server sent as CLIENT.pcap has it.  TCP: the payload byte streams,
      reassembled by sequence number, retransmissions dropped.  UDP: the
      datagrams' payloads, in order.  Prints "why" lines and exits 1 on a
      difference, 2 when an input cannot be used, 0 when all agree.
"""
import argparse
import ipaddress
import re
import struct
import sys

LINK_ETHER, LINK_RAW, LINK_NULL, LINK_SLL, LINK_SLL2 = 1, 101, 0, 113, 276
LINK_IPV4, LINK_IPV6 = 228, 229
TH_FIN, TH_SYN, TH_RST, TH_ACK = 0x01, 0x02, 0x04, 0x10


class Bad(Exception):
    """An input that cannot be used (exit 2)."""


# ------------------------------------------------------------ pcap files

class Frame:
    """One captured frame: time (seconds, float), link type, bytes."""

    def __init__(self, ts, link, data, origlen=None):
        self.ts = ts
        self.link = link
        self.data = bytes(data)
        self.origlen = len(self.data) if origlen is None else origlen


def _read_pcapng(buf, path):
    frames, links, tsres, bo, off = [], [], [], "<", 0
    while off + 12 <= len(buf):
        btype, blen = struct.unpack_from(bo + "II", buf, off)
        if btype == 0x0A0D0D0A:
            bo = "<" if buf[off + 8:off + 12] == b"\x4d\x3c\x2b\x1a" else ">"
            btype, blen = struct.unpack_from(bo + "II", buf, off)
            links, tsres = [], []
        if blen < 12 or off + blen > len(buf):
            raise Bad("%s: truncated pcapng block at %d" % (path, off))
        body = buf[off + 8:off + blen - 4]
        if btype == 1:                       # interface description
            links.append(struct.unpack_from(bo + "H", body, 0)[0])
            res = 1e-6
            o = 8
            while o + 4 <= len(body):
                code, olen = struct.unpack_from(bo + "HH", body, o)
                if code == 0:
                    break
                if code == 9 and olen >= 1:
                    v = body[o + 4]
                    res = 2.0 ** -(v & 0x7F) if v & 0x80 else 10.0 ** -v
                o += 4 + (olen + 3) // 4 * 4
            tsres.append(res)
        elif btype == 6:                     # enhanced packet
            ifc, hi, lo, cap, orig = struct.unpack_from(bo + "IIIII", body, 0)
            if ifc >= len(links):
                raise Bad("%s: packet on unknown interface %d" % (path, ifc))
            frames.append(Frame(((hi << 32) | lo) * tsres[ifc], links[ifc],
                                body[20:20 + cap], orig))
        elif btype == 3:                     # simple packet
            orig = struct.unpack_from(bo + "I", body, 0)[0]
            frames.append(Frame(0.0, links[0], body[4:4 + orig], orig))
        off += blen
    return frames


def read_pcap(path):
    """All frames of a pcap or pcapng file."""
    try:
        with open(path, "rb") as f:
            buf = f.read()
    except OSError as e:
        raise Bad("%s: %s" % (path, e.strerror)) from None
    if len(buf) < 24:
        raise Bad("%s: not a capture (%d bytes)" % (path, len(buf)))
    if buf[:4] == b"\x0a\x0d\x0d\x0a":
        return _read_pcapng(buf, path)
    magic = buf[:4]
    for bo in "<>":
        m = struct.unpack(bo + "I", magic)[0]
        if m in (0xA1B2C3D4, 0xA1B23C4D):
            div = 1e6 if m == 0xA1B2C3D4 else 1e9
            break
    else:
        raise Bad("%s: not a pcap file" % path)
    link = struct.unpack_from(bo + "I", buf, 20)[0] & 0x0FFFFFFF
    frames, off = [], 24
    while off + 16 <= len(buf):
        sec, frac, cap, orig = struct.unpack_from(bo + "IIII", buf, off)
        off += 16
        if off + cap > len(buf):
            break                            # cut short (a killed tcpdump)
        frames.append(Frame(sec + frac / div, link, buf[off:off + cap], orig))
        off += cap
    return frames


def write_pcap(path, frames):
    """A classic pcap (microseconds); every frame must have the same link."""
    link = frames[0].link if frames else LINK_ETHER
    out = [struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 262144, link)]
    for fr in frames:
        if fr.link != link:
            raise Bad("frames of different link types cannot share a pcap")
        sec = int(fr.ts)
        usec = int(round((fr.ts - sec) * 1e6))
        if usec >= 1000000:
            sec, usec = sec + 1, usec - 1000000
        out.append(struct.pack("<IIII", sec, usec, len(fr.data),
                               max(fr.origlen, len(fr.data))))
        out.append(fr.data)
    with open(path, "wb") as f:
        f.write(b"".join(out))


# ------------------------------------------------------------ packets

TCP, UDP = 6, 17
PROTO = {TCP: "tcp", UDP: "udp"}


class Pkt:
    """The TCP segment or UDP datagram of a frame (made by parse() below);
    seq, ack and flags are 0 for UDP."""
    __slots__ = ("fr", "proto", "fam", "l3", "l4", "src", "dst", "sport",
                 "dport", "seq", "ack", "flags", "poff", "end", "mac_src",
                 "mac_dst")

    @property
    def payload(self):
        return self.fr.data[self.poff:self.end]

    def pure_syn(self):
        return self.proto == TCP and self.flags & (TH_SYN | TH_ACK) == TH_SYN

    def starts(self, port, proto):
        """Is this the kind of packet that starts a helped flow: a SYN, or
        a datagram, to PORT (and of PROTO unless None)?"""
        if proto is not None and self.proto != proto or self.dport != port:
            return False
        return self.proto == UDP or self.pure_syn()


def _l3(fr):
    d, link = fr.data, fr.link
    if link == LINK_ETHER:
        off, et = 14, struct.unpack_from("!H", d, 12)[0] if len(d) >= 14 else 0
        while et in (0x8100, 0x88A8) and len(d) >= off + 4:
            et = struct.unpack_from("!H", d, off + 2)[0]
            off += 4
    elif link == LINK_SLL:
        off, et = 16, struct.unpack_from("!H", d, 14)[0] if len(d) >= 16 else 0
    elif link == LINK_SLL2:
        off, et = 20, struct.unpack_from("!H", d, 0)[0] if len(d) >= 20 else 0
    elif link == LINK_NULL:
        off = 4
        et = 0x0800 if d[4:5] and d[4] >> 4 == 4 else 0x86DD
    elif link in (LINK_RAW, LINK_IPV4, LINK_IPV6):
        off, et = 0, 0x0800 if d[:1] and d[0] >> 4 == 4 else 0x86DD
    else:
        raise Bad("link type %d is not supported" % link)
    return off, et


def parse(fr):
    """The TCP segment or UDP datagram of a frame (None if it has neither,
    or is an IP fragment other than the first)."""
    d = fr.data
    l3, et = _l3(fr)
    if et == 0x0800 and len(d) >= l3 + 20:
        ihl = (d[l3] & 0x0F) * 4
        tot, frag = struct.unpack_from("!H2xH", d, l3 + 2)
        nh = d[l3 + 9]
        if nh not in (TCP, UDP) or frag & 0x3FFF:
            return None
        end = l3 + tot if tot else len(d)
        fam, src, dst, l4 = 4, d[l3 + 12:l3 + 16], d[l3 + 16:l3 + 20], l3 + ihl
    elif et == 0x86DD and len(d) >= l3 + 40:
        plen = struct.unpack_from("!H", d, l3 + 4)[0]
        end = l3 + 40 + plen if plen else len(d)
        nh, l4 = d[l3 + 6], l3 + 40
        while nh not in (TCP, UDP):
            if l4 + 8 > len(d):
                return None
            if nh in (0, 43, 60):
                nh, l4 = d[l4], l4 + (d[l4 + 1] + 1) * 8
            elif nh == 51:
                nh, l4 = d[l4], l4 + (d[l4 + 1] + 2) * 4
            elif nh == 44:
                if struct.unpack_from("!H", d, l4 + 2)[0] & 0xFFF9:
                    return None              # not a first fragment
                nh, l4 = d[l4], l4 + 8
            else:
                return None
        fam, src, dst = 6, d[l3 + 8:l3 + 24], d[l3 + 24:l3 + 40]
    else:
        return None
    end = min(end, len(d))
    if l4 + (20 if nh == TCP else 8) > end:
        return None
    t = Pkt()
    t.fr, t.proto, t.fam, t.l3, t.l4, t.end = fr, nh, fam, l3, l4, end
    t.src = ipaddress.ip_address(bytes(src))
    t.dst = ipaddress.ip_address(bytes(dst))
    if nh == TCP:
        t.sport, t.dport, t.seq, t.ack, doff, t.flags = struct.unpack_from(
            "!HHIIBB", d, l4)
        t.poff = min(l4 + (doff >> 4) * 4, end)
    else:
        t.sport, t.dport, ulen = struct.unpack_from("!HHH", d, l4)
        t.seq = t.ack = t.flags = 0
        t.poff = l4 + 8
        if ulen >= 8:
            t.end = min(end, l4 + ulen)
    if fr.link == LINK_ETHER:
        t.mac_dst, t.mac_src = d[0:6], d[6:12]
    else:
        t.mac_dst = t.mac_src = None
    return t


def halfflow(t):
    """One direction of a flow as its headers name it."""
    return (t.proto, t.src, t.sport, t.dst, t.dport)


def parse_all(frames):
    return [t for t in (parse(f) for f in frames) if t is not None]


def fmt_ep(addr, port):
    return "[%s]:%d" % (addr, port) if addr.version == 6 else "%s:%d" % (addr, port)


class TcpConn:
    """A TCP connection in one capture: its SYN and the SYN+ACK answering
    it, found by the SYN's port (the input) or its initial sequence number
    (the other captures: NAT changes addresses and ports, not these).
    orig/reply: the header tuples of each direction there."""

    def __init__(self, pkts, what, port=None, isn=None, syn=None):
        if syn is None:
            syn = next((t for t in pkts if t.pure_syn() and
                        (t.seq == isn if isn is not None else t.dport == port)), None)
        if syn is None:
            raise Bad("%s: no SYN %s" % (what, "to port %d" % port if isn is None
                                         else "with sequence number %d" % isn))
        sa = next((t for t in pkts if t.proto == TCP and
                   t.flags & (TH_SYN | TH_ACK) == TH_SYN | TH_ACK and
                   t.ack == (syn.seq + 1) & 0xFFFFFFFF), None)
        if sa is None:
            raise Bad("%s: no SYN+ACK answers the SYN to port %d" % (what, syn.dport))
        self.syn, self.synack = syn, sa
        self.isn_i, self.isn_r = syn.seq, sa.seq
        self.orig, self.reply = halfflow(syn), halfflow(sa)

    def name(self):
        return "tcp %s > %s" % (fmt_ep(self.syn.src, self.syn.sport),
                                fmt_ep(self.syn.dst, self.syn.dport))

    def member(self, t):
        return halfflow(t) in (self.orig, self.reply)

    def segs(self, pkts, initiator):
        hf = self.orig if initiator else self.reply
        return [t for t in pkts if halfflow(t) == hf]


def udp_key(t):
    """A UDP flow as the VM's NAT leaves it: family and the two ports."""
    return (t.fam, min(t.sport, t.dport), max(t.sport, t.dport))


class UdpFlow:
    """A UDP flow whose first datagram (FIRST) went to the helped port."""

    def __init__(self, first):
        self.first, self.key = first, udp_key(first)

    def name(self):
        return "udp %s > %s" % (fmt_ep(self.first.src, self.first.sport),
                                fmt_ep(self.first.dst, self.first.dport))

    def member(self, t):
        return t.proto == UDP and udp_key(t) == self.key


def helped_flows(pkts, port, proto, what):
    """The flows a helper on PORT (PROTO) is attached to, in the order
    they start: TcpConn and UdpFlow objects."""
    flows, isns, seen = [], set(), set()
    for t in pkts:
        if t.proto == UDP:
            k = udp_key(t)
            if k in seen:
                continue
            seen.add(k)
        if not t.starts(port, proto):
            continue
        if t.proto == UDP:
            flows.append(UdpFlow(t))
        elif t.seq not in isns:              # not a retransmitted SYN
            isns.add(t.seq)
            flows.append(TcpConn(pkts, what, syn=t))
    if not flows:
        raise Bad("%s: no %s flow to port %d" % (what, PROTO.get(proto, "tcp or udp"), port))
    return flows


def macs(client_pkts, server_pkts, port, proto):
    """The client's and the server's MAC addresses: the source of the first
    packet to PORT on the client side, its destination on the server side."""
    c = next((t for t in client_pkts if t.starts(port, proto)), None)
    s = next((t for t in server_pkts if t.starts(port, proto)), None)
    if c is None or s is None:
        raise Bad("no %s packet to port %d on the %s side" % (
            PROTO.get(proto, "tcp or udp"), port, "client" if c is None else "server"))
    if c.mac_src is None or s.mac_dst is None:
        raise Bad("merge needs Ethernet captures (who sent a frame is read from its MAC)")
    return {"client": c.mac_src, "server": s.mac_dst}


# ------------------------------------------------------------ merge

def merge(client_frames, server_frames, port, proto):
    """The frames that entered the router, as captured, in time order."""
    cs, ss = parse_all(client_frames), parse_all(server_frames)
    mac = macs(cs, ss, port, proto)
    cin = [(t.fr.ts, 0, i, t.fr) for i, t in enumerate(cs) if t.mac_src == mac["client"]]
    sin = [(t.fr.ts, 1, i, t.fr) for i, t in enumerate(ss) if t.mac_src == mac["server"]]
    return [x[3] for x in sorted(cin + sin, key=lambda x: x[:3])]


# ------------------------------------------------------------ cut

def cut(frames, port, proto, data_frames, udp_frames):
    pkts = parse_all(frames)
    flows = helped_flows(pkts, port, proto, "input")
    keep, seen, done = set(), {}, set()
    for t in pkts:
        if any(f.member(t) for f in flows):
            keep.add(id(t.fr))
            continue
        hf = halfflow(t)
        if hf in done:
            continue
        if t.proto == TCP:
            if t.end > t.poff or seen.get(hf, 0) >= data_frames:
                done.add(hf)
                continue
        elif seen.get(hf, 0) >= udp_frames:
            done.add(hf)
            continue
        seen[hf] = seen.get(hf, 0) + 1
        keep.add(id(t.fr))
    return [f for f in frames if id(f) in keep]


# ------------------------------------------------------------ streams

def reassemble(segs, isn):
    """Pieces (segment index, offset into its payload) that make the byte
    stream after ISN, retransmissions dropped; a gap is an error."""
    base = (isn + 1) & 0xFFFFFFFF
    items = []
    for i, t in enumerate(segs):
        n = t.end - t.poff
        if n > 0:
            items.append(((t.seq - base) & 0xFFFFFFFF, i, n))
    items.sort()
    pieces, nxt = [], 0
    for rel, i, n in items:
        if rel > nxt:
            raise Bad("%d byte(s) missing at stream offset %d" % (rel - nxt, nxt))
        if rel + n <= nxt:
            continue                         # retransmitted
        pieces.append((i, nxt - rel))
        nxt = rel + n
    return pieces


def stream(segs, isn, payloads=None):
    pl = payloads or [t.payload for t in segs]
    out = []
    for i, off in reassemble(segs, isn):
        if off and payloads is not None and len(payloads[i]) != segs[i].end - segs[i].poff:
            raise Bad("a partly retransmitted segment was rewritten with another length")
        out.append(pl[i][off:])
    return b"".join(out)


def first_diff(a, b):
    n = min(len(a), len(b))
    i = next((k for k in range(n) if a[k] != b[k]), n)
    lo = max(0, i - 20)
    return "first difference at byte %d of %d/%d: replay %r, wire %r" % (
        i, len(a), len(b), a[lo:i + 40], b[lo:i + 40])


def first_datagram_diff(a, b):
    n = min(len(a), len(b))
    i = next((k for k in range(n) if a[k] != b[k]), n)
    if i == n:
        return "the replay wrote %d datagram(s), the wire has %d" % (len(a), len(b))
    return "%d/%d datagrams, the first %d equal; datagram %d: %s" % (
        len(a), len(b), i, i + 1, first_diff(a[i], b[i]))


def one_address_pair(pkts, what):
    """The datagrams of one flow direction in one capture must share their
    addresses: else two flows had the same ports and the key is ambiguous."""
    pairs = {(t.src, t.dst) for t in pkts}
    if len(pairs) > 1:
        raise Bad("%s: datagrams of one port pair between %d address pairs (%s): "
                  "which flow is which is ambiguous" % (
                      what, len(pairs), "; ".join("%s > %s" % p for p in sorted(pairs, key=str))))


def compare_tcp(conn, inp, out, wire, mac):
    """Why the replay's streams of CONN differ from the wire's, and the
    sizes: client to server as SERVER.pcap has it, server to client as
    CLIENT.pcap has it."""
    why, sizes = [], []
    init = "client" if conn.syn.mac_src in (None, mac["client"]) else "server"
    for sender, initiator in ((init, True), ("server" if init == "client" else "client", False)):
        other = "server" if sender == "client" else "client"
        name = "%s to %s" % (sender, other)
        isn = conn.isn_i if initiator else conn.isn_r
        # the replay writes every frame with the captured headers: its
        # output frame by frame on the input's geometry (a rewrite that
        # changed a length moves later sequence numbers, not the pieces)
        iseg, oseg = conn.segs(inp, initiator), conn.segs(out, initiator)
        if len(oseg) == len(iseg):
            got = stream(iseg, isn, [t.payload for t in oseg])
        else:
            got = stream(oseg, isn)
        wconn = TcpConn(wire[other], "%s.pcap" % other, isn=conn.isn_i)
        want = stream(wconn.segs(wire[other], initiator), isn)
        sizes.append("%s %d bytes" % (name, len(want)))
        if got != want:
            why.append("%s, %s: the replay's stream differs from %s.pcap's: %s"
                       % (conn.name(), name, other, first_diff(got, want)))
    return why, sizes


def compare_udp(flow, out, wire, mac):
    """The same for a UDP flow: the payloads of what each side sent, as the
    replay wrote them and as they left the router towards the other."""
    why, sizes = [], []
    for sender, other in (("client", "server"), ("server", "client")):
        name = "%s to %s" % (sender, other)
        got = [t for t in out if flow.member(t) and t.mac_src == mac[sender]]
        want = [t for t in wire[other] if flow.member(t) and t.mac_dst == mac[other]]
        one_address_pair(got, "the replay's output, %s" % name)
        one_address_pair(want, "%s.pcap, %s" % (other, name))
        got, want = [t.payload for t in got], [t.payload for t in want]
        sizes.append("%s %d datagrams" % (name, len(want)))
        if got != want:
            why.append("%s, %s: the replay's datagrams differ from %s.pcap's: %s"
                       % (flow.name(), name, other, first_datagram_diff(got, want)))
    return why, sizes


# ------------------------------------------------------------ expectations

KERNEL_RE = re.compile(r"\[NEW\].*?\bproto=(\d+) src=(\S+) dst=(\S+) sport=(\d+) "
                       r"dport=(\d+) mask-src=(\S+)")
# what the replay prints for an expectation the kernel is sent: one it
# created ("created", perhaps ", replaces N" or ", evicts N ..."), or one a
# refresh sent again (result 0)
REPLAY_RE = re.compile(r"\bexpect \d+ class \S+ (.*): created(,.*)?\s*$|"
                       r"\bexpect-ctl refresh class \S+ (.*): 0 \(.*\)\s*$")


def endpoint(s):
    if s.startswith("["):
        a, _, p = s[1:].partition("]:")
    else:
        a, _, p = s.rpartition(":")
    addr = None if a in ("any", "*", "") else ipaddress.ip_address(a)
    port = 0 if p in ("any", "*", "") else int(p)
    return addr, port


def kernel_expectations(path):
    out = []
    with open(path, errors="replace") as f:
        for line in f:
            m = KERNEL_RE.search(line)
            if not m:
                continue
            proto, src, dst, _, dport, msrc = m.groups()
            src = None if int(ipaddress.ip_address(msrc)) == 0 else ipaddress.ip_address(src)
            out.append((PROTO.get(int(proto), proto), src, ipaddress.ip_address(dst),
                        int(dport), line.strip()))
    return out


def replay_expectations(path):
    out = []
    with open(path, errors="replace") as f:
        for line in f:
            m = REPLAY_RE.search(line)
            if not m:
                continue
            w = (m.group(1) or m.group(3)).split()
            k = next((i for i, x in enumerate(w) if x in ("tcp", "udp")), None)
            if k is None or len(w) < k + 4 or w[k + 2] != ">":
                raise Bad("cannot read the replay's line: %s" % line.strip())
            src, _ = endpoint(w[k + 1])
            dst, dport = endpoint(w[k + 3])
            out.append((w[k], src, dst, dport, line.strip()))
    return out


def fmt_exp(e):
    return "%s %s > %s" % (e[0], e[1] or "any", fmt_ep(e[2], e[3]))


def compare_expectations(kern, rep):
    why, left, missing = [], list(rep), []
    for k in kern:
        for r in left:
            if r[0] == k[0] and r[2] == k[2] and r[3] == k[3] and \
               (k[1] is None or r[1] == k[1]):
                left.remove(r)
                break
        else:
            missing.append(k)
    if missing:
        why.append("the kernel's expectation%s %s %s not among the replay's (%s)" % (
            "s" if len(missing) > 1 else "", "; ".join(fmt_exp(k) for k in missing),
            "are" if len(missing) > 1 else "is",
            "; ".join(fmt_exp(r) for r in rep) or "none"))
    if len(kern) != len(rep):
        why.append("the kernel reported %d expectation(s), the replay created %d"
                   % (len(kern), len(rep)))
    return why


# ------------------------------------------------------------ commands

def proto_arg(s):
    if s in (None, "", "any"):
        return None
    if s not in ("tcp", "udp"):
        raise argparse.ArgumentTypeError("tcp, udp or any")
    return TCP if s == "tcp" else UDP


def cmd_merge(a):
    write_pcap(a.output, merge(read_pcap(a.client), read_pcap(a.server), a.port, a.proto))


def cmd_cut(a):
    frames = read_pcap(a.input)
    kept = cut(frames, a.port, a.proto, a.data_frames, a.udp_frames)
    write_pcap(a.output, kept)
    print("kept %d of %d frames" % (len(kept), len(frames)))


def cmd_compare(a):
    why = []
    kern = kernel_expectations(a.kernel)
    rep = replay_expectations(a.replay)
    why += compare_expectations(kern, rep)

    inp = parse_all(read_pcap(a.input))
    out = parse_all(read_pcap(a.out))
    wire = {"client": parse_all(read_pcap(a.client)),
            "server": parse_all(read_pcap(a.server))}
    mac = macs(wire["client"], wire["server"], a.port, a.proto)
    sizes = []
    for flow in helped_flows(inp, a.port, a.proto, a.input):
        if isinstance(flow, TcpConn):
            w, s = compare_tcp(flow, inp, out, wire, mac)
        else:
            w, s = compare_udp(flow, out, wire, mac)
        why += w
        sizes.append("%s: %s" % (flow.name(), ", ".join(s)))
    for w in why:
        print(w)
    if not why:
        print("%d expectation(s) as the kernel's (%s); helped flows equal: %s"
              % (len(kern), "; ".join(fmt_exp(k) for k in kern) or "none",
                 "; ".join(sizes)))
    return 1 if why else 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("merge")
    m.add_argument("client")
    m.add_argument("server")
    m.add_argument("output")
    c = sub.add_parser("cut")
    c.add_argument("input")
    c.add_argument("output")
    c.add_argument("--data-frames", type=int, default=2)
    c.add_argument("--udp-frames", type=int, default=1)
    k = sub.add_parser("compare")
    for o in ("input", "out", "client", "server", "kernel", "replay"):
        k.add_argument("--" + o, required=True)
    for s in (m, c, k):
        s.add_argument("--port", type=int, default=21)
        s.add_argument("--proto", type=proto_arg, default=None)
    a = p.parse_args()
    try:
        return {"merge": cmd_merge, "cut": cmd_cut, "compare": cmd_compare}[a.cmd](a) or 0
    except (Bad, OSError, ValueError, struct.error) as e:
        print("%s: %s" % (a.cmd, e))
        return 2


if __name__ == "__main__":
    sys.exit(main())
