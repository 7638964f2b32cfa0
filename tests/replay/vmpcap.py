#!/usr/bin/env python3
"""Captures of the VM's FTP cases against cthelper-replay (issue 16).

Standard library only (struct): a small pcap/pcapng reader, a pcap writer,
TCP over IPv4/IPv6 (extension headers walked), and three commands used by
tests/replay/vmcompare.sh:

  merge CLIENT.pcap SERVER.pcap OUT.pcap [--port 21]
      What entered the router, i.e. what the helper is shown: the frames
      the client sent (CLIENT.pcap, ingress on r-cl) and the frames the
      server sent (SERVER.pcap, ingress on r-sv), as captured, in time
      order.  Payloads are as their senders wrote them, before any
      rewrite; under NAT the server's frames carry the NATed tuple, which
      cthelper-replay takes as the reply direction of the NATed connection
      (the "helper's view" capture).  Who sent a frame is read from its
      source MAC: the client's is the source of the first SYN to PORT in
      CLIENT.pcap, the server's the destination of that SYN in SERVER.pcap.

  cut IN.pcap OUT.pcap [--port 21] [--data-frames 2]
      The control connection whole (both directions, found by the SYN to
      PORT and its SYN+ACK) and, of every other flow direction, only the
      first frames without payload (the handshake): a small replay case.

  compare --input IN.pcap --out OUT.pcap --client CLIENT.pcap
          --server SERVER.pcap --kernel EXPECT.txt --replay REPLAY.txt
          [--port 21]
      (a) every expectation the kernel reported ("conntrack -E expect",
      [NEW] lines: proto, dst address and port, the source address unless
      its mask is zero) is among the replay's "expect ...: created" lines,
      and there are as many of each; (b) the control connection's payload
      byte stream per direction in OUT.pcap (the replay's output) equals
      what left the router: client to server in SERVER.pcap, server to
      client in CLIENT.pcap.  Streams are reassembled by sequence number,
      retransmissions dropped.  Prints "why" lines and exits 1 on a
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

class Tcp:
    """The TCP segment of a frame (made by tcp() below)."""
    __slots__ = ("fr", "fam", "l3", "l4", "src", "dst", "sport", "dport",
                 "seq", "ack", "flags", "poff", "end", "mac_src", "mac_dst")

    @property
    def payload(self):
        return self.fr.data[self.poff:self.end]

    def pure_syn(self):
        return self.flags & (TH_SYN | TH_ACK) == TH_SYN


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


def tcp(fr):
    """Parse the TCP segment of a frame (None if it carries none)."""
    d = fr.data
    l3, et = _l3(fr)
    if et == 0x0800 and len(d) >= l3 + 20:
        ihl = (d[l3] & 0x0F) * 4
        tot, frag = struct.unpack_from("!H2xH", d, l3 + 2)
        if d[l3 + 9] != 6 or frag & 0x3FFF:
            return None
        end = l3 + tot if tot else len(d)
        fam, src, dst, l4 = 4, d[l3 + 12:l3 + 16], d[l3 + 16:l3 + 20], l3 + ihl
    elif et == 0x86DD and len(d) >= l3 + 40:
        plen = struct.unpack_from("!H", d, l3 + 4)[0]
        end = l3 + 40 + plen if plen else len(d)
        nh, l4 = d[l3 + 6], l3 + 40
        while nh != 6:
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
    if l4 + 20 > end:
        return None
    t = Tcp()
    t.fr, t.fam, t.l3, t.l4, t.end = fr, fam, l3, l4, end
    t.src = ipaddress.ip_address(bytes(src))
    t.dst = ipaddress.ip_address(bytes(dst))
    t.sport, t.dport, t.seq, t.ack, doff, t.flags = struct.unpack_from(
        "!HHIIBB", d, l4)
    t.poff = min(l4 + (doff >> 4) * 4, end)
    if fr.link == LINK_ETHER:
        t.mac_dst, t.mac_src = d[0:6], d[6:12]
    else:
        t.mac_dst = t.mac_src = None
    return t


def halfflow(t):
    """One direction of a flow as its headers name it."""
    return (t.src, t.sport, t.dst, t.dport)


def parse_all(frames):
    return [t for t in (tcp(f) for f in frames) if t is not None]


class Control:
    """The control connection in one capture: the SYN to PORT and its
    SYN+ACK, by sequence numbers (NAT changes addresses and ports, not
    these).  orig/reply: the header tuples of each direction there."""

    def __init__(self, segs, port, what, isn=None):
        syn = next((t for t in segs if t.pure_syn() and
                    (t.seq == isn if isn is not None else t.dport == port)), None)
        if syn is None:
            raise Bad("%s: no SYN %s" % (what, "to port %d" % port if isn is None
                                         else "with sequence number %d" % isn))
        sa = next((t for t in segs if t.flags & (TH_SYN | TH_ACK) == TH_SYN | TH_ACK
                   and t.ack == (syn.seq + 1) & 0xFFFFFFFF), None)
        if sa is None:
            raise Bad("%s: no SYN+ACK answers the SYN to port %d" % (what, syn.dport))
        self.syn, self.synack = syn, sa
        self.isn_i, self.isn_r = syn.seq, sa.seq
        self.orig, self.reply = halfflow(syn), halfflow(sa)

    def segs(self, segs, from_client):
        hf = self.orig if from_client else self.reply
        return [t for t in segs if halfflow(t) == hf]


# ------------------------------------------------------------ merge

def merge(client_frames, server_frames, port):
    """The frames that entered the router, as captured, in time order."""
    cs, ss = parse_all(client_frames), parse_all(server_frames)
    csyn = Control(cs, port, "client side").syn
    ssyn = Control(ss, port, "server side").syn
    if csyn.mac_src is None or ssyn.mac_dst is None:
        raise Bad("merge needs Ethernet captures (who sent a frame is read from its MAC)")
    cin = [(t.fr.ts, 0, i, t.fr) for i, t in enumerate(cs) if t.mac_src == csyn.mac_src]
    sin = [(t.fr.ts, 1, i, t.fr) for i, t in enumerate(ss) if t.mac_src == ssyn.mac_dst]
    return [x[3] for x in sorted(cin + sin, key=lambda x: x[:3])]


# ------------------------------------------------------------ cut

def cut(frames, port, data_frames):
    segs = parse_all(frames)
    ctl = Control(segs, port, "input")
    keep, seen, done = set(), {}, set()
    for t in segs:
        hf = halfflow(t)
        if hf in (ctl.orig, ctl.reply):
            keep.add(id(t.fr))
            continue
        if hf in done:
            continue
        if t.end > t.poff or seen.get(hf, 0) >= data_frames:
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


# ------------------------------------------------------------ expectations

KERNEL_RE = re.compile(r"\[NEW\].*?\bproto=(\d+) src=(\S+) dst=(\S+) sport=(\d+) "
                       r"dport=(\d+) mask-src=(\S+)")
PROTO = {6: "tcp", 17: "udp"}


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
            m = re.search(r"\bexpect \d+ class \S+ (.*): created\s*$", line)
            if not m:
                continue
            w = m.group(1).split()
            k = next((i for i, x in enumerate(w) if x in ("tcp", "udp")), None)
            if k is None or len(w) < k + 4 or w[k + 2] != ">":
                raise Bad("cannot read the replay's line: %s" % line.strip())
            src, _ = endpoint(w[k + 1])
            dst, dport = endpoint(w[k + 3])
            out.append((w[k], src, dst, dport, line.strip()))
    return out


def fmt_exp(e):
    return "%s %s > %s:%d" % (e[0], e[1] or "any", e[2], e[3])


def compare_expectations(kern, rep):
    why, left = [], list(rep)
    for k in kern:
        for r in left:
            if r[0] == k[0] and r[2] == k[2] and r[3] == k[3] and \
               (k[1] is None or r[1] == k[1]):
                left.remove(r)
                break
        else:
            why.append("the kernel's expectation %s is not among the replay's "
                       "(%s)" % (fmt_exp(k), "; ".join(fmt_exp(r) for r in rep) or "none"))
    if len(kern) != len(rep):
        why.append("the kernel reported %d expectation(s), the replay created %d"
                   % (len(kern), len(rep)))
    return why


# ------------------------------------------------------------ commands

def cmd_merge(a):
    write_pcap(a.output, merge(read_pcap(a.client), read_pcap(a.server), a.port))


def cmd_cut(a):
    frames = read_pcap(a.input)
    kept = cut(frames, a.port, a.data_frames)
    write_pcap(a.output, kept)
    print("kept %d of %d frames" % (len(kept), len(frames)))


def cmd_compare(a):
    why = []
    kern = kernel_expectations(a.kernel)
    rep = replay_expectations(a.replay)
    why += compare_expectations(kern, rep)

    inp = parse_all(read_pcap(a.input))
    out = parse_all(read_pcap(a.out))
    ctl = Control(inp, a.port, a.input)
    wire = {"client": parse_all(read_pcap(a.client)),
            "server": parse_all(read_pcap(a.server))}
    sizes = []
    for name, from_client, side in (("client to server", True, "server"),
                                    ("server to client", False, "client")):
        isn = ctl.isn_i if from_client else ctl.isn_r
        # the replay writes every frame with the captured headers: its
        # output frame by frame on the input's geometry (a rewrite that
        # changed a length moves later sequence numbers, not the pieces)
        iseg, oseg = ctl.segs(inp, from_client), ctl.segs(out, from_client)
        if len(oseg) == len(iseg):
            got = stream(iseg, isn, [t.payload for t in oseg])
        else:
            got = stream(oseg, isn)
        wctl = Control(wire[side], a.port, "%s.pcap" % side, ctl.isn_i)
        want = stream(wctl.segs(wire[side], from_client), isn)
        sizes.append("%s %d bytes" % (name, len(want)))
        if got != want:
            why.append("%s: the replay's stream differs from %s.pcap's: %s"
                       % (name, side, first_diff(got, want)))
    for w in why:
        print(w)
    if not why:
        print("%d expectation(s) as the kernel's (%s); control streams equal: %s"
              % (len(kern), "; ".join(fmt_exp(k) for k in kern) or "none",
                 ", ".join(sizes)))
    return 1 if why else 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("merge")
    m.add_argument("client")
    m.add_argument("server")
    m.add_argument("output")
    m.add_argument("--port", type=int, default=21)
    c = sub.add_parser("cut")
    c.add_argument("input")
    c.add_argument("output")
    c.add_argument("--port", type=int, default=21)
    c.add_argument("--data-frames", type=int, default=2)
    k = sub.add_parser("compare")
    for o in ("input", "out", "client", "server", "kernel", "replay"):
        k.add_argument("--" + o, required=True)
    k.add_argument("--port", type=int, default=21)
    a = p.parse_args()
    try:
        return {"merge": cmd_merge, "cut": cmd_cut, "compare": cmd_compare}[a.cmd](a) or 0
    except (Bad, OSError, ValueError, struct.error) as e:
        print("%s: %s" % (a.cmd, e))
        return 2


if __name__ == "__main__":
    sys.exit(main())
