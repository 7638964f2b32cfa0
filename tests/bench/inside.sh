#!/bin/bash
# Benchmarks (issue 17), run inside the test VM by tests/bench/run.sh: one
# boot measures every implementation side by side, REPS repetitions in
# alternating order (forward, backward, forward, ...), and writes one raw
# line per measurement to $VM_RESULTS/bench/raw.tsv:
#
#   MEASURE <tab> IMPL <tab> REP <tab> VALUE [<tab> NOTE]
#
# tests/bench/report.py (on the host) turns them into medians, ratios, the
# Markdown table and the chart.  Nothing here is a pass/fail test: a
# measurement that could not be taken is a "FAIL bench/..." line naming why.
#
# Implementations (FTP measures, helper on tcp/21 of the topology in
# tests/lib/topo.sh, plain routing, FORWARD admits only NEW to tcp/21):
#   none        no helper: bulk and round trips show the bare forwarding
#               cost; FTP sessions are blocked (failures counted)
#   kernel      nf_conntrack_ftp + nf_nat_ftp
#   conntrackd  conntrackd's helper mode (tests/e2e/conntrackd-helper.conf)
#   floor       tests/bench/floor.c on cthelperd's registration: binds the
#               queue with the daemon's flags and accepts every packet unread
#   cthelperd   the daemon with four plugins loaded (ftp, sip, rpc, tns),
#               each in its sandbox (the default, issue 32)
#   cthelperd-inproc  the same with "sandbox = no" in every helper section:
#               the plugins run in the daemon, as before issue 32
#   cthelperd-kmod  the same on kmod/'s cthelperd_nfnl with payload_only=1
#               (packets without payload are not queued: where kmod/
#               differs from the in-tree module); when CTH_KMOD exists
# SIP calls/s: kernel (nf_conntrack_sip + nf_nat_sip), cthelperd,
# cthelperd-inproc and (when CTH_KMOD exists) cthelperd-kmod.
#
# Measures (names are report.py's keys):
#   bulk_mbs    MB/s of one TCP connection to tcp/21 (cthbench-load bulk)
#   rr_per_s    NOOP/reply round trips per second on one such connection
#   rr_p50_us, rr_p99_us  that run's round trips, median and 99th
#               percentile, microseconds (two helped packets each)
#   ftp_sps     FTP sessions per second (ftp.py sessions: connect, login,
#               PASV, RETR of a 4 KiB file, QUIT; FTP_PAR in parallel)
#   ftp_failed  sessions that failed in that run
#   ftp_serial_sps, ftp_serial_failed  the same, one session at a time;
#               ftp_serial_p50_ms, _p99_ms, _max_ms: its sessions' durations;
#               ftp_serial_vm_cpu_ms, _helper_cpu_ms, _server_cpu_ms,
#               _client_cpu_ms, _softirq_ms: the VM's CPU per session and
#               its parts (cpu_split; logs/cpu-serial-IMPL-REP.txt)
#               (issue 34: the latency of each packet, not the load)
#   ftp_queued_per_session  packets queued per session (queue 0)
#   ftp_cpu_ms_per_session  the VM's CPU time per session, all of it
#   ftp_busy_cpus  the VM's busy CPUs during the sessions (of 2)
#   sip_cps     SIP calls per second (sipp's built-in uac/uas: INVITE with
#               SDP, 180, 200, ACK, BYE, 200; SIP_PAR calls at a time)
#   sip_failed  calls that failed
#   cpu_ms_per_kpkt  CPU time (user + system) of the helper's processes
#               per 1000 queued packets over its bulk and round-trip runs;
#               the helper's processes: the process started and every
#               descendant (cthelperd: the daemon, its spawner, the
#               spawner's sandboxes), found by parent pid in /proc/*/stat
#   rss_kib     the helper's memory after its runs: one process, its VmRSS
#               (rss_anon_kib, rss_file_kib, rss_shmem_kib: its RssAnon,
#               RssFile, RssShmem); several, the sum of their Pss (and of
#               Pss_Anon, Pss_File, Pss_Shmem) from smaps_rollup, so that
#               pages they share (libc, the sandbox channels) count once
#   pss_kib     the sum of Pss over the helper's processes, one or several:
#               the same measure in every column
#   sys_daemon_per_rr, sys_sandbox_per_rr  system calls per round trip
#               (two packets with payload) of the daemon's threads and of
#               its other processes (spawner, sandboxes), counted by
#               strace -c over one round-trip run, once per cthelperd
#               column after the FTP repetitions (strace slows the run:
#               counts, not speed; logs/strace-IMPL-*.txt list them)
#   shard{1,2}_* the shard phase (run when the daemon has "shards")
#
# Environment: CTH_BUILD (default build), BENCH_REPS (3), BENCH_SECONDS (5:
# each bulk and round-trip run), BENCH_FTP_SECONDS (10), BENCH_SIP_CALLS
# (200), BENCH_ONLY (an extended regex of phases: ftp|sip|shard|scale,
# and profile, only when named); the scale phase's BENCH_SCALE_*
# (scale_phase); BENCH_PROFILE (the columns perf_rr traces),
# BENCH_PROFILE_LOAD (rr, the default, or ftp: 3 s of serial FTP sessions).
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/lib/vmsuite.sh
. tests/lib/vmsuite.sh
# shellcheck source=tests/lib/trunk.sh
. tests/lib/trunk.sh
suite_init bench

FTP="$REPO/tests/lib/ftp.py"
OUT=${VM_RESULTS:-$W}/bench
KMOD=${CTH_KMOD:-build/kmod/cthelperd_nfnl.ko}
PAYLOAD_PARAM=/sys/module/cthelperd_nfnl/parameters/payload_only
LOAD=$BUILD/bench/cthbench-load
FLOOR=$BUILD/bench/cthbench-floor
REPS=${BENCH_REPS:-3}
SECS=${BENCH_SECONDS:-5}
FTP_SECS=${BENCH_FTP_SECONDS:-10}
FTP_PAR=4
SIP_CALLS=${BENCH_SIP_CALLS:-200}
SIP_PAR=8
# The load server listens on a second address of the server namespace, so
# that it and the FTP server both have tcp/21.
LOAD4=10.0.2.3
mkdir -p "$OUT"
RAW=$OUT/raw.tsv
: >"$RAW"
T0=$SECONDS

want() { [ -z "${BENCH_ONLY:-}" ] || [[ $1 =~ ^($BENCH_ONLY)$ ]]; }
# raw MEASURE IMPL REP VALUE [NOTE]
raw() { printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "${5:-}" >>"$RAW"; }
fail() { echo "FAIL bench/$1: $2"; }

# ------------------------------------------------------------ helpers' processes

# write_cthelperd_conf [SHARDS [SANDBOX]]: the daemon's configuration:
# four plugins, one queue each (the RSS target is "four plugins loaded");
# SHARDS > 1 shards the ftp helper; SANDBOX no runs every plugin in the
# daemon (cthelperd-inproc), yes (the default) each in its sandbox.
write_cthelperd_conf() {
	local shards=${1:-1} sandbox=${2:-yes}
	cat >"$W/cthelperd.conf" <<EOF
[server]
plugin_dir = $BUILD/plugins
log_level = notice

[helper ftp]
plugin = ftp
protocol = tcp
queue = 0
rule_ports = 21
$([ "$shards" -gt 1 ] && echo "shards = $shards")
sandbox = $sandbox

[helper sip]
plugin = sip
protocol = both
queue = 4
sandbox = $sandbox

[helper rpc]
plugin = rpc
protocol = both
queue = 5
sandbox = $sandbox

[helper tns]
plugin = tns
protocol = tcp
queue = 6
sandbox = $sandbox
EOF
}

# The daemon's own rules for a sharded helper (they spread new
# connections over the shards): the IPv4 raw-table lines of
# "cthelperd --print-rules iptables", run with the topology's iptables
# ($IPT, legacy: impl_stop flushes that table).
shard_rules() {
	local line args
	if ! "$CTHELPERD" --print-rules iptables -c "$W/cthelperd.conf" >"$W/rules.sh" 2>"$LOGS/rules.err"; then
		START_WHY="cthelperd --print-rules iptables failed: $(tr '\n' ' ' <"$LOGS/rules.err")"
		return 1
	fi
	while read -r line; do
		[[ $line == "iptables -t raw "*"--dport 21 "* ]] || continue
		read -r -a args <<<"${line#iptables }"
		"$IPT" "${args[@]}" || { START_WHY="$IPT ${args[*]} failed"; return 1; }
	done <"$W/rules.sh"
}

HPID=   # the process whose CPU time and RSS are measured (none for kernel)
impl_start() {
	local impl=$1 proto=${2:-ftp}
	HPID=
	clean_slate || return 1
	case $impl in
	none) ;;
	kernel) kernel_helpers_load "$proto" || return 1 ;;
	cthelperd-kmod)
		if ! kmod_use_ours "$KMOD" || ! echo 1 >"$PAYLOAD_PARAM"; then
			START_WHY="kmod/'s module with payload_only: $(tr '\n' ' ' <"$LOGS/use-ours.out")"
			return 1
		fi
		write_cthelperd_conf
		cth_start "$LOGS/cthelperd-kmod-$proto.log" "$W/cthelperd.conf" "$proto" 2 || return 1
		HPID=$CTH_PID ;;
	cthelperd)
		write_cthelperd_conf "${SHARDS:-1}"
		cth_start "$LOGS/cthelperd-$proto.log" "$W/cthelperd.conf" "$proto" 2 || return 1
		HPID=$CTH_PID ;;
	cthelperd-inproc)
		write_cthelperd_conf 1 no
		cth_start "$LOGS/cthelperd-inproc-$proto.log" "$W/cthelperd.conf" "$proto" 2 || return 1
		HPID=$CTH_PID ;;
	floor)
		# cthelperd registers the helpers; SIGKILL leaves them enabled
		# (no clean stop runs), and the floor binds their queue.
		write_cthelperd_conf
		cth_start "$LOGS/floor-cthelperd.log" "$W/cthelperd.conf" ftp 2 || return 1
		kill_cthelperd
		"$FLOOR" 0 >"$LOGS/floor.out" 2>&1 &
		HPID=$!
		wait_line "$LOGS/floor.out" 'bound queue' 10000 ||
			{ START_WHY="floor did not bind queue 0: $(tr '\n' ' ' <"$LOGS/floor.out")"; return 1; } ;;
	conntrackd)
		conntrackd_start "$REPO/tests/e2e/conntrackd-helper.conf" \
			"ftp inet tcp" "ftp inet6 tcp" || return 1
		HPID=$CTD_PID ;;
	esac
	[ "$impl" = none ] && return 0
	if [ "$impl" = cthelperd ] && [ "${SHARDS:-1}" -gt 1 ]; then
		shard_rules || return 1
		return 0
	fi
	topo_ct_add "$proto" || { START_WHY="CT --helper $proto rules failed"; return 1; }
}

impl_stop() {
	local impl=$1 proto=${2:-ftp}
	"$IPT" -t raw -F PREROUTING
	"$IP6T" -t raw -F PREROUTING
	case $impl in
	cthelperd | cthelperd-inproc) stop_cthelperd ;;
	cthelperd-kmod)
		stop_cthelperd
		delete_user_helpers "ftp sip rpc tns" "tcp udp" >/dev/null 2>&1
		echo 0 >"$PAYLOAD_PARAM"
		kmod_restore || fail "$impl/cleanup" "cannot switch back to nfnetlink_cthelper" ;;
	floor)
		kill -KILL "$HPID" 2>/dev/null
		wait "$HPID" 2>/dev/null
		"$CTHELPERD" --release -c "$W/cthelperd.conf" >>"$LOGS/floor-cthelperd.log" 2>&1 ;;
	conntrackd) conntrackd_stop ;;
	kernel) kernel_helpers_unload "$proto" ;;
	esac
	HPID=
	# connections still referencing a helper keep it from being deleted
	topo_flush_conntrack
	delete_user_helpers "ftp ftp.1 sip rpc tns" "tcp udp" >/dev/null 2>&1 ||
		fail "$impl/cleanup" "helpers left behind: $(nfct_helpers | tr '\n' ' ')"
}

# ------------------------------------------------------------ measurements

# Queued packets of queue Q so far (id_sequence, 8th column).
queue_seq() {
	awk -v q="$1" '$1 == q { print $8; f = 1 } END { if (!f) print 0 }' \
		/proc/net/netfilter/nfnetlink_queue 2>/dev/null
}
# proc_tree PID: PID and every descendant of it, one per line (the
# sandboxed daemon's spawner is its child, the sandboxes the spawner's;
# the sandboxes are in sessions of their own: the process group misses them).
proc_tree() {
	local f line pid
	local -a st
	local -A kids=()
	for f in /proc/[0-9]*/stat; do
		{ read -r line <"$f"; } 2>/dev/null || continue
		# "pid (comm) state ppid ...": comm may hold spaces and parentheses
		pid=${line%% *}
		read -r -a st <<<"${line##*) }"
		kids[${st[1]}]+=" $pid"
	done
	local -a todo=("$1")
	while [ ${#todo[@]} -gt 0 ]; do
		pid=${todo[0]}
		todo=("${todo[@]:1}")
		[ -d "/proc/$pid" ] || continue
		echo "$pid"
		# shellcheck disable=SC2206  # pids: words wanted
		todo+=(${kids[$pid]:-})
	done
}
# CPU ticks (utime + stime) of PID and its descendants (those alive now).
cpu_ticks() {
	local pid t=0 line
	local -a st
	for pid in $(proc_tree "$1"); do
		{ read -r line <"/proc/$pid/stat"; } 2>/dev/null || continue
		read -r -a st <<<"${line##*) }"
		# utime, stime: fields 14 and 15, 12th and 13th after "(comm)"
		t=$((t + st[11] + st[12]))
	done
	echo "$t"
}
# mem_kib "PIDS" PART: the memory of a helper's processes (proc_tree's),
# KiB; PART rss, anon, file or shmem.  One process: VmRSS (RssAnon,
# RssFile, RssShmem) from status; several: the sum of their Pss (Pss_Anon,
# Pss_File, Pss_Shmem) from smaps_rollup, each shared page split among its
# users.
mem_kib() {
	local f
	if [ "$(wc -w <<<"$1")" -gt 1 ]; then
		pss_kib "$1" "$2"
		return
	fi
	case $2 in rss) f=VmRSS ;; anon) f=RssAnon ;; file) f=RssFile ;; shmem) f=RssShmem ;; esac
	awk -v f="$f:" '$1 == f { print $2 }' "/proc/$1/status" 2>/dev/null
}
# pss_kib "PIDS" PART: the sum of Pss (PART rss) or Pss_Anon, Pss_File,
# Pss_Shmem over PIDS, KiB.
pss_kib() {
	local pid f sum=0 v
	case $2 in rss) f=Pss ;; anon) f=Pss_Anon ;; file) f=Pss_File ;; shmem) f=Pss_Shmem ;; esac
	for pid in $1; do
		v=$(awk -v f="$f:" '$1 == f { print $2 }' "/proc/$pid/smaps_rollup" 2>/dev/null)
		sum=$((sum + ${v:-0}))
	done
	echo "$sum"
}

# load MODE IMPL REP: one cthbench-load run; the value, or a FAIL line.
load_run() {
	local mode=$1 impl=$2 rep=$3 out
	out=$(timeout $((SECS + 40)) nsenter --net="/run/netns/$TOPO_CL_NS" \
		"$LOAD" "$mode" "$LOAD4" 21 "$SECS" 2>>"$LOGS/load-$impl.err")
	if [[ $out =~ ^(bulk|rr)\ [0-9]+\ [0-9.]+\ ([0-9.]+)(\ ([0-9]+)\ ([0-9]+))?$ ]]; then
		raw "$( [ "$mode" = bulk ] && echo bulk_mbs || echo rr_per_s)" "$impl" "$rep" "${BASH_REMATCH[2]}"
		if [ -n "${BASH_REMATCH[3]}" ]; then
			raw rr_p50_us "$impl" "$rep" "${BASH_REMATCH[4]}"
			raw rr_p99_us "$impl" "$rep" "${BASH_REMATCH[5]}"
		fi
	else
		fail "$impl/$mode/$rep" "no result: ${out:-nothing} $(tail -n 2 "$LOGS/load-$impl.err" | tr '\n' ' ')"
	fi
}

ftp_sessions() {
	local impl=$1 rep=$2 out q0 t0 busy
	local -a s0 s1
	q0=$(queue_seq 0)
	read -r -a s0 </proc/stat
	t0=${EPOCHREALTIME/./}
	out=$(timeout $((FTP_SECS + 60)) nsenter --net="/run/netns/$TOPO_CL_NS" "$PY" "$FTP" sessions \
		--host "$SV4" --mode pasv --file small --seconds "$FTP_SECS" --parallel "$FTP_PAR" \
		2>>"$LOGS/ftp-$impl.err")
	if [[ $out =~ ^SESSIONS\ ([0-9]+)\ ([0-9]+)\ ([0-9.]+)\  ]]; then
		raw ftp_sps "$impl" "$rep" "$(awk -v n="${BASH_REMATCH[1]}" -v t="${BASH_REMATCH[3]}" 'BEGIN { printf "%.2f", n / t }')"
		raw ftp_failed "$impl" "$rep" "${BASH_REMATCH[2]}"
		# the VM's CPU time per session (all CPUs busy: user, nice,
		# system, irq, softirq; ticks of 10 ms): helper, clients and
		# server together, the kernel's queue work included
		read -r -a s1 </proc/stat
		busy=$(( (s1[1] + s1[2] + s1[3] + s1[6] + s1[7]) - (s0[1] + s0[2] + s0[3] + s0[6] + s0[7]) ))
		[ "${BASH_REMATCH[1]}" -gt 0 ] &&
			raw ftp_cpu_ms_per_session "$impl" "$rep" \
				"$(awk -v b="$busy" -v n="${BASH_REMATCH[1]}" 'BEGIN { printf "%.2f", b * 10 / n }')"
		raw ftp_busy_cpus "$impl" "$rep" \
			"$(awk -v b="$busy" -v w=$((${EPOCHREALTIME/./} - t0)) 'BEGIN { printf "%.2f", b * 10000 / w }')"
		# what a session costs in queue trips (ftp's queue is 0)
		[ "${BASH_REMATCH[1]}" -gt 0 ] && [ "$impl" != none ] && [ "$impl" != kernel ] &&
			raw ftp_queued_per_session "$impl" "$rep" \
				"$(awk -v p=$(($(queue_seq 0) - q0)) -v n="${BASH_REMATCH[1]}" 'BEGIN { printf "%.1f", p / n }')"
	else
		fail "$impl/ftp/$rep" "no result: ${out:-nothing}"
	fi
}

# ftp_serial IMPL REP: FTP sessions one after the other (issue 34): each
# waits for the last, so the rate is the inverse of a session's latency.
ftp_serial() {
	local impl=$1 rep=$2 out c0 c1 snap=$W/cpu-serial-0.txt
	cpu_snapshot >"$snap"
	c0=$(children_ticks)
	out=$(timeout $((FTP_SECS + 60)) nsenter --net="/run/netns/$TOPO_CL_NS" "$PY" "$FTP" sessions \
		--host "$SV4" --mode pasv --file small --seconds "$FTP_SECS" --parallel 1 \
		2>>"$LOGS/ftp-serial-$impl.err")
	c1=$(children_ticks)
	[[ $out =~ ^SESSIONS\ ([1-9][0-9]*)\  ]] &&
		cpu_split "$impl" "$rep" "${BASH_REMATCH[1]}" "$snap" $((c1 - c0))
	if [[ $out =~ ^SESSIONS\ ([0-9]+)\ ([0-9]+)\ ([0-9.]+)\ ([0-9.]+)\ ([0-9.]+)\ ([0-9.]+)$ ]]; then
		raw ftp_serial_sps "$impl" "$rep" "$(awk -v n="${BASH_REMATCH[1]}" -v t="${BASH_REMATCH[3]}" 'BEGIN { printf "%.2f", n / t }')"
		raw ftp_serial_failed "$impl" "$rep" "${BASH_REMATCH[2]}"
		raw ftp_serial_p50_ms "$impl" "$rep" "${BASH_REMATCH[4]}"
		raw ftp_serial_p99_ms "$impl" "$rep" "${BASH_REMATCH[5]}"
		raw ftp_serial_max_ms "$impl" "$rep" "${BASH_REMATCH[6]}"
	else
		fail "$impl/ftp-serial/$rep" "no result: ${out:-nothing}"
	fi
}

# cpu_snapshot: "PID COMM TICKS" of every process (utime + stime; a
# kernel worker's name changes with its work: the PID is the key), then
# the VM's "0 vm:KIND TICKS" from /proc/stat (user with nice, system,
# irq, softirq: the kernel's packet work shows in the last two).
cpu_snapshot() {
	local f line comm
	local -a st
	for f in /proc/[0-9]*/stat; do
		{ read -r line <"$f"; } 2>/dev/null || continue
		comm=${line#*(} comm=${comm%)*}
		read -r -a st <<<"${line##*) }"
		echo "${line%% *} ${comm// /_} $((st[11] + st[12]))"
	done
	awk '$1 == "cpu" { print "0 vm:user", $2 + $3; print "0 vm:system", $4;
		print "0 vm:irq", $7; print "0 vm:softirq", $8 }' /proc/stat
}
# children_ticks: the CPU ticks of this shell's reaped children (the load
# client: it starts and ends between two snapshots).
children_ticks() {
	# $$: the script's own shell (a command substitution is a subshell)
	awk '{ print $16 + $17 }' /proc/$$/stat 2>/dev/null || echo 0
}
# cpu_split IMPL REP SESSIONS SNAPSHOT CLIENT_TICKS: where a serial
# session's VM CPU went (issue 34: a kmod/ session costs more than the
# kernel's with one queue trip): the whole VM, the helper's processes,
# the FTP server and the client, each in ms per session, and
# logs/cpu-serial-IMPL-REP.txt with every process that used any.
cpu_split() {
	local impl=$1 rep=$2 n=$3 snap=$4 client=$5 hp=" " sp
	[ -z "${HPID:-}" ] || hp=" $(proc_tree "$HPID" | tr '\n' ' ') "
	sp=" $(proc_tree "$FTP_SRV" | tr '\n' ' ') "
	cpu_snapshot | awk -v n="$n" -v client="$client" -v hp="$hp" -v sp="$sp" \
		-v out="$LOGS/cpu-serial-$impl-$rep.txt" '
		NR == FNR { before[$1 ($1 ? "" : $2)] = $3; next }
		{ d = $3 - before[$1 ($1 ? "" : $2)]; if (d <= 0) next
		  if ($1 == 0) { vm[$2] = d; next }
		  if (index(hp, " " $1 " ")) helper += d
		  else if (index(sp, " " $1 " ")) server += d
		  byname[$2] += d }
		END {
			busy = vm["vm:user"] + vm["vm:system"] + vm["vm:irq"] + vm["vm:softirq"]
			printf "vm %.2f helper %.2f server %.2f client %.2f softirq %.2f irq %.2f system %.2f user %.2f\n",
				busy * 10 / n, helper * 10 / n, server * 10 / n, client * 10 / n,
				vm["vm:softirq"] * 10 / n, vm["vm:irq"] * 10 / n, vm["vm:system"] * 10 / n,
				vm["vm:user"] * 10 / n
			printf "# ms per session (%d sessions), by process name\n", n > out
			close(out)
			for (k in byname) printf "%8.2f %s\n", byname[k] * 10 / n, k | ("sort -rn >>" out)
			close("sort -rn >>" out)
		}' "$snap" - | {
		read -r _ vm _ helper _ server _ client _ softirq _ irq _ system _ user
		raw ftp_serial_vm_cpu_ms "$impl" "$rep" "$vm"
		[ "$impl" = kernel ] || [ "$impl" = none ] || raw ftp_serial_helper_cpu_ms "$impl" "$rep" "$helper"
		raw ftp_serial_server_cpu_ms "$impl" "$rep" "$server"
		raw ftp_serial_client_cpu_ms "$impl" "$rep" "$client"
		raw ftp_serial_softirq_ms "$impl" "$rep" "$softirq" "irq $irq, system $system, user $user"
	}
}

# strace_rr IMPL: system calls per round trip of the daemon and of its
# other processes (the spawner and the sandboxes), one strace -c each,
# over one round-trip run.
strace_rr() {
	local impl=$1 pid out n d=() o=() sd so
	progress "strace $impl"
	if ! impl_start "$impl"; then
		fail "$impl/strace-start" "$START_WHY"
		impl_stop "$impl"
		return
	fi
	for pid in $(proc_tree "$HPID"); do
		if [ "$pid" = "$HPID" ]; then d+=(-p "$pid"); else o+=(-p "$pid"); fi
	done
	# -f: every thread of an attached process (the queue workers)
	strace -c -f -o "$LOGS/strace-$impl-daemon.txt" "${d[@]}" 2>>"$LOGS/strace-$impl.err" &
	sd=$!
	so=
	if [ ${#o[@]} -gt 0 ]; then
		strace -c -f -o "$LOGS/strace-$impl-others.txt" "${o[@]}" 2>>"$LOGS/strace-$impl.err" &
		so=$!
	fi
	nap 2
	out=$(timeout $((SECS + 40)) nsenter --net="/run/netns/$TOPO_CL_NS" \
		"$LOAD" rr "$LOAD4" 21 "$SECS" 2>>"$LOGS/load-$impl.err")
	# SIGTERM: strace detaches and writes its summary (SIGINT may be
	# ignored by a background job of a shell without job control)
	kill -TERM $sd $so 2>/dev/null
	wait $sd $so 2>/dev/null
	impl_stop "$impl"
	if ! [[ $out =~ ^rr\ ([0-9]+)\  ]] || [ "${BASH_REMATCH[1]}" -eq 0 ]; then
		fail "$impl/strace" "no round trips: ${out:-nothing}"
		return
	fi
	n=${BASH_REMATCH[1]}
	raw sys_daemon_per_rr "$impl" 1 "$(strace_per "$LOGS/strace-$impl-daemon.txt" "$n")" \
		"$(strace_top "$LOGS/strace-$impl-daemon.txt" "$n")"
	[ -n "$so" ] && raw sys_sandbox_per_rr "$impl" 1 "$(strace_per "$LOGS/strace-$impl-others.txt" "$n")" \
		"$(strace_top "$LOGS/strace-$impl-others.txt" "$n")"
}
# strace_per FILE N: the calls of strace -c's summary in FILE per N (its
# "total" line; columns % time, seconds, usecs/call, calls, errors, name).
strace_per() {
	awk -v n="$2" '$NF == "total" { t = $4 } END { printf "%.2f", t / n }' "$1" 2>/dev/null
}
# strace_top FILE N: its five most frequent system calls, per N.
strace_top() {
	awk -v n="$2" 'NF >= 5 && $4 ~ /^[0-9]+$/ && $NF != "total" { print $4, $NF }' "$1" 2>/dev/null |
		sort -rn | head -n 5 | awk -v n="$2" '{ printf "%s%s %.2f", (NR > 1 ? ", " : ""), $2, $1 / n }'
}

# perf_rr IMPL: where a helped round trip's time goes (issue 34).  TCG
# gives perf no usable sampling (cpu-clock: a few dozen samples in
# seconds), so the trace is of tracepoints, which carry exact times:
# every scheduler switch and wake-up and every system call's entry and
# exit on both CPUs (perf's own left out), for a 2 s round-trip run; perf script writes
# them to logs/perf-IMPL-trace.txt.gz, and tests/bench/trace_rr.py (on
# the host) follows each round trip through them.  The trace slows the
# run: its segments, not its speed, are the result.
perf_rr() {
	local impl=$1 pr out data=$W/perf-$impl.data ack
	progress "perf $impl"
	if ! impl_start "$impl"; then
		fail "$impl/perf-start" "$START_WHY"
		impl_stop "$impl"
		return
	fi
	rm -f "$data" "$W/perf.ctl" "$W/perf.ack"
	proc_tree "${HPID:-1}" >"$LOGS/perf-$impl-pids.txt"
	# perf takes tens of seconds to set up under TCG: it starts with its
	# events off and is switched on once ready, for the load run only
	mkfifo "$W/perf.ctl" "$W/perf.ack"
	perf record -a -D -1 --control "fifo:$W/perf.ctl,$W/perf.ack" \
		-e sched:sched_switch,sched:sched_wakeup,sched:sched_waking,raw_syscalls:sys_enter,raw_syscalls:sys_exit \
		--exclude-perf -o "$data" -- sleep 600 >"$LOGS/perf-$impl-record.txt" 2>&1 &
	pr=$!
	exec 7<>"$W/perf.ctl" 8<>"$W/perf.ack"
	echo enable >&7
	if ! read -r -t 300 ack <&8; then
		fail "$impl/perf" "perf record did not start: $(tr '\n' ' ' <"$LOGS/perf-$impl-record.txt")"
	fi
	if [ "${BENCH_PROFILE_LOAD:-rr}" = ftp ]; then
		out=$(timeout 60 nsenter --net="/run/netns/$TOPO_CL_NS" "$PY" "$FTP" sessions \
			--host "$SV4" --mode pasv --file small --seconds 3 --parallel 1 \
			2>>"$LOGS/ftp-serial-$impl.err")
	else
		out=$(timeout 60 nsenter --net="/run/netns/$TOPO_CL_NS" \
			"$LOAD" rr "$LOAD4" 21 2 2>>"$LOGS/load-$impl.err")
	fi
	echo disable >&7
	read -r -t 60 ack <&8
	exec 7>&- 8>&-
	pkill -INT -P "$pr" sleep 2>/dev/null
	wait $pr
	impl_stop "$impl"
	perf script -i "$data" -F comm,pid,tid,cpu,time,event,trace 2>>"$LOGS/perf-$impl-record.txt" |
		gzip -1 >"$LOGS/perf-$impl-trace.txt.gz"
	rm -f "$data"
	say "perf $impl: $out"
}

# One repetition of the FTP measures for IMPL.
ftp_rep() {
	local impl=$1 rep=$2 q0 c0 q1 c1 n pids
	progress "ftp $impl rep $rep"
	if ! impl_start "$impl"; then
		fail "$impl/start/$rep" "$START_WHY"
		impl_stop "$impl"
		return
	fi
	q0=$(queue_seq 0)
	[ -z "$HPID" ] || c0=$(cpu_ticks "$HPID")
	load_run bulk "$impl" "$rep"
	load_run rr "$impl" "$rep"
	if [ -n "$HPID" ]; then
		q1=$(queue_seq 0) c1=$(cpu_ticks "$HPID")
		# ticks are 10 ms (USER_HZ 100)
		[ $((q1 - q0)) -gt 0 ] &&
			raw cpu_ms_per_kpkt "$impl" "$rep" "$(awk -v t=$((c1 - c0)) -v p=$((q1 - q0)) 'BEGIN { printf "%.3f", t * 10 * 1000 / p }')" "$((q1 - q0)) packets"
		pids=$(proc_tree "$HPID")
		n=$(wc -w <<<"$pids")
		# which processes were counted (the sandboxes: one per helper)
		ps -o pid,ppid,user,rss,args -p "$(paste -sd, <<<"$pids")" >"$LOGS/procs-$impl-$rep.txt" 2>&1
		raw rss_kib "$impl" "$rep" "$(mem_kib "$pids" rss)" \
			"$n process(es), $([ "$n" -eq 1 ] && echo VmRSS || echo 'sum of Pss')"
		raw rss_anon_kib "$impl" "$rep" "$(mem_kib "$pids" anon)"
		raw rss_file_kib "$impl" "$rep" "$(mem_kib "$pids" file)"
		raw rss_shmem_kib "$impl" "$rep" "$(mem_kib "$pids" shmem)"
		raw pss_kib "$impl" "$rep" "$(pss_kib "$pids" rss)" "$n process(es)"
	fi
	[ "$impl" = floor ] || ftp_sessions "$impl" "$rep"
	[ "$impl" = floor ] || ftp_serial "$impl" "$rep"
	impl_stop "$impl"
}

sip_rep() {
	local impl=$1 rep=$2 csv=$W/sip-uac.csv t0 t1 line
	progress "sip $impl rep $rep"
	if ! impl_start "$impl" sip; then
		fail "$impl/sip-start/$rep" "$START_WHY"
		impl_stop "$impl" sip
		return
	fi
	timeout 300 nsenter --net="/run/netns/$TOPO_SV_NS" --wd="$W" sipp -nostdin -sn uas \
		-i "$SV4" -p 5060 >"$LOGS/sipp-uas-$impl.out" 2>&1 &
	local uas=$!
	nap 1
	rm -f "$csv"
	t0=${EPOCHREALTIME/./}
	timeout 240 nsenter --net="/run/netns/$TOPO_CL_NS" --wd="$W" sipp -nostdin -sn uac \
		-i "$CL4" -p 5060 -m "$SIP_CALLS" -l "$SIP_PAR" -r 1000 -d 0 -timeout 200s \
		-trace_stat -stf "$csv" -fd 1 "$SV4:5060" >"$LOGS/sipp-uac-$impl.out" 2>&1
	t1=${EPOCHREALTIME/./}
	kill "$uas" 2>/dev/null
	wait "$uas" 2>/dev/null
	# sipp's statistics file: a header of ';'-separated names, then rows
	line=$(awk -F';' 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "SuccessfulCall(C)") s = i; if ($i == "FailedCall(C)") f = i } }
		NR > 1 { ok = $s; bad = $f } END { if (s && f && NR > 1) print ok + 0, bad + 0 }' "$csv" 2>/dev/null)
	if [ -n "$line" ]; then
		read -r ok bad <<<"$line"
		raw sip_cps "$impl" "$rep" "$(awk -v n="$ok" -v t=$((t1 - t0)) 'BEGIN { printf "%.2f", n * 1e6 / t }')"
		raw sip_failed "$impl" "$rep" "$bad"
	else
		fail "$impl/sip/$rep" "no sipp statistics: $(tail -n 3 "$LOGS/sipp-uac-$impl.out" | tr '\n' ' ')"
	fi
	impl_stop "$impl" sip
}

# load_pair MODE: two cthbench-load runs at once (two connections, which
# the sharded helper's rules spread over its queues); prints the sum.
load_pair() {
	local mode=$1 i outs=()
	for i in 1 2; do
		timeout $((SECS + 40)) nsenter --net="/run/netns/$TOPO_CL_NS" \
			"$LOAD" "$mode" "$LOAD4" 21 "$SECS" >"$W/pair.$i" 2>>"$LOGS/load-shard.err" &
		# the second connection's SYN must come after the first's
		nap 0.2
	done
	wait
	for i in 1 2; do outs+=("$(cat "$W/pair.$i")"); done
	printf '%s\n' "${outs[@]}" | awk 'NF >= 4 { s += $4; n++ } END { if (n == 2) printf "%.2f", s }'
}

# shard_cpu MODE SHARDS REP TICKS0 TICKS1 WALL_US "CPU-LINE0" "CPU-LINE1":
# the daemon's CPU use and the VM's busy CPUs over a pair run (ticks are
# 10 ms; /proc/stat's cpu line: user nice system idle iowait irq softirq).
shard_cpu() {
	local m=$1 shards=$2 rep=$3 wall
	local -a a b
	read -r -a a <<<"$7"
	read -r -a b <<<"$8"
	wall=$6
	raw "shard_${m}_daemon_cpus" "${shards}q" "$rep" \
		"$(awk -v t=$(($5 - $4)) -v w="$wall" 'BEGIN { printf "%.2f", t * 10000 / w }')"
	raw "shard_${m}_busy_cpus" "${shards}q" "$rep" \
		"$(awk -v busy=$(( (b[1] + b[2] + b[3] + b[6] + b[7]) - (a[1] + a[2] + a[3] + a[6] + a[7]) )) \
			-v w="$wall" 'BEGIN { printf "%.2f", busy * 10000 / w }')"
}

# One repetition of the shard phase: the ftp helper on 1 queue, then
# sharded over 2 (order alternating), two connections at once.
shard_rep() {
	local shards=$1 rep=$2 v m qa qb ca ta tb sa sb
	progress "shard $shards rep $rep"
	if ! SHARDS=$shards impl_start cthelperd; then
		fail "shard$shards/start/$rep" "$START_WHY"
		impl_stop cthelperd
		return
	fi
	for m in bulk rr; do
		qa=$(queue_seq 0) qb=$(queue_seq 1)
		ca=$(cpu_ticks "$HPID")
		read -r -a sa </proc/stat
		ta=${EPOCHREALTIME/./}
		v=$(load_pair "$m")
		read -r -a sb </proc/stat
		tb=${EPOCHREALTIME/./}
		# where the time goes: the daemon's CPU time (its spawner and
		# sandboxes included) and all CPUs' busy time over the runs, in
		# CPUs (2 = both saturated); the run's wall time ends before
		# cpu_ticks walks /proc
		shard_cpu "$m" "$shards" "$rep" "$ca" "$(cpu_ticks "$HPID")" $((tb - ta)) "${sa[*]}" "${sb[*]}"
		if [ -n "$v" ]; then
			raw "shard_$([ $m = bulk ] && echo bulk_mbs || echo rr_per_s)" "${shards}q" "$rep" "$v" \
				"queue 0: $(($(queue_seq 0) - qa)) packets, queue 1: $(($(queue_seq 1) - qb))"
		else
			fail "shard$shards/$m/$rep" "a connection gave no result: $(tail -n 2 "$LOGS/load-shard.err" | tr '\n' ' ')"
		fi
	done
	impl_stop cthelperd
}

# Whether this daemon knows "shards" (the check mode parses the config).
has_shards() {
	write_cthelperd_conf 2
	"$CTHELPERD" -n -c "$W/cthelperd.conf" >/dev/null 2>&1
}

# order REP ITEMS...: the items forward on odd repetitions, backward on even.
order() {
	local rep=$1 i
	shift
	if ((rep % 2)); then
		echo "$@"
	else
		for ((i = $#; i > 0; i--)); do printf '%s ' "${!i}"; done
	fi
}

# ------------------------------------------------------------ scale (issue 34 part 3)
#
# Many helped connections at once (BENCH_ONLY=scale).  FTP: cthbench-load
# hold opens SCALE_STEPS control connections in steps, logs each in, holds
# them SCALE_HOLD seconds (one NOOP each, SCALE_XFER per thousand run
# PASV + RETR through the firewall), and at each step the helper's PSS,
# its CPU time and the VM's, conntrack's entries and the daemon's
# counters are read.  SIP: one trunk (sip.py trunk-*) of SCALE_DIALOGS
# dialogs on one signalling flow, media sent both ways after every
# dialog is up, counted at the far side.  Measures (REP is the step's
# connection count, or the dialogs):
#   scale_held, scale_failed, scale_xfer_ok, scale_xfer_failed  sessions
#               held and lost, transfers made and failed, since the start
#               (the failures' reasons in the note)
#   scale_pss_kib  the helper's processes' PSS (pss_kib)
#   scale_open_helper_ms_per_k, scale_open_vm_ms_per_k  CPU ms per 1000
#               sessions opened (connect, login) in the step: the helper's
#               processes, the whole VM (every column, the kernel's too)
#   scale_hold_helper_ms_per_k, scale_hold_vm_ms_per_k  the same per 1000
#               sessions held over the SCALE_HOLD seconds
#   scale_open_s  seconds the step's opening took
#   scale_ct_count  nf_conntrack_count at the step's end
#   scale_ctr_*  the daemon's counters (cthelperctl -j stats, summed)
#   scale_sip_up, scale_sip_media_a, scale_sip_media_b, scale_sip_expect
#               dialogs answered, media that arrived (callee to caller:
#               the INVITEs' expectations; caller to callee: the 200s'),
#               expectations in the kernel table before the media
#   scale_fact_*  the kernel's table sizes (REP 0: as booted)
# FTP columns: kernel, cthelperd (defaults), cthelperd-big (scale_conf's
# bounds for a big firewall), conntrackd.  SIP columns: kernel, cthelperd
# (the sip plugin's own class maxima), cthelperd-max (scale_conf's big
# firewall: policy.audio.max = 255), and kernel-x, cthelperd-max-x: the
# same with nf_conntrack_expect_max at 8 per dialog.  BENCH_SCALE_PARTS
# (ftp sip), BENCH_SCALE_LOG (the daemon's log_level, notice).
SCALE_STEPS=${BENCH_SCALE_STEPS:-1000,2000,5000,10000}
SCALE_HOLD=${BENCH_SCALE_HOLD:-20}
SCALE_XFER=${BENCH_SCALE_XFER:-20}
SCALE_DIALOGS=${BENCH_SCALE_DIALOGS:-200}
SCALE_IMPLS=${BENCH_SCALE_IMPLS:-kernel cthelperd cthelperd-big conntrackd}
SCALE_PARTS=${BENCH_SCALE_PARTS:-ftp sip}
SCALE_SOCK=$W/scale.sock

# scale_conf BIG: the daemon's configuration for the scale phase: ftp
# and sip in their sandboxes, a control socket for the counters.  BIG
# (cthelperd-big, cthelperd-max): sized for a big firewall, the bounds
# the first runs showed to matter: [server] inflight_entries 16384, each
# call's sandbox_timeout_ms 1000 (the default 200 ms was passed under
# the load, in this VM), and the sip helper's audio class max at
# nfnetlink_cthelper's bound, 255.
scale_conf() {
	local big=${1:-}
	cat >"$W/scale.conf" <<EOC
[server]
plugin_dir = $BUILD/plugins
log_level = ${BENCH_SCALE_LOG:-notice}
control_socket = $SCALE_SOCK
$([ -n "$big" ] && echo "inflight_entries = 16384")
${BENCH_SCALE_SERVER_KEYS:-}

[helper ftp]
plugin = ftp
protocol = tcp
queue = 0
$([ -n "$big" ] && echo "sandbox_timeout_ms = 1000")

[helper sip]
plugin = sip
protocol = both
queue = 4
$([ -n "$big" ] && printf 'sandbox_timeout_ms = 1000\npolicy.audio.max = 255\n')
EOC
}

# scale_start IMPL PROTO: cthelperd, cthelperd-big or cthelperd-max
# (the same: the name says what the SIP part looks at) with scale_conf,
# else impl_start's.
scale_start() {
	local impl=$1 proto=$2
	impl=${impl%-x}
	case $impl in
	cthelperd | cthelperd-big | cthelperd-max)
		HPID=
		clean_slate || return 1
		scale_conf "$([ "$impl" != cthelperd ] && echo big)"
		cth_start "$LOGS/scale-$impl-$proto.log" "$W/scale.conf" "$proto" 2 || return 1
		HPID=$CTH_PID
		topo_ct_add "$proto" || { START_WHY="CT --helper $proto rules failed"; return 1; } ;;
	*) impl_start "$impl" "$proto" ;;
	esac
}
scale_stop() {
	local i=${1%-x}
	i=${i%-max}
	impl_stop "${i%-big}" "$2"
}

# scale_mark / scale_since IMPL N KIND PER: CPU time since the mark, the
# helper's (cpu_ticks) and the VM's busy time, in ms per 1000 of PER.
scale_mark() {
	S_HC=0
	[ -z "$HPID" ] || S_HC=$(cpu_ticks "$HPID")
	read -r -a S_VM </proc/stat
}
scale_since() {
	local impl=$1 n=$2 kind=$3 per=$4 hc=0
	local -a vm
	read -r -a vm </proc/stat
	[ "$per" -gt 0 ] || return 0
	if [ -n "$HPID" ]; then
		hc=$(cpu_ticks "$HPID")
		raw "scale_${kind}_helper_ms_per_k" "$impl" "$n" \
			"$(awk -v t=$((hc - S_HC)) -v p="$per" 'BEGIN { printf "%.1f", t * 10 * 1000 / p }')"
	fi
	raw "scale_${kind}_vm_ms_per_k" "$impl" "$n" \
		"$(awk -v t=$(( (vm[1] + vm[2] + vm[3] + vm[6] + vm[7]) - (S_VM[1] + S_VM[2] + S_VM[3] + S_VM[6] + S_VM[7]) )) \
			-v p="$per" 'BEGIN { printf "%.1f", t * 10 * 1000 / p }')"
}

# scale_counters IMPL N: the daemon's counters, summed over its helpers
# and queues, the ones that are not 0 (scale_ctr_NAME), and all of them
# in the note of scale_counters.
scale_counters() {
	local impl=$1 n=$2 name v all=
	[[ $impl == cthelperd* ]] || return 0
	# the VM has no /dev/fd: no <(...)
	"$BUILD/cthelperctl" -s "$SCALE_SOCK" -j stats 2>>"$LOGS/scale-ctl.err" | "$PY" -c '
import collections, json, sys
d = json.load(sys.stdin)
s = collections.Counter()
for x in d["helpers"] + d["queues"]:
    for k, v in x.items():
        if isinstance(v, int) and k != "queue": s[k] += v
    for k, v in (x.get("kernel") or {}).items():
        if k != "portid": s["kernel_" + k] += v
for k, v in sorted(s.items()):
    if v: print("%s=%d" % (k, v))
' >"$W/scale.ctr"
	while IFS='=' read -r name v; do
		raw "scale_ctr_$name" "$impl" "$n" "$v"
		all+="$name=$v "
	done <"$W/scale.ctr"
	raw scale_counters "$impl" "$n" 0 "$all"
}

# scale_ftp_server MAX: the FTP server again, taking MAX connections
# (pyftpdlib's default is 512); no MAX: as the main part started it.
scale_ftp_server() {
	local pid _
	# the server's own pid (its ready file): $FTP_SRV is the shell
	# that runs nsenter
	pid=$(cat "$W/ftp.ready" 2>/dev/null)
	kill "$FTP_SRV" ${pid:+"$pid"} 2>/dev/null
	wait "$FTP_SRV" 2>/dev/null
	for _ in $(seq 1 50); do
		if [ -z "$pid" ] || ! kill -0 "$pid" 2>/dev/null; then break; fi
		nap 0.2
	done
	rm -f "$W/ftp.ready"
	in_server "$PY" "$FTP" server --root "$W/ftproot" --size 4096 --file small:4096 --quiet \
		--addr "$SV4" --no-ipv6 --ready "$W/ftp.ready" \
		${1:+--max-cons "$1" --backlog 1024} >>"$LOGS/ftp-server.out" 2>&1 &
	FTP_SRV=$!
	wait_line "$W/ftp.ready" '^[0-9]+' 30000
}

# scale_ftp IMPL: one cthbench-load hold run through every step.
scale_ftp() {
	local impl=$1 n=0 prev=0 hin hout hpid
	local -a f
	progress "scale ftp $impl"
	if ! scale_start "$impl" ftp; then
		fail "$impl/scale-start" "$START_WHY"
		scale_stop "$impl" ftp
		return
	fi
	coproc HOLD { timeout 3600 nsenter --net="/run/netns/$TOPO_CL_NS" "$LOAD" hold "$SV4" 21 \
		"$SCALE_STEPS" "$SCALE_HOLD" "$SCALE_XFER" small:4096 2>"$LOGS/hold-$impl.err"; }
	hin=${HOLD[1]} hout=${HOLD[0]} hpid=$HOLD_PID
	scale_mark
	while read -r -u "$hout" -a f; do
		case ${f[0]} in
		open)   # open N opened held failed seconds
			n=${f[1]}
			scale_since "$impl" "$n" open $((f[2] - prev))
			raw scale_open_s "$impl" "$n" "${f[5]}"
			progress "scale ftp $impl: $n opened, ${f[3]} held, ${f[4]} failed"
			echo go >&"$hin"
			scale_mark ;;
		step)   # step N opened held failed noop_ok xfer_ok xfer_failed reasons
			scale_since "$impl" "$n" hold "${f[3]}"
			raw scale_held "$impl" "$n" "${f[3]}"
			raw scale_failed "$impl" "$n" "${f[4]}" "${f[8]}"
			raw scale_xfer_ok "$impl" "$n" "${f[6]}"
			raw scale_xfer_failed "$impl" "$n" "${f[7]}" "${f[8]}"
			raw scale_ct_count "$impl" "$n" "$(cat /proc/sys/net/netfilter/nf_conntrack_count)"
			[ -z "$HPID" ] || raw scale_pss_kib "$impl" "$n" "$(pss_kib "$(proc_tree "$HPID")" rss)" \
				"$(proc_tree "$HPID" | wc -l) process(es)"
			scale_counters "$impl" "$n"
			prev=${f[2]}
			echo go >&"$hin"
			scale_mark ;;
		esac
	done
	wait "$hpid" 2>/dev/null
	[ "$n" = "${SCALE_STEPS##*,}" ] ||
		fail "$impl/scale-ftp" "stopped at step $n: $(tail -n 3 "$LOGS/hold-$impl.err" | tr '\n' ' ')"
	dmesg | grep -E 'nf_conntrack: (table full|expectation table full)' | sort | uniq -c \
		>"$LOGS/scale-dmesg-$impl.txt"
	scale_stop "$impl" ftp
}

# scale_sip IMPL: the trunk (tests/lib/trunk.sh); counts the dialogs
# whose media passed.
scale_sip() {
	local impl=$1
	progress "scale sip $impl"
	if ! scale_start "$impl" sip; then
		fail "$impl/scale-sip-start" "$START_WHY"
		scale_stop "$impl" sip
		return
	fi
	trunk_run "$impl" "$SCALE_DIALOGS" 20000 30000 scale_sip_up "$impl"
	if [ -z "$TRUNK_WHY" ]; then
		[ -z "$TRUNK_A" ] || raw scale_sip_media_a "$impl" "$SCALE_DIALOGS" "$TRUNK_A"
		[ -z "$TRUNK_B" ] || raw scale_sip_media_b "$impl" "$SCALE_DIALOGS" "$TRUNK_B"
		scale_counters "$impl" "$SCALE_DIALOGS"
	else
		fail "$impl/scale-sip" "$TRUNK_WHY"
	fi
	scale_stop "$impl" sip
}
# scale_sip_up IMPL: the trunk is up: dialogs answered, and the kernel's
# expectations before the media.
scale_sip_up() {
	raw scale_sip_up "$1" "$SCALE_DIALOGS" "$TRUNK_UP"
	conntrack -L expect >"$LOGS/trunk-expect-$1.txt" 2>/dev/null
	raw scale_sip_expect "$1" "$SCALE_DIALOGS" "$(grep -c . "$LOGS/trunk-expect-$1.txt")"
}

# The kernel's table sizes as booted; then conntrack's raised for the
# largest step (a firewall for 10,000 sessions must), expectations' kept.
scale_phase() {
	local f max=${SCALE_STEPS##*,} ctmax impl
	for f in nf_conntrack_max nf_conntrack_buckets nf_conntrack_expect_max; do
		raw "scale_fact_$f" kernel 0 "$(cat /proc/sys/net/netfilter/$f)"
	done
	raw scale_fact_mem_kib kernel 0 "$(awk '$1 == "MemTotal:" { print $2 }' /proc/meminfo)"
	ctmax=$(cat /proc/sys/net/netfilter/nf_conntrack_max)
	if [ "$ctmax" -lt $((2 * max + 4096)) ]; then
		sysctl -qw net.netfilter.nf_conntrack_max=$((2 * max + 4096))
		say "scale: nf_conntrack_max $ctmax raised to $((2 * max + 4096))"
	fi
	if [[ $SCALE_PARTS == *ftp* ]]; then
		scale_ftp_server $((max + 1024)) || { fail scale "the FTP server did not start again"; return; }
		for impl in $SCALE_IMPLS; do scale_ftp "$impl"; done
		scale_ftp_server || fail scale "the FTP server did not start again"
	fi
	[[ $SCALE_PARTS == *sip* ]] || return 0
	topo_firewall sip || fail topology "topo_firewall sip failed"
	for impl in kernel cthelperd cthelperd-max; do scale_sip "$impl"; done
	# the same with room in the expectation table ("-x")
	f=$(cat /proc/sys/net/netfilter/nf_conntrack_expect_max)
	sysctl -qw net.netfilter.nf_conntrack_expect_max=$((8 * SCALE_DIALOGS))
	for impl in kernel-x cthelperd-max-x; do scale_sip "$impl"; done
	sysctl -qw net.netfilter.nf_conntrack_expect_max="$f"
	topo_firewall ftp
	sysctl -qw net.netfilter.nf_conntrack_max="$ctmax"
}

# ------------------------------------------------------------ main

require_tools bench "conntrack-tools, sip-tester" conntrack nfct conntrackd sipp iptables-legacy
for f in "$CTHELPERD" "$LOAD" "$FLOOR"; do
	[ -x "$f" ] || { fail build "$f is not built (make B=$CTH_BUILD bench builds it)"; exit 1; }
done
suite_topology bench ftp
topo_mode plain || { fail topology "topo_mode plain failed"; exit 1; }
modprobe -a nfnetlink_queue nfnetlink_cthelper nf_conntrack_netlink
ip -n "$TOPO_SV_NS" addr add "$LOAD4/24" dev "$(ip -n "$TOPO_SV_NS" -o -4 addr show | awk -v a="$SV4" '$4 ~ "^"a"/" { print $2 }')" ||
	{ fail topology "cannot add $LOAD4 to the server namespace"; exit 1; }
in_server "$LOAD" serve 21 "$LOAD4" >"$LOGS/load-server.out" 2>&1 &
LOAD_SRV=$!
rm -rf "$W/ftproot"
in_server "$PY" "$FTP" server --root "$W/ftproot" --size 4096 --file small:4096 --quiet \
	--addr "$SV4" --no-ipv6 --ready "$W/ftp.ready" >"$LOGS/ftp-server.out" 2>&1 &
FTP_SRV=$!
wait_line "$W/ftp.ready" '^[0-9]+' 30000 || { fail ftp-server "did not start"; exit 1; }
wait_line "$LOGS/load-server.out" 'listening' 10000 || { fail load-server "did not start"; exit 1; }
say "kernel $(uname -r), $(nproc) CPUs; $REPS repetitions, ${SECS}s per bulk/round-trip run, ${FTP_SECS}s of FTP sessions"

if want ftp; then
	FTP_IMPLS=(none kernel conntrackd floor cthelperd cthelperd-inproc)
	if [ -f "$KMOD" ]; then
		FTP_IMPLS+=(cthelperd-kmod)
	else
		say "no cthelperd-kmod column: $KMOD is not built (tests/kmod/run.sh --build-only)"
	fi
	for rep in $(seq 1 "$REPS"); do
		for impl in $(order "$rep" "${FTP_IMPLS[@]}"); do
			ftp_rep "$impl" "$rep"
		done
	done
	# where the sandbox's time goes: its system calls, counted
	if command -v strace >/dev/null; then
		for impl in cthelperd cthelperd-inproc; do strace_rr "$impl"; done
	else
		say "no system call counts: strace is not installed"
	fi
fi
# issue 34: profiles of a round-trip run (BENCH_ONLY=profile; not in the
# default run, whose figures it would not change)
if [ -n "${BENCH_ONLY:-}" ] && want profile; then
	if command -v perf >/dev/null; then
		for impl in ${BENCH_PROFILE:-floor cthelperd-inproc cthelperd none}; do perf_rr "$impl"; done
	else
		fail profile "perf is not installed (make deps: linux-perf)"
	fi
fi
if want sip; then
	topo_firewall sip || fail topology "topo_firewall sip failed"
	SIP_IMPLS=(kernel cthelperd cthelperd-inproc)
	# issue 34: SIP calls on kmod/ too (payload_only)
	[ ! -f "$KMOD" ] || SIP_IMPLS+=(cthelperd-kmod)
	for rep in $(seq 1 "$REPS"); do
		for impl in $(order "$rep" "${SIP_IMPLS[@]}"); do
			sip_rep "$impl" "$rep"
		done
	done
	topo_firewall ftp
fi
if want shard; then
	if has_shards; then
		for rep in $(seq 1 "$REPS"); do
			for n in $(order "$rep" 1 2); do shard_rep "$n" "$rep"; done
		done
	else
		fail shard "this cthelperd does not accept shards = 2: $("$CTHELPERD" -n -c "$W/cthelperd.conf" 2>&1 | head -n 1)"
	fi
fi
# issue 34 part 3: many connections at once
want scale && scale_phase
say "bench took $((SECONDS - T0)) s inside the VM"
kill "$LOAD_SRV" "$FTP_SRV" 2>/dev/null
topo_teardown
echo "bench: done, $(wc -l <"$RAW") measurements in ${VM_HOST_RESULTS:-$OUT}/bench/raw.tsv"
