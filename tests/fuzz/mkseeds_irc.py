#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write the hand-made seed corpus of fuzz_irc.

    tests/fuzz/mkseeds_irc.py        # rewrites tests/fuzz/corpus/fuzz_irc/seed-*

The input layout is described at the top of fuzz_irc.c: flags, host
byte, expect mode, then segments (a byte: 1 from the server, 2 the
previous segment of that direction again, 4 the host holds part of it; a
16-bit length; the payload).  Addresses as fuzz_irc.c builds them: client
10.0.1.2 / fd00:1::2 port 40000, server 10.0.2.2 / fd00:2::2 port 6667,
NAT address 10.0.2.1 / fd00:2::1.
"""
import struct

from mkseeds import write

F_IPV6, F_SNAT, F_DNAT, F_EXPECTED = 1, 2, 4, 8
H_OLD_HOST, H_TCP_NEW, H_CTL_FAIL = 1, 2, 4
P_REPLY, P_AGAIN, P_TRUNCATED = 1, 2, 4

CLIENT4 = "167772418"  # 10.0.1.2


def seg(payload, bits=0):
    return bytes([bits]) + struct.pack("!H", len(payload)) + payload


def seed(flags, segments, host=0, expect_mode=0):
    return bytes([flags, host, expect_mode]) + b"".join(segments)


def dcc(kind="SEND", arg="file.bin", addr=CLIENT4, port=5000, extra=" 1024", cmd="PRIVMSG"):
    return ("%s bob :\x01DCC %s %s %s %d%s\x01\r\n" % (cmd, kind, arg, addr, port, extra)).encode()


LOGIN = b"NICK alice\r\nUSER alice 0 * :Alice\r\n"
S = dcc()

SEEDS = {
    "seed-v4-send": seed(0, [seg(LOGIN), seg(S)]),
    "seed-v4-chat-notice": seed(0, [seg(dcc("CHAT", "chat", extra="", cmd="NOTICE"))]),
    "seed-v4-several": seed(0, [seg(b"PING :x\r\n" + S + dcc("TSEND", port=5001) +
                                    dcc("SCHAT", "chat", port=5002, extra=""))]),
    "seed-v4-quoted": seed(0, [seg(dcc(arg='"my file.txt"'))]),
    "seed-v4-tags-prefix": seed(0, [seg(b"@time=1 :alice!a@h " + S)]),
    "seed-v4-forged": seed(0, [seg(dcc(addr="3221226083"))]),
    "seed-v4-passive": seed(0, [seg(dcc(port=0, extra=" 1024 7"))]),
    "seed-v4-wrapped": seed(0, [seg(dcc(addr="4462739714", port=70000))]),
    "seed-v4-split": seed(0, [seg(S[:30]), seg(S[30:50]), seg(S[50:])]),
    "seed-v4-split-again": seed(0, [seg(S[:30]), seg(S[:30], P_AGAIN), seg(S[30:])]),
    "seed-v4-reply": seed(0, [seg(b":bob!b@h PRIVMSG alice :" + S[14:], P_REPLY)]),
    "seed-v4-snat": seed(F_SNAT, [seg(S)], expect_mode=0),
    "seed-v4-snat-busy": seed(F_SNAT, [seg(dcc(addr="10.0.1.2"))], expect_mode=(1 << 2) | 1),
    "seed-v4-snat-split": seed(F_SNAT, [seg(S[:40]), seg(S[40:])]),
    "seed-v4-dnat": seed(F_DNAT, [seg(S)]),
    "seed-v4-old-host": seed(0, [seg(S[:30]), seg(S[30:])], host=H_OLD_HOST),
    "seed-v6-send": seed(F_IPV6, [seg(dcc(addr="fd00:1::2"))]),
    "seed-v6-snat": seed(F_IPV6 | F_SNAT, [seg(dcc(addr="fd00:1::2"))]),
    "seed-v6-v4-address": seed(F_IPV6, [seg(S)]),
}


if __name__ == "__main__":
    write("fuzz_irc", SEEDS)
