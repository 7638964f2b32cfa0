#!/usr/bin/python3
"""RTSP test server and client for tests/rtsp (python3 stdlib only): both
ends under the test's control, for the cases a real player and server
cannot be made to play.

  rtsp.py server --addr ADDR [--addr ADDR]... [--port 554] [--ready FILE]
                 [--log FILE]
  rtsp.py client --host ADDR [--port 554] [--bind ADDR] [--rtp-base P]
                 [--tracks 1|2] [--play all|1] [--punch 1,2] [--split]
                 [--interleaved] [--rtsp2] [--late S] [--wait S]
                 [--sync-dir DIR] [--log FILE]

The server listens on each --addr (one socket per address) and answers
OPTIONS, DESCRIBE (an SDP with two tracks, track1 and track2), SETUP,
PLAY, GET_PARAMETER, TEARDOWN.  SETUP: the first Transport spec;
`client_port=a-b` (or RTSP 2.0's `dest_addr=":a"/":b"`) is echoed and a
pair of server UDP ports is bound and added (`server_port=c-d`, or
`src_addr=`); `RTP/AVP/TCP;interleaved=x-y` is echoed.  PLAY (the
aggregate URL: every track SETUP so far; a track's URL: that one) sends,
per UDP track, RTP_COUNT RTP packets from c to the client's RTP port and
RTCP_COUNT RTCP sender reports from d to its RTCP port, the address being
the RTSP connection's peer (or dest_addr's host); per interleaved track
the frames of interleaved_frames() on the connection, `$`-framed, whose
data holds text that reads like RTSP requests and replies.  Whatever
arrives on its server ports (the client's RTCP receiver reports, "punch"
packets) and every `$` frame the client sends is counted; GET_PARAMETER's
answer reports it (text/parameters, one line per track).  After
TEARDOWN, each track SETUP but never played gets its packets anyway
(LATE_DELAY later): with a helper that closed the track's ports at the
TEARDOWN they must not arrive.

The client runs one session: OPTIONS, DESCRIBE, SETUP of --tracks tracks
(its RTP/RTCP ports --rtp-base + 2k and +1, bound to --bind or any),
optionally the "punch" (--punch: those tracks send two RTP packets and an
RTCP receiver report to the server's ports before PLAY, the way players
open a NAT: the reverse direction), PLAY (aggregate, or only track1 with
--play 1), then it waits up to --wait seconds for every played track's
packets, sends an RTCP receiver report on the tracks it did not punch,
asks GET_PARAMETER what the server got and sends TEARDOWN; with --late S
it then listens S seconds more on the ports of the tracks it did not
play.  --split sends each SETUP in three TCP segments (TCP_NODELAY,
SPLIT_PAUSE between them), cut inside the Transport header's
client_port value.  --interleaved asks RTP/AVP/TCP;interleaved=0-1 for
one track, checks that the server's frames arrived byte for byte
(sha256) and sends upstream_frames() to the server, which checks them
the same way.  --rtsp2 speaks RTSP/2.0 with dest_addr.  --sync-dir DIR:
after SETUP it creates DIR/setup and waits for DIR/go before PLAY (a
second client meanwhile).  It prints one line

  REPORT key=value ...

t<N>.rtp / .rtcp (packets that arrived on track N's ports), .src /
.rtcp_src (their first sender, ADDR:PORT), .sp (the reply's
server_port), .cp (the reply's client_port), .sv_rtp / .sv_rtcp (what
the server got on its ports), .sv_cp (the client_port the server saw);
late.rtp / late.rtcp (after TEARDOWN); il.frames, il.want, il.sha
(ok|bad), il.up (the server's verdict on the client's frames: ok|bad);
or "ERROR step: why" (exit 1).  The dialogue goes to --log.
"""

import argparse
import hashlib
import os
import random
import re
import select
import socket
import struct
import sys
import threading
import time

RTP_COUNT = 5
RTCP_COUNT = 2
PACKET_GAP = 0.02
SPLIT_PAUSE = 0.3
LATE_DELAY = 0.5
SERVER_PORT_BASE = 6970
RESPONSE_WAIT = 10

# Text a helper would take for RTSP if it read the interleaved data.
FAKE_RTSP = (b"SETUP rtsp://10.0.2.2/test/track1 RTSP/1.0\r\nCSeq: 9\r\n"
             b"Transport: RTP/AVP;unicast;client_port=7000-7001\r\n\r\n"
             b"RTSP/1.0 200 OK\r\nCSeq: 9\r\nSession: 1\r\n"
             b"Transport: RTP/AVP;unicast;client_port=7000-7001;"
             b"server_port=7100-7101\r\n\r\n"
             b"TEARDOWN rtsp://10.0.2.2/test RTSP/1.0\r\nCSeq: 10\r\n\r\n")


def frames(seed, count):
    """`$`-framed interleaved data, deterministic: sizes from 1 to 9000
    bytes (several TCP segments), random bytes with FAKE_RTSP at the
    start, in the middle or at the end of the data, frames that begin
    with "SETUP"/"RTSP/1.0"; channels 0 and 1."""
    rnd = random.Random(seed)
    out = []
    for i in range(count):
        size = rnd.choice((1, 4, 60, 200, 1400, 1500, 3000, 9000))
        data = bytearray(rnd.getrandbits(8) for _ in range(size))
        where = i % 4
        if where == 1:
            data = FAKE_RTSP + data
        elif where == 2:
            mid = len(data) // 2
            data = data[:mid] + FAKE_RTSP + data[mid:]
        elif where == 3:
            data = data + FAKE_RTSP
        out.append(b"$" + bytes([i % 2]) + struct.pack("!H", len(data)) + bytes(data))
    return out


def interleaved_frames():
    return frames(30, 40)


def upstream_frames():
    return frames(31, 12)


def rtp_packet(ssrc, seq, text):
    return struct.pack("!BBHII", 0x80, 96, seq & 0xffff, seq * 160, ssrc) + text


def rtcp_sr(ssrc, n):
    # RTCP sender report: V=2, PT=200, length 6 words, no report blocks
    return struct.pack("!BBHIIIIII", 0x80, 200, 6, ssrc, 0, n, 0, 0, 0)


def rtcp_rr(ssrc):
    # RTCP receiver report: V=2, PT=201, no report blocks
    return struct.pack("!BBHI", 0x80, 201, 1, ssrc)


def hostport(addr, port):
    return "[%s]:%d" % (addr, port) if ":" in addr else "%s:%d" % (addr, port)


def family(addr):
    return socket.AF_INET6 if ":" in addr else socket.AF_INET


class Log:
    def __init__(self, path):
        self.f = open(path, "a", encoding="utf-8", errors="replace") if path else None
        self.lock = threading.Lock()

    def __call__(self, what, text=""):
        if not self.f:
            return
        with self.lock:
            self.f.write("%.3f %s\n" % (time.time(), what))
            if text:
                self.f.write(text.rstrip("\r\n").replace("\r\n", "\n") + "\n\n")
            self.f.flush()


class Fail(Exception):
    pass


class Reader:
    """RTSP messages and `$` frames on a TCP connection."""

    def __init__(self, sock):
        self.sock = sock
        self.buf = b""

    def fill(self, deadline):
        left = deadline - time.monotonic()
        if left <= 0:
            raise Fail("nothing complete within the time allowed")
        self.sock.settimeout(left)
        try:
            data = self.sock.recv(65536)
        except socket.timeout:
            raise Fail("nothing complete within the time allowed") from None
        if not data:
            raise Fail("the peer closed the connection")
        self.buf += data

    def next(self, deadline):
        """("frame", raw bytes) or ("msg", text)."""
        while True:
            if self.buf[:1] == b"$":
                if len(self.buf) >= 4:
                    total = 4 + struct.unpack("!H", self.buf[2:4])[0]
                    if len(self.buf) >= total:
                        raw, self.buf = self.buf[:total], self.buf[total:]
                        return "frame", raw
            else:
                end = self.buf.find(b"\r\n\r\n")
                if end >= 0:
                    head = self.buf[:end].decode(errors="replace")
                    clen = int(header(head, "content-length") or 0)
                    total = end + 4 + clen
                    if len(self.buf) >= total:
                        msg, self.buf = self.buf[:total], self.buf[total:]
                        return "msg", msg.decode(errors="replace")
            self.fill(deadline)


def header(msg, name):
    for line in msg.split("\r\n\r\n", 1)[0].split("\r\n")[1:]:
        n, _, v = line.partition(":")
        if n.strip().lower() == name:
            return v.strip()
    return ""


def port_pair(text, key):
    m = re.search(r"(?:^|;)%s=(\d+)(?:-(\d+))?" % key, text)
    if not m:
        return None
    a = int(m.group(1))
    return (a, int(m.group(2)) if m.group(2) else a + 1)


def dest_addr(text, key):
    """RTSP 2.0 dest_addr/src_addr: (host or "", rtp port, rtcp port)."""
    m = re.search(r'(?:^|;)%s="([^"]*)"(?:/"([^"]*)")?' % key, text)
    if not m:
        return None
    hosts, ports = [], []
    for part in (m.group(1), m.group(2)):
        if part is None:
            continue
        host, _, port = part.rpartition(":")
        hosts.append(host.strip("[]"))
        ports.append(int(port))
    if len(ports) == 1:
        ports.append(ports[0] + 1)
    return (hosts[0], ports[0], ports[1])


# ------------------------------------------------------------ server

class ServerTrack:
    def __init__(self, n):
        self.n = n
        self.client = None        # (addr, rtp port, rtcp port)
        self.interleaved = None
        self.socks = []
        self.sp = None
        self.played = False
        self.got = {"rtp": 0, "rtcp": 0}
        self.src = {"rtp": "-", "rtcp": "-"}
        self.seen_cp = "-"


class Server:
    def __init__(self, args):
        self.args = args
        self.log = Log(args.log)
        self.lock = threading.Lock()
        self.next_port = SERVER_PORT_BASE
        self.sessions = 0

    def run(self):
        listeners = []
        for addr in self.args.addr:
            s = socket.socket(family(addr), socket.SOCK_STREAM)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family(addr) == socket.AF_INET6:
                s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            s.bind((addr, self.args.port))
            s.listen(16)
            listeners.append(s)
        if self.args.ready:
            with open(self.args.ready, "w", encoding="ascii") as f:
                f.write("ready\n")
        print("ready", flush=True)
        while True:
            r, _, _ = select.select(listeners, [], [])
            for s in r:
                conn, peer = s.accept()
                threading.Thread(target=self.serve, args=(conn, peer), daemon=True).start()

    def bind_pair(self, local):
        with self.lock:
            while True:
                p = self.next_port
                self.next_port += 2
                socks = []
                try:
                    for q in (p, p + 1):
                        u = socket.socket(family(local), socket.SOCK_DGRAM)
                        socks.append(u)
                        u.bind((local, q))
                    return p, socks
                except OSError:
                    for u in socks:
                        u.close()

    def receive(self, track, kind, sock):
        while True:
            try:
                data, src = sock.recvfrom(65536)
            except OSError:
                return
            track.got[kind] += 1
            if track.src[kind] == "-":
                track.src[kind] = hostport(src[0], src[1])
            self.log("server: %s of track%d from %s, %d bytes"
                     % (kind, track.n, hostport(src[0], src[1]), len(data)))

    def serve(self, conn, peer):
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        local = conn.getsockname()[0]
        st = {"tracks": {}, "wlock": threading.Lock(), "up": hashlib.sha256(),
              "up_n": 0, "session": "%08d" % (12345678 + self.sessions)}
        self.sessions += 1
        self.log("server: connection from %s" % hostport(peer[0], peer[1]))
        rd = Reader(conn)
        try:
            while True:
                kind, item = rd.next(time.monotonic() + 600)
                if kind == "frame":
                    st["up"].update(item)
                    st["up_n"] += 1
                    continue
                self.log("server: received", item)
                reply = self.answer(item, st, conn, peer, local)
                if reply is None:
                    continue
                with st["wlock"]:
                    conn.sendall(reply[0].encode())
                self.log("server: sent", reply[0])
                if reply[1]:
                    reply[1]()
        except (Fail, OSError) as e:
            self.log("server: connection from %s ends: %s" % (peer[0], e))
        finally:
            conn.close()

    def answer(self, msg, st, conn, peer, local):
        start = msg.split("\r\n", 1)[0].split()
        if len(start) < 3 or not start[2].startswith("RTSP/"):
            return None
        method, url, version = start
        cseq = header(msg, "cseq")
        head = "%s 200 OK\r\nCSeq: %s\r\n" % (version, cseq)
        after = None
        body = ""
        extra = ""
        if method == "OPTIONS":
            extra = "Public: OPTIONS, DESCRIBE, SETUP, PLAY, GET_PARAMETER, TEARDOWN\r\n"
        elif method == "DESCRIBE":
            base = url.rstrip("/") + "/"
            ip = "IP6" if ":" in local else "IP4"
            body = ("v=0\r\no=- 1 1 IN %s %s\r\ns=cthelperd rtsp test\r\n"
                    "c=IN %s %s\r\nt=0 0\r\na=control:*\r\n"
                    "m=audio 0 RTP/AVP 96\r\na=rtpmap:96 L16/8000\r\n"
                    "a=control:track1\r\n"
                    "m=video 0 RTP/AVP 97\r\na=rtpmap:97 JPEG/90000\r\n"
                    "a=control:track2\r\n" % (ip, local, ip, local))
            extra = "Content-Base: %s\r\nContent-Type: application/sdp\r\n" % base
        elif method == "SETUP":
            extra = self.setup(msg, url, st, peer, local)
            if extra is None:
                return ("%s 461 Unsupported Transport\r\nCSeq: %s\r\n\r\n" % (version, cseq), None)
        elif method == "PLAY":
            tracks = self.pick(st, url)
            extra = "Session: %s\r\nRange: npt=0-\r\n" % st["session"]
            after = lambda: self.play(tracks, st, conn)  # noqa: E731
        elif method == "GET_PARAMETER":
            lines = []
            for t in st["tracks"].values():
                lines.append("track%d client_port=%s rtp_in=%d rtcp_in=%d "
                             "rtp_src=%s rtcp_src=%s\r\n"
                             % (t.n, t.seen_cp, t.got["rtp"], t.got["rtcp"],
                                t.src["rtp"], t.src["rtcp"]))
            lines.append("interleaved_in=%d sha256=%s\r\n"
                         % (st["up_n"], st["up"].hexdigest()))
            body = "".join(lines)
            extra = "Content-Type: text/parameters\r\nSession: %s\r\n" % st["session"]
        elif method == "TEARDOWN":
            extra = "Session: %s\r\n" % st["session"]
            after = lambda: self.late(st)  # noqa: E731
        else:
            return ("%s 405 Method Not Allowed\r\nCSeq: %s\r\n\r\n" % (version, cseq), None)
        if body:
            extra += "Content-Length: %d\r\n" % len(body.encode())
        return (head + extra + "\r\n" + body, after)

    def setup(self, msg, url, st, peer, local):
        transport = header(msg, "transport").split(",")[0].strip()
        m = re.search(r"track(\d+)$", url)
        n = int(m.group(1)) if m else len(st["tracks"]) + 1
        t = st["tracks"].get(n) or ServerTrack(n)
        if "/TCP" in transport.split(";")[0]:
            t.interleaved = port_pair(transport, "interleaved") or (0, 1)
            reply = "RTP/AVP/TCP;unicast;interleaved=%d-%d" % t.interleaved
        else:
            cp = port_pair(transport, "client_port")
            da = dest_addr(transport, "dest_addr")
            if cp:
                t.client = (peer[0], cp[0], cp[1])
                t.seen_cp = "%d-%d" % cp
            elif da:
                t.client = (da[0] or peer[0], da[1], da[2])
                t.seen_cp = "%d-%d" % (da[1], da[2])
            else:
                return None
            if not t.socks:
                p, t.socks = self.bind_pair(local)
                t.sp = (p, p + 1)
                for kind, s in zip(("rtp", "rtcp"), t.socks):
                    threading.Thread(target=self.receive, args=(t, kind, s), daemon=True).start()
            if cp:
                reply = ("RTP/AVP;unicast;client_port=%d-%d;server_port=%d-%d"
                         % (cp[0], cp[1], t.sp[0], t.sp[1]))
            else:
                host = "[%s]" % local if ":" in local else local
                reply = ('RTP/AVP;unicast;dest_addr="%s"/"%s";src_addr="%s:%d"/"%s:%d"'
                         % (hostport(t.client[0], t.client[1]),
                            hostport(t.client[0], t.client[2]),
                            host, t.sp[0], host, t.sp[1]))
        st["tracks"][n] = t
        return "Transport: %s\r\nSession: %s;timeout=60\r\n" % (reply, st["session"])

    @staticmethod
    def pick(st, url):
        m = re.search(r"track(\d+)$", url)
        if m:
            t = st["tracks"].get(int(m.group(1)))
            return [t] if t else []
        return list(st["tracks"].values())

    def play(self, tracks, st, conn):
        for t in tracks:
            t.played = True
        udp = [t for t in tracks if t.client]
        il = [t for t in tracks if t.interleaved]
        if udp:
            threading.Thread(target=self.send_media, args=(udp, "play"), daemon=True).start()
        if il:
            def push():
                try:
                    for f in interleaved_frames():
                        with st["wlock"]:
                            conn.sendall(f)
                    self.log("server: %d interleaved frames sent" % len(interleaved_frames()))
                except OSError as e:
                    self.log("server: interleaved frames: %s" % e)
            threading.Thread(target=push, daemon=True).start()

    def send_media(self, tracks, why):
        for i in range(RTP_COUNT):
            for t in tracks:
                addr, a, b = t.client
                try:
                    t.socks[0].sendto(rtp_packet(0x5000 + t.n, i, b"rtp %s track%d" % (why.encode(), t.n)),
                                      (addr, a))
                    if i < RTCP_COUNT:
                        t.socks[1].sendto(rtcp_sr(0x5000 + t.n, i), (addr, b))
                except OSError as e:
                    self.log("server: send to %s: %s" % (hostport(addr, a), e))
            time.sleep(PACKET_GAP)
        self.log("server: %s media sent to %s" % (why, ", ".join(
            "track%d %s/%d" % (t.n, hostport(t.client[0], t.client[1]), t.client[2]) for t in tracks)))

    def late(self, st):
        unplayed = [t for t in st["tracks"].values() if t.client and not t.played]

        def later():
            time.sleep(LATE_DELAY)
            if unplayed:
                self.send_media(unplayed, "late")
            time.sleep(5)
            for t in st["tracks"].values():
                for s in t.socks:
                    s.close()
        threading.Thread(target=later, daemon=True).start()


# ------------------------------------------------------------ client

class ClientTrack:
    def __init__(self, n, url):
        self.n = n
        self.url = url
        self.socks = []
        self.ports = None
        self.sp = None
        self.cp = "-"
        self.got = {"rtp": 0, "rtcp": 0}
        self.src = {"rtp": "-", "rtcp": "-"}
        self.played = False


class Client:
    def __init__(self, args):
        self.args = args
        self.log = Log(args.log)
        self.cseq = 0
        self.session = None
        self.report = {}
        host = args.host
        self.uhost = "[%s]" % host if ":" in host else host
        self.version = "RTSP/2.0" if args.rtsp2 else "RTSP/1.0"

    def run(self):
        a = self.args
        step = "connect"
        try:
            self.sock = socket.socket(family(a.host), socket.SOCK_STREAM)
            self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if a.bind:
                self.sock.bind((a.bind, 0))
            self.sock.settimeout(RESPONSE_WAIT)
            try:
                self.sock.connect((a.host, a.port))
            except OSError as e:
                raise Fail("%s port %d: %s" % (a.host, a.port, e)) from None
            self.rd = Reader(self.sock)
            base = "rtsp://%s:%d/test" % (self.uhost, a.port)
            step = "OPTIONS"
            self.request("OPTIONS", base)
            step = "DESCRIBE"
            reply = self.request("DESCRIBE", base, "Accept: application/sdp\r\n")
            cbase = header(reply, "content-base") or base + "/"
            controls = re.findall(r"a=control:(track\d+)", reply)
            if len(controls) < 2:
                raise Fail("the SDP names %d tracks" % len(controls))
            tracks = [ClientTrack(i + 1, cbase + c) for i, c in enumerate(controls[:a.tracks])]
            step = "SETUP"
            for t in tracks:
                self.setup(t)
            if a.sync_dir:
                step = "sync"
                open(os.path.join(a.sync_dir, "setup"), "w").close()
                deadline = time.monotonic() + 60
                while not os.path.exists(os.path.join(a.sync_dir, "go")):
                    if time.monotonic() > deadline:
                        raise Fail("no go file within 60 s")
                    time.sleep(0.1)
            step = "punch"
            punched = [t for t in tracks if str(t.n) in a.punch.split(",") and t.socks]
            for t in punched:
                self.punch(t)
            if punched:
                time.sleep(0.3)
            step = "PLAY"
            playing = tracks if a.play == "all" else tracks[:1]
            self.request("PLAY", cbase.rstrip("/") if a.play == "all" else playing[0].url,
                         "Range: npt=0-\r\n")
            for t in playing:
                t.played = True
            step = "media"
            if a.interleaved:
                self.interleaved()
            else:
                self.wait_media(playing, a.wait)
                for t in playing:
                    if t not in punched and t.socks:
                        t.socks[1].sendto(rtcp_rr(0x4000 + t.n), (a.host, t.sp[1]))
                time.sleep(0.3)
            step = "GET_PARAMETER"
            reply = self.request("GET_PARAMETER", cbase.rstrip("/"))
            self.server_report(reply.split("\r\n\r\n", 1)[1] if "\r\n\r\n" in reply else "")
            step = "TEARDOWN"
            self.request("TEARDOWN", cbase.rstrip("/"))
            unplayed = [t for t in tracks if not t.played and t.socks]
            if a.late and unplayed:
                for t in unplayed:
                    t.got = {"rtp": 0, "rtcp": 0}
                self.wait_media(unplayed, a.late, until_all=False)
                self.report["late.rtp"] = sum(t.got["rtp"] for t in unplayed)
                self.report["late.rtcp"] = sum(t.got["rtcp"] for t in unplayed)
            for t in tracks:
                k = "t%d." % t.n
                if t.socks and not (a.late and t in unplayed):
                    self.report[k + "rtp"] = t.got["rtp"]
                    self.report[k + "rtcp"] = t.got["rtcp"]
                    self.report[k + "src"] = t.src["rtp"]
                    self.report[k + "rtcp_src"] = t.src["rtcp"]
                self.report[k + "sp"] = "%d-%d" % t.sp if t.sp else "-"
                self.report[k + "cp"] = t.cp
        except (Fail, OSError) as e:
            print("ERROR %s: %s" % (step, e), flush=True)
            self.log("client: ERROR %s: %s" % (step, e))
            return 1
        line = "REPORT " + " ".join("%s=%s" % kv for kv in self.report.items())
        print(line, flush=True)
        self.log("client: " + line)
        return 0

    def request(self, method, url, extra="", parts=None):
        self.cseq += 1
        msg = "%s %s %s\r\nCSeq: %d\r\n" % (method, url, self.version, self.cseq)
        if self.session:
            msg += "Session: %s\r\n" % self.session
        msg += extra + "\r\n"
        data = msg.encode()
        if parts:
            cuts = [0] + [data.index(p.encode()) + len(p) for p in parts] + [len(data)]
            for i in range(len(cuts) - 1):
                if i:
                    time.sleep(SPLIT_PAUSE)
                self.sock.sendall(data[cuts[i]:cuts[i + 1]])
        else:
            self.sock.sendall(data)
        self.log("client: sent%s" % (" in %d segments" % (len(parts) + 1) if parts else ""), msg)
        deadline = time.monotonic() + RESPONSE_WAIT
        while True:
            kind, item = self.rd.next(deadline)
            if kind == "frame":
                self.early_frames.append(item)
                continue
            self.log("client: received", item)
            if header(item, "cseq") == str(self.cseq):
                break
        status = item.split("\r\n", 1)[0]
        if len(status.split()) < 2 or status.split()[1] != "200":
            raise Fail("%s answered %s" % (method, status))
        return item

    early_frames = []

    def setup(self, t):
        a = self.args
        if a.interleaved:
            transport = "RTP/AVP/TCP;unicast;interleaved=%d-%d" % (2 * t.n - 2, 2 * t.n - 1)
        else:
            p = a.rtp_base + 2 * (t.n - 1)
            for q in (p, p + 1):
                u = socket.socket(family(a.host), socket.SOCK_DGRAM)
                u.bind((a.bind or ("::" if ":" in a.host else "0.0.0.0"), q))
                u.setblocking(False)
                t.socks.append(u)
            t.ports = (p, p + 1)
            if a.rtsp2:
                transport = 'RTP/AVP;unicast;dest_addr=":%d"/":%d"' % (p, p + 1)
            else:
                transport = "RTP/AVP;unicast;client_port=%d-%d" % (p, p + 1)
        parts = None
        if a.split:
            key = "dest_addr=\":" if a.rtsp2 else "client_port="
            parts = ["Trans", key + transport.split(key)[1][:2]] if key in transport \
                else ["Trans", "interleaved="]
        reply = self.request("SETUP", t.url, "Transport: %s\r\n" % transport, parts)
        if not self.session:
            self.session = header(reply, "session").split(";")[0]
        tr = header(reply, "transport")
        if t.socks:
            sp = port_pair(tr, "server_port")
            if not sp:
                sa = dest_addr(tr, "src_addr")
                sp = (sa[1], sa[2]) if sa else None
            if not sp:
                raise Fail("the SETUP reply names no server_port: %s" % tr)
            t.sp = sp
            cp = port_pair(tr, "client_port")
            if not cp:
                da = dest_addr(tr, "dest_addr")
                cp = (da[1], da[2]) if da else None
            t.cp = "%d-%d" % cp if cp else "-"

    def punch(self, t):
        a = self.args
        for i in range(2):
            t.socks[0].sendto(rtp_packet(0x4000 + t.n, i, b"punch"), (a.host, t.sp[0]))
        t.socks[1].sendto(rtcp_rr(0x4000 + t.n), (a.host, t.sp[1]))
        self.log("client: punched track%d to %s" % (t.n, hostport(a.host, t.sp[0])))

    def wait_media(self, tracks, seconds, until_all=True):
        socks = {}
        for t in tracks:
            socks[t.socks[0]] = (t, "rtp")
            socks[t.socks[1]] = (t, "rtcp")
        deadline = time.monotonic() + seconds
        while True:
            if until_all and all(t.got["rtp"] >= RTP_COUNT and t.got["rtcp"] >= RTCP_COUNT
                                 for t in tracks):
                return
            left = deadline - time.monotonic()
            if left <= 0:
                return
            r, _, _ = select.select(list(socks), [], [], left)
            for s in r:
                try:
                    data, src = s.recvfrom(65536)
                except OSError:
                    continue
                t, kind = socks[s]
                t.got[kind] += 1
                if t.src[kind] == "-":
                    t.src[kind] = hostport(src[0], src[1])
                self.log("client: %s of track%d from %s: %r"
                         % (kind, t.n, hostport(src[0], src[1]), data[12:40]))

    def interleaved(self):
        want = interleaved_frames()
        for f in upstream_frames():
            self.sock.sendall(f)
        got = list(self.early_frames)
        deadline = time.monotonic() + self.args.wait
        try:
            while len(got) < len(want):
                kind, item = self.rd.next(deadline)
                if kind == "frame":
                    got.append(item)
                else:
                    self.log("client: received amid the frames", item)
        except Fail as e:
            self.log("client: interleaved: %s" % e)
        h = hashlib.sha256(b"".join(got)).hexdigest()
        self.report["il.frames"] = len(got)
        self.report["il.want"] = len(want)
        self.report["il.sha"] = "ok" if h == hashlib.sha256(b"".join(want)).hexdigest() else "bad"
        self.log("client: %d of %d frames, sha256 %s" % (len(got), len(want), self.report["il.sha"]))

    def server_report(self, body):
        up = hashlib.sha256(b"".join(upstream_frames())).hexdigest()
        for line in body.split("\r\n"):
            kv = dict(w.split("=", 1) for w in line.split()[1:] if "=" in w)
            m = re.match(r"track(\d+) ", line)
            if m:
                k = "t%s." % m.group(1)
                self.report[k + "sv_rtp"] = kv.get("rtp_in", "?")
                self.report[k + "sv_rtcp"] = kv.get("rtcp_in", "?")
                self.report[k + "sv_cp"] = kv.get("client_port", "?")
                self.report[k + "sv_src"] = kv.get("rtp_src", "?")
            elif line.startswith("interleaved_in=") and self.args.interleaved:
                n, _, sha = line.partition(" sha256=")
                n = int(n.split("=")[1])
                self.report["il.up"] = "ok" if sha == up and n == len(upstream_frames()) \
                    else "bad(%d frames)" % n


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("server")
    s.add_argument("--addr", action="append", required=True)
    s.add_argument("--port", type=int, default=554)
    s.add_argument("--ready")
    s.add_argument("--log")
    c = sub.add_parser("client")
    c.add_argument("--host", required=True)
    c.add_argument("--port", type=int, default=554)
    c.add_argument("--bind")
    c.add_argument("--rtp-base", type=int, default=5000)
    c.add_argument("--tracks", type=int, default=2, choices=(1, 2))
    c.add_argument("--play", default="all", choices=("all", "1"))
    c.add_argument("--punch", default="")
    c.add_argument("--split", action="store_true")
    c.add_argument("--interleaved", action="store_true")
    c.add_argument("--rtsp2", action="store_true")
    c.add_argument("--late", type=float, default=0)
    c.add_argument("--wait", type=float, default=3)
    c.add_argument("--sync-dir")
    c.add_argument("--log")
    args = ap.parse_args()
    if args.cmd == "server":
        Server(args).run()
        return 0
    if args.interleaved:
        args.tracks = 1
    return Client(args).run()


if __name__ == "__main__":
    sys.exit(main())
