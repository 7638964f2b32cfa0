#!/bin/bash
# Issue 31's helpers end to end (ssdp, mdns, slp, dhcpv6, amanda, sane,
# irc, netbios-ns) and PPTP next to cthelperd, run inside the test VM by
# tests/more/run.sh (one boot for everything).  Each case runs against
# each implementation that has its helper (default order: none,
# conntrackd, kernel, cthelperd; see IMPLS):
#
#   none        no helper, no CT rule: the answer / the data connection /
#               the GRE must be blocked; counted: e2e-more/none/<case>
#   cthelperd   $CTH_BUILD/cthelperd with the eight plugins; counted:
#               e2e-more/cthelperd/<case>
#   conntrackd  conntrackd's helper mode with conntrack-tools' ssdp, mdns,
#               slp, dhcpv6, amanda, sane (tests/more/conntrackd.conf): a
#               reference, "NOTE conntrackd/<case>: ..." lines, not counted
#   kernel      nf_conntrack_amanda + nf_nat_amanda, nf_conntrack_sane,
#               nf_conntrack_irc + nf_nat_irc, nf_conntrack_netbios_ns,
#               each loaded for its helper's cases and unloaded after: a
#               reference like conntrackd ("NOTE kernel/<case>"); last, as
#               a user-space helper of the same name cannot be registered
#               while the module is loaded
#
# Kinds of case:
#   local   the router itself asks (M-SEARCH, mDNS one-shot query, SLP
#           request, DHCPv6 Solicit, NetBIOS name query) out of r-cl; a
#           responder in the client namespace answers unicast; the
#           router's INPUT drops all but ESTABLISHED,RELATED (and ICMP),
#           so the answer arrives only as RELATED (raw OUTPUT CT rules)
#   fwd     client -> server through FORWARD (policy DROP, NEW only to the
#           control ports): the secondary connection passes only as
#           RELATED (raw PREROUTING CT rules); modes plain, masq, dnat of
#           tests/lib/topo.sh
#   neg-*   must create nothing: an IRC DCC announcing somebody else's
#           address, a NetBIOS answer from outside the subnet, an SSDP
#           answer whose LOCATION names a third host
#   pptp    nf_conntrack_pptp + nf_nat_pptp serve a PPTP call (control on
#           tcp/1723, GRE both ways) while cthelperd serves irc on the
#           same firewall
#
# Clients: tests/lib/{ssdp,mdns,slp,dhcpv6,netbios,amanda,sane,irc,pptp}.py
# (serve in the answering namespace for the whole run, try per case; exit
# 0 = through, 1 = blocked, 2 = protocol error).  tests/more/README.md
# has the table of cases and the results.
#
# Usage: inside.sh [IMPL...]   (default: none conntrackd kernel cthelperd)
# Environment: CTH_BUILD (default build); MORE_ONLY = an extended regex over
# case names (the others show "-"); MORE_RULES=own: cthelperd's CT rules
# from this script (helper_rules) instead of its --print-rules output.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/lib/vmsuite.sh
. tests/lib/vmsuite.sh
suite_init more

LIB=$REPO/tests/lib
# how long a try waits for its answer or connection (a blocked case
# costs that), and the bound of the whole command (python under TCG)
TRY_S=4 TRY_BOUND=40
# cthelperd's queues (conf/cthelperd.conf); conntrackd's in conntrackd.conf
declare -A CTH_QUEUE=([ssdp]=6 [mdns]=7 [slp]=8 [dhcpv6]=9 [amanda]=10
		      [sane]=11 [irc]=12 [netbios-ns]=13)
CTH_HELPERS="ssdp mdns slp dhcpv6 amanda sane irc netbios-ns"
CTD_SPECS=("ssdp inet udp" "ssdp inet6 udp" "ssdp inet tcp" "ssdp inet6 tcp"
	   "mdns inet udp" "mdns inet6 udp" "slp inet udp" "slp inet6 udp"
	   "dhcpv6 inet6 udp" "amanda inet udp" "amanda inet6 udp"
	   "sane inet tcp" "sane inet6 tcp")
# which helpers each implementation has
declare -A HAS=([none]="$CTH_HELPERS pptp" [cthelperd]="$CTH_HELPERS pptp"
		[conntrackd]="ssdp mdns slp dhcpv6 amanda sane"
		[kernel]="amanda sane irc netbios-ns")
# the kernel's modules per helper
declare -A KMODS=([amanda]="nf_conntrack_amanda nf_nat_amanda" [sane]=nf_conntrack_sane
		  [irc]="nf_conntrack_irc nf_nat_irc" [netbios-ns]="nf_conntrack_broadcast nf_conntrack_netbios_ns"
		  [pptp]="nf_conntrack_pptp nf_nat_pptp")
# a third host (the SSDP LOCATION negative), a port nobody helps
THIRD4=10.0.2.2 THIRD_PORT=8080
# the server namespace's second address: the IRC DCC peers'
SV4B=10.0.2.3 SV6B=fd00:2::3
# a host outside the client's subnet answering a NetBIOS query (server ns)
OUTSIDE4=10.0.2.2
NB_SPORT=40137

IMPLS=("$@")
# cthelperd last: the kernel's modules own the names amanda, sane, irc
# and netbios-ns while loaded and are unloaded after each helper's cases,
# so cthelperd registers the names afterwards (and no helper module is
# unloaded while its rules are loaded: see case_pptp)
[ ${#IMPLS[@]} -gt 0 ] || IMPLS=(none conntrackd kernel cthelperd)
check_impls e2e-more none cthelperd conntrackd kernel

# name  helper  family  topology-mode  kind
CASES=(
	"ssdp-local         ssdp       4 plain local"
	"ssdp-local-v6      ssdp       6 plain local"
	"ssdp-third-host    ssdp       4 plain neg-location"
	"mdns-local         mdns       4 plain local"
	"mdns-local-v6      mdns       6 plain local"
	"slp-local          slp        4 plain local"
	"slp-local-v6       slp        6 plain local"
	"dhcpv6-local       dhcpv6     6 plain local"
	"netbios-local      netbios-ns 4 plain local"
	"netbios-local-all  netbios-ns 4 plain local-all"
	"netbios-outside    netbios-ns 4 plain neg-outside"
	"amanda             amanda     4 plain fwd"
	"amanda-v6          amanda     6 plain fwd"
	"amanda-masq        amanda     4 masq  fwd"
	"amanda-dnat        amanda     4 dnat  fwd"
	"sane               sane       4 plain fwd"
	"sane-v6            sane       6 plain fwd"
	"sane-dnat          sane       4 dnat  fwd"
	"irc                irc        4 plain fwd"
	"irc-v6             irc        6 plain fwd"
	"irc-masq           irc        4 masq  fwd"
	"irc-forged         irc        4 plain neg-forged"
	"pptp-coexist       pptp       4 plain pptp"
)
declare -A CELL
declare -A COLNAME=([none]="no helper" [cthelperd]=cthelperd [conntrackd]="conntrackd 1.4.7"
		    [kernel]="kernel 6.1")
want() { [ -z "${MORE_ONLY:-}" ] || [[ $1 =~ ^($MORE_ONLY)$ ]]; }
has() { [[ " ${HAS[$1]} " == *" $2 "* ]]; }

# ------------------------------------------------------------ reporting

# verdict IMPL CASE WHY: PASS/FAIL (none, cthelperd) or NOTE (references),
# and the table cell unless the caller set it.
verdict() {
	local impl=$1 case=$2 why=$3
	[ -n "${CELL[$impl/$case]:-}" ] || CELL[$impl/$case]=$([ -z "$why" ] && echo PASS || echo FAIL)
	case $impl in
	none|cthelperd)
		if [ -z "$why" ]; then
			echo "PASS e2e-more/$impl/$case"
		else
			echo "FAIL e2e-more/$impl/$case: $why"
		fi ;;
	*) [ -z "$why" ] || echo "NOTE $impl/$case: $why$(known_cause "$impl" "$case")" ;;
	esac
}

# Why a reference fails a case, as read (docs/research) and measured
# here; quoted only when the case failed.
known_cause() {
	case $1/$2 in
	kernel/irc-v6) echo " (known: nf_conntrack_irc registers for IPv4 only)" ;;
	kernel/sane-dnat) echo " (known: no nf_nat_sane; the expectation names the dialled address, not the server)" ;;
	kernel/netbios-local-all) echo " (known: nf_conntrack_broadcast finds no netmask for 255.255.255.255 and expects nothing)" ;;
	conntrackd/ssdp-third-host) echo " (known: its LOCATION expectation admits TCP from anywhere to whatever address the answer names)" ;;
	conntrackd/amanda) echo " (known: its expectation's port is the request's UDP source port, not the announced one; docs/research/issue31-references.md)" ;;
	conntrackd/amanda-v6) echo " (known: it reads the UDP header at the IPv4 header's length)" ;;
	conntrackd/amanda-masq|conntrackd/amanda-dnat) echo " (known: under NAT it rewrites all three announced ports to the request's UDP source port and expects that one, from the pre-NAT tuple; docs/research/issue31-references.md)" ;;
	conntrackd/sane-dnat) echo " (known: the expectation names the dialled address, not the server)" ;;
	esac
}

# The kernel's view after a failed case and the helper's log.
diagnose() {
	local impl=$1 fam=$2 f=()
	[ "$fam" = 6 ] && f=(-f ipv6)
	echo "  --- conntrack -L ${f[*]}"
	timeout 10 conntrack -L "${f[@]}" 2>/dev/null | grep -v 'dport=22 ' | tr -s ' ' | head -n 20 | sed 's/^/  | /'
	echo "  --- conntrack -L expect"
	timeout 10 conntrack -L expect "${f[@]}" 2>/dev/null | tr -s ' ' | sed 's/^/  | /'
	echo "  expectations created during the case: $(events_since_mark)"
	case $impl in
	cthelperd)
		show_tail "$LOGS/cthelperd.log" 15
		[ -z "$CTH_PID" ] || kill -0 "$CTH_PID" 2>/dev/null || echo "  cthelperd is no longer running" ;;
	conntrackd) show_tail /tmp/conntrackd-more.log 8 ;;
	esac
}

# Packets each queue got: as tests/tftp (id_sequence, 8th field).
declare -A QSEQ QBEFORE
read_queues() {
	local f
	QSEQ=()
	while read -r -a f; do
		[ ${#f[@]} -ge 8 ] && QSEQ[${f[0]}]=${f[7]}
	done </proc/net/netfilter/nfnetlink_queue
}
queue_mark() {
	local q
	read_queues
	QBEFORE=()
	for q in "${!QSEQ[@]}"; do QBEFORE[$q]=${QSEQ[$q]}; done
}
# queued_since Q: packets queue Q got since queue_mark (QD)
queued_since() {
	read_queues
	QD=$(( ${QSEQ[$1]:-0} - ${QBEFORE[$1]:-0} ))
}

# The expectation events without a process each (vmsuite.sh's run six:
# seconds under TCG on a busy host): events_mark / events_since_mark.
events_mark() {
	local lines
	mapfile -t lines <"$EV_LOG"
	EV_MARK=${#lines[@]}
}
events_since_mark() {
	nap 0.3   # let the listener catch up
	local lines line f out=''
	mapfile -t -s "$EV_MARK" lines <"$EV_LOG"
	for line in "${lines[@]}"; do
		[[ $line == *'[NEW]'* ]] || continue
		read -r -a f <<<"${line#*\[NEW\]}"
		out="${out:+$out;}${f[*]}"
	done
	echo "${out:-none}"
}

# ------------------------------------------------------------ clients

# in_ns NS CMD...: CMD in namespace NS (router = the VM's own).
in_ns() {
	local ns=$1
	shift
	case $ns in
	router) "$@" ;;
	client) in_client "$@" ;;
	server) in_server "$@" ;;
	esac
}

# serve_ensure KEY NS SCRIPT [CMD] ARGS...: tests/lib/SCRIPT CMD ARGS in
# NS (CMD serve unless "peer"), started once and kept for the run (later
# columns use it too); up to 30 s for its "ready".  1 when it did not
# start (WHY says why).
declare -A SERVE_PID
serve_ensure() {
	local key=$1 ns=$2 script=$3 out cmd=serve
	shift 3
	[ "${1:-}" != peer ] || { cmd=peer; shift; }
	out=$W/serve-$key.out
	if [ -n "${SERVE_PID[$key]:-}" ] && kill -0 "${SERVE_PID[$key]}" 2>/dev/null; then
		return 0
	fi
	if [ ! -e "$LIB/$script" ]; then
		WHY="tests/lib/$script is missing"
		return 1
	fi
	: >"$out"
	in_ns "$ns" "$PY" -u "$LIB/$script" "$cmd" "$@" >"$out" 2>"$LOGS/serve-$key.err" &
	SERVE_PID[$key]=$!
	if ! wait_line "$out" '^ready' 30000; then
		WHY="$script $cmd $* did not say ready within 30 s: $(tail -c 300 "$LOGS/serve-$key.err" | tr '\n' ' ')"
		serve_stop "$key"
		return 1
	fi
}
serve_stop() {
	local key=$1 pid=${SERVE_PID[$1]:-}
	[ -n "$pid" ] || return 0
	# the job is a subshell (in_ns is a function): the server is its
	# child, and would keep its ports if only the subshell went
	pkill -P "$pid" 2>/dev/null
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	SERVE_PID[$key]=
}

# try NS SCRIPT ARGS...: tests/lib/SCRIPT try ARGS --timeout TRY_S in NS;
# RC its status (124: it hung past TRY_BOUND), OUT its output.
try() {
	local ns=$1 script=$2
	shift 2
	if [ ! -e "$LIB/$script" ]; then
		RC=3 OUT="tests/lib/$script is missing"
		return
	fi
	OUT=$(in_ns "$ns" timeout -k 1 "$TRY_BOUND" "$PY" "$LIB/$script" try "$@" --timeout "$TRY_S" 2>&1)
	RC=$?
	OUT=$(tr -s '\n' ' ' <<<"$OUT")
	OUT=${OUT:0:300}
}

# client_of HELPER: its tests/lib script
client_of() {
	case $1 in
	netbios-ns) echo netbios.py ;;
	*) echo "$1.py" ;;
	esac
}

# serve_for HELPER FAM: the responder of HELPER for family FAM running
# (local helpers: in the client namespace on its eth0; the others in the
# server namespace, both families).
serve_for() {
	local h=$1 fam=$2 script
	script=$(client_of "$h")
	case $h in
	# ssdp.py: the group picks the family; LOCATION names the device's
	# global address (fd00:1::2; a link-local one has no zone in a URL)
	# and its HTTP port, one per instance (they all listen)
	ssdp) if [ "$fam" = 6 ]; then
		serve_ensure ssdp-6 client ssdp.py --group ff02::c --addr "$CL6" --http-port 49154
	      else
		serve_ensure ssdp-4 client ssdp.py --group 239.255.255.250 --http-port 49152
	      fi ;;
	mdns|slp|dhcpv6|netbios-ns)
		serve_ensure "$h-$fam" client "$script" --family "$fam" --iface eth0 ;;
	pptp) serve_ensure pptp server pptp.py ;;
	# the IRC server, and a DCC peer per family on the server's second
	# address (not the IRC server's: the DCC comes from a third host)
	irc) serve_ensure irc server irc.py &&
	     if [ "$fam" = 6 ]; then
		serve_ensure irc-peer6 server irc.py peer "$SV4" --nick peer6 --bind "$SV6B"
	     else
		serve_ensure irc-peer4 server irc.py peer "$SV4" --nick peer4 --bind "$SV4B"
	     fi ;;
	*) serve_ensure "$h" server "$script" ;;
	esac
}

# dial FAM: the address the client dials for the server in this mode
dial() { [ "$1" = 6 ] && echo "$SV6" || echo "$SV4_DIAL"; }

# try_case HELPER FAM KIND: the asking side's try for a positive case.
try_case() {
	local h=$1 fam=$2 kind=$3 script
	script=$(client_of "$h")
	case $h in
	netbios-ns)
		if [ "$kind" = local-all ]; then
			try router "$script" --iface r-cl --to 255.255.255.255
		else
			try router "$script" --iface r-cl --to 10.0.1.255
		fi ;;
	# the M-SEARCH, its answer, then the LOCATION fetched (the router's
	# own TCP connection); IPv6 from the router's global address
	ssdp) if [ "$fam" = 6 ]; then
		try router ssdp.py --group ff02::c --bind "$R_CL6"
	      else
		try router ssdp.py --group 239.255.255.250
	      fi ;;
	mdns|slp|dhcpv6) try router "$script" --family "$fam" --iface r-cl ;;
	irc) try client irc.py "$(dial "$fam")" --to "peer$fam" ;;
	*) try client "$script" "$(dial "$fam")" ;;
	esac
}

# ------------------------------------------------------------ cases

# outcome IMPL CASE FAM: the verdict for RC/OUT of a positive case.
outcome() {
	local impl=$1 case=$2 fam=$3 extra=${4:-}
	if [ "$impl" = none ]; then
		case $RC in
		1) CELL[$impl/$case]=blocked; verdict none "$case" "" ;;
		0) CELL[$impl/$case]="PASSED!"
		   verdict none "$case" "it got through without a helper (the firewall does not block): $OUT" ;;
		3) CELL[$impl/$case]="no client"; verdict none "$case" "not run: $OUT" ;;
		*) CELL[$impl/$case]=error; verdict none "$case" "nothing proven (exit $RC): $OUT" ;;
		esac
		return
	fi
	case $RC in
	0) verdict "$impl" "$case" "$extra" ;;
	1) CELL[$impl/$case]=blocked; verdict "$impl" "$case" "blocked: $OUT${extra:+; $extra}" ;;
	124) CELL[$impl/$case]=hung; verdict "$impl" "$case" "the client hung past $TRY_BOUND s: $OUT" ;;
	3) CELL[$impl/$case]="no client"; verdict "$impl" "$case" "not run: $OUT"; return ;;
	*) CELL[$impl/$case]=error; verdict "$impl" "$case" "exit $RC: $OUT${extra:+; $extra}" ;;
	esac
	[ "${CELL[$impl/$case]}" = PASS ] || diagnose "$impl" "$fam"
}

case_positive() {
	local impl=$1 case=$2 h=$3 fam=$4 kind=$5 q extra=''
	if ! serve_for "$h" "$fam"; then
		RC=3 OUT="responder: $WHY"
		outcome "$impl" "$case" "$fam"
		return
	fi
	events_mark
	queue_mark
	try_case "$h" "$fam" "$kind"
	q=${CTH_QUEUE[$h]:-}
	if [ "$impl" = cthelperd ] && [ -n "$q" ]; then
		queued_since "$q"
		[ "$RC" != 0 ] || [ "$QD" -gt 0 ] || extra="nothing reached cthelperd's queue $q"
		say "$impl/$case: exit $RC: $OUT; queue $q: +$QD; expectations: $(events_since_mark)"
	else
		say "$impl/$case: exit $RC: $OUT; expectations: $(events_since_mark)"
	fi
	outcome "$impl" "$case" "$fam" "$extra"
}

# neg-location: a second SSDP responder in the client namespace answers
# with LOCATION naming THIRD4:THIRD_PORT (the server, a third host); the
# router's M-SEARCH must not make TCP from the client to it RELATED: no
# TCP expectation to THIRD4, and the client's connection stays blocked.
case_neg_location() {
	local impl=$1 case=$2 exps tcp conn
	if ! serve_ensure ssdp-third client ssdp.py --group 239.255.255.250 \
			--location "$THIRD4:$THIRD_PORT" --http-port 49153; then
		RC=3 OUT="responder: $WHY"
		outcome "$impl" "$case" 4
		return
	fi
	events_mark
	try router ssdp.py --group 239.255.255.250 --no-fetch
	# bash's /dev/tcp: refused or connected = it got through (the server
	# answered), 124 = blocked
	# shellcheck disable=SC2016  # expanded by the inner bash
	timeout 4 nsenter --net="/run/netns/$TOPO_CL_NS" bash -c \
		'exec 3<>"/dev/tcp/$1/$2"' _ "$THIRD4" "$THIRD_PORT" 2>/dev/null
	conn=$?
	exps=$(events_since_mark)
	serve_stop ssdp-third
	tcp=$(tr ';' '\n' <<<"$exps" | grep 'proto=6 ' | grep -F "dst=$THIRD4 " | paste -sd';' -)
	say "$impl/$case: M-SEARCH exit $RC: $OUT; connection to $THIRD4:$THIRD_PORT: $([ $conn = 124 ] && echo blocked || echo "through ($conn)"); expectations: $exps"
	if [ -z "$tcp" ] && [ "$conn" = 124 ] && [ "$RC" = 0 ]; then
		CELL[$impl/$case]=nothing
		verdict "$impl" "$case" ""
	elif [ -z "$tcp" ] && [ "$conn" = 124 ]; then
		CELL[$impl/$case]="no answer"
		verdict "$impl" "$case" "nothing proven: no answer to the M-SEARCH was let in (exit $RC: $OUT)"
	else
		CELL[$impl/$case]="opened!"
		verdict "$impl" "$case" "an answer naming $THIRD4:$THIRD_PORT in LOCATION opened ${tcp:-no expectation but the connection passed (exit $conn)}"
	fi
}

# neg-outside: the router's name query to 10.0.1.255 from NB_SPORT; a
# host outside 10.0.1.0/24 (OUTSIDE4, in the server namespace) answers it
# from port 137, repeatedly during the query's life.  Accepted on INPUT,
# its datagram would have made a conntrack entry; dropped, none.
case_neg_outside() {
	local impl=$1 case=$2 ent fpid
	if ! serve_for netbios-ns 4; then
		RC=3 OUT="responder: $WHY"
		outcome "$impl" "$case" 4
		return
	fi
	events_mark
	in_server timeout 12 "$PY" "$REPO/tests/more/udpsend.py" "$OUTSIDE4" 137 \
		"$R_CL4" "$NB_SPORT" 30 0.25 >"$W/outside.out" 2>&1 &
	fpid=$!
	try router netbios.py --iface r-cl --to 10.0.1.255 --sport "$NB_SPORT"
	wait "$fpid"
	ent=$(timeout 10 conntrack -L -p udp -s "$OUTSIDE4" --sport 137 2>/dev/null | tr -s ' ' | paste -sd';' -)
	say "$impl/$case: query exit $RC: $OUT; sender: $(tr '\n' ' ' <"$W/outside.out"); entries from $OUTSIDE4:137: ${ent:-none}"
	if [ -z "$ent" ] && [ "$RC" = 0 ]; then
		CELL[$impl/$case]=nothing
		verdict "$impl" "$case" ""
	elif [ -z "$ent" ]; then
		CELL[$impl/$case]="no answer"
		verdict "$impl" "$case" "nothing proven: the answer from inside the subnet was not let in either (exit $RC: $OUT)"
	else
		CELL[$impl/$case]="let in!"
		verdict "$impl" "$case" "an answer from outside the subnet got in: $ent"
	fi
}

# neg-forged: a DCC announcing another address than the client's own:
# no expectation, and the peer's connection stays blocked.
case_neg_forged() {
	local impl=$1 case=$2 exps
	if ! serve_for irc 4; then
		RC=3 OUT="responder: $WHY"
		outcome "$impl" "$case" 4
		return
	fi
	events_mark
	try client irc.py "$SV4_DIAL" --to peer4 --announce 10.0.1.99
	exps=$(events_since_mark)
	say "$impl/$case: exit $RC: $OUT; expectations: $exps"
	if [ "$exps" = none ] && [ "$RC" = 1 ]; then
		CELL[$impl/$case]=nothing
		verdict "$impl" "$case" ""
	else
		CELL[$impl/$case]="opened!"
		verdict "$impl" "$case" "a DCC for 10.0.1.99 sent by $CL4: exit $RC ($OUT), expectations: $exps"
	fi
}

# pptp: nf_conntrack_pptp + nf_nat_pptp loaded, CT --helper pptp on
# tcp/1723 (next to cthelperd's rules): a call's GRE both ways, then an
# IRC DCC through cthelperd (an mDNS query while irc is missing); none of
# 1723's packets may reach cthelperd's queues.  Without a helper (none) the GRE must be blocked.
case_pptp() {
	local impl=$1 case=$2 why='' q sum=0 gre
	if ! serve_for pptp 4; then
		RC=3 OUT="responder: $WHY"
		outcome "$impl" "$case" 4
		return
	fi
	if [ "$impl" = none ]; then
		try client pptp.py --to "$SV4"
		say "$impl/$case: exit $RC: $OUT"
		outcome "$impl" "$case" 4
		return
	fi
	# shellcheck disable=SC2086
	if ! modprobe -a ${KMODS[pptp]}; then
		CELL[$impl/$case]=error
		verdict "$impl" "$case" "modprobe ${KMODS[pptp]} failed"
		return
	fi
	"$IPT" -t raw -A PREROUTING -p tcp --dport 1723 -j CT --helper pptp
	events_mark
	queue_mark
	try client pptp.py --to "$SV4"
	local prc=$RC pout=$OUT
	gre=$(timeout 10 conntrack -L -p gre 2>/dev/null | tr -s ' ' | paste -sd';' -)
	for q in "${CTH_QUEUE[@]}"; do queued_since "$q"; sum=$((sum + QD)); done
	local pq=$sum
	queue_mark
	# the helper cthelperd serves meanwhile: irc (forwarded TCP, as PPTP's
	# control connection), or mdns (the router's own query) while irc's
	# plugin or client is missing
	local co=irc
	[[ " $CTH_HAVE " == *" irc "* ]] && [ -e "$LIB/irc.py" ] || co=mdns
	if ! serve_for "$co" 4; then
		RC=3 OUT="responder: $WHY"
	elif [ $co = irc ]; then
		try client irc.py "$SV4" --to peer4
	else
		try_case mdns 4 local
	fi
	queued_since "${CTH_QUEUE[$co]}"
	say "$impl/$case: pptp exit $prc: $pout; gre: ${gre:-none}; cthelperd queues during the call: +$pq; $co exit $RC: $OUT; queue ${CTH_QUEUE[$co]}: +$QD; expectations: $(events_since_mark)"
	[ "$prc" = 0 ] || why="the PPTP call's GRE did not go both ways (exit $prc): $pout"
	[ "$pq" = 0 ] || why="${why:+$why; }cthelperd's queues got $pq packets during the PPTP call"
	[ "$RC" = 0 ] || why="${why:+$why; }$co through cthelperd failed next to nf_conntrack_pptp (exit $RC): $OUT"
	[ "$RC" != 0 ] || [ "$QD" -gt 0 ] || why="${why:+$why; }nothing reached cthelperd's $co queue"
	[[ $gre == *"dstkey=0x309"* ]] || [ "$prc" != 0 ] || why="${why:+$why; }no GRE entry with the PNS's call id 777 (0x309): ${gre:-none}"
	"$IPT" -t raw -D PREROUTING -p tcp --dport 1723 -j CT --helper pptp
	topo_flush_conntrack
	# Not while cthelperd's CT rules are loaded (measured: its helpers then
	# stay undeletable, EBUSY): unloading a helper module bumps the
	# conntrack extension generation (Linux 6.1 nf_ct_iterate_destroy() ->
	# nf_ct_ext_bump_genid()), which also hides the helper extension of the
	# CT rules' templates, so removing a rule no longer puts its helper
	# (xt_ct_tg_destroy() finds no nfct_help()).  impl_stop unloads them
	# after the rules are gone.
	PPTP_UNLOAD=1
	if [ "$impl" != cthelperd ]; then
		pptp_unload
	fi
	if [ -z "$why" ]; then
		CELL[$impl/$case]="PASS"
		verdict "$impl" "$case" ""
	else
		CELL[$impl/$case]=FAIL
		verdict "$impl" "$case" "$why"
		diagnose "$impl" 4
	fi
}

run_case() {
	local impl=$1 name=$2 h=$3 fam=$4 kind=$5
	case $kind in
	local|local-all|fwd) case_positive "$impl" "$name" "$h" "$fam" "$kind" ;;
	neg-location) case_neg_location "$impl" "$name" ;;
	neg-outside) case_neg_outside "$impl" "$name" ;;
	neg-forged) case_neg_forged "$impl" "$name" ;;
	pptp) case_pptp "$impl" "$name" ;;
	esac
}

# ------------------------------------------------------------ CT rules

# helper_rules NAME FAMS: the CT --helper NAME rules of one helper
# (FAMS 4, 6 or 46: the families it is registered for).
helper_rules() {
	local h=$1 fams=${2:-46} t
	case $h in
	ssdp|mdns|slp|dhcpv6|netbios-ns)
		local r4=() r6=()
		case $h in
		ssdp) r4=(-d 239.255.255.250 --dport 1900); r6=(-d ff02::c --dport 1900) ;;
		mdns) r4=(-d 224.0.0.251 --dport 5353 ! --sport 5353)
		      r6=(-d ff02::fb --dport 5353 ! --sport 5353) ;;
		slp) r4=(-d 239.255.255.253 --dport 427); r6=(-d ff02::116 --dport 427) ;;
		dhcpv6) r6=(-d ff02::1:2 --dport 547) ;;
		netbios-ns) r4=(--dport 137) ;;
		esac
		if [[ $fams == *4* ]] && [ ${#r4[@]} -gt 0 ]; then
			"$IPT" -t raw -A OUTPUT -p udp "${r4[@]}" -j CT --helper "$h" || return 1
		fi
		if [[ $fams == *6* ]] && [ ${#r6[@]} -gt 0 ]; then
			"$IP6T" -t raw -A OUTPUT -p udp "${r6[@]}" -j CT --helper "$h" || return 1
		fi ;;
	amanda) topo_ct_add_port amanda udp:10080 "$fams" ;;
	sane) topo_ct_add_port sane tcp:6566 "$fams" ;;
	irc) topo_ct_add_port irc tcp:6667 "$fams" ;;
	esac
}

# ------------------------------------------------------------ implementations

# write_cthelperd_conf FILE HELPER...: a configuration of these helpers.
write_cthelperd_conf() {
	local file=$1 h
	shift
	{
		printf '[server]\nplugin_dir = %s\nlog_level = debug\n' "$BUILD/plugins"
		for h in "$@"; do
			printf '\n[helper %s]\nplugin = %s\nqueue = %s\n' "$h" "$h" "${CTH_QUEUE[$h]}"
		done
	} >"$file"
}

# cth_usable: CTH_HAVE = the helpers whose plugin is built and which
# "cthelperd -n" accepts alone (one that does not costs its own cases,
# not the column); the others into CTH_MISSING with the reason in
# CTH_WHY[helper].
declare -A CTH_WHY
cth_usable() {
	local h
	CTH_HAVE='' CTH_MISSING=''
	for h in $CTH_HELPERS; do
		if [ ! -e "$BUILD/plugins/$h.so" ]; then
			CTH_MISSING="$CTH_MISSING $h"
			CTH_WHY[$h]="$CTH_BUILD/plugins/$h.so is not built"
			continue
		fi
		write_cthelperd_conf "$W/check-$h.conf" "$h"
		if "$CTHELPERD" -n -c "$W/check-$h.conf" >"$W/check-$h.out" 2>&1; then
			CTH_HAVE="$CTH_HAVE $h"
		else
			CTH_MISSING="$CTH_MISSING $h"
			CTH_WHY[$h]="cthelperd -n refuses it: $(head -c 300 "$W/check-$h.out" | tr '\n' ' ')"
			say "${CTH_WHY[$h]}"
		fi
	done
}

# cth_print_rules: the raw-table rules "cthelperd --print-rules iptables"
# prints for the configuration (PREROUTING for the forwarded helpers,
# OUTPUT for the queries this host sends), loaded as printed: what an
# operator would load.  MORE_RULES=own: the suite's helper_rules instead.
cth_print_rules() {
	local cmd args t n=0 h
	if ! "$CTHELPERD" -c "$W/cthelperd.conf" --print-rules iptables >"$LOGS/print-rules.txt" 2>&1; then
		START_WHY="cthelperd --print-rules iptables failed: $(head -c 300 "$LOGS/print-rules.txt" | tr '\n' ' ')"
		return 1
	fi
	while read -r cmd args; do
		case $cmd in iptables) t=$IPT ;; ip6tables) t=$IP6T ;; *) continue ;; esac
		[[ $args == "-t raw "* ]] || continue
		read -r -a args <<<"$args"
		"$t" "${args[@]}" || { START_WHY="$cmd ${args[*]} (from --print-rules) failed"; return 1; }
		n=$((n + 1))
	done <"$LOGS/print-rules.txt"
	say "cthelperd --print-rules: $n raw rules loaded"
	"$IPT" -t raw -S OUTPUT | grep -- '--helper' | sed 's/^/  | /'
	"$IP6T" -t raw -S OUTPUT | grep -- '--helper' | sed 's/^/  | /'
	for h in $CTH_HAVE; do
		case $h in ssdp|mdns|slp|dhcpv6|netbios-ns) ;; *) continue ;; esac
		grep -q -- "-t raw -A OUTPUT .*--helper $h\b" "$LOGS/print-rules.txt" ||
			say "cthelperd --print-rules has no raw OUTPUT rule for $h: its local cases cannot pass"
	done
}

delete_helpers() { delete_user_helpers "$CTH_HELPERS" "udp tcp"; }

KERNEL_LOADED=
# kernel_phase HELPER: the kernel's modules of HELPER (and its CT rules),
# the previous helper's unloaded first.  1 when it cannot load.
kernel_phase() {
	local h=$1 fams=46
	[ "$KERNEL_LOADED" != "$h" ] || return 0
	kernel_phase_end
	# shellcheck disable=SC2086
	modprobe -a ${KMODS[$h]} || { WHY="modprobe ${KMODS[$h]} failed"; return 1; }
	KERNEL_LOADED=$h
	# nf_conntrack_irc and nf_conntrack_netbios_ns are IPv4 only
	case $h in irc|netbios-ns) fams=4 ;; esac
	helper_rules "$h" "$fams" || { WHY="CT --helper $h rules failed"; return 1; }
	say "kernel: $(grep -E '^nf_(conntrack|nat)_' /proc/modules | cut -d' ' -f1 | sort | tr '\n' ' ')"
}
kernel_phase_end() {
	local m mods=()
	[ -n "$KERNEL_LOADED" ] || return 0
	topo_ct_del
	topo_flush_conntrack
	for m in ${KMODS[$KERNEL_LOADED]}; do mods=("$m" "${mods[@]}"); done
	rmmod "${mods[@]}" 2>&1 | sed 's/^/  rmmod: /'
	KERNEL_LOADED=
}

# impl_start IMPL: the implementation up with its CT rules.
impl_start() {
	local impl=$1 h spec specs=()
	clean_slate || return 1
	case $impl in
	none) return 0 ;;
	cthelperd)
		[ -x "$CTHELPERD" ] || { START_WHY="$CTH_BUILD/cthelperd is not built"; return 1; }
		cth_usable
		[ -n "$CTH_HAVE" ] || { START_WHY="no plugin of issue 31 is usable in $CTH_BUILD/plugins:$CTH_MISSING"; return 1; }
		# shellcheck disable=SC2086  # the list
		write_cthelperd_conf "$W/cthelperd.conf" $CTH_HAVE
		local waits=()
		for h in $CTH_HAVE; do waits+=("$h" 1); done
		cth_start "$LOGS/cthelperd.log" "$W/cthelperd.conf" "${waits[@]}" || return 1
		if [ "${MORE_RULES:-print}" = print ]; then
			cth_print_rules || return 1
		else
			for h in $CTH_HAVE; do
				helper_rules "$h" 46 || { START_WHY="CT --helper $h rules failed"; return 1; }
			done
		fi ;;
	conntrackd)
		conntrackd_start "$REPO/tests/more/conntrackd.conf" "${CTD_SPECS[@]}" || return 1
		for spec in "${CTD_SPECS[@]}"; do
			read -r h _ <<<"$spec"
			[[ " ${specs[*]} " == *" $h "* ]] || specs+=("$h")
		done
		for h in "${specs[@]}"; do
			case $h in dhcpv6) helper_rules "$h" 6 ;; *) helper_rules "$h" 46 ;; esac ||
				{ START_WHY="CT --helper $h rules failed"; return 1; }
		done ;;
	kernel) return 0 ;;
	esac
	for h in $CTH_HELPERS; do
		topo_assert_no_kernel_helper "$h" 2>/dev/null && continue
		START_WHY="nf_conntrack_$h got loaded by a CT rule"
		return 1
	done
}

impl_stop() {
	local impl=$1
	topo_ct_del
	case $impl in
	cthelperd) stop_cthelperd ;;
	conntrackd) conntrackd_stop ;;
	kernel) kernel_phase_end ;;
	esac
	pptp_unload
	helpers_gone_or_say e2e-more "$impl"
}

# pptp_unload: nf_nat_pptp and nf_conntrack_pptp out, if case_pptp loaded
# them (see there why not while cthelperd's rules are loaded).
PPTP_UNLOAD=
pptp_unload() {
	[ -n "$PPTP_UNLOAD" ] || return 0
	rmmod nf_nat_pptp nf_conntrack_pptp 2>&1 | sed 's/^/  rmmod: /'
	PPTP_UNLOAD=
}

not_run() {
	local impl=$1 name=$2 why=$3
	CELL[$impl/$name]="n/s"
	case $impl in
	none|cthelperd) echo "FAIL e2e-more/$impl/$name: not run: $why" ;;
	*) echo "NOTE $impl/$name: not run: $why" ;;
	esac
}

CTH_MISSING='' CTH_HAVE=''
run_impl() {
	local impl=$1 line name h fam mode kind
	impl_begin "$impl" || return
	for line in "${CASES[@]}"; do
		read -r name h fam mode kind <<<"$line"
		want "$name" || continue
		if ! has "$impl" "$h"; then
			CELL[$impl/$name]="n/a"
			continue
		fi
		# the negatives have nothing to show without a helper
		[[ "$impl/$kind" != none/neg-* ]] || continue
		progress "$impl/$name"
		if [ "$impl" = cthelperd ] && [[ " $CTH_MISSING " == *" $h "* ]]; then
			not_run "$impl" "$name" "${CTH_WHY[$h]}"
			continue
		fi
		if [ "$impl" = kernel ] && ! kernel_phase "$h"; then
			not_run "$impl" "$name" "$WHY"
			continue
		fi
		[ "$TOPO_MODE" = "$mode" ] || topo_mode "$mode"
		run_case "$impl" "$name" "$h" "$fam" "$kind"
	done
	events_stop
	impl_stop "$impl"
	if [ "$impl" = conntrackd ] && [ -s "$LOGS/conntrackd.log" ]; then
		grep -iE 'error|fail' "$LOGS/conntrackd.log" | head -n 5 | sed 's/^/  conntrackd.log: /'
	fi
}

print_table() {
	print_cells "Issue 31's helpers end to end, side by side (blocked = stopped by the firewall, as without a helper; nothing = a negative case created nothing; n/a = the implementation has no such helper; n/s = not started; - = not run):" \
		case 20 17 "${CASES[@]}"
}

# shellcheck disable=SC2317  # runs from the EXIT trap
cleanup() {
	local k
	suite_cleanup
	for k in "${!SERVE_PID[@]}"; do
		serve_stop "$k"
	done
	kernel_phase_end >/dev/null 2>&1
	topo_input_open
	cp "$W"/serve-*.out "$LOGS/" 2>/dev/null
}
trap cleanup EXIT

T0=$SECONDS
progress "topology"
suite_topology e2e-more more
# the second addresses: secondary (IPv4) and deprecated (IPv6), so that
# only a socket bound to them uses them (an unbound UDP answer of the
# Amanda daemon from fd00:2::3 would be a new flow)
ip -n "$TOPO_SV_NS" addr add "$SV4B/24" dev eth0
ip -n "$TOPO_SV_NS" -6 addr add "$SV6B/64" dev eth0 nodad preferred_lft 0
if ! topo_input_stateful; then
	echo "FAIL e2e-more/topology: the router's INPUT rules failed"
	exit 1
fi
say "topology up at $((SECONDS - T0)) s"
run_suite "more cases"
exit 0
