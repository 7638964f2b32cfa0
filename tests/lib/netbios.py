#!/usr/bin/python3
"""NetBIOS name query broadcast to port 137 (IPv4 only; try sends to 255.255.255.255 unless --to names a subnet broadcast) and its unicast answer, for the VM suites and loopback tests.

  netbios.py serve [--family 4|6] [--iface IF] [--group ADDR] [--port P]
            [--from-port P] [--count N] [--ready FILE] [--quiet]
  netbios.py try [--family 4|6] [--iface IF] [--to ADDR] [--port P] [--sport P]
          [--timeout S]

serve prints "ready" once listening and answers each valid query unicast
to the querier from --from-port (default: the protocol's port); try sends
one query and exits 0 (answer arrived), 1 (timeout: blocked) or 2
(protocol error).  The whole CLI and the packets: tests/lib/lanquery.py.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from lanquery import NETBIOS, main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(NETBIOS))
