#!/bin/bash
# Issue 32: the hostile plugin's attacks against cthelperd in one VM boot
# (tests/sandbox/inside.sh, tests/sandbox/README.md).  Called by
# tests/run.sh.
#   CTH_BUILD (default build): the build dir, passed into the VM
#   SANDBOX_OPEN=1: "sandbox = no" for the hostile helper; every attack
#     must then show its effect (the checks can fail)
#   SANDBOX_ONLY: extended regex over attack names
#   SANDBOX_GROUP=1: the fixture checked after every attack, not per group
#   SANDBOX_PING_MS (default 10000): how long the hostile helper may take
#     to serve again after an attack
#   SANDBOX_VM_TIMEOUT: bound of the boot (default 480 s, open 1500 s)
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/vm/rundir.sh
. tests/vm/rundir.sh
# shellcheck source=tests/lib/vmsuite.sh
. tests/lib/vmsuite.sh
timeout=480
[ "${SANDBOX_OPEN:-0}" = 1 ] && timeout=1500
suite_boot sandbox "${SANDBOX_VM_TIMEOUT:-$timeout}" \
	"CTH_BUILD SANDBOX_OPEN SANDBOX_ONLY SANDBOX_GROUP SANDBOX_PING_MS" "$@"
rc=$?
suite_account sandbox "$rc"
exit $rc
