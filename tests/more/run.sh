#!/bin/bash
# Issue 31's helpers end to end (ssdp, mdns, slp, dhcpv6, amanda, sane,
# irc, netbios-ns; PPTP in the kernel next to cthelperd): one VM boot runs
# every case against every implementation (tests/more/inside.sh: no
# helper, cthelperd, conntrackd, the kernel's) and prints PASS/FAIL lines
# and a side-by-side table.  Called by tests/run.sh; extra arguments
# select implementations (none cthelperd conntrackd kernel).
# CTH_BUILD (default build): the daemon's build dir, passed into the VM, e.g.
#   make B=build-more all && CTH_BUILD=build-more tests/more/run.sh
# MORE_ONLY: an extended regex over case names; MORE_VM_TIMEOUT (default
# 900 s) bounds the VM.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/vm/rundir.sh
. tests/vm/rundir.sh
# shellcheck source=tests/lib/vmsuite.sh
. tests/lib/vmsuite.sh
suite_boot more "${MORE_VM_TIMEOUT:-900}" "CTH_BUILD MORE_ONLY MORE_RULES" "$@"
rc=$?
suite_account more "$rc"
exit $rc
