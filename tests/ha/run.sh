#!/bin/bash
# HA end-to-end tests (issue 18): one VM boot runs every scenario against
# both helper implementations (tests/ha/inside.sh) and prints PASS/FAIL
# lines and a side-by-side table.  Called by tests/run.sh; extra arguments
# select implementations (cthelperd kernel).
# CTH_BUILD (default build): the daemon's build dir, passed into the VM, e.g.
#   make B=build-ha all && CTH_BUILD=build-ha tests/ha/run.sh
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/vm/rundir.sh
. tests/vm/rundir.sh
# shellcheck source=tests/lib/vmsuite.sh
. tests/lib/vmsuite.sh
suite_boot ha "${HA_VM_TIMEOUT:-600}" "CTH_BUILD HA_ONLY" "$@"
