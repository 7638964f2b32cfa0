#!/usr/bin/python3
"""FTP test server and client for the end-to-end tests.

  ftp.py server --root DIR [--size BYTES] [--file NAME:SIZE[:KIND]]...
                [--ready FILE] [--log FILE]
  ftp.py client --host ADDR --mode port|pasv|eprt|epsv|none --meta FILE
                [--file NAME] [--transfers N --sync-dir DIR] [--pad-port N]
                [--timeout S] [--data-timeout S]
  ftp.py sessions --host ADDR --mode MODE --seconds S [--parallel K]
                [--file NAME]

The server (pyftpdlib) listens on 0.0.0.0:21 (--addr) and [::]:21 (IPv6 only), lets
anonymous users read DIR, creates DIR/testfile (random bytes, --size) and
writes "SIZE SHA256" to DIR/testfile.meta.  Each --file NAME:SIZE[:KIND]
creates one more file DIR/NAME (+ DIR/NAME.meta) of SIZE bytes; KIND is
"random" (default) or "pattern": FTP command/reply lines that a helper
parsing the data connection would take for its own ("PORT 10,0,0,5,4,1",
"227 Entering Passive Mode (10,0,0,5,4,1)", EPRT, 229), repeated and cut
at SIZE.  It refuses PORT/EPRT addresses other than the control
connection's peer (pyftpdlib's default), so a helper that forgets to
rewrite PORT under NAT is visible as a failed transfer.

The client speaks FTP over a raw socket, so every command is exactly the one
asked for, and it connects to the address a 227 reply names (not to the
control connection's peer, as ftplib does): a 227 that was not rewritten
under NAT makes the transfer fail.  It prints one result line:

  OK <mode> transfer <i>: <bytes> bytes, sha256 ok (<seconds>s), data port <p>
  ERROR <mode> transfer <i>: <step>: <why>

and exits 0 or 1 (<p>: the client's own port of the data connection in
active modes, the port it dialled in passive ones).  --file NAME retrieves
DIR/NAME instead of testfile (give its .meta with --meta).  With --transfers N > 1 and --sync-dir DIR, it creates
DIR/paused.<i> after transfer i and waits for DIR/go.<i> before the next
one, all in the same control session (daemon restart test);
--pause-after I,J limits the pauses to after those transfers (HA
failover test).  --mode may be a comma-separated list, one mode per
transfer (e.g. port,port,pasv: --transfers defaults to its length).  With
--hold-data (passive modes, needs --sync-dir) it writes "HOST PORT" to
DIR/hold.<i> once the server named its data port (the expectation exists
now) and waits for DIR/release.<i> before connecting (demo).  Mode "none"
logs in, runs a few commands and quits: it checks that the control
connection itself passes.  --pad-port N (port/eprt): the PORT/EPRT
command goes out in ONE send() together with enough no-op lines to make N
bytes, then every reply is read (a big control write: GSO test).  The
no-op lines are "ALLO <digits>" of up to 1000 bytes (pyftpdlib answers
202 and ignores the argument) rather than 6-byte NOOPs: 680 NOOPs keep
pyftpdlib busy for 11 s under TCG, longer than its active-mode connect
timeout.  The whole dialogue goes to stderr.

"sessions" is the benchmark's load (tests/bench): K threads each run
whole sessions back to back for S seconds (connect, login, TYPE I, one
transfer of --file in MODE, QUIT), nothing logged, and it prints

  SESSIONS <ok> <failed> <seconds> <median ms> <p99 ms> <max ms>

counting the sessions started in time; a failed one (firewall, timeout)
is counted, never retried, and the first few reasons go to stderr.
"""

import argparse
import hashlib
import ipaddress
import os
import re
import socket
import sys
import time

FILE_NAME = "testfile"

# Lines a helper would parse if it (wrongly) looked at a data connection.
PATTERN_LINES = (b"PORT 10,0,0,5,4,1\r\n"
                 b"227 Entering Passive Mode (10,0,0,5,4,1)\r\n"
                 b"EPRT |1|10.0.0.5|1025|\r\n"
                 b"229 Entering Extended Passive Mode (|||1025|)\r\n")


def make_content(size, kind):
    if kind == "random":
        return os.urandom(size)
    if kind == "pattern":
        return (PATTERN_LINES * (size // len(PATTERN_LINES) + 1))[:size]
    raise ValueError("unknown file kind %r (random, pattern)" % kind)


def write_file(root, name, data):
    path = os.path.join(root, name)
    with open(path, "wb") as f:
        f.write(data)
    with open(path + ".meta", "w") as f:
        f.write("%d %s\n" % (len(data), hashlib.sha256(data).hexdigest()))


QUIET = False


def log(msg):
    if QUIET:
        return
    sys.stderr.write("%.3f %s\n" % (time.monotonic(), msg))
    sys.stderr.flush()


# ---------------------------------------------------------------- server

def run_server(args):
    import logging
    from pyftpdlib.authorizers import DummyAuthorizer
    from pyftpdlib.handlers import ActiveDTP, FTPHandler
    from pyftpdlib.servers import FTPServer

    os.makedirs(args.root, exist_ok=True)
    # Extra files first: testfile.meta is what callers wait for.
    for spec in args.file or []:
        parts = spec.split(":")
        if len(parts) not in (2, 3) or not parts[0] or "/" in parts[0]:
            raise SystemExit("bad --file %r (NAME:SIZE[:random|pattern])" % spec)
        write_file(args.root, parts[0],
                   make_content(int(parts[1]), parts[2] if len(parts) == 3 else "random"))
    write_file(args.root, FILE_NAME, os.urandom(args.size))

    logging.basicConfig(filename=args.log,
                        level=logging.WARNING if args.quiet else logging.DEBUG,
                        format="%(asctime)s %(message)s")

    class QuickActiveDTP(ActiveDTP):
        # A data connection the firewall drops must fail in seconds.
        timeout = args.active_timeout

    class Handler(FTPHandler):
        active_dtp = QuickActiveDTP
        permit_foreign_addresses = False
        banner = "cthelperd test server ready."

    auth = DummyAuthorizer()
    auth.add_anonymous(args.root)
    Handler.authorizer = auth

    if args.max_cons:
        # many control connections at once (tests/bench's scale phase):
        # pyftpdlib refuses past 512 by default, one fd each (and one per
        # data connection)
        import resource
        want = 2 * args.max_cons + 64
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, want))
        FTPServer.max_cons = args.max_cons
        FTPServer.max_cons_per_ip = 0

    servers = []
    s4 = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s4.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s4.bind((args.addr, args.port))
    s4.listen(args.backlog)
    servers.append(FTPServer(s4, Handler))
    if not args.no_ipv6:
        s6 = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
        s6.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s6.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        s6.bind(("::", args.port))
        s6.listen(16)
        servers.append(FTPServer(s6, Handler))
    if args.ready:
        with open(args.ready, "w") as f:
            f.write("%d\n" % os.getpid())
    # Both servers share the default IOLoop: one loop serves them all.
    servers[0].serve_forever()


# ---------------------------------------------------------------- client

class FtpError(Exception):
    def __init__(self, step, why):
        super().__init__("%s: %s" % (step, why))
        self.step = step


class Control:
    """Minimal FTP control connection: one command, one (multi-line) reply."""

    def __init__(self, host, port, timeout, dstopts=False):
        self.timeout = timeout
        try:
            self.sock = self._connect(host, port, timeout, dstopts)
        except OSError as e:
            raise FtpError("connect control %s:%d" % (host, port), e) from None
        self.buf = b""

    @staticmethod
    def _connect(host, port, timeout, dstopts):
        if not dstopts:
            return socket.create_connection((host, port), timeout=timeout)
        # Every packet of the connection carries an IPv6 Destination
        # Options header (one PadN option, 8 bytes) before TCP: the layout
        # libnetfilter_queue 1.0.5 gets wrong (issue 12).  Needs CAP_NET_RAW.
        s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
        s.setsockopt(socket.IPPROTO_IPV6, getattr(socket, "IPV6_DSTOPTS", 59),
                     b"\x00\x00\x01\x04\x00\x00\x00\x00")
        s.settimeout(timeout)
        s.connect((host, port))
        return s

    def _line(self, step):
        while b"\n" not in self.buf:
            try:
                chunk = self.sock.recv(4096)
            except socket.timeout:
                raise FtpError(step, "no reply within %ss" % self.timeout) from None
            except OSError as e:
                raise FtpError(step, e) from None
            if not chunk:
                raise FtpError(step, "control connection closed by server")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return line.rstrip(b"\r").decode("latin-1")

    def reply(self, step):
        line = self._line(step)
        log("<- " + line)
        if len(line) >= 4 and line[3] == "-":
            code = line[:3]
            lines = [line]
            while True:
                nxt = self._line(step)
                log("<- " + nxt)
                lines.append(nxt)
                if nxt.startswith(code + " "):
                    break
            return int(code), "\n".join(lines)
        if len(line) < 3 or not line[:3].isdigit():
            raise FtpError(step, "malformed reply %r" % line)
        return int(line[:3]), line

    def cmd_batch(self, lines, expect=None):
        """All lines in one send(), then one reply per line."""
        for text in lines:
            log("-> " + text)
        data = b"".join(t.encode("latin-1") + b"\r\n" for t in lines)
        log("   (%d commands, %d bytes in one send)" % (len(lines), len(data)))
        try:
            self.sock.sendall(data)
        except OSError as e:
            raise FtpError(lines[0].split()[0], e) from None
        for text in lines:
            step = text.split()[0]
            code, line = self.reply(step)
            if expect and str(code)[0] not in expect:
                raise FtpError(step, "unexpected reply %r" % line)

    def cmd(self, text, step=None, expect=None):
        log("-> " + text)
        try:
            self.sock.sendall(text.encode("latin-1") + b"\r\n")
        except OSError as e:
            raise FtpError(step or text, e) from None
        code, line = self.reply(step or text.split()[0])
        if expect and str(code)[0] not in expect:
            raise FtpError(step or text.split()[0], "unexpected reply %r" % line)
        return code, line

    def local_addr(self):
        return self.sock.getsockname()[0]

    def peer_addr(self):
        return self.sock.getpeername()[0]

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


def login(ctl):
    """Greeting, anonymous login, binary type."""
    code, line = ctl.reply("greeting")
    if code != 220:
        raise FtpError("greeting", "unexpected %r" % line)
    ctl.cmd("USER anonymous", expect="23")
    ctl.cmd("PASS test@", expect="2")
    ctl.cmd("TYPE I", expect="2")


def parse_227(line):
    m = re.search(r"(\d+),(\d+),(\d+),(\d+),(\d+),(\d+)", line)
    if not m:
        raise FtpError("PASV", "cannot parse %r" % line)
    n = [int(x) for x in m.groups()]
    return "%d.%d.%d.%d" % tuple(n[:4]), n[4] * 256 + n[5]


def parse_229(line):
    m = re.search(r"\((.)\1\1(\d+)\1\)", line)
    if not m:
        raise FtpError("EPSV", "cannot parse %r" % line)
    return int(m.group(2))


def receive(sock, timeout, step):
    sock.settimeout(timeout)
    h = hashlib.sha256()
    n = 0
    while True:
        try:
            chunk = sock.recv(65536)
        except socket.timeout:
            raise FtpError(step, "data stalled for %ss after %d bytes" % (timeout, n)) from None
        except OSError as e:
            raise FtpError(step, "%s after %d bytes" % (e, n)) from None
        if not chunk:
            break
        h.update(chunk)
        n += len(chunk)
    return n, h.hexdigest()


def transfer(ctl, mode, args):
    fam = socket.AF_INET6 if ":" in ctl.local_addr() else socket.AF_INET
    if mode in ("port", "eprt"):
        if mode == "port" and fam != socket.AF_INET:
            raise FtpError("PORT", "PORT needs an IPv4 control connection")
        lsock = socket.socket(fam, socket.SOCK_STREAM)
        lsock.bind((ctl.local_addr(), 0))
        lsock.listen(1)
        lsock.settimeout(args.data_timeout)
        addr, port = lsock.getsockname()[:2]
        data_port = port
        try:
            if mode == "port":
                arg = ",".join(addr.split(".") + [str(port >> 8), str(port & 255)])
                text = "PORT " + arg
            else:
                text = "EPRT |%d|%s|%d|" % (1 if fam == socket.AF_INET else 2, addr, port)
            if args.pad_port:
                lines = [text]
                left = args.pad_port - len(text) - 2
                while left > 0:
                    n = min(1000, max(left, 8))
                    lines.append("ALLO " + "1" * (n - 7))
                    left -= n
                ctl.cmd_batch(lines, expect="2")
            else:
                ctl.cmd(text, expect="2")
            ctl.cmd("RETR " + args.file, expect="1")
            try:
                dsock, peer = lsock.accept()
            except socket.timeout:
                raise FtpError("accept data connection",
                               "server did not connect within %ss" % args.data_timeout) from None
            log("data connection from %s" % (peer,))
        finally:
            lsock.close()
    elif mode in ("pasv", "epsv"):
        if mode == "pasv":
            if fam != socket.AF_INET:
                raise FtpError("PASV", "PASV needs an IPv4 control connection")
            _, line = ctl.cmd("PASV", expect="2")
            host, port = parse_227(line)
        else:
            _, line = ctl.cmd("EPSV", expect="2")
            host, port = ctl.peer_addr(), parse_229(line)
        log("data connection to %s port %d" % (host, port))
        data_port = port
        if args.hold_data and args.sync_dir:
            hold = os.path.join(args.sync_dir, "hold.%d" % args.transfer_no)
            with open(hold + ".tmp", "w") as f:
                f.write("%s %d\n" % (host, port))
            os.rename(hold + ".tmp", hold)
            rel = os.path.join(args.sync_dir, "release.%d" % args.transfer_no)
            if not wait_for(rel, args.pause_timeout):
                raise FtpError("hold", "no %s within %ss" % (rel, args.pause_timeout))
        try:
            dsock = socket.create_connection((host, port), timeout=args.data_timeout)
        except OSError as e:
            raise FtpError("connect data %s port %d" % (host, port), e) from None
        ctl.cmd("RETR " + args.file, expect="1")
    else:
        raise FtpError("mode", "unknown mode %s" % mode)
    try:
        n, digest = receive(dsock, args.data_timeout, "receive data")
    finally:
        dsock.close()
    code, line = ctl.reply("transfer complete")
    if code != 226:
        raise FtpError("transfer complete", "unexpected reply %r" % line)
    return n, digest, data_port


def wait_for(path, timeout):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if os.path.exists(path):
            return True
        time.sleep(0.1)
    return False


def run_client(args):
    size, sha = None, None
    if args.meta:
        with open(args.meta) as f:
            size_s, sha = f.read().split()
            size = int(size_s)
    modes = args.mode.split(",")
    if args.transfers < len(modes):
        args.transfers = len(modes)
    pause_after = None
    if args.pause_after:
        pause_after = {int(x) for x in args.pause_after.split(",")}
    label = args.mode
    i = 0
    ctl = None
    try:
        ctl = Control(args.host, args.port, args.timeout, args.dstopts)
        login(ctl)
        if args.mode == "none":
            ctl.cmd("PWD", expect="2")
            ctl.cmd("NOOP", expect="2")
            ctl.cmd("QUIT", expect="2")
            print("OK none: control session (login, PWD, NOOP, QUIT) passed")
            return 0
        for i in range(1, args.transfers + 1):
            if i > 1 and args.sync_dir and (pause_after is None or i - 1 in pause_after):
                open(os.path.join(args.sync_dir, "paused.%d" % (i - 1)), "w").close()
                log("paused after transfer %d, waiting for go.%d" % (i - 1, i - 1))
                if not wait_for(os.path.join(args.sync_dir, "go.%d" % (i - 1)), args.pause_timeout):
                    raise FtpError("pause", "no go.%d within %ss" % (i - 1, args.pause_timeout))
            t0 = time.monotonic()
            args.transfer_no = i
            label = modes[min(i, len(modes)) - 1]
            n, digest, data_port = transfer(ctl, label, args)
            if size is not None and n != size:
                raise FtpError("verify", "got %d bytes, expected %d" % (n, size))
            if sha is not None and digest != sha:
                raise FtpError("verify", "sha256 mismatch (%d bytes)" % n)
            print("OK %s transfer %d: %d bytes, sha256 %s (%.1fs), data port %d"
                  % (label, i, n, "ok" if sha else "not checked", time.monotonic() - t0,
                     data_port))
            sys.stdout.flush()
        try:
            ctl.cmd("QUIT")
        except FtpError:
            pass
        return 0
    except FtpError as e:
        print("ERROR %s transfer %d: %s" % (label, i, e))
        return 1
    finally:
        if ctl:
            ctl.close()


def one_session(args):
    """One whole session; FtpError if any step fails."""
    ctl = Control(args.host, args.port, args.timeout)
    try:
        login(ctl)
        transfer(ctl, args.mode, args)
        ctl.cmd("QUIT", expect="2")
    finally:
        ctl.close()


def run_sessions(args):
    import threading
    global QUIET
    QUIET = True
    args.hold_data, args.pad_port, args.sync_dir = False, 0, None
    end = time.monotonic() + args.seconds
    counts = {"ok": 0, "failed": 0}
    why = []
    lock = threading.Lock()

    took = []

    def worker():
        while time.monotonic() < end:
            t = time.monotonic()
            try:
                one_session(args)
                key = "ok"
                with lock:
                    took.append(time.monotonic() - t)
            except FtpError as e:
                key = "failed"
                with lock:
                    if len(why) < 5:
                        why.append(str(e))
            with lock:
                counts[key] += 1

    t0 = time.monotonic()
    threads = [threading.Thread(target=worker) for _ in range(args.parallel)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for w in why:
        sys.stderr.write("failed: %s\n" % w)
    # a successful session's duration, ms: median, 99th percentile, longest
    # (a stall such as a dropped SYN's retry shows in the last two)
    took.sort()
    pct = [took[min(len(took) - 1, int(q * len(took)))] * 1000 if took else 0
           for q in (0.5, 0.99)] + [took[-1] * 1000 if took else 0]
    print("SESSIONS %d %d %.3f %.1f %.1f %.1f" % (counts["ok"], counts["failed"],
                                                 time.monotonic() - t0, *pct))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("server")
    s.add_argument("--root", required=True)
    s.add_argument("--port", type=int, default=21)
    s.add_argument("--size", type=int, default=256 * 1024)
    s.add_argument("--file", action="append", metavar="NAME:SIZE[:KIND]",
                   help="one more file to serve; KIND random (default) or pattern")
    s.add_argument("--ready")
    s.add_argument("--log")
    s.add_argument("--active-timeout", type=float, default=4)
    s.add_argument("--no-ipv6", action="store_true")
    s.add_argument("--quiet", action="store_true", help="log warnings only (benchmarks)")
    s.add_argument("--addr", default="0.0.0.0", help="IPv4 address to listen on")
    s.add_argument("--max-cons", type=int, default=0,
                   help="control connections at once (default pyftpdlib's 512)")
    s.add_argument("--backlog", type=int, default=16, help="listen() backlog")
    c = sub.add_parser("client")
    c.add_argument("--host", required=True)
    c.add_argument("--port", type=int, default=21)
    c.add_argument("--mode", required=True,
                   help="port|pasv|eprt|epsv|none, or a comma-separated list of "
                        "the first four, one per transfer")
    c.add_argument("--meta")
    c.add_argument("--file", default=FILE_NAME, help="file to retrieve (default %(default)s)")
    c.add_argument("--pad-port", type=int, default=0, metavar="BYTES",
                   help="port/eprt: send the command with NOOP lines up to BYTES in one send()")
    c.add_argument("--transfers", type=int, default=1)
    c.add_argument("--sync-dir")
    c.add_argument("--pause-after", metavar="I,J",
                   help="with --sync-dir: pause only after these transfers")
    c.add_argument("--pause-timeout", type=float, default=60)
    c.add_argument("--hold-data", action="store_true",
                   help="passive modes: pause between the 227/229 reply and the data connection")
    c.add_argument("--timeout", type=float, default=10,
                   help="control reply timeout (must exceed the server's active timeout)")
    c.add_argument("--data-timeout", type=float, default=4)
    c.add_argument("--dstopts", action="store_true",
                   help="IPv6: a Destination Options header on every control packet")
    b = sub.add_parser("sessions")
    b.add_argument("--host", required=True)
    b.add_argument("--port", type=int, default=21)
    b.add_argument("--mode", default="pasv", choices=["port", "pasv", "eprt", "epsv"])
    b.add_argument("--file", default=FILE_NAME)
    b.add_argument("--seconds", type=float, required=True)
    b.add_argument("--parallel", type=int, default=4)
    b.add_argument("--timeout", type=float, default=10)
    b.add_argument("--data-timeout", type=float, default=4)
    args = ap.parse_args()
    if args.cmd == "sessions":
        return run_sessions(args)
    if args.cmd == "server":
        run_server(args)
        return 0
    ms = args.mode.split(",")
    if any(m not in ("port", "pasv", "eprt", "epsv") for m in ms) and args.mode != "none":
        print("ERROR %s transfer 0: bad --mode %r" % (args.mode, args.mode))
        return 1
    try:
        ipaddress.ip_address(args.host)
    except ValueError:
        print("ERROR %s transfer 0: bad --host %r" % (args.mode, args.host))
        return 1
    return run_client(args)


if __name__ == "__main__":
    sys.exit(main())
