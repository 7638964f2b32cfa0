# SPDX-License-Identifier: MIT
"""Bytes on the wire, for the generators of test inputs (python3 stdlib
only): the fuzz seeds (tests/fuzz/mkseeds*.py) build their packets and
payloads here, so that a TNS header or an RPC reply is written in one
place; tests/replay/checkcases.py checks captures with csum().  (The
replay captures are descriptions for cthelper-mkpcap, sdk/tools/.)

  packets   csum(), ip(), tcp(), udp(): IPv4/IPv6 packets with correct
            lengths and IP/TCP/UDP checksums (IPv6 extension headers too)
  SIP       sipmsg(), sdp()
  TNS       tns_packet(), tns_redirect(), tns_data(), tns_desc()
  SunRPC    u32(), xdr_bytes(), rpc_call(), getport(), getaddr(),
            rpc_reply(), port_reply(), uaddr_reply(), denied(), record()
  TFTP      tftp_request(), tftp_data(), tftp_ack(), tftp_error(),
            tftp_oack()

Addresses are bytes (4 or 16); a 16-byte source makes an IPv6 packet.
"""
import ipaddress
import struct

TCP, UDP = 6, 17

# TCP flags
FIN, SYN, RST, PSH, ACK = 0x01, 0x02, 0x04, 0x08, 0x10


# ------------------------------------------------------------ packets

def addr(text):
    """b'...' of an IPv4 or IPv6 address in text form."""
    return ipaddress.ip_address(text).packed


def csum(data, s=0):
    """The ones' complement sum of data (not inverted), folded to 16 bits."""
    if len(data) % 2:
        data += b"\0"
    for i in range(0, len(data), 2):
        s += data[i] << 8 | data[i + 1]
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s


def tcp(sport, dport, seq, ack, flags, win, payload=b"", opts=b""):
    """A TCP header (checksum left 0: ip() fills it) and its payload;
    opts must be padded to a multiple of 4 bytes."""
    doff = (20 + len(opts)) // 4
    return struct.pack("!HHIIBBHHH", sport, dport, seq & 0xFFFFFFFF, ack & 0xFFFFFFFF,
                       doff << 4, flags, win, 0, 0) + opts + payload


def udp(sport, dport, payload=b""):
    """A UDP header (checksum left 0: ip() fills it) and its payload."""
    return struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload


def ip(src, dst, proto, l4, ext=b"", ext_first=0, ident=0x1234, ttl=64, df=True):
    """An IPv4 or IPv6 packet around the TCP or UDP bytes l4, its
    transport checksum computed (a UDP sum of 0 is sent as 0xffff).  IPv6:
    ext are extension headers between the fixed header and l4, ext_first
    the type of the first of them."""
    v6 = len(src) == 16
    co = 16 if proto == TCP else 6
    pseudo = src + dst + (struct.pack("!IxxxB", len(l4), proto) if v6 else
                          struct.pack("!xBH", proto, len(l4)))
    c = (~csum(pseudo + l4)) & 0xFFFF
    if proto == UDP and c == 0:
        c = 0xFFFF
    l4 = l4[:co] + struct.pack("!H", c) + l4[co + 2:]
    if v6:
        nh = ext_first if ext else proto
        return struct.pack("!IHBB", 0x60000000, len(ext) + len(l4), nh, ttl) + src + dst + ext + l4
    hdr = struct.pack("!BBHHHBBH", 0x45, 0, 20 + len(l4), ident & 0xFFFF,
                      0x4000 if df else 0, ttl, proto, 0) + src + dst
    hc = (~csum(hdr)) & 0xFFFF
    return hdr[:10] + struct.pack("!H", hc) + hdr[12:] + l4


# ------------------------------------------------------------ SIP

def sipmsg(hdrs, body=""):
    """A SIP message: header lines (each ending in CRLF), Content-Length,
    the empty line, the body."""
    return ("%sContent-Length: %d\r\n\r\n%s" % (hdrs, len(body), body)).encode()


def sdp(addr, media="m=audio 49170 RTP/AVP 0\r\n", ip="IP4", version=1):
    """An SDP body whose o= and session c= name addr."""
    return ("v=0\r\no=- 1 %d IN %s %s\r\ns=-\r\nc=IN %s %s\r\nt=0 0\r\n%s" %
            (version, ip, addr, ip, addr, media))


# ------------------------------------------------------------ TNS

TNS_CONNECT, TNS_ACCEPT, TNS_REFUSE, TNS_REDIRECT, TNS_DATA = 1, 2, 4, 5, 6
TNS_RESEND, TNS_MARKER = 11, 12


def tns_packet(ptype, body, wide=False, csum=False):
    """A TNS packet: the 8-byte header (2-byte length and packet checksum,
    or with wide a 4-byte length; type; flags 4; header checksum), then
    body.  csum writes non-zero checksums (nobody checks them)."""
    n = 8 + len(body)
    if wide:
        head = struct.pack("!I", n)
    else:
        head = struct.pack("!HH", n, 0xBEEF if csum else 0)
    return head + bytes([ptype, 4]) + struct.pack("!H", 0xCAFE if csum else 0) + body


def tns_redirect(desc, **kw):
    """A REDIRECT: data length, then the descriptor (text)."""
    d = desc.encode()
    return tns_packet(TNS_REDIRECT, struct.pack("!H", len(d)) + d, **kw)


def tns_data(desc, **kw):
    """A DATA packet: data flags 0, then desc (text)."""
    return tns_packet(TNS_DATA, b"\0\0" + desc.encode(), **kw)


def tns_desc(host, port, extra="(CONNECT_DATA=(SERVER=dedicated)(CID=(HOST=cl)(USER=u)))"):
    """A connect descriptor naming one TCP address."""
    return "(DESCRIPTION=(ADDRESS=(PROTOCOL=tcp)(HOST=%s)(PORT=%d))%s)" % (host, port, extra)


# ------------------------------------------------------------ SunRPC

PMAP_PROG = 100000
AUTH_UNIX_HOST = b"\0\0\0\1\0\0\0\4host\0\0\0\0\0\0\0\0\0\0\0\0"


def u32(v):
    return struct.pack("!I", v & 0xFFFFFFFF)


def xdr_bytes(b):
    """Variable-length opaque (or string): length, bytes, zero padding."""
    return u32(len(b)) + b + b"\0" * (-len(b) % 4)


def auth(flavour=0, body=b""):
    return u32(flavour) + xdr_bytes(body)


def rpc_call(xid, prog, vers, proc, args=b"", cred=None):
    """A CALL (RFC 5531); cred: an opaque_auth, AUTH_NONE by default."""
    return (u32(xid) + u32(0) + u32(2) + u32(prog) + u32(vers) + u32(proc) +
            (cred if cred is not None else auth()) + auth() + args)


def call_head(xid, vers, proc):
    """A portmapper/rpcbind CALL up to its arguments (AUTH_UNIX)."""
    return rpc_call(xid, PMAP_PROG, vers, proc, cred=auth(1, AUTH_UNIX_HOST))


def getport(xid, prog, prot, vers=3):
    """Portmapper v2 GETPORT of prog version vers over prot (6 or 17)."""
    return call_head(xid, 2, 3) + u32(prog) + u32(vers) + u32(prot) + u32(0)


def getaddr(xid, netid, vers=4, proc=3, prog=100003, pvers=3):
    """rpcbind GETADDR (vers 3 or 4; proc 9 = v4 GETVERSADDR) of prog
    version pvers over netid."""
    return (call_head(xid, vers, proc) + u32(prog) + u32(pvers) + xdr_bytes(netid.encode()) +
            xdr_bytes(b"") + xdr_bytes(b"superuser"))


def rpc_reply(xid, accept_stat=0):
    """An accepted REPLY up to its results."""
    return u32(xid) + u32(1) + u32(0) + auth() + u32(accept_stat)


def port_reply(xid, port):
    return rpc_reply(xid) + u32(port)


def uaddr_reply(xid, uaddr):
    return rpc_reply(xid) + xdr_bytes(uaddr.encode())


def denied(xid):
    """MSG_DENIED, AUTH_ERROR, AUTH_BADCRED."""
    return u32(xid) + u32(1) + u32(1) + u32(1) + u32(1)


def record(msg, nfrag=1):
    """A TCP record: msg in nfrag fragments, each behind its 4-byte mark."""
    out, off = b"", 0
    each = len(msg) // nfrag if nfrag > 1 else len(msg)
    for i in range(nfrag):
        last = i + 1 == nfrag
        part = msg[off:] if last else msg[off:off + each]
        out += u32(len(part) | (0x80000000 if last else 0)) + part
        off += len(part)
    return out


# ------------------------------------------------------------ TFTP

TFTP_RRQ, TFTP_WRQ, TFTP_DATA, TFTP_ACK, TFTP_ERROR, TFTP_OACK = range(1, 7)


def _tftp_strings(*items):
    return b"".join((i if isinstance(i, bytes) else i.encode()) + b"\0" for i in items)


def tftp_request(op, filename, mode="octet", options=()):
    """An RRQ (1) or WRQ (2): opcode, filename, mode, then the RFC 2347
    options, (name, value) pairs."""
    return struct.pack("!H", op) + _tftp_strings(filename, mode,
                                                 *[x for kv in options for x in kv])


def tftp_data(block, data):
    return struct.pack("!HH", TFTP_DATA, block & 0xFFFF) + data


def tftp_ack(block):
    return struct.pack("!HH", TFTP_ACK, block & 0xFFFF)


def tftp_error(code, message):
    return struct.pack("!HH", TFTP_ERROR, code) + _tftp_strings(message)


def tftp_oack(options):
    return struct.pack("!H", TFTP_OACK) + _tftp_strings(*[x for kv in options for x in kv])
