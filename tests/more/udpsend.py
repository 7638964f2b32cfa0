#!/usr/bin/python3
"""Send COUNT datagrams from SRC:SPORT to DST:DPORT, one every INTERVAL
seconds (tests/more: an answer from a host that must not be let in).

  udpsend.py SRC SPORT DST DPORT COUNT INTERVAL
"""
import socket
import sys
import time


def main(a):
    if len(a) != 6:
        print(__doc__, file=sys.stderr)
        return 2
    src, sport, dst, dport, count, gap = a[0], int(a[1]), a[2], int(a[3]), int(a[4]), float(a[5])
    s = socket.socket(socket.AF_INET6 if ":" in dst else socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((src, sport))
    sent = 0
    for i in range(count):
        try:
            s.sendto(b"answer %d from outside" % i, (dst, dport))
            sent += 1
        except OSError:
            pass   # an ICMP error of the last one
        time.sleep(gap)
    print("sent %d of %d from %s:%d to %s:%d" % (sent, count, src, sport, dst, dport))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
