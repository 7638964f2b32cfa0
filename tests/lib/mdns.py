#!/usr/bin/python3
"""mDNS one-shot query (224.0.0.251 / ff02::fb, port 5353) and its unicast answer, for the VM suites and loopback tests.

  mdns.py serve [--family 4|6] [--iface IF] [--group ADDR] [--port P]
            [--from-port P] [--count N] [--ready FILE] [--quiet]
  mdns.py try [--family 4|6] [--iface IF] [--to ADDR] [--port P] [--sport P]
          [--timeout S]

serve prints "ready" once listening and answers each valid query unicast
to the querier from --from-port (default: the protocol's port); try sends
one query and exits 0 (answer arrived), 1 (timeout: blocked) or 2
(protocol error).  The whole CLI and the packets: tests/lib/lanquery.py.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from lanquery import MDNS, main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(MDNS))
