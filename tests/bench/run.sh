#!/bin/bash
# make bench (issue 17): one VM boot runs tests/bench/inside.sh (every
# implementation side by side, repetitions in alternating order), then
# tests/bench/report.py turns the raw measurements into medians and ratios:
# $CTH_BUILD/bench/results.md (the table) and results.png (the chart).
# Never part of make check: performance is measured, not asserted.
# Environment: CTH_BUILD (default build) and the BENCH_* knobs of inside.sh.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/vm/rundir.sh
. tests/vm/rundir.sh
# shellcheck source=tests/lib/vmsuite.sh
. tests/lib/vmsuite.sh
CTH_BUILD=${CTH_BUILD:-build}
export CTH_BUILD
RES=$(rundir_new build/vm/bench) || exit 1
mkdir -p "$RES"
# kmod/'s module for the cthelperd-kmod column (payload_only), built for
# the VM's kernel; the VM gets a copy taken now
KO=build/kmod/cthelperd_nfnl.ko
tests/kmod/run.sh --build-only >"$RES/kmod-build.log" 2>&1 ||
	echo "# no cthelperd-kmod column: tests/kmod/run.sh --build-only failed"
if [ -f "$KO" ] && mkdir -p "$RES/kmod" && cp "$KO" "$RES/kmod/"; then
	export CTH_KMOD=$RES/kmod/cthelperd_nfnl.ko
fi
suite_boot bench "${BENCH_TIMEOUT:-3600}" \
	"CTH_BUILD CTH_KMOD BENCH_REPS BENCH_SECONDS BENCH_FTP_SECONDS BENCH_SIP_CALLS BENCH_ONLY BENCH_PROFILE
	BENCH_SCALE_STEPS BENCH_SCALE_HOLD BENCH_SCALE_XFER BENCH_SCALE_DIALOGS BENCH_SCALE_IMPLS
	BENCH_SCALE_SERVER_KEYS BENCH_SCALE_PARTS BENCH_SCALE_LOG BENCH_PROFILE_LOAD" "$@"
rc=$?
OUTDIR=$CTH_BUILD/bench
mkdir -p "$OUTDIR"
# a profile alone (BENCH_ONLY=profile) measures nothing to report: its
# traces are read here
if [ "${BENCH_ONLY:-}" = profile ]; then
	/usr/bin/python3 tests/bench/trace_rr.py "$RES/logs" | tee "$RES/logs/trace-rr.md"
	echo "bench: traces in $RES/logs/perf-*-trace.txt.gz, read in $RES/logs/trace-rr.md"
	exit $rc
fi
if [ ! -s "$RES/bench/raw.tsv" ]; then
	echo "FAIL bench: no measurements in $RES/bench/raw.tsv"
	exit 1
fi
cp "$RES/bench/raw.tsv" "$OUTDIR/raw.tsv"
/usr/bin/python3 tests/bench/report.py "$OUTDIR/raw.tsv" "$OUTDIR" || rc=1
exit $rc
