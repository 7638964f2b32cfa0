#!/bin/sh
# Run by the address mover (keepalived's notify_master / notify_backup /
# notify_fault, see keepalived.conf here) when this router changes role.
# cthelperd itself needs nothing at failover: it serves whatever the kernel
# queues; what matters is that it was ready before (cthelperctl status).
# Usage: cthelperd-failover.sh primary|backup|fault
set -u
CONNTRACKD=${CONNTRACKD:-/usr/sbin/conntrackd}
CONF=${CONNTRACKD_CONF:-/etc/conntrackd/conntrackd.conf}
# conntrackd's log (LogFile on): where a commit says it is done.
LOG=${CONNTRACKD_LOG:-/var/log/conntrackd.log}

run() {
	"$CONNTRACKD" -C "$CONF" "$@" ||
		logger -t cthelperd-failover "conntrackd $* failed ($?)"
}

# commit ct|expect: conntrackd 1.4.7 commits in the background and ignores
# a flush while a commit runs (measured in tests/ha: after a plain "-c"
# and an immediate "-f" the expectations were never committed).  So each
# commit is waited for: up to 10 s for its "commit has taken" log line.
commit() {
	before=$(grep -c "commit has taken" "$LOG" 2>/dev/null)
	run -c "$1"
	i=0
	while [ $i -lt 100 ]; do
		now=$(grep -c "commit has taken" "$LOG" 2>/dev/null)
		[ "${now:-0}" -gt "${before:-0}" ] && return 0
		sleep 0.1
		i=$((i + 1))
	done
	logger -t cthelperd-failover "conntrackd -c $1: not done after 10 s"
}

case "${1:-}" in
primary)
	# The peer's connections, then its expectations (an expectation
	# needs its master), into this kernel.
	commit ct
	commit expect
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
