#!/bin/bash
# Golden replay cases: every tests/replay/cases/PLUGIN/CASE.pcap replayed
# through $CTH_BUILD's PLUGIN.so with the options of CASE.args, compared
# with CASE.expect (cthelper-replay --expect), and the packets it writes
# checked (-w, tcpdump -vv: no bad checksum); then the same with the
# plugin in its sandbox (--sandbox, replay-sandbox/...): the same golden
# file line for line, kept bytes included, and the same packets written.
# The SDK examples' own
# cases (sdk/examples/{toydata,udpback}/*.expect) run the same way, also
# with toydata as built against the ABI 2 SDK (tests/abi2/).
#
#   tests/replay/run.sh                  check (PASS/FAIL replay/PLUGIN/CASE)
#   tests/replay/run.sh --update [GLOB]  rewrite the .expect files (review
#                                        the diff before committing!)
#
# CTH_BUILD (default build) is the build under test; tests/run.sh runs it
# for the plain and the ASan+UBSan build.
set -u
cd "$(dirname "$0")/../.."
B=${CTH_BUILD:-build}
REPLAY=$B/cthelper-replay
UPDATE=0
[ "${1:-}" = --update ] && { UPDATE=1; shift; }
GLOB=${1:-*}
OUT=$B/test-results/replay
mkdir -p "$OUT"

# plugin_of PLUGIN: the .so the cases of that directory run
plugin_of() {
	case $1 in
	toydata) echo "$B/tests/toydata/toydata.so" ;;
	tftpback_*) echo "$B/tests/replay/$1.so" ;;
	*) echo "$B/plugins/$1.so" ;;
	esac
}

# one_case NAME PLUGIN.so PCAP EXPECT ARGS...
one_case() {
	local name=$1 so=$2 pcap=$3 expect=$4; shift 4
	local work="$OUT/${name//\//_}" rc
	mkdir -p "$work"
	if [ $UPDATE = 1 ]; then
		"$REPLAY" "$@" "$so" "$pcap" >"$expect" 2>"$work/stderr.txt" ||
			{ echo "FAIL $name: replay exited $?: $(head -c 300 "$work/stderr.txt")"; return; }
		echo "UPDATED $expect"
		return
	fi
	if [ ! -f "$expect" ]; then
		echo "FAIL $name: no golden file $expect (tests/replay/run.sh --update)"
		return
	fi
	"$REPLAY" -q -w "$work/out.pcap" --expect "$expect" "$@" "$so" "$pcap" \
		>"$work/stdout.txt" 2>"$work/stderr.txt"
	rc=$?
	if [ $rc -ne 0 ]; then
		echo "FAIL $name: exit $rc: $(head -n 3 "$work/stderr.txt" | tr '\n' ' ')"
		return
	fi
	# only rewritten or moved packets are written with new sums; the
	# others keep the capture's (loopback captures have partial ones)
	if tcpdump -nn -vv -r "$work/out.pcap" 2>/dev/null | grep -q 'incorrect' &&
	   ! tcpdump -nn -vv -r "$pcap" 2>/dev/null | grep -q 'incorrect'; then
		echo "FAIL $name: a written packet has a bad checksum ($work/out.pcap)"
		return
	fi
	echo "PASS $name"
	sandbox_case "$name" "$so" "$pcap" "$expect" "$work" "$@"
}

# sandbox_case NAME PLUGIN.so PCAP EXPECT WORK ARGS...: one_case's case
# as the daemon runs the plugin (docs/security.md).  The sandbox sends
# its cth_keep() answers back for the trace, so nothing differs from the
# in-process golden.  A call budget far above the default: a loaded
# machine must not make a timeout of a slow turn.
sandbox_case() {
	local name=replay-sandbox/${1#replay/} so=$2 pcap=$3 expect=$4 work=$5 rc; shift 5
	"$REPLAY" -q --sandbox -o sandbox_timeout_ms=10000 -w "$work/out-sandbox.pcap" \
		--expect "$expect" "$@" "$so" "$pcap" >"$work/stdout-sandbox.txt" \
		2>"$work/stderr-sandbox.txt"
	rc=$?
	if [ $rc -ne 0 ]; then
		echo "FAIL $name: exit $rc: $(grep -v "no user" "$work/stderr-sandbox.txt" |
			head -n 3 | tr '\n' ' ')"
		return
	fi
	if ! cmp -s "$work/out.pcap" "$work/out-sandbox.pcap"; then
		echo "FAIL $name: the packets written differ from the in-process run's" \
			"($work/out-sandbox.pcap)"
		return
	fi
	echo "PASS $name"
}

n=0
for pcap in tests/replay/cases/*/$GLOB.pcap; do
	[ -f "$pcap" ] || continue
	plugin=$(basename "$(dirname "$pcap")")
	case_=$(basename "$pcap" .pcap)
	args=()
	[ -f "${pcap%.pcap}.args" ] && read -r -a args <"${pcap%.pcap}.args"
	one_case "replay/$plugin/$case_" "$(plugin_of "$plugin")" "$pcap" \
		"${pcap%.pcap}.expect" "${args[@]}"
	n=$((n + 1))
done
# the SDK examples' cases, as their Makefiles run them
ex=sdk/examples/toydata
if [ "$GLOB" = '*' ]; then
	one_case replay/example/toydata "$B/tests/toydata/toydata.so" "$ex/toydata.pcap" \
		"$ex/toydata.expect"
	one_case replay/example/toydata-dnat "$B/tests/toydata/toydata.so" "$ex/toydata.pcap" \
		"$ex/toydata-dnat.expect" --dnat 10.0.2.2
	ub=sdk/examples/udpback
	one_case replay/example/udpback "$B/tests/udpback/udpback.so" "$ub/udpback.pcap" \
		"$ub/udpback.expect"
	one_case replay/example/udpback-snat "$B/tests/udpback/udpback.so" "$ub/udpback.pcap" \
		"$ub/udpback-snat.expect" --snat 10.0.2.1
fi
# the example as built against the ABI 2 SDK (tests/abi2/README.md): the
# same account as today's example gives (never --update: not its files).
# It declares no ports, so its port is named as for any such plugin (-p),
# where today's example's comes from its declared ports key.
if [ $UPDATE = 0 ] && [ "$GLOB" = '*' ]; then
	one_case replay/abi2/toydata "$B/tests/abi2/toydata.so" "$ex/toydata.pcap" \
		"$ex/toydata.expect" -p 7000
	one_case replay/abi2/toydata-dnat "$B/tests/abi2/toydata.so" "$ex/toydata.pcap" \
		"$ex/toydata-dnat.expect" --dnat 10.0.2.2 -p 7000
fi
[ $n -gt 0 ] || echo "FAIL replay/cases: no case found under tests/replay/cases/"
# a plugin of another ABI: refused, naming both versions and this tool, exit 2
if [ $UPDATE = 0 ] && [ "$GLOB" = '*' ]; then
	abi=$(sed -n 's/^#define CTH_ABI_VERSION \([0-9]*\)u$/\1/p' sdk/include/cthelperd/plugin.h)
	"$REPLAY" "$B/tests/bad/bad_abi.so" "$ex/toydata.pcap" >"$OUT/abi.txt" 2>&1
	rc=$?
	if [ $rc = 2 ] && grep -q "plugin ABI version 99, cthelper-replay speaks $abi" "$OUT/abi.txt"; then
		echo "PASS replay/wrong-abi-refused"
	else
		echo "FAIL replay/wrong-abi-refused: exit $rc: $(head -c 300 "$OUT/abi.txt")"
	fi
fi

# The NAT check (README.md, "The NAT check"): each test helper of
# tests/replay/tftpback.c on each capture of it, run with --strict; its
# account must be
#   D  delivered: exit 0, something related, nothing WRONG nor blocked
#   W  WRONG: exit 4 (--strict), an expected connection delivered wrong
#   B  blocked: exit 0, nothing related, the answer not related
# in the order of NATCASES.
NATCASES="routed routed-snat routed-snat-port two-requests-snat-port routed-dnat masq
masq-port dnat v6-routed-snat v6-masq"
natcheck() {
	local plugin=$1 case_=$2 want=$3 pcap=tests/replay/cases/$1/$2.pcap args rc sum ok
	local related wrong blocked
	read -r -a args <"${pcap%.pcap}.args"
	"$REPLAY" --strict "${args[@]}" "$B/tests/replay/$plugin.so" "$pcap" \
		>"$OUT/natcheck.txt" 2>&1
	rc=$?
	sum=$(grep '^# frames' "$OUT/natcheck.txt")
	related=$(sed -n 's/.* related \([0-9]*\)).*/\1/p' <<<"$sum")
	wrong=$(sed -n 's/.*delivered wrong \([0-9]*\),.*/\1/p' <<<"$sum")
	blocked=$(sed -n 's/.*not related \([0-9]*\)$/\1/p' <<<"$sum")
	case $want in
	D) [ $rc = 0 ] && [ "${related:-0}" -gt 0 ] && [ "$wrong" = 0 ] && [ "$blocked" = 0 ] ;;
	W) [ $rc = 4 ] && [ "${wrong:-0}" -gt 0 ] ;;
	B) [ $rc = 0 ] && [ "$related" = 0 ] && [ "${blocked:-0}" -gt 0 ] ;;
	*) false ;;
	esac
	ok=$?
	if [ $ok = 0 ]; then
		echo "PASS replay/natcheck/$plugin/$case_"
	else
		echo "FAIL replay/natcheck/$plugin/$case_: want $want, exit $rc: ${sum:-$(head -c 300 "$OUT/natcheck.txt")}"
	fi
}
if [ $UPDATE = 0 ] && [ "$GLOB" = '*' ]; then
	while read -r plugin wants; do
		set -- $wants
		for c in $NATCASES; do
			natcheck "tftpback_$plugin" "$c" "$1"
			shift
		done
	done <<-TABLE
	ok    D D D D D D D D D D
	nonat D W W W W W W W W W
	priv  D B B B D B B D B B
	port  D W W W W W W W W W
	TABLE
fi

# Errors name what they are about: the plugin file (no -o given), the -o
# option; a file name that is no helper name is made one, and said.
if [ $UPDATE = 0 ] && [ "$GLOB" = '*' ]; then
	"$REPLAY" "$B/tests/bad/wrong_name.so" "$ex/toydata.pcap" >"$OUT/err.txt" 2>&1
	rc=$?
	if [ $rc = 2 ] && ! grep -q -- '-o:' "$OUT/err.txt" &&
	   grep -q "^cthelper-replay: $B/tests/bad/wrong_name.so: helper 'wrong_name': " "$OUT/err.txt"; then
		echo "PASS replay/error-names-plugin"
	else
		echo "FAIL replay/error-names-plugin: exit $rc: $(head -c 300 "$OUT/err.txt")"
	fi
	"$REPLAY" -o min_port=1024 -o min_port=x "$B/tests/toydata/toydata.so" "$ex/toydata.pcap" \
		>"$OUT/err.txt" 2>&1
	rc=$?
	if [ $rc = 2 ] && grep -q "^cthelper-replay: -o min_port=x: " "$OUT/err.txt"; then
		echo "PASS replay/error-names-option"
	else
		echo "FAIL replay/error-names-option: exit $rc: $(head -c 300 "$OUT/err.txt")"
	fi
	"$REPLAY" -p 69 "$B/tests/replay/tftpback_ok_longer_name.so" \
		tests/replay/cases/tftpback_ok/routed.pcap >"$OUT/long.txt" 2>"$OUT/err.txt"
	rc=$?
	if [ $rc = 0 ] && grep -q "^# plugin tftpback_ok_longer_name, helper tftpback_ok_lon," "$OUT/long.txt" &&
	   grep -q "the helper is named 'tftpback_ok_lon'" "$OUT/err.txt"; then
		echo "PASS replay/helper-name-cut-said"
	else
		echo "FAIL replay/helper-name-cut-said: exit $rc: $(head -c 300 "$OUT/err.txt")"
	fi
fi

# A plugin that crashes: exit 3, the frame named.
if [ $UPDATE = 0 ] && [ "$GLOB" = '*' ]; then
	"$REPLAY" -p 69 "$B/tests/replay/tftpback_crash.so" \
		tests/replay/cases/tftpback_ok/routed.pcap >"$OUT/crash.txt" 2>&1
	rc=$?
	if [ $rc = 3 ] && grep -q 'while replaying frame 1' "$OUT/crash.txt"; then
		echo "PASS replay/plugin-crash-exit-3"
	else
		echo "FAIL replay/plugin-crash-exit-3: exit $rc: $(tail -c 300 "$OUT/crash.txt")"
	fi
fi

# A plugin built with ASan+UBSan (cthelper-replay(1), SANITIZERS): a
# replay without the runtime refuses it with the fix (exit 2); with the
# runtime preloaded (or built in, CTH_BUILD=build-asan) it runs to the
# plain build's golden, and its crash is a sanitizer's report and exit 3.
asan_so=$B/tests/replay/asan/tftpback_ok.so
if [ $UPDATE = 0 ] && [ "$GLOB" = '*' ] && [ -f "$asan_so" ]; then
	lib=$(readelf -d "$asan_so" 2>/dev/null |
		sed -n 's/.*Shared library: \[\(libasan\.so[^]]*\)\].*/\1/p')
	rt=$(${CC:-cc} -print-file-name="${lib:-libasan.so}" 2>/dev/null)
	masq=tests/replay/cases/tftpback_ok/masq
	if [ -z "$lib" ] || [ ! -f "$rt" ]; then
		echo "SKIP replay/asan-plugin: no libasan to preload (${lib:-not linked}, ${rt:-no cc})"
	else
		pre=("env" "LD_PRELOAD=$rt")
		if readelf -d "$REPLAY" | grep -q 'libasan'; then
			pre=("env")
		else
			"$REPLAY" -q $(cat $masq.args) "$asan_so" $masq.pcap >"$OUT/asan.txt" 2>&1
			rc=$?
			if [ $rc = 2 ] && grep -qF "LD_PRELOAD=\$(cc -print-file-name=$lib)" "$OUT/asan.txt"; then
				echo "PASS replay/asan-plugin-runtime-missing"
			else
				echo "FAIL replay/asan-plugin-runtime-missing: exit $rc: $(head -c 300 "$OUT/asan.txt")"
			fi
		fi
		"${pre[@]}" "$REPLAY" -q --expect $masq.expect $(cat $masq.args) "$asan_so" \
			$masq.pcap >"$OUT/asan.txt" 2>&1
		rc=$?
		if [ $rc = 0 ]; then
			echo "PASS replay/asan-plugin"
		else
			echo "FAIL replay/asan-plugin: exit $rc: $(head -c 300 "$OUT/asan.txt")"
		fi
		"${pre[@]}" "$REPLAY" -p 69 "$B/tests/replay/asan/tftpback_crash.so" \
			tests/replay/cases/tftpback_ok/routed.pcap >"$OUT/asan-crash.txt" 2>&1
		rc=$?
		if [ $rc = 3 ] && grep -qE 'Sanitizer|runtime error' "$OUT/asan-crash.txt" &&
		   grep -q "failed a sanitizer's check" "$OUT/asan-crash.txt"; then
			echo "PASS replay/asan-plugin-crash-exit-3"
		else
			echo "FAIL replay/asan-plugin-crash-exit-3: exit $rc: $(tail -c 300 "$OUT/asan-crash.txt")"
		fi
	fi
fi
