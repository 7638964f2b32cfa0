#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write the hand-made seed corpus of fuzz_amanda.

    tests/fuzz/mkseeds_amanda.py     # rewrites tests/fuzz/corpus/fuzz_amanda/seed-*

The input layout is cth_plugtest_fuzz()'s (sdk/include/cthelperd/plugtest.h):
byte 0 the connection (1 IPv6, 4 SNAT, 8 DNAT, 16 an expected connection,
bits 5-6 the kernel's answer: 0 created, 1 the first tuple taken, 2 every
tuple taken, 3 out of memory), then packets (a byte: 0x80 the reply
direction, its low 7 bits and the next byte the length; the payload).
"""
from mkseeds import write

V6, SNAT, DNAT, EXPECTED = 1, 4, 8, 16
FIRST_BUSY, ALL_BUSY, NOMEM = 1 << 5, 2 << 5, 3 << 5

HDR = b"Amanda 3.5 %s HANDLE 000-40a1b2c3 SEQ 1733011200\n"
REQ = HDR % b"REQ" + b"SERVICE sendbackup\nOPTIONS features=9ffe00;\n"
ACK = HDR % b"ACK"
REP3 = HDR % b"REP" + b"CONNECT DATA 50001 MESG 50002 INDEX 50003\nOPTIONS features=9ffe00;\n"


def pkt(payload, reply=True):
    n = len(payload)
    return bytes([(0x80 if reply else 0) | (n >> 8), n & 0xFF]) + payload


def seed(flags, packets):
    return bytes([flags]) + b"".join(packets)


def rep(line):
    return HDR % b"REP" + line + b"\n"


SEEDS = {
    "seed-v4-dump": seed(0, [pkt(REQ, False), pkt(ACK), pkt(REP3), pkt(ACK, False)]),
    "seed-v6-dump": seed(V6, [pkt(REQ, False), pkt(REP3)]),
    "seed-v4-snat": seed(SNAT, [pkt(REQ, False), pkt(REP3)]),
    "seed-v4-dnat": seed(DNAT, [pkt(REQ, False), pkt(REP3)]),
    "seed-v6-dnat": seed(V6 | DNAT, [pkt(REQ, False), pkt(REP3)]),
    "seed-v4-dnat-busy-longer": seed(DNAT | FIRST_BUSY, [pkt(rep(b"CONNECT DATA 9999"))]),
    "seed-v4-dnat-all-busy": seed(DNAT | ALL_BUSY, [pkt(REP3)]),
    "seed-v4-nomem": seed(DNAT | NOMEM, [pkt(REP3)]),
    "seed-v4-any-order-crlf": seed(0, [pkt(rep(b"CONNECT INDEX 3 DATA 1 MESG 2\r"))]),
    "seed-v4-other-stream": seed(0, [pkt(rep(b"CONNECT STATE 9 DATA 1"))]),
    "seed-v4-wrap": seed(0, [pkt(rep(b"CONNECT DATA 99999 MESG 50002"))]),
    "seed-v4-zero": seed(0, [pkt(rep(b"CONNECT DATA 0 MESG 50002"))]),
    "seed-v4-twice": seed(0, [pkt(rep(b"CONNECT DATA 1 DATA 2"))]),
    "seed-v4-inside-line": seed(0, [pkt(rep(b"ERROR see CONNECT DATA 5"))]),
    "seed-v4-from-server": seed(0, [pkt(REP3, False)]),
    "seed-v4-not-amanda": seed(0, [pkt(b"CONNECT DATA 50001\n")]),
    "seed-v4-expected": seed(EXPECTED, [pkt(REP3)]),
    "seed-plain-reply-shape": b"\x80" + REP3,
}


if __name__ == "__main__":
    write("fuzz_amanda", SEEDS)
