#!/usr/bin/python3
"""TCP and UDP peers for the host-feature tests (tests/host/inside.sh) and
the SIP media probes (tests/sip/inside.sh).

  peer.py serve PORT...              accept on every port (0.0.0.0 and ::),
                                     read each connection to EOF, answer
                                     "GOT <bytes>\\n"
  peer.py send HOST PORT TEXT [HOLD] send TEXT (\\n escapes; || splits it
                                     into segments 0.3 s apart, a part ~S
                                     waits S seconds), keep the
                                     connection HOLD seconds, print the answer
  peer.py udp HOST PORT TEXT         one datagram (\\n escapes)
  peer.py udp-agent PORT...          receive on every port (0.0.0.0 and
                                     ::) and send: print "ready", then
                                     "got PORT SRC-ADDR SRC-PORT TEXT" per
                                     datagram received; each stdin line
                                     "HOST PORT TEXT" is sent as one
                                     datagram from a fresh socket (a new
                                     source port: a new flow), then
                                     "sent HOST PORT TEXT" or
                                     "error HOST PORT TEXT: why" is printed
  peer.py bulk HOST PORT BYTES       send BYTES, print the answer; exit 0
                                     only if the server got them all
"""
import os
import selectors
import socket
import sys
import threading
import time


def serve(ports):
    def handle(conn):
        n = 0
        conn.settimeout(30)
        try:
            while True:
                b = conn.recv(65536)
                if not b:
                    break
                n += len(b)
            conn.sendall(b"GOT %d\n" % n)
        except OSError:
            pass
        conn.close()

    sel = selectors.DefaultSelector()
    for p in ports:
        for fam, addr in ((socket.AF_INET, "0.0.0.0"), (socket.AF_INET6, "::")):
            s = socket.socket(fam, socket.SOCK_STREAM)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if fam == socket.AF_INET6:
                s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            s.bind((addr, int(p)))
            s.listen(16)
            sel.register(s, selectors.EVENT_READ)
    print("ready", flush=True)
    while True:
        for key, _ in sel.select():
            conn, _ = key.fileobj.accept()
            threading.Thread(target=handle, args=(conn,), daemon=True).start()


def udp_agent(ports):
    # One long-lived process per network namespace: a probe costs no
    # interpreter start (seconds under TCG).
    sel = selectors.DefaultSelector()
    for p in ports:
        for fam, addr in ((socket.AF_INET, "0.0.0.0"), (socket.AF_INET6, "::")):
            s = socket.socket(fam, socket.SOCK_DGRAM)
            if fam == socket.AF_INET6:
                s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            s.bind((addr, int(p)))
            sel.register(s, selectors.EVENT_READ, int(p))
    sel.register(sys.stdin.fileno(), selectors.EVENT_READ, None)
    print("ready", flush=True)
    pending = b""
    while True:
        for key, _ in sel.select():
            if key.data is not None:
                data, src = key.fileobj.recvfrom(65536)
                text = data.decode(errors="replace").replace("\n", "\\n")
                print("got %d %s %d %s" % (key.data, src[0], src[1], text), flush=True)
                continue
            chunk = os.read(key.fileobj, 4096)
            if not chunk:
                return
            pending += chunk
            while b"\n" in pending:
                line, pending = pending.split(b"\n", 1)
                udp_send(line.decode())


def udp_send(line):
    try:
        host, port, text = line.split(" ", 2)
    except ValueError:
        print("error %s: not HOST PORT TEXT" % line, flush=True)
        return
    fam = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(fam, socket.SOCK_DGRAM) as s:
        try:
            s.sendto(text.encode(), (host, int(port)))
        except (OSError, OverflowError, ValueError) as e:
            print("error %s: %s" % (line, e), flush=True)
            return
    print("sent %s" % line, flush=True)


def connect(host, port):
    return socket.create_connection((host, int(port)), timeout=5)


def answer(s):
    s.shutdown(socket.SHUT_WR)
    s.settimeout(15)
    data = b""
    while not data.endswith(b"\n"):
        b = s.recv(100)
        if not b:
            break
        data += b
    return data.decode().strip()


def main():
    cmd = sys.argv[1]
    if cmd == "serve":
        serve(sys.argv[2:])
    elif cmd == "send":
        s = connect(sys.argv[2], sys.argv[3])
        # "||" separates segments sent 0.3 s apart (one packet each); a
        # part "~S" waits S seconds instead, "@PORT" makes a connection
        # to PORT on the same host meanwhile (1000 bytes, answer printed),
        # "*N" sends N one-line segments 50 ms apart
        for i, part in enumerate(sys.argv[4].split("||")):
            if i:
                time.sleep(0.3)
            if part.startswith("~"):
                time.sleep(float(part[1:]))
            elif part.startswith("@"):
                try:
                    d = connect(sys.argv[2], part[1:])
                    d.sendall(b"x" * 1000)
                    print("to %s: %s" % (part[1:], answer(d)), flush=True)
                except OSError as e:
                    print("to %s: ERROR %s" % (part[1:], e), flush=True)
            elif part.startswith("*"):
                for _ in range(int(part[1:])):
                    s.sendall(b"x\n")
                    time.sleep(0.05)
            else:
                s.sendall(part.replace("\\n", "\n").encode())
        if len(sys.argv) > 5:
            time.sleep(float(sys.argv[5]))
        print(answer(s))
    elif cmd == "udp":
        fam = socket.AF_INET6 if ":" in sys.argv[2] else socket.AF_INET
        s = socket.socket(fam, socket.SOCK_DGRAM)
        s.sendto(sys.argv[4].replace("\\n", "\n").encode(), (sys.argv[2], int(sys.argv[3])))
    elif cmd == "udp-agent":
        udp_agent(sys.argv[2:])
    elif cmd == "bulk":
        n = int(sys.argv[4])
        try:
            s = connect(sys.argv[2], sys.argv[3])
            s.sendall(b"x" * n)
            got = answer(s)
        except OSError as e:
            print("ERROR %s" % e)
            sys.exit(1)
        print(got)
        sys.exit(0 if got == "GOT %d" % n else 1)


if __name__ == "__main__":
    main()
