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
# shellcheck source=tests/lib/vmsuite.sh
. tests/lib/vmsuite.sh
suite_boot tnsrpc "${TNSRPC_VM_TIMEOUT:-600}" "CTH_BUILD TNSRPC_ONLY" "$@"
