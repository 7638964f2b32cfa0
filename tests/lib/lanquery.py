#!/usr/bin/python3
"""The common mechanics of a query to a group or broadcast address and its
unicast answers (mDNS, SLP, DHCPv6, NetBIOS-NS), for the VM suites and for
loopback tests; python3 stdlib only.  The per-protocol scripts
(tests/lib/mdns.py, slp.py, dhcpv6.py, netbios.py) hand main() a Proto:
its port, groups, and packet builders and checks.

  NAME.py serve [--family 4|6] [--iface IF] [--group ADDR] [--port P]
                [--from-port P] [--count N] [--ready FILE] [--quiet]
      the answering host: listen on the protocol's port (joined to its
      group on IF, or receiving broadcasts), print "ready" on stdout once
      listening, and answer each valid query with a unicast datagram to
      the querier's address and port, sent from --from-port (default: the
      protocol's port, as real responders do; 0: an ephemeral port); one
      line per answer on stderr ("answered ADDR:PORT from PORT").  Stops
      after --count answers (default: never).
  NAME.py try [--family 4|6] [--iface IF] [--to ADDR] [--port P]
              [--sport P] [--timeout S]
      the asking host: send one query to the group (or --to: a broadcast
      or any address) from --sport (default ephemeral; DHCPv6: 546), wait
      for a unicast answer; print one line saying what happened and exit
      0 (a valid answer arrived: "answer from ADDR:PORT"), 1 (none before
      --timeout, default 3 s: blocked) or 2 (something arrived that is not
      an answer to the query, or a socket error).

--iface names the interface for the group (IPv4: the interface's first
address is used as IP_MULTICAST_IF / the membership's; IPv6: its index).
On loopback: --iface lo, and for a broadcast --to 127.255.255.255.
"""
import argparse
import fcntl
import select
import socket
import struct
import sys
import time


class Proto:
    """What a protocol script gives main()."""

    def __init__(self, name, port, group4, group6, query, is_query, answer, is_answer,
                 client_port=0):
        self.name = name
        self.port = port              # the group's / servers' port
        self.group4 = group4          # None: IPv6 only
        self.group6 = group6          # None: IPv4 only
        self.query = query            # () -> bytes
        self.is_query = is_query      # (bytes) -> bool
        self.answer = answer          # (query bytes) -> bytes
        self.is_answer = is_answer    # (answer bytes, query bytes) -> bool
        self.client_port = client_port


def iface_addr4(name):
    """The first IPv4 address of an interface (SIOCGIFADDR)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        req = struct.pack("256s", name.encode()[:15])
        return socket.inet_ntoa(fcntl.ioctl(s.fileno(), 0x8915, req)[20:24])
    finally:
        s.close()


def family_of(a, proto):
    if a.family:
        return socket.AF_INET6 if a.family == "6" else socket.AF_INET
    if a.to or getattr(a, "group", None):
        return socket.AF_INET6 if ":" in (a.to or a.group) else socket.AF_INET
    return socket.AF_INET if proto.group4 else socket.AF_INET6


def group_of(fam, proto):
    return proto.group6 if fam == socket.AF_INET6 else proto.group4


def mcast_setup(s, fam, iface, join=None):
    """Multicast out through iface (and join a group there), looped back
    to local members so a test on one host works."""
    if fam == socket.AF_INET6:
        idx = socket.if_nametoindex(iface) if iface else 0
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_MULTICAST_IF, idx)
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_MULTICAST_LOOP, 1)
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_MULTICAST_HOPS, 1)
        if join:
            mreq = socket.inet_pton(socket.AF_INET6, join) + struct.pack("@I", idx)
            s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_JOIN_GROUP, mreq)
        return idx
    local = iface_addr4(iface) if iface else "0.0.0.0"
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(local))
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_LOOP, 1)
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 1)
    if join:
        mreq = socket.inet_aton(join) + socket.inet_aton(local)
        s.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, mreq)
    return 0


def is_multicast(fam, addr):
    if fam == socket.AF_INET6:
        return addr.lower().startswith("ff")
    return 224 <= int(addr.split(".")[0]) <= 239


def udp_socket(fam, port):
    s = socket.socket(fam, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if fam == socket.AF_INET6:
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
    s.bind(("::" if fam == socket.AF_INET6 else "0.0.0.0", port))
    return s


def serve(a, proto):
    fam = family_of(a, proto)
    group = a.group or group_of(fam, proto)
    port = a.port or proto.port
    s = udp_socket(fam, port)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
    if group and is_multicast(fam, group):
        mcast_setup(s, fam, a.iface, join=group)
    from_port = port if a.from_port is None else a.from_port
    out = s if from_port == port else udp_socket(fam, from_port)
    if a.ready:
        open(a.ready, "w").write("ready\n")
    print("ready", flush=True)
    answered = 0
    while a.count == 0 or answered < a.count:
        data, peer = s.recvfrom(65535)
        if not proto.is_query(data):
            if not a.quiet:
                print("ignored %d bytes from %s:%d" % (len(data), peer[0], peer[1]),
                      file=sys.stderr, flush=True)
            continue
        out.sendto(proto.answer(data), peer[:2] if fam == socket.AF_INET else peer)
        answered += 1
        if not a.quiet:
            print("answered %s:%d from %d" % (peer[0], peer[1], out.getsockname()[1]),
                  file=sys.stderr, flush=True)
    return 0


def try_(a, proto):
    fam = family_of(a, proto)
    to = a.to or group_of(fam, proto)
    if not to:
        print("error: %s has no group for this family" % proto.name)
        return 2
    port = a.port or proto.port
    sport = proto.client_port if a.sport is None else a.sport
    try:
        s = udp_socket(fam, sport)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
        idx = 0
        if is_multicast(fam, to):
            idx = mcast_setup(s, fam, a.iface)
        q = proto.query()
        dest = (to, port, 0, idx) if fam == socket.AF_INET6 else (to, port)
        s.sendto(q, dest)
    except OSError as e:
        print("error: %s" % e)
        return 2
    deadline = time.monotonic() + a.timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([s], [], [], left)[0]:
            print("no answer in %gs (blocked)" % a.timeout)
            return 1
        data, peer = s.recvfrom(65535)
        if data == q:
            continue        # our own query, looped back to a socket on the port
        if proto.is_answer(data, q):
            print("answer from %s:%d" % (peer[0], peer[1]))
            return 0
        print("error: %d bytes from %s:%d are not an answer" % (len(data), peer[0], peer[1]))
        return 2


def main(proto, argv=None):
    p = argparse.ArgumentParser(prog=proto.name,
                                description="%s query and unicast answer, for tests" % proto.name)
    sub = p.add_subparsers(dest="cmd", required=True)
    for name in ("serve", "try"):
        sp = sub.add_parser(name)
        sp.add_argument("--family", choices=("4", "6"))
        sp.add_argument("--iface")
        sp.add_argument("--port", type=int, default=0)
        if name == "serve":
            sp.add_argument("--group")
            sp.add_argument("--from-port", type=int)
            sp.add_argument("--count", type=int, default=0)
            sp.add_argument("--ready")
            sp.add_argument("--quiet", action="store_true")
            sp.set_defaults(to=None)
        else:
            sp.add_argument("--to")
            sp.add_argument("--sport", type=int)
            sp.add_argument("--timeout", type=float, default=3.0)
    a = p.parse_args(argv)
    try:
        return serve(a, proto) if a.cmd == "serve" else try_(a, proto)
    except KeyboardInterrupt:
        return 1


# --------------------------------------------------------------- protocols
# Shared by the protocol scripts and tests/fuzz/mkseeds_lanq.py.

def dns_name(name):
    out = b""
    for label in name.strip(".").split("."):
        out += bytes([len(label)]) + label.encode()
    return out + b"\0"


def mdns_query(name="cthelperd-test.local", qid=0x1234):
    """A one-shot query (RFC 6762 5.1: a real ID), one question, A IN."""
    return struct.pack("!6H", qid, 0, 1, 0, 0, 0) + dns_name(name) + struct.pack("!HH", 1, 1)


def mdns_is_query(d):
    return len(d) >= 12 and not d[2] & 0x80 and (d[2] >> 3) & 0xF == 0 and \
        struct.unpack("!H", d[4:6])[0] >= 1


def mdns_answer(q):
    """Response with the query's ID and question, one A record 192.0.2.7."""
    qd = q[12:]
    return struct.pack("!6H", struct.unpack("!H", q[:2])[0], 0x8400, 1, 1, 0, 0) + qd + \
        b"\xc0\x0c" + struct.pack("!HHIH", 1, 1, 120, 4) + bytes([192, 0, 2, 7])


def mdns_is_answer(d, q):
    return len(d) >= 12 and d[:2] == q[:2] and d[2] & 0x80 != 0


def slp_msg(fn, body, xid=0x4242, flags=0x2000):
    n = 16 + len(body)
    return struct.pack("!BB", 2, fn) + n.to_bytes(3, "big") + struct.pack("!H", flags) + \
        b"\0\0\0" + struct.pack("!HH", xid, 2) + b"en" + body


def slp_string(s):
    return struct.pack("!H", len(s)) + s.encode()


def slp_srvrqst(service="service:printer", scope="DEFAULT"):
    return slp_msg(1, slp_string("") + slp_string(service) + slp_string(scope) +
                   slp_string("") + slp_string(""))


def slp_is_request(d):
    return len(d) >= 14 and d[0] == 2 and d[1] in (1, 6, 9)


def slp_srvrply(q):
    """SrvRply (2) with the request's XID: no error, one URL entry."""
    url = "service:printer://192.0.2.7"
    entry = b"\0" + struct.pack("!H", 60) + slp_string(url) + b"\0"
    return slp_msg(2, struct.pack("!HH", 0, 1) + entry, xid=struct.unpack("!H", q[10:12])[0],
                   flags=0)


def slp_is_reply(d, q):
    return len(d) >= 14 and d[0] == 2 and d[1] == 2 and d[10:12] == q[10:12]


def dhcpv6_msg(mtype, xid=0xABCDEF):
    """msg-type, transaction-id, Client Identifier (DUID-LL) and Elapsed
    Time options."""
    duid = struct.pack("!HH", 3, 1) + bytes([2, 0, 0, 0, 0, 2])
    return bytes([mtype]) + xid.to_bytes(3, "big") + struct.pack("!HH", 1, len(duid)) + duid + \
        struct.pack("!HHH", 8, 2, 0)


def dhcpv6_is_client_msg(d):
    return len(d) >= 4 and d[0] in (1, 3, 4, 5, 6, 8, 9, 11)


def dhcpv6_answer(q):
    """Advertise to a Solicit, Reply to the others, same transaction id."""
    return bytes([2 if q[0] == 1 else 7]) + q[1:4] + q[4:]


def dhcpv6_is_answer(d, q):
    return len(d) >= 4 and d[0] in (2, 7) and d[1:4] == q[1:4]


def nb_name(name="WORKGROUP", suffix=0):
    """First-level encoded NetBIOS name (RFC 1001 14.1)."""
    raw = name.upper().encode()[:15].ljust(15, b" ") + bytes([suffix])
    enc = b"".join(bytes([0x41 + (c >> 4), 0x41 + (c & 0xF)]) for c in raw)
    return bytes([32]) + enc + b"\0"


def nbns_query(name="WORKGROUP", trn=0x1337):
    """Broadcast name query: RD and B set, one question NB IN."""
    return struct.pack("!6H", trn, 0x0110, 1, 0, 0, 0) + nb_name(name) + struct.pack("!HH", 0x20, 1)


def nbns_is_query(d):
    return len(d) >= 12 and not d[2] & 0x80 and (d[2] >> 3) & 0xF == 0 and \
        struct.unpack("!H", d[4:6])[0] >= 1


def nbns_response(q):
    """Positive name query response: the name, TTL, one NB entry 192.0.2.7."""
    name = q[12:12 + 34]
    return struct.pack("!6H", struct.unpack("!H", q[:2])[0], 0x8500, 0, 1, 0, 0) + name + \
        struct.pack("!HHIH", 0x20, 1, 300, 6) + b"\0\0" + bytes([192, 0, 2, 7])


def nbns_is_response(d, q):
    return len(d) >= 12 and d[:2] == q[:2] and d[2] & 0x80 != 0


MDNS = Proto("mdns", 5353, "224.0.0.251", "ff02::fb", mdns_query, mdns_is_query, mdns_answer,
             mdns_is_answer)
SLP = Proto("slp", 427, "239.255.255.253", "ff02::116", slp_srvrqst, slp_is_request, slp_srvrply,
            slp_is_reply)
DHCPV6 = Proto("dhcpv6", 547, None, "ff02::1:2", lambda: dhcpv6_msg(1), dhcpv6_is_client_msg,
               dhcpv6_answer, dhcpv6_is_answer, client_port=546)
NETBIOS = Proto("netbios", 137, "255.255.255.255", None, nbns_query, nbns_is_query, nbns_response,
                nbns_is_response)
