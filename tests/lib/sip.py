#!/usr/bin/python3
"""SIP user agents that sipp cannot play, for tests/sip/inside.sh.

  sip.py split-call LOCAL-IP REMOTE-IP REMOTE-PORT SDP-PORT CALL-ID MSG-LOG
      A caller over TCP whose INVITE goes out as two TCP segments: the
      header block (up to and including the empty line) in the first, the
      SDP body in the second, SPLIT_PAUSE seconds later (TCP_NODELAY, two
      send() calls).  The SDP is tests/sip/call-uac.xml's: c= LOCAL-IP,
      audio on SDP-PORT, video on SDP-PORT + 2.  Prints
      "segments DATA-SEGS RETRANS" (the connection's TCP_INFO counters:
      data segments sent, retransmissions) once the INVITE is out; then
      waits for the final response, ACKs a 200 and prints "up"; at a line
      "bye" on stdin sends BYE and waits for its 200, prints "done".
      Every message sent and received goes to MSG-LOG in sipp's
      -trace_msg format (so the test reads it like sipp's logs).
      Exit 0: the call was made and ended; else 1 with "error: why".

  sip.py udp-answer LOCAL-IP MEDIA-ADDR MEDIA-PORT
      A callee on UDP LOCAL-IP:5060 that answers the first INVITE with a
      200 OK whose SDP names MEDIA-ADDR:MEDIA-PORT (whatever address: the
      review's callee names the caller's public one); prints "ready" once
      it listens, "answered" once it answered.
  sip.py udp-invite LOCAL-IP REMOTE-IP MEDIA-PORT [MEDIA-ADDR]
      A caller from UDP LOCAL-IP:5060 to REMOTE-IP:5060 (its media on
      MEDIA-PORT at LOCAL-IP, or at MEDIA-ADDR: a media relay); prints the
      final response's first line.
  sip.py trunk-uac LOCAL-IP REMOTE-IP MEDIA-BASE N
  sip.py trunk-uas LOCAL-IP MEDIA-BASE N
      A SIP trunk (issue 34): N dialogs on ONE signalling flow, UDP
      LOCAL-IP:5060 to REMOTE-IP:5060.  The caller sends N INVITEs
      (Call-ID trunk-K, audio on MEDIA-BASE + 2K), the callee answers
      each with a 200 OK (audio on its own MEDIA-BASE + 2K), the caller
      ACKs and prints "up ANSWERED FAILED".  Each side holds every
      dialog's RTP and RTCP ports.  A line "media" on stdin: the callee
      sends one datagram from each dialog's RTP port to the caller's RTP
      port (what the INVITE's SDP let in), the caller one from each
      RTCP port to the callee's RTCP port (what the 200's SDP let in);
      both print "sent N".  A line "count": "got N", the dialogs whose
      datagram arrived (each side counts what it received).  EOF ends it.
  sip.py tcp-byes REMOTE-IP COUNT
      One TCP connection to REMOTE-IP:5060 that sends COUNT BYEs in one
      send() (one segment as far as the MSS allows), then waits 2 s for
      answers it ignores; prints "sent BYTES".
"""
import select
import socket
import struct
import sys
import time

SPLIT_PAUSE = 0.5
RESPONSE_WAIT = 15     # s for the INVITE's final response, the BYE's 200
HANGUP_WAIT = 60       # s for the test's "bye"


class Fail(Exception):
    pass


class Trace:
    """sipp's -trace_msg format: a dashed line with the time, a line
    saying what happened, an empty line, the message, an empty line."""

    def __init__(self, path):
        self.f = open(path, "w", encoding="utf-8", errors="replace")

    def log(self, what, msg):
        self.f.write("----------------------------------------------- %s\n"
                     % time.strftime("%Y-%m-%d %H:%M:%S"))
        if what == "sent":
            self.f.write("TCP message sent (%d bytes):\n\n" % len(msg))
        else:
            self.f.write("TCP message received [%d] bytes :\n\n" % len(msg))
        self.f.write(msg.decode(errors="replace") + "\n")
        self.f.flush()


class Stream:
    """SIP messages on a TCP connection, framed by Content-Length."""

    def __init__(self, sock, trace):
        self.sock = sock
        self.trace = trace
        self.buf = b""

    def send(self, *parts):
        for i, part in enumerate(parts):
            if i:
                time.sleep(SPLIT_PAUSE)
            self.sock.sendall(part)
        self.trace.log("sent", b"".join(parts))

    def recv(self, deadline):
        while True:
            end = self.buf.find(b"\r\n\r\n")
            if end >= 0:
                head = self.buf[:end].decode(errors="replace")
                clen = 0
                for line in head.split("\r\n")[1:]:
                    name, _, value = line.partition(":")
                    if name.strip().lower() in ("content-length", "l"):
                        clen = int(value.strip())
                total = end + 4 + clen
                if len(self.buf) >= total:
                    msg, self.buf = self.buf[:total], self.buf[total:]
                    self.trace.log("received", msg)
                    return msg.decode(errors="replace")
            left = deadline - time.monotonic()
            if left <= 0:
                raise Fail("no complete message within the time allowed")
            self.sock.settimeout(left)
            try:
                data = self.sock.recv(65536)
            except socket.timeout:
                raise Fail("no complete message within the time allowed") from None
            if not data:
                raise Fail("the callee closed the connection")
            self.buf += data


def header(msg, name):
    for line in msg.split("\r\n")[1:]:
        n, _, v = line.partition(":")
        if n.strip().lower() == name:
            return v.strip()
    return ""


def tcp_info(sock):
    """(data segments sent, retransmissions) from struct tcp_info:
    tcpi_total_retrans at offset 100, tcpi_data_segs_out at 156."""
    info = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 256)
    if len(info) < 160:
        return (-1, -1)
    return (struct.unpack_from("I", info, 156)[0], struct.unpack_from("I", info, 100)[0])


def split_call(local, remote, rport, sdp_port, call_id, log):
    fam = socket.AF_INET6 if ":" in remote else socket.AF_INET
    ip = "6" if fam == socket.AF_INET6 else "4"
    sock = socket.socket(fam, socket.SOCK_STREAM)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.settimeout(5)
    sock.bind((local, 0))
    try:
        sock.connect((remote, int(rport)))
    except OSError as e:
        raise Fail("connect to %s port %s: %s" % (remote, rport, e)) from None
    lport = sock.getsockname()[1]
    lhost = "[%s]" % local if ip == "6" else local
    rhost = "[%s]" % remote if ip == "6" else remote
    stream = Stream(sock, Trace(log))
    uri = "sip:callee@%s:%s" % (rhost, rport)
    common = ("From: <sip:caller@%s:%d>;tag=split1\r\n" % (lhost, lport) +
              "Call-ID: %s\r\n" % call_id)
    contact = "Contact: <sip:caller@%s:%d;transport=TCP>\r\n" % (lhost, lport)

    def via(n):
        return "Via: SIP/2.0/TCP %s:%d;branch=z9hG4bK-split-%d\r\n" % (lhost, lport, n)

    body = ("v=0\r\n"
            "o=caller 1 1 IN IP%s %s\r\n"
            "s=-\r\n"
            "c=IN IP%s %s\r\n"
            "t=0 0\r\n"
            "m=audio %d RTP/AVP 0\r\n"
            "a=rtpmap:0 PCMU/8000\r\n"
            "m=video %d RTP/AVP 31\r\n"
            "a=rtpmap:31 H261/90000\r\n"
            % (ip, local, ip, local, sdp_port, sdp_port + 2)).encode()
    head = ("INVITE %s SIP/2.0\r\n" % uri + via(1) + common +
            "To: <%s>\r\n" % uri + "CSeq: 1 INVITE\r\n" + contact +
            "Max-Forwards: 70\r\n"
            "Content-Type: application/sdp\r\n"
            "Content-Length: %d\r\n\r\n" % len(body)).encode()
    stream.send(head, body)
    time.sleep(0.2)
    print("segments %d %d" % tcp_info(sock), flush=True)

    deadline = time.monotonic() + RESPONSE_WAIT
    while True:
        msg = stream.recv(deadline)
        start = msg.split("\r\n", 1)[0]
        if not start.startswith("SIP/2.0 ") or "INVITE" not in header(msg, "cseq"):
            continue
        code = int(start.split()[1])
        if code >= 200:
            break
    if code >= 300:
        raise Fail("the INVITE was answered %s" % start)
    to = header(msg, "to")
    stream.send(("ACK %s SIP/2.0\r\n" % uri + via(2) + common + "To: %s\r\n" % to +
                 "CSeq: 1 ACK\r\n" + contact + "Max-Forwards: 70\r\n"
                 "Content-Length: 0\r\n\r\n").encode())
    print("up", flush=True)

    sock.settimeout(None)
    line = ""
    deadline = time.monotonic() + HANGUP_WAIT
    while time.monotonic() < deadline:
        r, _, _ = select.select([sys.stdin], [], [], deadline - time.monotonic())
        if r:
            line = sys.stdin.readline()
            if not line or line.strip() == "bye":
                break
    if line.strip() != "bye":
        raise Fail("no hang-up cue within %d s" % HANGUP_WAIT)
    stream.send(("BYE %s SIP/2.0\r\n" % uri + via(3) + common + "To: %s\r\n" % to +
                 "CSeq: 2 BYE\r\n" + contact + "Max-Forwards: 70\r\n"
                 "Content-Length: 0\r\n\r\n").encode())
    deadline = time.monotonic() + RESPONSE_WAIT
    while True:
        msg = stream.recv(deadline)
        if msg.startswith("SIP/2.0 ") and "BYE" in header(msg, "cseq"):
            break
    if not msg.startswith("SIP/2.0 200"):
        raise Fail("the BYE was answered %s" % msg.split("\r\n", 1)[0])
    sock.close()
    print("done", flush=True)


def sdp(addr, port):
    return ("v=0\r\no=- 1 1 IN IP4 %s\r\ns=-\r\nc=IN IP4 %s\r\nt=0 0\r\n"
            "m=audio %d RTP/AVP 0\r\n" % (addr, addr, port))


def invite(local, remote, body, transport="UDP", cseq=1, method="INVITE"):
    return ("%s sip:callee@%s SIP/2.0\r\n"
            "Via: SIP/2.0/%s %s:5060;branch=z9hG4bK-%s%d\r\n"
            "From: <sip:caller@%s>;tag=1\r\nTo: <sip:callee@%s>\r\n"
            "Call-ID: review-%s@%s\r\nCSeq: %d %s\r\n"
            "Contact: <sip:caller@%s:5060>\r\nMax-Forwards: 70\r\n"
            "Content-Type: application/sdp\r\nContent-Length: %d\r\n\r\n%s"
            % (method, remote, transport, local, method.lower(), cseq, local, remote,
               method.lower(), local, cseq, method, local, len(body), body))


def udp_answer(local, media_addr, media_port):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((local, 5060))
    s.settimeout(RESPONSE_WAIT)
    print("ready", flush=True)
    msg, src = s.recvfrom(65535)
    head = msg.decode("utf-8", "replace").split("\r\n\r\n")[0].split("\r\n")
    keep = [h for h in head[1:] if h.split(":")[0].lower() in
            ("via", "from", "to", "call-id", "cseq")]
    body = sdp(media_addr, media_port)
    ans = ("SIP/2.0 200 OK\r\n" + "\r\n".join(keep) + "\r\n"
           "Contact: <sip:callee@%s:5060>\r\nContent-Type: application/sdp\r\n"
           "Content-Length: %d\r\n\r\n%s" % (local, len(body), body))
    s.sendto(ans.encode(), src)
    print("answered", flush=True)


def udp_invite(local, remote, media_port, media_addr=None):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((local, 5060))
    s.settimeout(RESPONSE_WAIT)
    body = sdp(media_addr or local, media_port)
    s.sendto(invite(local, remote, body).encode(), (remote, 5060))
    msg, _ = s.recvfrom(65535)
    print(msg.decode("utf-8", "replace").split("\r\n")[0], flush=True)


TRUNK_ANSWER_WAIT = 20   # s for every 200 OK of the trunk


def sdp_media(body):
    """(address, audio port) of an SDP body, or None."""
    addr = port = None
    for line in body.split("\r\n"):
        if line.startswith("c=IN IP4 "):
            addr = line[9:].strip()
        elif line.startswith("m=audio "):
            port = int(line.split()[1])
    return (addr, port) if addr and port else None


def trunk_socks(local, base, n):
    out = []
    for k in range(n):
        pair = []
        for off in (0, 1):
            m = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            m.bind((local, base + 2 * k + off))
            m.setblocking(False)
            pair.append(m)
        out.append(pair)
    return out


def trunk_dialog(msg):
    """(Call-ID index K, head lines, body) of a trunk message, or None."""
    text = msg.decode("utf-8", "replace")
    head, _, body = text.partition("\r\n\r\n")
    lines = head.split("\r\n")
    cid = header(text, "call-id") or ""
    if not cid.startswith("trunk-"):
        return None
    try:
        return int(cid[6:].split("@")[0]), lines, body
    except ValueError:
        return None


def trunk_serve(sig, media, which, peers, on_sig):
    """The trunk's loop: signalling to on_sig, datagrams on media[k][which]
    counted, stdin lines "media" (send on media[k][1 - which] to peers[k])
    and "count"; returns at EOF."""
    got = set()
    fds = {sig.fileno(): sig, sys.stdin.fileno(): None}
    for k, pair in enumerate(media):
        fds[pair[which].fileno()] = k
    while True:
        ready, _, _ = select.select(list(fds), [], [], 1)
        for fd in ready:
            if fd == sig.fileno():
                msg, src = sig.recvfrom(65535)
                on_sig(msg, src)
            elif fd == sys.stdin.fileno():
                line = sys.stdin.readline()
                if not line:
                    return
                if line.strip() == "media":
                    n = 0
                    for k, dst in sorted(peers.items()):
                        media[k][1 - which].sendto(b"media-%d" % k, dst)
                        n += 1
                    print("sent %d" % n, flush=True)
                elif line.strip() == "count":
                    print("got %d" % len(got), flush=True)
            else:
                k = fds[fd]
                try:
                    media[k][which].recvfrom(2048)
                    got.add(k)
                except BlockingIOError:
                    pass


def trunk_uas(local, base, n):
    sig = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sig.bind((local, 5060))
    media = trunk_socks(local, base, n)
    peers = {}                  # K: the caller's RTP address
    print("ready", flush=True)

    def answer(msg, src):
        d = trunk_dialog(msg)
        if not d or not d[1][0].startswith("INVITE ") or d[0] >= n:
            return
        k, lines, body = d
        m = sdp_media(body)
        if m:
            peers[k] = m
        keep = [h for h in lines[1:] if h.split(":")[0].lower() in
                ("via", "from", "call-id", "cseq")]
        to = [h for h in lines[1:] if h.split(":")[0].lower() == "to"]
        mine = sdp(local, base + 2 * k)
        ans = ("SIP/2.0 200 OK\r\n" + "\r\n".join(keep) + "\r\n" +
               (to[0] + ";tag=uas%d\r\n" % k if to else "") +
               "Contact: <sip:callee@%s:5060>\r\nContent-Type: application/sdp\r\n"
               "Content-Length: %d\r\n\r\n%s" % (local, len(mine), mine))
        sig.sendto(ans.encode(), src)

    trunk_serve(sig, media, 1, peers, answer)


def trunk_uac(local, remote, base, n):
    sig = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sig.bind((local, 5060))
    media = trunk_socks(local, base, n)
    peers = {}                  # K: the callee's RTCP address

    def invite_k(k):
        body = sdp(local, base + 2 * k)
        return ("INVITE sip:callee@%s SIP/2.0\r\n"
                "Via: SIP/2.0/UDP %s:5060;branch=z9hG4bK-trunk%d\r\n"
                "From: <sip:caller@%s>;tag=uac%d\r\nTo: <sip:callee@%s>\r\n"
                "Call-ID: trunk-%d@%s\r\nCSeq: 1 INVITE\r\n"
                "Contact: <sip:caller@%s:5060>\r\nMax-Forwards: 70\r\n"
                "Content-Type: application/sdp\r\nContent-Length: %d\r\n\r\n%s"
                % (remote, local, k, local, k, remote, k, local, local, len(body), body))

    def ack(k, to):
        return ("ACK sip:callee@%s SIP/2.0\r\n"
                "Via: SIP/2.0/UDP %s:5060;branch=z9hG4bK-trunkack%d\r\n"
                "From: <sip:caller@%s>;tag=uac%d\r\n%s\r\n"
                "Call-ID: trunk-%d@%s\r\nCSeq: 1 ACK\r\nMax-Forwards: 70\r\n"
                "Content-Length: 0\r\n\r\n" % (remote, local, k, local, k, to, k, local))

    def answered(msg, src):
        d = trunk_dialog(msg)
        if not d or not d[1][0].startswith("SIP/2.0 200") or d[0] >= n:
            return
        k, lines, body = d
        m = sdp_media(body)
        if m:
            peers[k] = (m[0], m[1] + 1)
        to = [h for h in lines[1:] if h.split(":")[0].lower() == "to"]
        sig.sendto(ack(k, to[0] if to else "To: <sip:callee@%s>" % remote).encode(),
                   (remote, 5060))

    # the INVITEs at a pace the VM keeps up with, each sent again (as a
    # UDP user agent would) until answered
    sig.setblocking(False)
    deadline = time.monotonic() + TRUNK_ANSWER_WAIT
    sent_at = {}
    k = 0
    while len(peers) < n and time.monotonic() < deadline:
        now = time.monotonic()
        for _ in range(10):
            if k < n:
                sig.sendto(invite_k(k).encode(), (remote, 5060))
                sent_at[k] = now
                k += 1
        for j, t in list(sent_at.items()):
            if j not in peers and now - t > 2:
                sig.sendto(invite_k(j).encode(), (remote, 5060))
                sent_at[j] = now
        ready, _, _ = select.select([sig], [], [], 0.05)
        while ready:
            try:
                msg, src = sig.recvfrom(65535)
            except BlockingIOError:
                break
            answered(msg, src)
    print("up %d %d" % (len(peers), n - len(peers)), flush=True)
    sig.setblocking(True)
    trunk_serve(sig, media, 0, peers, answered)


def tcp_byes(remote, count):
    s = socket.create_connection((remote, 5060), timeout=RESPONSE_WAIT)
    local = s.getsockname()[0]
    data = "".join(invite(local, remote, "", "TCP", i + 2, "BYE")
                   for i in range(count)).encode()
    s.sendall(data)
    print("sent %d" % len(data), flush=True)
    s.settimeout(2)
    try:
        while s.recv(65536):
            pass
    except OSError:
        pass
    s.close()


def main():
    try:
        if len(sys.argv) == 5 and sys.argv[1] == "udp-answer":
            udp_answer(sys.argv[2], sys.argv[3], int(sys.argv[4]))
            return
        if len(sys.argv) in (5, 6) and sys.argv[1] == "udp-invite":
            udp_invite(sys.argv[2], sys.argv[3], int(sys.argv[4]), *sys.argv[5:])
            return
        if len(sys.argv) == 6 and sys.argv[1] == "trunk-uac":
            trunk_uac(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
            return
        if len(sys.argv) == 5 and sys.argv[1] == "trunk-uas":
            trunk_uas(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
            return
        if len(sys.argv) == 4 and sys.argv[1] == "tcp-byes":
            tcp_byes(sys.argv[2], int(sys.argv[3]))
            return
        if len(sys.argv) != 8 or sys.argv[1] != "split-call":
            sys.exit(__doc__)
        split_call(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]),
                   sys.argv[6], sys.argv[7])
    except (Fail, OSError) as e:
        print("error: %s" % e, flush=True)
        sys.exit(1)


if __name__ == "__main__":
    main()
