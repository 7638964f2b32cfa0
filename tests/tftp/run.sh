#!/bin/bash
# TFTP end-to-end tests: one VM boot runs every case against every helper
# implementation (tests/tftp/inside.sh: no helper, cthelperd, conntrackd,
# the kernel's) and prints PASS/FAIL lines and a side-by-side table.
# Called by tests/run.sh; extra arguments select implementations (none
# cthelperd conntrackd kernel).
# CTH_BUILD (default build): the daemon's build dir, passed into the VM, e.g.
#   make B=build-tftp all && CTH_BUILD=build-tftp tests/tftp/run.sh
# TFTP_ONLY: an extended regex over case names; TFTP_VM_TIMEOUT (default
# 600 s) bounds the VM.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/vm/rundir.sh
. tests/vm/rundir.sh
# shellcheck source=tests/lib/vmsuite.sh
. tests/lib/vmsuite.sh
suite_boot tftp "${TFTP_VM_TIMEOUT:-600}" "CTH_BUILD TFTP_ONLY" "$@"
rc=$?
suite_account tftp "$rc"
exit $rc
