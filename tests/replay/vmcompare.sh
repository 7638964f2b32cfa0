#!/bin/bash
# The cases captured in the VM (the cthelperd column of tests/e2e, tests/sip
# and tests/tnsrpc) against the offline replay (issue 16): the replay of
# each capture must create the expectations the kernel reported in the VM
# and rewrite the helped flows as the daemon did on the wire.
#
#   tests/replay/vmcompare.sh RESULTS_DIR [SUITE]   (the suites' run.sh call it)
#
# For each RESULTS_DIR/replay-vm/<case>/ (client.pcap, server.pcap,
# expect.txt, nat.txt, plugin, capture-error/-note; see
# tests/replay/README.md, "VM captures") it writes, next to them:
#   router-in.pcap  what entered the router, in the client's addresses
#                   (vmpcap.py merge): the replay's input
#   replay.txt      cthelper-replay's output lines (replay.err: its stderr)
#   replay-out.pcap the replay's packets as it rewrote them (-w)
# and prints PASS/FAIL replay-vm/[SUITE/]<case> (tests/README.md).
# nat.txt holds the replay's options (-p PORT, -P PROTO, the NAT), plugin
# the plugin's name (ftp when there is none).  CTH_BUILD (default build)
# is where cthelper-replay and plugins/*.so are.
set -u
cd "$(dirname "$0")/../.." || exit 1
RES=${1:?usage: tests/replay/vmcompare.sh RESULTS_DIR [SUITE]}
PREFIX=replay-vm/${2:+$2/}
B=${CTH_BUILD:-build}
PY=/usr/bin/python3
VMPCAP=tests/replay/vmpcap.py
REPLAY=$B/cthelper-replay

# one line of a file, newlines as "; "
oneline() { awk 'NR > 1 { printf "; " } { printf "%s", $0 }' "$1"; }

fail=0
n=0
for dir in "$RES"/replay-vm/*/; do
	[ -d "$dir" ] || continue
	dir=${dir%/}
	name=$PREFIX${dir##*/}
	n=$((n + 1))
	why=
	opts=()
	plugin=ftp
	[ ! -s "$dir/plugin" ] || read -r plugin <"$dir/plugin"
	PLUGIN=$B/plugins/$plugin.so
	if [ -s "$dir/capture-error" ]; then
		why="the capture in the VM failed: $(oneline "$dir/capture-error")"
	fi
	for f in client.pcap server.pcap expect.txt nat.txt; do
		[ -n "$why" ] || [ -s "$dir/$f" ] || why="$f is missing or empty"
	done
	if [ -z "$why" ] && { [ ! -x "$REPLAY" ] || [ ! -e "$PLUGIN" ]; }; then
		why="$REPLAY or $PLUGIN is not built (make B=$B all)"
	fi
	# the helped port and protocol, for vmpcap.py: those of the replay
	port=() proto=()
	if [ -z "$why" ]; then
		read -r -a opts <"$dir/nat.txt"
		for i in "${!opts[@]}"; do
			case ${opts[i]} in
			-p) port=(--port "${opts[i + 1]:-}") ;;
			-P) proto=(--proto "${opts[i + 1]:-}") ;;
			esac
		done
		[ ${#port[@]} = 2 ] || why="nat.txt names no port (-p PORT): ${opts[*]}"
	fi
	if [ -z "$why" ] && ! timeout 60 "$PY" "$VMPCAP" merge "${port[@]}" "${proto[@]}" \
			"$dir/client.pcap" "$dir/server.pcap" "$dir/router-in.pcap" >"$dir/merge.txt" 2>&1; then
		why="merging the captures: $(oneline "$dir/merge.txt")"
	fi
	if [ -z "$why" ]; then
		timeout 60 "$REPLAY" -w "$dir/replay-out.pcap" "${opts[@]}" "$PLUGIN" \
			"$dir/router-in.pcap" >"$dir/replay.txt" 2>"$dir/replay.err"
		rc=$?
		[ $rc = 0 ] || why="cthelper-replay ${opts[*]} $plugin.so exited with status $rc: $(head -n 3 "$dir/replay.err" | oneline /dev/stdin)"
	fi
	if [ -z "$why" ]; then
		timeout 120 "$PY" "$VMPCAP" compare "${port[@]}" "${proto[@]}" \
			--input "$dir/router-in.pcap" \
			--out "$dir/replay-out.pcap" --client "$dir/client.pcap" \
			--server "$dir/server.pcap" --kernel "$dir/expect.txt" \
			--replay "$dir/replay.txt" >"$dir/compare.txt" 2>&1
		rc=$?
		if [ $rc = 0 ]; then
			echo "# $name: $(oneline "$dir/compare.txt")"
		else
			why="$(oneline "$dir/compare.txt") (replay: $plugin.so ${opts[*]})"
		fi
	fi
	if [ -z "$why" ]; then
		echo "PASS $name"
	else
		[ ! -s "$dir/capture-note" ] ||
			why="$why (capture: $(oneline "$dir/capture-note"))"
		echo "FAIL $name: $why"
		echo "  inputs and outputs in $dir"
		fail=1
	fi
done
[ $n -gt 0 ] || echo "# ${PREFIX%/}: no captures in $RES/replay-vm"
exit $fail
