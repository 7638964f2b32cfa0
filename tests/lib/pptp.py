#!/usr/bin/python3
"""A PPTP call's control exchange and its GRE both ways, for tests/more
(the kernel's nf_conntrack_pptp next to cthelperd); python3 stdlib only,
run as root (GRE over raw sockets).

  pptp.py serve [--addr A] [--call-id N] [--timeout S]
      the PAC (server): listen on tcp/1723, print "ready"; for each call
      answer SCCRQ with SCCRP and OCRQ with OCRP (its call id N, default
      555), then echo every GRE packet that arrives from the caller back to
      it with the caller's call id as key, for up to S seconds (default
      8; the next call waits until then)
  pptp.py try --to A [--call-id N] [--timeout S]
      the PNS (client): SCCRQ, OCRQ with call id N (default 777), then a
      GRE packet to the server's call id every 0.3 s until one comes back
      with N as its key; prints one line, exits 0 (GRE went both ways), 1
      (no GRE came back within S seconds, default 3: blocked) or 2 (the
      control exchange failed)

GRE here is PPTP's enhanced GRE (version 1, RFC 2637): flags K and S,
protocol 0x880b (PPP), key = payload length and the receiver's call id.
"""
import argparse
import select
import socket
import struct
import sys
import time

SCCRQ, SCCRP, OCRQ, OCRP = 1, 2, 7, 8


def ctrl_msg(ctype, body, size):
    """A control message: length, type 1 (control), magic cookie, type."""
    m = struct.pack(">HHIHH", size, 1, 0x1a2b3c4d, ctype, 0) + body
    return m + b"\0" * (size - len(m))


def ctrl_recv(c):
    h = b""
    while len(h) < 2:
        d = c.recv(2 - len(h))
        if not d:
            raise OSError("control connection closed")
        h += d
    ln = struct.unpack(">H", h)[0]
    while len(h) < ln:
        d = c.recv(ln - len(h))
        if not d:
            raise OSError("control connection closed")
        h += d
    return struct.unpack_from(">H", h, 8)[0], h


def gre_packet(callid, seq):
    payload = b"\xff\x03\x00\x21ppp%d" % seq
    return struct.pack(">HHHHI", 0x3001, 0x880b, len(payload), callid, seq) + payload


def gre_parse(d):
    """(source address, call id) of a received IPv4 datagram with GRE v1."""
    hl = (d[0] & 15) * 4
    if len(d) < hl + 8 or struct.unpack_from(">H", d, hl + 2)[0] != 0x880b:
        return None, None
    return socket.inet_ntoa(d[12:16]), struct.unpack_from(">H", d, hl + 6)[0]


def serve(a):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((a.addr, 1723))
    s.listen(4)
    g = socket.socket(socket.AF_INET, socket.SOCK_RAW, 47)
    print("ready", flush=True)
    while True:
        c, peer = s.accept()
        c.settimeout(a.timeout)
        try:
            t, _ = ctrl_recv(c)
            c.send(ctrl_msg(SCCRP, struct.pack(">HBBIIHH", 0x100, 1, 0, 1, 1, 1, 1), 156))
            t, m = ctrl_recv(c)
            pns = struct.unpack_from(">H", m, 12)[0]
            c.send(ctrl_msg(OCRP, struct.pack(">HHBBHIHHI", a.call_id, pns, 1, 0, 0,
                                              64000, 64, 0, 0), 32))
        except OSError as e:
            print("control: %s" % e, file=sys.stderr, flush=True)
            c.close()
            continue
        print("call from %s: its call id %d, ours %d" % (peer[0], pns, a.call_id),
              file=sys.stderr, flush=True)
        # until the caller stops sending (1.5 s quiet after an echo)
        end, seq = time.time() + a.timeout, 0
        while time.time() < end:
            wait = end - time.time() if seq == 0 else min(1.5, end - time.time())
            r, _, _ = select.select([g], [], [], max(0.0, wait))
            if not r:
                break
            src, cid = gre_parse(g.recv(65536))
            if src != peer[0] or cid != a.call_id:
                continue
            g.sendto(gre_packet(pns, seq), (peer[0], 0))
            seq += 1
            print("echoed GRE to %s" % src, file=sys.stderr, flush=True)
        c.close()


def try_(a):
    g = socket.socket(socket.AF_INET, socket.SOCK_RAW, 47)
    c = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    c.settimeout(a.timeout)
    try:
        c.connect((a.to, 1723))
        c.send(ctrl_msg(SCCRQ, struct.pack(">HBBIIHH", 0x100, 0, 0, 1, 1, 1, 1), 156))
        t, _ = ctrl_recv(c)
        c.send(ctrl_msg(OCRQ, struct.pack(">HHIIIIHHHH", a.call_id, 1, 300, 100000000,
                                          3, 3, 64, 0, 0, 0), 168))
        t, m = ctrl_recv(c)
        if t != OCRP:
            print("control: got message type %d, not OCRP" % t)
            return 2
        pac = struct.unpack_from(">H", m, 12)[0]
    except OSError as e:
        print("control: %s" % e)
        return 2
    end, seq, nxt = time.time() + a.timeout, 0, 0.0
    while time.time() < end:
        now = time.time()
        if now >= nxt:
            g.sendto(gre_packet(pac, seq), (a.to, 0))
            seq += 1
            nxt = now + 0.3
        r, _, _ = select.select([g], [], [], max(0.0, min(nxt, end) - now))
        if not r:
            continue
        src, cid = gre_parse(g.recv(65536))
        if cid == a.call_id:
            print("GRE both ways: %d sent to call id %d, one back from %s to call id %d"
                  % (seq, pac, src, cid))
            return 0
    print("no GRE back within %g s (%d sent to call id %d)" % (a.timeout, seq, pac))
    return 1


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    sv = sub.add_parser("serve")
    sv.add_argument("--addr", default="0.0.0.0")
    sv.add_argument("--call-id", type=int, default=555)
    sv.add_argument("--timeout", type=float, default=8)
    tr = sub.add_parser("try")
    tr.add_argument("--to", required=True)
    tr.add_argument("--call-id", type=int, default=777)
    tr.add_argument("--timeout", type=float, default=3)
    a = p.parse_args()
    return serve(a) if a.cmd == "serve" else try_(a)


if __name__ == "__main__":
    sys.exit(main())
