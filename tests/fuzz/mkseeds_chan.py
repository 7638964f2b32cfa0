#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write the hand-made seed corpus of fuzz_chan.

    tests/fuzz/mkseeds_chan.py       # rewrites tests/fuzz/corpus/fuzz_chan/seed-*

The input layout is described at the top of fuzz_chan.c: flags, priv_size,
mark mask, then one turn per call and one for the result.  Numbers the
target reads are big-endian; the records area is the sandbox's own
memory (struct chan_rec and its body, host order: little-endian here).
The packet is fuzz_chan.c's: 10.0.0.1:40000 -> 10.0.0.2:21 carrying
"PORT 10,0,0,1,156,65\\r\\n".
"""
import struct

from mkseeds import write

F_UDP, F_NAT, F_TRUNCATED, F_EXPECTED, F_TRACE, F_WORDS = 1, 2, 16, 32, 64, 128
RING_CALL, RING_DONE = 3, 5
M_RAW_USED, M_FIX_EXP, M_KEPT32 = 1, 2, 4
OP_EXPECT, OP_EXPECT_CTL, OP_LINK, OP_FLUSH = 1, 2, 3, 4
R_MANGLE, R_TIMEOUT, R_MARK, R_DETACH, R_COUNT, R_LOG, R_KEEP = 1, 2, 3, 4, 5, 6, 7
CTL_FLUSH, CTL_REMOVE, CTL_REFRESH = 1, 2, 3
DROP, ACCEPT = 0, 1


def rec(rtype, body=b""):
    return struct.pack("<HH", rtype, len(body)) + body


def mangle(off, ln, repl):
    return rec(R_MANGLE, struct.pack("<III", off, ln, len(repl)) + repl)


def log(level, text):
    return rec(R_LOG, struct.pack("<i", level) + text)


def keep(off, rc=0):
    return rec(R_KEEP, struct.pack("<Qi", off, rc))


def turn(recs=b"", verdict=ACCEPT, kept=0, priv=b"", op=0, how=0, exp=None,
         sel=0, mode=0, used=None, priv_changed=0, state_reset=0, n_refused=0,
         log_dropped=0):
    """exp: None (no expectation), or raw bytes of struct chan_expect
    (b"" for all zeros); sel: the selector when mode has M_FIX_EXP."""
    out = bytes([mode])
    out += struct.pack("!I" if mode & M_KEPT32 else "!H", kept)
    out += struct.pack("!I", verdict & 0xffffffff)
    out += bytes([priv_changed, state_reset])
    out += struct.pack("!II", n_refused, log_dropped)
    out += bytes([len(priv)]) + priv
    out += bytes([op]) + struct.pack("!I", how)
    raw = b"" if exp is None else exp
    out += bytes([0 if exp is None else 1]) + struct.pack("!H", len(raw)) + raw
    if mode & M_FIX_EXP:
        out += bytes([sel])
    out += struct.pack("!H", len(recs)) + recs
    if mode & M_RAW_USED:
        out += struct.pack("!I", len(recs) if used is None else used)
    return out


def seed(flags, turns, priv_size=8, mark_mask=0xff):
    calls = len(turns) - 1
    assert calls <= 3
    return (bytes([flags | calls << 2, priv_size]) + struct.pack("!I", mark_mask) +
            b"".join(turns))


def word(ring, slot):
    return ring | slot << 8


def batch_seed(slot, turns, flags=0):
    """A slot's turns with their doorbell words: [(word, turn), ...]."""
    calls = len(turns) - 1
    assert calls <= 3
    return (bytes([flags | F_WORDS | calls << 2, 8]) + struct.pack("!I", 0xff) +
            bytes([slot]) + b"".join(struct.pack("!I", w) + t for w, t in turns))


HONEST = (mangle(5, 8, b"10,0,0,9") + rec(R_TIMEOUT, struct.pack("<I", 300)) +
          rec(R_MARK, struct.pack("<I", 0x1234)) + rec(R_COUNT, struct.pack("<II", 1, 5)) +
          log(3, b"a line\x1b[31m\n") + rec(R_DETACH))
EXPECT = turn(op=OP_EXPECT, how=1, exp=b"", mode=M_FIX_EXP, sel=2 | 4)

SEEDS = {
    "seed-done-honest": seed(0, [turn(HONEST, priv=b"\x01" * 8)]),
    "seed-done-drop": seed(0, [turn(verdict=DROP, priv=b"\xaa" * 32, priv_changed=1)],
                           priv_size=32),
    "seed-expect-then-done": seed(0, [EXPECT, turn(rec(R_DETACH))]),
    "seed-expect-nat-follow": seed(F_NAT, [turn(op=OP_EXPECT, exp=b"", mode=M_FIX_EXP,
                                                sel=2 | 4 | 16),
                                           turn(mangle(5, 8, b"10,0,0,99"))]),
    "seed-ctl-link-flush": seed(0, [
        turn(op=OP_EXPECT_CTL, how=CTL_REFRESH, exp=b"", mode=M_FIX_EXP, sel=2 | 4),
        turn(op=OP_EXPECT_CTL, how=CTL_REMOVE, exp=b"", mode=M_FIX_EXP, sel=1),
        turn(log(4, b"x") * 3, op=OP_LINK),
        turn(op=OP_FLUSH)]),
    "seed-ctl-flush-all": seed(0, [turn(op=OP_EXPECT_CTL, how=CTL_FLUSH), turn()]),
    "seed-udp-nat-longer": seed(F_UDP | F_NAT, [turn(mangle(0, 4, b"EPRT |1|"))]),
    "seed-kept": seed(0, [turn(mangle(15, 8, b"10,0,0,9") + mangle(3, 2, b"xx"), kept=10)]),
    "seed-kept-max": seed(0, [turn(mangle(16384, 1, b"Q"), kept=16384, mode=M_KEPT32)]),
    "seed-keep-traced": seed(F_TRACE, [turn(keep(15) + log(3, b"kept\x1b") +
                                            keep(1 << 40, -22), kept=10, op=OP_FLUSH),
                                       turn(keep(0) + keep(3, -28))]),
    "seed-keep-untraced": seed(0, [turn(keep(4) + rec(R_DETACH))]),
    "seed-keep-bad": seed(F_TRACE, [turn(keep(23) + keep(0, 5) +
                                         rec(R_KEEP, b"\0" * 8))]),
    "seed-expected-detach": seed(F_EXPECTED, [turn(rec(R_DETACH))]),
    "seed-truncated": seed(F_TRUNCATED, [turn(mangle(0, 4, b"EPRT"))]),
    "seed-bad-type": seed(0, [turn(rec(R_DETACH) + rec(99) + rec(R_DETACH))]),
    "seed-bad-used": seed(0, [turn(rec(R_DETACH), mode=M_RAW_USED, used=100)]),
    "seed-bad-verdict": seed(0, [turn(verdict=7)]),
    "seed-bad-call": seed(0, [turn(op=9), turn()]),
    "seed-log-flood": seed(0, [turn(log(3, b"\x07bell") * 40, log_dropped=5)]),
    "seed-slot-in-turn": batch_seed(5, [(word(RING_CALL, 5), EXPECT),
                                        (word(RING_DONE, 5), turn(rec(R_DETACH)))]),
    "seed-slot-out-of-turn": batch_seed(2, [(word(RING_DONE, 3), turn())]),
    "seed-slot-stray-bits": batch_seed(1, [(word(RING_DONE, 1) | 1 << 16, turn())]),
    "seed-slot-done-early": batch_seed(7, [(word(RING_DONE, 7), turn(HONEST)),
                                           (word(RING_DONE, 7), turn())]),
    "seed-refused": seed(0, [turn(op=OP_EXPECT, exp=b"", mode=M_FIX_EXP, sel=0),
                             turn(n_refused=0xffffffff)]),
}


if __name__ == "__main__":
    write("fuzz_chan", SEEDS)
