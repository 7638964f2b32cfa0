#!/bin/bash
# Operations end to end (reload, broken reloads, plugin replacement,
# privilege drop, /metrics, the installed tree and its unit's
# ExecStopPost): one VM boot runs tests/ops/inside.sh.  Called by
# tests/run.sh.  CTH_BUILD (default build): the daemon's build dir;
# OPS_ONLY: an extended regex over case names; OPS_VM_TIMEOUT (default
# 900 s) bounds the VM.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/vm/rundir.sh
. tests/vm/rundir.sh
# shellcheck source=tests/lib/vmsuite.sh
. tests/lib/vmsuite.sh
RES=$(rundir_new build/vm/ops) || exit 1
# what "make install DESTDIR=..." gives, installed at /usr/local in the VM
export OPS_INST=$RES/inst   # rundir_new gives an absolute path
if ! make -s B="${CTH_BUILD:-build}" DESTDIR="$OPS_INST" PREFIX=/usr/local install \
	>"$RES/install.log" 2>&1; then
	echo "FAIL e2e-ops/make-install: $(tail -n 3 "$RES/install.log" | tr '\n' ' ')"
	unset OPS_INST
fi
suite_boot ops "${OPS_VM_TIMEOUT:-900}" "CTH_BUILD OPS_ONLY OPS_INST" "$@"
