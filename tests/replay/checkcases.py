#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check the capture cases written from descriptions
(tests/replay/cases/PLUGIN/CASE.conv, built by cthelper-mkpcap).

    tests/replay/checkcases.py            # PASS/FAIL lines (tests/README.md)
    tests/replay/checkcases.py --tables   # README.md's tables, from the cases
    tests/replay/checkcases.py --write [PLUGIN/CASE...]
                                          # rebuild CASE.pcap from CASE.conv

replay/cases-current: cthelper-mkpcap (sdk/tools/, the installed tool's
source) writes exactly the committed CASE.pcap from every CASE.conv, and
every CASE.conv has its CASE.args; the same for the SDK examples'
descriptions (sdk/examples/NAME/NAME.conv).
replay/cases-readme: README.md's table of each plugin has one row per
case: its name, its .args and the .conv's opening comment.
replay/pcap/PLUGIN/CASE (and replay/pcap/example/NAME), for each case
with a .conv (a real capture in
cases/ may have a loopback's partial sums): a classic pcap of
LINKTYPE_RAW packets, times that never go back, every IPv4/IPv6 length
and IPv4, TCP and UDP checksum right (computed here, not with
cthelper-mkpcap's code); every TCP connection opens with
SYN, SYN-ACK (acknowledging the SYN), ACK, each side's sequence numbers
go on without a gap (a retransmission goes back), acknowledgements never
go back nor past what the peer sent (but for the few bytes a helper's
rewrite added), and both FINs are acknowledged; a SYN nobody answers is
only retried.  The two directions of a connection are paired by the
SYN-ACK, not by addresses, so the helper's view of a NATed session checks
alike.  A case named failover-* may start mid-stream: a connection's
first segment then gives both sides' positions (what conntrack picks up).
"""
import glob
import os
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))

from wire import ACK, FIN, SYN, csum  # noqa: E402

CASES = os.path.join(HERE, "cases")
REWRITE_SLACK = 8    # bytes a helper's rewrite may add, acknowledged by the peer


class Bad(Exception):
    pass


def l4_sum_ok(src, dst, proto, l4):
    v6 = len(src) == 16
    pseudo = src + dst + (struct.pack("!IxxxB", len(l4), proto) if v6 else
                          struct.pack("!xBH", proto, len(l4)))
    return csum(pseudo + l4) == 0xFFFF


def parse_ip(p):
    """(src, dst, proto, l4 bytes) of a packet, its lengths and sums checked."""
    if not p:
        raise Bad("empty packet")
    ver = p[0] >> 4
    if ver == 4:
        if p[0] & 15 != 5 or len(p) < 20:
            raise Bad("IPv4 header length")
        if struct.unpack("!H", p[2:4])[0] != len(p):
            raise Bad("IPv4 total length %d, packet %d" % (struct.unpack("!H", p[2:4])[0], len(p)))
        if csum(p[:20]) != 0xFFFF:
            raise Bad("IPv4 header checksum")
        return p[12:16], p[16:20], p[9], p[20:]
    if ver == 6:
        if len(p) < 40 or struct.unpack("!H", p[4:6])[0] != len(p) - 40:
            raise Bad("IPv6 payload length")
        return p[8:24], p[24:40], p[6], p[40:]
    raise Bad("IP version %d" % ver)


class Conn:
    def __init__(self, a, syn_seq):
        self.dirs = [a, None]          # directed tuples: initiator's, responder's
        self.isn = [syn_seq, None]
        self.nxt = [(syn_seq + 1) & 0xFFFFFFFF, None]  # next new sequence number per side
        self.acked = [0, 0]            # highest ack sent per side (relative)
        self.fin = [None, None]        # sequence number of each side's FIN
        self.state = "syn"             # syn, synack, open

    def rel(self, side, seq):
        return (seq - self.isn[side]) & 0xFFFFFFFF


def pick_up(conns, key, seq, ack):
    """A connection seen from the middle (a failover-* case): its first
    segment gives both sides' positions, as conntrack picks it up."""
    rev = (key[2], key[3], key[0], key[1])
    c = Conn(key, (seq - 1) & 0xFFFFFFFF)
    c.dirs[1], c.isn[1], c.nxt[1] = rev, (ack - 1) & 0xFFFFFFFF, ack
    c.acked = [0, 0]
    c.state = "open"
    conns[key] = conns[rev] = c


def check_tcp(conns, key, l4, n, pickup=False):
    sport, dport, seq, ack, off, flags = struct.unpack("!HHIIBB", l4[:14])
    data = l4[(off >> 4) * 4:]
    if (off >> 4) < 5 or (off >> 4) * 4 > len(l4):
        raise Bad("frame %d: TCP data offset" % n)
    if pickup and not flags & SYN and key not in conns and flags & ACK:
        pick_up(conns, key, seq, ack)
    if flags & SYN and not flags & ACK:
        c = conns.get(key)
        if c is not None and c.state == "syn" and c.isn[0] == seq:
            return                      # a retried SYN
        if c is not None and c.state != "closed":
            raise Bad("frame %d: SYN on an open connection" % n)
        conns[key] = Conn(key, seq)
        return
    if flags & SYN:
        cands = [c for c in set(conns.values())
                 if c.state == "syn" and c.nxt[0] == ack]
        if len(cands) != 1:
            raise Bad("frame %d: SYN-ACK answering no SYN" % n)
        c = cands[0]
        c.dirs[1], c.isn[1], c.nxt[1], c.state = key, seq, (seq + 1) & 0xFFFFFFFF, "synack"
        c.acked[1] = 1
        conns[key] = c
        return
    c = conns.get(key)
    if c is None or c.state == "syn":
        raise Bad("frame %d: segment of no opened connection" % n)
    side = c.dirs.index(key)
    peer = 1 - side
    if c.state == "synack":
        if side != 0 or ack != (c.isn[1] + 1) & 0xFFFFFFFF or data:
            raise Bad("frame %d: the handshake's ACK" % n)
        c.state = "open"
    rseq = c.rel(side, seq)
    nxt = c.rel(side, c.nxt[side])
    if rseq > nxt:
        raise Bad("frame %d: sequence gap (%d after %d)" % (n, rseq, nxt))
    end = rseq + len(data) + (1 if flags & FIN else 0)
    if end > nxt:
        if c.fin[side] is not None:
            raise Bad("frame %d: data after FIN" % n)
        c.nxt[side] = (c.isn[side] + end) & 0xFFFFFFFF
    if flags & FIN:
        c.fin[side] = rseq + len(data)
    if not flags & ACK:
        raise Bad("frame %d: no ACK flag" % n)
    rack = c.rel(peer, ack)
    if rack < c.acked[side]:
        raise Bad("frame %d: acknowledgement goes back" % n)
    if rack > c.rel(peer, c.nxt[peer]) + REWRITE_SLACK:
        raise Bad("frame %d: acknowledges %d, peer sent %d" % (n, rack, c.rel(peer, c.nxt[peer])))
    c.acked[side] = rack
    if c.fin[0] is not None and c.fin[1] is not None and \
            c.acked[0] > c.fin[1] and c.acked[1] > c.fin[0]:
        c.state = "closed"


def check_pcap(path, pickup=False):
    """None, or what is wrong with the capture.  pickup: connections may
    start mid-stream (a failover-* case)."""
    with open(path, "rb") as f:
        buf = f.read()
    try:
        magic, vmaj, vmin, _, _, snap, link = struct.unpack("<IHHiIII", buf[:24])
        if magic != 0xA1B2C3D4 or (vmaj, vmin) != (2, 4) or link != 101:
            raise Bad("not a classic LINKTYPE_RAW pcap")
        off, n, last, conns = 24, 0, 0, {}
        while off < len(buf):
            sec, usec, incl, orig = struct.unpack("<IIII", buf[off:off + 16])
            p = buf[off + 16:off + 16 + incl]
            off += 16 + incl
            n += 1
            t = sec * 1000000 + usec
            if incl != orig or len(p) != incl or incl > snap or usec >= 1000000 or t < last:
                raise Bad("frame %d: record header" % n)
            last = t
            src, dst, proto, l4 = parse_ip(p)
            if proto == 17:
                if struct.unpack("!H", l4[4:6])[0] != len(l4) or not l4_sum_ok(src, dst, 17, l4):
                    raise Bad("frame %d: UDP length or checksum" % n)
            elif proto == 6:
                if len(l4) < 20 or not l4_sum_ok(src, dst, 6, l4):
                    raise Bad("frame %d: TCP checksum" % n)
                key = (src, l4[0:2], dst, l4[2:4])
                check_tcp(conns, key, l4, n, pickup)
            else:
                raise Bad("frame %d: protocol %d" % (n, proto))
        for c in set(conns.values()):
            if c.state not in ("syn", "closed"):
                raise Bad("a connection not closed both ways (%s)" % c.state)
        if n == 0:
            raise Bad("no packets")
    except (Bad, struct.error) as e:
        return str(e)
    return None


MKPCAP = os.path.join(HERE, "..", "..", "sdk", "tools", "cthelper-mkpcap")


def cases():
    """(plugin/case, base path) of every description, sorted."""
    out = []
    for conv in sorted(glob.glob(os.path.join(CASES, "*", "*.conv"))):
        base = conv[:-len(".conv")]
        out.append(("%s/%s" % (os.path.basename(os.path.dirname(base)),
                               os.path.basename(base)), base))
    return out


EXAMPLES = os.path.join(HERE, "..", "..", "sdk", "examples")


def examples():
    """(example/NAME, base path) of the SDK examples' descriptions."""
    return [("example/" + os.path.basename(os.path.dirname(c)), c[:-len(".conv")])
            for c in sorted(glob.glob(os.path.join(EXAMPLES, "*", "*.conv")))]


def mkpcap(base):
    """(exit status, pcap bytes, stderr) of cthelper-mkpcap on CASE.conv."""
    r = subprocess.run([sys.executable, MKPCAP, base + ".conv"], capture_output=True)
    return r.returncode, r.stdout, r.stderr.decode(errors="replace").strip()


def what(base):
    """The opening comment of CASE.conv, one line."""
    words = []
    with open(base + ".conv", encoding="utf-8") as f:
        for line in f:
            if not line.startswith("#"):
                break
            words.append(line[1:].strip())
    return " ".join(words)


def args(base):
    with open(base + ".args", encoding="utf-8") as f:
        return f.read().strip()


def rows():
    """{plugin: {(case, args, what)}} of the descriptions."""
    out = {}
    for full, base in cases():
        plugin, name = full.split("/")
        out.setdefault(plugin, set()).add((name, args(base), what(base)))
    return out


def row_text(r):
    return "| `%s` | `%s` | %s |" % (r[0], r[1], r[2].replace("|", "\\|"))


def tables():
    """The cases as Markdown tables, one per plugin (README.md)."""
    lines = []
    for plugin, rs in sorted(rows().items()):
        lines += ["", "### %s" % plugin, "", "| case | args | what it shows |",
                  "| --- | --- | --- |"] + [row_text(r) for r in sorted(rs)]
    return "\n".join(lines[1:]) + "\n"


def readme_rows():
    """{plugin: {row line}} of README.md's case tables."""
    out, cur = {}, None
    with open(os.path.join(HERE, "README.md"), encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("### "):
                cur = line[4:].strip()
            elif line.startswith("## "):
                cur = None
            elif cur and line.startswith("| `"):
                out.setdefault(cur, set()).add(line)
    return out


def check_current():
    bad = []
    for full, base in cases() + examples():
        if full.startswith("example/"):
            pass
        elif not os.path.exists(base + ".args"):
            bad.append(full + " (no .args)")
            continue
        rc, data, err = mkpcap(base)
        if rc != 0:
            bad.append("%s (%s)" % (full, err.splitlines()[-1:]))
            continue
        with open(base + ".pcap", "rb") as f:
            if f.read() != data:
                bad.append(full)
    if not cases():
        print("FAIL replay/cases-current: no CASE.conv under %s" % CASES)
        return False
    if bad:
        print("FAIL replay/cases-current: cthelper-mkpcap writes other bytes than the "
              "committed pcap (tests/replay/checkcases.py --write): %s" % " ".join(bad[:8]))
        return False
    print("PASS replay/cases-current (%d descriptions, %d of the examples)"
          % (len(cases()), len(examples())))
    return True


def check_readme():
    want = {p: {row_text(r) for r in rs} for p, rs in rows().items()}
    have = readme_rows()
    diff = [p for p in want if want[p] != have.get(p, set())]
    if diff:
        p = diff[0]
        miss = sorted(want[p] - have.get(p, set()))[:1]
        extra = sorted(have.get(p, set()) - want[p])[:1]
        print("FAIL replay/cases-readme: README.md's table of %s is not its cases' "
              "(checkcases.py --tables): missing %s, not a case %s" % (p, miss, extra))
        return False
    print("PASS replay/cases-readme")
    return True


def write(names):
    for full, base in cases():
        if names and full not in names:
            continue
        rc, data, err = mkpcap(base)
        if rc != 0:
            sys.exit(err)
        with open(base + ".pcap", "wb") as f:
            f.write(data)
        print("wrote %s.pcap" % base)


def main(argv):
    if argv[:1] == ["--tables"]:
        sys.stdout.write(tables())
        return 0
    if argv[:1] == ["--write"]:
        write(argv[1:])
        return 0
    ok = check_current() & check_readme()
    for full, base in cases() + examples():
        why = check_pcap(base + ".pcap", os.path.basename(base).startswith("failover-"))
        if why:
            print("FAIL replay/pcap/%s: %s" % (full, why))
            ok = False
        else:
            print("PASS replay/pcap/%s" % full)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
