#!/bin/bash
# Oracle TNS and SunRPC end-to-end tests: one VM boot runs every case
# against every helper implementation (tests/tnsrpc/inside.sh) and prints
# PASS/FAIL lines and a side-by-side table, then tests/replay/vmcompare.sh
# replays what the VM captured (issue 16).  Called by tests/run.sh;
# extra arguments select implementations (none cthelperd conntrackd).
# CTH_BUILD (default build): the daemon's build dir, passed into the VM, e.g.
#   make B=build-tnsrpc all && CTH_BUILD=build-tnsrpc tests/tnsrpc/run.sh
# TNSRPC_ONLY: an extended regex over case names; TNSRPC_VM_TIMEOUT (default
# 600 s) bounds the VM.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/vm/rundir.sh
. tests/vm/rundir.sh
# shellcheck source=tests/lib/vmsuite.sh
. tests/lib/vmsuite.sh
suite_boot tnsrpc "${TNSRPC_VM_TIMEOUT:-600}" "CTH_BUILD TNSRPC_ONLY" "$@"
rc=$?
# Issue 16: the cthelperd column's captures (RES/replay-vm/<case>/) against
# the offline replay, on the host: PASS/FAIL replay-vm/tnsrpc/<case>.
if [ -d "$RES/replay-vm" ]; then
	tests/replay/vmcompare.sh "$RES" tnsrpc || [ $rc != 0 ] || rc=1
fi
exit $rc
