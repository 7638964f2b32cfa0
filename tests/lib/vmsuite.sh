# shellcheck shell=bash
# shellcheck disable=SC2034  # START_WHY, STOP_RC: read by the sourcing script
# Shell helpers shared by the end-to-end suites that run inside the test VM
# (tests/e2e/inside.sh, tests/sip/inside.sh); sourced after tests/lib/topo.sh.
# The sourcing script sets LOGS (where logs go) before calling them.
#
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
