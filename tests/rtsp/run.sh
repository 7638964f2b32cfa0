#!/bin/bash
# RTSP end-to-end tests: one VM boot runs every case against every helper
# implementation (tests/rtsp/inside.sh: no helper and cthelperd) and
# prints PASS/FAIL lines and a side-by-side table.
# Called by tests/run.sh; extra arguments select implementations (none
# cthelperd).
# CTH_BUILD (default build): the daemon's build dir, passed into the VM, e.g.
#   make B=build-rtsp all && CTH_BUILD=build-rtsp tests/rtsp/run.sh
# RTSP_ONLY: an extended regex over case names; RTSP_VM_TIMEOUT (default
# 480 s) bounds the VM; RTSP_OPEN=1: no firewall (sanity run).
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/vm/rundir.sh
. tests/vm/rundir.sh
# shellcheck source=tests/lib/vmsuite.sh
. tests/lib/vmsuite.sh
suite_boot rtsp "${RTSP_VM_TIMEOUT:-480}" "CTH_BUILD RTSP_ONLY RTSP_OPEN" "$@"
rc=$?
suite_account rtsp "$rc"
exit $rc
