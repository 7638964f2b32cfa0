#!/bin/bash
# Operations end to end (issue 15), run inside the test VM by
# tests/ops/run.sh, one boot.  Every case is cthelperd's own (there is no
# reference to compare with: conntrackd's helper mode has no reload, no
# stats, no privilege drop) and FTP through the topology's firewall is
# the proof that the daemon still serves:
#
#   reload-under-load   a loop of FTP sessions (PASV and PORT) while the
#                       daemon is reloaded 10 times (SIGHUP and cthelperctl
#                       in turn): a second helper added and removed, a
#                       policy changed, ftp moved to another queue and back,
#                       a queue length changed.  Zero failed sessions, every
#                       reload applied (status, nfct helper list), no verdict
#                       error, nothing dropped by the kernel's queues.
#   reload-broken       a syntax error, a missing plugin, a plugin of
#                       another ABI, a [server] key that needs a restart:
#                       each reload is refused naming FILE:LINE (cthelperctl
#                       exit 1; SIGHUP: the log), the old configuration keeps
#                       serving (status, an FTP session).
#   plugin-replace      ftp.so replaced (renamed over, as install(1) or a
#                       package manager does) by a build reporting another
#                       version, reload: status shows the new version, and an
#                       FTP session that began before the reload does its
#                       second (PORT) transfer through the new code.
#   privdrop            [server] user = nobody: /proc shows uid 65534 and
#                       only CAP_NET_ADMIN in every thread, FTP works, and a
#                       reload (which adds a queue, i.e. a new thread) works.
#   metrics             [server] metrics: GET /metrics (curl) answers the
#                       Prometheus counters of the session just made.
#   release-record      ftp, then a reload adds tns, kill -9, the config
#                       edited to drop tns: --release with it takes tns out
#                       too (the daemon's record in /run/cthelperd/helpers
#                       names it), and removes the record.
#   installed           the tree of "make install DESTDIR=..." (made on the
#                       host by run.sh) put at /usr/local (a tmpfs here):
#                       the installed daemon with the installed config
#                       serves FTP; after kill -9 its helpers stay enabled,
#                       and the unit's ExecStopPost command leaves none.
#
# Environment: CTH_BUILD (the daemon's build dir), OPS_INST (the DESTDIR
# tree), OPS_ONLY (an extended regex over case names).
# shellcheck disable=SC2317  # case_* run through "case_${c//-/_}"
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/lib/vmsuite.sh
. tests/lib/vmsuite.sh
# shellcheck source=tests/lib/systemd.sh
. tests/lib/systemd.sh
suite_init ops

FTP="$REPO/tests/lib/ftp.py"
CONF=$W/cthelperd.conf
PLUG=$W/plugins
SOCK=/run/cthelperd-ops.sock
CTL="$BUILD/cthelperctl -s $SOCK"
META=$W/ftproot/testfile.meta
RELOADS=10

CASES=(reload-under-load reload-broken plugin-replace privdrop metrics release-record installed systemd-unit sdk-example)
want() { [ -z "${OPS_ONLY:-}" ] || [[ $1 =~ ^($OPS_ONLY)$ ]]; }
verdict() {
	if [ -z "$2" ]; then echo "PASS e2e-ops/$1"; else echo "FAIL e2e-ops/$1: $2"; fi
}

# ------------------------------------------------------------ FTP

# ftp_session MODE [ARGS...]: one client session; OUT = its result line.
ftp_session() {
	local mode=$1
	shift
	OUT=$(timeout 60 nsenter --net="/run/netns/$TOPO_CL_NS" "$PY" "$FTP" client \
		--host "$SV4" --mode "$mode" --meta "$META" "$@" 2>>"$LOGS/ftp-client.log")
	[ -n "$OUT" ] || OUT="ERROR $mode: no output (status $?)"
	[[ $OUT == OK* ]]
}

# ------------------------------------------------------------ configuration

# conf_write [KEY=VALUE...]: the suite's configuration; the words set what
# varies: ftpq (ftp's queue), ftpmax (its policy), ftplen (queue_len),
# tns=Q (a second helper, tns, on queue Q), user=, metrics=, extra= (a raw
# block appended).
conf_write() {
	local ftpq=0 ftpmax=1 ftplen=4096 tns="" user="" metrics="" extra="" kv
	for kv in "$@"; do
		case $kv in
		ftpq=*) ftpq=${kv#*=} ;; ftpmax=*) ftpmax=${kv#*=} ;;
		ftplen=*) ftplen=${kv#*=} ;; tns=*) tns=${kv#*=} ;;
		user=*) user=${kv#*=} ;; metrics=*) metrics=${kv#*=} ;;
		extra=*) extra=${kv#*=} ;;
		esac
	done
	{
		echo "[server]"
		echo "plugin_dir = $PLUG"
		echo "log_level = info"
		echo "control_socket = $SOCK"
		[ -z "$user" ] || echo "user = $user"
		[ -z "$metrics" ] || echo "metrics = $metrics"
		echo "[helper ftp]"
		echo "plugin = ftp"
		echo "family = both"
		echo "queue = $ftpq"
		echo "queue_len = $ftplen"
		echo "policy.ftp.max = $ftpmax"
		if [ -n "$tns" ]; then
			echo "[helper tns]"
			echo "plugin = tns"
			echo "family = ipv4"
			echo "queue = $tns"
		fi
		[ -z "$extra" ] || printf '%s\n' "$extra"
	} >"$CONF.new"
	mv "$CONF.new" "$CONF"
}

# The plugins as an operator installs them: root-owned, not writable by
# others (the loader refuses anything else).
plugins_install() {
	rm -rf "$PLUG"
	install -d -m 0755 "$PLUG"
	install -m 0644 "$BUILD"/plugins/*.so "$PLUG/"
}

# kstate NAME: the ipv4/tcp kernel helper NAME as the kernel reports it
# (tests/kmod/cthnl.py dump: nfct(8) does not print the policy), as
# "queue=Q status=S classes=C/MAX/TIMEOUT", or "absent".
kstate() {
	local line
	line=$("$PY" "$REPO/tests/kmod/cthnl.py" dump 2>&1 | grep "^$1 l3=2 l4=6 ")
	[ -n "$line" ] || { echo absent; return; }
	sed 's/.* \(queue=[0-9]*\) \(status=[0-9]*\) priv=[0-9]* \(classes=.*\)/\1 \2 \3/' <<<"$line"
}

ctl_json() { $CTL -j stats 2>/dev/null; }
json_get() { "$PY" -c "import json,sys; d=json.load(sys.stdin); print($1)"; }

# case_start CASE [CONF WORDS...]: write the configuration, start the
# daemon, attach the helper; 1 (and the case reported as not run) if not.
case_start() {
	local c=$1
	shift
	progress "$c"
	conf_write "$@"
	cth_start "$LOGS/$c.log" "$CONF" ftp 2 && topo_ct_add ftp && return 0
	verdict "$c" "not run: ${START_WHY:-CT rules failed}"
	show_tail "$LOGS/$c.log" 10
	topo_ct_del
	stop_cthelperd
	return 1
}

# case_done CASE WHY: the end of every case that started the daemon: CT
# rules out, SIGTERM, then a clean stop must leave no helper registered.
case_done() {
	local c=$1 why=$2
	topo_ct_del
	stop_cthelperd
	[ "$STOP_RC" = 0 ] || why="${why:+$why; }exit status $STOP_RC at stop"
	[ -z "$(nfct_helpers | grep -E 'name = (ftp|tns),')" ] ||
		why="${why:+$why; }helpers left after stop: $(nfct_helpers | grep -E 'name = (ftp|tns),' | tr '\n' ' ')"
	verdict "$c" "$why"
	[ -z "$why" ] || show_tail "$LOGS/$c.log" 20
}

# ------------------------------------------------------------ reload under load

LOAD_PID=
load_start() {
	rm -f "$W/load.stop" "$W/load.out"
	(
		local n=0 mode
		while [ ! -e "$W/load.stop" ]; do
			n=$((n + 1))
			if ((n % 2)); then mode=pasv; else mode=port; fi
			if ftp_session $mode; then
				echo "OK $n $mode"
			else
				echo "FAIL $n $mode: $OUT"
			fi
		done >>"$W/load.out"
	) &
	LOAD_PID=$!
}
load_stop() {
	touch "$W/load.stop"
	[ -z "$LOAD_PID" ] || wait "$LOAD_PID"
	LOAD_PID=
}

# The ten configurations, in order: what each changes.
RELOAD_STEPS=(
	"tns=1"                          # add a second helper on a new queue
	"tns=1 ftpmax=3"                 # change a policy
	"tns=1 ftpmax=3 ftpq=2"          # move ftp to another (new) queue
	"ftpmax=3 ftpq=2"                # remove the second helper (queue 1 goes)
	"ftpmax=3"                       # ftp back to queue 0 (queue 2 goes)
	"ftpmax=3 tns=0"                 # add tns again, sharing queue 0
	"ftpmax=3 tns=0 ftplen=2048"     # change the shared queue's length
	"ftpmax=3 ftplen=2048"           # remove tns again
	"ftplen=2048"                    # policy back
	""                               # the start configuration
)

case_reload_under_load() {
	local c=reload-under-load why="" i step rc want_q want_max tq got st sessions bad
	case_start $c || return
	load_start
	nap 2
	for i in $(seq 0 $((RELOADS - 1))); do
		step=${RELOAD_STEPS[$i]}
		# shellcheck disable=SC2086  # the step's words
		conf_write $step
		if ((i % 2)); then
			kill -HUP "$CTH_PID"
			rc=0
			for _ in $(seq 1 50); do
				$CTL status 2>/dev/null | grep -q "(reloads: $((i + 1)))" && break
				sleep 0.1
			done
		else
			$CTL reload >"$W/reload.out" 2>&1
			rc=$?
		fi
		st=$($CTL status 2>&1)
		grep -q "^last reload .* ok: .*(reloads: $((i + 1)))$" <<<"$st" && [ "$rc" = 0 ] ||
			why="${why:+$why; }reload $((i + 1)) ($step): exit $rc, status: $(grep '^last reload' <<<"$st")"
		want_q=0 want_max=1 tq=$(sed -n 's/.*tns=\([0-9]*\).*/\1/p' <<<"$step")
		[[ $step == *ftpq=2* ]] && want_q=2
		[[ $step == *ftpmax=3* ]] && want_max=3
		got=$(kstate ftp)
		[ "$got" = "queue=$want_q status=1 classes=ftp/$want_max/300" ] ||
			why="${why:+$why; }after reload $((i + 1)) the kernel's ftp helper is '$got', want queue $want_q, max $want_max"
		got=$(kstate tns)
		if [ -n "$tq" ]; then
			[[ $got == "queue=$tq status=1 "* ]] ||
				why="${why:+$why; }after reload $((i + 1)) tns is '$got', want enabled on queue $tq"
		else
			# removed: disabled (deleted at stop), or never there
			[[ $got == absent || $got == *status=0* ]] ||
				why="${why:+$why; }after reload $((i + 1)) tns is '$got', want disabled"
		fi
		nap 1
	done
	nap 2
	load_stop
	sessions=$(grep -c '^OK' "$W/load.out")
	bad=$(grep -c '^FAIL' "$W/load.out")
	say "$c: $sessions sessions passed, $bad failed during $RELOADS reloads"
	[ "$bad" = 0 ] || why="${why:+$why; }$bad of $((sessions + bad)) sessions failed: $(grep -m 2 '^FAIL' "$W/load.out" | tr '\n' ' ')"
	[ "$sessions" -ge "$RELOADS" ] || why="${why:+$why; }only $sessions sessions ran during the reloads"
	local j
	j=$(ctl_json)
	local qerr
	qerr=$(json_get "sum(q['verdict_errors'] + q['parse_errors'] for q in d['queues'])" <<<"$j" 2>&1)
	[ "$qerr" = 0 ] || why="${why:+$why; }verdict or parse errors: $qerr"
	qerr=$(json_get "sum(q.get('kernel', {}).get('dropped', 0) + q.get('kernel', {}).get('user_dropped', 0) + q.get('kernel', {}).get('waiting', 0) for q in d['queues'])" <<<"$j" 2>&1)
	[ "$qerr" = 0 ] || why="${why:+$why; }the kernel dropped or still holds queued packets: $qerr ($(tr '\n' ' ' </proc/net/netfilter/nfnetlink_queue))"
	# every packet the kernel queued (id_sequence) reached the daemon
	qerr=$(json_get "' '.join('q%s:%s/%s' % (q['queue'], q['packets'], q.get('kernel', {}).get('queued')) for q in d['queues'] if q['packets'] != q.get('kernel', {}).get('queued'))" <<<"$j" 2>&1)
	[ -z "$qerr" ] || why="${why:+$why; }packets answered / queued by the kernel differ: $qerr"
	grep -qE 'refused a verdict|verdict for packet' "$LOGS/$c.log" &&
		why="${why:+$why; }the daemon logged a lost verdict: $(grep -m 1 -E 'refused a verdict|verdict for packet' "$LOGS/$c.log")"
	case_done $c "$why"
}

# ------------------------------------------------------------ broken reloads

# broken_try WHAT HOW WORDS...: write the broken config (already done),
# reload by HOW (ctl|hup), expect refusal mentioning every WORD; then the
# old configuration must still serve.
broken_try() {
	local what=$1 how=$2 out rc w n
	shift 2
	n=$($CTL status 2>/dev/null | sed -n 's/.*(reloads: \([0-9]*\)).*/\1/p')
	if [ "$how" = ctl ]; then
		out=$($CTL reload 2>&1)
		rc=$?
		[ "$rc" = 1 ] || BWHY="${BWHY:+$BWHY; }$what: cthelperctl reload exit $rc (want 1): $(head -c 200 <<<"$out")"
	else
		kill -HUP "$CTH_PID"
		for _ in $(seq 1 50); do
			$CTL status 2>/dev/null | grep -q "(reloads: $((${n:-0} + 1)))" && break
			sleep 0.1
		done
		out=$(cat "$LOGS/reload-broken.log")
	fi
	for w in "$@"; do
		grep -qF -- "$w" <<<"$out" || BWHY="${BWHY:+$BWHY; }$what: the answer lacks '$w': $(tail -c 300 <<<"$out" | tr '\n' '|')"
	done
	$CTL status 2>&1 | grep -q '^last reload .* failed: ' ||
		BWHY="${BWHY:+$BWHY; }$what: status does not show a failed reload"
	$CTL status 2>&1 | grep -qE '^  ftp +plugin ftp 1\.0\.0, .*queue 0$' ||
		BWHY="${BWHY:+$BWHY; }$what: status no longer shows the old ftp helper"
	[ "$(kstate ftp)" = "queue=0 status=1 classes=ftp/1/300" ] ||
		BWHY="${BWHY:+$BWHY; }$what: the kernel's ftp helper is now '$(kstate ftp)'"
	ftp_session port || BWHY="${BWHY:+$BWHY; }$what: FTP after the refused reload: $OUT"
}

case_reload_broken() {
	local c=reload-broken line
	BWHY=""
	case_start $c || return
	conf_write extra="this line is not valid"
	line=$(wc -l <"$CONF")
	broken_try "syntax error" ctl "$CONF:$line: syntax error"
	conf_write extra="$(printf '[helper ghost]\nplugin = nosuch')"
	line=$(($(wc -l <"$CONF") - 1))
	broken_try "missing plugin" ctl "$CONF:$line: helper 'ghost'" "nosuch.so"
	install -m 0644 "$BUILD/tests/bad/bad_abi.so" "$PLUG/bad_abi.so"
	conf_write extra="$(printf '[helper old]\nplugin = bad_abi')"
	line=$(($(wc -l <"$CONF") - 1))
	broken_try "wrong ABI" ctl "$CONF:$line: helper 'old'" "ABI version 99"
	rm -f "$PLUG/bad_abi.so"
	conf_write extra="$(printf '[helper ftp]\nplugin = ftp')"
	broken_try "duplicate helper, by SIGHUP" hup "$CONF:" "already defined"
	conf_write
	sed -i "s|^control_socket = .*|control_socket = /run/other.sock|" "$CONF"
	broken_try "control_socket changed" ctl "control_socket changed" "restart"
	case_done $c "$BWHY"
}

# ------------------------------------------------------------ plugin replaced

case_plugin_replace() {
	local c=plugin-replace why="" sync=$W/sync st
	case_start $c || return
	rm -rf "$sync"
	mkdir -p "$sync"
	# one session, two PORT transfers, paused in between
	{ ftp_session port --transfers 2 --sync-dir "$sync" --pause-timeout 60; echo "$OUT"; } \
		>"$W/replace.out" &
	local cpid=$!
	for _ in $(seq 1 150); do [ -e "$sync/paused.1" ] && break; sleep 0.2; done
	if [ ! -e "$sync/paused.1" ]; then
		why="the session did not finish its first transfer"
	else
		# a new file renamed over the old one: the old stays mapped
		install -m 0644 "$BUILD/tests/ftp-next/ftp.so" "$PLUG/.ftp.so.new"
		mv -f "$PLUG/.ftp.so.new" "$PLUG/ftp.so"
		$CTL reload >"$W/reload.out" 2>&1 || why="reload refused: $(tr '\n' ' ' <"$W/reload.out")"
		st=$($CTL status 2>&1)
		grep -qE '^  ftp +plugin ftp 1\.0\.1-next, ' <<<"$st" ||
			why="${why:+$why; }status does not show the new version: $(grep -E '^  ftp' <<<"$st")"
		grep -q 'ftp plugin ftp 1.0.1-next, was ftp 1.0.0' <<<"$st" ||
			why="${why:+$why; }the reload summary does not name the new version: $(grep '^last reload' <<<"$st")"
	fi
	touch "$sync/go.1"
	wait "$cpid"
	OUT=$(cat "$W/replace.out")
	[[ $OUT == OK* ]] || why="${why:+$why; }the session spanning the reload: ${OUT:-no output}"
	plugins_install
	case_done $c "$why"
}

# ------------------------------------------------------------ privilege drop

# proc_caps PID: "uid capeff" of every thread of PID, one per line.
proc_caps() {
	local t
	for t in /proc/"$1"/task/*; do
		awk '/^Uid:/ { u = $2 } /^CapEff:/ { e = $2 } END { print u, e }' "$t/status"
	done
}

case_privdrop() {
	local c=privdrop why="" caps
	case_start $c user=nobody || return
	caps=$(proc_caps "$CTH_PID" | sort -u)
	[ "$caps" = "65534 0000000000001000" ] ||
		why="threads' uid and effective capabilities: $(tr '\n' ' ' <<<"$caps") (want 65534 0000000000001000)"
	ftp_session port || why="${why:+$why; }FTP as nobody: $OUT"
	conf_write user=nobody tns=1
	$CTL reload >"$W/reload.out" 2>&1 || why="${why:+$why; }reload as nobody: $(tr '\n' ' ' <"$W/reload.out")"
	[[ $(kstate tns) == "queue=1 status=1 "* ]] || why="${why:+$why; }tns after the reload: '$(kstate tns)'"
	caps=$(proc_caps "$CTH_PID" | sort -u)
	[ "$caps" = "65534 0000000000001000" ] ||
		why="${why:+$why; }after the reload (a new queue thread): $(tr '\n' ' ' <<<"$caps")"
	ftp_session pasv || why="${why:+$why; }FTP after the reload: $OUT"
	case_done $c "$why"
}

# ------------------------------------------------------------ metrics

case_metrics() {
	local c=metrics why="" body ctl
	case_start $c metrics=127.0.0.1:9469 || return
	ftp_session pasv || why="FTP: $OUT"
	nap 0.5
	body=$(curl -sS --max-time 10 -D "$W/metrics.hdr" http://127.0.0.1:9469/metrics 2>&1)
	ctl=$($CTL stats --prometheus 2>&1)
	grep -qi '^content-type: text/plain; version=0.0.4' "$W/metrics.hdr" ||
		why="${why:+$why; }content type: $(grep -i '^content-type' "$W/metrics.hdr")"
	grep -q '^cthelperd_expectations_created_total{helper="ftp"} 1$' <<<"$body" ||
		why="${why:+$why; }/metrics lacks expectations_created 1: $(head -c 300 <<<"$body")"
	[ "$(grep '^cthelperd_payload_packets_total' <<<"$body")" = "$(grep '^cthelperd_payload_packets_total' <<<"$ctl")" ] ||
		why="${why:+$why; }/metrics and cthelperctl disagree"
	promtool check metrics <<<"$body" >"$W/promtool.out" 2>&1 ||
		why="${why:+$why; }promtool check metrics refuses /metrics: $(head -c 300 "$W/promtool.out")"
	[ "$(curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:9469/other)" = 404 ] ||
		why="${why:+$why; }/other is not 404"
	case_done $c "$why"
}

# ------------------------------------------------------------ release after an edit

# The kernel helper a crashed daemon registered is released even when the
# configuration no longer names it: the record (server/kernel/record.c) does.
case_release_record() {
	local c=release-record why="" rec
	case_start $c || return
	conf_write tns=1
	$CTL reload >"$W/reload.out" 2>&1 || why="reload adding tns: $(tr '\n' ' ' <"$W/reload.out")"
	[[ $(kstate tns) == "queue=1 status=1 "* ]] || why="${why:+$why; }tns after the reload: '$(kstate tns)'"
	rec=$(grep -l '^tns ipv4 tcp 1$' /run/cthelperd/helpers/cthelperd.conf.* 2>/dev/null | head -n 1)
	[ -n "$rec" ] || why="${why:+$why; }no record naming tns in /run/cthelperd/helpers: $(cat /run/cthelperd/helpers/* 2>&1 | tr '\n' ' ')"
	topo_ct_del
	kill_cthelperd
	[[ $(kstate tns) == "queue=1 status=1 "* ]] ||
		why="${why:+$why; }after kill -9 tns is not left enabled (the premise): '$(kstate tns)'"
	conf_write
	"$CTHELPERD" --release -c "$CONF" >"$LOGS/$c-release.log" 2>&1 ||
		why="${why:+$why; }--release exit $?: $(tail -n 3 "$LOGS/$c-release.log" | tr '\n' ' ')"
	[ -z "$(nfct_helpers | grep -E 'name = (ftp|tns),')" ] ||
		why="${why:+$why; }after --release with tns edited out: $(nfct_helpers | grep -E 'name = (ftp|tns),' | tr '\n' ' ')"
	grep -q "helper 'tns' (ipv4/tcp): not in" "$LOGS/$c-release.log" ||
		why="${why:+$why; }--release did not name tns as recorded"
	[ -z "$rec" ] || [ ! -e "$rec" ] || why="${why:+$why; }record $rec left after a complete release"
	delete_user_helpers "ftp tns" tcp >/dev/null 2>&1
	verdict $c "$why"
	[ -z "$why" ] || { show_tail "$LOGS/$c.log" 15; show_tail "$LOGS/$c-release.log" 15; }
}

# ------------------------------------------------------------ installed

# usr_local_install CASE: the installed tree at /usr/local (a tmpfs over
# the host's, read-only here); 1 and the case reported when it cannot be.
usr_local_install() {
	if [ ! -x "${OPS_INST:-/nonexistent}/usr/local/sbin/cthelperd" ]; then
		verdict "$1" "not run: no installed tree at ${OPS_INST:-(OPS_INST unset)}"
		return 1
	fi
	mount -t tmpfs tmpfs /usr/local || { verdict "$1" "cannot mount a tmpfs on /usr/local"; return 1; }
	cp -a "$OPS_INST/usr/local/." /usr/local/
}

case_installed() {
	local c=installed why="" unit cmd
	progress "$c"
	usr_local_install $c || return
	unit=/usr/local/lib/systemd/system/cthelperd.service
	local saved=$CTHELPERD
	CTHELPERD=/usr/local/sbin/cthelperd
	if ! cth_start "$LOGS/$c.log" /usr/local/etc/cthelperd.conf ftp 2 || ! topo_ct_add ftp; then
		why="the installed daemon did not start: ${START_WHY:-CT rules failed}"
	else
		ftp_session pasv || why="FTP through the installed daemon: $OUT"
		ftp_session port || why="${why:+$why; }FTP (PORT) through the installed daemon: $OUT"
		kill_cthelperd
		[ "$(nfct_helpers | grep -c 'name = ftp,.*status = enabled')" = 2 ] ||
			why="${why:+$why; }after kill -9 the helpers are not left enabled (the premise): $(nfct_helpers | tr '\n' ' ')"
		if [ ! -f "$unit" ]; then
			why="${why:+$why; }$unit not installed"
		else
			# as systemd runs it: "$$" is its escape for "$", and
			# EXIT_CODE says how the main process ended
			cmd=$(sed -n 's/^ExecStopPost=[-@+!:]*//p' "$unit" | head -n 1 | sed 's/\$\$/$/g')
			say "$c: running the unit's ExecStopPost: $cmd"
			[ -n "$cmd" ] || why="${why:+$why; }$unit has no ExecStopPost"
			EXIT_CODE=exited EXIT_STATUS=0 sh -c "$cmd" >"$LOGS/$c-stoppost.log" 2>&1
			[ "$(nfct_helpers | grep -c 'name = ftp,.*status = enabled')" = 2 ] ||
				why="${why:+$why; }ExecStopPost after a clean exit (EXIT_CODE=exited) touched the helpers"
			[ -z "$cmd" ] || EXIT_CODE=killed EXIT_STATUS=KILL sh -c "$cmd" >>"$LOGS/$c-stoppost.log" 2>&1 ||
				why="${why:+$why; }ExecStopPost failed: $(tail -n 3 "$LOGS/$c-stoppost.log" | tr '\n' ' ')"
			[ "$(nfct_helpers | grep -c 'name = ftp,.*status = enabled')" = 0 ] ||
				why="${why:+$why; }after ExecStopPost a helper is still enabled: $(nfct_helpers | tr '\n' ' ')"
		fi
	fi
	CTHELPERD=$saved
	topo_ct_del
	stop_cthelperd
	delete_user_helpers ftp tcp >/dev/null 2>&1
	umount /usr/local
	verdict $c "$why"
	[ -z "$why" ] || show_tail "$LOGS/$c.log" 15
}

# ------------------------------------------------------------ under systemd

# systemd as PID 1 of a namespace: systemd_boot, sd, systemd_down
# (tests/lib/systemd.sh)
ftp_enabled() { nfct_helpers | grep -c 'name = ftp,.*status = enabled'; }

case_systemd_unit() {
	local c=systemd-unit why="" st _
	progress "$c"
	usr_local_install $c || return
	if ! systemd_boot; then
		verdict $c "not run: systemd did not come up as PID 1 of a PID namespace: is-system-running: $SD_STATE; $(tail -n 5 "$LOGS/systemd.log" | tr '\n' '|')"
		systemd_down
		umount /usr/local
		return
	fi
	say "$c: systemd $(sd systemctl --version | head -n 1) is PID 1 of its namespace"
	# the journal, for the daemon's log (volatile, in the namespace's /run)
	sd systemctl start systemd-journald.socket systemd-journald.service >"$W/sd.out" 2>&1 ||
		say "$c: no journal: $(tr '\n' ' ' <"$W/sd.out")"
	# Type=notify: start returns once READY=1 came
	sdt systemctl start cthelperd >"$W/sd.out" 2>&1 ||
		why="systemctl start: $(tr '\n' ' ' <"$W/sd.out") $(sd systemctl status cthelperd 2>&1 | tail -n 8 | tr '\n' '|')"
	st=$(sd systemctl show -p ActiveState -p SubState -p StatusText cthelperd 2>&1 | tr '\n' ' ')
	say "$c: after start: $st"
	[[ $st == *ActiveState=active* ]] || why="${why:+$why; }not active after start: $st"
	[ "$(ftp_enabled)" = 2 ] || why="${why:+$why; }helpers after start: $(nfct_helpers | tr '\n' ' ')"
	if [ -z "$why" ] && topo_ct_add ftp; then
		ftp_session pasv || why="FTP through the unit's daemon: $OUT"
		sdt systemctl reload cthelperd >"$W/sd.out" 2>&1 ||
			why="${why:+$why; }systemctl reload: $(tr '\n' ' ' <"$W/sd.out")"
		for _ in $(seq 1 50); do
			st=$(sd systemctl show -p StatusText --value cthelperd 2>&1)
			[[ $st == *"helper(s) on"* ]] && break
			sleep 0.2
		done
		say "$c: status text after reload: $st"
		[[ $st == *"helper(s) on"* ]] || why="${why:+$why; }no reload result in the unit's status text: '$st'"
		ftp_session port || why="${why:+$why; }FTP after systemctl reload: $OUT"
		# a crash: ExecStopPost with EXIT_CODE=killed releases the helpers
		sd systemctl kill -s KILL cthelperd
		for _ in $(seq 1 50); do
			[ "$(ftp_enabled)" = 0 ] && break
			sleep 0.2
		done
		st=$(sd systemctl show -p Result -p ExecMainCode cthelperd 2>&1 | tr '\n' ' ')
		say "$c: after kill -9: $st"
		[ "$(ftp_enabled)" = 0 ] || why="${why:+$why; }after systemctl kill -s KILL a helper is still enabled: $(nfct_helpers | tr '\n' ' ')"
		# a clean stop: the daemon removes its helpers itself
		sd systemctl reset-failed cthelperd 2>/dev/null
		sdt systemctl start cthelperd >"$W/sd.out" 2>&1 ||
			why="${why:+$why; }second start: $(tr '\n' ' ' <"$W/sd.out")"
		topo_ct_del
		sdt systemctl stop cthelperd >"$W/sd.out" 2>&1 ||
			why="${why:+$why; }systemctl stop: $(tr '\n' ' ' <"$W/sd.out")"
		[ -z "$(nfct_helpers | grep 'name = ftp,')" ] ||
			why="${why:+$why; }after systemctl stop: $(nfct_helpers | tr '\n' ' ')"
	fi
	sd journalctl -u cthelperd --no-pager >"$LOGS/$c.log" 2>&1
	[ -z "$why" ] || show_tail "$LOGS/$c.log" 20
	topo_ct_del
	systemd_down
	delete_user_helpers ftp tcp >/dev/null 2>&1
	umount /usr/local
	verdict $c "$why"
}

# ------------------------------------------------------------ the SDK example

# toy_session: one toy-protocol session (tests/lib/toy.py) from the client;
# OUT = "OK <port>" or "ERROR ...".
toy_session() {
	OUT=$(timeout 30 nsenter --net="/run/netns/$TOPO_CL_NS" "$PY" "$REPO/tests/lib/toy.py" \
		client --host "$SV4_DIAL" 2>&1 | tail -n 1)
	[[ $OUT == OK* ]]
}

# sdk/examples/toydata built in the VM against the SDK installed at
# /usr/local (pkg-config alone), then its toy protocol through the
# firewall (only tcp/7000 admitted as NEW): the data connection is blocked
# without the plugin and passes with it, routed and under DNAT.
case_sdk_example() {
	local c=sdk-example why="" mode toy_pid _
	progress "$c"
	usr_local_install $c || return
	rm -rf "$W/toy"
	cp -r "$REPO/sdk/examples/toydata" "$W/toy"
	if ! CTHELPERD=/usr/local/sbin/cthelperd make -C "$W/toy" toydata.so check \
		>"$LOGS/$c-build.log" 2>&1; then
		verdict $c "building the example against the installed SDK failed: $(tail -n 3 "$LOGS/$c-build.log" | tr '\n' ' ')"
		umount /usr/local
		return
	fi
	topo_firewall toy
	rm -f "$W/toy.ready"
	in_server "$PY" "$REPO/tests/lib/toy.py" server --ready "$W/toy.ready" \
		--log "$LOGS/toy-server.log" >>"$LOGS/toy-server.log" 2>&1 &
	toy_pid=$!
	for _ in $(seq 1 50); do [ -e "$W/toy.ready" ] && break; sleep 0.2; done
	printf '[server]\nplugin_dir = %s\nlog_level = info\n[helper toydata]\nplugin = toydata\nmin_port = 1024\n' \
		"$W/toy" >"$W/toy.conf"
	for mode in plain dnat; do
		topo_mode "$mode"
		if toy_session; then
			why="${why:+$why; }$mode: the data connection passed without the plugin ($OUT)"
		elif [[ $OUT != "ERROR data"* ]]; then
			why="${why:+$why; }$mode: without the plugin the control connection failed: $OUT"
		fi
		if ! cth_start "$LOGS/$c-$mode.log" "$W/toy.conf" toydata 2 || ! topo_ct_add toydata; then
			why="${why:+$why; }$mode: cthelperd with toydata.so did not start: ${START_WHY:-CT rules failed}"
		else
			toy_session || why="${why:+$why; }$mode: with the plugin: $OUT"
			say "$c/$mode: with the plugin: $OUT"
		fi
		topo_ct_del
		stop_cthelperd
	done
	kill "$toy_pid" 2>/dev/null
	wait "$toy_pid" 2>/dev/null
	topo_firewall ftp
	topo_mode plain
	delete_user_helpers toydata tcp >/dev/null 2>&1
	umount /usr/local
	verdict $c "$why"
	[ -z "$why" ] || show_tail "$LOGS/$c-plain.log" 10
}

# ------------------------------------------------------------ main

# shellcheck disable=SC2317  # runs from the EXIT trap
cleanup() {
	suite_cleanup
	[ -n "$LOAD_PID" ] && touch "$W/load.stop"
	[ -n "$SD_PID" ] && kill -KILL "$SD_PID" 2>/dev/null
	cp "$W"/*.out "$LOGS/" 2>/dev/null
}
trap cleanup EXIT

progress "topology"
suite_topology e2e-ops ftp
topo_mode plain
plugins_install
if ! ftp_server_start --size 65536; then
	echo "FAIL e2e-ops/ftp-server: the test FTP server did not start"
	exit 0
fi
for c in "${CASES[@]}"; do
	want "$c" || continue
	# a case that failed may leave its helpers: each case starts clean
	clean_slate || { delete_user_helpers "ftp tns" tcp >/dev/null; clean_slate; } ||
		{ verdict "$c" "not run: $START_WHY"; continue; }
	"case_${c//-/_}"
done
topo_teardown
exit 0
