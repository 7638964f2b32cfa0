#!/usr/bin/python3
"""The toy protocol of the SDK example (sdk/examples/toydata), for the VM.

  toy.py server --port P --data-port D [--log FILE]
      on each control connection: listen on D (or the next free port),
      send "DATA <port>\\r\\n", accept one data connection within 10 s and
      send "toy-data-ok\\n" on it, then close both.
  toy.py client --host H --port P [--timeout S]
      connect, read the DATA line, connect to H on that port, read; print
      "OK <port>" or "ERROR <why>"; exit 0 or 1.
"""
import argparse
import socket
import sys
import threading


def serve_one(ctl, data_port, log):
    try:
        ls = None
        for port in range(data_port, data_port + 50):
            try:
                ls = socket.create_server(("0.0.0.0", port))
                break
            except OSError:
                continue
        if ls is None:
            ctl.close()
            return
        ls.settimeout(10)
        ctl.sendall(b"DATA %d\r\n" % port)
        try:
            d, peer = ls.accept()
            d.sendall(b"toy-data-ok\n")
            d.close()
            log.write("data connection from %s to port %d\n" % (peer[0], port))
        except socket.timeout:
            log.write("no data connection on port %d\n" % port)
        log.flush()
        ls.close()
        ctl.close()
    except OSError as e:
        log.write("error: %s\n" % e)
        log.flush()


def server(a):
    log = open(a.log, "a") if a.log else sys.stderr
    s = socket.create_server(("0.0.0.0", a.port), reuse_port=True)
    if a.ready:
        open(a.ready, "w").write("ready\n")
    while True:
        c, _ = s.accept()
        threading.Thread(target=serve_one, args=(c, a.data_port, log), daemon=True).start()


def client(a):
    try:
        c = socket.create_connection((a.host, a.port), timeout=a.timeout)
        line = b""
        while not line.endswith(b"\n") and len(line) < 100:
            b = c.recv(1)
            if not b:
                break
            line += b
        words = line.split()
        if len(words) != 2 or words[0] != b"DATA":
            print("ERROR control: got %r" % line)
            return 1
        port = int(words[1])
        try:
            d = socket.create_connection((a.host, port), timeout=a.timeout)
            got = d.recv(100)
        except OSError as e:
            print("ERROR data to port %d: %s" % (port, e))
            return 1
        if got != b"toy-data-ok\n":
            print("ERROR data to port %d: got %r" % (port, got))
            return 1
        print("OK %d" % port)
        return 0
    except OSError as e:
        print("ERROR control: %s" % e)
        return 1


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("server")
    s.add_argument("--port", type=int, default=7000)
    s.add_argument("--data-port", type=int, default=7100)
    s.add_argument("--log")
    s.add_argument("--ready")
    c = sub.add_parser("client")
    c.add_argument("--host", required=True)
    c.add_argument("--port", type=int, default=7000)
    c.add_argument("--timeout", type=float, default=4)
    a = p.parse_args()
    return server(a) if a.cmd == "server" else client(a)


if __name__ == "__main__":
    sys.exit(main())
