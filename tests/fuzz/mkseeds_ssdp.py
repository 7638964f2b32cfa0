#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write the hand-made seed corpus of fuzz_ssdp.

    tests/fuzz/mkseeds_ssdp.py       # rewrites tests/fuzz/corpus/fuzz_ssdp/seed-*

The input layout is described at the top of fuzz_ssdp.c: flags (bit 0
IPv6, bit 1 SNAT, bits 2-3 the flow: 0 query, 1 answer, 2 HTTP to the
device, 3 event connection), host byte (1 answers = any, 2 location_own =
no, 4 a host without cth_keep()), expect mode, then packets (a byte: 1
reply direction, 2 the host holds part of it; a 16-bit length; the
payload).  Addresses as fuzz_ssdp.c builds them: querier 10.0.1.2 /
fd00:1::2 port 50000, device 10.0.1.3 / fd00:1::3, NAT 10.0.2.1 /
fd00:2::1 port 40001.
"""
import struct

from mkseeds import write

F_IPV6, F_SNAT = 1, 2
QUERY, ANSWER, HTTP, EVENT = 0, 4, 8, 12
H_ANY, H_LOCATION_ANY, H_OLD_HOST = 1, 2, 4
P_REPLY, P_TRUNCATED = 1, 2

MSEARCH = (b"M-SEARCH * HTTP/1.1\r\nHOST: 239.255.255.250:1900\r\n"
           b"MAN: \"ssdp:discover\"\r\nMX: 2\r\nST: ssdp:all\r\n\r\n")


def pkt(payload, bits=0):
    return bytes([bits]) + struct.pack("!H", len(payload)) + payload


def seed(flags, packets, host=0, expect_mode=0):
    return bytes([flags, host, expect_mode]) + b"".join(packets)


def answer(location):
    return (b"HTTP/1.1 200 OK\r\nCACHE-CONTROL: max-age=1800\r\nEXT:\r\n"
            b"LOCATION: " + location + b"\r\nSERVER: Linux UPnP/2.0 x/1\r\n"
            b"ST: upnp:rootdevice\r\nUSN: uuid:1::upnp:rootdevice\r\n\r\n")


def subscribe(callback):
    return (b"SUBSCRIBE /evt HTTP/1.1\r\nHOST: 10.0.1.3:49152\r\nCALLBACK: " + callback +
            b"\r\nNT: upnp:event\r\nTIMEOUT: Second-1800\r\n\r\n")


SUB4 = subscribe(b"<http://10.0.1.2:49200/cb>")

SEEDS = {
    "seed-v4-msearch-any": seed(QUERY, [pkt(MSEARCH)], host=H_ANY),
    "seed-v4-msearch-link": seed(QUERY, [pkt(MSEARCH)]),
    "seed-v4-msearch-twice": seed(QUERY, [pkt(MSEARCH), pkt(MSEARCH)], host=H_ANY),
    "seed-v4-msearch-snat": seed(QUERY | F_SNAT, [pkt(MSEARCH)], host=H_ANY),
    "seed-v6-msearch": seed(QUERY | F_IPV6, [pkt(MSEARCH.replace(b"239.255.255.250",
                                                                  b"[ff02::c]"))], host=H_ANY),
    "seed-v4-notify-alive": seed(QUERY, [pkt(b"NOTIFY * HTTP/1.1\r\nNTS: ssdp:alive\r\n"
                                             b"LOCATION: http://10.0.1.3:80/\r\n\r\n")]),
    "seed-v4-msearch-error": seed(QUERY, [pkt(MSEARCH)], host=H_ANY, expect_mode=3),
    "seed-v4-answer": seed(ANSWER, [pkt(answer(b"http://10.0.1.3:49152/desc.xml"))]),
    "seed-v4-answer-third": seed(ANSWER, [pkt(answer(b"http://10.0.2.2:22/"))]),
    "seed-v4-answer-third-allowed": seed(ANSWER, [pkt(answer(b"http://10.0.2.2:22/"))],
                                         host=H_LOCATION_ANY),
    "seed-v4-answer-snat": seed(ANSWER | F_SNAT, [pkt(answer(b"http://10.0.1.3/d"))]),
    "seed-v6-answer": seed(ANSWER | F_IPV6, [pkt(answer(b"http://[fd00:1::3]:49152/d"))]),
    "seed-v4-subscribe": seed(HTTP, [pkt(SUB4)]),
    "seed-v4-subscribe-snat": seed(HTTP | F_SNAT, [pkt(SUB4)]),
    "seed-v6-subscribe-snat": seed(HTTP | F_SNAT | F_IPV6,
                                   [pkt(subscribe(b"<http://[fd00:1::2]:49200/cb>"))]),
    "seed-v4-subscribe-split": seed(HTTP | F_SNAT, [pkt(SUB4[:60]), pkt(SUB4[60:])]),
    "seed-v4-subscribe-other": seed(HTTP, [pkt(subscribe(b"<http://10.0.1.9:22/>"))]),
    "seed-v4-notify-event": seed(EVENT, [pkt(b"NOTIFY /cb HTTP/1.1\r\nNT: upnp:event\r\n"
                                             b"NTS: upnp:propchange\r\nSEQ: 0\r\n\r\n")]),
    "seed-v4-notify-event-dnat": seed(EVENT | F_SNAT, [pkt(b"NOTIFY /cb HTTP/1.1\r\n\r\n")]),
}

if __name__ == "__main__":
    write("fuzz_ssdp", SEEDS)
