#!/usr/bin/python3
"""SANE network daemon (saned) and client, just enough of the SANE network
protocol for a connection helper to see SANE_NET_START (own code, python3
standard library only).

Every RPC request starts with its code as a 32-bit big-endian word; words
are 4 bytes, a string is a word holding its length with the NUL (0 for
none) and the bytes.  Used: INIT (0: version, user name; reply status,
version), OPEN (2: device name; reply status, handle, resource), START (7:
handle; reply status, PORT, byte order, resource), CANCEL (8), CLOSE (3:
handle; reply a word), EXIT (10).  The client connects to PORT on the
server for the image.

  sane.py serve [--bind ADDR] [--port 6566] [--data-port N] [--announce N]
                [--status S] [--split-reply] [--timeout S]
      The fake saned, in the background: listens on ADDR:PORT (default
      0.0.0.0 and ::) and on the data port N (default 50000) of the same
      addresses.  START is answered with status S (default 0) and port
      --announce (default N); with --split-reply the status word goes out
      alone, 0.2 s before the rest (TCP_NODELAY).  A data connection gets
      "SANEDATA\\n" and is closed.  Prints "ready" once listening, then one
      line per event.

  sane.py try SERVER [--port 6566] [--split] [--timeout S]
      The client: INIT, OPEN "test:0", START (with --split: its code and
      handle as two segments 0.2 s apart, TCP_NODELAY), reads the reply,
      connects to SERVER on the port it names (as received) and reads
      "SANEDATA".  Prints one line.  Exit 0: the data connection got
      through; 1: blocked (timed out, refused, unreachable); 2: protocol
      error (the control connection failed, status not 0, port 0).

--timeout S (default 3): how long to wait for each answer or connection.
"""
import argparse
import select
import socket
import struct
import sys
import threading
import time

INIT, OPEN, CLOSE, START, CANCEL, EXIT = 0, 2, 3, 7, 8, 10
VERSION = 0x01000003


def say(text):
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def word(v):
    return struct.pack("!I", v)


def string(s):
    if s is None:
        return word(0)
    b = s.encode() + b"\0"
    return word(len(b)) + b


def recv_exact(c, n):
    buf = b""
    while len(buf) < n:
        chunk = c.recv(n - len(buf))
        if not chunk:
            raise EOFError("connection closed")
        buf += chunk
    return buf


def recv_word(c):
    return struct.unpack("!I", recv_exact(c, 4))[0]


def recv_string(c):
    n = recv_word(c)
    return recv_exact(c, n) if n else None


def family_of(addr):
    return socket.AF_INET6 if ":" in addr else socket.AF_INET


def listen_any(port, bind):
    socks = []
    for a in [bind] if bind else ["0.0.0.0", "::"]:
        s = socket.socket(family_of(a), socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if family_of(a) == socket.AF_INET6:
            s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        s.bind((a, port))
        s.listen(16)
        socks.append(s)
    return socks


def serve_control(c, args):
    """One control connection, request by request, until EXIT or EOF."""
    c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        while True:
            code = recv_word(c)
            if code == INIT:
                recv_word(c)
                recv_string(c)
                c.sendall(word(0) + word(VERSION))
            elif code == OPEN:
                recv_string(c)
                c.sendall(word(0) + word(0) + string(None))
            elif code == START:
                recv_word(c)
                port = args.data_port if args.announce is None else args.announce
                rest = word(port) + word(0x1234) + string(None)
                if args.split_reply:
                    c.sendall(word(args.status))
                    time.sleep(0.2)
                    c.sendall(rest)
                else:
                    c.sendall(word(args.status) + rest)
                say("START answered status %d port %d" % (args.status, port))
            elif code in (CANCEL, CLOSE):
                recv_word(c)
                c.sendall(word(0))
            elif code == EXIT:
                break
            else:
                say("unknown request %d" % code)
                break
    except (EOFError, OSError):
        pass
    c.close()


def serve(args):
    ctl = listen_any(args.port, args.bind)
    data = listen_any(args.data_port, args.bind)
    say("ready")
    while True:
        ready, _, _ = select.select(ctl + data, [], [])
        for s in ready:
            c, peer = s.accept()
            if s in data:
                c.sendall(b"SANEDATA\n")
                c.close()
                say("data connection from %s" % peer[0])
            else:
                say("control connection from %s" % peer[0])
                # the client reads the data port while the control
                # connection stays open
                threading.Thread(target=serve_control, args=(c, args), daemon=True).start()


def try_(args):
    try:
        c = socket.create_connection((args.server, args.port), timeout=args.timeout)
        c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        c.sendall(word(INIT) + word(VERSION) + string("scan"))
        status, _ = recv_word(c), recv_word(c)
        c.sendall(word(OPEN) + string("test:0"))
        status, handle, _ = recv_word(c), recv_word(c), recv_string(c)
        if status:
            say("ERROR OPEN status %d" % status)
            return 2
        if args.split:
            c.sendall(word(START))
            time.sleep(0.2)
            c.sendall(word(handle))
        else:
            c.sendall(word(START) + word(handle))
        status, port, _, _ = recv_word(c), recv_word(c), recv_word(c), recv_string(c)
    except (OSError, EOFError) as e:
        say("ERROR control connection: %s" % e)
        return 2
    if status or port == 0:
        say("ERROR START status %d port %d" % (status, port))
        return 2
    try:
        d = socket.create_connection((args.server, port), timeout=args.timeout)
        got = d.recv(100)
        d.close()
    except OSError as e:
        say("BLOCKED data port %d: %s" % (port, e))
        return 1
    finally:
        try:
            c.sendall(word(CLOSE) + word(handle))
            recv_word(c)
            c.sendall(word(EXIT))
        except (OSError, EOFError):
            pass
        c.close()
    if got != b"SANEDATA\n":
        say("ERROR data port %d sent %r" % (port, got))
        return 2
    say("OK START answered port %d: data received" % port)
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("serve")
    s.add_argument("--bind")
    s.add_argument("--port", type=int, default=6566)
    s.add_argument("--data-port", type=int, default=50000)
    s.add_argument("--announce", type=int)
    s.add_argument("--status", type=int, default=0)
    s.add_argument("--split-reply", action="store_true")
    s.add_argument("--timeout", type=float, default=3)
    t = sub.add_parser("try")
    t.add_argument("server")
    t.add_argument("--port", type=int, default=6566)
    t.add_argument("--split", action="store_true")
    t.add_argument("--timeout", type=float, default=3)
    args = p.parse_args()
    return serve(args) if args.cmd == "serve" else try_(args)


if __name__ == "__main__":
    sys.exit(main())
