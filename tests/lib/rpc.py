#!/usr/bin/python3
"""SunRPC test service and client for tests/tnsrpc/inside.sh (own XDR, no
RPC library): the portmapper/rpcbind side is Debian's rpcbind.

RPC messages (RFC 5531): CALL = xid, 0, rpcvers 2, prog, vers, proc,
cred (AUTH_NONE: 0, 0), verf (0, 0), arguments; REPLY = xid, 1,
MSG_ACCEPTED 0, verf, accept_stat (0 = SUCCESS), results.  Over TCP each
message is one record: a 4-byte record mark (0x80000000 | length).

  rpc.py service [--prog-base 400100] [--count 8] [--udp-base 41000]
                 [--tcp-base 42000] [--log FILE]
      For i in 1..count: program prog-base+i, version 1, on UDP port
      udp-base+i and TCP port tcp-base+i (0.0.0.0), registered with the
      local rpcbind by PMAPPROC_SET (portmapper v2, over UDP to
      127.0.0.1:111 from a privileged port; retried for 15 s while rpcbind
      starts).  Answers NULL calls (procedure 0) of its programs and logs
      each (which program, from where, udp or tcp).  Prints one
      "registered PROG 1 udp|tcp PORT: true|false" line per registration,
      then "ready".

  rpc.py client-agent
      Long-lived client.  Prints "ready", then one result line per command
      read on stdin:
        getport ID HOST VIA PROG PROT
            portmapper v2 GETPORT (PROG, version 1, PROT) over VIA (udp or
            tcp) to HOST:111, then a NULL call over PROT to HOST:port
        getaddr ID HOST VIA PROG NETID
            rpcbind v4 GETADDR (PROG, version 1, netid NETID = udp|tcp)
            over VIA to HOST:111, then a NULL call over NETID to the
            address returned (its host part if not 0.0.0.0, else HOST)
      "RESULT ID OK|BLOCKED|ERROR port=P uaddr=U why=W": ERROR when the
      query itself failed (nothing proven), BLOCKED when the NULL call got
      no answer (UDP) or its connection timed out or was refused (TCP).
"""
import random
import select
import socket
import struct
import sys
import time

from agent import Log, bad_command, client_agent, recv_exact

PMAP_PROG, RPCB_PROG = 100000, 100000
PMAPPROC_SET, PMAPPROC_GETPORT = 1, 3
RPCBPROC_GETADDR = 3
IPPROTO = {"udp": 17, "tcp": 6}
QUERY_WAIT = 4.0       # s for the answer of rpcbind (UDP: resent every 1 s)
UDP_NULL_WAIT = 2.0    # s for the NULL call's answer over UDP (resent at 0.7 s)
CONNECT_WAIT = 2.5     # s for a TCP connection (SYN retried at 1 s)


def xdr_uint(*vals):
    return b"".join(struct.pack(">I", v & 0xffffffff) for v in vals)


def xdr_string(s):
    b = s.encode()
    return xdr_uint(len(b)) + b + b"\0" * (-len(b) % 4)


def call_msg(xid, prog, vers, proc, args=b""):
    return xdr_uint(xid, 0, 2, prog, vers, proc, 0, 0, 0, 0) + args


def reply_results(msg, xid):
    """The results of an accepted, successful REPLY to xid (or raise)."""
    if len(msg) < 24:
        raise ValueError("reply of %d bytes" % len(msg))
    rxid, mtype, stat = struct.unpack(">III", msg[:12])
    if rxid != xid or mtype != 1:
        raise ValueError("not the reply to xid %#x" % xid)
    if stat != 0:
        raise ValueError("reply_stat %d (denied)" % stat)
    vlen = struct.unpack(">I", msg[16:20])[0]
    off = 20 + vlen + (-vlen % 4)
    astat = struct.unpack(">I", msg[off:off + 4])[0]
    if astat != 0:
        raise ValueError("accept_stat %d" % astat)
    return msg[off + 4:]


def record(msg):
    return struct.pack(">I", 0x80000000 | len(msg)) + msg


def recv_record(sock, deadline):
    out = b""
    while True:
        mark = recv_exact(sock, 4, deadline)
        n = struct.unpack(">I", mark)[0]
        out += recv_exact(sock, n & 0x7fffffff, deadline)
        if n & 0x80000000:
            return out


def udp_call(host, port, msg, xid, wait, resend, sock=None):
    s = sock or socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET,
                              socket.SOCK_DGRAM)
    try:
        deadline = time.monotonic() + wait
        nxt = 0.0
        while True:
            now = time.monotonic()
            if now >= deadline:
                raise TimeoutError("no UDP reply from %s:%d within %.1f s" % (host, port, wait))
            if now >= nxt:
                s.sendto(msg, (host, port))
                nxt = now + resend
            r, _, _ = select.select([s], [], [], min(deadline, nxt) - now)
            if r:
                data, _ = s.recvfrom(65536)
                try:
                    return reply_results(data, xid)
                except ValueError:
                    if data[:4] == msg[:4]:
                        raise
    finally:
        if sock is None:
            s.close()


def tcp_connect(host, port):
    s = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(CONNECT_WAIT)
    try:
        s.connect((host, port))
    except BaseException:
        s.close()
        raise
    return s


def tcp_call(sock, msg, xid, wait):
    sock.sendall(record(msg))
    return reply_results(recv_record(sock, time.monotonic() + wait), xid)


# ------------------------------------------------------------ service

def register(prog, prot, port, log):
    """PMAPPROC_SET over UDP to 127.0.0.1:111 from a privileged port."""
    args = xdr_uint(prog, 1, IPPROTO[prot], port)
    deadline = time.monotonic() + 15
    why = ""
    while time.monotonic() < deadline:
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        for p in range(600, 1000):
            try:
                s.bind(("127.0.0.1", p))
                break
            except OSError:
                continue
        xid = random.getrandbits(32)
        try:
            res = udp_call("127.0.0.1", 111, call_msg(xid, PMAP_PROG, 2, PMAPPROC_SET, args),
                           xid, 1.0, 0.5, s)
            ok = struct.unpack(">I", res[:4])[0]
            return "true" if ok else "false"
        except (OSError, ValueError, TimeoutError) as e:
            why = str(e)
        finally:
            s.close()
        time.sleep(0.3)
    return "failed: %s" % why


def null_reply(msg, progs):
    """(reply, prog) for a NULL call of one of progs, else (None, why)."""
    if len(msg) < 40:
        return None, "short message"
    xid, mtype, rpcvers, prog, vers, proc = struct.unpack(">IIIIII", msg[:24])
    if mtype != 0 or rpcvers != 2 or prog not in progs:
        return None, "not a call of ours (prog %d)" % prog
    if proc != 0 or vers != 1:
        # PROC_UNAVAIL (3) / PROG_MISMATCH (2)
        stat = 3 if vers == 1 else 2
        tail = xdr_uint(1, 1) if stat == 2 else b""
        return xdr_uint(xid, 1, 0, 0, 0, stat) + tail, "proc %d vers %d" % (proc, vers)
    return xdr_uint(xid, 1, 0, 0, 0, 0), "NULL prog %d" % prog


def service(args):
    base, count, ubase, tbase, logpath = 400100, 8, 41000, 42000, None
    i = 0
    while i < len(args):
        k, v = args[i], args[i + 1]
        if k == "--prog-base":
            base = int(v)
        elif k == "--count":
            count = int(v)
        elif k == "--udp-base":
            ubase = int(v)
        elif k == "--tcp-base":
            tbase = int(v)
        elif k == "--log":
            logpath = v
        else:
            sys.exit("rpc.py service: unknown argument %s" % k)
        i += 2
    log = Log(logpath)
    progs = set()
    udp, lst, conns = [], [], {}
    for n in range(1, count + 1):
        prog = base + n
        progs.add(prog)
        u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        u.bind(("0.0.0.0", ubase + n))
        udp.append(u)
        t = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        t.bind(("0.0.0.0", tbase + n))
        t.listen(8)
        lst.append(t)
    for n in range(1, count + 1):
        for prot, port in (("udp", ubase + n), ("tcp", tbase + n)):
            res = register(base + n, prot, port, log)
            line = "registered %d 1 %s %d: %s" % (base + n, prot, port, res)
            print(line, flush=True)
            log(line)
    print("ready", flush=True)
    bufs = {}
    while True:
        r, _, _ = select.select(udp + lst + list(conns), [], [])
        for s in r:
            if s in udp:
                data, peer = s.recvfrom(65536)
                rep, what = null_reply(data, progs)
                log("udp %d from %s:%d: %s" % (s.getsockname()[1], peer[0], peer[1], what))
                if rep:
                    s.sendto(rep, peer)
            elif s in lst:
                c, peer = s.accept()
                conns[c] = "%s:%d" % peer[:2]
                bufs[c] = b""
                log("tcp %d: connection from %s" % (s.getsockname()[1], conns[c]))
            else:
                try:
                    b = s.recv(65536)
                except OSError:
                    b = b""
                if not b:
                    s.close()
                    del conns[s], bufs[s]
                    continue
                bufs[s] += b
                while len(bufs[s]) >= 4:
                    n = struct.unpack(">I", bufs[s][:4])[0] & 0x7fffffff
                    if len(bufs[s]) < 4 + n:
                        break
                    msg, bufs[s] = bufs[s][4:4 + n], bufs[s][4 + n:]
                    rep, what = null_reply(msg, progs)
                    log("tcp %d from %s: %s" % (s.getsockname()[1], conns[s], what))
                    if rep:
                        s.sendall(record(rep))


# ------------------------------------------------------------ client

def query(host, via, msg, xid):
    if via == "udp":
        return udp_call(host, 111, msg, xid, QUERY_WAIT, 1.0)
    s = tcp_connect(host, 111)
    try:
        return tcp_call(s, msg, xid, QUERY_WAIT)
    finally:
        s.close()


def null_call(host, port, prot, prog):
    """("OK" | "BLOCKED", why)."""
    xid = random.getrandbits(32)
    msg = call_msg(xid, prog, 1, 0)
    try:
        if prot == "udp":
            udp_call(host, port, msg, xid, UDP_NULL_WAIT, 0.7)
        else:
            try:
                s = tcp_connect(host, port)
            except socket.timeout:
                return "BLOCKED", "no answer to the SYN to %s:%d within %.1f s" % (host, port, CONNECT_WAIT)
            try:
                tcp_call(s, msg, xid, QUERY_WAIT)
            finally:
                s.close()
    except TimeoutError as e:
        return "BLOCKED", "NULL call over %s: %s" % (prot, e)
    except socket.timeout:
        return "BLOCKED", "NULL call over %s to %s:%d: timed out" % (prot, host, port)
    except (OSError, EOFError, ValueError) as e:
        return "BLOCKED", "NULL call over %s to %s:%d: %s" % (prot, host, port, e)
    return "OK", "NULL call over %s to %s:%d answered" % (prot, host, port)


def parse_uaddr(uaddr, host):
    parts = uaddr.split(".")
    if len(parts) < 3:
        raise ValueError("universal address %r" % uaddr)
    port = int(parts[-2]) * 256 + int(parts[-1])
    addr = ".".join(parts[:-2])
    if addr in ("0.0.0.0", "::"):
        addr = host
    return addr, port


def rpc_case(words):
    kind, cid, host, via, prog, what = words[0], words[1], words[2], words[3], int(words[4]), words[5]
    xid = random.getrandbits(32)
    uaddr, port, addr = "-", "-", host
    try:
        if kind == "getport":
            res = query(host, via, call_msg(xid, PMAP_PROG, 2, PMAPPROC_GETPORT,
                                            xdr_uint(prog, 1, IPPROTO[what], 0)), xid)
            port = struct.unpack(">I", res[:4])[0]
        else:
            args = xdr_uint(prog, 1) + xdr_string(what) + xdr_string("") + xdr_string("")
            res = query(host, via, call_msg(xid, RPCB_PROG, 4, RPCBPROC_GETADDR, args), xid)
            n = struct.unpack(">I", res[:4])[0]
            uaddr = res[4:4 + n].decode(errors="replace")
            if not uaddr:
                raise ValueError("program not registered (empty address)")
            addr, port = parse_uaddr(uaddr, host)
        if not port:
            raise ValueError("program not registered (port 0)")
    except (OSError, EOFError, ValueError, TimeoutError) as e:
        return "RESULT %s ERROR port=%s uaddr=%s why=%s query over %s: %s" % (cid, port, uaddr, kind, via, e)
    verdict, why = null_call(addr, port, what, prog)
    return "RESULT %s %s port=%s uaddr=%s why=%s" % (cid, verdict, port, uaddr, why)


def command(words):
    if words[0] in ("getport", "getaddr") and len(words) == 6:
        return rpc_case(words)
    return bad_command(words)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    if sys.argv[1] == "service":
        service(sys.argv[2:])
    elif sys.argv[1] == "client-agent":
        client_agent(command)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
