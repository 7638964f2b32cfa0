#!/bin/bash
# Oracle TNS and SunRPC end-to-end cases, run inside the test VM by
# tests/tnsrpc/run.sh (one boot for everything).  Each case runs against
# each helper implementation:
#
#   none        no helper, no CT rule: the follow-up connection (the one a
#               TNS redirect or a portmapper answer announces) must be
#               blocked (the firewall works); counted: e2e-tnsrpc/none/<case>
#   cthelperd   $CTH_BUILD/cthelperd with the tns and rpc plugins;
#               counted: e2e-tnsrpc/cthelperd/<case>
#   conntrackd  conntrackd's helper mode with conntrack-tools' tns and rpc
#               helpers: the reference; its failures are "NOTE
#               conntrackd/<case>: ..." lines and table cells, not counted
#
# Clients and servers: tests/lib/tns.py (a TNS listener that redirects,
# and a client agent), Debian's rpcbind with tests/lib/rpc.py's test
# service registered, tests/lib/rpc.py's client agent and Debian's rpcinfo.
# The agents are started once (python starts are slow under TCG) and take
# one command per case.  tests/tnsrpc/README.md has the table of cases.
#
# Usage: inside.sh [IMPL...]   (default: none cthelperd conntrackd)
# Environment: CTH_BUILD = the daemon's build dir (default build; relative
# to the repo); TNSRPC_ONLY = an extended regex: only the cases whose name
# matches run (the others show "-").
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/lib/vmsuite.sh
. tests/lib/vmsuite.sh
suite_init tnsrpc

TNSPY=$REPO/tests/lib/tns.py
RPCPY=$REPO/tests/lib/rpc.py
# NFQUEUE numbers: cthelperd's tns and rpc helpers, conntrackd's tns, rpc
# tcp and rpc udp (tests/tnsrpc/conntrackd.conf)
CTH_QTNS=2 CTH_QRPC=3
CTD_QTNS=4 CTD_QRPC_TCP=5 CTD_QRPC_UDP=6
# How long a client command may take (ms): the slowest is a blocked case
# (a 2.5 s connect or 2 s of NULL calls after a query of up to 4 s).
CMD_WAIT=15000
# rpcinfo's own bound under "timeout": its UDP NULL call retries for much
# longer, a blocked TCP connect for minutes.
RPCINFO_TIMEOUT=4
# the detach check: messages on the first TNS connection once the
# redirect is followed, and how many of them (and their echoes) may still
# be queued when the plugin detached
DETACH_MSGS=20
DETACH_ALLOW=2
# test programs 400101.. registered with rpcbind, each on UDP and TCP: one
# per rpc case (the 400NNN of CASES), so that a leftover expectation of one
# case cannot let another pass
RPC_PROGS=12

IMPLS=("$@")
[ ${#IMPLS[@]} -gt 0 ] || IMPLS=(none cthelperd conntrackd)
check_impls e2e-tnsrpc none cthelperd conntrackd

# name  mode  what (tns VARIANT FOLLOW-PORT | detach yes|no | rpc ARGS | rpcinfo -u|-t PROG)
CASES=(
	"tns-inline plain tns inline 5001"
	"tns-split-data plain tns split 5002"
	"tns-mixed-case plain tns mixed 5003"
	"tns-masq-client masq tns inline 5004"
	"tns-dnat-server dnat tns inline 5005"
	"tns-v6 plain tns inline 5008 6"
	"tns-detach-queue plain detach yes 5006"
	"tns-nodetach-queue plain detach no 5007"
	"rpc-getport-udp-udp plain rpc getport udp 400101 udp"
	"rpc-getport-udp-tcp plain rpc getport udp 400102 tcp"
	"rpc-getport-tcp plain rpc getport tcp 400103 tcp"
	"rpc-getaddr4-udp plain rpc getaddr udp 400104 udp"
	"rpc-getaddr4-tcp plain rpc getaddr tcp 400105 tcp"
	"rpcinfo-udp plain rpcinfo -u 400106"
	"rpcinfo-tcp plain rpcinfo -t 400107"
	"rpc-getaddr4-udp-dnat dnat rpc getaddr udp 400108 udp"
	"rpc-getaddr4-tcp-dnat dnat rpc getaddr tcp 400109 tcp"
	"rpc-getport-udp-dnat dnat rpc getport udp 400110 tcp"
	"rpc-getport-udp-masq masq rpc getport udp 400111 udp"
	"rpcinfo-udp-dnat dnat rpcinfo -u 400112"
)
declare -A CELL    # CELL[impl/case] = text for the table
declare -A COLNAME=([none]="no helper" [cthelperd]=cthelperd [conntrackd]="conntrackd 1.4.7")
want() { [ -z "${TNSRPC_ONLY:-}" ] || [[ $1 =~ ^($TNSRPC_ONLY)$ ]]; }

# ------------------------------------------------------------ reporting

# verdict IMPL CASE WHY: the PASS/FAIL line (none, cthelperd) or the NOTE
# line (conntrackd: reported, not counted) and the table cell (unless the
# caller set it).
verdict() {
	local impl=$1 case=$2 why=$3
	[ -n "${CELL[$impl/$case]:-}" ] || CELL[$impl/$case]=$([ -z "$why" ] && echo PASS || echo FAIL)
	if [ "$impl" = conntrackd ]; then
		[ -z "$why" ] || echo "NOTE conntrackd/$case: $why$(known_cause "$case")"
		return
	fi
	if [ -z "$why" ]; then
		echo "PASS e2e-tnsrpc/$impl/$case"
	else
		echo "FAIL e2e-tnsrpc/$impl/$case: $why"
	fi
}

# Why conntrackd 1.4.7 fails some cases: read in conntrack-tools' source
# (src/helpers/tns.c, rpc.c) and seen in this VM.  Quoted only for that
# version and when the case failed.
CTD_VERSION=$(conntrackd -v 2>/dev/null | grep -o 'daemon v[0-9][0-9.]*[0-9]' | head -n 1)
known_cause() {
	[ "$CTD_VERSION" = "daemon v1.4.7" ] || return 0
	case $1 in
	tns-split-data) echo " (known: for the DATA packet after a 0-length REDIRECT it starts its string search at the DATA packet's 2-byte data flags, zeros here, and a C string search stops at the first zero byte: no descriptor found)" ;;
	tns-mixed-case) echo " (known: it searches the literal, case-sensitive 'HOST=' and 'PORT=')" ;;
	tns-dnat-server) echo " (known: it rewrites the descriptor to the dialled address, but its expectation (conntrack -E expect) is for the server's own address and port, which the client does not dial: the follow-up ends at the router)" ;;
	tns-v6) echo " (known: its tns parser reads only a dotted IPv4 HOST=; the suite registers it for inet only, so nothing helps IPv6)" ;;
	tns-detach-queue) echo " (known: it never detaches: every later packet of the first connection is queued)" ;;
	rpc-getport-*-dnat) echo " (known: its expectation, to the dialled address and port, carries no NAT: the follow-up is RELATED but not sent on to the server; the router itself refuses it)" ;;
	rpc-getaddr4-*|rpcinfo-*) echo " (known: it parses only portmapper v2 GETPORT (program 100000, version 2, procedure 3); an rpcbind v3/v4 GETADDR, which is what rpcinfo (libtirpc) sends, creates nothing)" ;;
	esac
}

# The kernel's view after a failed case, the expectations created during
# it and the helper's log.
diagnose() {
	local impl=$1
	echo "  --- conntrack -L (udp, tcp)"
	timeout 10 conntrack -L 2>/dev/null | grep -E '^(udp|tcp)' | tr -s ' ' | sed 's/^/  | /'
	echo "  --- conntrack -L expect"
	timeout 10 conntrack -L expect 2>/dev/null | tr -s ' ' | sed 's/^/  | /'
	echo "  expectations created during the case: $(events_since_mark)"
	case $impl in
	cthelperd)
		show_tail "$LOGS/cthelperd.log" 15
		[ -z "$CTH_PID" ] || kill -0 "$CTH_PID" 2>/dev/null || echo "  cthelperd is no longer running" ;;
	conntrackd)
		show_tail /tmp/conntrackd-tnsrpc.log 8 ;;
	esac
}

# Packets each queue got so far: id_sequence (8th field) of every line of
# /proc/net/netfilter/nfnetlink_queue, into QSEQ[queue].
declare -A QSEQ
read_queues() {
	local line f
	QSEQ=()
	while read -r -a f; do
		[ ${#f[@]} -ge 8 ] && QSEQ[${f[0]}]=${f[7]}
	done </proc/net/netfilter/nfnetlink_queue
}
# queue_mark, then queued_since: QUEUED = "qN=+D ..." for the current
# implementation's queues (IMPL_QUEUES) since the mark; QDELTA[queue] = D.
declare -A QBEFORE QDELTA
queue_mark() {
	local q
	read_queues
	QBEFORE=()
	for q in "${!QSEQ[@]}"; do QBEFORE[$q]=${QSEQ[$q]}; done
}
queued_since() {
	local q out=()
	read_queues
	QDELTA=()
	for q in $IMPL_QUEUES; do
		QDELTA[$q]=$(( ${QSEQ[$q]:-0} - ${QBEFORE[$q]:-0} ))
		out+=("q$q=+${QDELTA[$q]}")
	done
	QUEUED=${out[*]:-none}
}

# ------------------------------------------------------------ agents

# agent_start NAME NS CMD...: a long-lived process in netns NS whose stdin
# is the FIFO $W/NAME.in (fd in AGENT_FD[NAME]) and whose stdout is
# $W/NAME.out; waits up to 30 s for its "ready" line.
declare -A AGENT_FD AGENT_PID
agent_start() {
	local name=$1 ns=$2 fd
	shift 2
	rm -f "$W/$name.in" "$W/$name.out"
	mkfifo "$W/$name.in" || return 1
	exec {fd}<>"$W/$name.in"
	AGENT_FD[$name]=$fd
	nsenter --net="/run/netns/$ns" "$@" <"$W/$name.in" >"$W/$name.out" 2>&1 &
	AGENT_PID[$name]=$!
	if ! wait_line "$W/$name.out" '^ready' 30000; then
		echo "FAIL e2e-tnsrpc/$name: did not start: $(tail -n 5 "$W/$name.out" | tr '\n' ' ')"
		return 1
	fi
}

# agent_cmd NAME ID CMD...: send one command, wait for "RESULT ID ...";
# sets RESULT (the line without "RESULT ID ") or returns 1.
agent_cmd() {
	local name=$1 id=$2
	shift 2
	echo "$*" >&"${AGENT_FD[$name]}"
	if ! wait_line "$W/$name.out" "^RESULT $id " "$CMD_WAIT"; then
		RESULT="ERROR no answer from the $name agent within $((CMD_WAIT / 1000)) s"
		return 1
	fi
	RESULT=${LINE#RESULT "$id" }
}

# parse_tns / parse_rpc: the fields of the agent's result line (RESULT):
# STATUS host= port= why= desc= (tns.py), STATUS port= uaddr= why= (rpc.py).
parse_tns() {
	R_STATUS=ERROR R_HOST=- R_PORT=- R_WHY=$RESULT R_DESC=
	if [[ $RESULT =~ ^([A-Z]+)\ host=([^ ]*)\ port=([^ ]*)\ why=(.*)\ desc=(.*)$ ]]; then
		R_STATUS=${BASH_REMATCH[1]} R_HOST=${BASH_REMATCH[2]} R_PORT=${BASH_REMATCH[3]}
		R_WHY=${BASH_REMATCH[4]} R_DESC=${BASH_REMATCH[5]}
	fi
}
parse_rpc() {
	R_STATUS=ERROR R_PORT=- R_UADDR=- R_WHY=$RESULT
	if [[ $RESULT =~ ^([A-Z]+)\ port=([^ ]*)\ uaddr=([^ ]*)\ why=(.*)$ ]]; then
		R_STATUS=${BASH_REMATCH[1]} R_PORT=${BASH_REMATCH[2]} R_UADDR=${BASH_REMATCH[3]}
		R_WHY=${BASH_REMATCH[4]}
	fi
}

# ------------------------------------------------------------ cases

# queue_check IMPL tns|rpc: cthelperd's queue of that helper must have got
# the case's packets and the other one none (an expectation that came from
# elsewhere would prove nothing); adds to the caller's "extra".
queue_check() {
	[ "$1" = cthelperd ] || return 0
	local mine=$CTH_QTNS other=$CTH_QRPC
	[ "$2" = rpc ] && mine=$CTH_QRPC other=$CTH_QTNS
	[ "${QDELTA[$mine]:-0}" -gt 0 ] ||
		extra="${extra:+$extra; }nothing reached the $2 helper's queue $mine"
	[ "${QDELTA[$other]:-0}" = 0 ] ||
		extra="${extra:+$extra; }${QDELTA[$other]} packets reached queue $other (the other helper's)"
}

# outcome IMPL CASE STATUS WHY EXTRA: the common verdict for a case whose
# client said OK, BLOCKED or ERROR.  Without a helper BLOCKED is the pass;
# with one, OK and no EXTRA complaint.
outcome() {
	local impl=$1 case=$2 status=$3 why=$4 extra=$5
	if [ "$impl" = none ]; then
		case $status in
		BLOCKED) CELL[$impl/$case]=blocked; verdict none "$case" "" ;;
		OK) CELL[$impl/$case]="PASSED!"
		    verdict none "$case" "the follow-up connection passed without a helper (the firewall does not block): $why" ;;
		*) CELL[$impl/$case]=error; verdict none "$case" "nothing proven: $why" ;;
		esac
		return
	fi
	case $status in
	OK) if [ -n "$extra" ]; then
		[ -n "${CELL[$impl/$case]:-}" ] || CELL[$impl/$case]=FAIL
		verdict "$impl" "$case" "$extra"
	    else
		verdict "$impl" "$case" ""
	    fi ;;
	BLOCKED) CELL[$impl/$case]=blocked; verdict "$impl" "$case" "the follow-up connection was blocked: $why${extra:+; $extra}" ;;
	*) CELL[$impl/$case]=error; verdict "$impl" "$case" "$why${extra:+; $extra}" ;;
	esac
	# conntrackd's failures are reported, not diagnosed (each look costs
	# seconds under TCG)
	[ "$impl" = conntrackd ] || [[ ${CELL[$impl/$case]} == PASS* ]] || diagnose "$impl"
}

# case_tns IMPL CASE VARIANT PORT [6]: CONNECT to the server (dialled: the
# router under dnat), follow the redirect.  The descriptor must reach the
# client as the server sent it (names the server's own address), except
# under dnat, where it must name the address the client dialled.  With 6:
# over IPv6 (conntrackd's helpers are IPv4 only: no CT rule for it).
case_tns() {
	local impl=$1 case=$2 variant=$3 port=$4 fam=${5:-4} id="$1-$2" extra="" host=$SV4 dial=$SV4_DIAL
	[ "$fam" = 6 ] && host=$SV6 dial=$SV6
	events_mark
	queue_mark
	agent_cmd tnsc "$id" tns "$id" "$dial" "$variant" "$port"
	parse_tns
	queued_since
	say "$impl/$case: $R_STATUS; descriptor as received: ${R_DESC:-none}; queued: $QUEUED"
	[ "$TOPO_MODE" = dnat ] && host=$R_CL4
	if [ "$impl" != none ] && [ "$R_STATUS" != ERROR ] && [ "$R_HOST" != "$host" ]; then
		extra="the descriptor names HOST=$R_HOST, want $host"
	fi
	queue_check "$impl" tns
	outcome "$impl" "$case" "$R_STATUS" "$R_WHY" "$extra"
}

# case_detach IMPL CASE yes|no PORT: follow the redirect, then
# DETACH_MSGS DATA messages on the first connection (each echoed).  With
# tns_detach = yes (the cthelperd column's config) at most DETACH_ALLOW of
# those packets may reach the tns queue; with "no" (cthelperd restarted
# with tns_detach = no) at least DETACH_MSGS must.
case_detach() {
	local impl=$1 case=$2 detach=$3 port=$4 id="$1-$2" extra="" q sent n
	events_mark
	queue_mark
	agent_cmd tnsc "$id" tns "$id" "$SV4_DIAL" inline "$port" hold
	parse_tns
	queued_since
	say "$impl/$case: redirect followed: $R_STATUS; queued until then: $QUEUED"
	if [ "$R_STATUS" != OK ]; then
		agent_cmd tnsc "$id.more" more "$id" 0
		outcome "$impl" "$case" "$R_STATUS" "$R_WHY" ""
		return
	fi
	queue_mark
	agent_cmd tnsc "$id.more" more "$id" "$DETACH_MSGS"
	sent=$RESULT
	queued_since
	q=$QUEUED
	n=0
	[ "$impl" = cthelperd ] && n=${QDELTA[$CTH_QTNS]:-0}
	[ "$impl" = conntrackd ] && n=${QDELTA[$CTD_QTNS]:-0}
	say "$impl/$case (tns_detach = $detach): $DETACH_MSGS messages on the first connection: $sent; queued meanwhile: $q"
	if [[ $sent != "SENT $DETACH_MSGS echoed=$DETACH_MSGS"* ]]; then
		extra="the messages on the first connection did not all come back: $sent"
	elif [ "$detach" = yes ] && [ "$n" -gt "$DETACH_ALLOW" ]; then
		extra="$n packets of the first connection were queued after the redirect was followed (detach: at most $DETACH_ALLOW)"
		CELL[$impl/$case]="FAIL ($n queued)"
	elif [ "$detach" = no ] && [ "$n" -lt "$DETACH_MSGS" ]; then
		extra="only $n packets of the first connection were queued after the redirect (tns_detach = no: want at least $DETACH_MSGS)"
		CELL[$impl/$case]="FAIL ($n queued)"
	else
		CELL[$impl/$case]="PASS ($n queued)"
	fi
	outcome "$impl" "$case" "$R_STATUS" "$R_WHY" "$extra"
}

# case_rpc IMPL CASE getport|getaddr VIA PROG PROT: the query to the
# server's rpcbind, then a NULL call to the port it named.
case_rpc() {
	local impl=$1 case=$2 kind=$3 via=$4 prog=$5 prot=$6 id="$1-$2"
	events_mark
	queue_mark
	agent_cmd rpcc "$id" "$kind" "$id" "$SV4_DIAL" "$via" "$prog" "$prot"
	parse_rpc
	queued_since
	say "$impl/$case: $R_STATUS; port $R_PORT, uaddr $R_UADDR; queued: $QUEUED"
	local extra=
	queue_check "$impl" rpc
	outcome "$impl" "$case" "$R_STATUS" "$R_WHY" "$extra"
}

# case_rpcinfo IMPL CASE -u|-t PROG: Debian's rpcinfo in the client ns.
# What it sent is read from rpcbind's debug log and the service's log:
# OK = rpcinfo says "ready and waiting" and the service got the NULL call;
# BLOCKED = rpcbind answered but the NULL call never arrived; ERROR =
# rpcbind never saw the query.
case_rpcinfo() {
	local impl=$1 case=$2 opt=$3 prog=$4 out rc status why saw0 null0 saw null
	events_mark
	queue_mark
	count_lines "$LOGS/rpcbind.log" "req for \($prog, "; saw0=$COUNT
	count_lines "$LOGS/rpc-service.log" "NULL prog $prog"; null0=$COUNT
	# -k: libtirpc blocks every signal while it connects or waits for a
	# reply (a blocked TCP connect held a SIGTERM for its whole SYN retry
	# time, 2 minutes)
	out=$(timeout -k 1 "$RPCINFO_TIMEOUT" nsenter --net="/run/netns/$TOPO_CL_NS" rpcinfo "$opt" "$SV4_DIAL" "$prog" 1 2>&1)
	rc=$?
	count_lines "$LOGS/rpcbind.log" "req for \($prog, "; saw=$((COUNT - saw0))
	count_lines "$LOGS/rpc-service.log" "NULL prog $prog"; null=$((COUNT - null0))
	local seen=() line lines
	mapfile -t lines <"$LOGS/rpcbind.log"
	for line in "${lines[@]}"; do
		[[ $line =~ ([A-Z_]+)\ req\ for\ \(($prog,[^\)]*)\)\ from\ ([^ :]+) ]] &&
			seen+=("${BASH_REMATCH[1]} (${BASH_REMATCH[2]}) from ${BASH_REMATCH[3]}")
	done
	seen=("${seen[@]:$saw0}")
	out=${out//$'\n'/ }
	queued_since
	say "$impl/$case: rpcinfo $opt $SV4_DIAL $prog 1: status $rc: $out; rpcbind saw: ${seen[*]:-nothing}; NULL calls at the service: $null; queued: $QUEUED"
	if [ "$saw" = 0 ]; then
		status=ERROR why="rpcbind never saw rpcinfo's query (status $rc: $out)"
	elif [ "$null" -gt 0 ] && [[ $out == *"ready and waiting"* ]]; then
		status=OK why="the service answered rpcinfo's NULL call"
	else
		status=BLOCKED
		why="rpcinfo's NULL call did not get through (status $rc; NULL calls at the service: $null): $out"
	fi
	local extra=
	queue_check "$impl" rpc
	outcome "$impl" "$case" "$status" "$why" "$extra"
}

# ------------------------------------------------------------ implementations

# write_cthelperd_conf DETACH: the [helper tns] and [helper rpc] sections
# (exactly these names and keys), each on its own queue, debug log.
write_cthelperd_conf() {
	cat >"$W/cthelperd.conf" <<EOF
[server]
plugin_dir = $BUILD/plugins
log_level = debug

[helper tns]
plugin = tns
protocol = tcp
queue = $CTH_QTNS
tns_detach = $1

[helper rpc]
plugin = rpc
protocol = both
queue = $CTH_QRPC
EOF
}

# Delete whatever user-space tns and rpc helpers are left (after
# topo_ct_del!).
delete_helpers() { delete_user_helpers "tns rpc" "tcp udp"; }

# ct_rules FAMILIES: the raw-table rules, tns for tcp/1521, rpc for
# tcp/111 and udp/111.
ct_rules() {
	topo_ct_add_port tns tcp:1521 "$1" &&
	topo_ct_add_port rpc tcp:111 "$1" &&
	topo_ct_add_port rpc udp:111 "$1"
}

# start_cthelperd DETACH: the daemon with tns_detach = DETACH, then the CT
# rules (IPv6 too if it registered IPv6 helpers).
start_cthelperd() {
	local fams=4
	cth_built tns rpc || return 1
	write_cthelperd_conf "$1"
	# rpc: udp and tcp
	cth_start "$LOGS/cthelperd.log" "$W/cthelperd.conf" tns 1 rpc 2 || return 1
	nfct_helpers | grep -q 'name = tns,.*l3protonum = 10,' && fams=46
	ct_rules "$fams" || { START_WHY="CT --helper rules failed"; return 1; }
}

# start_conntrackd: conntrackd's helper mode (IPv4: the queues of
# tests/tnsrpc/conntrackd.conf), then the CT rules.
start_conntrackd() {
	conntrackd_start "$REPO/tests/tnsrpc/conntrackd.conf" \
		"tns inet tcp" "rpc inet tcp" "rpc inet udp" || return 1
	ct_rules 4 || { START_WHY="CT --helper rules failed"; return 1; }
}

# impl_start IMPL: make IMPL the active tns and rpc helper, with the CT
# rules.  Sets START_WHY and IMPL_QUEUES.
impl_start() {
	local impl=$1
	IMPL_QUEUES=''
	clean_slate || return 1
	case $impl in
	none) return 0 ;;
	cthelperd)
		IMPL_QUEUES="$CTH_QTNS $CTH_QRPC"
		start_cthelperd yes ;;
	conntrackd)
		IMPL_QUEUES="$CTD_QTNS $CTD_QRPC_TCP $CTD_QRPC_UDP"
		start_conntrackd ;;
	esac
}

impl_stop() {
	local impl=$1
	# Rules first: deleting a helper a rule still names leaks it (kernel bug).
	topo_ct_del
	case $impl in
	cthelperd) stop_cthelperd ;;
	conntrackd) conntrackd_stop ;;
	esac
	helpers_gone_or_say e2e-tnsrpc "$impl"
}

# restart_cthelperd DETACH: stop, delete the helpers, start again with
# tns_detach = DETACH.
restart_cthelperd() {
	topo_ct_del
	stop_cthelperd
	delete_helpers >/dev/null 2>&1
	topo_flush_conntrack
	START_WHY=
	mv "$LOGS/cthelperd.log" "$LOGS/cthelperd-before-detach-$1.log" 2>/dev/null
	start_cthelperd "$1"
}

run_case() {
	local impl=$1 name=$2 kind=$3
	shift 3
	case $kind in
	tns) case_tns "$impl" "$name" "$@" ;;
	detach) case_detach "$impl" "$name" "$@" ;;
	rpc) case_rpc "$impl" "$name" "$@" ;;
	rpcinfo) case_rpcinfo "$impl" "$name" "$@" ;;
	esac
}

# Issue 16: these cases of the cthelperd column are captured for the
# offline replay (captured in tests/lib/vmsuite.sh; tests/tnsrpc/run.sh
# runs tests/replay/vmcompare.sh on the host after the boot).
REPLAY_CASES="tns-inline tns-masq-client tns-dnat-server rpc-getport-udp-udp rpc-getaddr4-tcp rpc-getaddr4-udp-dnat rpc-getaddr4-tcp-dnat"
# captured_case IMPL CASE KIND ARGS...: run_case, captured, with the
# replay options of its helper: tns on tcp/1521; rpc on 111 over the
# protocol of the case's query (the daemon's rpc helper takes both).
captured_case() {
	local case=$2 kind=$3 plugin opts fam=4
	case $kind in
	tns) plugin=tns opts="-P tcp -p 1521"; [ "${6:-}" != 6 ] || fam=6 ;;
	rpc) plugin=rpc opts="-P $5 -p 111" ;;
	rpcinfo) plugin=rpc opts="-P udp -p 111"; [ "$4" != -t ] || opts="-P tcp -p 111" ;;
	*) run_case "$@"; return ;;
	esac
	captured "$case" "$fam" "$plugin" "$opts" run_case "$@"
}

not_run() {
	local impl=$1 name=$2 why=$3
	CELL[$impl/$name]="n/s"
	if [ "$impl" = conntrackd ]; then
		echo "NOTE conntrackd/$name: not run: $why"
	else
		echo "FAIL e2e-tnsrpc/$impl/$name: not run: $why"
	fi
}

run_impl() {
	local impl=$1 line name mode kind args detach=yes
	impl_begin "$impl" || return
	for line in "${CASES[@]}"; do
		read -r name mode kind args <<<"$line"
		want "$name" || continue
		progress "$impl/$name"
		if [[ $kind == rpc* ]] && [ -n "$RPC_DOWN" ]; then
			not_run "$impl" "$name" "$RPC_DOWN"
			continue
		fi
		# the converse of the detach check needs the daemon with
		# tns_detach = no
		if [ "$impl" = cthelperd ] && [ "$kind" = detach ] && [ "${args%% *}" != "$detach" ]; then
			detach=${args%% *}
			say "cthelperd: restarting with tns_detach = $detach"
			if ! restart_cthelperd "$detach"; then
				not_run "$impl" "$name" "cthelperd with tns_detach = $detach did not start: $START_WHY"
				show_tail "$LOGS/cthelperd.log" 20
				continue
			fi
		fi
		[ "$TOPO_MODE" = "$mode" ] || topo_mode "$mode"
		if [ "$impl" = cthelperd ] && [[ " $REPLAY_CASES " == *" $name "* ]]; then
			# shellcheck disable=SC2086  # args: the case's arguments
			captured_case "$impl" "$name" "$kind" $args
		else
			# shellcheck disable=SC2086
			run_case "$impl" "$name" "$kind" $args
		fi
	done
	events_stop
	impl_stop "$impl"
	if [ "$impl" = conntrackd ] && [ -s "$LOGS/conntrackd.log" ]; then
		grep -iE 'error|fail' "$LOGS/conntrackd.log" | head -n 5 | sed 's/^/  conntrackd.log: /'
	fi
}

print_table() {
	print_cells "TNS and SunRPC end-to-end, side by side (blocked = the follow-up connection was stopped by the firewall, as it must be without a helper; PASSED! = it got through without one; n/s = not started; - = not run):" \
		case 22 18 "${CASES[@]}"
}

# ------------------------------------------------------------ servers

RPCBIND_PID=
RPC_DOWN=
# rpcbind (debug log: every query it gets) and tests/lib/rpc.py's service
# in the server ns; the tns listener too.
start_servers() {
	local n
	progress "servers"
	agent_start tnss "$TOPO_SV_NS" "$PY" -u "$TNSPY" server --port 1521 --follow 5001-5010 \
		--log "$LOGS/tns-server.log" || return 1
	mkdir -p /run/rpcbind
	nsenter --net="/run/netns/$TOPO_SV_NS" rpcbind -f -d >"$LOGS/rpcbind.log" 2>&1 &
	RPCBIND_PID=$!
	if ! agent_start rpcs "$TOPO_SV_NS" "$PY" -u "$RPCPY" service --count "$RPC_PROGS" --log "$LOGS/rpc-service.log"; then
		RPC_DOWN="the rpc service did not start (rpcbind: $(tail -n 3 "$LOGS/rpcbind.log" | tr '\n' ' '))"
	else
		count_lines "$W/rpcs.out" '^registered .*: true$'; n=$COUNT
		if [ "$n" != $((2 * RPC_PROGS)) ]; then
			RPC_DOWN="only $n of $((2 * RPC_PROGS)) registrations with rpcbind succeeded: $(grep -v ': true$' "$W/rpcs.out" | head -n 3 | tr '\n' ' ')"
		fi
	fi
	[ -z "$RPC_DOWN" ] || echo "FAIL e2e-tnsrpc/rpcbind: $RPC_DOWN"
	progress "clients"
	agent_start tnsc "$TOPO_CL_NS" "$PY" -u "$TNSPY" client-agent || return 1
	agent_start rpcc "$TOPO_CL_NS" "$PY" -u "$RPCPY" client-agent || return 1
}

# shellcheck disable=SC2317  # runs from the EXIT trap
cleanup() {
	suite_cleanup
	[ -z "$RPCBIND_PID" ] || kill "$RPCBIND_PID" 2>/dev/null
	cp "$W"/*.out "$LOGS/" 2>/dev/null
}
trap cleanup EXIT

T0=$SECONDS
progress "topology"
require_tools e2e-tnsrpc "apt-get install rpcbind" rpcbind rpcinfo
suite_topology e2e-tnsrpc tnsrpc
start_servers || exit 1
say "servers and agents up at $((SECONDS - T0)) s"
run_suite "tnsrpc cases"
exit 0
