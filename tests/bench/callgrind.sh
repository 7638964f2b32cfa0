#!/bin/bash
# Per-plugin cost (issue 17): instructions per packet under callgrind, on
# the host, with cthelper-replay and the golden captures of tests/replay/.
#
#   tests/bench/callgrind.sh [BUILD_DIR]     (default: build)
#
# For each measure (a packet of interest in a golden capture, routed and
# NATed) cthelper-replay runs under
#   valgrind --tool=callgrind --dump-before=keep_join --dump-after=pkt_call_release
# so that every plugin call gets a profile part of its own: keep_join() and
# pkt_call_release() (server/host/keep.c, server/host/call.c) open and close the
# replay's call of a plugin (replay/engine.c rp_help), and nothing else
# calls them.  Callgrind's call arcs (calls= lines) are then summed per
# kind of code: P the plugin .so, S the daemon's host code linked into the
# replay (server/*/*.c), R the replay's own code (emulated kernel, report),
# L libraries (libc...).  Per part:
#   plugin  = inclusive Ir of the S->P calls (pkt_call_run calling the
#             descriptor's .packet callback, e.g. ftp_packet), the number
#             asked for; calls = their calls= count
#   own     = plugin minus its P->S/R calls (the host table: cth_expect,
#             cth_mangle... whose replay backend is the emulated kernel
#             plus the report's formatting, not the plugin's work)
#   host    = server/ code around and under the plugin call: the R->S
#             calls (keep_join, pkt_call_run, keep_done, pkt_call_mangled
#             with the edits and checksums, ...) minus the plugin, plus the
#             host table calls the plugin made, minus the replay backends
#             the host code calls (S->R: emulated kernel, trace)
# L code counts with its caller (memchr in the plugin is the plugin's).
# "per packet" is the packet of interest's own part (the k-th plugin call,
# k found in the replay's output: the first call whose pkt line matches
# the measure's pattern and that created an expectation); "avg" is the
# whole capture's plugin calls summed and divided by their number.
#
# Outputs under BUILD_DIR/bench/callgrind/: MEASURE.out* (callgrind parts),
# MEASURE.txt (the replay's output, also checked against the golden file),
# MEASURE.packet.txt (callgrind_annotate --inclusive=yes of the packet's
# part), MEASURE.own.txt (where the packet's own Ir go, per plugin
# function), table.txt (the table printed).  A benchmark: numbers and
# targets, no verdict.
set -u
cd "$(dirname "$0")/../.." || exit 2
B=${1:-build}
REPLAY=$(realpath "$B/cthelper-replay" 2>/dev/null)
OUT=$B/bench/callgrind
CASES=tests/replay/cases

for tool in valgrind callgrind_annotate; do
	command -v "$tool" >/dev/null || { echo "callgrind.sh: $tool not found (make deps)" >&2; exit 2; }
done
[ -x "$REPLAY" ] || { echo "callgrind.sh: $B/cthelper-replay missing: make B=$B all" >&2; exit 2; }
mkdir -p "$OUT"

# MEASURE PLUGIN CASE ENTRY PATTERN TARGET: the packet of interest is the
# first plugin call whose report line matches PATTERN (an ERE on the
# "#F pkt ..." line) and that created an expectation.
MEASURES=(
	"ftp-port         ftp port             ftp_packet orig.*\"PORT\\x20     3000"
	"ftp-port-snat    ftp port-snat        ftp_packet orig.*\"PORT\\x20     3000"
	"sip-invite-sdp   sip udp-call         sip_packet orig.*\"INVITE\\x20   15000"
	"sip-invite-snat  sip udp-call-snat    sip_packet orig.*\"INVITE\\x20   15000"
	"tns-redirect     tns redirect         tns_packet reply               -"
	"tns-redirect-dnat tns redirect-dnat   tns_packet reply               -"
	"rpc-getport      rpc udp-getport      rpc_packet reply               -"
	"rpc-getport-snat rpc udp-getport-snat rpc_packet reply               -"
)

# call_index PATTERN < replay output: the 1-based plugin call of interest
call_index() {
	awk -v pat="$1" '
		/^#[0-9]+ pkt / { n++; cand = ($0 ~ pat) ? n : 0; next }
		cand && /^#[0-9]+   expect [0-9]/ { print cand; found = 1; exit }
		END { if (!found) exit 1 }'
}

# costs PLUGIN.so ENTRY PART [funcs]: one line for callgrind part file PART:
#   trigger calls plugin own host entry-seen
# or with "funcs" where the plugin's own Ir goes: each plugin function's
# self Ir plus the library calls it makes (inclusive), largest first.
costs() {
	awk -v so="$1" -v entry="$2" -v mode="${4:-}" '
	function kind(id,   o) {
		o = fob[id]
		if (o == so) return "P"
		if (o ~ /\/cthelper-replay$/) return ffl[id] ~ /(^|\/)server\// ? "S" : "R"
		return "L"
	}
	# "(N) name" or "(N)": the id, and the name when given
	function cid(s) { match(s, /^\([0-9]+\)/); return substr(s, 2, RLENGTH - 2) }
	function cname(s) { sub(/^\([0-9]+\) ?/, "", s); return s }
	function rest(s) { return substr(s, index(s, "=") + 1) }
	# pass 1: the object and file of every function with a fn= block
	FNR == NR {
		if (/^(ob|cob)=/) { s = rest($0); i = cid(s); if (cname(s) != "") obn[i] = cname(s); if (/^ob=/) ob = obn[i] }
		else if (/^(fl|fi|fe|cfi|cfl)=/) { s = rest($0); i = cid(s); if (cname(s) != "") fln[i] = cname(s); if (/^fl=/) fl = fln[i] }
		else if (/^c?fn=/) {
			s = rest($0); i = cid(s)
			if (cname(s) != "") fname[i] = cname(s)
			if (/^fn=/) { fob[i] = ob; ffl[i] = fl }
		}
		else if (/^desc: Trigger: /) trig = substr($0, 16)
		next
	}
	# pass 2: inclusive Ir of the call arcs between kinds (the cost line
	# after calls= is the call'"'"'s inclusive cost)
	/^fn=/ { cur = cid(rest($0)); next }
	/^cfn=/ { callee = cid(rest($0)); next }
	/^calls=/ { split(rest($0), c, " "); ncalls = c[1]; incall = 1; next }
	!/^[0-9+*-]/ { next }
	!incall {
		if (kind(cur) == "P") fself[cur] += $2
		next
	}
	{
		incall = 0
		a = kind(cur); b = kind(callee)
		if (a == "P" && b == "L") fself[cur] += $2
		if (a == b || a == "L" || b == "L") next
		arc[a b] += $2
		if (a == "S" && b == "P") {
			calls += ncalls
			if (fname[callee] == entry) seen = 1
		}
	}
	END {
		if (mode == "funcs") {
			for (f in fself) { printf "%8d %s\n", fself[f], fname[f] | "sort -rn"; t += fself[f] }
			close("sort -rn")
			printf "%8d total (the own column)\n", t
			exit
		}
		plugin = arc["SP"] + 0
		own = plugin - arc["PS"] - arc["PR"]
		host = arc["RS"] - plugin + arc["PS"] - arc["SR"]
		printf "%s %d %d %d %d %d\n", (trig ~ /^--dump-after=pkt_call_release/ ? "call" : "other"), calls, plugin, own, host, seen
	}' "$3" "$3"
}

ROW='%-18s %-20s %-11s %5s %7s %6s %5s %7s %6s %5s  %s\n'
table=$OUT/table.txt
{
	echo "# tests/bench/callgrind.sh $B: $(valgrind --version), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
	echo "# Ir per plugin call.  packet = the packet of interest (call k of n in the capture),"
	echo "# avg = all n calls.  plugin = inclusive Ir of the entry function, own = the"
	echo "# same without the host-table calls it makes (cth_expect... into the replay's"
	echo "# emulated kernel and report), host = server/ code around and under the call."
	echo "# The targets are for own, per packet."
	# shellcheck disable=SC2059 # ROW is the format
	printf "$ROW" '' '' '' '' '--- packet' '' '' '--- avg' '' '' ''
	# shellcheck disable=SC2059
	printf "$ROW" measure capture entry 'k/n' plugin own host plugin own host target
} >"$table"
rc=0
for m in "${MEASURES[@]}"; do
	read -r name plugin case_ entry pattern target <<<"$m"
	pattern=${pattern//\\x20/ }
	dir=$CASES/$plugin
	args=()
	[ -f "$dir/$case_.args" ] && read -r -a args <"$dir/$case_.args"
	so=$(realpath "$B/plugins/$plugin.so")
	rm -f "$OUT/$name".out*
	# LD_BIND_NOW: no lazy symbol binding charged to the first call; a
	# fixed environment: the same stack alignment (libc string functions)
	if ! env -i PATH="$PATH" LD_BIND_NOW=1 valgrind --tool=callgrind --callgrind-out-file="$OUT/$name.out" \
		--dump-before=keep_join --dump-after=pkt_call_release \
		"$REPLAY" --expect "$dir/$case_.expect" "${args[@]}" "$so" "$dir/$case_.pcap" \
		>"$OUT/$name.txt" 2>"$OUT/$name.valgrind.txt"; then
		echo "callgrind.sh: $name: the replay failed or differs from $dir/$case_.expect ($OUT/$name.valgrind.txt)" >&2
		rc=1
		continue
	fi
	if ! k=$(call_index "$pattern" <"$OUT/$name.txt"); then
		echo "callgrind.sh: $name: no plugin call matching '$pattern' with an expectation in $OUT/$name.txt" >&2
		rc=1
		continue
	fi
	# the parts closed by pkt_call_release, one per plugin call, in order
	calls=()
	for ((i = 1; ; i++)); do
		[ -f "$OUT/$name.out.$i" ] || break
		line=$(costs "$so" "$entry" "$OUT/$name.out.$i")
		[ "${line%% *}" = call ] && calls+=("$i ${line#call }")
	done
	n=${#calls[@]}
	read -r part pcalls pplug pown phost pseen <<<"${calls[k - 1]:-}"
	read -r ncalls splug sown shost < <(printf '%s\n' "${calls[@]}" |
		awk '{ n += $2; p += $3; o += $4; h += $5 } END { print n + 0, p + 0, o + 0, h + 0 }')
	if [ "${pcalls:-0}" != 1 ] || [ "$pseen" != 1 ] || [ "$ncalls" != "$n" ]; then
		echo "callgrind.sh: $name: call $k of $n: ${pcalls:-no} call(s) of $entry in its part, $ncalls in all" >&2
		rc=1
		continue
	fi
	callgrind_annotate --inclusive=yes --threshold=100 --auto=no \
		"$OUT/$name.out.$part" >"$OUT/$name.packet.txt" 2>&1
	costs "$so" "$entry" "$OUT/$name.out.$part" funcs >"$OUT/$name.own.txt"
	# shellcheck disable=SC2059
	printf "$ROW" "$name" "$plugin/$case_" "$entry" "$k/$n" "$pplug" "$pown" "$phost" \
		$((splug / n)) $((sown / n)) $((shost / n)) \
		"$([ "$target" = - ] && echo - || echo "<= $target")" >>"$table"
done
sed -i 's/ *$//' "$table"
cat "$table"
exit $rc
