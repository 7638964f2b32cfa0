#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write the hand-made seed corpus of fuzz_tns.

    tests/fuzz/mkseeds_tns.py        # rewrites tests/fuzz/corpus/fuzz_tns/seed-*

The input layout is described at the top of fuzz_tns.c: flags, host byte,
expect mode, the first payload's length (16 bits), 16 bytes of private
state, the first payload, the second payload.  Addresses are the ones
fuzz_tns.c builds: client 192.168.1.10 / 2001:db8:1::10, listener 10.0.0.5
/ 2001:db8:2::5 port 1521, the NATed client (SNAT) or the dialled address
(DNAT) 203.0.113.5 / 2001:db8:ffff::5.
"""
import os
import struct

from mkseeds import HERE, write
from wire import (TNS_CONNECT as CONNECT, TNS_DATA as DATA, TNS_MARKER as MARKER,
                  TNS_RESEND as RESEND, tns_data as data, tns_desc as desc,
                  tns_packet as pkt, tns_redirect as redirect)

# flags
IPV6, SNAT, DNAT, CLIENT, TURN, EXPECTED, TRUNCATED, GAP = (1 << i for i in range(8))
# host byte
NO_DETACH, OLD_HOST, TCP_NEW, CTL_FAIL, DETACH_FAIL = (1 << i for i in range(5))


def seed(flags, p1, p2=b"", host=0, expect_mode=0, priv=b""):
    return (bytes([flags, host, expect_mode]) + struct.pack("!H", len(p1)) +
            priv.ljust(16, b"\0")[:16] + p1 + p2)


S4, S6, O4 = "10.0.0.5", "2001:db8:2::5", "10.0.0.7"
BIG = pkt(DATA, b"\0\0" + b"x" * 1500)

SEEDS = {
    "seed-v4-inline": seed(0, redirect(desc(O4, 40123))),
    "seed-v4-inline-no-detach": seed(0, redirect(desc(O4, 40123)), host=NO_DETACH),
    "seed-v4-split-data": seed(0, redirect(""), data(desc(O4, 40123))),
    "seed-v4-split-one-segment": seed(0, redirect("") + data(desc(O4, 40123))),
    "seed-v4-mixed-case": seed(0, redirect(
        "( description = ( Address = ( Protocol = TCP ) ( host = 10.0.0.7 ) ( Port = 1522 ) ) )")),
    "seed-v4-host-name": seed(0, redirect(desc("db2.example.com", 1522))),
    "seed-v4-client-connect": seed(CLIENT, pkt(CONNECT, b"\x01\x3a\x01\x2c" +
                                               desc("10.0.0.5", 1521).encode())),
    "seed-v4-two-packets": seed(0, pkt(RESEND, b"") + redirect(desc(O4, 40123)) + pkt(MARKER, b"\1\0\1")),
    "seed-v4-across-segments": seed(0, redirect(desc(O4, 40123))[:30], redirect(desc(O4, 40123))[30:]),
    "seed-v4-header-cut": seed(0, redirect(desc(O4, 40123))[:5], redirect(desc(O4, 40123))[5:]),
    "seed-v4-long-data": seed(0, BIG[:700], BIG[700:] + redirect(desc(O4, 40123))),
    "seed-v4-wide": seed(0, redirect(desc(O4, 40123), wide=True)),
    "seed-v4-lying-dlen": seed(0, redirect(desc(O4, 40123))[:8] + b"\xff\xff" +
                               redirect(desc(O4, 40123))[10:]),
    "seed-v4-snat-same": seed(SNAT, redirect(desc(S4, 40123))),
    "seed-v4-snat-busy": seed(SNAT, redirect(desc(S4, 40123), csum=True), expect_mode=(2 << 2) | 1),
    "seed-v4-dnat-grow": seed(DNAT, redirect(desc(S4, 40123))),
    "seed-v4-dnat-wide": seed(DNAT, redirect(desc(S4, 40123), wide=True, csum=True)),
    "seed-v4-dnat-split-data": seed(DNAT, redirect(""), data(desc(S4, 40123), csum=True)),
    "seed-v4-dnat-third": seed(DNAT, redirect(desc(O4, 40123))),
    "seed-v4-dnat-snat-two": seed(DNAT | SNAT, pkt(RESEND, b"") + redirect(desc(S4, 9999)) +
                                  redirect(desc(S4, 1))),
    "seed-v4-dnat-across": seed(DNAT, redirect(desc(S4, 40123))[:20], redirect(desc(S4, 40123))[20:]),
    "seed-v4-dnat-no-port": seed(DNAT, redirect(desc(S4, 40123)), expect_mode=2),
    "seed-v4-dnat-error": seed(DNAT, redirect(desc(S4, 40123)), expect_mode=3, host=CTL_FAIL),
    "seed-v4-old-host": seed(0, redirect(desc(O4, 40123))[:30], redirect(desc(O4, 40123))[30:],
                             host=OLD_HOST),
    "seed-v4-state-next": seed(0, data(desc(O4, 40123)),
                               priv=bytes([1, 1, 0, 0]) + bytes(12)),
    "seed-v6-inline": seed(IPV6, redirect(desc("2001:db8:2::7", 40123))),
    "seed-v6-brackets-dnat": seed(IPV6 | DNAT, redirect(desc("[%s]" % S6, 40123))),
    "seed-v6-dnat-full-form": seed(IPV6 | DNAT, redirect(
        desc("2001:0db8:0002:0000:0000:0000:0000:0005", 40123))),
}


def main():
    write("fuzz_tns", SEEDS)
    print("%d seeds in %s" % (len(SEEDS), os.path.join(HERE, "corpus", "fuzz_tns")))


if __name__ == "__main__":
    main()
