# shellcheck shell=bash
# shellcheck disable=SC2034  # START_WHY, STOP_RC: read by the sourcing script
# Shell helpers shared by the end-to-end suites that run inside the test VM
# (tests/e2e/inside.sh, tests/sip/inside.sh, tests/tnsrpc/inside.sh);
# sourced after tests/lib/topo.sh.  The sourcing script sets LOGS (where
# logs go) and W (its scratch directory) before calling them.  Their
# run.sh scripts source it on the host for suite_boot alone.
#
#   suite_boot NAME TIMEOUT VARS ARG...
#                               (on the host) boot the VM on
#                               tests/NAME/inside.sh ARG..., results in RES
#                               (a new run dir unless set), VARS passed in
#   suite_build_dir             BUILD and CTHELPERD from CTH_BUILD
#   check_impls SUITE KNOWN...  every IMPLS entry is one of KNOWN, or exit
#   until_ms MS / before_deadline / nap SECONDS / wait_line FILE ERE MS /
#   count_lines FILE ERE        polls without processes
#   delete_user_helpers "NAMES" "L4S"
#                               delete the user-space helpers left over
#   clean_slate                 no CT rules, conntrack flushed, no helper
#                               registered; else START_WHY and returns 1
#   helpers_gone_or_say SUITE IMPL
#                               delete_helpers (the suite's), loudly
#   print_cells TITLE HEAD NAMEW W LINE...
#                               the side-by-side table of CELL, columns
#                               SHOWN (default IMPLS), rows LINE's first word
#   suite_topology SUITE [FIREWALL] / require_tools SUITE HINT TOOL...
#   run_suite WHAT              run_impl for every IMPLS entry (then
#                               after_impl, when defined), the table, the
#                               topology down
#   progress TEXT...            one step line to $VM_PROGRESS (the harness
#                               names the last one when the VM times out)
#   say TEXT...                 commentary line ("# ...") on stdout
#   show_tail FILE [N]          the last N lines of a log, indented, named
#                               by its path on the host
#   nfct_helpers                one line per kernel helper (nfct helper list)
#   wait_helpers_enabled NAME N up to 10 s for N enabled helpers named NAME
#   cth_start LOG CONF NAME N   cthelperd -c CONF in the background, wait for
#                               "ready" and N enabled helpers NAME; sets
#                               CTH_PID, or START_WHY and returns 1
#   stop_cthelperd              SIGTERM it and wait; sets STOP_RC
#   term_wait PID               SIGTERM, 10 s, SIGKILL; sets STOP_RC
#   events_start NAME / events_stop / events_mark / events_since_mark
#                               "conntrack -E expect" into LOGS/NAME-expect-events.log;
#                               the expectations created since the mark

# (read, not cut: under TCG every process costs a good part of a second)
progress() {
	local up _
	read -r up _ </proc/uptime
	echo "[$up] $*" >>"${VM_PROGRESS:-/dev/null}"
}
say() { echo "# $*"; }

# Print the tail of a log, indented, as commentary (named by its host path).
show_tail() {
	local file=$1 n=${2:-20} name=$1
	[ -s "$file" ] || return 0
	if [ -n "${VM_RESULTS:-}" ] && [ -n "${VM_HOST_RESULTS:-}" ]; then
		name=${file/#"$VM_RESULTS"/"$VM_HOST_RESULTS"}
	fi
	echo "  --- last $n lines of $name"
	tail -n "$n" "$file" | sed 's/^/  | /'
}

# ------------------------------------------------------------ kernel helpers

# One line per kernel helper: "{.name = ftp,.queuenum = 0,...,.status = enabled,};"
nfct_helpers() { nfct helper list 2>/dev/null | tr -d '\n\t' | sed 's/};/};\n/g'; }

# Wait until `nfct helper list` shows N enabled helpers named NAME.
wait_helpers_enabled() {
	local name=$1 n=$2 _
	for _ in $(seq 1 50); do
		[ "$(nfct_helpers | grep -c "name = $name,.*status = enabled")" -ge "$n" ] && return 0
		sleep 0.2
	done
	return 1
}

# ------------------------------------------------------------ the daemon

# cth_start LOG CONF NAME N: run $CTHELPERD -c CONF in the foreground (a
# background job) and wait for its "ready" line and for N enabled kernel
# helpers named NAME (one per family and protocol it registers).
CTH_PID=
cth_start() {
	local log=$1 conf=$2 name=$3 n=$4 _
	"$CTHELPERD" -c "$conf" >"$log" 2>&1 &
	CTH_PID=$!
	for _ in $(seq 1 100); do
		grep -q 'ready' "$log" 2>/dev/null && break
		if ! kill -0 "$CTH_PID" 2>/dev/null; then
			wait "$CTH_PID"
			START_WHY="cthelperd exited with status $? before printing ready"
			CTH_PID=
			return 1
		fi
		sleep 0.2
	done
	if ! grep -q 'ready' "$log"; then
		START_WHY="cthelperd did not print ready within 20 s"
		return 1
	fi
	if ! wait_helpers_enabled "$name" "$n"; then
		START_WHY="cthelperd said ready but nfct helper list lacks $n enabled $name helpers: $(nfct_helpers | tr '\n' ' ')"
		return 1
	fi
	return 0
}

# term_wait PID: SIGTERM, up to 10 s, then SIGKILL; sets STOP_RC to the
# exit status, or "timeout" when it had to be killed.
term_wait() {
	local pid=$1 _
	kill -TERM "$pid" 2>/dev/null
	for _ in $(seq 1 50); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.2
	done
	if kill -0 "$pid" 2>/dev/null; then
		kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		STOP_RC=timeout
	else
		wait "$pid"
		STOP_RC=$?
	fi
}

# stop_cthelperd: SIGTERM and wait; sets STOP_RC.
stop_cthelperd() {
	STOP_RC=
	[ -n "$CTH_PID" ] || return 0
	term_wait "$CTH_PID"
	CTH_PID=
}

# ------------------------------------------------------------ expectation events

# While an implementation runs, "conntrack -E expect" logs every expectation
# the kernel creates or destroys; a failed case then says whether the helper
# created an expectation at all (and which), which is most of a diagnosis.
EV_PID=
EV_LOG=
events_start() {
	EV_LOG="$LOGS/$1-expect-events.log"
	: >"$EV_LOG"
	stdbuf -oL conntrack -E expect >>"$EV_LOG" 2>&1 &
	EV_PID=$!
}
events_stop() {
	[ -n "$EV_PID" ] && kill "$EV_PID" 2>/dev/null && wait "$EV_PID" 2>/dev/null
	EV_PID=
}
events_mark() { EV_MARK=$(wc -l <"$EV_LOG"); }
# Expectations created since events_mark, as one line.
events_since_mark() {
	sleep 0.3   # let the listener catch up
	local new
	new=$(tail -n +"$((EV_MARK + 1))" "$EV_LOG" | grep -F '[NEW]' | sed 's/^ *\[NEW\] *//' | tr -s ' ' | paste -sd';' -)
	echo "${new:-none}"
}

# ------------------------------------------------------------ the suite

# suite_boot NAME TIMEOUT VARS ARG...: one VM boot running
# tests/NAME/inside.sh ARG... (run on the host, from the repo).
suite_boot() {
	local name=$1 timeout=$2 start=$SECONDS rc
	export VM_PASS_ENV="${VM_PASS_ENV:-} $3"
	shift 3
	if [ -z "${RES:-}" ]; then
		RES=$(rundir_new "build/vm/$name") || return 1
	fi
	tests/vm/run.sh --timeout "$timeout" --results "$RES" "tests/$name/inside.sh" "$@"
	rc=$?
	echo "$name: whole run (boot included) took $((SECONDS - start)) s; logs in $RES/logs"
	return $rc
}

# CTH_BUILD is relative to the repo unless absolute.
suite_build_dir() {
	CTH_BUILD=${CTH_BUILD:-build}
	case $CTH_BUILD in /*) BUILD=$CTH_BUILD ;; *) BUILD=$REPO/$CTH_BUILD ;; esac
	CTHELPERD=$BUILD/cthelperd
}

check_impls() {
	local suite=$1 impl
	shift
	for impl in "${IMPLS[@]}"; do
		[[ " $* " == *" $impl "* ]] && continue
		echo "FAIL $suite/args: unknown implementation '$impl' ($*)"
		exit 1
	done
}

# suite_topology SUITE [FIREWALL]: the namespaces (and the firewall), or a
# FAIL line and exit.
suite_topology() {
	if ! topo_setup || { [ -n "${2:-}" ] && ! topo_firewall "$2"; }; then
		echo "FAIL $1/topology: setup failed"
		exit 1
	fi
}

require_tools() {
	local suite=$1 hint=$2 tool
	shift 2
	for tool in "$@"; do
		command -v "$tool" >/dev/null && continue
		echo "FAIL $suite/$tool: $tool is not installed ($hint; make deps)"
		exit 1
	done
}

# run_suite WHAT: every implementation in turn, then the table.  A suite
# with something to do after an implementation defines after_impl IMPL.
run_suite() {
	local impl
	for impl in "${IMPLS[@]}"; do
		run_impl "$impl"
		! declare -F after_impl >/dev/null || after_impl "$impl"
		say "$impl done at $((SECONDS - T0)) s"
	done
	print_table
	say "$1 took $((SECONDS - T0)) s inside the VM; logs in ${VM_HOST_RESULTS:-${VM_RESULTS:-$W}}/logs"
	topo_teardown
}

# print_cells TITLE HEAD NAMEW W LINE...: a row per LINE (its first word
# names the case), a column per SHOWN entry (default IMPLS).
print_cells() {
	local title=$1 head=$2 namew=$3 w=$4 impl line name cols
	shift 4
	cols=("${SHOWN[@]:-${IMPLS[@]}}")
	echo
	echo "$title"
	printf '  %-*s' "$namew" "$head"
	for impl in "${cols[@]}"; do printf ' %-*s' "$w" "${COLNAME[$impl]:-$impl}"; done
	echo
	for line in "$@"; do
		read -r name _ <<<"$line"
		printf '  %-*s' "$namew" "$name"
		for impl in "${cols[@]}"; do printf ' %-*s' "$w" "${CELL[$impl/$name]:--}"; done
		echo
	done
	echo
}

# ------------------------------------------------------------ helpers between implementations

# clean_slate: what each implementation starts from.  Sets START_WHY.
clean_slate() {
	START_WHY=
	topo_ct_del
	topo_flush_conntrack
	if [ -n "$(nfct_helpers)" ]; then
		START_WHY="kernel helpers left over from an earlier implementation: $(nfct_helpers | tr '\n' ' ')"
		return 1
	fi
}

# delete_user_helpers "NAMES" "L4S": delete whatever user-space helpers
# of these names are left (after topo_ct_del!); only those registered, as
# every nfct call costs a process.
delete_user_helpers() {
	local name fam l3 l4 l4n
	for name in $1; do
		for fam in inet inet6; do
			l3=2
			[ $fam = inet6 ] && l3=10
			for l4 in $2; do
				l4n=6
				[ "$l4" = udp ] && l4n=17
				nfct_helpers | grep -q "name = $name,.*l3protonum = $l3,.l4protonum = $l4n," || continue
				nfct helper disable "$name" $fam "$l4" >/dev/null 2>&1
				nfct helper delete "$name" $fam "$l4" 2>&1 | sed 's/^/  nfct: /'
			done
		done
	done
	if nfct_helpers | grep -q 'name = '; then
		echo "  helpers still registered: $(nfct_helpers | tr '\n' ' ')"
		return 1
	fi
}

# helpers_gone_or_say SUITE IMPL: the next implementation needs a clean
# kernel: say so loudly if not (delete_helpers is the suite's).
helpers_gone_or_say() {
	local left
	if ! left=$(delete_helpers 2>&1); then
		echo "FAIL $1/$2/cleanup: kernel helpers left behind that cannot be deleted; later columns are not trustworthy: $left"
	fi
	topo_flush_conntrack
}

# ------------------------------------------------------------ polling without processes

# Under TCG every process costs a good part of a second: the polls use
# bash builtins only and count wall-clock time, not rounds.
# until_ms MS: set the deadline MS from now; before_deadline: not yet.
until_ms() { DEADLINE=$((${EPOCHREALTIME/./} + $1 * 1000)); }
before_deadline() { ((${EPOCHREALTIME/./} < DEADLINE)); }
# nap SECONDS: sleep without a process (read with a timeout on a FIFO
# nobody writes to).
NAP_FD=
nap() {
	if [ -z "$NAP_FD" ]; then
		mkfifo "$W/nap" 2>/dev/null
		exec {NAP_FD}<>"$W/nap"
	fi
	read -r -t "$1" -u "$NAP_FD" _
	return 0
}

# wait_line FILE ERE MS: until FILE has a line matching ERE; sets LINE.
wait_line() {
	local file=$1 re=$2 line lines
	LINE=
	until_ms "$3"
	while :; do
		if [ -e "$file" ]; then
			mapfile -t lines <"$file"
			for line in "${lines[@]}"; do
				[[ $line =~ $re ]] && { LINE=$line; return 0; }
			done
		fi
		before_deadline || return 1
		nap 0.1
	done
}

# count_lines FILE ERE: how many lines of FILE match (into COUNT).
count_lines() {
	local line lines
	COUNT=0
	[ -e "$1" ] || return 0
	mapfile -t lines <"$1"
	for line in "${lines[@]}"; do
		[[ $line =~ $2 ]] && COUNT=$((COUNT + 1))
	done
}
