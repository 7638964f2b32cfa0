#!/usr/bin/python3
"""One long-lived network agent per namespace for tests/sandbox/inside.sh:
a probe then costs no interpreter start (seconds under TCG).

  agent.py [--echo PORT] [--sink PORT] [--udp PORT]...

  --echo PORT  TCP: echo every line back (the long-lived connection's
               server end)
  --sink PORT  TCP: log whatever arrives, "tcp PORT SRC DATA"
  --udp PORT   UDP (IPv4): log every datagram, "got PORT SRC SPORT DATA"

Prints "ready" once everything listens.  Commands, one a line on stdin:

  udp HOST PORT TEXT    one datagram from a fresh socket (a new flow):
                        "sent HOST PORT" or "error udp HOST PORT: why"
  connect HOST PORT     open the held connection: "connected" or
                        "error connect: why"
  hold TEXT             send TEXT and a newline on the held connection:
                        "echo TEXT" when it comes back, "error hold: why"

DATA is Python's repr of the bytes, so every log line is one line.
"""
import os
import selectors
import socket
import sys


def out(*words):
    print(*words, flush=True)


class Agent:
    def __init__(self):
        self.sel = selectors.DefaultSelector()
        self.held = None
        self.held_buf = b""
        self.stdin_buf = b""

    def listen_tcp(self, port, kind):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("0.0.0.0", port))
        s.listen(16)
        self.sel.register(s, selectors.EVENT_READ, ("accept", kind, port))

    def listen_udp(self, port):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind(("0.0.0.0", port))
        self.sel.register(s, selectors.EVENT_READ, ("udp", port))

    def command(self, line):
        words = line.split(" ", 3)
        try:
            if words[0] == "udp" and len(words) >= 3:
                text = words[3] if len(words) > 3 else ""
                with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
                    s.sendto(text.encode(), (words[1], int(words[2])))
                out("sent", words[1], words[2])
            elif words[0] == "connect" and len(words) == 3:
                if self.held:
                    self.sel.unregister(self.held)
                    self.held.close()
                self.held = socket.create_connection((words[1], int(words[2])), timeout=10)
                self.held.setblocking(False)
                self.held_buf = b""
                self.sel.register(self.held, selectors.EVENT_READ, ("held",))
                out("connected")
            elif words[0] == "hold":
                if not self.held:
                    raise OSError("no held connection")
                self.held.sendall((line[5:] + "\n").encode())
            else:
                out("error unknown command", repr(line))
        except OSError as e:
            out("error", words[0], " ".join(words[1:3]) + ":", e)

    def event(self, key):
        data = key.data
        s = key.fileobj
        if data[0] == "accept":
            conn, addr = s.accept()
            conn.setblocking(False)
            self.sel.register(conn, selectors.EVENT_READ, ("conn", data[1], data[2], addr[0], b""))
        elif data[0] == "conn":
            _, kind, port, src, buf = data
            try:
                b = s.recv(65536)
            except OSError:
                b = b""
            if not b:
                self.sel.unregister(s)
                s.close()
                return
            if kind == "echo":
                buf += b
                while b"\n" in buf:
                    one, buf = buf.split(b"\n", 1)
                    s.sendall(one + b"\n")
                self.sel.modify(s, selectors.EVENT_READ, ("conn", kind, port, src, buf))
            else:
                out("tcp", port, src, repr(b))
        elif data[0] == "udp":
            b, addr = s.recvfrom(65536)
            out("got", data[1], addr[0], addr[1], repr(b))
        elif data[0] == "held":
            try:
                b = s.recv(65536)
            except OSError as e:
                out("error hold:", e)
                b = b""
            if not b:
                out("error hold: connection closed")
                self.sel.unregister(s)
                s.close()
                self.held = None
                return
            self.held_buf += b
            while b"\n" in self.held_buf:
                one, self.held_buf = self.held_buf.split(b"\n", 1)
                out("echo", one.decode(errors="replace"))
        elif data[0] == "stdin":
            # os.read, not readline: lines Python buffered would wait
            # for the next wake-up
            b = os.read(0, 65536)
            if not b:
                sys.exit(0)
            self.stdin_buf += b
            while b"\n" in self.stdin_buf:
                one, self.stdin_buf = self.stdin_buf.split(b"\n", 1)
                self.command(one.decode(errors="replace"))

    def run(self):
        self.sel.register(0, selectors.EVENT_READ, ("stdin",))
        out("ready")
        while True:
            for key, _ in self.sel.select():
                self.event(key)


def main():
    agent = Agent()
    args = sys.argv[1:]
    while args:
        opt, val = args[0], int(args[1])
        args = args[2:]
        if opt == "--echo":
            agent.listen_tcp(val, "echo")
        elif opt == "--sink":
            agent.listen_tcp(val, "sink")
        elif opt == "--udp":
            agent.listen_udp(val)
        else:
            sys.exit("agent.py: unknown option " + opt)
    agent.run()


if __name__ == "__main__":
    main()
