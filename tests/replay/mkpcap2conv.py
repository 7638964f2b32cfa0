#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""One-off migration: tests/replay/mkpcap.py's cases as cthelper-mkpcap
descriptions (cases/PLUGIN/CASE.conv), each checked to give exactly the
bytes mkpcap.py gives.

    tests/replay/mkpcap2conv.py [PLUGIN/CASE...]

Runs every case of mkpcap.py with its Capture, Tcp and Udp replaced by
recording ones: each high-level call (open, send, ack, fin, close, an
unanswered SYN, wait, pickup) becomes a line of the description, then
cthelper-mkpcap builds the description and the bytes are compared.
"""
import importlib.machinery
import importlib.util
import os
import struct
import sys
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, HERE)

import mkpcap  # noqa: E402


def load_tool():
    path = os.path.join(ROOT, "sdk", "tools", "cthelper-mkpcap")
    loader = importlib.machinery.SourceFileLoader("cthelper_mkpcap", path)
    spec = importlib.util.spec_from_loader("cthelper_mkpcap", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


TOOL = load_tool()
depth = [0]     # >0: inside a recorded call, whose parts are not recorded


class inner:
    def __enter__(self):
        depth[0] += 1

    def __exit__(self, *a):
        depth[0] -= 1


def ep(addr_bytes, port):
    t = mkpcap.addr_text(addr_bytes)
    return ("[%s]:%d" if ":" in t else "%s:%d") % (t, port)


def fmt_secs(s):
    r = repr(float(s))
    return r[:-2] if r.endswith(".0") else r


class RecCapture(mkpcap.Capture):
    def __init__(self):
        super().__init__()
        self.lines = []
        self.cur = None

    def wait(self, seconds):
        if depth[0] == 0 and seconds:
            self.lines.append("wait %s" % fmt_secs(seconds))
        super().wait(seconds)

    def pickup(self):
        self.lines.append("")
        self.lines.append("start")
        super().pickup()


class RecFlow:
    def header(self, opts=True):
        proto = "tcp" if isinstance(self, RecTcp) else "udp"
        c = ep(self.src["c"], self.sport["c"])
        s = ep(self.src["s"], self.sport["s"])
        h = "%s %s > %s" % (proto, c, s)
        if not opts:
            return h
        if (self.dst["c"], self.dport["c"]) != (self.src["s"], self.sport["s"]):
            h += " dial " + ep(self.dst["c"], self.dport["c"])
        if (self.dst["s"], self.dport["s"]) != (self.src["c"], self.sport["c"]):
            h += " answer " + ep(self.dst["s"], self.dport["s"])
        for k in ("isn_opt", "mss_given"):
            v = getattr(self, k, None)
            if v:
                h += " " + v
        return h

    def begin(self, extra=""):
        self.cap.lines.append("")
        self.cap.lines.append(self.header() + extra)
        self.cap.cur = self
        self.started = True

    def switch(self):
        if not getattr(self, "started", False):
            self.begin()
        elif self.cap.cur is not self:
            self.cap.lines.append(self.header(False))
            self.cap.cur = self


class RecUdp(RecFlow, mkpcap.Udp):
    def send(self, side, payload):
        if depth[0] == 0:
            self.switch()
            data_lines(self.cap.lines, ">" if side == "c" else "<", payload, [])
        with inner():
            super().send(side, payload)


class RecTcp(RecFlow, mkpcap.Tcp):
    def __init__(self, cap, c, s, c_dst=None, s_dst=None, isn=None, mss=None):
        super().__init__(cap, c, s, c_dst, s_dst, isn=isn, mss=mss)
        self.isn_opt = "isn %#x %#x" % isn if isn else None
        self.mss_given = "mss %d" % mss if mss else None

    def open(self):
        self.begin()
        with inner():
            super().open()

    def syn_unanswered(self, tries=2):
        self.begin(" unanswered %d" % tries)
        with inner():
            super().syn_unanswered(tries)

    def send(self, side, data, deliver=True, delta=0, off=None):
        if depth[0] == 0:
            self.switch()
            mods = []
            if not deliver:
                mods.append("lost")
            if delta:
                mods.append("grown %d" % delta)
            if off is not None:
                assert off == self.got[side], "a retransmission not from the first lost byte"
                mods.append("resend")
            data_lines(self.cap.lines, ">" if side == "c" else "<", data, mods)
        with inner():
            return super().send(side, data, deliver, delta, off)

    def ack(self, side):
        if depth[0] == 0:
            self.switch()
            self.cap.lines.append("ack %s" % (">" if side == "c" else "<"))
        with inner():
            super().ack(side)

    def fin(self, side):
        if depth[0] == 0:
            self.switch()
            self.cap.lines.append("fin %s" % (">" if side == "c" else "<"))
        with inner():
            super().fin(side)

    def close(self, side="c"):
        if depth[0] == 0:
            self.switch()
            self.cap.lines.append("close %s" % (">" if side == "c" else "<"))
        with inner():
            super().close(side)

    def segment(self, side, flags, payload=b"", off=None, opts=b""):
        if depth[0] == 0:
            # only the duplicate ACK with one SACK block is written directly
            assert flags == mkpcap.ACK and not payload and off is None and \
                opts[:4] == bytes([1, 1, 5, 10]) and len(opts) == 12, "a raw segment"
            peer = "s" if side == "c" else "c"
            a, b = struct.unpack("!II", opts[4:])
            lo = (a - self.isn[peer] - 1) & 0xFFFFFFFF
            hi = (b - self.isn[peer] - 1) & 0xFFFFFFFF
            self.switch()
            self.cap.lines.append("ack %s sack %d-%d" % (">" if side == "c" else "<", lo, hi))
        with inner():
            super().segment(side, flags, payload, off, opts)


PRINTABLE = set(range(0x20, 0x7F)) | {9, 10, 13}
ESC = {13: "\\r", 10: "\\n", 9: "\\t", 92: "\\\\", 34: '\\"'}


def tokens(data):
    """The words of data: quoted text for printable runs of 4 bytes or
    more (cut after each line feed), hex for the rest, TOKEN*N for long
    runs of one byte."""
    out, i, n = [], 0, len(data)
    hexbuf = bytearray()

    def flush_hex():
        if hexbuf:
            out.append(("hex", bytes(hexbuf)))
            hexbuf.clear()
    while i < n:
        b = data[i]
        run = 1
        while i + run < n and data[i + run] == b:
            run += 1
        if run >= 12:
            flush_hex()
            out.append(("rep", bytes([b]), run))
            i += run
            continue
        j = i
        while j < n and data[j] in PRINTABLE:
            k = j
            while k < n and data[k] == data[j]:
                k += 1
            if k - j >= 12:
                break
            j = k
        if j - i >= 4 or (j == n and j > i and not hexbuf and i == 0):
            flush_hex()
            text = data[i:j]
            start = 0
            for k in range(len(text)):
                if text[k] == 10:
                    out.append(("txt", text[start:k + 1]))
                    start = k + 1
            if start < len(text):
                out.append(("txt", text[start:]))
            i = j
        else:
            hexbuf.append(b)
            i += 1
    flush_hex()
    return out


def quote(b):
    return '"' + "".join(ESC.get(c, chr(c)) for c in b) + '"'


def words_of(tok):
    kind = tok[0]
    if kind == "txt":
        return [quote(tok[1])], tok[1].endswith(b"\n")
    if kind == "rep":
        b, n = tok[1], tok[2]
        if b[0] in PRINTABLE:
            return [quote(b) + "*%d" % n], False
        return ["hex %02x*%d" % (b[0], n)], False
    h = tok[1].hex()
    groups = [h[i:i + 32] for i in range(0, len(h), 32)]
    return ["hex " + groups[0]] + groups[1:], False


def data_lines(lines, arrow, data, mods):
    cur = arrow
    first = True
    for tok in tokens(data):
        ws, brk = words_of(tok)
        for w in ws:
            if len(cur) + 1 + len(w) > 78 and cur.strip() != arrow:
                lines.append(cur)
                cur = "   "
                first = False
            cur += " " + w
        if brk:
            lines.append(cur)
            cur = "   "
            first = False
    if mods:
        if cur.strip():
            cur += " " + " ".join(mods)
        else:
            lines[-1] += " " + " ".join(mods)
            cur = "   "
    if cur.strip():
        lines.append(cur)
    del first


def convert(plugin, name, args, what, fn):
    mkpcap.Capture, mkpcap.Tcp, mkpcap.Udp = RecCapture, RecTcp, RecUdp
    cap = RecCapture()
    fn(cap)
    want = cap.pcap()
    head = textwrap.wrap(what, 76, break_on_hyphens=False, break_long_words=False)
    body = ["# " + line for line in head]
    text = "\n".join(body + cap.lines) + "\n"
    got = TOOL.build(text, "%s/%s.conv" % (plugin, name))
    if got != want:
        raise SystemExit("%s/%s: the description gives other bytes" % (plugin, name))
    return text


def main(argv):
    done = 0
    for plugin, name, args, what, fn in list(mkpcap.CASES):
        full = "%s/%s" % (plugin, name)
        if argv and full not in argv:
            continue
        text = convert(plugin, name, args, what, fn)
        base = os.path.join(HERE, "cases", plugin, name)
        with open(base + ".pcap", "rb") as f:
            if TOOL.build(text) != f.read():
                raise SystemExit("%s: differs from the committed pcap" % full)
        with open(base + ".conv", "w") as f:
            f.write(text)
        done += 1
    print("%d descriptions written, each giving its committed pcap" % done)


if __name__ == "__main__":
    main(sys.argv[1:])
