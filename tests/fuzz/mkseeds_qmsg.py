#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write the seed corpus of fuzz_qmsg: queue message attributes as the
kernel's conntrack glue writes them (IPv4 and IPv6, with and without
CTA_HELP, a truncated and a GSO packet, with the interfaces).

    tests/fuzz/mkseeds_qmsg.py       # rewrites tests/fuzz/corpus/fuzz_qmsg/
"""
import os
import socket
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
NESTED = 0x8000
# uapi numbers (linux/netfilter/nfnetlink_queue.h, nfnetlink_conntrack.h)
NFQA_PACKET_HDR, NFQA_PAYLOAD, NFQA_CT, NFQA_CT_INFO = 1, 10, 11, 12
NFQA_CAP_LEN, NFQA_SKB_INFO = 13, 14
NFQA_IFINDEX_INDEV, NFQA_IFINDEX_OUTDEV = 4, 5
CTA_TUPLE_ORIG, CTA_TUPLE_REPLY, CTA_STATUS, CTA_HELP, CTA_ID, CTA_ZONE = 1, 2, 3, 5, 12, 18
CTA_TUPLE_IP, CTA_TUPLE_PROTO = 1, 2
CTA_IP_V4_SRC, CTA_IP_V4_DST, CTA_IP_V6_SRC, CTA_IP_V6_DST = 1, 2, 3, 4
CTA_PROTO_NUM, CTA_PROTO_SRC_PORT, CTA_PROTO_DST_PORT = 1, 2, 3
CTA_HELP_NAME, CTA_HELP_INFO = 1, 2


def attr(t, payload):
    a = struct.pack("=HH", 4 + len(payload), t) + payload
    return a + b"\0" * ((4 - len(a) % 4) % 4)


def nest(t, *parts):
    return attr(t | NESTED, b"".join(parts))


def tuple_(t, v6, src, dst, sport, dport):
    fam = socket.AF_INET6 if v6 else socket.AF_INET
    s, d = (CTA_IP_V6_SRC, CTA_IP_V6_DST) if v6 else (CTA_IP_V4_SRC, CTA_IP_V4_DST)
    return nest(t, nest(CTA_TUPLE_IP, attr(s, socket.inet_pton(fam, src)),
                        attr(d, socket.inet_pton(fam, dst))),
                nest(CTA_TUPLE_PROTO, attr(CTA_PROTO_NUM, b"\x06"),
                     attr(CTA_PROTO_SRC_PORT, struct.pack(">H", sport)),
                     attr(CTA_PROTO_DST_PORT, struct.pack(">H", dport))))


def packet(v6, payload):
    tcp = struct.pack(">HHIIBBHHH", 40000, 21, 1000, 0, 5 << 4, 0x18, 65535, 0, 0)
    if v6:
        ip = struct.pack(">IHBB", 6 << 28, len(tcp) + len(payload), 6, 64)
        ip += socket.inet_pton(socket.AF_INET6, "fd00:1::2")
        ip += socket.inet_pton(socket.AF_INET6, "fd00:2::2")
    else:
        ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp) + len(payload), 0, 0,
                         64, 6, 0, socket.inet_aton("10.0.1.2"),
                         socket.inet_aton("10.0.2.2"))
    return ip + tcp + payload


def message(v6, help_=True, extra=b""):
    a, b = ("fd00:1::2", "fd00:2::2") if v6 else ("10.0.1.2", "10.0.2.2")
    ct = [tuple_(CTA_TUPLE_ORIG, v6, a, b, 40000, 21),
          tuple_(CTA_TUPLE_REPLY, v6, b, a, 21, 40000),
          attr(CTA_STATUS, struct.pack(">I", 0x8 | 0x2)),
          attr(CTA_ID, struct.pack(">I", 0x1234)),
          attr(CTA_ZONE, struct.pack(">H", 0))]
    if help_:
        ct.append(nest(CTA_HELP, attr(CTA_HELP_NAME, b"ftp\0"),
                       attr(CTA_HELP_INFO, bytes(range(20)))))
    hdr = struct.pack(">IHB", 42, 0x86DD if v6 else 0x0800, 1)
    return (attr(NFQA_PACKET_HDR, hdr) +
            attr(NFQA_PAYLOAD, packet(v6, b"PORT 10,0,1,2,4,1\r\n")) +
            nest(NFQA_CT, *ct) + attr(NFQA_CT_INFO, struct.pack(">I", 0)) + extra)


def main():
    out = os.path.join(HERE, "corpus", "fuzz_qmsg")
    os.makedirs(out, exist_ok=True)
    seeds = {
        "v4": message(False),
        "v6": message(True),
        "v4-nohelp": message(False, help_=False),
        "v6-capped-gso": message(True, extra=attr(NFQA_CAP_LEN, struct.pack(">I", 9000)) +
                                 attr(NFQA_SKB_INFO, struct.pack(">I", 2))),
        # the link view's interfaces: forwarded (in and out), sent by this host
        "v4-forwarded-ifaces": message(False, extra=attr(NFQA_IFINDEX_INDEV, struct.pack(">I", 3)) +
                                       attr(NFQA_IFINDEX_OUTDEV, struct.pack(">I", 2))),
        "v6-local-outdev": message(True, extra=attr(NFQA_IFINDEX_OUTDEV, struct.pack(">I", 2))),
    }
    for name, data in seeds.items():
        with open(os.path.join(out, "seed-" + name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
