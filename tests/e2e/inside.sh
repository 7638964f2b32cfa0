#!/bin/bash
# FTP end-to-end scenarios, run inside the test VM by tests/e2e/run.sh
# (one boot for everything).  Each scenario runs against each helper
# implementation:
#
#   none        no helper at all: the data connection must be blocked
#               (the firewall works); counted: e2e/none/<case>
#   cthelperd   build/cthelperd; counted: e2e/cthelperd/<case>
#   cthelperd-kmod  the same on kmod/'s cthelperd_nfnl module instead of
#               the in-tree nfnetlink_cthelper (tests/kmod/use-ours.sh);
#               run when build/kmod/cthelperd_nfnl.ko exists (else SKIP);
#               counted: e2e/cthelperd-kmod/<case>
#   conntrackd  conntrackd helper mode: the reference; failures are printed
#               as "NOTE conntrackd/<case>: ..." and in the table, not counted
#   kernel      in-kernel nf_conntrack_ftp (+ nf_nat_ftp): optional
#               reference column, same rules as conntrackd
#
# Usage: inside.sh [IMPL...]
#   (default: none conntrackd cthelperd [cthelperd-kmod] kernel)
set -u
cd "$(dirname "$0")/../.." || exit 1
REPO=$PWD
# shellcheck source=tests/lib/topo.sh
. tests/lib/topo.sh

PY=/usr/bin/python3
FTP="$REPO/tests/lib/ftp.py"
W=/tmp/e2e
LOGS=${VM_RESULTS:-$W}/logs
CTHELPERD=$REPO/build/cthelperd
META=$W/ftproot/testfile.meta
mkdir -p "$W" "$LOGS"

progress() { echo "[$(cut -d" " -f1 /proc/uptime)] $*" >>"${VM_PROGRESS:-/dev/null}"; }
say() { echo "# $*"; }

# Execution order: the kernel's own helper last, because it is unloaded
# afterwards and a user-space "ftp" helper cannot coexist with it.
IMPLS=("$@")
if [ ${#IMPLS[@]} -eq 0 ]; then
	IMPLS=(none conntrackd cthelperd)
	# kmod/'s module, when tests/kmod/run.sh has built it (make check does).
	if [ -f build/kmod/cthelperd_nfnl.ko ]; then
		IMPLS+=(cthelperd-kmod)
	else
		echo "SKIP e2e/cthelperd-kmod: build/kmod/cthelperd_nfnl.ko not built (tests/kmod/run.sh --build-only)"
	fi
	IMPLS+=(kernel)
fi
for impl in "${IMPLS[@]}"; do
	case $impl in
	none|conntrackd|cthelperd|kernel|cthelperd-kmod) ;;
	*) echo "FAIL e2e/args: unknown implementation '$impl' (none conntrackd cthelperd kernel cthelperd-kmod)"; exit 1 ;;
	esac
done

# name  family  client-mode  topology-mode
CASES=(
	"v4-port    4 port plain"
	"v4-pasv    4 pasv plain"
	"v4-eprt    4 eprt plain"
	"v4-epsv    4 epsv plain"
	"v6-eprt    6 eprt plain"
	"v6-epsv    6 epsv plain"
	"nat-masq-port 4 port masq"
	"nat-dnat-pasv 4 pasv dnat"
)
EXTRA_CASES=(kill9-restart clean-stop)

declare -A CELL    # CELL[impl/case] = text for the table
declare -A COLNAME=([none]="no helper" [cthelperd]=cthelperd [conntrackd]=conntrackd [kernel]=nf_conntrack_ftp [cthelperd-kmod]="cthelperd+kmod")
is_cth() { [ "$1" = cthelperd ] || [ "$1" = cthelperd-kmod ]; }

# ------------------------------------------------------------ reporting

# Why conntrackd 1.4.7 fails some cases: read in its source and confirmed
# in this VM.  Only quoted for that version and when the case failed.
CTD_VERSION=$(conntrackd -v 2>/dev/null | grep -o 'daemon v[0-9][0-9.]*[0-9]' | head -n 1)
known_cause() {
	[ "$1" = conntrackd ] && [ "$CTD_VERSION" = "daemon v1.4.7" ] || return 0
	case $2 in
	*-epsv) echo " (known: for a 229 reply it takes the original-direction source, i.e. the client, as the expected address; that differs from the reply's sender, so it records nothing)" ;;
	v6-eprt) echo " (known: its FTP parser is always called with PF_INET, so an EPRT |2| (IPv6) argument is rejected)" ;;
	nat-*) echo " (known: the rewritten command and the expectation reach the kernel, and the data connection matches it, but it is not NATed: it ends at the router itself and is reset)" ;;
	esac
}

# record IMPL CASE ok|bad WHY: turns one outcome into a PASS/FAIL/NOTE line.
record() {
	local impl=$1 case=$2 ok=$3 why=$4
	case $impl in
	none|cthelperd|cthelperd-kmod)
		if [ "$ok" = ok ]; then
			echo "PASS e2e/$impl/$case"
		else
			echo "FAIL e2e/$impl/$case: $why"
		fi ;;
	*)
		[ "$ok" = ok ] || echo "NOTE $impl/$case: $why$(known_cause "$impl" "$case")" ;;
	esac
}

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

# ------------------------------------------------------------ FTP server

start_ftp_server() {
	rm -rf "$W/ftproot" "$W/ftp.ready"
	in_server "$PY" "$FTP" server --root "$W/ftproot" --size $((512 * 1024)) \
		--ready "$W/ftp.ready" --log "$LOGS/ftp-server.log" \
		>"$LOGS/ftp-server.out" 2>&1 &
	FTP_PID=$!
	local _
	for _ in $(seq 1 150); do
		[ -s "$W/ftp.ready" ] && [ -s "$META" ] && return 0
		kill -0 $FTP_PID 2>/dev/null || break
		sleep 0.2
	done
	echo "FAIL e2e/ftp-server: did not start"
	show_tail "$LOGS/ftp-server.out"
	return 1
}

# ------------------------------------------------------------ implementations

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

# The shipped example, with debug logging so that a failure shows what the
# daemon did; its relative plugin_dir resolves against conf/, not /tmp.
write_cthelperd_conf() {
	sed -e 's/^log_level = .*/log_level = debug/' \
	    -e "s|^plugin_dir = .*|plugin_dir = $REPO/build/plugins|" \
	    "$REPO/conf/cthelperd.conf" >"$W/cthelperd.conf"
}

# start_cthelperd LOG: run the daemon in the foreground (background job) and
# wait for its "ready" line.
CTH_PID=
start_cthelperd() {
	local log=$1 _
	if [ ! -x "$CTHELPERD" ]; then
		START_WHY="build/cthelperd is not built (run make)"
		return 1
	fi
	if [ ! -e "$REPO/build/plugins/ftp.so" ]; then
		START_WHY="build/plugins/ftp.so is not built"
		return 1
	fi
	write_cthelperd_conf
	"$CTHELPERD" -c "$W/cthelperd.conf" >"$log" 2>&1 &
	CTH_PID=$!
	for _ in $(seq 1 100); do
		grep -q 'ready' "$log" 2>/dev/null && break
		if ! kill -0 $CTH_PID 2>/dev/null; then
			wait $CTH_PID
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
	if ! wait_helpers_enabled ftp 2; then
		START_WHY="cthelperd said ready but nfct helper list lacks 2 enabled ftp helpers: $(nfct_helpers | tr '\n' ' ')"
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

CTD_PID=
start_conntrackd() {
	if ! nfct helper add ftp inet tcp || ! nfct helper add ftp inet6 tcp; then
		START_WHY="nfct helper add ftp failed"
		return 1
	fi
	rm -f /run/conntrackd-e2e.lock /tmp/conntrackd.log
	conntrackd -C "$REPO/tests/e2e/conntrackd-helper.conf" >"$LOGS/conntrackd.out" 2>&1 &
	CTD_PID=$!
	if ! wait_helpers_enabled ftp 2; then
		START_WHY="conntrackd did not enable its helpers: $(nfct_helpers | tr '\n' ' ')"
		return 1
	fi
}

stop_conntrackd() {
	[ -n "$CTD_PID" ] || return 0
	term_wait "$CTD_PID" 2>/dev/null
	CTD_PID=
	cp /tmp/conntrackd.log "$LOGS/conntrackd.log" 2>/dev/null
}

# Delete whatever user-space helpers are left (after topo_ct_del!).
delete_helpers() {
	local fam
	for fam in inet inet6; do
		if nfct_helpers | grep -q "name = ftp,.*l3protonum = $([ $fam = inet ] && echo 2 || echo 10),"; then
			nfct helper disable ftp $fam tcp >/dev/null 2>&1
			nfct helper delete ftp $fam tcp 2>&1 | sed 's/^/  nfct: /'
		fi
	done
	if nfct_helpers | grep -q 'name = '; then
		echo "  helpers still registered: $(nfct_helpers | tr '\n' ' ')"
		return 1
	fi
}

# impl_start IMPL: make IMPL the active FTP helper and load the CT rules.
# Sets START_WHY on failure.
impl_start() {
	local impl=$1
	START_WHY=
	topo_ct_del
	topo_flush_conntrack
	if [ -n "$(nfct_helpers)" ]; then
		START_WHY="kernel helpers left over from an earlier implementation: $(nfct_helpers | tr '\n' ' ')"
		return 1
	fi
	case $impl in
	none)
		topo_assert_no_kernel_ftp || { START_WHY="nf_conntrack_ftp is loaded"; return 1; }
		return 0 ;;
	cthelperd)
		topo_assert_no_kernel_ftp || { START_WHY="nf_conntrack_ftp is loaded"; return 1; }
		start_cthelperd "$LOGS/$impl.log" || return 1 ;;
	cthelperd-kmod)
		topo_assert_no_kernel_ftp || { START_WHY="nf_conntrack_ftp is loaded"; return 1; }
		if ! tests/kmod/use-ours.sh >"$LOGS/use-ours.out" 2>&1; then
			START_WHY="tests/kmod/use-ours.sh failed: $(tr '\n' ' ' <"$LOGS/use-ours.out")"
			return 1
		fi
		start_cthelperd "$LOGS/$impl.log" || return 1 ;;
	conntrackd)
		topo_assert_no_kernel_ftp || { START_WHY="nf_conntrack_ftp is loaded"; return 1; }
		start_conntrackd || return 1 ;;
	kernel)
		if ! modprobe -a nf_conntrack_ftp nf_nat_ftp; then
			START_WHY="modprobe nf_conntrack_ftp nf_nat_ftp failed"
			return 1
		fi ;;
	esac
	# The helper is registered: now a rule may name it (otherwise the
	# kernel would autoload nf_conntrack_ftp for the name).
	topo_ct_add ftp || { START_WHY="CT --helper ftp rules failed"; return 1; }
	if [ "$impl" != kernel ]; then
		topo_assert_no_kernel_ftp ||
			{ START_WHY="nf_conntrack_ftp got loaded by the CT rule: the user-space helper was not registered"; return 1; }
	fi
}

impl_stop() {
	local impl=$1
	# Rules first: deleting a helper a rule still names leaks it (kernel bug).
	topo_ct_del
	case $impl in
	cthelperd|cthelperd-kmod) stop_cthelperd ;;
	conntrackd) stop_conntrackd ;;
	kernel) rmmod nf_nat_ftp nf_conntrack_ftp 2>&1 | sed 's/^/  rmmod: /' ;;
	esac
	# The next implementation needs a clean kernel: say so loudly if not.
	local left
	if ! left=$(delete_helpers 2>&1); then
		record "$impl" cleanup bad "kernel helpers left behind that cannot be deleted; later columns are not trustworthy: $left"
	fi
	if [ "$impl" = kernel ] && grep -qE '^nf_(conntrack|nat)_ftp ' /proc/modules; then
		echo "NOTE kernel/cleanup: nf_conntrack_ftp could not be unloaded"
	fi
	# Later columns run on the in-tree cthelper subsystem again.
	if [ "$impl" = cthelperd-kmod ] && [ -d /sys/module/cthelperd_nfnl ]; then
		if ! rmmod cthelperd_nfnl || ! modprobe nfnetlink_cthelper; then
			record "$impl" cleanup bad "cannot switch back from cthelperd_nfnl to nfnetlink_cthelper"
		fi
	fi
	topo_flush_conntrack
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

# ------------------------------------------------------------ one FTP session

# run_client IMPL CASE FAMILY MODE [extra client args]: sets OUT (result
# line) and returns the client's status.  The dialogue goes to the log.
run_client() {
	local impl=$1 case=$2 fam=$3 mode=$4
	shift 4
	local host
	if [ "$fam" = 6 ]; then host=$SV6; else host=$SV4_DIAL; fi
	CLIENT_LOG="$LOGS/$impl-$case.log"
	OUT=$(timeout 60 nsenter --net="/run/netns/$TOPO_CL_NS" "$PY" "$FTP" client --host "$host" \
		--mode "$mode" --meta "$META" "$@" 2>"$CLIENT_LOG")
	local rc=$?
	[ $rc = 124 ] && OUT="ERROR $mode: client killed after 60 s"
	[ -n "$OUT" ] || OUT="ERROR $mode: client printed nothing (status $rc)"
	return $rc
}

# A transfer that failed at the data connection (not at connect/login): the
# firewall blocked it, or the server refused a PORT it could not use.
blocked_at_data_step() {
	case $1 in
	*": PORT: "*|*": EPRT: "*|*": connect data "*|*": accept data"*|*": receive data: "*) return 0 ;;
	esac
	return 1
}

run_case() {
	local impl=$1 case=$2 fam=$3 mode=$4
	progress "$impl/$case"
	events_mark
	run_client "$impl" "$case" "$fam" "$mode"
	local rc=$?
	local exps
	exps=$(events_since_mark)
	if [ "$impl" = none ]; then
		if [ $rc = 0 ]; then
			CELL[$impl/$case]="PASSED!"
			record none "$case" bad "data connection went through without a helper: the firewall does not block (${OUT}; expectations: $exps)"
		elif blocked_at_data_step "$OUT"; then
			CELL[$impl/$case]="blocked"
			record none "$case" ok ""
		else
			CELL[$impl/$case]="error"
			record none "$case" bad "failed before the data connection, so nothing was proven: ${OUT#ERROR }"
			show_tail "$CLIENT_LOG" 12
		fi
		return
	fi
	if [ $rc = 0 ]; then
		CELL[$impl/$case]="PASS"
		record "$impl" "$case" ok ""
	else
		CELL[$impl/$case]="FAIL"
		record "$impl" "$case" bad "${OUT#ERROR } [expectations created: $exps]"
		show_tail "$CLIENT_LOG" 12
		if is_cth "$impl"; then
			show_tail "$LOGS/$impl.log" 15
			if [ -n "$CTH_PID" ] && ! kill -0 "$CTH_PID" 2>/dev/null; then
				echo "  cthelperd is no longer running"
			fi
		fi
	fi
}

# ------------------------------------------------------------ cthelperd extras

# kill -9 in the middle of a control session, restart, the next transfer of
# the same session must work: the per-connection state lives in the kernel.
case_kill9_restart() {
	local impl=$1 c=kill9-restart sync=$W/sync
	progress "$impl/$c"
	rm -rf "$sync"; mkdir -p "$sync"
	topo_mode plain
	in_client timeout 90 "$PY" "$FTP" client --host "$SV4" --mode pasv \
		--meta "$META" --transfers 2 --sync-dir "$sync" --pause-timeout 60 \
		>"$W/kill9.out" 2>"$LOGS/$impl-$c.log" &
	local cpid=$! _
	for _ in $(seq 1 150); do
		[ -e "$sync/paused.1" ] && break
		kill -0 $cpid 2>/dev/null || break
		sleep 0.2
	done
	if [ ! -e "$sync/paused.1" ]; then
		wait $cpid
		CELL[$impl/$c]=FAIL
		record "$impl" $c bad "first transfer did not complete: $(head -n1 "$W/kill9.out")"
		show_tail "$LOGS/$impl-$c.log" 12
		return
	fi
	kill -KILL "$CTH_PID"
	wait "$CTH_PID" 2>/dev/null
	CTH_PID=
	say "cthelperd killed with SIGKILL after transfer 1; helper state: $(nfct_helpers | grep -o 'status = [a-z]*' | sort | uniq -c | tr -s ' \n' ' ')"
	# The reason a clean stop must disable its helpers: an enabled helper
	# without a listener makes the kernel skip confirmation of new
	# connections.  Shown, not counted: it is the kernel's behaviour.
	if run_client "$impl" kill9-newconn 4 none --timeout 4; then
		say "while no daemon runs, a new control connection still passes"
	else
		say "while no daemon runs (helper still enabled), a new control connection fails: ${OUT#ERROR }"
	fi
	if ! start_cthelperd "$LOGS/$impl-restart.log"; then
		touch "$sync/go.1"
		wait $cpid
		CELL[$impl/$c]=FAIL
		record "$impl" $c bad "restart failed: $START_WHY"
		show_tail "$LOGS/$impl-restart.log" 15
		return
	fi
	touch "$sync/go.1"
	wait $cpid
	local rc=$?
	if [ $rc = 0 ] && grep -q '^OK pasv transfer 2' "$W/kill9.out"; then
		CELL[$impl/$c]=PASS
		record "$impl" $c ok ""
	else
		CELL[$impl/$c]=FAIL
		record "$impl" $c bad "second transfer in the same session after restart: $(grep -v '^OK' "$W/kill9.out" | head -n1)"
		show_tail "$LOGS/$impl-$c.log" 12
		show_tail "$LOGS/$impl-restart.log" 15
	fi
}

# After SIGTERM the daemon's helpers must not blackhole port 21.  The CT
# rules stay in place on purpose: without them no new connection would
# even meet the helper, and the check would prove nothing.  An ENABLED
# helper with no listener breaks new connections (see kill9-restart); a
# DISABLED or deleted one lets them through unhelped.  The daemon's DEL
# may be refused (EBUSY) while the rule names the helper; the rules are
# removed afterwards and the helpers must then be deletable.
case_clean_stop() {
	local impl=$1 c=clean-stop
	progress "$impl/$c"
	topo_mode plain
	stop_cthelperd
	local left
	left=$(nfct_helpers | grep -o 'name = ftp,.*status = [a-z]*' | sed 's/, .queuenum.*status = / /' | tr '\n' ';')
	say "after SIGTERM: exit status $STOP_RC; helpers left: ${left:-none}"
	local why=
	[ "$STOP_RC" = 0 ] || why="cthelperd exit status $STOP_RC on SIGTERM (want 0)"
	if nfct_helpers | grep -q 'name = ftp,.*status = enabled'; then
		why="${why:+$why; }a helper is still ENABLED after a clean stop"
	fi
	if ! run_client "$impl" clean-stop-newconn 4 none; then
		why="${why:+$why; }new control connection to port 21 fails after the stop: ${OUT#ERROR }"
	fi
	topo_ct_del
	if ! delete_helpers >"$W/del.out" 2>&1; then
		why="${why:+$why; }helpers cannot be deleted after the stop even with the CT rules gone: $(tr '\n' ' ' <"$W/del.out")"
	fi
	if [ -z "$why" ]; then
		CELL[$impl/$c]=PASS
		record "$impl" $c ok ""
	else
		CELL[$impl/$c]=FAIL
		record "$impl" $c bad "$why"
		show_tail "$LOGS/$impl.log" 15
	fi
}

# ------------------------------------------------------------ shipped nft example

# conf/cthelperd.nft as shipped, with conf/cthelperd.conf: the helper is
# attached by an nftables ct helper object instead of iptables CT rules,
# and the example's own forward chain (policy drop) must let the data
# connection through as RELATED.  Counted as e2e/cthelperd/nft-example.
run_nft_example() {
	local c=nft-example why="" line name fam mode
	say "=== nft example (conf/cthelperd.nft)"
	progress "cthelperd/$c"
	topo_mode plain
	if ! start_cthelperd "$LOGS/cthelperd-nft.log"; then
		record cthelperd $c bad "cthelperd did not start: $START_WHY"
		stop_cthelperd
		return
	fi
	if ! out=$(timeout 30 nft -f "$REPO/conf/cthelperd.nft" 2>&1); then
		why="nft -f conf/cthelperd.nft failed: $out"
	else
		topo_assert_no_kernel_ftp 2>"$W/kftp.out" ||
			why="nf_conntrack_ftp got loaded: $(cat "$W/kftp.out")"
		for line in "v4-pasv 4 pasv" "v6-epsv 6 epsv" "v4-port 4 port"; do
			[ -z "$why" ] || break
			read -r name fam mode <<<"$line"
			run_client cthelperd "$c-$name" "$fam" "$mode" ||
				why="$name: ${OUT#ERROR }"
		done
	fi
	timeout 30 nft delete table inet cthelperd_example 2>/dev/null
	stop_cthelperd
	delete_helpers >/dev/null 2>&1
	CELL[cthelperd/$c]=$([ -z "$why" ] && echo PASS || echo FAIL)
	if [ -z "$why" ]; then
		record cthelperd $c ok ""
	else
		record cthelperd $c bad "$why"
		show_tail "$LOGS/cthelperd-nft.log" 15
	fi
}

# ------------------------------------------------------------ main

run_impl() {
	local impl=$1 line name fam mode tmode
	say "=== $impl"
	progress "start $impl"
	if ! impl_start "$impl"; then
		say "$impl could not be started: $START_WHY"
		is_cth "$impl" && show_tail "$LOGS/$impl.log" 30
		for line in "${CASES[@]}"; do
			read -r name _ <<<"$line"
			CELL[$impl/$name]="n/s"
			record "$impl" "$name" bad "not run: $START_WHY"
		done
		if is_cth "$impl"; then
			for name in "${EXTRA_CASES[@]}"; do
				CELL[$impl/$name]="n/s"
				record "$impl" "$name" bad "not run: $START_WHY"
			done
		fi
		impl_stop "$impl"
		return
	fi
	[ "$impl" = none ] || say "helpers: $(nfct_helpers | tr '\n' ' ')"
	events_start "$impl"
	for line in "${CASES[@]}"; do
		read -r name fam mode tmode <<<"$line"
		[ "$TOPO_MODE" = "$tmode" ] || topo_mode "$tmode"
		run_case "$impl" "$name" "$fam" "$mode"
	done
	if is_cth "$impl"; then
		case_kill9_restart "$impl"
		if [ -n "$CTH_PID" ]; then
			case_clean_stop "$impl"
		else
			CELL[$impl/clean-stop]="n/s"
			record "$impl" clean-stop bad "not run: the daemon is not running after kill9-restart"
		fi
	fi
	events_stop
	impl_stop "$impl"
	if [ "$impl" = conntrackd ] && [ -s "$LOGS/conntrackd.log" ]; then
		grep -iE 'error|fail' "$LOGS/conntrackd.log" | head -n 5 | sed 's/^/  conntrackd.log: /'
	fi
}

print_table() {
	local impl name line w=16 cols=()
	for impl in none cthelperd cthelperd-kmod conntrackd kernel; do
		[[ " ${IMPLS[*]} " == *" $impl "* ]] && cols+=("$impl")
	done
	echo
	echo "FTP end-to-end, side by side (blocked = data connection stopped by the firewall, as it must be without a helper; n/s = not started):"
	printf '  %-16s' scenario
	for impl in "${cols[@]}"; do printf ' %-*s' $w "${COLNAME[$impl]:-$impl}"; done
	echo
	for line in "${CASES[@]}" "${EXTRA_CASES[@]}" nft-example; do
		read -r name _ <<<"$line"
		printf '  %-16s' "$name"
		for impl in "${cols[@]}"; do printf ' %-*s' $w "${CELL[$impl/$name]:--}"; done
		echo
	done
	echo
}

# shellcheck disable=SC2317  # runs from the EXIT trap
cleanup() {
	[ -n "$CTH_PID" ] && kill -KILL "$CTH_PID" 2>/dev/null
	[ -n "$CTD_PID" ] && kill -KILL "$CTD_PID" 2>/dev/null
	[ -n "${FTP_PID:-}" ] && kill "$FTP_PID" 2>/dev/null
	events_stop
}
trap cleanup EXIT

T0=$SECONDS
progress "topology"
if ! topo_setup; then
	echo "FAIL e2e/topology: setup failed"
	exit 1
fi
progress "ftp server"
start_ftp_server || exit 1
for impl in "${IMPLS[@]}"; do
	run_impl "$impl"
	[ "$impl" = cthelperd ] && run_nft_example
	say "$impl done at $((SECONDS - T0)) s"
done
print_table
say "e2e scenarios took $((SECONDS - T0)) s inside the VM; logs in ${VM_HOST_RESULTS:-${VM_RESULTS:-$W}}/logs"
topo_teardown
exit 0
