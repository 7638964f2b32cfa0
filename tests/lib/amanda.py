#!/usr/bin/python3
"""Amanda client daemon (amandad) and backup server, just enough of the
protocol for a connection helper to see a CONNECT reply (own code, python3
standard library only).

Amanda's UDP packets are text: a header line "Amanda 3.5 TYPE HANDLE h SEQ
n" (TYPE REQ, ACK, REP) and a body.  The server sends a REQ to amandad's
port 10080; amandad answers ACK, then a REP whose body's line
"CONNECT DATA p1 MESG p2 INDEX p3" names the TCP ports it listens on; the
server connects to each.

  amanda.py serve [--bind ADDR] [--port 10080] [--ports P1,P2,P3]
                  [--announce P1,P2,P3] [--timeout S]
      The fake amandad (the backup client's side), in the background.
      Listens on UDP ADDR:PORT (default: 0.0.0.0 and ::) and on TCP ports
      P1, P2, P3 (default 50001,50002,50003) of every address.  Each REQ
      is answered with an ACK and a REP announcing the --announce ports
      (default: the listened ones), as "CONNECT DATA P1 MESG P2 INDEX P3".
      A TCP connection to one of them gets "HELLO NAME\\n" (NAME: DATA,
      MESG or INDEX) and is closed.  Prints "ready" once listening, then
      one line per event.

  amanda.py try SERVER [--port 10080] [--sport N] [--timeout S]
      The backup server's side: sends a REQ to SERVER:PORT (from source
      port N, default any), waits for the REP (skipping ACKs), reads the
      CONNECT line as received (after any NAT rewrite) and connects to
      SERVER on each port it names, reading "HELLO NAME".  Prints one
      line.  Exit 0: every announced port connected; 1: one was blocked
      (timed out, refused, unreachable) or no reply came; 2: a protocol
      error (a reply without a CONNECT line, a wrong greeting).

--timeout S (default 3): how long to wait for each answer or connection.
"""
import argparse
import re
import select
import socket
import sys

HEADER = "Amanda 3.5 %s HANDLE 000-40a1b2c3 SEQ 1733011200\n"
NAMES = ("DATA", "MESG", "INDEX")


def say(text):
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def ports_arg(text):
    ports = [int(p) for p in text.split(",")]
    if len(ports) != 3 or not all(0 <= p <= 65535 for p in ports):
        raise argparse.ArgumentTypeError("three ports, comma-separated")
    return ports


def family_of(addr):
    return socket.AF_INET6 if ":" in addr else socket.AF_INET


def bind_any(kind, port, bind):
    """Sockets on bind (or 0.0.0.0 and :: when None) at port."""
    socks = []
    addrs = [bind] if bind else ["0.0.0.0", "::"]
    for a in addrs:
        s = socket.socket(family_of(a), kind)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if family_of(a) == socket.AF_INET6:
            s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        s.bind((a, port))
        if kind == socket.SOCK_STREAM:
            s.listen(16)
        socks.append(s)
    return socks


def serve(args):
    udp = bind_any(socket.SOCK_DGRAM, args.port, args.bind)
    tcp = {}
    for name, port in zip(NAMES, args.ports):
        for s in bind_any(socket.SOCK_STREAM, port, args.bind):
            tcp[s] = name
    announce = args.announce or args.ports
    connect = "CONNECT " + " ".join("%s %d" % (n, p) for n, p in zip(NAMES, announce))
    say("ready")
    while True:
        ready, _, _ = select.select(udp + list(tcp), [], [])
        for s in ready:
            if s in tcp:
                conn, peer = s.accept()
                conn.sendall(("HELLO %s\n" % tcp[s]).encode())
                conn.close()
                say("%s connection from %s" % (tcp[s], peer[0]))
                continue
            data, peer = s.recvfrom(65535)
            text = data.decode("latin-1")
            if not text.startswith("Amanda ") or " REQ " not in text.split("\n", 1)[0]:
                say("ignored %d bytes from %s" % (len(data), peer[0]))
                continue
            s.sendto((HEADER % "ACK").encode(), peer)
            reply = HEADER % "REP" + connect + "\nOPTIONS features=9ffe00;\n"
            s.sendto(reply.encode(), peer)
            say("request from %s port %d: %s" % (peer[0], peer[1], connect))


def try_(args):
    fam = family_of(args.server)
    u = socket.socket(fam, socket.SOCK_DGRAM)
    if args.sport:
        u.bind(("::" if fam == socket.AF_INET6 else "0.0.0.0", args.sport))
    req = HEADER % "REQ" + "SERVICE sendbackup\nOPTIONS features=9ffe00;hostname=client;\n"
    u.sendto(req.encode(), (args.server, args.port))
    u.settimeout(args.timeout)
    line = None
    try:
        while line is None:
            data, _ = u.recvfrom(65535)
            text = data.decode("latin-1")
            head = text.split("\n", 1)[0]
            if " ACK " in head:
                continue
            if " REP " not in head:
                say("ERROR unexpected packet: %r" % head)
                return 2
            m = re.search(r"^CONNECT (.*)$", text, re.M)
            if not m:
                say("ERROR reply without CONNECT")
                return 2
            line = m.group(1).strip()
    except socket.timeout:
        say("BLOCKED no reply from %s port %d" % (args.server, args.port))
        return 1
    words = line.split()
    streams = list(zip(words[0::2], words[1::2]))
    if not streams:
        say("ERROR empty CONNECT line")
        return 2
    for name, port in streams:
        try:
            c = socket.create_connection((args.server, int(port)), timeout=args.timeout)
            greeting = c.recv(100).decode("latin-1").strip()
            c.close()
        except (OSError, socket.timeout) as e:
            say("BLOCKED %s port %s: %s (CONNECT %s)" % (name, port, e, line))
            return 1
        if greeting != "HELLO %s" % name:
            say("ERROR %s port %s answered %r" % (name, port, greeting))
            return 2
    say("OK CONNECT %s: all %d connected" % (line, len(streams)))
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("serve")
    s.add_argument("--bind")
    s.add_argument("--port", type=int, default=10080)
    s.add_argument("--ports", type=ports_arg, default=[50001, 50002, 50003])
    s.add_argument("--announce", type=ports_arg)
    s.add_argument("--timeout", type=float, default=3)
    t = sub.add_parser("try")
    t.add_argument("server")
    t.add_argument("--port", type=int, default=10080)
    t.add_argument("--sport", type=int, default=0)
    t.add_argument("--timeout", type=float, default=3)
    args = p.parse_args()
    if args.cmd == "serve":
        return serve(args)
    return try_(args)


if __name__ == "__main__":
    sys.exit(main())
