#!/bin/bash
# SIP end-to-end tests: one VM boot runs every scenario against every
# helper implementation (tests/sip/inside.sh) and prints PASS/FAIL lines and
# a side-by-side table.  Called by tests/run.sh; extra arguments select
# implementations (none cthelperd kernel).
# CTH_BUILD (default build): the daemon's build dir, passed into the VM, e.g.
#   make B=build-sip all && CTH_BUILD=build-sip tests/sip/run.sh
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/vm/rundir.sh
. tests/vm/rundir.sh
RES=$(rundir_new build/vm/sip) || exit 1
export VM_PASS_ENV="${VM_PASS_ENV:-} CTH_BUILD SIP_ONLY"
start=$SECONDS
tests/vm/run.sh --timeout "${SIP_VM_TIMEOUT:-600}" --results "$RES" tests/sip/inside.sh "$@"
rc=$?
echo "sip: whole run (boot included) took $((SECONDS - start)) s; logs in $RES/logs"
exit $rc
