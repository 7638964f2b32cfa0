#!/bin/bash
# Issue 32 in the test VM (tests/sandbox/run.sh): the hostile plugin
# (tests/sandbox/hostile.c) runs one attack per packet inside a helper
# of cthelperd, next to the ftp helper, and after each one the fixture
# is checked: the firewall (nft ruleset, iptables), a long-lived
# connection through the router (its conntrack entry and its data),
# another program's helper, the daemon (same pid), no file written, no
# traffic sent, no process left, FTP through the ftp helper (during the
# crashes too), and the hostile helper serving again.
#
#   default          the hostile helper as the configuration leaves it
#                    (nothing about the sandbox: the default is
#                    sandboxed): every attack must be contained
#   SANDBOX_OPEN=1   the same with "sandbox = no" in the hostile section
#                    (in-process): every attack must show an effect, which
#                    proves the checks can fail; a build without
#                    cthelperd-sandbox gets no such key (it knows none and
#                    runs every plugin in-process anyway)
#
# Variables: CTH_BUILD (default build), SANDBOX_ONLY (extended regex over
# attack names), SANDBOX_GROUP=1 (one attack per group of fixture checks;
# always so with SANDBOX_OPEN=1), SANDBOX_PING_MS (default 10000: how long
# the hostile helper may take to serve again).
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/lib/vmsuite.sh
. tests/lib/vmsuite.sh
suite_init sandbox
OPEN=${SANDBOX_OPEN:-0}
ONLY=${SANDBOX_ONLY:-.}
PING_MS=${SANDBOX_PING_MS:-10000}
S=sandbox
[ "$OPEN" = 1 ] && S=sandbox-open
T0=$SECONDS

AGENT=$REPO/tests/sandbox/agent.py
FTP=$REPO/tests/lib/ftp.py
CTHNL=$REPO/tests/kmod/cthnl.py
META=$W/ftproot/testfile.meta
SOCK=$W/cthelperd.sock
CONF=$W/cthelperd.conf
FTP_Q=1 HOSTILE_Q=2
LL_PORT=7050      # the long-lived connection (server's echo)
SINK_TCP=7040     # the connect attack's target (server)
SINK_UDP=7041     # the udp-send attack's target (server)
HOSTILE_PORT=7032 # the hostile helper's rule port (server listens, logs)
PING_BASE=7100    # client ports the PING answers go to: 64 of them,
PING_N=64         # each reused only after its expectation timed out (30 s)
TABLE=t32         # the nft table the attacks must not remove
BYSTANDER=bystander  # another program's helper
DECOY=SANDBOX-DECOY-7032  # in the file bound over /etc/shadow

say "mode: $S (build $CTH_BUILD; cthelperd-sandbox $([ -x "$BUILD/cthelperd-sandbox" ] && echo built || echo 'not built: every plugin runs in-process'))"

# ------------------------------------------------------------ results

declare -A RESULT EVID
ATTACKS_RUN=()
# record NAME EVIDENCE: the attack's outcome for the table and its line
record() {
	local name=$1 ev=$2
	ATTACKS_RUN+=("$name")
	EVID[$name]=$ev
	if [ "$OPEN" = 1 ]; then
		if [ -n "$ev" ]; then
			RESULT[$name]=real; echo "PASS $S/$name: real: $ev"
		else
			RESULT[$name]="NO EFFECT"; echo "FAIL $S/$name: no effect seen: the checks cannot tell it from a refused one"
		fi
	else
		if [ -z "$ev" ]; then
			RESULT[$name]=contained; echo "PASS $S/$name"
		else
			RESULT[$name]="NOT contained"; echo "FAIL $S/$name: $ev"
		fi
	fi
}

# ------------------------------------------------------------ agents

declare -A AG_FD AG_LOG
# agent_start NS NAME ARGS...: tests/sandbox/agent.py in NS, commands by FIFO
agent_start() {
	local ns=$1 name=$2 fd
	shift 2
	rm -f "$W/$name.in"
	mkfifo "$W/$name.in" || return 1
	exec {fd}<>"$W/$name.in"
	AG_FD[$name]=$fd
	AG_LOG[$name]=$LOGS/agent-$name.log
	nsenter --net="/run/netns/$ns" "$PY" -u "$AGENT" "$@" <"$W/$name.in" \
		>"${AG_LOG[$name]}" 2>&1 &
	AGENT_PID[$name]=$!
	wait_line "${AG_LOG[$name]}" '^ready' 30000
}
agent_cmd() { echo "$2" >&"${AG_FD[$1]}"; }

# ------------------------------------------------------------ the daemon

CTH_N=0
LOG=
# daemon_start: cthelperd with CONF, its oom_score_adj 0 (1000 when
# open: its memory attack then ends it, not the suite), the rules as
# --print-rules prints them.
daemon_start() {
	local adj=0 cmd rargs t n=0
	[ "$OPEN" = 1 ] && adj=1000
	CTH_N=$((CTH_N + 1))
	LOG=$LOGS/cthelperd-$CTH_N.log
	choom -n "$adj" -- "$CTHELPERD" -c "$CONF" >"$LOG" 2>&1 &
	CTH_PID=$!
	until_ms 30000
	while ! grep -q ready "$LOG" 2>/dev/null; do
		kill -0 "$CTH_PID" 2>/dev/null && before_deadline || {
			START_WHY="cthelperd did not get ready: $(tail -n 5 "$LOG" | tr '\n' ' ')"; return 1; }
		nap 0.2
	done
	wait_helpers_enabled ftp 2 && wait_helpers_enabled hostile 4 ||
		{ START_WHY="helpers not enabled: $(nfct_helpers | tr '\n' ' ')"; return 1; }
	if ! "$CTHELPERD" -c "$CONF" --print-rules iptables >"$LOGS/print-rules.txt" 2>&1; then
		START_WHY="--print-rules failed: $(head -c 300 "$LOGS/print-rules.txt")"
		return 1
	fi
	while read -r cmd rargs; do
		case $cmd in iptables) t=$IPT ;; ip6tables) t=$IP6T ;; *) continue ;; esac
		[[ $rargs == "-t raw "* ]] || continue
		read -r -a rargs <<<"$rargs"
		"$t" "${rargs[@]}" || { START_WHY="$cmd ${rargs[*]} failed"; return 1; }
		n=$((n + 1))
	done <"$LOGS/print-rules.txt"
	[ "$n" = 6 ] || { START_WHY="--print-rules gave $n raw rules, want 6"; return 1; }
	say "cthelperd $CTH_PID ready (log ${LOG##*/}), $n raw rules from --print-rules"
}

# daemon_gone_reset: after an attack that broke it (open mode): the
# daemon killed, its helpers deleted (rules first), started again.
daemon_reset() {
	local f p _
	if [ -n "$CTH_PID" ]; then
		kill -KILL "$CTH_PID" 2>/dev/null
		wait "$CTH_PID" 2>/dev/null
		CTH_PID=
	fi
	topo_ct_del
	for f in inet inet6; do
		for p in tcp udp; do
			nfct helper delete hostile $f $p >/dev/null 2>&1
			[ $p = tcp ] && nfct helper delete ftp $f $p >/dev/null 2>&1
		done
	done
	# a process the attack left may still hold the old queues a while
	for _ in 1 2 3; do
		daemon_start && return 0
		say "restart: $START_WHY; again in 8 s"
		kill -KILL "$CTH_PID" 2>/dev/null
		wait "$CTH_PID" 2>/dev/null
		CTH_PID=
		nap 8
	done
	echo "FAIL $S/restart: $START_WHY"
	exit 1
}

daemon_alive() {
	local comm
	[ -n "$CTH_PID" ] && [ -r "/proc/$CTH_PID/comm" ] || return 1
	read -r comm <"/proc/$CTH_PID/comm" 2>/dev/null
	[ "$comm" = cthelperd ]
}

stat_of() {
	local json
	json=$("$BUILD/cthelperctl" -s "$SOCK" -j stats 2>/dev/null)
	[[ $json =~ \"$1\":([0-9]+) ]] && echo "${BASH_REMATCH[1]}" || echo "?"
}

# ------------------------------------------------------------ fixture

write_conf() {
	{
		echo "[server]"
		echo "plugin_dir = $W/plugins"
		echo "control_socket = $SOCK"
		echo "log_level = info"
		echo "[helper ftp]"
		echo "plugin = ftp"
		echo "queue = $FTP_Q"
		echo "[helper hostile]"
		echo "plugin = hostile"
		echo "queue = $HOSTILE_Q"
		if [ "$OPEN" = 1 ] && [ -x "$BUILD/cthelperd-sandbox" ]; then
			echo "sandbox = no"
		fi
	} >"$CONF"
	say "configuration: $(tr '\n' ';' <"$CONF")"
}

table_load() {
	printf 'table inet %s {\n\tchain c {\n\t\ttcp dport 9 accept\n\t}\n}\n' "$TABLE" >"$W/table.nft"
	nft -f "$W/table.nft"
}

# rules_now: the ruleset as text, counters out (iptables-save's chain
# lines carry them, its comments a date)
rules_now() {
	local line lines t
	RULES=$(nft list ruleset 2>&1)
	# (no process substitution: the VM has no /dev/fd)
	for t in iptables-legacy-save ip6tables-legacy-save; do
		mapfile -t lines <<<"$("$t" 2>&1)"
		for line in "${lines[@]}"; do
			[[ $line == "#"* ]] && continue
			RULES+=$'\n'"${line%% \[*}"
		done
	done
}

LL_ID=
LL_N=0
# ll_open: the long-lived connection client -> server:LL_PORT, admitted
# NEW by a rule that is gone again afterwards: from then on it lives on
# its conntrack entry alone (a flushed entry is not picked up again).
ll_open() {
	local r=(FORWARD -i r-cl -p tcp --dport "$LL_PORT" --syn -m conntrack --ctstate NEW -j ACCEPT)
	"$IPT" -I "${r[@]}"
	agent_cmd client "connect $SV4 $LL_PORT"
	wait_line "${AG_LOG[client]}" '^(connected|error connect)' 15000
	"$IPT" -D "${r[@]}"
	ll_data || return 1
	LL_ID=$(ll_entry_id)
	[ -n "$LL_ID" ]
}
# ll_entry_id: the conntrack id of the long-lived connection's entry
ll_entry_id() {
	local out
	out=$(conntrack -L -p tcp --dport "$LL_PORT" -o id 2>/dev/null | grep ESTABLISHED | head -n 1)
	[[ $out =~ id=([0-9]+) ]] && echo "${BASH_REMATCH[1]}"
}
# ll_data: a line there and back on it
ll_data() {
	LL_N=$((LL_N + 1))
	agent_cmd client "hold ll-$LL_N"
	wait_line "${AG_LOG[client]}" "^(echo ll-$LL_N\$|error hold)" 4000 && [[ $LINE == "echo ll-$LL_N" ]]
}

# bystander_add: another program's helper (nfct adds only the names of
# its own helper library): AF_INET/TCP, disabled, queue 9
bystander_add() {
	[ "$("$PY" "$CTHNL" new "$BYSTANDER" 2 6 --queue 9 2>&1)" = 0 ]
}

VICTIM=
victim_start() {
	sleep 100000 &
	VICTIM=$!
}
victim_traced() {
	local line
	[ -r "/proc/$VICTIM/status" ] || return 1
	while read -r line; do
		[[ $line =~ ^TracerPid:[[:space:]]+([0-9]+) ]] || continue
		[ "${BASH_REMATCH[1]}" != 0 ]
		return
	done <"/proc/$VICTIM/status"
	return 1
}

nprocs() {
	local p
	shopt -s nullglob
	p=(/proc/[0-9]*)
	shopt -u nullglob
	echo ${#p[@]}
}

# pwned_files: the files an attack left, one line
pwned_files() {
	local f=()
	shopt -s nullglob
	f=(/tmp/pwned* /var/tmp/pwned*)
	shopt -u nullglob
	echo "${f[*]}"
}

# ------------------------------------------------------------ probes

PING_I=0
PING_SEQ=0
# ping_served MS: the hostile helper answers a PING within MS: PING P
# from the client to the server's hostile port, then a datagram from
# the server to the client's P, which the firewall passes only as
# expected.  Retries with a new P (the helper may be restarting).
ping_served() {
	local port
	until_ms "$1"
	local deadline=$DEADLINE
	while :; do
		port=$((PING_BASE + PING_I % PING_N))
		PING_I=$((PING_I + 1))
		PING_SEQ=$((PING_SEQ + 1))
		agent_cmd client "udp $SV4 $HOSTILE_PORT PING $port"
		nap 0.5
		agent_cmd server "udp $CL4 $port pong-$PING_SEQ"
		wait_line "${AG_LOG[client]}" "^got $port .*pong-$PING_SEQ'" 1000 && return 0
		DEADLINE=$deadline
		before_deadline || return 1
	done
}

FTP_BG=
ftp_session() {
	timeout 40 nsenter --net="/run/netns/$TOPO_CL_NS" "$PY" "$FTP" client --host "$SV4" \
		--mode pasv --meta "$META" 2>>"$LOGS/ftp-client.log"
}
ftp_bg_start() {
	ftp_session >"$W/ftp-bg.out" 2>&1 &
	FTP_BG=$!
}
# ftp_bg_ok: the session started before the attack ended well
ftp_bg_ok() {
	wait "$FTP_BG"
	local rc=$?
	FTP_BG=
	[ $rc = 0 ] && grep -q '^OK' "$W/ftp-bg.out"
}

# ------------------------------------------------------------ the sandbox lines (lead)

# check_sandbox_status GROUP: `cthelperctl status`, captured for every
# group in LOGS/status-*.txt.  Contained: both helpers' sandboxes are up,
# and the ftp helper's never died (the hostile one's deaths are checked
# per attack, sandbox_death_check).  FIX collects what is wrong.
check_sandbox_status() {
	local group=$1 file=$LOGS/status-$1.txt ftp hostile
	"$BUILD/cthelperctl" -s "$SOCK" status >"$file" 2>&1
	[ "$OPEN" = 1 ] && return 0
	ftp=$(grep -A1 -E '^  ftp ' "$file" | grep -E '^    sandbox ')
	hostile=$(grep -A1 -E '^  hostile ' "$file" | grep -E '^    sandbox ')
	say "$group: status: ftp:${ftp#*sandbox} hostile:${hostile#*sandbox}"
	[[ $ftp == *"sandbox  up, pid "* ]] || FIX+=("ftp-sandbox-not-up")
	[[ $ftp != *"last death"* ]] || FIX+=("ftp-sandbox-died")
	# a sandbox down at this moment (backoff) comes back: PING said so
	[[ $hostile == *"sandbox  up, pid "* || $hostile == *"sandbox  down, restart in"* ]] ||
		FIX+=("hostile-sandbox-status:${hostile:-none}")
	return 0
}

# What ends the hostile helper's sandbox, per attack (contained mode): the
# reason the daemon logs ("helper 'hostile': sandbox ended (REASON)").
# loop is the budget; memory may meet the budget before the limit on a
# slow machine (qemu TCG: 256 MiB memset 1 MiB at a time); log-flood ends
# nothing, or meets the budget there (100000 lines formatted: "?" makes
# the death optional).
declare -A DEATH=(
	[open-shadow]="seccomp: refused system call open" [create-file]="seccomp: refused system call open"
	[fork]="seccomp: refused system call (fork|clone|clone3)" [forkbomb]="seccomp: refused system call (fork|clone|clone3)"
	[exec]="seccomp: refused system call execve" [connect]="seccomp: refused system call socket"
	[udp-send]="seccomp: refused system call socket" [nl-ctflush]="seccomp: refused system call socket"
	[nl-helperdel]="seccomp: refused system call socket" [nl-nftdel]="seccomp: refused system call socket"
	[fd-sweep]="seccomp: refused system call (sendmsg|sendto|close)"
	[kill-daemon]="seccomp: refused system call kill" [ptrace]="seccomp: refused system call ptrace"
	[unshare]="seccomp: refused system call unshare" [setuid0]="seccomp: refused system call setuid"
	[mprotect-exec]="seccomp: refused system call (mprotect|mmap)"
	[segv]="signal 11" [abort]="signal 6" [trap]="signal (4|5)" [loop]="timeout"
	[memory]="signal (11|6)|seccomp|timeout" [stack]="signal (11|7)"
	[log-flood]="?timeout"
)

# sandbox_death_check NAME BEFORE: the sandbox ended for the attack's
# reason (lines of LOG after BEFORE), or none for one that ends nothing
sandbox_death_check() {
	local name=$1 before=$2 want=${DEATH[$1]:-} got
	[ "$OPEN" = 1 ] && return 0
	got=$(tail -n +"$((before + 1))" "$LOG" | sed -n "s/.*helper 'hostile': sandbox ended (\([^)]*\)).*/\1/p" | head -n 1)
	say "$name: sandbox ended: ${got:-no}"
	if [ -z "$want" ]; then
		[ -z "$got" ] || ev+=("sandbox-ended:$got")
	elif [[ $want == "?"* ]]; then
		[ -z "$got" ] || [[ $got =~ ${want#\?} ]] || ev+=("sandbox-ended:$got")
	elif ! [[ $got =~ $want ]]; then
		ev+=("sandbox-death:${got:-none},want:$want")
	fi
}

# ------------------------------------------------------------ one attack

# marks: what the logs held before the attack (its evidence is what came after)
mark_now() {
	count_lines "${AG_LOG[server]}" "^tcp $SINK_TCP "; M_TCP=$COUNT
	count_lines "${AG_LOG[server]}" "^got $SINK_UDP "; M_UDP=$COUNT
	count_lines "${AG_LOG[server]}" "$DECOY"; M_LEAK=$COUNT
}

# Attacks whose harm is to the process itself: an FTP session runs while
# they hit, the helper next door must not notice.
DURING=" segv abort trap loop memory stack kill-daemon forkbomb exec "

# run_attack NAME ARGS: send it, then the per-attack checks; EV collects
# what went wrong (open mode: the effect seen)
run_attack() {
	local name=$1 args=$2 ev=() s0 s1 files f
	progress "attack $name"
	mark_now
	s0=$(stat_of attack_succeeded)
	local procs0 lines0
	procs0=$(nprocs)
	lines0=$(wc -l <"$LOG")
	[[ $DURING == *" $name "* ]] && ftp_bg_start
	agent_cmd client "udp $SV4 $HOSTILE_PORT ATTACK $name${args:+ $args}"
	# a returning attack logs its result; give a dying one as long
	wait_line "$LOG" "ATTACK $name: (succeeded|failed)" 2500
	[ -n "$LINE" ] && say "$name: ${LINE#*ATTACK }"
	if [ "$name" = memory ] && [ "$OPEN" = 1 ]; then
		# in-process it fills the VM first: up to a minute until it ends
		until_ms 60000
		while daemon_alive && before_deadline; do nap 0.5; done
	fi
	if [ -n "$FTP_BG" ] && ! ftp_bg_ok; then
		ev+=("ftp-during-failed")
	fi
	daemon_alive || ev+=("daemon-gone")
	files=$(pwned_files)
	[ -z "$files" ] || ev+=("files:${files// /,}")
	mark_after
	victim_traced && ev+=("victim-traced")
	local procs1
	procs1=$(nprocs)
	[ "$procs1" -le $((procs0 + 8)) ] || ev+=("processes:$procs0->$procs1")
	if ! ping_served "$PING_MS"; then
		ev+=("hostile-not-serving")
	fi
	sandbox_death_check "$name" "$lines0"
	s1=$(stat_of attack_succeeded)
	# the plugin cannot tell whether its log lines got through (the log
	# check of the group says): its counter means nothing for log-flood
	if [ "$s0" != "?" ] && [ "$s1" != "?" ] && [ "$s1" -gt "$s0" ] &&
		{ [ "$OPEN" = 1 ] || [ "$name" != log-flood ]; }; then
		ev+=("counter:attack_succeeded")
	fi
	for f in $files; do rm -f "$f"; done
	EV_ATTACK=("${ev[@]}")
}
mark_after() {
	count_lines "${AG_LOG[server]}" "^tcp $SINK_TCP "
	[ "$COUNT" -le "$M_TCP" ] || ev+=("tcp-sent-out")
	count_lines "${AG_LOG[server]}" "^got $SINK_UDP "
	[ "$COUNT" -le "$M_UDP" ] || ev+=("udp-sent-out")
	count_lines "${AG_LOG[server]}" "$DECOY"
	[ "$COUNT" -le "$M_LEAK" ] || ev+=("shadow-leaked")
}

# fixture_check: the costly checks, once per group; FIX collects failures
fixture_check() {
	local name=$1 id helpers
	FIX=()
	rules_now
	if [ "$RULES" != "$RULES0" ]; then
		FIX+=("ruleset-changed")
		echo "$RULES" >"$LOGS/rules-after-$name.txt"
		diff "$LOGS/rules-baseline.txt" "$LOGS/rules-after-$name.txt" >"$LOGS/rules-diff-$name.txt"
	fi
	id=$(ll_entry_id)
	[ "$id" = "$LL_ID" ] || FIX+=("conntrack-entry:${LL_ID}->${id:-gone}")
	ll_data || FIX+=("ll-data-stopped")
	helpers=$(nfct helper list 2>&1)
	[[ $helpers == *"$BYSTANDER"* ]] || FIX+=("bystander-helper-gone")
	if ! ftp_session >"$W/ftp.out"; then
		FIX+=("ftp-after-failed")
	fi
	count_lines "$LOG" $'\e|^cthelperd\\[err\\]: FORGED'
	[ "$COUNT" = 0 ] || FIX+=("log-forged:$COUNT")
	check_sandbox_status "$name"
}

# fixture_repair: what an attack broke, made again (open mode only)
fixture_repair() {
	daemon_alive && ping_served 3000 || daemon_reset
	if [ "$(nft list table inet $TABLE 2>/dev/null)" = "" ]; then
		table_load
	fi
	[[ $(nfct helper list 2>&1) == *"$BYSTANDER"* ]] || bystander_add
	if [ "$(ll_entry_id)" != "$LL_ID" ] || ! ll_data; then
		ll_open || { echo "FAIL $S/repair: long-lived connection not reopened"; exit 1; }
	fi
	if victim_traced || ! kill -0 "$VICTIM" 2>/dev/null; then
		kill -KILL "$VICTIM" 2>/dev/null
		wait "$VICTIM" 2>/dev/null
		victim_start
	fi
	rules_now
	RULES0=$RULES
	echo "$RULES0" >"$LOGS/rules-baseline.txt"
	say "fixture repaired at $((SECONDS - T0)) s"
}

# run_group "NAME ARGS" ...: the attacks, each checked alone, then the
# fixture once
run_group() {
	local spec name args gname=() gev=()
	for spec in "$@"; do
		read -r name args <<<"$spec"
		[[ $name =~ $ONLY ]] || continue
		# shellcheck disable=SC2016  # the specs name them literally
		case $args in
		'$PID') args=$CTH_PID ;;
		'$VICTIM') args=$VICTIM ;;
		esac
		run_attack "$name" "$args"
		gname+=("$name")
		EVID[$name]="${EV_ATTACK[*]}"
	done
	[ ${#gname[@]} -gt 0 ] || return 0
	fixture_check "${gname[0]}"
	for name in "${gname[@]}"; do
		read -r -a gev <<<"${EVID[$name]}"
		# the group's fixture failures belong to each of its attacks
		[ ${#gname[@]} = 1 ] && gev+=("${FIX[@]}")
		record "$name" "${gev[*]}"
	done
	if [ ${#gname[@]} -gt 1 ]; then
		if [ ${#FIX[@]} = 0 ]; then
			echo "PASS $S/fixture-after[${gname[*]}]"
		else
			echo "FAIL $S/fixture-after[${gname[*]}]: ${FIX[*]} (SANDBOX_GROUP=1 tells which attack)"
		fi
	fi
	local broke=0
	for name in "${gname[@]}"; do [ -z "${EVID[$name]}" ] || broke=1; done
	[ ${#FIX[@]} = 0 ] || broke=1
	[ "$OPEN" = 1 ] && [ $broke = 1 ] && fixture_repair
	return 0
}

# ------------------------------------------------------------ cleanup

cleanup() {
	local p
	[ -z "$FTP_BG" ] || kill "$FTP_BG" 2>/dev/null
	stop_cthelperd
	for p in "${AGENT_PID[@]}"; do kill "$p" 2>/dev/null; done
	[ -z "$VICTIM" ] || kill -KILL "$VICTIM" 2>/dev/null
	suite_cleanup
	topo_ct_del
	"$PY" "$CTHNL" del "$BYSTANDER" >/dev/null 2>&1
	nft delete table inet "$TABLE" >/dev/null 2>&1
	umount /etc/shadow 2>/dev/null
	topo_teardown
}
trap cleanup EXIT

# ------------------------------------------------------------ setup

progress setup
# the suite and its helpers are not the OOM killer's choice: the daemon
# and whatever it starts are (daemon_start resets its score)
echo -1000 >/proc/self/oom_score_adj
suite_topology "$S"
for t in "$IPT" "$IP6T"; do
	"$t" -A FORWARD -i r-cl -p udp --dport "$HOSTILE_PORT" -m conntrack --ctstate NEW -j ACCEPT
	"$t" -A FORWARD -i r-cl -p tcp --dport "$HOSTILE_PORT" -m conntrack --ctstate NEW -j ACCEPT
done
# A decoy over /etc/shadow: the suite reads no real secret, and the
# listener can tell the decoy's text from anything else.
printf 'root:%s:19000:0:99999:7:::\n' "$DECOY" >"$W/shadow"
chmod 0640 "$W/shadow"
SHADOW_OK=0
if mount --bind "$W/shadow" /etc/shadow && read -r l </etc/shadow && [[ $l == *"$DECOY"* ]]; then
	SHADOW_OK=1
else
	echo "FAIL $S/decoy-shadow: cannot bind a decoy over /etc/shadow: open-shadow not run"
fi
mkdir -p "$W/plugins"
if ! cp "$BUILD/plugins/ftp.so" "$BUILD/tests/plugins/hostile.so" "$W/plugins/"; then
	echo "FAIL $S/plugins: $CTH_BUILD/plugins/ftp.so or tests/plugins/hostile.so not built (make B=$CTH_BUILD all unit)"
	exit 1
fi
chmod 0755 "$W" "$W/plugins"
chmod 0644 "$W/plugins/"*.so
declare -A AGENT_PID
agent_start "$TOPO_SV_NS" server --echo "$LL_PORT" --sink "$SINK_TCP" --udp "$HOSTILE_PORT" \
	--udp "$SINK_UDP" || { echo "FAIL $S/agents: server agent did not start"; exit 1; }
pargs=()
for ((i = 0; i < PING_N; i++)); do pargs+=(--udp $((PING_BASE + i))); done
agent_start "$TOPO_CL_NS" client "${pargs[@]}" || { echo "FAIL $S/agents: client agent did not start"; exit 1; }
ftp_server_start --size 65536 || { echo "FAIL $S/ftp-server: did not start"; exit 1; }
table_load || { echo "FAIL $S/nft: table $TABLE not loaded"; exit 1; }
bystander_add || { echo "FAIL $S/bystander: $CTHNL new $BYSTANDER failed"; exit 1; }
victim_start
write_conf
daemon_start || { echo "FAIL $S/start: $START_WHY"; exit 1; }
ll_open || { echo "FAIL $S/long-lived: the connection through the router did not open"; exit 1; }
rules_now
RULES0=$RULES
echo "$RULES0" >"$LOGS/rules-baseline.txt"

# the fixture's own sanity: what the checks rely on
why=
ping_served 20000 || why="the hostile helper does not serve PING"
ftp_session >"$W/ftp.out" || why="${why:+$why; }FTP through the ftp helper fails: $(cat "$W/ftp.out")"
# without the helper nothing comes back: the PING check can fail
agent_cmd server "udp $CL4 $PING_BASE unasked"
if wait_line "${AG_LOG[client]}" "^got $PING_BASE .*unasked" 1500; then
	why="${why:+$why; }the firewall passes a datagram nobody expected"
fi
if [ -n "$why" ]; then
	echo "FAIL $S/fixture: $why"
	show_tail "$LOG" 20
	exit 1
fi
echo "PASS $S/fixture"
# describe mode: the daemon never maps a sandboxed helper's plugin (it is
# described by a sandbox); with sandbox = no the hostile plugin is mapped
# in it, which shows the check can see one
maps=$(grep -oE '[^/ ]+\.so$' "/proc/$CTH_PID/maps" | grep -xE 'ftp\.so|hostile\.so' | sort -u |
	tr '\n' ' ')
if [ "$OPEN" = 1 ]; then
	[ "$maps" = "hostile.so " ] && echo "PASS $S/daemon-maps-plugins" ||
		echo "FAIL $S/daemon-maps-plugins: want hostile.so alone (sandbox = no), the daemon maps: ${maps:-none}"
else
	[ -z "$maps" ] && echo "PASS $S/daemon-maps-plugins" ||
		echo "FAIL $S/daemon-maps-plugins: the daemon maps sandboxed plugins: $maps"
fi
say "fixture up at $((SECONDS - T0)) s: long-lived conntrack id $LL_ID, victim $VICTIM, daemon $CTH_PID"

# ------------------------------------------------------------ the attacks

GROUPS_OF=(
	"open-shadow|create-file|exec"
	"fork|forkbomb|kill-daemon \$PID|ptrace \$VICTIM|unshare|setuid0|mprotect-exec"
	"connect $SV4 $SINK_TCP|udp-send $SV4 $SINK_UDP|nl-ctflush|nl-helperdel $BYSTANDER|nl-nftdel $TABLE|fd-sweep"
	"segv|abort|trap|stack"
	"loop|memory|log-flood"
)
for g in "${GROUPS_OF[@]}"; do
	IFS='|' read -r -a specs <<<"$g"
	if [ "$SHADOW_OK" = 0 ]; then
		kept=()
		for s in "${specs[@]}"; do [[ $s == open-shadow* ]] || kept+=("$s"); done
		specs=("${kept[@]}")
	fi
	n0=${#ATTACKS_RUN[@]}
	if [ "$OPEN" = 1 ] || [ "${SANDBOX_GROUP:-0}" = 1 ]; then
		for s in "${specs[@]}"; do run_group "$s"; done
	else
		run_group "${specs[@]}"
	fi
	[ "${#ATTACKS_RUN[@]}" = "$n0" ] || say "group done at $((SECONDS - T0)) s"
done

# ------------------------------------------------------------ the table

echo
echo "Hostile plugin, $S: each attack from inside packet() (evidence: what the checks saw)"
printf '  %-14s %-14s %s\n' attack outcome evidence
for name in "${ATTACKS_RUN[@]}"; do
	printf '  %-14s %-14s %s\n' "$name" "${RESULT[$name]}" "${EVID[$name]:--}"
done
echo
say "$S took $((SECONDS - T0)) s inside the VM; logs in ${VM_HOST_RESULTS:-${VM_RESULTS:-$W}}/logs"
for name in "${ATTACKS_RUN[@]}"; do
	case ${RESULT[$name]} in real|contained) ;; *) exit 1 ;; esac
done
exit 0
