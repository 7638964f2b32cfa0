# shellcheck shell=bash
# shellcheck disable=SC2034  # START_WHY, STOP_RC, CTD_PID: read by the suites
# The helper implementations the VM suites run side by side, started and
# stopped the same way in every suite and the bench: cthelperd, conntrackd
# in helper mode, the kernel's in-tree helpers (and kmod/'s module under
# cthelperd).  Sourced by tests/lib/vmsuite.sh, inside the VM, after
# tests/lib/topo.sh; LOGS and W as there.  A start that fails returns 1
# with START_WHY saying why.
#
#   nfct_helpers                one line per kernel helper (nfct helper list)
#   wait_helpers_enabled NAME N up to 10 s for N enabled helpers named NAME
#
#   cth_built PLUGIN...         $CTHELPERD and these plugins are built
#   cth_start LOG CONF NAME N [NAME N]...
#                               cthelperd -c CONF in the background, wait for
#                               "ready" and N enabled helpers of each NAME;
#                               sets CTH_PID
#   stop_cthelperd              SIGTERM it and wait; sets STOP_RC
#   kill_cthelperd              SIGKILL it (no clean stop runs) and reap it
#   term_wait PID               SIGTERM, 10 s, SIGKILL; sets STOP_RC
#
#   conntrackd_start CONF "NAME FAMILY L4"...
#                               conntrackd's helper mode: the helpers' stubs
#                               (nfct helper add), conntrackd -C CONF in the
#                               background, its helpers enabled; sets CTD_PID
#   conntrackd_stop [LOGNAME]   SIGTERM and wait; its log into LOGS
#
#   kernel_helper_absent NAME...    no nf_conntrack_NAME / nf_nat_NAME loaded
#   kernel_helpers_load NAME...     modprobe nf_conntrack_NAME nf_nat_NAME
#   kernel_helpers_unload NAME...   rmmod them (rmmod's complaints indented)
#   kmod_use_ours KMOD          kmod/'s cthelperd_nfnl instead of the in-tree
#                               nfnetlink_cthelper (tests/kmod/use-ours.sh)
#   kmod_restore                the in-tree nfnetlink_cthelper again
#
#   impl_rules NAME IMPL        the CT --helper NAME rules, then (but for the
#                               kernel's own) no kernel helper autoloaded
#   clean_slate                 no CT rules, conntrack flushed, no helper
#                               registered
#   running_attach NAME N       a daemon started outside the suite serves N
#                               enabled helpers NAME (the `running` column)
#   delete_user_helpers "NAMES" "L4S"
#                               delete the user-space helpers left over
#   helpers_gone_or_say SUITE IMPL
#                               delete_helpers (the suite's), loudly

CTH_PID=
CTD_PID=
CTD_LOG=
START_WHY=
STOP_RC=

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

# ------------------------------------------------------------ cthelperd

# cth_built PLUGIN...: the daemon of CTH_BUILD and these plugins exist.
cth_built() {
	local p
	if [ ! -x "$CTHELPERD" ]; then
		START_WHY="$CTH_BUILD/cthelperd is not built (make B=$CTH_BUILD all)"
		return 1
	fi
	for p in "$@"; do
		[ -e "$BUILD/plugins/$p.so" ] && continue
		START_WHY="$CTH_BUILD/plugins/$p.so is not built (make B=$CTH_BUILD all)"
		return 1
	done
}

# cth_start LOG CONF NAME N [NAME N]...: run $CTHELPERD -c CONF in the
# foreground (a background job) and wait for its "ready" line and for N
# enabled kernel helpers named NAME (one per family and protocol it
# registers), for each NAME N.
cth_start() {
	local log=$1 conf=$2 _
	shift 2
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
	while [ $# -ge 2 ]; do
		if ! wait_helpers_enabled "$1" "$2"; then
			START_WHY="cthelperd said ready but nfct helper list lacks $2 enabled $1 helpers: $(nfct_helpers | tr '\n' ' ')"
			return 1
		fi
		shift 2
	done
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

# kill_cthelperd: SIGKILL, as a crash would end it: its helpers stay
# registered (and enabled).
kill_cthelperd() {
	[ -n "$CTH_PID" ] || return 0
	kill -KILL "$CTH_PID"
	wait "$CTH_PID" 2>/dev/null
	CTH_PID=
}

# ------------------------------------------------------------ conntrackd

# conntrackd_start CONF "NAME FAMILY L4"...: nfct creates the helper
# stubs, conntrackd (helper mode) sets their queue (QueueNum of each Type
# block), policy and ENABLED status.  Its lock file and log file, named
# in CONF, are removed first.
conntrackd_start() {
	local conf=$1 spec name fam l4 lock='' key val _
	shift
	for spec in "$@"; do
		read -r name fam l4 <<<"$spec"
		if ! nfct helper add "$name" "$fam" "$l4"; then
			START_WHY="nfct helper add $spec failed: $(nfct_helpers | tr '\n' ' ')"
			return 1
		fi
	done
	CTD_LOG=
	while read -r key val _; do
		case $key in
		LockFile) lock=$val ;;
		LogFile) CTD_LOG=$val ;;
		esac
	done <"$conf"
	rm -f ${lock:+"$lock"} ${CTD_LOG:+"$CTD_LOG"}
	conntrackd -C "$conf" >"$LOGS/conntrackd.out" 2>&1 &
	CTD_PID=$!
	for spec in "$@"; do
		read -r name _ <<<"$spec"
		if ! wait_helpers_enabled "$name" "$(conntrackd_count "$name" "$@")"; then
			START_WHY="conntrackd did not enable its helpers: $(nfct_helpers | tr '\n' ' ')"
			return 1
		fi
	done
}

# conntrackd_count NAME SPEC...: how many of the SPECs are NAME's.
conntrackd_count() {
	local name=$1 spec n=0
	shift
	for spec in "$@"; do [ "${spec%% *}" != "$name" ] || n=$((n + 1)); done
	echo $n
}

# conntrackd_stop [LOGNAME]: SIGTERM and wait; its log goes to LOGS
# (LOGNAME, default conntrackd.log).
# shellcheck disable=SC2120  # LOGNAME is optional
conntrackd_stop() {
	[ -n "$CTD_PID" ] || return 0
	term_wait "$CTD_PID" 2>/dev/null
	CTD_PID=
	[ -z "$CTD_LOG" ] || cp "$CTD_LOG" "$LOGS/${1:-conntrackd.log}" 2>/dev/null
}

# ------------------------------------------------------------ the kernel's helpers

# kernel_helper_absent NAME...: no in-tree NAME helper is loaded (a user-
# space NAME helper cannot be tested beside it).
kernel_helper_absent() {
	local name
	for name in "$@"; do
		topo_assert_no_kernel_helper "$name" 2>"$W/kernel-helper.out" && continue
		START_WHY=$(<"$W/kernel-helper.out")
		return 1
	done
}

# kernel_helpers_load NAME...: nf_conntrack_NAME and nf_nat_NAME of each.
kernel_helpers_load() {
	local name mods=()
	for name in "$@"; do mods+=("nf_conntrack_$name" "nf_nat_$name"); done
	modprobe -a "${mods[@]}" && return 0
	START_WHY="modprobe ${mods[*]} failed"
	return 1
}

# kernel_helpers_unload NAME...: the NAT module first (it uses the other).
kernel_helpers_unload() {
	local name mods=()
	for name in "$@"; do mods+=("nf_nat_$name" "nf_conntrack_$name"); done
	rmmod "${mods[@]}" 2>&1 | sed 's/^/  rmmod: /'
}

# kmod_use_ours KMOD: kmod/'s cthelperd_nfnl serves the cthelper
# subsystem (the daemon then registers its helpers with it).
kmod_use_ours() {
	tests/kmod/use-ours.sh "$1" >"$LOGS/use-ours.out" 2>&1 && return 0
	START_WHY="tests/kmod/use-ours.sh failed: $(tr '\n' ' ' <"$LOGS/use-ours.out")"
	return 1
}

# kmod_restore: the in-tree nfnetlink_cthelper again (later columns run
# on it); 1 when it cannot switch back.
kmod_restore() {
	[ -d /sys/module/cthelperd_nfnl ] || return 0
	rmmod cthelperd_nfnl && modprobe nfnetlink_cthelper
}

# ------------------------------------------------------------ between implementations

# impl_rules NAME IMPL: now that the helper is registered, a rule may name
# it (otherwise the kernel would autoload nf_conntrack_NAME for the name);
# for a user-space IMPL the kernel's module must not have come with it.
impl_rules() {
	topo_ct_add "$1" || { START_WHY="CT --helper $1 rules failed"; return 1; }
	[ "$2" != kernel ] || return 0
	topo_assert_no_kernel_helper "$1" 2>/dev/null && return 0
	START_WHY="nf_conntrack_$1 got loaded by the CT rule: the user-space helper was not registered"
	return 1
}

# clean_slate: what each implementation starts from.
clean_slate() {
	START_WHY=
	topo_ct_del
	topo_flush_conntrack
	if [ -n "$(nfct_helpers)" ]; then
		START_WHY="kernel helpers left over from an earlier implementation: $(nfct_helpers | tr '\n' ' ')"
		return 1
	fi
}

# running_attach NAME N: the `running` column of tests/e2e and tests/sip:
# a daemon started outside the suite (tests/deb: the installed one, by
# its unit under systemd) serves N enabled helpers NAME.  The suite
# neither starts nor stops it, nor deletes its helpers.
running_attach() {
	START_WHY=
	topo_ct_del
	topo_flush_conntrack
	kernel_helper_absent "$1" || return 1
	wait_helpers_enabled "$1" "$2" && return 0
	START_WHY="no daemon started outside the suite serves $2 enabled $1 helpers: $(nfct_helpers | tr '\n' ' ')"
	return 1
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
