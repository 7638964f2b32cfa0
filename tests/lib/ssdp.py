#!/usr/bin/python3
"""SSDP test device and control point for the issue 31 VM suite (python3
stdlib only).

  ssdp.py serve [--group G] [--addr ADDR] [--location ADDR:PORT]
                [--http-port P] [--timeout S]
  ssdp.py try   [--group G] [--bind ADDR] [--no-fetch] [--timeout S]

serve: a UPnP device.  It joins the SSDP group (--group, default
239.255.255.250; ff02::c or ff05::c for IPv6: an IPv6 group makes it an
IPv6 device) on UDP port 1900 and answers every M-SEARCH, from port 1900
by unicast to the querier's address and port, with "HTTP/1.1 200 OK" and a
LOCATION naming its own address (--addr, default: the address the answer
leaves from; give a global IPv6 address: a link-local one would need a
zone in the URL, which no helper can expect) and its HTTP port (--http-port, default 49152), or whatever
--location ADDR:PORT says (a third host: the negative case).  It serves
HTTP on that port (any GET answers a small description document).  It
prints "ready" when listening, then one line per M-SEARCH answered
("answered ADDR PORT") and per HTTP request ("http GET PATH from ADDR"),
and runs until killed (--timeout S: exits after S seconds instead).

try: a control point.  It sends one M-SEARCH to the group's port 1900 from
an ephemeral port (bound to --bind, default any; for an IPv6 group
bind a global address, or the kernel sends from the link-local one), waits up to --timeout
seconds (default 3) for a unicast answer, then, unless --no-fetch,
fetches the answer's LOCATION URL over TCP (--timeout for the connection
and the answer).  It prints one line: "ok answer from ADDR location URL
fetched N bytes" (or without the fetch), "blocked: no answer",
"blocked: LOCATION URL not reachable", or "error: ..." and exits 0 when
everything asked for got through, 1 when blocked (timeout), 2 on a
protocol error (an answer without LOCATION, an HTTP error).
"""
import argparse
import http.server
import select
import socket
import struct
import sys
import threading
import time
import urllib.request

SSDP_PORT = 1900


def family_of(group):
    return socket.AF_INET6 if ":" in group else socket.AF_INET


def join(sock, group):
    """Join group on every interface the kernel picks (index 0 / any)."""
    if family_of(group) == socket.AF_INET6:
        mreq = socket.inet_pton(socket.AF_INET6, group) + struct.pack("@I", 0)
        sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_JOIN_GROUP, mreq)
    else:
        mreq = socket.inet_aton(group) + socket.inet_aton("0.0.0.0")
        sock.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, mreq)


def host_port(addr, port):
    return "[%s]:%d" % (addr, port) if ":" in addr else "%s:%d" % (addr, port)


def local_addr_towards(family, peer):
    """The source address the kernel picks to reach peer (a recvfrom()
    address: IPv6 keeps its scope for a link-local querier)."""
    s = socket.socket(family, socket.SOCK_DGRAM)
    try:
        s.connect((peer[0], SSDP_PORT) + tuple(peer[2:]))
        return s.getsockname()[0].split("%")[0]
    finally:
        s.close()


# ---------------------------------------------------------------- serve

class Describe(http.server.BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 (http.server's name)
        body = b"<?xml version=\"1.0\"?><root><device><friendlyName>cthelperd test" \
               b"</friendlyName></device></root>\n"
        print("http GET %s from %s" % (self.path, self.client_address[0]), flush=True)
        self.send_response(200)
        self.send_header("Content-Type", "text/xml")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, fmt, *args):
        pass


def http_server(family, port):
    class Server(http.server.ThreadingHTTPServer):
        address_family = family
        allow_reuse_address = True
    srv = Server(("::" if family == socket.AF_INET6 else "0.0.0.0", port), Describe)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv


def serve(a):
    fam = family_of(a.group)
    sock = socket.socket(fam, socket.SOCK_DGRAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if fam == socket.AF_INET6:
        sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
    sock.bind(("::" if fam == socket.AF_INET6 else "0.0.0.0", SSDP_PORT))
    join(sock, a.group)
    http_server(fam, a.http_port)
    print("ready", flush=True)
    end = time.monotonic() + a.timeout if a.timeout else None
    while end is None or time.monotonic() < end:
        left = None if end is None else max(0.0, end - time.monotonic())
        r, _, _ = select.select([sock], [], [], left)
        if not r:
            continue
        data, peer = sock.recvfrom(4096)
        first = data.split(b"\n", 1)[0].strip().upper()
        if not first.startswith(b"M-SEARCH "):
            continue
        if a.location:
            loc = a.location
        else:
            own = a.addr or local_addr_towards(fam, peer)
            loc = host_port(own, a.http_port)
        answer = ("HTTP/1.1 200 OK\r\nCACHE-CONTROL: max-age=1800\r\nEXT:\r\n"
                  "LOCATION: http://%s/description.xml\r\nSERVER: Linux/6 UPnP/2.0 "
                  "cthelperd-test/1\r\nST: upnp:rootdevice\r\n"
                  "USN: uuid:cthelperd-test::upnp:rootdevice\r\n\r\n" % loc)
        sock.sendto(answer.encode(), peer[:2] if fam == socket.AF_INET else peer)
        print("answered %s %d" % (peer[0], peer[1]), flush=True)
    return 0


# ---------------------------------------------------------------- try

def header(text, name):
    """A header's value, name in any case, any spacing; None when absent."""
    for line in text.split("\n")[1:]:
        line = line.rstrip("\r")
        if not line:
            break
        key, sep, value = line.partition(":")
        if sep and key.strip().lower() == name.lower():
            return value.strip()
    return None


def try_(a):
    fam = family_of(a.group)
    sock = socket.socket(fam, socket.SOCK_DGRAM)
    sock.bind((a.bind or ("::" if fam == socket.AF_INET6 else "0.0.0.0"), 0))
    host = "[%s]" % a.group if fam == socket.AF_INET6 else a.group
    query = ("M-SEARCH * HTTP/1.1\r\nHOST: %s:%d\r\nMAN: \"ssdp:discover\"\r\n"
             "MX: 1\r\nST: ssdp:all\r\n\r\n" % (host, SSDP_PORT)).encode()
    sock.sendto(query, (a.group, SSDP_PORT))
    end = time.monotonic() + a.timeout
    while True:
        left = end - time.monotonic()
        r, _, _ = select.select([sock], [], [], max(0.0, left))
        if not r:
            print("blocked: no answer")
            return 1
        data, peer = sock.recvfrom(4096)
        text = data.decode("latin-1")
        if text.upper().startswith("HTTP/1."):
            break
    loc = header(text, "LOCATION")
    if loc is None:
        print("error: answer from %s without LOCATION" % peer[0])
        return 2
    if a.no_fetch:
        print("ok answer from %s location %s" % (peer[0], loc))
        return 0
    try:
        with urllib.request.urlopen(loc, timeout=a.timeout) as resp:
            body = resp.read()
    except urllib.error.HTTPError as e:
        print("error: LOCATION %s answered %d" % (loc, e.code))
        return 2
    except (OSError, ValueError) as e:
        print("blocked: LOCATION %s not reachable (%s)" % (loc, e))
        return 1
    print("ok answer from %s location %s fetched %d bytes" % (peer[0], loc, len(body)))
    return 0


def main():
    p = argparse.ArgumentParser(description="SSDP test device and control point")
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("serve")
    s.add_argument("--group", default="239.255.255.250")
    s.add_argument("--addr", help="the address LOCATION names (default: the answer's source)")
    s.add_argument("--location", help="ADDR:PORT for LOCATION instead ([v6]:port)")
    s.add_argument("--http-port", type=int, default=49152)
    s.add_argument("--timeout", type=float, default=0, help="exit after S seconds (0: never)")
    t = sub.add_parser("try")
    t.add_argument("--group", default="239.255.255.250")
    t.add_argument("--bind", help="source address of the M-SEARCH")
    t.add_argument("--no-fetch", action="store_true")
    t.add_argument("--timeout", type=float, default=3)
    a = p.parse_args()
    return serve(a) if a.cmd == "serve" else try_(a)


if __name__ == "__main__":
    sys.exit(main())
