#!/usr/bin/python3
"""Dump this network namespace's conntrack entries and expectations over
ctnetlink, with what conntrack(8) does not print (tests/ha, issue 18):

  ctdump.py ct [PORT]    one line per IPv4 TCP/UDP entry (whose original
                         destination port is PORT, if given):
                         "ct PROTO SRC:SPORT>DST:DPORT reply SRC:SPORT>DST:DPORT
                          helper=NAME seqadj_orig=POS/BEFORE/AFTER seqadj_reply=..."
                         (seqadj_*=none: the entry has no CTA_SEQ_ADJ_*)
  ctdump.py expect       one line per IPv4 expectation: master, tuple,
                         helper, class, flags, fn, nat (dir and tuple)

Exit status 0 unless netlink fails.
"""
import socket
import struct
import sys

NETLINK_NETFILTER = 12
NLM_F_REQUEST, NLM_F_DUMP = 1, 0x300
NLMSG_ERROR, NLMSG_DONE = 2, 3


def attrs(buf):
    out = {}
    off = 0
    while off + 4 <= len(buf):
        ln, ty = struct.unpack_from("HH", buf, off)
        if ln < 4:
            break
        out[ty & 0x3FFF] = buf[off + 4:off + ln]
        off += (ln + 3) & ~3
    return out


def tuple_text(buf):
    t = attrs(buf)
    ip = attrs(t.get(1, b""))
    pr = attrs(t.get(2, b""))
    src = socket.inet_ntoa(ip[1]) if 1 in ip else "?"
    dst = socket.inet_ntoa(ip[2]) if 2 in ip else "?"
    proto = pr[1][0] if 1 in pr else 0
    sport = struct.unpack(">H", pr[2])[0] if 2 in pr else 0
    dport = struct.unpack(">H", pr[3])[0] if 3 in pr else 0
    name = {6: "tcp", 17: "udp"}.get(proto, str(proto))
    return name, "%s:%d>%s:%d" % (src, sport, dst, dport), dport


def seqadj(buf):
    if buf is None:
        return "none"
    a = attrs(buf)
    vals = [struct.unpack(">I", a[k])[0] if k in a else -1 for k in (1, 2, 3)]
    return "%d/%d/%d" % tuple(vals)


def dump(msgtype):
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_NETFILTER)
    s.bind((0, 0))
    body = struct.pack("BBH", socket.AF_INET, 0, 0)
    hdr = struct.pack("IHHII", 16 + len(body), msgtype, NLM_F_REQUEST | NLM_F_DUMP, 1, 0)
    s.send(hdr + body)
    msgs = []
    while True:
        data = s.recv(1 << 20)
        off = 0
        while off + 16 <= len(data):
            ln, ty, _fl, _seq, _pid = struct.unpack_from("IHHII", data, off)
            if ty == NLMSG_DONE:
                return msgs
            if ty == NLMSG_ERROR:
                err = struct.unpack_from("i", data, off + 16)[0]
                if err:
                    raise OSError(-err, "netlink error")
                return msgs
            msgs.append(attrs(data[off + 20:off + ln]))
            off += (ln + 3) & ~3


def main():
    what = sys.argv[1] if len(sys.argv) > 1 else "ct"
    if what == "ct":
        port = int(sys.argv[2]) if len(sys.argv) > 2 else None
        for a in dump((1 << 8) | 1):
            if 1 not in a:
                continue
            proto, orig, dport = tuple_text(a[1])
            if proto not in ("tcp", "udp") or (port is not None and dport != port):
                continue
            reply = tuple_text(a[2])[1] if 2 in a else "?"
            helper = attrs(a[5]).get(1, b"").rstrip(b"\0").decode() if 5 in a else ""
            print("ct %s %s reply %s helper=%s seqadj_orig=%s seqadj_reply=%s"
                  % (proto, orig, reply, helper or "none", seqadj(a.get(15)), seqadj(a.get(16))))
    elif what == "expect":
        for a in dump((2 << 8) | 1):
            master = tuple_text(a[1])[1] if 1 in a else "?"
            proto, tup, _ = tuple_text(a[2]) if 2 in a else ("?", "?", 0)
            helper = a.get(6, b"").rstrip(b"\0").decode()
            cls = struct.unpack(">I", a[9])[0] if 9 in a else -1
            flags = struct.unpack(">I", a[8])[0] if 8 in a else -1
            fn = a.get(11, b"").rstrip(b"\0").decode()
            nat = "none"
            if 10 in a:
                n = attrs(a[10])
                d = struct.unpack(">I", n[1])[0] if 1 in n else -1
                nat = "dir%d:%s" % (d, tuple_text(n[2])[1] if 2 in n else "?")
            print("expect %s %s master %s helper=%s class=%d flags=%d fn=%s nat=%s"
                  % (proto, tup, master, helper or "none", cls, flags, fn or "none", nat))
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
