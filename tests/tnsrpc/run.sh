#!/bin/bash
# Oracle TNS and SunRPC end-to-end tests: one VM boot runs every case
# against every helper implementation (tests/tnsrpc/inside.sh) and prints
# PASS/FAIL lines and a side-by-side table.  Called by tests/run.sh;
# extra arguments select implementations (none cthelperd conntrackd).
# CTH_BUILD (default build): the daemon's build dir, passed into the VM, e.g.
#   make B=build-tnsrpc all && CTH_BUILD=build-tnsrpc tests/tnsrpc/run.sh
# TNSRPC_ONLY: an extended regex over case names; TNSRPC_VM_TIMEOUT (default
# 600 s) bounds the VM.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/vm/rundir.sh
. tests/vm/rundir.sh
RES=$(rundir_new build/vm/tnsrpc) || exit 1
export VM_PASS_ENV="${VM_PASS_ENV:-} CTH_BUILD TNSRPC_ONLY"
start=$SECONDS
tests/vm/run.sh --timeout "${TNSRPC_VM_TIMEOUT:-600}" --results "$RES" tests/tnsrpc/inside.sh "$@"
rc=$?
echo "tnsrpc: whole run (boot included) took $((SECONDS - start)) s; logs in $RES/logs"
exit $rc
