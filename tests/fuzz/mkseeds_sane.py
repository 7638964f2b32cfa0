#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write the hand-made seed corpus of fuzz_sane.

    tests/fuzz/mkseeds_sane.py       # rewrites tests/fuzz/corpus/fuzz_sane/seed-*

The input layout is cth_plugtest_fuzz()'s (sdk/include/cthelperd/plugtest.h),
as in mkseeds_amanda.py; the connection is TCP to 6566, segments in
order in each direction.
"""
import struct

from mkseeds import write

V6, SNAT, DNAT, EXPECTED = 1, 4, 8, 16
FIRST_BUSY, ALL_BUSY, NOMEM = 1 << 5, 2 << 5, 3 << 5


def w(*words):
    return b"".join(struct.pack("!I", x) for x in words)


INIT = w(0, 0x01000003, 5) + b"scan\0"
INIT_REP = w(0, 0x01000003)
START = w(7, 0)
START_REP = w(0, 50000, 0x1234, 0)


def pkt(payload, reply=False):
    n = len(payload)
    return bytes([(0x80 if reply else 0) | (n >> 8), n & 0xFF]) + payload


def seed(flags, packets):
    return bytes([flags]) + b"".join(packets)


HELLO = [pkt(INIT), pkt(INIT_REP, True)]

SEEDS = {
    "seed-v4-scan": seed(0, HELLO + [pkt(START), pkt(START_REP, True)]),
    "seed-v6-scan": seed(V6, HELLO + [pkt(START), pkt(START_REP, True)]),
    "seed-v4-split-words": seed(0, HELLO + [pkt(START[:4]), pkt(START[4:]),
                                            pkt(START_REP[:4], True),
                                            pkt(START_REP[4:], True)]),
    "seed-v4-bytes": seed(0, [pkt(START[i:i + 1]) for i in range(8)] +
                          [pkt(START_REP[i:i + 1], True) for i in range(16)]),
    "seed-v4-coalesced": seed(0, [pkt(START + w(8, 0)), pkt(START_REP, True)]),
    "seed-v4-port-zero": seed(0, [pkt(START), pkt(w(0, 0, 0x1234, 0), True),
                                  pkt(START), pkt(START_REP, True)]),
    "seed-v4-failed": seed(0, [pkt(START), pkt(w(11, 50000, 0x1234, 0), True)]),
    "seed-v4-high-port": seed(0, [pkt(START), pkt(w(0, 0x1C350, 0x1234, 0), True)]),
    "seed-v4-continuation": seed(0, [pkt(w(5, 0, 2, 1, 1, 4)), pkt(START),
                                     pkt(START_REP, True)]),
    "seed-v4-dnat": seed(DNAT, HELLO + [pkt(START), pkt(START_REP, True)]),
    "seed-v6-dnat": seed(V6 | DNAT, [pkt(START), pkt(START_REP, True)]),
    "seed-v4-dnat-busy": seed(DNAT | FIRST_BUSY, [pkt(START), pkt(START_REP, True)]),
    "seed-v4-dnat-busy-kept": seed(DNAT | FIRST_BUSY, [pkt(START), pkt(START_REP[:7], True),
                                                       pkt(START_REP[7:], True)]),
    "seed-v4-dnat-all-busy": seed(DNAT | ALL_BUSY, [pkt(START), pkt(START_REP, True),
                                                    pkt(START_REP, True)]),
    "seed-v4-snat-nomem": seed(SNAT | NOMEM, [pkt(START), pkt(START_REP, True)]),
    "seed-v4-expected": seed(EXPECTED, [pkt(START), pkt(START_REP, True)]),
}


if __name__ == "__main__":
    write("fuzz_sane", SEEDS)
