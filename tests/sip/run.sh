#!/bin/bash
# SIP end-to-end tests: one VM boot runs every scenario against every
# helper implementation (tests/sip/inside.sh) and prints PASS/FAIL lines and
# a side-by-side table, then tests/replay/vmcompare.sh replays what the VM
# captured (issue 16).  Called by tests/run.sh; extra arguments select
# implementations (none cthelperd cthelperd-kmod kernel).
# CTH_BUILD (default build): the daemon's build dir, passed into the VM, e.g.
#   make B=build-sip all && CTH_BUILD=build-sip tests/sip/run.sh
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/vm/rundir.sh
. tests/vm/rundir.sh
# shellcheck source=tests/lib/vmsuite.sh
. tests/lib/vmsuite.sh
RES=$(rundir_new build/vm/sip) || exit 1
# kmod/'s module (cthelperd-kmod column) may be rebuilt by tests/kmod/run.sh
# while this run goes on: the VM gets a copy taken now.
KO=${CTH_KMOD:-build/kmod/cthelperd_nfnl.ko}
if [ -f "$KO" ] && mkdir -p "$RES/kmod" && cp "$KO" "$RES/kmod/cthelperd_nfnl.ko"; then
	export CTH_KMOD=$RES/kmod/cthelperd_nfnl.ko
fi
suite_boot sip "${SIP_VM_TIMEOUT:-900}" "CTH_BUILD CTH_KMOD SIP_ONLY" "$@"
rc=$?
# Issue 16: the cthelperd column's captures (RES/replay-vm/<case>/) against
# the offline replay, on the host: PASS/FAIL replay-vm/sip/<case>.
if [ -d "$RES/replay-vm" ]; then
	tests/replay/vmcompare.sh "$RES" sip || [ $rc != 0 ] || rc=1
fi
exit $rc
