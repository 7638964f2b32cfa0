#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write the hand-made seed corpus of fuzz_tftp.

    tests/fuzz/mkseeds_tftp.py       # rewrites tests/fuzz/corpus/fuzz_tftp/seed-*

The input layout is described at the top of fuzz_tftp.c: flags, host
byte, expect mode, then datagrams (a byte: 1 from the server, 2 the host
holds part of it; a 16-bit length; the payload).  Addresses as
fuzz_tftp.c builds them: client 10.0.1.2 / fd00:1::2 port 50000, server
10.0.2.2 / fd00:2::2 port 69, NAT address 10.0.2.1 / fd00:2::1 port 40001.
"""
import struct

from mkseeds import write
from wire import (TFTP_RRQ as RRQ, TFTP_WRQ as WRQ, tftp_ack, tftp_data, tftp_error, tftp_oack,
                  tftp_request)

F_IPV6, F_SNAT, F_DNAT, F_EXPECTED = 1, 2, 4, 8
H_LOOSE = 1
P_REPLY, P_TRUNCATED = 1, 2


def pkt(payload, bits=0):
    return bytes([bits]) + struct.pack("!H", len(payload)) + payload


def seed(flags, packets, host=0, expect_mode=0):
    return bytes([flags, host, expect_mode]) + b"".join(packets)


OPTS = [("blksize", "1468"), ("tsize", "0"), ("timeout", "3"), ("windowsize", "8")]

SEEDS = {
    "seed-v4-rrq": seed(0, [pkt(tftp_request(RRQ, "pxelinux.0"))]),
    "seed-v4-wrq-netascii": seed(0, [pkt(tftp_request(WRQ, "upload.txt", "netascii"))]),
    "seed-v4-rrq-options": seed(0, [pkt(tftp_request(RRQ, "boot/vmlinuz", "octet", OPTS))]),
    "seed-v4-rrq-retransmitted": seed(0, [pkt(tftp_request(RRQ, "a")),
                                          pkt(tftp_request(RRQ, "a"))]),
    "seed-v4-rrq-reply-direction": seed(0, [pkt(tftp_request(RRQ, "a"), P_REPLY)]),
    "seed-v4-error-from-69": seed(0, [pkt(tftp_request(RRQ, "nope")),
                                      pkt(tftp_error(1, "File not found"), P_REPLY)]),
    "seed-v4-rrq-padding": seed(0, [pkt(tftp_request(RRQ, "f", "mail") + b"\0\0\0")]),
    "seed-v6-rrq": seed(F_IPV6, [pkt(tftp_request(RRQ, "grubx64.efi", "OCTET"))]),
    "seed-v4-snat-rrq": seed(F_SNAT, [pkt(tftp_request(RRQ, "pxelinux.0"))]),
    "seed-v4-dnat-wrq": seed(F_DNAT, [pkt(tftp_request(WRQ, "fw.bin"))]),
    "seed-v4-snat-dnat-rrq": seed(F_SNAT | F_DNAT, [pkt(tftp_request(RRQ, "x", "octet", OPTS))]),
    "seed-v6-snat-rrq": seed(F_IPV6 | F_SNAT, [pkt(tftp_request(RRQ, "f"))]),
    "seed-v4-expect-error": seed(0, [pkt(tftp_request(RRQ, "f"))], expect_mode=3),
    "seed-v4-transfer": seed(F_EXPECTED, [pkt(tftp_data(1, b"x" * 512), P_REPLY),
                                          pkt(tftp_ack(1)),
                                          pkt(tftp_request(RRQ, "in-the-data"), P_REPLY)]),
    "seed-v4-oack-ack": seed(0, [pkt(tftp_oack(OPTS[:2]), P_REPLY), pkt(tftp_ack(0))]),
    "seed-v4-no-nul": seed(0, [pkt(b"\0\1pxelinux.0octet")]),
    "seed-v4-bad-mode": seed(0, [pkt(tftp_request(RRQ, "f", "binary"))]),
    "seed-v4-bad-mode-loose": seed(0, [pkt(tftp_request(RRQ, "f", "binary"))], host=H_LOOSE),
    "seed-v4-opcode-only-loose": seed(0, [pkt(b"\0\2")], host=H_LOOSE),
    "seed-v4-overlong": seed(0, [pkt(tftp_request(RRQ, "a" * 600))]),
    "seed-v4-truncated": seed(0, [pkt(tftp_request(RRQ, "f")[:5], P_TRUNCATED)]),
    "seed-v4-unknown-opcode": seed(0, [pkt(b"\0\x07f\0octet\0")]),
}


if __name__ == "__main__":
    write("fuzz_tftp", SEEDS)
