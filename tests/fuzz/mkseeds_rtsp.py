#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write the hand-made seed corpus of fuzz_rtsp.

    tests/fuzz/mkseeds_rtsp.py       # rewrites tests/fuzz/corpus/fuzz_rtsp/seed-*

The input layout is described at the top of fuzz_rtsp.c: flags, host
byte, expect mode, 28 bytes of private state, then segments (a byte: 1
from the server, 2 the previous segment of that direction again, 4 the
host holds part of it; a 16-bit length; the payload).  Addresses as
fuzz_rtsp.c builds them: client 10.0.1.2 / fd00:1::2 port 40000, server
10.0.2.2 / fd00:2::2 port 554, NAT address 10.0.2.1 / fd00:2::1 port
61000, DNAT address 10.0.2.1 / fd00:2::1.
"""
import struct

from mkseeds import write

F_IPV6, F_SNAT, F_DNAT, F_EXPECTED = 1, 2, 4, 8
H_THIRD_PARTY, H_NO_REVERSE, H_SMALL, H_OLD_HOST = 1, 2, 4, 8
P_REPLY, P_AGAIN, P_TRUNCATED = 1, 2, 4
NO_STATE = bytes(28)


def seg(payload, bits=0):
    return bytes([bits]) + struct.pack("!H", len(payload)) + payload


def seed(flags, segments, host=0, expect_mode=0):
    return bytes([flags, host, expect_mode]) + NO_STATE + b"".join(segments)


def setup(transport, cseq=1, version="1.0", host="10.0.2.2"):
    return ("SETUP rtsp://%s/cam/track%d RTSP/%s\r\nCSeq: %d\r\nTransport: %s\r\n\r\n"
            % (host, cseq, version, cseq, transport)).encode()


def reply(transport, cseq=1, version="1.0"):
    return ("RTSP/%s 200 OK\r\nCSeq: %d\r\nSession: 1234;timeout=60\r\nTransport: %s\r\n\r\n"
            % (version, cseq, transport)).encode()


def frame(data, channel=0):
    return b"$" + bytes([channel]) + struct.pack("!H", len(data)) + data


TEARDOWN = b"TEARDOWN rtsp://10.0.2.2/cam RTSP/1.0\r\nCSeq: 9\r\nSession: 1234\r\n\r\n"
UDP = "RTP/AVP;unicast;client_port=5000-5001"
S = setup(UDP)
INNER = setup(UDP.replace("5000-5001", "7000-7001"), 7)

SEEDS = {
    "seed-v4-session": seed(0, [seg(S), seg(reply(UDP + ";server_port=6970-6971"), P_REPLY),
                                seg(TEARDOWN)]),
    "seed-v4-two-tracks": seed(0, [seg(S + setup("RTP/AVP;unicast;client_port=5002", 2)),
                                   seg(reply("RTP/AVP;client_port=5002-5003;server_port=6972",
                                             2), P_REPLY)]),
    "seed-v4-specs": seed(0, [seg(setup("RTP/AVP/TCP;interleaved=0-1," + UDP +
                                        ",RTP/AVP;multicast"))]),
    "seed-v4-split": seed(0, [seg(S[:40]), seg(S[40:90]), seg(S[90:])]),
    "seed-v4-retransmitted": seed(0, [seg(S), seg(S, P_AGAIN)]),
    "seed-v4-interleaved": seed(0, [seg(setup("RTP/AVP/TCP;unicast;interleaved=0-1")),
                                    seg(frame(b"\xa5" * 20 + INNER + b"\xa5" * 20)[:30]),
                                    seg(frame(b"\xa5" * 20 + INNER + b"\xa5" * 20)[30:] + S)]),
    "seed-v4-body": seed(0, [seg(b"SET_PARAMETER rtsp://10.0.2.2/ RTSP/1.0\r\nCSeq: 2\r\n"
                                 b"Content-Length: 120\r\n\r\n" + INNER[:60]),
                             seg(INNER[60:] + S)]),
    "seed-v4-garbage": seed(0, [seg(b"\x01\x02junk\r\nHELLO\r\n" + S + b"noise\n" + S)]),
    "seed-v4-small-oversized": seed(0, [seg(setup(UDP + ";x=" + "9" * 300))], host=H_SMALL),
    "seed-v4-third-party": seed(0, [seg(setup("RTP/AVP;destination=192.0.2.99;client_port=5000"))],
                                host=H_THIRD_PARTY),
    "seed-v4-snat-busy": seed(F_SNAT, [seg(S), seg(reply("RTP/AVP;client_port=5002-5003;"
                                                          "server_port=6970-6971"), P_REPLY)],
                              expect_mode=(1 << 2) | 1),
    "seed-v4-snat-destination": seed(F_SNAT, [seg(setup("RTP/AVP;destination=10.0.1.2;"
                                                        "client_port=5000-5001"))]),
    "seed-v4-snat-split": seed(F_SNAT, [seg(S[:80]), seg(S[80:])], expect_mode=(1 << 2) | 1),
    "seed-v4-dnat-source": seed(F_DNAT, [seg(S), seg(reply(UDP + ";source=10.0.2.2;"
                                                       "server_port=6970-6971"), P_REPLY)]),
    "seed-v6-v2": seed(F_IPV6, [seg(setup('RTP/AVP/UDP;unicast;dest_addr="[fd00:1::2]:5000"/'
                                          '"[fd00:1::2]:5001"', 1, "2.0", "[fd00:2::2]")),
                                seg(reply('RTP/AVP/UDP;unicast;dest_addr=":5000";'
                                          'src_addr=":6970";RTCP-mux', 1, "2.0"), P_REPLY)]),
    "seed-v6-snat-destination": seed(F_IPV6 | F_SNAT,
                                     [seg(setup("RTP/AVP;destination=[fd00:1::2];"
                                                "client_port=5000-5001"))]),
}


if __name__ == "__main__":
    write("fuzz_rtsp", SEEDS)
