#!/bin/bash
# The whole test suite: unit tests (plain and ASan+UBSan) on the host, then
# the end-to-end scenarios in the qemu VM.  Ends with "N passed, N failed,
# N skipped".  See tests/README.md for the result protocol.
set -u
cd "$(dirname "$0")/.."
LOG=build/test-results
mkdir -p "$LOG"
: >"$LOG/all.txt"
: >"$LOG/times.txt"

# run_suite NAME CMD...: run, tee output, turn a silent crash into a FAIL.
# Each suite's seconds go to $LOG/times.txt: the slowest are printed at
# the end, for keeping the whole run within CI's time.
run_suite() {
	local name=$1; shift
	local out="$LOG/$name.txt" t0=$SECONDS
	echo "=== $name"
	"$@" >"$out" 2>&1
	local rc=$?
	echo "$((SECONDS - t0)) $name" >>"$LOG/times.txt"
	cat "$out"
	grep -E '^(PASS|FAIL|SKIP) ' "$out" >>"$LOG/all.txt"
	if [ $rc -ne 0 ] && ! grep -q '^FAIL ' "$out"; then
		echo "FAIL $name: exited with status $rc" | tee -a "$LOG/all.txt"
	fi
}

# Builds and fuzz runs use every core (CTH_JOBS to change): on CI's two
# cores that is minutes off the run.  The VM suites stay one at a time:
# their scenarios time the network and a second VM would slow the first.
JOBS=${CTH_JOBS:-$(nproc)}

run_units() {
	local dir=$1 t
	for t in "$dir"/tests/test_*; do
		[ -x "$t" ] || continue
		run_suite "$(basename "$dir")-$(basename "$t")" \
			env CTH_BUILD="$dir" ASAN_OPTIONS=detect_leaks=1 \
			UBSAN_OPTIONS=print_stacktrace=1 "$t"
	done
}

# Which folder may include which (server/'s layers, replay, plugins, SDK).
run_suite layers tests/layers.sh
# The builder's CPPFLAGS/CFLAGS/LDFLAGS everywhere, WERROR=, header deps.
run_suite buildflags tests/buildflags.sh

if make -s -j"$JOBS" unit >"$LOG/build.txt" 2>&1; then
	run_units build
else
	cat "$LOG/build.txt"; echo "FAIL build: make unit failed" | tee -a "$LOG/all.txt"
fi
if make -s -j"$JOBS" unit-asan >"$LOG/build-asan.txt" 2>&1; then
	run_units build-asan
else
	cat "$LOG/build-asan.txt"; echo "FAIL build-asan: make unit-asan failed" | tee -a "$LOG/all.txt"
fi

# Golden replay cases (tests/replay/): the plain and the sanitizer build.
for b in build build-asan; do
	if [ -x "$b/cthelper-replay" ]; then
		run_suite "replay-$b" env CTH_BUILD="$b" ASAN_OPTIONS=detect_leaks=1 \
			UBSAN_OPTIONS=print_stacktrace=1 tests/replay/run.sh
	else
		echo "FAIL replay-$b: $b/cthelper-replay was not built" | tee -a "$LOG/all.txt"
	fi
done
# ... and the captures built by cthelper-mkpcap: current and well-formed.
run_suite replay-cases python3 tests/replay/checkcases.py
# The plugin author's kit as installed (PREFIX=/usr into a DESTDIR, its own
# build in build-kit/): paths, .pc, cthelper-mkpcap, cthelper-new-plugin's
# plugins built and checked against the installed SDK, sanitizers, fuzzing.
run_suite kit tests/kit.sh

# libFuzzer targets (tests/fuzz/): each runs FUZZ_SECONDS (default 10, a
# smoke run within CI's time; longer by hand) from a copy of its seed
# corpus, a replay target (fuzz_replay_PLUGIN) half as long with the
# replay cases' captures as seeds too; a crash input is kept in
# $LOG/fuzz-NAME/.
fuzz_seeds() {
	local t=$1 dir=$2 f
	for f in tests/fuzz/corpus/"$t"/*; do
		[ -f "$f" ] && cp "$f" "$dir/"
	done
	case $t in
	fuzz_replay_*)
		for f in tests/replay/cases/"${t#fuzz_replay_}"/*.pcap; do
			[ -f "$f" ] && cp "$f" "$dir/case-${f##*/}"
		done ;;
	fuzz_kit_*)
		for f in sdk/examples/"${t#fuzz_kit_}"/fuzz-seeds/*; do
			[ -f "$f" ] && cp "$f" "$dir/"
		done ;;
	esac
}
run_fuzz() {
	local t=$1 work="$LOG/fuzz-$1" rc crash secs=${FUZZ_SECONDS:-10}
	rm -rf "$work"
	mkdir -p "$work/corpus"
	fuzz_seeds "$t" "$work/corpus"
	case $t in fuzz_replay_*) secs=$(( (secs + 1) / 2 )) ;; esac
	build/fuzz/"$t" -max_total_time="$secs" -timeout=10 \
		-rss_limit_mb=2048 -artifact_prefix="$work/" "$work/corpus" \
		>"$work/log.txt" 2>&1
	rc=$?
	if [ $rc -eq 0 ]; then
		echo "PASS fuzz/$t"
		return 0
	fi
	crash=$(ls "$work"/crash-* "$work"/leak-* "$work"/timeout-* \
		"$work"/oom-* 2>/dev/null | head -n 1)
	grep -E 'invariant violated|ERROR: |SUMMARY: ' "$work/log.txt" | head -n 5
	echo "FAIL fuzz/$t: exit $rc, input ${crash:-(none)}, log $work/log.txt"
	return 1
}
# JOBS targets at a time, each into files of its own; reported in order
# by run_suite as they were run one by one (fuzz_report).
fuzz_start() {
	local t=$1
	( run_fuzz "$t" >"$LOG/fuzz-$t.out" 2>&1; echo $? >"$LOG/fuzz-$t.rc" ) &
}
fuzz_report() {
	local t=$1 rc
	cat "$LOG/fuzz-$t.out"
	read -r rc <"$LOG/fuzz-$t.rc" 2>/dev/null || rc=1
	return "$rc"
}
if make -s -j"$JOBS" fuzz >"$LOG/build-fuzz.txt" 2>&1; then
	fuzz_all=()
	for t in build/fuzz/fuzz_*; do
		[ -x "$t" ] && fuzz_all+=("$(basename "$t")")
	done
	t0=$SECONDS
	for ((i = 0; i < ${#fuzz_all[@]}; i += JOBS)); do
		for t in "${fuzz_all[@]:i:JOBS}"; do
			rm -f "$LOG/fuzz-$t.rc"
			fuzz_start "$t"
		done
		wait
	done
	for t in "${fuzz_all[@]}"; do
		run_suite "fuzz-$t" fuzz_report "$t"
	done
	echo "$((SECONDS - t0)) fuzz (${#fuzz_all[@]} targets, $JOBS at a time)" >>"$LOG/times.txt"
else
	cat "$LOG/build-fuzz.txt"; echo "FAIL build-fuzz: make fuzz failed" | tee -a "$LOG/all.txt"
fi

# The Debian packages (tests/deb/): built from a copy of the tree, checked
# (blhc, hardening-check, lintian), installed on this machine, the VM part
# (tests/deb/vm.sh), purged.  Needs root.
# nocheck: the unit tests the package build would run have run above,
# plain and under ASan (DEB_BUILD_OPTIONS from the environment wins).
run_suite deb env DEB_BUILD_OPTIONS="${DEB_BUILD_OPTIONS:-parallel=2 nocheck}" \
	tests/deb/run.sh

# The VM suites, in this order, each "NAME: why": kmod/ first, since it
# builds build/kmod/cthelperd_nfnl.ko, which e2e also uses (FTP on our
# module).  Each other suite is one VM boot.
VM_SUITES=(
	"kmod: our module built against two kernels, static checks, its VM test"
	"host: expectation paths, helper opt-in, class rule, detach (test plugin)"
	"e2e: FTP end to end, side by side with conntrackd and the kernel"
	"sip: sipp calls, media, registration, NAT"
	"tnsrpc: Oracle TNS and SunRPC (redirects, rpcbind, conntrackd's helpers)"
	"tftp: TFTP read and write, NAT, IPv6, side by side with conntrackd and the kernel"
	"rtsp: RTSP streams (GStreamer, ffmpeg, own client/server), TEARDOWN, NAT, IPv6, with and without the helper"
	"more: SSDP, mDNS, SLP, DHCPv6, Amanda, SANE, IRC, NetBIOS-NS side by side with conntrackd and the kernel; PPTP next to cthelperd"
	"ha: a firewall pair with conntrackd state sync, failover in FTP and SIP"
	"ops: live reload under load, broken reloads, privilege drop, /metrics, install"
	"sandbox: a hostile plugin's attacks contained by the sandbox (docs/security.md)"
)
for entry in "${VM_SUITES[@]}"; do
	name=${entry%%:*}
	if [ -x "tests/$name/run.sh" ]; then
		run_suite "$name" "tests/$name/run.sh"
	else
		echo "FAIL $name: tests/$name/run.sh missing" | tee -a "$LOG/all.txt"
	fi
done

p=$(grep -c '^PASS ' "$LOG/all.txt")
f=$(grep -c '^FAIL ' "$LOG/all.txt")
s=$(grep -c '^SKIP ' "$LOG/all.txt")
echo
echo "whole run: $((SECONDS / 60)) min; the slowest suites (s):"
sort -rn "$LOG/times.txt" | head -n 8 | sed 's/^/  /'
grep -E '^(FAIL|SKIP) ' "$LOG/all.txt" | sed 's/^/  /'
echo "$p passed, $f failed, $s skipped"
[ "$f" -eq 0 ] && [ "$s" -eq 0 ]
