#!/usr/bin/python3
"""Oracle TNS listener and client for tests/tnsrpc/inside.sh (own framing,
just enough of TNS for a connection helper to see a redirect).

A TNS packet: 8-byte header (2-byte big-endian packet length including the
header, 2-byte packet checksum 0, 1-byte type, 1-byte flags 0, 2-byte header
checksum 0) and a body.  Types used: CONNECT (1), REDIRECT (5), DATA (6).
REDIRECT body: 2-byte data length + that many bytes of connect descriptor.
DATA body: 2-byte data flags + data.

  tns.py server [--port 1521] [--follow FIRST-LAST] [--log FILE]
      The listener, on 0.0.0.0 and ::.  A CONNECT whose connect data names
      (SERVICE_NAME=VARIANT-PORT) is answered with a REDIRECT to this
      host's address (the accepted socket's local address: the server's
      own, even behind DNAT) and PORT, which must be one of the --follow
      ports (default 5001-5010; listened on from the start).  VARIANT:
        inline  REDIRECT with the descriptor
                (DESCRIPTION=(ADDRESS=(PROTOCOL=TCP)(HOST=h)(PORT=p)))
        split   REDIRECT with data length 0, then (0.3 s later, its own
                TCP segment) a DATA packet carrying the descriptor
        mixed   REDIRECT with mixed-case keys and spaces:
                (description=(address=(protocol=tcp)( host = h ) ( Port= p )))
      Later DATA packets on the connection are echoed back unchanged.  A
      follow-up connection to a --follow port gets "HELLO PORT\\n"; a line
      "PING X" is answered "PONG X".  Prints "ready" once listening; one
      log line per event (connect, redirect sent, follow-up from where).

  tns.py client-agent
      Long-lived client (one python start for all cases).  Prints "ready",
      then one result line per command read on stdin:
        tns ID DIAL VARIANT FPORT [hold]
            CONNECT to DIAL:1521 asking for VARIANT-FPORT; read the
            REDIRECT (and the DATA after a 0-length one); connect to the
            HOST and PORT the descriptor names (as received) within
            CONNECT_WAIT s; PING/PONG on it.  Prints
            "RESULT ID OK|BLOCKED|ERROR host=H port=P why=W desc=D" (D: the
            descriptor as received, last on the line).  BLOCKED: the
            follow-up connection timed out or was refused/unreachable;
            ERROR: the control connection failed (nothing was proven).
            With "hold" the first connection stays open for "more".
        more ID N
            N DATA messages on the held first connection of ID, each
            waited for (the server echoes it), then close.  Prints
            "RESULT ID.more SENT N echoed=M".
  tns.py client DIAL VARIANT FPORT
      One "tns" command, for trying by hand.
"""
import re
import select
import socket
import struct
import sys
import threading
import time

from agent import Log, bad_command, client_agent, recv_exact

CONNECT, ACCEPT, REFUSE, REDIRECT, DATA = 1, 2, 4, 5, 6
CONTROL_WAIT = 5.0     # s for each step on the control connection
CONNECT_WAIT = 2.5     # s for the follow-up connection (SYN retried at 1 s)
SPLIT_PAUSE = 0.3


def packet(ptype, body):
    return struct.pack(">HHBBH", 8 + len(body), 0, ptype, 0, 0) + body


def recv_packet(sock, deadline):
    """(type, body) of the next TNS packet."""
    head = recv_exact(sock, 8, deadline)
    length, _, ptype, _, _ = struct.unpack(">HHBBH", head)
    if length < 8:
        raise ValueError("TNS packet length %d < 8" % length)
    return ptype, recv_exact(sock, length - 8, deadline)


def connect_body(service):
    """A CONNECT body in the usual layout: fixed fields, the connect data
    at offset 58 (from the packet start)."""
    data = ("(DESCRIPTION=(CONNECT_DATA=(SERVICE_NAME=%s)(CID=(PROGRAM=tns.py)"
            "(HOST=test)(USER=test)))(ADDRESS=(PROTOCOL=TCP)(PORT=1521)))"
            % service).encode()
    fixed = struct.pack(">HHHHHHHHHHIBB",
                        313, 300,       # version, lowest compatible version
                        0x0c41,         # service options
                        8192, 32767,    # SDU, TDU
                        0x7f08, 0,      # NT protocol characteristics, line turnaround
                        0x0100,         # value of 1 in hardware
                        len(data), 58,  # connect data length, offset
                        2048,           # max receivable connect data
                        0x41, 0x41)     # connect flags
    pad = 58 - 8 - len(fixed)
    return fixed + b"\0" * pad + data


def descriptor(variant, host, port):
    if variant == "mixed":
        return ("(description=(address=(protocol=tcp)( host = %s ) ( Port= %d )))"
                % (host, port)).encode()
    return ("(DESCRIPTION=(ADDRESS=(PROTOCOL=TCP)(HOST=%s)(PORT=%d)))"
            % (host, port)).encode()


# ------------------------------------------------------------ server

def listen_all(port):
    socks = []
    for fam, addr in ((socket.AF_INET, "0.0.0.0"), (socket.AF_INET6, "::")):
        s = socket.socket(fam, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if fam == socket.AF_INET6:
            s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        s.bind((addr, port))
        s.listen(16)
        socks.append(s)
    return socks


def serve_control(conn, peer, follow, log):
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    local = conn.getsockname()[0]
    if local.startswith("::ffff:"):
        local = local[7:]
    try:
        while True:
            ptype, body = recv_packet(conn, time.monotonic() + 120)
            if ptype == CONNECT:
                text = body.decode(errors="replace")
                m = re.search(r"SERVICE_NAME=([a-z]+)-(\d+)\)", text)
                if not m or int(m.group(2)) not in follow:
                    log("control %s: CONNECT without a known service: %s" % (peer, text))
                    conn.sendall(packet(REFUSE, b"\0\0\0\0"))
                    continue
                variant, port = m.group(1), int(m.group(2))
                desc = descriptor(variant, local, port)
                if variant == "split":
                    conn.sendall(packet(REDIRECT, struct.pack(">H", 0)))
                    time.sleep(SPLIT_PAUSE)
                    conn.sendall(packet(DATA, b"\0\0" + desc))
                else:
                    conn.sendall(packet(REDIRECT, struct.pack(">H", len(desc)) + desc))
                log("control %s: CONNECT for %s-%d: REDIRECT sent (%s): %s"
                    % (peer, variant, port, variant, desc.decode()))
            elif ptype == DATA:
                conn.sendall(packet(DATA, body))
            else:
                log("control %s: packet type %d ignored" % (peer, ptype))
    except (EOFError, OSError, ValueError, TimeoutError) as e:
        if not isinstance(e, EOFError):
            log("control %s: %s" % (peer, e))
    conn.close()


def serve_follow(conn, peer, port, log):
    log("follow-up %d from %s" % (port, peer))
    try:
        conn.settimeout(10)
        conn.sendall(b"HELLO %d\n" % port)
        f = conn.makefile("rb")
        line = f.readline().decode(errors="replace").strip()
        if line.startswith("PING "):
            conn.sendall(("PONG %s\n" % line[5:]).encode())
    except OSError as e:
        log("follow-up %d from %s: %s" % (port, peer, e))
    conn.close()


def server(args):
    port, first, last, logpath = 1521, 5001, 5010, None
    i = 0
    while i < len(args):
        if args[i] == "--port":
            port = int(args[i + 1])
        elif args[i] == "--follow":
            first, last = (int(x) for x in args[i + 1].split("-"))
        elif args[i] == "--log":
            logpath = args[i + 1]
        else:
            sys.exit("tns.py server: unknown argument %s" % args[i])
        i += 2
    log = Log(logpath)
    follow = set(range(first, last + 1))
    socks = {}
    for s in listen_all(port):
        socks[s] = None
    for p in sorted(follow):
        for s in listen_all(p):
            socks[s] = p
    print("ready", flush=True)
    while True:
        ready, _, _ = select.select(list(socks), [], [])
        for s in ready:
            conn, peer = s.accept()
            peer = "%s:%d" % peer[:2]
            if socks[s] is None:
                target, a = serve_control, (conn, peer, follow, log)
            else:
                target, a = serve_follow, (conn, peer, socks[s], log)
            threading.Thread(target=target, args=a, daemon=True).start()


# ------------------------------------------------------------ client

HELD = {}


def follow_up(host, port):
    """"OK" or "BLOCKED" and why."""
    fam = socket.AF_INET6 if ":" in host else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.settimeout(CONNECT_WAIT)
    try:
        s.connect((host, port))
    except socket.timeout:
        s.close()
        return "BLOCKED", "no answer to the follow-up SYN to %s:%d within %.1f s" % (host, port, CONNECT_WAIT)
    except OSError as e:
        s.close()
        return "BLOCKED", "follow-up to %s:%d: %s" % (host, port, e.strerror or e)
    try:
        s.settimeout(CONTROL_WAIT)
        f = s.makefile("rb")
        hello = f.readline().decode(errors="replace").strip()
        s.sendall(b"PING 1\n")
        pong = f.readline().decode(errors="replace").strip()
    except OSError as e:
        s.close()
        return "BLOCKED", "follow-up to %s:%d connected but then: %s" % (host, port, e)
    s.close()
    if pong != "PONG 1":
        return "BLOCKED", "follow-up to %s:%d: got %r, %r" % (host, port, hello, pong)
    return "OK", "follow-up to %s:%d: %s, %s" % (host, port, hello, pong)


def tns_case(cid, dial, variant, fport, hold):
    desc, host, port = "", "-", "-"
    fam = socket.AF_INET6 if ":" in dial else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_STREAM)
    try:
        s.settimeout(CONTROL_WAIT)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        s.connect((dial, 1521))
        deadline = time.monotonic() + CONTROL_WAIT
        s.sendall(packet(CONNECT, connect_body("%s-%s" % (variant, fport))))
        ptype, body = recv_packet(s, deadline)
        if ptype != REDIRECT:
            raise ValueError("answer to CONNECT is type %d, not REDIRECT" % ptype)
        if len(body) < 2:
            raise ValueError("REDIRECT body of %d bytes" % len(body))
        dlen = struct.unpack(">H", body[:2])[0]
        if dlen == 0:
            ptype, body = recv_packet(s, deadline)
            if ptype != DATA:
                raise ValueError("after a 0-length REDIRECT: type %d, not DATA" % ptype)
            data = body[2:]
        else:
            data = body[2:]
            if dlen != len(data):
                raise ValueError("REDIRECT data length %d but %d bytes of data: %r"
                                 % (dlen, len(data), data))
        desc = data.decode(errors="replace")
        # nothing may follow: a wrong packet length shows up here
        r, _, _ = select.select([s], [], [], 0.2)
        if r:
            extra = s.recv(4096)
            raise ValueError("%d bytes after the redirect: %r" % (len(extra), extra))
        mh = re.search(r"\(\s*host\s*=\s*([^)\s]+)\s*\)", desc, re.I)
        mp = re.search(r"\(\s*port\s*=\s*(\d+)\s*\)", desc, re.I)
        if not mh or not mp:
            raise ValueError("no HOST or PORT in the descriptor")
        host, port = mh.group(1), int(mp.group(1))
    except (OSError, EOFError, ValueError, TimeoutError) as e:
        s.close()
        return "RESULT %s ERROR host=%s port=%s why=control: %s desc=%s" % (cid, host, port, e, desc)
    verdict, why = follow_up(host, port)
    if hold:
        HELD[cid] = s
    else:
        s.close()
    return "RESULT %s %s host=%s port=%s why=%s desc=%s" % (cid, verdict, host, port, why, desc)


def more(cid, n):
    s = HELD.pop(cid, None)
    if s is None:
        return "RESULT %s.more ERROR no held connection" % cid
    echoed = 0
    why = ""
    try:
        for i in range(n):
            msg = b"\0\0" + b"message %d" % i
            s.sendall(packet(DATA, msg))
            ptype, body = recv_packet(s, time.monotonic() + CONTROL_WAIT)
            if ptype == DATA and body == msg:
                echoed += 1
    except (OSError, EOFError, ValueError, TimeoutError) as e:
        why = " why=%s" % e
    s.close()
    return "RESULT %s.more SENT %d echoed=%d%s" % (cid, n, echoed, why)


def command(words):
    if words[0] == "tns" and len(words) in (5, 6):
        return tns_case(words[1], words[2], words[3], words[4],
                        len(words) == 6 and words[5] == "hold")
    if words[0] == "more" and len(words) == 3:
        return more(words[1], int(words[2]))
    return bad_command(words)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    if sys.argv[1] == "server":
        server(sys.argv[2:])
    elif sys.argv[1] == "client-agent":
        client_agent(command)
    elif sys.argv[1] == "client" and len(sys.argv) == 5:
        line = tns_case("1", sys.argv[2], sys.argv[3], sys.argv[4], False)
        print(line)
        sys.exit(0 if " OK " in line else 1)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
