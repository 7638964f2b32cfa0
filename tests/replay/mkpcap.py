#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write the capture cases of the replay tool (build/cthelper-replay).

    tests/replay/mkpcap.py                # rewrites its cases' .pcap and .args in tests/replay/cases/
    tests/replay/mkpcap.py --out DIR      # somewhere else (DIR/<plugin>/<case>.*)
    tests/replay/mkpcap.py --list         # plugin/case, args, what it shows
    tests/replay/mkpcap.py --tables       # the same as README.md's tables
    tests/replay/mkpcap.py ftp/port ...   # only these cases

Each case is a small session of one plugin's protocol, written as a
classic pcap file (LINKTYPE_RAW: IPv4/IPv6 packets without a link layer)
with fixed timestamps, ports and initial sequence numbers, so that the
files are the same on every run.  Beside it, <case>.args holds the replay
options for it on one line (tests/replay/run.sh replays it against
<case>.expect).  tests/replay/README.md lists the cases; other captures
in cases/ (real sessions) are not this script's.

The packets have correct lengths and IP, TCP and UDP checksums; TCP
connections start with a three-way handshake (MSS, SACK-permitted and
window scale options), keep their sequence and acknowledgement numbers
consistent and end with FIN both ways.

Addresses are those of the VM topology (tests/lib/topo.sh): client
10.0.1.2 / fd00:1::2, server 10.0.2.2 / fd00:2::2, the router 10.0.1.1 |
10.0.2.1 and fd00:1::1 | fd00:2::1.  A routed case is what both ends
sent; replaying it with --snat/--dnat simulates NAT.  A NAT case
("-snat", "-dnat") is the helper's view of a NATed session: every packet
as it reached the router, before NAT and before the helper's rewrite
(the client's packets as the client sent them, the server's as the
server sent them, towards the NATed address it knows), so the server's
messages carry what the helper had rewritten on the way in; its .args
give the router's mapping (MASQUERADE to 10.0.2.1, or DNAT of the
router's 10.0.1.1 to 10.0.2.2).  Where the helper's rewrite changes a
length, the receiver's acknowledgements count the bytes it received, as
after the kernel's sequence adjustment.
"""
import ipaddress
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))

import tns as tnslib  # noqa: E402  tests/lib/tns.py: CONNECT body, descriptors
import wire  # noqa: E402
from wire import ACK, FIN, PSH, SYN, TCP, UDP  # noqa: E402

LINKTYPE_RAW = 101
T0 = 1733011200          # 2024-12-01 00:00:00 UTC: the first packet's second
PKT_GAP = 200            # us between packets sent back to back

C4, S4, RC4, RS4 = "10.0.1.2", "10.0.2.2", "10.0.1.1", "10.0.2.1"
C6, S6, RS6 = "fd00:1::2", "fd00:2::2", "fd00:2::1"


class Capture:
    """Packets with their times, written as one classic pcap file."""

    def __init__(self):
        self.frames = []
        self.now = 0                 # us after T0
        self.ident = {}              # IPv4 identification, per source
        self.conns = 0
        self.start = 0               # frames before it are not written

    def pickup(self):
        """The capture starts here: what a failover peer sees of the
        connections already open (tests/replay/checkcases.py lets a case
        named failover-* start mid-stream)."""
        self.start = len(self.frames)

    def wait(self, seconds):
        self.now += int(round(seconds * 1e6))

    def emit(self, src, dst, proto, l4):
        self.now += PKT_GAP
        ident = self.ident.get(src, 0x1000 + 0x111 * src[-1])
        self.ident[src] = ident + 1
        self.frames.append((self.now, wire.ip(src, dst, proto, l4, ident=ident)))

    def isn(self):
        """Initial sequence numbers for the next connection: fixed, and
        different for every connection of the capture."""
        self.conns += 1
        return (0x1A2B0000 + 0x01000000 * self.conns) & 0xFFFFFFFF, \
               (0x5C4D0000 + 0x03000000 * self.conns) & 0xFFFFFFFF

    def pcap(self):
        out = [struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, LINKTYPE_RAW)]
        for t, p in self.frames[self.start:]:
            out.append(struct.pack("<IIII", T0 + t // 1000000, t % 1000000, len(p), len(p)) + p)
        return b"".join(out)


def other(side):
    return "s" if side == "c" else "c"


class Flow:
    """One connection: 'c' its initiator, 's' the responder, each
    (address text, port).  c_dst: where the initiator's packets go (what
    it dials: the router's address under DNAT), s_dst: where the
    responder's go (the initiator as it sees it: the router's address
    under SNAT); by default each other."""

    def __init__(self, cap, c, s, c_dst=None, s_dst=None):
        self.cap = cap
        self.src = {"c": wire.addr(c[0]), "s": wire.addr(s[0])}
        self.sport = {"c": c[1], "s": s[1]}
        cd, sd = c_dst or s, s_dst or c
        self.dst = {"c": wire.addr(cd[0]), "s": wire.addr(sd[0])}
        self.dport = {"c": cd[1], "s": sd[1]}
        self.v6 = len(self.src["c"]) == 16

    def emit(self, side, proto, l4):
        self.cap.emit(self.src[side], self.dst[side], proto, l4)


class Udp(Flow):
    def send(self, side, payload):
        self.emit(side, UDP, wire.udp(self.sport[side], self.dport[side], payload))


class Tcp(Flow):
    """A TCP connection with consistent numbers.  Each side's sequence
    numbers are its own; got[x] is how much of x's stream the peer has
    (SYN and FIN count one), delta[x] how much longer the helper made what
    the peer received of it, so the peer acknowledges isn + got + delta."""

    WIN_SYN = {"c": 64240, "s": 65160}
    WIN = {"c": 502, "s": 509}      # scaled by 2^7

    def __init__(self, cap, c, s, c_dst=None, s_dst=None, isn=None, mss=None):
        super().__init__(cap, c, s, c_dst, s_dst)
        i = isn or cap.isn()
        self.isn = {"c": i[0], "s": i[1]}
        self.sent = {"c": 0, "s": 0}
        self.got = {"c": 0, "s": 0}
        self.delta = {"c": 0, "s": 0}
        base = 1440 if self.v6 else 1460
        # mss: what the initiator announces; each side sends at most
        # what the other announced
        self.mss_opt = {"c": mss or base, "s": base}
        self.mss = {"c": self.mss_opt["s"], "s": self.mss_opt["c"]}

    def seq(self, side, off=None):
        return self.isn[side] + (self.sent[side] if off is None else off)

    def ack_no(self, side):
        peer = other(side)
        return self.isn[peer] + self.got[peer] + self.delta[peer]

    def segment(self, side, flags, payload=b"", off=None, opts=b""):
        ack = self.ack_no(side) if flags & ACK else 0
        win = self.WIN_SYN[side] if flags & SYN else self.WIN[side]
        self.emit(side, TCP, wire.tcp(self.sport[side], self.dport[side], self.seq(side, off),
                                      ack, flags, win, payload, opts))

    def syn_opts(self, side):
        """MSS, SACK permitted, window scale 7, as Linux without timestamps."""
        return struct.pack("!BBH", 2, 4, self.mss_opt[side]) + bytes([1, 1, 4, 2, 1, 3, 3, 7])

    def open(self):
        """SYN, SYN-ACK, ACK."""
        for side, flags in (("c", SYN), ("s", SYN | ACK)):
            self.segment(side, flags, opts=self.syn_opts(side))
            self.sent[side] = self.got[side] = 1
        self.segment("c", ACK)

    def syn_unanswered(self, tries=2):
        """A SYN nobody answers (a firewall drops it), sent tries times
        1 s, 2 s, ... apart, as Linux retries."""
        for i in range(tries):
            if i:
                self.cap.wait(2 ** (i - 1))
            self.segment("c", SYN, opts=self.syn_opts("c"))

    def send(self, side, data, deliver=True, delta=0, off=None):
        """data from side, cut at the peer's MSS.  deliver=False: the
        peer never gets it (the helper dropped it).  delta: the helper
        rewrote it that much longer.  off: a retransmission of the bytes
        at that stream offset (the peer gets what it had not)."""
        start = self.sent[side] if off is None else off
        for i in range(0, len(data), self.mss[side]):
            part = data[i:i + self.mss[side]]
            last = i + len(part) == len(data)
            self.segment(side, ACK | (PSH if last else 0), part, start + i)
        end = start + len(data)
        if off is None:
            self.sent[side] = end
        if deliver and start <= self.got[side] < end:
            self.got[side] = end
            self.delta[side] += delta
        return start

    def ack(self, side):
        self.segment(side, ACK)

    def fin(self, side):
        self.segment(side, FIN | ACK)
        self.sent[side] += 1
        self.got[side] += 1

    def close(self, side="c"):
        """side closes first, the peer closes too, side acknowledges."""
        self.fin(side)
        self.cap.wait(0.0005)
        self.fin(other(side))
        self.ack(side)

    def talk(self, side, data, delta=0, think=0.0):
        """side sends data after think seconds, the peer acknowledges."""
        self.cap.wait(think)
        self.send(side, data, delta=delta)
        self.ack(other(side))


CASES = []


def case(plugin, name, args, what):
    def register(fn):
        CASES.append((plugin, name, args, what, fn))
        return fn
    return register


# ============================================================== FTP

WELCOME = [(b"USER anonymous\r\n", b"331 Please specify the password.\r\n"),
           (b"PASS guest@example.org\r\n", b"230 Login successful.\r\n"),
           (b"TYPE I\r\n", b"200 Switching to Binary mode.\r\n")]
FILE = b"hello, world\n" * 3
LISTING = b"-rw-r--r--    1 0        0              39 Dec 01 00:00 hello.txt\r\n"


def ftp_say(t, cmd, reply, think=0.05, cdelta=0, sdelta=0):
    """A command and its reply, the reply acknowledged."""
    t.cap.wait(think)
    t.send("c", cmd, delta=cdelta)
    t.cap.wait(0.0003)
    t.send("s", reply, delta=sdelta)
    t.ack("c")


def ftp_control(cap, client=(C4, 40000), server=(S4, 21), c_dst=None, s_dst=None,
                login=WELCOME, isn=None):
    t = Tcp(cap, client, server, c_dst, s_dst, isn=isn)
    t.open()
    t.cap.wait(0.002)
    t.send("s", b"220 (vsFTPd 3.0.3)\r\n")
    t.ack("c")
    for cmd, reply in login:
        ftp_say(t, cmd, reply)
    return t


def ftp_data(cap, srv, client, c_dst=None):
    """An active-mode data connection: the server connects from srv (port
    20) to the client (c_dst: where it sends, under SNAT), sends the file
    and closes."""
    d = Tcp(cap, srv, client, c_dst)
    d.open()
    d.send("c", FILE)
    d.ack("s")
    d.close("c")


def ftp_active(t, cmd, dport, ack=b"200 PORT command successful. Consider using PASV.\r\n",
               to=None, to_dst=None, verb=b"RETR hello.txt\r\n", cdelta=0):
    """cmd announces the client's dport; the server connects from port 20
    to it (to: the client's real address and port, to_dst: where the
    server sends it); a RETR transfer."""
    ftp_say(t, cmd, ack, cdelta=cdelta)
    t.cap.wait(0.05)
    t.send("c", verb)
    t.cap.wait(0.001)
    srv = (addr_text(t.src["s"]), 20)
    client = to or (addr_text(t.src["c"]), dport)
    ftp_data(t.cap, srv, client, c_dst=to_dst)
    t.send("s", b"150 Opening BINARY mode data connection for hello.txt (%d bytes).\r\n"
           % len(FILE))
    t.ack("c")
    t.send("s", b"226 Transfer complete.\r\n")
    t.ack("c")


def ftp_passive(t, cmd, reply, port, verb=b"RETR hello.txt\r\n", cport=40100, dial=None,
                sdelta=0):
    """cmd asks for passive mode, reply announces the server's port; the
    client connects there (dial: where it sends, under DNAT) and the
    server sends a file."""
    ftp_say(t, cmd, reply, sdelta=sdelta)
    t.cap.wait(0.05)
    t.send("c", verb)
    client = (addr_text(t.src["c"]), cport)
    srv = (addr_text(t.src["s"]), port)
    d = Tcp(t.cap, client, srv, c_dst=dial)
    d.open()
    t.send("s", b"150 Here comes the directory listing.\r\n" if verb.startswith(b"LIST") else
           b"150 Opening BINARY mode data connection for hello.txt (%d bytes).\r\n" % len(FILE))
    t.ack("c")
    d.send("s", LISTING if verb.startswith(b"LIST") else FILE)
    d.ack("c")
    d.close("s")
    t.send("s", b"226 Transfer complete.\r\n" if verb.startswith(b"RETR") else
           b"226 Directory send OK.\r\n")
    t.ack("c")


def ftp_quit(t):
    ftp_say(t, b"QUIT\r\n", b"221 Goodbye.\r\n")
    t.close("s")


def addr_text(a):
    """The text form of an address in bytes."""
    return str(ipaddress.ip_address(a))


def port_arg(addr, port):
    return addr.replace(".", ",").encode() + b",%d,%d" % (port >> 8, port & 255)


@case("ftp", "port", "-p 21",
      "active mode: PORT 10,0,1,2,156,65 (port 40001), the server's data connection from "
      "port 20 to the client is RELATED")
def ftp_port(cap):
    t = ftp_control(cap)
    ftp_active(t, b"PORT " + port_arg(C4, 40001) + b"\r\n", 40001)
    ftp_quit(t)


@case("ftp", "pasv", "-p 21",
      "passive mode: 227 Entering Passive Mode (10,0,2,2,195,80) (port 50000), the client's "
      "data connection to it is RELATED")
def ftp_pasv(cap):
    t = ftp_control(cap)
    ftp_passive(t, b"PASV\r\n", b"227 Entering Passive Mode (%s).\r\n" % port_arg(S4, 50000),
                50000)
    ftp_quit(t)


@case("ftp", "eprt", "-p 21",
      "EPRT |1|10.0.1.2|40001| (RFC 2428, IPv4), the server's data connection is RELATED")
def ftp_eprt(cap):
    t = ftp_control(cap)
    ftp_active(t, b"EPRT |1|10.0.1.2|40001|\r\n", 40001,
               ack=b"200 EPRT command successful. Consider using EPSV.\r\n")
    ftp_quit(t)


@case("ftp", "epsv", "-p 21",
      "EPSV, 229 Entering Extended Passive Mode (|||50000|): the client's data connection "
      "to the server's own address is RELATED")
def ftp_epsv(cap):
    t = ftp_control(cap)
    ftp_passive(t, b"EPSV\r\n", b"229 Entering Extended Passive Mode (|||50000|)\r\n", 50000)
    ftp_quit(t)


@case("ftp", "port-snat", "-p 21 --snat 10.0.2.1",
      "helper's view under MASQUERADE: PORT 10,0,1,2,156,65 is rewritten to 10,0,2,1,156,65; "
      "the expectation for 10.0.2.1:40001 maps the server's data connection (from port 20, "
      "to 10.0.2.1:40001) back to the client")
def ftp_port_snat(cap):
    t = ftp_control(cap, s_dst=(RS4, 40000))
    ftp_active(t, b"PORT " + port_arg(C4, 40001) + b"\r\n", 40001, to_dst=(RS4, 40001))
    ftp_quit(t)


@case("ftp", "pasv-dnat", "-p 21 --dnat 10.0.2.2",
      "helper's view behind DNAT (the client dials 10.0.1.1): the server's 227 "
      "(10,0,2,2,195,80) is rewritten to (10,0,1,1,195,80); the client's data connection "
      "to 10.0.1.1:50000 is RELATED and goes to the server")
def ftp_pasv_dnat(cap):
    t = ftp_control(cap, c_dst=(RC4, 21))
    ftp_passive(t, b"PASV\r\n", b"227 Entering Passive Mode (%s).\r\n" % port_arg(S4, 50000),
                50000, dial=(RC4, 50000))
    ftp_quit(t)


@case("ftp", "v6-eprt", "-p 21",
      "IPv6: EPRT |2|fd00:1::2|40001|, the server's data connection is RELATED")
def ftp_v6_eprt(cap):
    t = ftp_control(cap, (C6, 40000), (S6, 21))
    ftp_active(t, b"EPRT |2|fd00:1::2|40001|\r\n", 40001,
               ack=b"200 EPRT command successful. Consider using EPSV.\r\n")
    ftp_quit(t)


@case("ftp", "v6-epsv", "-p 21",
      "IPv6: 229 Entering Extended Passive Mode (|||50000|), the client's data connection "
      "to [fd00:2::2]:50000 is RELATED")
def ftp_v6_epsv(cap):
    t = ftp_control(cap, (C6, 40000), (S6, 21))
    ftp_passive(t, b"EPSV\r\n", b"229 Entering Extended Passive Mode (|||50000|)\r\n", 50000)
    ftp_quit(t)


@case("ftp", "v6-eprt-snat", "-p 21 --snat fd00:2::1",
      "helper's view of IPv6 MASQUERADE (fd00:1::2 to fd00:2::1): EPRT |2|fd00:1::2|40001| "
      "is rewritten to |2|fd00:2::1|40001|; the server's data connection to "
      "[fd00:2::1]:40001 is RELATED and mapped back to the client")
def ftp_v6_eprt_snat(cap):
    t = ftp_control(cap, (C6, 40000), (S6, 21), s_dst=(RS6, 40000))
    ftp_active(t, b"EPRT |2|fd00:1::2|40001|\r\n", 40001,
               ack=b"200 EPRT command successful. Consider using EPSV.\r\n",
               to_dst=(RS6, 40001))
    ftp_quit(t)


@case("ftp", "port-split", "-p 21",
      "a PORT split over two segments ('PORT 10,0,1,2,' and '156,65\\r\\n'): the first is "
      "dropped as a partial command, the second is not at a line start and passes, the "
      "server's duplicate ACK makes the client retransmit the whole line at the first "
      "segment's sequence number, which is parsed; the data connection is RELATED")
def ftp_port_split(cap):
    t = ftp_control(cap)
    line = b"PORT " + port_arg(C4, 40001) + b"\r\n"
    cap.wait(0.05)
    start = t.send("c", line[:14], deliver=False)
    t.send("c", line[14:], deliver=False)
    # the duplicate ACK: the first part never came, the second is SACKed
    t.segment("s", ACK, opts=bytes([1, 1, 5, 10]) +
              struct.pack("!II", t.seq("c", start + 14), t.seq("c", start + len(line))))
    cap.wait(0.2)
    t.send("c", line, off=start)    # Linux retransmits the line in one segment
    t.send("s", b"200 PORT command successful. Consider using PASV.\r\n")
    t.ack("c")
    cap.wait(0.05)
    t.send("c", b"RETR hello.txt\r\n")
    ftp_data(cap, (S4, 20), (C4, 40001))
    t.send("s", b"150 Opening BINARY mode data connection for hello.txt (%d bytes).\r\n"
           % len(FILE))
    t.ack("c")
    t.send("s", b"226 Transfer complete.\r\n")
    t.ack("c")
    ftp_quit(t)


@case("ftp", "mixed-case", "-p 21",
      "command words in other cases: 'port ...' (active, port 40001), 'Eprt |1|...|40002|' "
      "(active) and 'Pasv' answered by a 227 (passive, port 50001): three RELATED data "
      "connections")
def ftp_mixed_case(cap):
    t = ftp_control(cap, login=[(b"user anonymous\r\n", WELCOME[0][1]),
                                (b"pass guest@example.org\r\n", WELCOME[1][1]),
                                (b"type i\r\n", WELCOME[2][1])])
    ftp_active(t, b"port " + port_arg(C4, 40001) + b"\r\n", 40001, verb=b"retr hello.txt\r\n")
    ftp_active(t, b"Eprt |1|10.0.1.2|40002|\r\n", 40002, verb=b"Retr hello.txt\r\n",
               ack=b"200 EPRT command successful. Consider using EPSV.\r\n")
    ftp_passive(t, b"Pasv\r\n", b"227 Entering Passive Mode (%s).\r\n" % port_arg(S4, 50001),
                50001, verb=b"Retr hello.txt\r\n", cport=40101)
    ftp_quit(t)


@case("ftp", "port-retrans-snat", "-p 21 --snat 10.0.2.1",
      "helper's view under MASQUERADE: the PORT segment is lost behind the router and the "
      "client retransmits it (same sequence number) 0.2 s later; both copies get the same "
      "rewrite to 10,0,2,1,156,65 and the same expectation; one RELATED data connection")
def ftp_port_retrans_snat(cap):
    t = ftp_control(cap, s_dst=(RS4, 40000))
    line = b"PORT " + port_arg(C4, 40001) + b"\r\n"
    cap.wait(0.05)
    start = t.send("c", line, deliver=False)
    cap.wait(0.21)
    t.send("c", line, off=start)
    t.send("s", b"200 PORT command successful. Consider using PASV.\r\n")
    t.ack("c")
    cap.wait(0.05)
    t.send("c", b"RETR hello.txt\r\n")
    ftp_data(cap, (S4, 20), (C4, 40001), c_dst=(RS4, 40001))
    t.send("s", b"150 Opening BINARY mode data connection for hello.txt (%d bytes).\r\n"
           % len(FILE))
    t.ack("c")
    t.send("s", b"226 Transfer complete.\r\n")
    t.ack("c")
    ftp_quit(t)


FEAT = (b"211-Features:\r\n EPRT\r\n EPSV\r\n MDTM\r\n PASV\r\n REST STREAM\r\n SIZE\r\n"
        b" TVFS\r\n UTF8\r\n211 End\r\n")


@case("ftp", "pasv-multiline", "-p 21",
      "multi-line 2xx replies before the 227: a three-line 230 banner and the FEAT "
      "answer, each in one segment; the 227 in the next segment is at a line start and "
      "parsed; the data connection is RELATED")
def ftp_pasv_multiline(cap):
    t = ftp_control(cap, login=[
        WELCOME[0],
        (WELCOME[1][0], b"230-Welcome to the example.org archive.\r\n"
                        b"230-All transfers are logged.\r\n230 Login successful.\r\n"),
        (b"FEAT\r\n", FEAT),
        WELCOME[2]])
    ftp_passive(t, b"PASV\r\n", b"227 Entering Passive Mode (%s).\r\n" % port_arg(S4, 50000),
                50000)
    ftp_quit(t)


@case("ftp", "garbage", "-p 21",
      "garbage on the control connection: a 2000-byte line in two segments (the second is "
      "not at a line start), binary bytes, a Telnet IP/DM sequence without a line end "
      "before ABOR, and 500 replies; the PORT after them is parsed and its data "
      "connection is RELATED")
def ftp_garbage(cap):
    t = ftp_control(cap)
    ftp_say(t, b"SITE " + b"A" * 1993 + b"\r\n", b"500 Input line too long.\r\n")
    ftp_say(t, bytes(range(0x80, 0xA0)) + b"\r\n", b"500 Unknown command.\r\n")
    cap.wait(0.05)
    t.send("c", b"\xff\xf4\xff\xf2")           # Telnet IAC IP IAC DM, no line end
    t.send("c", b"ABOR\r\n")
    t.send("s", b"225 No transfer to ABOR.\r\n")
    t.ack("c")
    ftp_active(t, b"PORT " + port_arg(C4, 40001) + b"\r\n", 40001)
    ftp_quit(t)


@case("ftp", "two-transfers", "-p 21",
      "two passive transfers in one session (LIST on port 50000, RETR on port 50001), with "
      "both sides' sequence numbers wrapping past 2^32 during the session: two RELATED "
      "data connections")
def ftp_two_transfers(cap):
    t = ftp_control(cap, isn=(0xFFFFFFA0, 0xFFFFFF00))
    ftp_passive(t, b"PASV\r\n", b"227 Entering Passive Mode (%s).\r\n" % port_arg(S4, 50000),
                50000, verb=b"LIST\r\n")
    ftp_passive(t, b"PASV\r\n", b"227 Entering Passive Mode (%s).\r\n" % port_arg(S4, 50001),
                50001, cport=40101)
    ftp_quit(t)


@case("ftp", "port-loose", "-p 21 -o loose=yes",
      "PORT naming another host of the client's network (10.0.1.3, as FXP does), with "
      "loose=yes: the expectation goes to 10.0.1.3:40001 and the server's data connection "
      "there is RELATED")
def ftp_port_loose(cap):
    t = ftp_control(cap)
    ftp_active(t, b"PORT " + port_arg("10.0.1.3", 40001) + b"\r\n", 40001,
               to=("10.0.1.3", 40001))
    ftp_quit(t)


@case("ftp", "port-foreign", "-p 21 -o loose=no",
      "the same PORT to 10.0.1.3 without loose: nothing is expected, the server's SYNs to "
      "10.0.1.3:40001 go unanswered (a NEW connection the firewall drops) and the server "
      "answers 425")
def ftp_port_foreign(cap):
    t = ftp_control(cap)
    ftp_say(t, b"PORT " + port_arg("10.0.1.3", 40001) + b"\r\n",
            b"200 PORT command successful. Consider using PASV.\r\n")
    cap.wait(0.05)
    t.send("c", b"RETR hello.txt\r\n")
    Tcp(cap, (S4, 20), ("10.0.1.3", 40001)).syn_unanswered(3)
    t.send("s", b"425 Failed to establish connection.\r\n")
    t.ack("c")
    ftp_quit(t)


@case("ftp", "failover-pasv", "-p 21",
      "a failover: the capture starts after the login, as the backup firewall sees a "
      "control connection conntrackd synced without the helper's state; the first PASV's "
      "227 is the first server packet seen and a whole announcement, so it is picked up as "
      "a line start (as the kernel does for an entry conntrackd created) and its data "
      "connection is RELATED; the next 227 is at a known line start and expected too")
def ftp_failover_pasv(cap):
    t = ftp_control(cap)
    cap.wait(1)
    cap.pickup()
    ftp_passive(t, b"PASV\r\n", b"227 Entering Passive Mode (%s).\r\n" % port_arg(S4, 50000),
                50000, verb=b"LIST\r\n", cport=40100)
    ftp_passive(t, b"PASV\r\n", b"227 Entering Passive Mode (%s).\r\n" % port_arg(S4, 50001),
                50001, verb=b"LIST\r\n", cport=40101)
    ftp_quit(t)


# ============================================================== SIP

def rtp(seq, ts, ssrc, marker=False):
    """An RTP packet: PCMU, 20 ms of silence."""
    return struct.pack("!BBHII", 0x80, 0x80 if marker else 0, seq, ts, ssrc) + b"\xff" * 160


def rtcp_sr(ssrc, ts):
    """An RTCP sender report without report blocks."""
    return struct.pack("!BBHIIIIII", 0x80, 200, 6, ssrc, 0xEB3F6A80, 0, ts, 3, 480)


def media(cap, first, second, first_dst=None, second_dst=None, n=3, ssrc=(0x1111AAAA, 0x2222BBBB)):
    """RTP both ways, first sending first (RTP on the ports given, RTCP
    on port + 1), each way n packets 20 ms apart."""
    r = Udp(cap, first, second, first_dst, second_dst)
    for i in range(n):
        r.send("c", rtp(1000 + i, 160 * i, ssrc[0], i == 0))
        r.send("s", rtp(5000 + i, 8000 + 160 * i, ssrc[1], i == 0))
        cap.wait(0.02)

    def plus1(e):
        return e and (e[0], e[1] + 1)
    c = Udp(cap, plus1(first), plus1(second), plus1(first_dst), plus1(second_dst))
    c.send("c", rtcp_sr(ssrc[0], 480))
    c.send("s", rtcp_sr(ssrc[1], 8480))


def audio(port, ip="IP4"):
    return ("m=audio %d RTP/AVP 0 101\r\na=rtpmap:0 PCMU/8000\r\n"
            "a=rtpmap:101 telephone-event/8000\r\na=sendrecv\r\n" % port)


def sip_host(hostport):
    """The host of host:port, without IPv6 brackets."""
    host = hostport.rsplit(":", 1)[0]
    return host[1:-1] if host.startswith("[") else host


class SipCall:
    """A call's messages, each side writing what it knows: a_* as the
    caller writes them, b_* as the callee received them (different under
    NAT: the helper rewrote them on the way).  a_me, b_me: each one's own
    host:port (Via, Contact), a_ruri: whom the caller calls (Request-URI
    and To)."""

    def __init__(self, a_me, a_ruri, b_me, ip="IP4", transport="UDP", call_id="1-2231@10.0.1.2",
                 a_user="alice", b_user="bob", a_port=30000, b_port=40000):
        ahost = a_me.rsplit(":", 1)[0]
        # as the caller writes them
        self.a_via = a_me
        self.a_name = a_user.capitalize()
        self.agents = ("User-Agent: %s-ua/1.0\r\n" % a_user, "Server: %s-ua/1.0\r\n" % b_user)
        self.a_from = "%s@%s" % (a_user, ahost)
        self.a_contact = "%s@%s" % (a_user, a_me)
        self.a_ruri = a_ruri
        self.a_sdp = wire.sdp(sip_host(a_me), audio(a_port), ip)
        # as the callee received them (routed: the same)
        self.b_via, self.b_from, self.b_to = self.a_via, self.a_from, a_ruri
        # the callee's own
        self.b_contact = "%s@%s" % (b_user, b_me)
        self.b_sdp = wire.sdp(sip_host(b_me), audio(b_port), ip)
        # the callee's Contact and To as the caller received them
        self.a_peer_contact = self.b_contact
        self.a_peer_to = a_ruri
        self.transport = transport
        self.call_id = call_id
        self.contact_param = ";transport=tcp" if transport == "TCP" else ""

    def via(self, hostport, branch, reply=False):
        port = hostport.rsplit(":", 1)[1]
        return "SIP/2.0/%s %s;branch=z9hG4bK-%s;rport%s" % (
            self.transport, hostport, branch, "=" + port if reply else "")

    def request(self, method, cseq, branch, body="", ruri=None, to_tag=True):
        to = "<sip:%s>" % (self.a_peer_to if to_tag else self.a_ruri)
        hdrs = ("%s sip:%s SIP/2.0\r\n"
                "Via: %s\r\n"
                "Max-Forwards: 70\r\n"
                "From: \"%s\" <sip:%s>;tag=a73kszlfl\r\n"
                "To: %s%s\r\n"
                "Call-ID: %s\r\n"
                "CSeq: %d %s\r\n" % (method, ruri or self.a_ruri, self.via(self.a_via, branch),
                                     self.a_name, self.a_from, to, ";tag=1410948204" if to_tag else "",
                                     self.call_id, cseq, method))
        if method in ("INVITE", "ACK"):
            hdrs += "Contact: <sip:%s%s>\r\n" % (self.a_contact, self.contact_param)
        if body:
            hdrs += "Content-Type: application/sdp\r\n"
        return wire.sipmsg(hdrs + self.agents[0], body)

    def response(self, code, reason, method, cseq, branch, body="", tag=True):
        hdrs = ("SIP/2.0 %d %s\r\n"
                "Via: %s\r\n"
                "From: \"%s\" <sip:%s>;tag=a73kszlfl\r\n"
                "To: <sip:%s>%s\r\n"
                "Call-ID: %s\r\n"
                "CSeq: %d %s\r\n" % (code, reason, self.via(self.b_via, branch, True),
                                     self.a_name, self.b_from, self.b_to,
                                     ";tag=1410948204" if tag else "", self.call_id, cseq,
                                     method))
        if method == "INVITE" and code > 100:
            hdrs += "Contact: <sip:%s%s>\r\n" % (self.b_contact, self.contact_param)
        if body:
            hdrs += "Content-Type: application/sdp\r\n"
        return wire.sipmsg(hdrs + self.agents[1], body)

    def invite(self, cseq=1, branch="inv1", sdp=None):
        return self.request("INVITE", cseq, branch, sdp or self.a_sdp, to_tag=cseq > 1)

    def ack(self, cseq=1, branch="ack1"):
        return self.request("ACK", cseq, branch, ruri=self.a_peer_contact)

    def bye(self, cseq=2, branch="bye1"):
        return self.request("BYE", cseq, branch, ruri=self.a_peer_contact)


def sip_setup(sig, call, send=None, think=0.02):
    """INVITE, 100, 180, 200 with SDP, ACK.  send(side, bytes) sends one
    message (over TCP also acknowledged)."""
    send = send or sig.send
    send("c", call.invite())
    sig.cap.wait(0.005)
    send("s", call.response(100, "Trying", "INVITE", 1, "inv1", tag=False))
    sig.cap.wait(think)
    send("s", call.response(180, "Ringing", "INVITE", 1, "inv1"))
    sig.cap.wait(0.5)
    send("s", call.response(200, "OK", "INVITE", 1, "inv1", call.b_sdp))
    sig.cap.wait(0.01)
    send("c", call.ack())


def sip_teardown(sig, call, cseq=2, send=None):
    send = send or sig.send
    sig.cap.wait(0.2)
    send("c", call.bye(cseq, "bye%d" % cseq))
    sig.cap.wait(0.005)
    send("s", call.response(200, "OK", "BYE", cseq, "bye%d" % cseq))


def tcp_sender(t):
    def send(side, msg):
        t.send(side, msg)
        t.ack(other(side))
    return send


@case("sip", "udp-call", "-p 5060 -P udp",
      "a call over UDP: INVITE with SDP (audio 30000), 100, 180, 200 with SDP (audio "
      "40000), ACK; RTP and RTCP both ways (the caller's flows to 40000/40001 are RELATED "
      "to the 200's expectations); BYE, 200")
def sip_udp_call(cap):
    call = SipCall("10.0.1.2:5060", "bob@10.0.2.2", "10.0.2.2:5060")
    sig = Udp(cap, (C4, 5060), (S4, 5060))
    sip_setup(sig, call)
    media(cap, (C4, 30000), (S4, 40000))
    sip_teardown(sig, call)


@case("sip", "udp-call-snat", "-p 5060 -P udp --snat 10.0.2.1",
      "helper's view of a call under MASQUERADE: the INVITE's Via, From, Contact, o= and c= "
      "name 10.0.1.2 (rewritten to 10.0.2.1; From, written without a port, gains :5060); "
      "the callee's responses name 10.0.2.1 (Via, From rewritten back); the callee's RTP to 10.0.2.1:30000 comes first "
      "and is RELATED, mapped to the caller; BYE, 200")
def sip_udp_call_snat(cap):
    call = SipCall("10.0.1.2:5060", "bob@10.0.2.2", "10.0.2.2:5060")
    call.b_via, call.b_from = "10.0.2.1:5060", "alice@10.0.2.1:5060"
    sig = Udp(cap, (C4, 5060), (S4, 5060), s_dst=(RS4, 5060))
    sip_setup(sig, call)
    media(cap, (S4, 40000), (C4, 30000), first_dst=(RS4, 30000))
    sip_teardown(sig, call)


@case("sip", "udp-call-dnat", "-p 5060 -P udp --dnat 10.0.2.2",
      "helper's view of a call behind DNAT (the caller dials 10.0.1.1): the INVITE's "
      "Request-URI and To name 10.0.1.1 (rewritten to 10.0.2.2:5060); the 200's Contact, "
      "To, o= and c= name 10.0.2.2 (rewritten to 10.0.1.1); the caller's RTP to "
      "10.0.1.1:40000 is RELATED and goes to the callee; BYE, 200")
def sip_udp_call_dnat(cap):
    call = SipCall("10.0.1.2:5060", "bob@10.0.1.1", "10.0.2.2:5060")
    call.b_to = "bob@10.0.2.2:5060"
    call.a_peer_contact = "bob@10.0.1.1:5060"
    call.a_peer_to = "bob@10.0.1.1:5060"
    sig = Udp(cap, (C4, 5060), (S4, 5060), c_dst=(RC4, 5060))
    sip_setup(sig, call)
    media(cap, (C4, 30000), (S4, 40000), first_dst=(RC4, 40000))
    sip_teardown(sig, call)


@case("sip", "v6-call", "-p 5060 -P udp",
      "the UDP call over IPv6 ([fd00:1::2]:5060 to [fd00:2::2]:5060, c=IN IP6): the "
      "callee's RTP to [fd00:1::2]:30000 is RELATED to the INVITE's expectation")
def sip_v6_call(cap):
    call = SipCall("[fd00:1::2]:5060", "bob@[fd00:2::2]", "[fd00:2::2]:5060", ip="IP6",
                   call_id="1-2231@fd00:1::2")
    sig = Udp(cap, (C6, 5060), (S6, 5060))
    sip_setup(sig, call)
    media(cap, (S6, 40000), (C6, 30000))
    sip_teardown(sig, call)


@case("sip", "tcp-call", "-p 5060 -P tcp",
      "the call with its signalling over TCP (from port 40100, Via SIP/2.0/TCP, "
      "transport=tcp contacts), one message a segment; media over UDP as in udp-call")
def sip_tcp_call(cap):
    call = SipCall("10.0.1.2:40100", "bob@10.0.2.2", "10.0.2.2:5060", transport="TCP")
    t = Tcp(cap, (C4, 40100), (S4, 5060))
    t.open()
    sip_setup(t, call, tcp_sender(t))
    media(cap, (C4, 30000), (S4, 40000))
    sip_teardown(t, call, send=tcp_sender(t))
    t.close("c")


@case("sip", "tcp-split-invite", "-p 5060 -P tcp",
      "an INVITE over TCP in two segments 0.5 s apart: the header block (up to the empty "
      "line), then the SDP body; the plugin keeps the first part and reads the whole "
      "INVITE with the second; the callee's RTP to 30000 is RELATED")
def sip_tcp_split_invite(cap):
    call = SipCall("10.0.1.2:40100", "bob@10.0.2.2", "10.0.2.2:5060", transport="TCP")
    t = Tcp(cap, (C4, 40100), (S4, 5060))
    t.open()
    send = tcp_sender(t)
    inv = call.invite()
    cut = inv.index(b"\r\n\r\n") + 4
    t.send("c", inv[:cut])
    t.ack("s")
    cap.wait(0.5)
    t.send("c", inv[cut:])
    t.ack("s")
    cap.wait(0.005)
    send("s", call.response(100, "Trying", "INVITE", 1, "inv1", tag=False))
    send("s", call.response(200, "OK", "INVITE", 1, "inv1", call.b_sdp))
    send("c", call.ack())
    media(cap, (S4, 40000), (C4, 30000))
    sip_teardown(t, call, send=send)
    t.close("c")


@case("sip", "reinvite", "-p 5060 -P udp",
      "a call whose caller moves its media: after RTP on 30000 a re-INVITE (CSeq 2, o= "
      "version 2) offers audio 30010; it replaces the call's media expectations, and the "
      "callee's RTP to the new port 30010 is RELATED; BYE (CSeq 3), 200")
def sip_reinvite(cap):
    call = SipCall("10.0.1.2:5060", "bob@10.0.2.2", "10.0.2.2:5060")
    sig = Udp(cap, (C4, 5060), (S4, 5060))
    sip_setup(sig, call)
    media(cap, (C4, 30000), (S4, 40000))
    cap.wait(0.5)
    sig.send("c", call.invite(2, "inv2", wire.sdp(C4, audio(30010), version=2)))
    cap.wait(0.005)
    sig.send("s", call.response(200, "OK", "INVITE", 2, "inv2", call.b_sdp))
    sig.send("c", call.ack(2, "ack2"))
    media(cap, (S4, 40000), (C4, 30010), ssrc=(0x2222BBBB, 0x3333CCCC))
    sip_teardown(sig, call, 3)


@case("sip", "invite-retrans-snat", "-p 5060 -P udp --snat 10.0.2.1",
      "helper's view under MASQUERADE: the INVITE is retransmitted after 500 ms (timer A) "
      "before the callee answers; both copies are rewritten alike and the second replaces "
      "the first's media expectations; the callee's RTP to 10.0.2.1:30000 is RELATED")
def sip_invite_retrans_snat(cap):
    call = SipCall("10.0.1.2:5060", "bob@10.0.2.2", "10.0.2.2:5060")
    call.b_via, call.b_from = "10.0.2.1:5060", "alice@10.0.2.1:5060"
    sig = Udp(cap, (C4, 5060), (S4, 5060), s_dst=(RS4, 5060))
    sig.send("c", call.invite())
    cap.wait(0.5)
    sig.send("c", call.invite())
    cap.wait(0.005)
    sig.send("s", call.response(100, "Trying", "INVITE", 1, "inv1", tag=False))
    cap.wait(0.3)
    sig.send("s", call.response(200, "OK", "INVITE", 1, "inv1", call.b_sdp))
    sig.send("c", call.ack())
    media(cap, (S4, 40000), (C4, 30000), first_dst=(RS4, 30000))
    sip_teardown(sig, call)


def register_msgs(contact_a, contact_b, via_a, via_b, cseq=1):
    """REGISTER (as the phone writes it) and the registrar's 200 (as it
    writes it, echoing the Via and Contact it received)."""
    dialog = ("Call-ID: reg-5531@10.0.1.2\r\n"
              "CSeq: %d REGISTER\r\n" % cseq)
    req = wire.sipmsg("REGISTER sip:10.0.2.2 SIP/2.0\r\n"
                      "Via: SIP/2.0/UDP %s;branch=z9hG4bK-reg%d;rport\r\n"
                      "Max-Forwards: 70\r\n"
                      "From: <sip:alice@10.0.2.2>;tag=r8d7a1\r\n"
                      "To: <sip:alice@10.0.2.2>\r\n%s"
                      "Contact: <sip:alice@%s>\r\n"
                      "Expires: 300\r\n"
                      "User-Agent: example-phone/1.0\r\n" % (via_a, cseq, dialog, contact_a))
    ok = wire.sipmsg("SIP/2.0 200 OK\r\n"
                     "Via: SIP/2.0/UDP %s;branch=z9hG4bK-reg%d;rport=5060\r\n"
                     "From: <sip:alice@10.0.2.2>;tag=r8d7a1\r\n"
                     "To: <sip:alice@10.0.2.2>;tag=srv42\r\n%s"
                     "Contact: <sip:alice@%s>;expires=300\r\n"
                     "Server: example-pbx/2.1\r\n" % (via_b, cseq, dialog, contact_b))
    return req, ok


def incoming_call(ruri):
    """The registrar (10.0.2.2, from port 5070) calls the phone at ruri:
    here the caller 'a' is on the server's side and the callee 'b' is the
    phone (10.0.1.2:5060, audio on 30000)."""
    return SipCall("10.0.2.2:5070", ruri, "10.0.1.2:5060", call_id="7-1183@10.0.2.2",
                   a_user="pbx", b_user="alice", a_port=40000, b_port=30000)


@case("sip", "register-invite", "-p 5060 -P udp",
      "a phone registers (REGISTER with Contact 10.0.1.2:5060, Expires 300; the 200 "
      "echoes it with expires=300: the permanent signalling expectation is activated); "
      "then the registrar calls the phone from port 5070: that INVITE's flow is RELATED "
      "and helped, its SDP and the phone's 200 open the media both ways")
def sip_register_invite(cap):
    reg, ok = register_msgs("10.0.1.2:5060", "10.0.1.2:5060", "10.0.1.2:5060", "10.0.1.2:5060")
    sig = Udp(cap, (C4, 5060), (S4, 5060))
    sig.send("c", reg)
    cap.wait(0.003)
    sig.send("s", ok)
    cap.wait(1.0)
    call = incoming_call("alice@10.0.1.2:5060")
    inc = Udp(cap, (S4, 5070), (C4, 5060))
    sip_setup(inc, call)
    media(cap, (S4, 40000), (C4, 30000))
    sip_teardown(inc, call)


@case("sip", "register-invite-snat", "-p 5060 -P udp --snat 10.0.2.1",
      "helper's view of the registration under MASQUERADE: the REGISTER's Contact and Via "
      "10.0.1.2:5060 are rewritten to 10.0.2.1:5060, the registrar's 200 echoes "
      "10.0.2.1:5060 (activated, rewritten back); the registrar's INVITE from port 5070 to "
      "10.0.2.1:5060 is RELATED and mapped to the phone; the phone's 200 names 10.0.1.2 "
      "(Contact, o=, c= rewritten to 10.0.2.1), the registrar's RTP to 10.0.2.1:30000 is "
      "RELATED")
def sip_register_invite_snat(cap):
    reg, ok = register_msgs("10.0.1.2:5060", "10.0.2.1:5060", "10.0.1.2:5060", "10.0.2.1:5060")
    sig = Udp(cap, (C4, 5060), (S4, 5060), s_dst=(RS4, 5060))
    sig.send("c", reg)
    cap.wait(0.003)
    sig.send("s", ok)
    cap.wait(1.0)
    # the registrar calls the contact it knows, 10.0.2.1:5060; the phone
    # gets the Request-URI and To rewritten to its own address
    call = incoming_call("alice@10.0.2.1:5060")
    call.b_to = "alice@10.0.1.2:5060"
    call.a_peer_contact = call.a_peer_to = "alice@10.0.2.1:5060"
    inc = Udp(cap, (S4, 5070), (C4, 5060), c_dst=(RS4, 5060))
    sip_setup(inc, call)
    media(cap, (S4, 40000), (C4, 30000), first_dst=(RS4, 30000))
    sip_teardown(inc, call)


# ============================================================== TNS

def tns_accept():
    """An ACCEPT: version 314, service options, SDU 8192, TDU 65535,
    hardware byte order, no connect data."""
    return wire.tns_packet(wire.TNS_ACCEPT, struct.pack(">HHHHHHHBB", 314, 0x0801, 8192, 65535,
                                                        0x0100, 0, 24, 0x41, 0x41))


def tns_connect(service):
    return wire.tns_packet(wire.TNS_CONNECT, tnslib.connect_body(service))


def tns_listener(cap, redirect, client=(C4, 40000), server=(S4, 1521), c_dst=None, s_dst=None,
                 delta=0, mss=None, service="orcl"):
    """CONNECT to the listener, the listener's answer (redirect: a list
    of its segments, each sent 0.3 s after the previous one and
    acknowledged; delta: how much longer the helper made the last), the
    client closes."""
    t = Tcp(cap, client, server, c_dst, s_dst, mss=mss)
    t.open()
    cap.wait(0.001)
    t.send("c", tns_connect(service))
    cap.wait(0.02)
    for i, seg in enumerate(redirect):
        if i:
            cap.wait(0.3)
        t.send("s", seg, delta=delta if i + 1 == len(redirect) else 0)
        t.ack("c")
    cap.wait(0.001)
    t.close("c")


def tns_follow(cap, client, server, c_dst=None, s_dst=None, service="orcl"):
    """The connection the redirect names: CONNECT, ACCEPT, a DATA
    exchange, close."""
    t = Tcp(cap, client, server, c_dst, s_dst)
    t.open()
    t.send("c", tns_connect(service))
    t.send("s", tns_accept())
    t.ack("c")
    t.talk("c", wire.tns_data("\x01\x06\x05\x04\x03\x02\x01\x00"), think=0.005)
    t.talk("s", wire.tns_data("\x01\x06\x00"))
    t.close("c")


@case("tns", "redirect", "-p 1521",
      "CONNECT to the listener, REDIRECT to (HOST=10.0.2.2)(PORT=5001); the client's "
      "connection to 10.0.2.2:5001 is RELATED (the helper detaches from the listener "
      "connection after the redirect)")
def tns_redirect(cap):
    tns_listener(cap, [wire.tns_redirect(wire.tns_desc(S4, 5001))])
    tns_follow(cap, (C4, 40001), (S4, 5001))


@case("tns", "redirect-dnat", "-p 1521 --dnat 10.0.2.2",
      "helper's view behind DNAT (the client dials 10.0.1.1:1521): the REDIRECT's "
      "HOST=10.0.2.2 is rewritten to 10.0.1.1 (same length); the client's connection to "
      "10.0.1.1:5001 is RELATED and goes to the listener's host")
def tns_redirect_dnat(cap):
    tns_listener(cap, [wire.tns_redirect(wire.tns_desc(S4, 5001))], c_dst=(RC4, 1521))
    tns_follow(cap, (C4, 40001), (S4, 5001), c_dst=(RC4, 5001))


@case("tns", "redirect-dnat-grow", "-p 1521 --dnat 10.0.2.2",
      "helper's view behind DNAT to a longer address (client 192.0.2.77 dials "
      "192.0.2.100): HOST=10.0.2.2 becomes 192.0.2.100, 3 bytes longer, and the TNS packet "
      "length and the REDIRECT's data length grow with it (the client's ACKs count the "
      "longer packet); the connection to 192.0.2.100:5001 is RELATED")
def tns_redirect_dnat_grow(cap):
    cl = ("192.0.2.77", 40000)
    tns_listener(cap, [wire.tns_redirect(wire.tns_desc(S4, 5001))], client=cl,
                 c_dst=("192.0.2.100", 1521), delta=3)
    tns_follow(cap, ("192.0.2.77", 40001), (S4, 5001), c_dst=("192.0.2.100", 5001))


@case("tns", "redirect-snat", "-p 1521 --snat 10.0.2.1",
      "helper's view under MASQUERADE: the REDIRECT names the listener's own address, "
      "which the client reaches as it is, so nothing is rewritten; the expectation follows "
      "the master and the connection to 10.0.2.2:5001 is RELATED and source-NATed")
def tns_redirect_snat(cap):
    tns_listener(cap, [wire.tns_redirect(wire.tns_desc(S4, 5001))], s_dst=(RS4, 40000))
    tns_follow(cap, (C4, 40001), (S4, 5001), s_dst=(RS4, 40001))


@case("tns", "split-data", "-p 1521",
      "a REDIRECT with data length 0, its descriptor in the listener's next packet, a DATA "
      "packet sent 0.3 s later in its own segment; the connection to port 5002 is RELATED")
def tns_split_data(cap):
    tns_listener(cap, [wire.tns_redirect(""), wire.tns_data(wire.tns_desc(S4, 5002))])
    tns_follow(cap, (C4, 40001), (S4, 5002))


@case("tns", "mixed-case", "-p 1521",
      "a descriptor in lower and mixed case with spaces: "
      "(description=(address=(protocol=tcp)( host = 10.0.2.2 ) ( Port= 5003 ))); the "
      "connection to port 5003 is RELATED")
def tns_mixed_case(cap):
    desc = tnslib.descriptor("mixed", S4, 5003).decode()
    tns_listener(cap, [wire.tns_redirect(desc)])
    tns_follow(cap, (C4, 40001), (S4, 5003))


LONG_CONNECT_DATA = (
    "(CONNECT_DATA=(SERVICE_NAME=sales.example.org)(INSTANCE_NAME=sales1)(SERVER=dedicated)"
    "(CID=(PROGRAM=C:\\app\\client\\alice\\product\\19.0.0\\client_1\\bin\\sqlplus.exe)"
    "(HOST=WORKSTATION-042)(USER=alice)))"
    "(SECURITY=(SSL_SERVER_CERT_DN=\"CN=sales.example.org,OU=Databases,O=Example "
    "Corporation,L=Springfield,ST=Somewhere,C=US\"))"
    "(LOAD_BALANCE=off)(FAILOVER=on)(RETRY_COUNT=3)(RETRY_DELAY=1)(CONNECT_TIMEOUT=10)"
    "(TRANSPORT_CONNECT_TIMEOUT=3)(ENABLE=broken)(SDU=8192)(RECV_BUF_SIZE=65536)"
    "(SEND_BUF_SIZE=65536)(EXPIRE_TIME=10)")


@case("tns", "across-segments", "-p 1521",
      "the client's SYN announces an MSS of 536 (a small-MTU path), so the listener sends at "
      "most 536 bytes a segment: a 584-byte REDIRECT arrives in two segments; the plugin keeps the first "
      "part and reads the packet whole with the second; the connection to port 5004 is "
      "RELATED")
def tns_across_segments(cap):
    red = wire.tns_redirect(wire.tns_desc(S4, 5004, LONG_CONNECT_DATA))
    tns_listener(cap, [red], mss=536)
    tns_follow(cap, (C4, 40001), (S4, 5004))


@case("tns", "v6-redirect", "-p 1521",
      "IPv6: REDIRECT to (HOST=fd00:2::2)(PORT=5001); the client's connection to "
      "[fd00:2::2]:5001 is RELATED")
def tns_v6_redirect(cap):
    tns_listener(cap, [wire.tns_redirect(wire.tns_desc(S6, 5001))], client=(C6, 40000),
                 server=(S6, 1521))
    tns_follow(cap, (C6, 40001), (S6, 5001))


# ============================================================== SunRPC

MOUNTD, NFS, NLM = 100005, 100003, 100021


def rpc_null(xid, prog, vers):
    return wire.rpc_call(xid, prog, vers, 0)


def rpc_null_reply(xid):
    return wire.rpc_reply(xid)


def rpc_service(cap, client, server, proto, prog, vers, xid, c_dst=None, s_dst=None):
    """A NULL call to the program on the port found, and its reply:
    a TCP connection (record marking) or a UDP exchange."""
    if proto == TCP:
        t = Tcp(cap, client, server, c_dst, s_dst)
        t.open()
        t.send("c", wire.record(rpc_null(xid, prog, vers)))
        t.send("s", wire.record(rpc_null_reply(xid)))
        t.ack("c")
        t.close("c")
    else:
        u = Udp(cap, client, server, c_dst, s_dst)
        u.send("c", rpc_null(xid, prog, vers))
        u.send("s", rpc_null_reply(xid))


def rpc_query(cap, proto, client, server, call, reply, c_dst=None, s_dst=None, delta=0,
              framed=False):
    """A call to port 111 and its reply: a datagram each, or over TCP a
    connection carrying a record each (framed: call and reply are records
    already), closed by the client.  delta: how much longer the helper made
    the reply."""
    if proto == UDP:
        u = Udp(cap, client, server, c_dst, s_dst)
        u.send("c", call)
        u.send("s", reply)
    else:
        t = Tcp(cap, client, server, c_dst, s_dst)
        t.open()
        t.send("c", call if framed else wire.record(call))
        cap.wait(0.0005)
        t.send("s", reply if framed else wire.record(reply), delta=delta)
        t.ack("c")
        t.close("c")
    cap.wait(0.001)


@case("rpc", "udp-getport", "-p 111 -P udp",
      "portmapper v2 GETPORT over UDP for mountd (100005 v3) over TCP, answered 20048; the "
      "client's TCP connection to 20048 is RELATED")
def rpc_udp_getport(cap):
    rpc_query(cap, UDP, (C4, 876), (S4, 111), wire.getport(0x5E1F0001, MOUNTD, TCP),
              wire.port_reply(0x5E1F0001, 20048))
    rpc_service(cap, (C4, 877), (S4, 20048), TCP, MOUNTD, 3, 0x5E1F0002)


@case("rpc", "udp-getport-retrans", "-p 111 -P udp",
      "the GETPORT call retransmitted after 1 s with the same XID (its slot is reused), "
      "one reply: the connection to 20048 is RELATED")
def rpc_udp_getport_retrans(cap):
    u = Udp(cap, (C4, 876), (S4, 111))
    u.send("c", wire.getport(0x5E1F0001, MOUNTD, TCP))
    cap.wait(1.0)
    rpc_query(cap, UDP, (C4, 876), (S4, 111), wire.getport(0x5E1F0001, MOUNTD, TCP),
              wire.port_reply(0x5E1F0001, 20048))
    rpc_service(cap, (C4, 877), (S4, 20048), TCP, MOUNTD, 3, 0x5E1F0002)


@case("rpc", "tcp-getport", "-p 111 -P tcp",
      "GETPORT over TCP (one record, one fragment) for nfs (100003 v3) over TCP, answered "
      "2049; the connection to 2049 is RELATED")
def rpc_tcp_getport(cap):
    rpc_query(cap, TCP, (C4, 40000), (S4, 111), wire.getport(0x77A00001, NFS, TCP),
              wire.port_reply(0x77A00001, 2049))
    rpc_service(cap, (C4, 40001), (S4, 2049), TCP, NFS, 3, 0x77A00002)


@case("rpc", "udp-getaddr", "-p 111 -P udp",
      "rpcbind v4 GETADDR over UDP for mountd with netid tcp, answered with the universal "
      "address 10.0.2.2.78.80 (port 20048); the TCP connection there is RELATED")
def rpc_udp_getaddr(cap):
    rpc_query(cap, UDP, (C4, 876), (S4, 111), wire.getaddr(0x3C910001, "tcp", prog=MOUNTD),
              wire.uaddr_reply(0x3C910001, "10.0.2.2.78.80"))
    rpc_service(cap, (C4, 877), (S4, 20048), TCP, MOUNTD, 3, 0x3C910002)


@case("rpc", "tcp-getaddr-v3-udp", "-p 111 -P tcp",
      "rpcbind v3 GETADDR over TCP for nlockmgr (100021 v4) with netid udp, answered "
      "0.0.0.0.130.161 (this host, port 33441): the client's UDP flow to 33441 is RELATED")
def rpc_tcp_getaddr_v3_udp(cap):
    rpc_query(cap, TCP, (C4, 40000), (S4, 111),
              wire.getaddr(0x3C920001, "udp", vers=3, prog=NLM, pvers=4),
              wire.uaddr_reply(0x3C920001, "0.0.0.0.130.161"))
    rpc_service(cap, (C4, 40001), (S4, 33441), UDP, NLM, 4, 0x3C920002)


@case("rpc", "tcp-pipelined", "-p 111 -P tcp",
      "two calls in one TCP segment (GETADDR v4 for mountd over tcp, GETPORT for nlockmgr "
      "over udp, the second record in two fragments), their replies in one segment in the "
      "other order: the TCP connection to 20048 and the UDP flow to 33441 are RELATED")
def rpc_tcp_pipelined(cap):
    rpc_query(cap, TCP, (C4, 40000), (S4, 111),
              wire.record(wire.getaddr(0x11110001, "tcp", prog=MOUNTD)) +
              wire.record(wire.getport(0x11110002, NLM, UDP, vers=4), 2),
              wire.record(wire.port_reply(0x11110002, 33441)) +
              wire.record(wire.uaddr_reply(0x11110001, "10.0.2.2.78.80")), framed=True)
    rpc_service(cap, (C4, 40001), (S4, 20048), TCP, MOUNTD, 3, 0x11110003)
    rpc_service(cap, (C4, 40002), (S4, 33441), UDP, NLM, 4, 0x11110004)


@case("rpc", "tcp-mark-apart", "-p 111 -P tcp",
      "a client and a portmapper that write a record's mark and its message with two "
      "send() calls (TCP_NODELAY): every record arrives as a 4-byte segment and the rest; "
      "the plugin keeps the mark and reads the record with the next segment: GETPORT for "
      "mountd over TCP, answered 20048, the connection there is RELATED")
def rpc_tcp_mark_apart(cap):
    t = Tcp(cap, (C4, 40000), (S4, 111))
    t.open()
    for side, msg in (("c", wire.getport(0x22220001, MOUNTD, TCP)),
                      ("s", wire.port_reply(0x22220001, 20048))):
        rec = wire.record(msg)
        t.send(side, rec[:4])
        t.send(side, rec[4:])
        t.ack(other(side))
    t.close("c")
    rpc_service(cap, (C4, 40001), (S4, 20048), TCP, MOUNTD, 3, 0x22220002)


@case("rpc", "udp-getaddr-dnat", "-p 111 -P udp --dnat 10.0.2.2",
      "helper's view behind DNAT (the client dials 10.0.1.1:111): the universal address "
      "10.0.2.2.78.80 is rewritten to 10.0.1.1.78.80; the client's connection to "
      "10.0.1.1:20048 is RELATED and goes to the server")
def rpc_udp_getaddr_dnat(cap):
    rpc_query(cap, UDP, (C4, 876), (S4, 111), wire.getaddr(0x3C930001, "tcp", prog=MOUNTD),
              wire.uaddr_reply(0x3C930001, "10.0.2.2.78.80"), c_dst=(RC4, 111))
    rpc_service(cap, (C4, 877), (S4, 20048), TCP, MOUNTD, 3, 0x3C930002, c_dst=(RC4, 20048))


@case("rpc", "tcp-getaddr-dnat-grow", "-p 111 -P tcp --dnat 10.0.2.2",
      "helper's view behind DNAT over TCP, client 192.0.2.77 dialling 192.0.2.100: the "
      "universal address 10.0.2.2.78.80 (14 bytes, padded to 16) becomes "
      "192.0.2.100.78.80 (17, padded to 20): string length, padding and record mark change "
      "(the client's ACKs count 4 bytes more); the connection to 192.0.2.100:20048 is "
      "RELATED")
def rpc_tcp_getaddr_dnat_grow(cap):
    cl = "192.0.2.77"
    rpc_query(cap, TCP, (cl, 40000), (S4, 111), wire.getaddr(0x3C940001, "tcp", prog=MOUNTD),
              wire.uaddr_reply(0x3C940001, "10.0.2.2.78.80"), c_dst=("192.0.2.100", 111),
              delta=4)
    rpc_service(cap, (cl, 40001), (S4, 20048), TCP, MOUNTD, 3, 0x3C940002,
                c_dst=("192.0.2.100", 20048))


@case("rpc", "udp-getport-snat", "-p 111 -P udp --snat 10.0.2.1",
      "helper's view under MASQUERADE: GETPORT answered 20048, nothing to rewrite; the "
      "expectation follows the master, the connection to 10.0.2.2:20048 is RELATED and "
      "source-NATed (the server answers 10.0.2.1)")
def rpc_udp_getport_snat(cap):
    rpc_query(cap, UDP, (C4, 876), (S4, 111), wire.getport(0x5E1F0011, MOUNTD, TCP),
              wire.port_reply(0x5E1F0011, 20048), s_dst=(RS4, 876))
    rpc_service(cap, (C4, 877), (S4, 20048), TCP, MOUNTD, 3, 0x5E1F0012, s_dst=(RS4, 877))


@case("rpc", "v6-getaddr", "-p 111 -P udp",
      "IPv6: rpcbind v4 GETADDR over UDP with netid tcp6, answered fd00:2::2.78.80; the "
      "TCP connection to [fd00:2::2]:20048 is RELATED")
def rpc_v6_getaddr(cap):
    rpc_query(cap, UDP, (C6, 876), (S6, 111), wire.getaddr(0x3C950001, "tcp6", prog=MOUNTD),
              wire.uaddr_reply(0x3C950001, "fd00:2::2.78.80"))
    rpc_service(cap, (C6, 877), (S6, 20048), TCP, MOUNTD, 3, 0x3C950002)


@case("rpc", "getport-permanent", "-p 111 -P udp -o permanent=yes",
      "with permanent=yes one GETPORT answer (nfs over TCP, 2049) admits both of the "
      "client's connections to 2049: both are RELATED (without it the second would be "
      "NEW)")
def rpc_getport_permanent(cap):
    rpc_query(cap, UDP, (C4, 876), (S4, 111), wire.getport(0x5E1F0021, NFS, TCP),
              wire.port_reply(0x5E1F0021, 2049))
    rpc_service(cap, (C4, 877), (S4, 2049), TCP, NFS, 3, 0x5E1F0022)
    cap.wait(0.5)
    rpc_service(cap, (C4, 878), (S4, 2049), TCP, NFS, 3, 0x5E1F0023)


# ============================================================== TFTP

TFTP_ARGS = "-p 69 -P udp"
TFTP_FILE = bytes(range(256)) * 3        # one 512-byte block and a short one
TFTP_OPTS = [("blksize", "1024"), ("tsize", "768")]


def tftp_blocks(data, size=512):
    """data as TFTP blocks: the last one shorter than size (empty if need be)."""
    return [data[i:i + size] for i in range(0, len(data) + 1, size)]


def tftp_session(cap, op, client=(C4, 50000), server=(S4, 69), tid=41000, c_dst=None,
                 data_dst=None, ack_dst=None, options=(), filename="pxelinux.0",
                 data=TFTP_FILE):
    """An RRQ or WRQ to port 69, then the transfer on the server's own port
    (its transfer ID, tid): for a read the server sends the blocks and the
    client acknowledges each, for a write the server acknowledges the
    request (block 0) and each block the client sends.  With options the
    server answers the request with an OACK instead (RFC 2347), which the
    client acknowledges (read) or answers with block 1 (write).  c_dst:
    where the client sends the request (the router under DNAT);
    data_dst: where the server's transfer packets go (the router under
    SNAT); ack_dst: where the client's go (the router under DNAT)."""
    req = Udp(cap, client, server, c_dst)
    req.send("c", wire.tftp_request(op, filename, "octet", options))
    cap.wait(0.002)
    # the transfer: initiated by the server (c), the client answers (s)
    x = Udp(cap, (server[0], tid), client, c_dst=data_dst, s_dst=ack_dst)
    size = int(dict(options).get("blksize", 512))
    if options:
        x.send("c", wire.tftp_oack(options))
        if op == wire.TFTP_RRQ:
            x.send("s", wire.tftp_ack(0))
    elif op == wire.TFTP_WRQ:
        x.send("c", wire.tftp_ack(0))
    for n, block in enumerate(tftp_blocks(data, size), 1):
        if op == wire.TFTP_RRQ:
            x.send("c", wire.tftp_data(n, block))
            x.send("s", wire.tftp_ack(n))
        else:
            x.send("s", wire.tftp_data(n, block))
            x.send("c", wire.tftp_ack(n))
    cap.wait(0.001)


@case("tftp", "rrq", TFTP_ARGS,
      "a read request (RRQ pxelinux.0, octet) from 10.0.1.2:50000; the server answers from "
      "its port 41000 with a 512-byte block and a short one, the client acknowledges each: "
      "the transfer is RELATED")
def tftp_rrq(cap):
    tftp_session(cap, wire.TFTP_RRQ)


@case("tftp", "wrq", TFTP_ARGS,
      "a write request (WRQ upload.bin, octet): the server acknowledges it (block 0) from "
      "its port 41000, the client sends two blocks: the transfer is RELATED")
def tftp_wrq(cap):
    tftp_session(cap, wire.TFTP_WRQ, filename="upload.bin")


@case("tftp", "rrq-options", TFTP_ARGS,
      "an RRQ with RFC 2347 options (blksize 1024, tsize 768): the server answers with an "
      "OACK from port 41000, the client acknowledges it (block 0), one 768-byte block: the "
      "transfer is RELATED")
def tftp_rrq_options(cap):
    tftp_session(cap, wire.TFTP_RRQ, options=TFTP_OPTS)


@case("tftp", "rrq-snat", TFTP_ARGS + " --snat 10.0.2.1",
      "helper's view under MASQUERADE: the RRQ from 10.0.1.2:50000 leaves as 10.0.2.1:50000; "
      "the server's transfer from port 41000 to 10.0.2.1:50000 is RELATED and follows the "
      "master back to 10.0.1.2:50000")
def tftp_rrq_snat(cap):
    tftp_session(cap, wire.TFTP_RRQ, data_dst=(RS4, 50000))


@case("tftp", "wrq-dnat", TFTP_ARGS + " --dnat 10.0.2.2",
      "helper's view behind DNAT (the client dials 10.0.1.1:69): the WRQ goes to the "
      "server; its answer from 10.0.2.2:41000 to the client's port is RELATED and follows "
      "the master (the client sees it from 10.0.1.1:41000 and answers there)")
def tftp_wrq_dnat(cap):
    tftp_session(cap, wire.TFTP_WRQ, c_dst=(RC4, 69), ack_dst=(RC4, 41000),
                 filename="upload.bin")


@case("tftp", "v6-rrq", TFTP_ARGS,
      "IPv6: an RRQ from [fd00:1::2]:50000 to [fd00:2::2]:69; the transfer from port 41000 "
      "is RELATED")
def tftp_v6_rrq(cap):
    tftp_session(cap, wire.TFTP_RRQ, client=(C6, 50000), server=(S6, 69))


@case("tftp", "v6-rrq-snat", TFTP_ARGS + " --snat fd00:2::1",
      "helper's view of IPv6 MASQUERADE (fd00:1::2 leaves as fd00:2::1): the transfer from "
      "[fd00:2::2]:41000 to [fd00:2::1]:50000 is RELATED and follows the master back to "
      "the client")
def tftp_v6_rrq_snat(cap):
    tftp_session(cap, wire.TFTP_RRQ, client=(C6, 50000), server=(S6, 69),
                 data_dst=(RS6, 50000))


TFTP_HOSTILE = [
    ("no NUL", b"\0\1pxelinux.0octet"),
    ("mode binary", wire.tftp_request(wire.TFTP_RRQ, "pxelinux.0", "binary")),
    ("600-byte filename", wire.tftp_request(wire.TFTP_RRQ, "a" * 600)),
    ("opcode only", b"\0\1"),
    ("a DATA to port 69", wire.tftp_data(1, b"\0\1f\0octet\0")),
    ("option without a value", wire.tftp_request(wire.TFTP_RRQ, "f") + b"blksize\0"),
]


@case("tftp", "hostile", TFTP_ARGS,
      "six datagrams to port 69 that are not requests, each from its own port 50001..50006 "
      "(no NUL, mode binary, a 600-byte filename, the opcode alone, a DATA, an option "
      "without a value): nothing is expected, the server's ERROR from its port 41001..41006 "
      "back to each is NEW; then a well-formed RRQ from 50007, whose transfer is RELATED")
def tftp_hostile(cap):
    for i, (_, payload) in enumerate(TFTP_HOSTILE, 1):
        Udp(cap, (C4, 50000 + i), (S4, 69)).send("c", payload)
        cap.wait(0.002)
        Udp(cap, (S4, 41000 + i), (C4, 50000 + i)).send("c", wire.tftp_error(4, "Illegal TFTP operation"))
        cap.wait(0.001)
    tftp_session(cap, wire.TFTP_RRQ, client=(C4, 50007), tid=41007)


@case("tftp", "hostile-loose", TFTP_ARGS + " -o loose=yes",
      "the hostile capture with loose=yes, the kernel's reading: every datagram with the RRQ "
      "opcode opens the answer, malformed or not (five of the six, and the last RRQ), so "
      "those ERRORs are RELATED; the DATA to port 69 still opens nothing")
def tftp_hostile_loose(cap):
    tftp_hostile(cap)


# ============================================================== toydata

TOY_ARGS = "-p 7000 -o min_port=1024"


def toy_session(cap, port, client=(C4, 40000), server=(S4, 7000), c_dst=None, s_dst=None,
                dial=None, data_s_dst=None, blocked=False):
    """The server announces DATA port at once; the client connects
    there (dial: where it sends), gets "toy-data-ok"; both close."""
    t = Tcp(cap, client, server, c_dst, s_dst)
    t.open()
    t.send("s", b"DATA %d\r\n" % port)
    t.ack("c")
    cap.wait(0.001)
    d_client = (client[0], client[1] + 1)
    if blocked:
        Tcp(cap, d_client, (server[0], port), c_dst=dial).syn_unanswered(2)
        t.close("c")
        return
    d = Tcp(cap, d_client, (server[0], port), c_dst=dial, s_dst=data_s_dst)
    d.open()
    d.send("s", b"toy-data-ok\n")
    d.ack("c")
    d.close("s")
    t.close("s")


@case("toydata", "data", TOY_ARGS,
      "the toy protocol: the server says DATA 5000, the client's connection to 10.0.2.2:5000 "
      "is RELATED")
def toy_data(cap):
    toy_session(cap, 5000)


@case("toydata", "data-dnat", TOY_ARGS + " --dnat 10.0.2.2",
      "helper's view behind DNAT (the client dials 10.0.1.1:7000): the port is free, the "
      "line stays DATA 5000; the expectation for 10.0.1.1:5000 follows the master and the "
      "client's connection there is RELATED and goes to the server")
def toy_data_dnat(cap):
    toy_session(cap, 5000, c_dst=(RC4, 7000), dial=(RC4, 5000))


@case("toydata", "data-snat", TOY_ARGS + " --snat 10.0.2.1",
      "helper's view under MASQUERADE: DATA 5000, the expectation follows the master, the "
      "client's connection to 10.0.2.2:5000 is RELATED and source-NATed")
def toy_data_snat(cap):
    toy_session(cap, 5000, s_dst=(RS4, 40000), data_s_dst=(RS4, 40001))


@case("toydata", "v6-data", TOY_ARGS,
      "IPv6: DATA 5000, the client's connection to [fd00:2::2]:5000 is RELATED")
def toy_v6_data(cap):
    toy_session(cap, 5000, client=(C6, 40000), server=(S6, 7000))


@case("toydata", "below-min-port", TOY_ARGS,
      "DATA 80, below min_port 1024: ignored (logged), nothing expected; the client's SYNs "
      "to port 80 are a NEW connection nobody answers")
def toy_below_min_port(cap):
    toy_session(cap, 80, blocked=True)


# ============================================================== main

def build(fn):
    cap = Capture()
    fn(cap)
    return cap.pcap()


def tables():
    """The cases as Markdown tables, one per plugin (README.md)."""
    lines, cur = [], None
    for plugin, name, args, what, _ in CASES:
        if plugin != cur:
            cur = plugin
            lines += ["", "### %s" % plugin, "", "| case | args | what it shows |",
                      "| --- | --- | --- |"]
        lines.append("| `%s` | `%s` | %s |" % (name, args, what.replace("|", "\\|")))
    return "\n".join(lines[1:]) + "\n"


def main(argv):
    out = os.path.join(HERE, "cases")
    names = []
    listing = False
    i = 0
    while i < len(argv):
        if argv[i] == "--out" and i + 1 < len(argv):
            out = argv[i + 1]
            i += 1
        elif argv[i] == "--list":
            listing = True
        elif argv[i] == "--tables":
            sys.stdout.write(tables())
            return
        elif argv[i].startswith("-"):
            sys.exit(__doc__)
        else:
            names.append(argv[i])
        i += 1
    known = {"%s/%s" % (p, n) for p, n, _, _, _ in CASES}
    for n in names:
        if n not in known:
            sys.exit("mkpcap.py: no case %s" % n)
    for plugin, name, args, what, fn in CASES:
        full = "%s/%s" % (plugin, name)
        if names and full not in names:
            continue
        if listing:
            print("%s\t%s\t%s" % (full, args, what))
            continue
        os.makedirs(os.path.join(out, plugin), exist_ok=True)
        base = os.path.join(out, plugin, name)
        with open(base + ".pcap", "wb") as f:
            f.write(build(fn))
        with open(base + ".args", "w") as f:
            f.write(args + "\n")

if __name__ == "__main__":
    main(sys.argv[1:])
