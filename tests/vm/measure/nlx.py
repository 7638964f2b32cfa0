#!/usr/bin/python3
"""Measurement tool for issues 31 and 32 (runs inside the test VM).

  nlx.py exp FAM MASTER TUPLE MASK [--fn NAME] [--helper NAME] [--timeout S]
      ctnetlink IPCTNL_MSG_EXP_NEW; FAM 4|6; MASTER/TUPLE "PROTO,SRC,DST,SP,DP"
      (for GRE SP/DP are the keys), MASK "SRC,DST,SP,DP".  Prints
      "exp-new: 0" or "exp-new: ERRNO (extack)".
  nlx.py nfq QUEUE SECONDS   bind QUEUE (v4+v6), print and accept each packet
  nlx.py udp-send SRC SPORT DST DPORT [TEXT]
  nlx.py udp-recv ADDR PORT SECONDS [GROUP]   print datagrams (join GROUP)
  nlx.py gre-send SRC DST CALLID COUNT      PPTP enhanced GRE (v1) packets
  nlx.py gre-recv SECONDS                   print GRE packets received
  nlx.py tcp-listen ADDR PORT SECONDS / tcp-connect SRC SPORT DST DPORT HOLD
  nlx.py pptp-server ADDR SECONDS PAC_CALLID / pptp-client SRC DST PNS_CALLID HOLD
      SCCRQ/SCCRP and OCRQ/OCRP over tcp/1723 (what nf_conntrack_pptp needs
      to expect the call's GRE)
  nlx.py nfnl [--socket fresh|ct-events|queue:N] [--opener UID] [--drop UID]
              MSG...                                          (issue 32)
      one NETLINK_NETFILTER socket, set up as --socket says (ct-events: bound
      to NFNLGRP_CONNTRACK_NEW; queue:N: NFQNL_CFG_CMD_BIND of queue N),
      created by a child that switched to uid/gid UID first (--opener, the
      fd comes back over SCM_RIGHTS), the process itself switching to UID
      after the set-up (--drop); then each MSG on that same socket:
        ct-get            IPCTNL_MSG_CT_GET dump (read-only)
        ct-del P,S,D,SP,DP  IPCTNL_MSG_CT_DELETE of that IPv4 entry
        ct-flush          IPCTNL_MSG_CT_DELETE without a tuple (everything)
        exp-flush         IPCTNL_MSG_EXP_DELETE without a tuple (everything)
        helper-del NAME   NFNL_MSG_CTHELPER_DEL of user-space helper NAME
        nft-deltable NAME nftables batch: NFT_MSG_DELTABLE inet NAME
        recv SECONDS      not a message: the conntrack events (multicast
                          IPCTNL_MSG_CT_NEW) read in that time, and their
                          original source addresses
      Prints "STEP: RESULT" per set-up step and message, RESULT "0" or the
      errno name the kernel answered ("send:ERRNO" if send() itself failed).
"""
import errno, os, select, socket, struct, sys, time

NLA_F_NESTED = 0x8000
NLM_F_REQUEST, NLM_F_ACK, NLM_F_EXCL, NLM_F_CREATE = 1, 4, 0x200, 0x400


def attr(t, p):
    h = struct.pack("=HH", 4 + len(p), t) + p
    return h + b"\0" * ((4 - len(p) % 4) % 4)


def nest(t, *items):
    return attr(t | NLA_F_NESTED, b"".join(items))


def parse(buf):
    out, off = {}, 0
    while off + 4 <= len(buf):
        ln, t = struct.unpack_from("=HH", buf, off)
        if ln < 4:
            break
        out[t & 0x3fff] = buf[off + 4:off + ln]
        off += (ln + 3) & ~3
    return out


def nl_sock():
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 12)
    s.setsockopt(270, 11, 1)  # NETLINK_EXT_ACK
    s.setsockopt(270, 10, 1)  # NETLINK_CAP_ACK
    s.bind((0, 0))
    return s


def nl_req(s, mtype, flags, fam, res_id, payload):
    body = struct.pack("=BBH", fam, 0, socket.htons(res_id)) + payload
    s.send(struct.pack("=IHHII", 16 + len(body), mtype,
                       NLM_F_REQUEST | NLM_F_ACK | flags, 1, 0) + body)
    while True:
        data = s.recv(65536)
        off = 0
        while off + 16 <= len(data):
            ln, t, fl, _, _ = struct.unpack_from("=IHHII", data, off)
            if t == 2:
                err = -struct.unpack_from("=i", data, off + 16)[0]
                msg = ""
                if fl & 0x200:  # NLM_F_ACK_TLVS, after the capped request
                    olen = struct.unpack_from("=I", data, off + 20)[0]
                    tl = parse(data[off + 20 + 16:off + ln])
                    if 1 in tl:
                        msg = tl[1].rstrip(b"\0").decode()
                return err, msg
            off += (ln + 3) & ~3


def tuple_nest(t, fam, spec):
    proto, src, dst, sp, dp = spec.split(",")
    af = socket.AF_INET if fam == "4" else socket.AF_INET6
    a_src, a_dst = (1, 2) if fam == "4" else (3, 4)
    return nest(t,
                nest(1, attr(a_src, socket.inet_pton(af, src)),
                     attr(a_dst, socket.inet_pton(af, dst))),
                nest(2, attr(1, struct.pack("B", int(proto))),
                     attr(2, struct.pack(">H", int(sp, 0))),
                     attr(3, struct.pack(">H", int(dp, 0)))))


def cmd_exp(a):
    fam, master, tup, mask = a[:4]
    rest = a[4:]
    opts = dict(zip(rest[::2], rest[1::2]))
    proto = tup.split(",")[0]
    p = (tuple_nest(1, fam, master) + tuple_nest(2, fam, tup)
         + tuple_nest(3, fam, proto + "," + mask)
         + attr(4, struct.pack(">I", int(opts.get("--timeout", "60")))))
    if "--helper" in opts:
        p += attr(6, opts["--helper"].encode() + b"\0")
    if "--flags" in opts:
        p += attr(8, struct.pack(">I", int(opts["--flags"], 0)))
    if "--class" in opts:
        p += attr(9, struct.pack(">I", int(opts["--class"])))
    if "--fn" in opts:
        p += attr(11, opts["--fn"].encode() + b"\0")
    s = nl_sock()
    err, msg = nl_req(s, (2 << 8) | 0, NLM_F_CREATE | NLM_F_EXCL,
                      2 if fam == "4" else 10, 0, p)
    print("exp-new: %s%s" % (errno.errorcode.get(err, str(err)) if err else "0",
                             " (%s)" % msg if msg else ""))
    return 0 if err == 0 else 1


def ipdesc(pl):
    v = pl[0] >> 4
    if v == 4:
        hl = (pl[0] & 15) * 4
        proto, src, dst = pl[9], socket.inet_ntop(2, pl[12:16]), socket.inet_ntop(2, pl[16:20])
    else:
        hl, proto = 40, pl[6]
        src, dst = socket.inet_ntop(10, pl[8:24]), socket.inet_ntop(10, pl[24:40])
    if proto in (6, 17):
        sp, dp = struct.unpack_from(">HH", pl, hl)
        return "proto=%d %s:%d -> %s:%d" % (proto, src, sp, dst, dp)
    return "proto=%d %s -> %s" % (proto, src, dst)


def cmd_nfq(a):
    q, secs = int(a[0]), float(a[1])
    s = nl_sock()
    for fam in (2, 10):
        e = nl_req(s, (3 << 8) | 2, 0, fam, q, attr(1, struct.pack(">BBH", 1, 0, fam)))
        if e[0]:
            print("nfq bind pf %d: %s" % (fam, errno.errorcode.get(e[0])))
    e = nl_req(s, (3 << 8) | 2, 0, 0, q, attr(2, struct.pack(">IB", 0xffff, 2))
               + attr(4, struct.pack(">I", 2)) + attr(5, struct.pack(">I", 2)))
    print("nfq queue %d bound (%s)" % (q, e[0] or "0"), flush=True)
    end = time.time() + secs
    hooks = ["PREROUTING", "INPUT", "FORWARD", "OUTPUT", "POSTROUTING"]
    while time.time() < end:
        r, _, _ = select.select([s], [], [], end - time.time())
        if not r:
            break
        data = s.recv(65536)
        off = 0
        while off + 16 <= len(data):
            ln, t, fl, _, _ = struct.unpack_from("=IHHII", data, off)
            if t == ((3 << 8) | 0):
                at = parse(data[off + 20:off + ln])
                pid, _hw, hook = struct.unpack(">IHB", at[1][:7])
                ctinfo = struct.unpack(">I", at[12])[0] if 12 in at else -1
                print("nfq queue %d: hook=%s ctinfo=%d %s" % (
                    q, hooks[hook], ctinfo, ipdesc(at[10])), flush=True)
                v = attr(2, struct.pack(">II", 1, pid))
                body = struct.pack("=BBH", 0, 0, socket.htons(q)) + v
                s.send(struct.pack("=IHHII", 16 + len(body), (3 << 8) | 1,
                                   NLM_F_REQUEST, 0, 0) + body)
            off += (ln + 3) & ~3
    return 0


def fam_of(addr):
    return socket.AF_INET6 if ":" in addr else socket.AF_INET


def cmd_udp_send(a):
    src, sp, dst, dp = a[0], int(a[1]), a[2], int(a[3])
    text = a[4] if len(a) > 4 else "hello"
    s = socket.socket(fam_of(dst), socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((src, sp))
    s.sendto(text.encode(), (dst, dp))
    print("sent %s:%d -> %s:%d %r" % (src, sp, dst, dp, text))
    return 0


def cmd_udp_recv(a):
    addr, port, secs = a[0], int(a[1]), float(a[2])
    s = socket.socket(fam_of(addr), socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((addr, port))
    if len(a) > 3:
        s.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP,
                     socket.inet_aton(a[3]) + socket.inet_aton("0.0.0.0"))
    print("recv listening %s:%d" % (addr, port), flush=True)
    end, n = time.time() + secs, 0
    while time.time() < end:
        r, _, _ = select.select([s], [], [], end - time.time())
        if not r:
            break
        d, peer = s.recvfrom(65536)
        n += 1
        print("recv %s:%d got %r from %s:%d" % (addr, port, d.decode(errors="replace"), peer[0], peer[1]), flush=True)
    print("recv %s:%d total %d" % (addr, port, n), flush=True)
    return 0


def cmd_gre_send(a):
    src, dst, callid, n = a[0], a[1], int(a[2], 0), int(a[3])
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, 47)
    s.bind((src, 0))
    for i in range(n):
        payload = b"\xff\x03\x00\x21ppp%d" % i
        # flags: K (key) + S (seq) present, version 1; protocol PPP 0x880b;
        # key = payload length (16 bits) + call id (16 bits); seq
        hdr = struct.pack(">HHHHI", 0x3001, 0x880b, len(payload), callid, i)
        s.sendto(hdr + payload, (dst, 0))
        time.sleep(0.1)
    print("gre sent %d from %s to %s call_id=%d" % (n, src, dst, callid))
    return 0


def cmd_gre_recv(a):
    secs = float(a[0])
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, 47)
    print("gre listening", flush=True)
    end, n = time.time() + secs, 0
    while time.time() < end:
        r, _, _ = select.select([s], [], [], end - time.time())
        if not r:
            break
        d = s.recv(65536)
        hl = (d[0] & 15) * 4
        callid = struct.unpack_from(">H", d, hl + 6)[0]
        n += 1
        print("gre got from %s to %s call_id=%d" % (socket.inet_ntoa(d[12:16]), socket.inet_ntoa(d[16:20]), callid), flush=True)
    print("gre total %d" % n, flush=True)
    return 0


def cmd_tcp_listen(a):
    addr, port, secs = a[0], int(a[1]), float(a[2])
    s = socket.socket(fam_of(addr), socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((addr, port))
    s.listen(5)
    s.settimeout(secs)
    print("tcp listening %s:%d" % (addr, port), flush=True)
    try:
        c, peer = s.accept()
        print("tcp accepted from %s:%d" % peer[:2], flush=True)
        c.settimeout(secs)
        try:
            d = c.recv(100)
            print("tcp got %r" % d, flush=True)
            c.send(b"220 ok\r\n")
            time.sleep(secs)
        except OSError:
            pass
    except OSError as e:
        print("tcp listen: %s" % e)
    return 0


def cmd_tcp_connect(a):
    src, sp, dst, dp, hold = a[0], int(a[1]), a[2], int(a[3]), float(a[4])
    s = socket.socket(fam_of(dst), socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((src, sp))
    s.settimeout(5)
    try:
        s.connect((dst, dp))
        s.send(b"USER x\r\n")
        print("tcp connected %s:%d -> %s:%d, got %r" % (src, sp, dst, dp, s.recv(100)), flush=True)
        time.sleep(hold)
    except OSError as e:
        print("tcp connect: %s" % e, flush=True)
    return 0


# PPTP control messages (RFC 2637): header + control header + body
def pptp_msg(ctype, body, size):
    m = struct.pack(">HHIHH", size, 1, 0x1a2b3c4d, ctype, 0) + body
    return m + b"\0" * (size - len(m))


def recv_msg(c):
    h = b""
    while len(h) < 2:
        h += c.recv(2 - len(h))
    ln = struct.unpack(">H", h)[0]
    while len(h) < ln:
        h += c.recv(ln - len(h))
    return struct.unpack_from(">H", h, 8)[0], h


def cmd_pptp_server(a):
    addr, secs, pac_cid = a[0], float(a[1]), int(a[2])
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((addr, 1723))
    s.listen(1)
    s.settimeout(secs)
    print("pptp server listening", flush=True)
    c, peer = s.accept()
    c.settimeout(secs)
    t, _ = recv_msg(c)
    print("pptp server got type %d" % t, flush=True)
    # SCCRP: version 1.0, result 1 (OK)
    c.send(pptp_msg(2, struct.pack(">HBBIIHH", 0x100, 1, 0, 1, 1, 1, 1), 156))
    t, m = recv_msg(c)
    pns_cid = struct.unpack_from(">H", m, 12)[0]
    print("pptp server got type %d call id %d" % (t, pns_cid), flush=True)
    # OCRP: call id, peer's call id, result 1 (connected)
    c.send(pptp_msg(8, struct.pack(">HHBBHIHHI", pac_cid, pns_cid, 1, 0, 0,
                                   64000, 64, 0, 0), 32))
    print("pptp server sent OCRP call id %d peer %d" % (pac_cid, pns_cid), flush=True)
    time.sleep(secs)
    return 0


def cmd_pptp_client(a):
    src, dst, pns_cid, hold = a[0], a[1], int(a[2]), float(a[3])
    c = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    c.bind((src, 0))
    c.settimeout(10)
    c.connect((dst, 1723))
    c.send(pptp_msg(1, struct.pack(">HBBIIHH", 0x100, 0, 0, 1, 1, 1, 1), 156))
    t, _ = recv_msg(c)
    print("pptp client got type %d" % t, flush=True)
    c.send(pptp_msg(7, struct.pack(">HHIIIIHHHH", pns_cid, 1, 300, 100000000,
                                   3, 3, 64, 0, 0, 0), 168))
    t, m = recv_msg(c)
    print("pptp client got type %d call id %d" % (t, struct.unpack_from(">H", m, 12)[0]), flush=True)
    time.sleep(hold)
    return 0


# -- issue 32: which NETLINK_NETFILTER messages a socket may send ---------

NFNL_SUBSYS = {"ct": 1, "exp": 2, "queue": 3, "cthelper": 9, "nft": 10}
NFNL_BATCH_BEGIN, NFNL_BATCH_END = 0x10, 0x11
NFNLGRP_CONNTRACK_NEW = 1
NLM_F_DUMP = 0x300


def ename(err):
    return errno.errorcode.get(err, str(err)) if err else "0"


class Nfnl:
    """One NETLINK_NETFILTER socket; every request carries its own seq."""

    def __init__(self, sock):
        self.s, self.seq = sock, 100

    def msg(self, subsys, mtype, flags, fam, res_id, payload):
        self.seq += 1
        body = struct.pack("=BBH", fam, 0, socket.htons(res_id)) + payload
        hdr = struct.pack("=IHHII", 16 + len(body),
                          (NFNL_SUBSYS[subsys] << 8) | mtype if subsys
                          else mtype, NLM_F_REQUEST | flags, self.seq, 0)
        return self.seq, hdr + body

    def send(self, data):
        try:
            self.s.send(data)
        except OSError as e:
            return "send:" + ename(e.errno)
        return None

    def answers(self, wait=3.0):
        """Yields (seq, type, errno-or-None) of each message read."""
        end = time.time() + wait
        while True:
            r, _, _ = select.select([self.s], [], [], max(0, end - time.time()))
            if not r:
                yield None, None, "timeout"
                return
            data = self.s.recv(1 << 16)
            off = 0
            while off + 16 <= len(data):
                ln, t, _, seq, _ = struct.unpack_from("=IHHII", data, off)
                err = None
                if t == 2:
                    err = -struct.unpack_from("=i", data, off + 16)[0]
                yield seq, t, err
                off += (ln + 3) & ~3

    def ask(self, subsys, mtype, fam, payload, flags=0):
        seq, m = self.msg(subsys, mtype, NLM_F_ACK | flags, fam, 0, payload)
        failed = self.send(m)
        if failed:
            return failed
        for aseq, _t, err in self.answers():
            if err == "timeout":
                return "no-answer"
            if aseq == seq and err is not None:
                return ename(err)

    def dump(self, subsys, mtype):
        seq, m = self.msg(subsys, mtype, NLM_F_DUMP, socket.AF_UNSPEC, 0, b"")
        failed = self.send(m)
        if failed:
            return failed
        n = 0
        for aseq, t, err in self.answers():
            if err == "timeout":
                return "no-answer"
            if aseq != seq:
                continue
            if t == 3:                      # NLMSG_DONE
                return "0 (%d entries)" % n
            if err is not None:
                return ename(err)
            n += 1

    def batch(self, payload_msgs):
        """nftables batch: the answer of the first message that failed, or 0
        once every message asking for an ack was acknowledged."""
        b_seq, begin = self.msg(None, NFNL_BATCH_BEGIN, 0, socket.AF_UNSPEC,
                                NFNL_SUBSYS["nft"], b"")
        body, want = begin, set()
        for mtype, fam, payload in payload_msgs:
            seq, m = self.msg("nft", mtype, NLM_F_ACK, fam, 0, payload)
            want.add(seq)
            body += m
        _, end = self.msg(None, NFNL_BATCH_END, 0, socket.AF_UNSPEC,
                          NFNL_SUBSYS["nft"], b"")
        failed = self.send(body + end)
        if failed:
            return failed
        for aseq, _t, err in self.answers():
            if err == "timeout":
                return "no-answer" if want else "0"
            if err:
                return ename(err)
            if err == 0:
                want.discard(aseq)
                if not want:
                    return "0"


def nfnl_socket(groups):
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 12)
    s.setsockopt(270, 10, 1)            # NETLINK_CAP_ACK: short error acks
    try:
        s.bind((0, groups))
        return s, "0"
    except OSError as e:
        s.bind((0, 0))                  # carry on unbound: the sends still count
        return s, ename(e.errno)


def nfnl_switch_uid(uid):
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)         # leaving uid 0 clears the capabilities


def nfnl_capeff():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("CapEff:"):
                return line.split()[1]
    return "?"


def nfnl_open_as(uid, groups):
    """The socket is created (and bound) by a child running as uid; the
    parent gets the open file over SCM_RIGHTS."""
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
    pid = os.fork()
    if pid == 0:
        a.close()
        nfnl_switch_uid(uid)
        s, res = nfnl_socket(groups)
        socket.send_fds(b, [res.encode()], [s.fileno()])
        os._exit(0)
    b.close()
    res, fds, _, _ = socket.recv_fds(a, 64, 1)
    os.waitpid(pid, 0)
    return socket.socket(fileno=fds[0]), res.decode()


def nfnl_setup(sock_kind, opener):
    groups = 1 << (NFNLGRP_CONNTRACK_NEW - 1) if sock_kind == "ct-events" else 0
    if opener is not None:
        s, res = nfnl_open_as(opener, groups)
        print("socket opened by uid %d: 0" % opener)
    else:
        s, res = nfnl_socket(groups)
        print("socket: 0")
    print("bind groups=0x%x: %s" % (groups, res), flush=True)
    nl = Nfnl(s)
    if sock_kind.startswith("queue:"):
        q = int(sock_kind[6:])
        seq, m = nl.msg("queue", 2, NLM_F_ACK, socket.AF_UNSPEC, q,
                        attr(1, struct.pack(">BBH", 1, 0, socket.AF_INET)))
        res = nl.send(m)
        for aseq, _t, err in ([] if res else nl.answers()):
            if err == "timeout" or aseq == seq and err is not None:
                res = "no-answer" if err == "timeout" else ename(err)
                break
        print("queue %d bind: %s" % (q, res), flush=True)
    return nl


def nfnl_send(nl, what, arg):
    if what == "ct-get":
        return nl.dump("ct", 1)
    if what == "ct-del":
        return nl.ask("ct", 2, socket.AF_INET, tuple_nest(1, "4", arg))
    if what == "ct-flush":
        return nl.ask("ct", 2, socket.AF_UNSPEC, b"")
    if what == "exp-flush":
        return nl.ask("exp", 2, socket.AF_UNSPEC, b"")
    if what == "helper-del":
        return nl.ask("cthelper", 2, socket.AF_UNSPEC,
                      attr(1, arg.encode() + b"\0"))
    if what == "recv":
        return nfnl_events(nl.s, float(arg))
    if what == "nft-deltable":
        return nl.batch([(2, 1, attr(1, arg.encode() + b"\0"))])  # NFPROTO_INET
    raise SystemExit("nfnl: unknown message " + what)


def nfnl_events(s, secs):
    srcs, end = [], time.time() + secs
    while True:
        r, _, _ = select.select([s], [], [], max(0, end - time.time()))
        if not r:
            return "%d events (sources %s)" % (len(srcs), ",".join(srcs) or "-")
        data = s.recv(1 << 16)
        off = 0
        while off + 16 <= len(data):
            ln, t, _, _, _ = struct.unpack_from("=IHHII", data, off)
            if t == (NFNL_SUBSYS["ct"] << 8):
                srcs.append(nfnl_event_src(data[off + 20:off + ln]))
            off += (ln + 3) & ~3


def nfnl_event_src(attrs):
    """CTA_TUPLE_ORIG / CTA_TUPLE_IP / CTA_IP_V4_SRC (or V6_SRC) as text."""
    ip = parse(parse(attrs).get(1, b"")).get(1, b"")
    a = parse(ip)
    if 1 in a:
        return socket.inet_ntop(socket.AF_INET, a[1])
    if 3 in a:
        return socket.inet_ntop(socket.AF_INET6, a[3])
    return "?"


def cmd_nfnl(a):
    opts = {"--socket": "fresh", "--opener": None, "--drop": None}
    while a and a[0] in opts:
        opts[a[0]], a = a[1], a[2:]
    opener = None if opts["--opener"] is None else int(opts["--opener"])
    nl = nfnl_setup(opts["--socket"], opener)
    if opts["--drop"] is not None:
        nfnl_switch_uid(int(opts["--drop"]))
    print("sender: uid=%d CapEff=%s %s %s" % (
        os.getuid(), nfnl_capeff(), os.readlink("/proc/self/ns/user"),
        os.readlink("/proc/self/ns/net")), flush=True)
    takes_arg = ("ct-del", "helper-del", "nft-deltable", "recv")
    while a:
        what, a = a[0], a[1:]
        arg = None
        if what in takes_arg:
            arg, a = a[0], a[1:]
        res = nfnl_send(nl, what, arg)
        print("%s%s: %s" % (what, " " + arg if arg else "", res), flush=True)
    return 0


if __name__ == "__main__":
    cmds = {"exp": cmd_exp, "nfq": cmd_nfq, "udp-send": cmd_udp_send,
            "udp-recv": cmd_udp_recv, "gre-send": cmd_gre_send,
            "gre-recv": cmd_gre_recv, "tcp-listen": cmd_tcp_listen,
            "tcp-connect": cmd_tcp_connect, "pptp-server": cmd_pptp_server,
            "pptp-client": cmd_pptp_client, "nfnl": cmd_nfnl}
    if len(sys.argv) < 2 or sys.argv[1] not in cmds:
        print(__doc__)
        sys.exit(2)
    sys.exit(cmds[sys.argv[1]](sys.argv[2:]))
