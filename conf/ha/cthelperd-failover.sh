#!/bin/sh
# Run by the address mover (keepalived's notify_master / notify_backup /
# notify_fault, see keepalived.conf here) when this router changes role.
# cthelperd itself needs nothing at failover: it serves whatever the kernel
# queues; what matters is that it was ready before (cthelperctl status).
# Usage: cthelperd-failover.sh primary|backup|fault
set -u
CONNTRACKD=${CONNTRACKD:-/usr/sbin/conntrackd}
CONF=${CONNTRACKD_CONF:-/etc/conntrackd/conntrackd.conf}

run() {
	"$CONNTRACKD" -C "$CONF" "$@" ||
		logger -t cthelperd-failover "conntrackd $* failed ($?)"
}

case "${1:-}" in
primary)
	# The peer's connections, then its expectations (an expectation
	# needs its master), into this kernel: "-c" commits both.
	run -c
	# This router's own view from now on: forget the internal cache,
	# refill it from the kernel, and tell the peer about it.
	run -f
	run -R
	run -B
	;;
backup)
	# Ask the new primary for its state, and let the entries this
	# router no longer forwards expire soon.
	run -n
	run -t
	;;
fault)
	run -t
	;;
*)
	echo "usage: $0 primary|backup|fault" >&2
	exit 2
	;;
esac
exit 0
