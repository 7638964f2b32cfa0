#!/bin/bash
# Golden replay cases: every tests/replay/cases/PLUGIN/CASE.pcap replayed
# through $CTH_BUILD's PLUGIN.so with the options of CASE.args, compared
# with CASE.expect (cthelper-replay --expect), and the packets it writes
# checked (-w, tcpdump -vv: no bad checksum).  The SDK example's own
# cases (sdk/examples/toydata/*.expect) run the same way, also with the
# example as built against the ABI 2 SDK (tests/abi2/).
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
# the SDK example's cases, as its Makefile runs them
ex=sdk/examples/toydata
if [ "$GLOB" = '*' ]; then
	one_case replay/example/toydata "$B/tests/toydata/toydata.so" "$ex/toydata.pcap" \
		"$ex/toydata.expect"
	one_case replay/example/toydata-dnat "$B/tests/toydata/toydata.so" "$ex/toydata.pcap" \
		"$ex/toydata-dnat.expect" --dnat 10.0.2.2
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
