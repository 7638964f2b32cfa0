#!/bin/bash
# FTP end-to-end tests: one VM boot runs every scenario against every
# helper implementation (tests/e2e/inside.sh) and prints PASS/FAIL lines and
# a side-by-side table.  Called by tests/run.sh; extra arguments select
# implementations (none conntrackd cthelperd kernel cthelperd-kmod).
# Then tests/replay/vmcompare.sh replays what the VM captured (issue 16).
# CTH_BUILD (default build): the daemon's build dir, passed into the VM, e.g.
#   make B=build-e2e all && CTH_BUILD=build-e2e tests/e2e/run.sh
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/vm/rundir.sh
. tests/vm/rundir.sh
# shellcheck source=tests/lib/vmsuite.sh
. tests/lib/vmsuite.sh
RES=$(rundir_new build/vm/e2e) || exit 1
# kmod/'s module (cthelperd-kmod column) may be rebuilt by tests/kmod/run.sh
# while this run goes on: the VM gets a copy taken now.
KO=${CTH_KMOD:-build/kmod/cthelperd_nfnl.ko}
if [ -f "$KO" ] && mkdir -p "$RES/kmod" && cp "$KO" "$RES/kmod/cthelperd_nfnl.ko"; then
	export CTH_KMOD=$RES/kmod/cthelperd_nfnl.ko
fi
suite_boot e2e "${E2E_TIMEOUT:-1500}" "CTH_BUILD CTH_KMOD E2E_ONLY" "$@"
rc=$?
# Issue 16: the cthelperd column's captures (RES/replay-vm/<case>/) against
# the offline replay, on the host: PASS/FAIL replay-vm/<case>.
if [ -d "$RES/replay-vm" ]; then
	tests/replay/vmcompare.sh "$RES" || [ $rc != 0 ] || rc=1
fi
exit $rc
