"""What the end-to-end suites' python clients and servers share
(tests/lib/tns.py, tests/lib/rpc.py): the client agent's command loop,
a timestamped log and reading a stream to a deadline."""

import sys
import threading
import time


def client_agent(command):
    """One command a line on stdin, one result line for each: the agent is
    started once, as python starts are slow in the test VM."""
    print("ready", flush=True)
    for line in sys.stdin:
        words = line.split()
        if words:
            print(command(words), flush=True)


def bad_command(words):
    return "RESULT %s ERROR bad command: %s" % (words[1] if len(words) > 1 else "-", " ".join(words))


class Log:
    """Timestamped lines to a file (stdout without one); servers log from
    several threads."""

    def __init__(self, path):
        self.f = open(path, "a", encoding="utf-8") if path else sys.stdout
        self.lock = threading.Lock()

    def __call__(self, msg):
        with self.lock:
            self.f.write("%.3f %s\n" % (time.time(), msg))
            self.f.flush()


def recv_exact(sock, n, deadline):
    buf = b""
    while len(buf) < n:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("timed out after %d of %d bytes" % (len(buf), n))
        sock.settimeout(left)
        b = sock.recv(n - len(buf))
        if not b:
            raise EOFError("connection closed after %d of %d bytes" % (len(buf), n))
        buf += b
    return buf
