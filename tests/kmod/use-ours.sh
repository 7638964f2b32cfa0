#!/bin/bash
# Inside the test VM: make kmod/'s cthelperd_nfnl serve the cthelper
# subsystem instead of the in-tree nfnetlink_cthelper, e.g. before running
# an end-to-end scenario on our module:
#
#   tests/kmod/use-ours.sh [KO]     (default build/kmod/cthelperd_nfnl.ko,
#                                    built by tests/kmod/run.sh --build-only)
#
# Exits non-zero with a message on stderr when it cannot.  Helpers still
# registered with the in-tree module are deleted first (remove rules that
# reference them before: see kmod/README.md).
set -u
cd "$(dirname "$0")/../.." || exit 1
KO=${1:-build/kmod/cthelperd_nfnl.ko}
[ -f "$KO" ] || { echo "use-ours: $KO missing (tests/kmod/run.sh --build-only)" >&2; exit 1; }
[ -d /sys/module/cthelperd_nfnl ] && exit 0
modprobe nf_conntrack && modprobe nfnetlink || exit 1
if [ -d /sys/module/nfnetlink_cthelper ]; then
	/usr/bin/python3 tests/kmod/cthnl.py del >/dev/null
	rmmod nfnetlink_cthelper || { echo "use-ours: cannot unload nfnetlink_cthelper (still referenced)" >&2; exit 1; }
fi
insmod "$KO" || { echo "use-ours: insmod $KO failed" >&2; exit 1; }
