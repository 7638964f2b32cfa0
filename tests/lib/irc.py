#!/usr/bin/python3
"""IRC server, DCC peer and DCC offering client for the VM suite (own code,
python3 stdlib only): just enough IRC for a connection helper to see a
client's DCC offer cross the firewall and the peer's connection come back.

  irc.py serve [--port 6667] [--timeout S]
      A tiny IRC server on :: and 0.0.0.0 (both families).  Accepts NICK
      and USER (answers 001), PING (PONG), QUIT; relays each PRIVMSG and
      NOTICE to the registered client of that nick, unchanged but for a
      ":nick!nick@irc" prefix (so a DCC offer reaches the peer as the
      helper left it); an unknown nick gets 401.  Prints "ready" once
      listening, then one line per relayed message.

  irc.py peer SERVER [--port 6667] [--nick peer] [--bind ADDR] [--count N]
              [--timeout S]
      The DCC peer (run on the server's side, e.g. beside "serve"):
      registers as NICK at SERVER, prints "ready", then for each DCC offer
      relayed to it (SEND, CHAT, TSEND, SCHAT, SSEND, MOVE) connects to the
      announced address and port (decimal, dotted quad or IPv6 text, as
      received), from ADDR if --bind, within --timeout s; on success reads
      the offered bytes (a SEND) and answers the DCC byte count, and
      prints "peer OK ADDR PORT"; else "peer BLOCKED ADDR PORT why".  A
      malformed offer prints "peer ERROR why".  Stops after N offers
      (default: runs until killed).

  irc.py try SERVER [--port 6667] [--nick alice] [--to peer]
             [--dcc-port P] [--announce ADDR] [--form decimal|dotted|text]
             [--type SEND|CHAT|...] [--notice] [--split] [--timeout S]
      The offering client (run on the client's side): registers at SERVER,
      listens on P (default: a free port) on its own address (the local
      address of its IRC connection, so a connection meant for another
      host never reaches it), sends
          PRIVMSG TO :\\1DCC SEND file.bin ADDR P 4096\\1
      with ADDR its own address (IPv4 as one 32-bit decimal number, IPv6 in
      text form) unless --announce names another (a forged offer: that
      address is announced, the listener stays on the own one); --form
      writes an IPv4 address as a dotted quad; --notice sends a NOTICE;
      --split sends the line in two TCP segments 0.3 s apart, cut inside
      the address.  Then waits --timeout s for the peer's connection.
      Exit 0: the peer's connection arrived (the file is sent, "OK ...");
      1: it did not (timeout, "BLOCKED ..."); 2: protocol error (no 001,
      connection refused, ...).  One line says what happened.

  --timeout S defaults to 3 everywhere.

A suite runs "serve" and "peer SERVER-ADDR --bind OTHER" in the server's
namespace (OTHER: a second address there, so the peer is not the IRC
server), then "try SERVER-ADDR" in the client's namespace, once per case
(--announce for the forged case, --split for the split one).
"""
import argparse
import ipaddress
import select
import socket
import struct
import sys
import threading
import time

DCC_TYPES = ("SEND", "CHAT", "TSEND", "SCHAT", "SSEND", "TSSEND", "MOVE")
FILE_SIZE = 4096


def say(line):
    print(line, flush=True)


# ---------------------------------------------------------------- lines

class Lines:
    """IRC lines from a socket, "\\r\\n" or "\\n" ended."""

    def __init__(self, sock):
        self.sock = sock
        self.buf = b""

    def get(self, deadline):
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            self.sock.settimeout(left)
            try:
                data = self.sock.recv(4096)
            except (socket.timeout, OSError):
                return None
            if not data:
                return None
            self.buf += data
        line, self.buf = self.buf.split(b"\n", 1)
        return line.rstrip(b"\r")


def split_message(line):
    """(prefix, command, params) of one IRC line (bytes)."""
    prefix = b""
    if line.startswith(b"@"):
        line = line.split(b" ", 1)[1] if b" " in line else b""
    if line.startswith(b":"):
        prefix, _, line = line[1:].partition(b" ")
    trailing = None
    if b" :" in line:
        line, trailing = line.split(b" :", 1)
    params = line.split()
    if not params:
        return prefix, b"", []
    if trailing is not None:
        params.append(trailing)
    return prefix, params[0].upper(), params[1:]


# ---------------------------------------------------------------- serve

class Server:
    def __init__(self):
        self.lock = threading.Lock()
        self.nicks = {}

    def send(self, sock, text):
        try:
            sock.sendall(text)
        except OSError:
            pass

    def client(self, sock):
        lines = Lines(sock)
        nick = None
        while True:
            line = lines.get(time.monotonic() + 3600)
            if line is None:
                break
            _, cmd, params = split_message(line)
            if cmd == b"NICK" and params:
                nick = params[0]
                with self.lock:
                    self.nicks[nick] = sock
            elif cmd == b"USER" and nick:
                self.send(sock, b":irc.test 001 " + nick + b" :Welcome " + nick + b"\r\n")
            elif cmd == b"PING":
                self.send(sock, b":irc.test PONG irc.test :" + (params[-1] if params else b"") +
                          b"\r\n")
            elif cmd in (b"PRIVMSG", b"NOTICE") and len(params) >= 2 and nick:
                with self.lock:
                    to = self.nicks.get(params[0])
                if to is None:
                    self.send(sock, b":irc.test 401 " + nick + b" " + params[0] +
                              b" :No such nick\r\n")
                    continue
                # relayed as received: the offer as the helper left it
                rest = line.split(b" :", 1)[1] if b" :" in line else params[-1]
                self.send(to, b":" + nick + b"!" + nick + b"@irc " + cmd + b" " + params[0] +
                          b" :" + rest + b"\r\n")
                say("relay %s > %s: %s" % (nick.decode(errors="replace"),
                                           params[0].decode(errors="replace"),
                                           rest.decode(errors="replace").replace("\1", "\\1")))
            elif cmd == b"QUIT":
                break
        with self.lock:
            if nick and self.nicks.get(nick) is sock:
                del self.nicks[nick]
        sock.close()


def serve(args):
    srv = Server()
    listeners = []
    for family, addr in ((socket.AF_INET6, "::"), (socket.AF_INET, "0.0.0.0")):
        s = socket.socket(family, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if family == socket.AF_INET6:
            s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        try:
            s.bind((addr, args.port))
        except OSError as e:
            say("serve: cannot listen on %s port %d: %s" % (addr, args.port, e))
            return 2
        s.listen(16)
        listeners.append(s)
    say("ready")
    while True:
        ready, _, _ = select.select(listeners, [], [])
        for s in ready:
            c, _ = s.accept()
            threading.Thread(target=srv.client, args=(c,), daemon=True).start()


# ---------------------------------------------------------------- offers

def parse_offer(text):
    """(type, address text, port) of a CTCP DCC offer's text, or a reason."""
    if not text.startswith(b"\1"):
        return None
    words = text.strip(b"\1").decode(errors="replace")
    if not words.upper().startswith("DCC "):
        return None
    rest = words[4:].lstrip()
    kind, _, rest = rest.partition(" ")
    if kind.upper() not in DCC_TYPES:
        return None
    rest = rest.lstrip()
    if rest.startswith('"'):
        end = rest.find('"', 1)
        if end < 0:
            return "unterminated file name"
        rest = rest[end + 1:]
    else:
        rest = rest.partition(" ")[2]
    fields = rest.split()
    if len(fields) < 2:
        return "no address or port"
    return kind.upper(), fields[0], fields[1]


def offer_address(text):
    """An ipaddress object for the announced address text, or None."""
    try:
        if text.isdigit():
            value = int(text)
            return ipaddress.IPv4Address(value) if value < 2 ** 32 else None
        return ipaddress.ip_address(text)
    except ValueError:
        return None


def peer_connect(addr, port, bind, timeout):
    family = socket.AF_INET6 if addr.version == 6 else socket.AF_INET
    s = socket.socket(family, socket.SOCK_STREAM)
    s.settimeout(timeout)
    try:
        if bind:
            s.bind((bind, 0))
        s.connect((str(addr), port))
        return s, None
    except OSError as e:
        s.close()
        return None, str(e) or type(e).__name__


def peer_transfer(s, kind, timeout):
    """A SEND's bytes, acknowledged by count; a CHAT's line."""
    deadline = time.monotonic() + timeout
    got = 0
    if kind in ("CHAT", "SCHAT"):
        s.sendall(b"hello\n")
        return 0
    while got < FILE_SIZE and time.monotonic() < deadline:
        s.settimeout(max(deadline - time.monotonic(), 0.01))
        try:
            data = s.recv(65536)
        except (socket.timeout, OSError):
            break
        if not data:
            break
        got += len(data)
        s.sendall(struct.pack("!I", got))
    return got


def peer(args):
    sock, why = dial(args.server, args.port, args.timeout)
    if sock is None:
        say("peer ERROR cannot reach the server: %s" % why)
        return 2
    lines = register(sock, args.nick, args.timeout)
    if lines is None:
        say("peer ERROR no welcome from the server")
        return 2
    say("ready")
    seen = 0
    while args.count == 0 or seen < args.count:
        line = lines.get(time.monotonic() + 3600)
        if line is None:
            say("peer ERROR the server closed the connection")
            return 2
        _, cmd, params = split_message(line)
        if cmd not in (b"PRIVMSG", b"NOTICE") or len(params) < 2:
            continue
        offer = parse_offer(params[-1])
        if offer is None:
            continue
        seen += 1
        if isinstance(offer, str):
            say("peer ERROR %s" % offer)
            continue
        kind, addr_text, port_text = offer
        addr = offer_address(addr_text)
        if addr is None or not port_text.isdigit() or not 0 < int(port_text) < 65536:
            say("peer ERROR bad address or port: %s %s" % (addr_text, port_text))
            continue
        port = int(port_text)
        s, why = peer_connect(addr, port, args.bind, args.timeout)
        if s is None:
            say("peer BLOCKED %s %d %s" % (addr, port, why))
            continue
        got = peer_transfer(s, kind, args.timeout)
        s.close()
        say("peer OK %s %d %s %d bytes" % (addr, port, kind, got))
    return 0


# ---------------------------------------------------------------- try

def dial(server, port, timeout):
    try:
        return socket.create_connection((server, port), timeout=timeout), None
    except OSError as e:
        return None, str(e) or type(e).__name__


def register(sock, nick, timeout):
    """Lines of the connection once the server said 001, or None."""
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.sendall(b"NICK %s\r\nUSER %s 0 * :%s\r\n" % (nick.encode(), nick.encode(),
                                                       nick.encode()))
    lines = Lines(sock)
    deadline = time.monotonic() + timeout
    while True:
        line = lines.get(deadline)
        if line is None:
            return None
        _, cmd, _ = split_message(line)
        if cmd == b"001":
            return lines


def announced_text(addr, form):
    if addr.version == 6:
        return str(addr)
    if form == "dotted":
        return str(addr)
    return str(int(addr))


def try_offer(args):
    sock, why = dial(args.server, args.port, args.timeout)
    if sock is None:
        say("ERROR cannot reach the IRC server: %s" % why)
        return 2
    if register(sock, args.nick, args.timeout) is None:
        say("ERROR no welcome (001) from the IRC server")
        return 2
    own = sock.getsockname()[0]
    listener = socket.socket(sock.family, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind((own, args.dcc_port))
    except OSError as e:
        say("ERROR cannot listen on %s port %d: %s" % (own, args.dcc_port, e))
        return 2
    listener.listen(4)
    port = listener.getsockname()[1]
    addr = ipaddress.ip_address(args.announce or own.split("%")[0])
    text = announced_text(addr, args.form)
    cmd = "NOTICE" if args.notice else "PRIVMSG"
    arg = "chat" if args.type.upper() in ("CHAT", "SCHAT") else "file.bin"
    line = ("%s %s :\1DCC %s %s %s %d %d\1\r\n" % (cmd, args.to, args.type.upper(), arg, text,
                                                 port, FILE_SIZE)).encode()
    if args.split:
        cut = line.index(text.encode()) + max(len(text) // 2, 1)
        sock.sendall(line[:cut])
        time.sleep(0.3)
        sock.sendall(line[cut:])
    else:
        sock.sendall(line)
    # the peer's connection, or the server's 401 (nobody to offer to:
    # nothing proven)
    deadline = time.monotonic() + args.timeout
    while True:
        left = deadline - time.monotonic()
        ready = select.select([listener, sock], [], [], max(left, 0))[0] if left > 0 else []
        if not ready:
            say("BLOCKED no connection to %s port %d within %gs (announced %s)" %
                (own, port, args.timeout, text))
            return 1
        if listener in ready:
            conn, peer_addr = listener.accept()
            break
        data = sock.recv(4096)
        if not data or b" 401 " in data:
            say("ERROR the server did not relay the offer to %s" % args.to)
            return 2
    conn.settimeout(args.timeout)
    try:
        if arg == "file.bin":
            conn.sendall(b"\xab" * FILE_SIZE)
            conn.recv(4)
        else:
            conn.recv(64)
    except OSError:
        pass
    conn.close()
    try:
        sock.sendall(b"QUIT :bye\r\n")
    except OSError:
        pass
    say("OK the peer %s connected to %s port %d (announced %s)" %
        (peer_addr[0], own, port, text))
    return 0


def main():
    ap = argparse.ArgumentParser(description="IRC DCC test server, peer and client")
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("serve")
    s.add_argument("--port", type=int, default=6667)
    s.add_argument("--timeout", type=float, default=3)
    p = sub.add_parser("peer")
    p.add_argument("server")
    p.add_argument("--port", type=int, default=6667)
    p.add_argument("--nick", default="peer")
    p.add_argument("--bind")
    p.add_argument("--count", type=int, default=0)
    p.add_argument("--timeout", type=float, default=3)
    t = sub.add_parser("try")
    t.add_argument("server")
    t.add_argument("--port", type=int, default=6667)
    t.add_argument("--nick", default="alice")
    t.add_argument("--to", default="peer")
    t.add_argument("--dcc-port", type=int, default=0)
    t.add_argument("--announce")
    t.add_argument("--form", choices=("decimal", "dotted", "text"), default="decimal")
    t.add_argument("--type", default="SEND")
    t.add_argument("--notice", action="store_true")
    t.add_argument("--split", action="store_true")
    t.add_argument("--timeout", type=float, default=3)
    args = ap.parse_args()
    if args.cmd == "serve":
        return serve(args)
    if args.cmd == "peer":
        return peer(args)
    return try_offer(args)


if __name__ == "__main__":
    sys.exit(main())
