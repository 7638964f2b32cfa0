#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write the hand-made seed corpus of fuzz_mdns, fuzz_slp, fuzz_dhcpv6 and
fuzz_netbios_ns.

    tests/fuzz/mkseeds_lanq.py       # rewrites tests/fuzz/corpus/fuzz_{mdns,...}/seed-*

The input layout is described at the top of fuzz_lanq.h: a byte choosing
the flow (bits 0-2), the link view (bits 3-5) and the instance (bits 6-7)
from the target's tables, then datagrams (a byte: bit 7 the reply
direction, bits 0-6 and the next byte the length) and their payloads.
The packets come from tests/lib/lanquery.py, as the VM clients send them.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))

import lanquery as lq  # noqa: E402  (tests/lib)


def dgram(payload, reply=False):
    n = len(payload)
    return bytes([(0x80 if reply else 0) | (n >> 8), n & 0xFF]) + payload


def head(conn, link, inst=0):
    return bytes([conn | link << 3 | inst << 6])


def write(target, seeds):
    d = os.path.join(HERE, "corpus", target)
    os.makedirs(d, exist_ok=True)
    for name, data in seeds.items():
        with open(os.path.join(d, "seed-" + name), "wb") as f:
            f.write(data)


q = lq.mdns_query()
write("fuzz_mdns", {
    "v4-sent": head(0, 0) + dgram(q),
    "v6-sent": head(1, 1) + dgram(q),
    "v4-arrived-twice": head(0, 2) + dgram(q) + dgram(q),
    "from-5353": head(2, 0) + dgram(q),
    "any-no-link": head(0, 3, 1) + dgram(q),
    "answer-reply-dir": head(0, 0) + dgram(q) + dgram(lq.mdns_answer(q), True),
    "short": head(0, 0) + dgram(q[:11]),
})
r = lq.slp_srvrqst()
write("fuzz_slp", {
    "v4-sent": head(0, 0) + dgram(r),
    "v6-link": head(1, 1) + dgram(r),
    "v6-site": head(2, 1) + dgram(r),
    "broadcast": head(3, 2) + dgram(r),
    "broadcast-all": head(4, 3) + dgram(r),
    "v1": head(0, 0) + dgram(bytes([1, 1, 0, 20]) + bytes(16)),
    "reply": head(0, 0) + dgram(lq.slp_srvrply(r)),
    "any": head(0, 5, 1) + dgram(r),
})
write("fuzz_dhcpv6", dict(
    [("type-%d" % t, head(0, 0) + dgram(lq.dhcpv6_msg(t))) for t in (1, 3, 4, 5, 6, 8, 9, 11)] +
    [("advertise", head(0, 0) + dgram(lq.dhcpv6_answer(lq.dhcpv6_msg(1)))),
     ("leasequery", head(0, 0) + dgram(lq.dhcpv6_msg(14))),
     ("ephemeral-arrived", head(1, 1) + dgram(lq.dhcpv6_msg(1))),
     ("any", head(0, 2, 1) + dgram(lq.dhcpv6_msg(11))),
     ("short", head(0, 0) + dgram(b"\x01\x00\x00"))]))
n = lq.nbns_query()
write("fuzz_netbios_ns", {
    "subnet": head(0, 0) + dgram(n),
    "from-137": head(1, 0) + dgram(n),
    "broadcast-all": head(2, 1) + dgram(n),
    "arrived-incoming": head(0, 2, 3) + dgram(n),
    "no-link": head(0, 3) + dgram(n),
    "no-all-timeout": head(2, 1, 2) + dgram(n) + dgram(n),
    "response": head(0, 0) + dgram(lq.nbns_response(n)),
})
