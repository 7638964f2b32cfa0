#!/bin/bash
# TFTP end-to-end cases, run inside the test VM by tests/tftp/run.sh (one
# boot for everything).  Each case runs against each helper
# implementation, in this order:
#
#   none        no helper, no CT rule: the transfer must fail (the
#               firewall admits NEW only udp/69 from the client side, and
#               the server answers from another port); counted:
#               e2e-tftp/none/<case>
#   cthelperd   $CTH_BUILD/cthelperd with the tftp plugin; counted:
#               e2e-tftp/cthelperd/<case>
#   conntrackd  conntrackd's helper mode with conntrack-tools' tftp
#               helper: a reference; its failures are "NOTE
#               conntrackd/<case>: ..." lines and table cells, not counted
#   kernel      the kernel's nf_conntrack_tftp + nf_nat_tftp: a reference
#               like conntrackd ("NOTE kernel/<case>"); last, since a
#               user-space tftp helper cannot be registered while it is
#               loaded
#
# Client and server: Debian's tftp-hpa client and tftpd-hpa server
# (in.tftpd -L in the server namespace, both families, -s its directory).
# tests/tftp/README.md has the table of cases.
#
# Usage: inside.sh [IMPL...]   (default: none cthelperd conntrackd kernel)
# Environment: CTH_BUILD = the daemon's build dir (default build; relative
# to the repo); TFTP_ONLY = an extended regex: only the cases whose name
# matches run (the others show "-").
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/lib/vmsuite.sh
. tests/lib/vmsuite.sh
suite_init tftp

# NFQUEUE numbers: cthelperd's tftp helper; conntrackd's, one per family
# (tests/tftp/conntrackd.conf)
CTH_Q=7
CTD_Q4=8 CTD_Q6=9
ROOT=$W/tftproot
BIG_SIZE=$((1024 * 1024))
# tftp-hpa: retransmit after 1 s, give up after 4 s without an answer
# (the default 25 s would make every blocked case long); the whole
# command is bounded too (a 1 MiB transfer is 2048 blocks, each one a
# round trip through the router)
TFTP_REXMT=1 TFTP_GIVEUP=4 TFTP_BOUND=120
# The 1 MiB transfer is 4096 datagrams: the helper's queue may see the
# request and its retransmissions, not the transfer.
QUEUE_MAX=4

IMPLS=("$@")
[ ${#IMPLS[@]} -gt 0 ] || IMPLS=(none cthelperd conntrackd kernel)
check_impls e2e-tftp none cthelperd conntrackd kernel

# name  family  topology-mode  what (get FILE | put FILE | big | malformed)
CASES=(
	"rrq            4 plain get small"
	"wrq            4 plain put upload"
	"rrq-1mib       4 plain big big"
	"rrq-masq       4 masq  get small"
	"wrq-masq       4 masq  put upload"
	"rrq-dnat       4 dnat  get small"
	"wrq-dnat       4 dnat  put upload"
	"rrq-v6         6 plain get small"
	"wrq-v6         6 plain put upload"
	"malformed-rrq  4 plain malformed -"
)
declare -A CELL    # CELL[impl/case] = text for the table
declare -A COLNAME=([none]="no helper" [cthelperd]=cthelperd [conntrackd]="conntrackd 1.4.7"
		    [kernel]=nf_conntrack_tftp)
want() { [ -z "${TFTP_ONLY:-}" ] || [[ $1 =~ ^($TFTP_ONLY)$ ]]; }

# ------------------------------------------------------------ reporting

# verdict IMPL CASE WHY: the PASS/FAIL line (none, cthelperd) or the NOTE
# line (the references: reported, not counted) and the table cell (unless
# the caller set it).
verdict() {
	local impl=$1 case=$2 why=$3
	[ -n "${CELL[$impl/$case]:-}" ] || CELL[$impl/$case]=$([ -z "$why" ] && echo PASS || echo FAIL)
	case $impl in
	none|cthelperd)
		if [ -z "$why" ]; then
			echo "PASS e2e-tftp/$impl/$case"
		else
			echo "FAIL e2e-tftp/$impl/$case: $why"
		fi ;;
	*) [ -z "$why" ] || echo "NOTE $impl/$case: $why$(known_cause "$impl" "$case")" ;;
	esac
}

# Why a reference fails a case, as measured in this VM (Debian's 6.1
# kernel, conntrack-tools 1.4.7); quoted only when the case failed.
known_cause() {
	case $1/$2 in
	*/malformed-rrq) echo " (known: it reads only the opcode, so a request without its NULs opens the answer too; docs/plugins/tftp.md)" ;;
	conntrackd/*-masq|conntrackd/*-dnat) echo " (known: its expectation is created and matched, but the answer's entry is not NATed: under MASQUERADE it ends at the router, behind DNAT it reaches the client from the server's own address and the client's acknowledgement to the dialled address is a NEW flow; as its FTP helper in tests/e2e)" ;;
	esac
}

# The kernel's view after a failed case and the helper's log.
diagnose() {
	local impl=$1
	echo "  --- conntrack -L -p udp"
	timeout 10 conntrack -L -p udp 2>/dev/null | tr -s ' ' | sed 's/^/  | /'
	echo "  --- conntrack -L expect"
	timeout 10 conntrack -L expect 2>/dev/null | tr -s ' ' | sed 's/^/  | /'
	echo "  expectations created during the case: $(events_since_mark)"
	case $impl in
	cthelperd)
		show_tail "$LOGS/cthelperd.log" 15
		[ -z "$CTH_PID" ] || kill -0 "$CTH_PID" 2>/dev/null || echo "  cthelperd is no longer running" ;;
	conntrackd)
		show_tail /tmp/conntrackd-tftp.log 8 ;;
	esac
}

# Packets each queue got so far: id_sequence (8th field) of every line of
# /proc/net/netfilter/nfnetlink_queue, into QSEQ[queue]; queue_mark, then
# queued_since: QUEUED = "qN=+D ..." for the implementation's queues
# (IMPL_QUEUES) since the mark, QMAX the largest D.
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
queued_since() {
	local q d out=()
	read_queues
	QMAX=0
	for q in $IMPL_QUEUES; do
		d=$(( ${QSEQ[$q]:-0} - ${QBEFORE[$q]:-0} ))
		[ "$d" -le "$QMAX" ] || QMAX=$d
		out+=("q$q=+$d")
	done
	QUEUED=${out[*]:-none}
}

# ------------------------------------------------------------ the transfer

# tftp_run ID FAM HOST COMMAND: tftp-hpa in the client namespace ($W is
# its directory), its output in $W/ID.out.
tftp_run() {
	local id=$1 fam=$2 host=$3 cmd=$4 six=()
	[ "$fam" = 6 ] && six=(-6)
	printf 'mode octet\nrexmt %s\ntimeout %s\n%s\n' "$TFTP_REXMT" "$TFTP_GIVEUP" "$cmd" |
		timeout -k 1 "$TFTP_BOUND" nsenter --net="/run/netns/$TOPO_CL_NS" --wd="$W" \
		tftp "${six[@]}" "$host" >"$W/$id.out" 2>&1
}

# transfer IMPL CASE FAM get|put FILE: the file one way; STATUS OK (the
# same bytes arrived), BLOCKED (tftp gave up: the answer did not pass) or
# ERROR, WHY what happened.
transfer() {
	local impl=$1 case=$2 fam=$3 dir=$4 file=$5 id="$1-$2" host=$SV4_DIAL src dst out
	[ "$fam" = 6 ] && host=$SV6
	rm -f "$W/got-$id" "$ROOT/up-$id"
	local t0=${EPOCHREALTIME/./}
	if [ "$dir" = get ]; then
		tftp_run "$id" "$fam" "$host" "get $file got-$id"
		src=$ROOT/$file dst=$W/got-$id
	else
		tftp_run "$id" "$fam" "$host" "put $file up-$id"
		src=$W/$file dst=$ROOT/up-$id
	fi
	MS=$(((${EPOCHREALTIME/./} - t0) / 1000))
	out=$(tr -s '\n' ' ' <"$W/$id.out")
	out=${out//tftp> /}
	if [ -s "$dst" ] && cmp -s "$src" "$dst"; then
		STATUS=OK WHY="$(stat -c %s "$dst") bytes in $MS ms"
	elif [[ $out == *"timed out"* ]]; then
		STATUS=BLOCKED WHY="tftp: ${out:0:200}"
	else
		STATUS=ERROR WHY="tftp: ${out:-nothing}; $([ -e "$dst" ] && echo "$(stat -c %s "$dst") bytes arrived, not the file" || echo "no file")"
	fi
}

# outcome IMPL CASE EXTRA: the verdict for STATUS/WHY.  Without a helper
# BLOCKED is the pass; with one, OK and no EXTRA complaint.
outcome() {
	local impl=$1 case=$2 extra=$3
	if [ "$impl" = none ]; then
		case $STATUS in
		BLOCKED) CELL[$impl/$case]=blocked; verdict none "$case" "" ;;
		OK) CELL[$impl/$case]="PASSED!"
		    verdict none "$case" "the transfer passed without a helper (the firewall does not block): $WHY" ;;
		*) CELL[$impl/$case]=error; verdict none "$case" "nothing proven: $WHY" ;;
		esac
		return
	fi
	case $STATUS in
	OK) verdict "$impl" "$case" "$extra" ;;
	BLOCKED) CELL[$impl/$case]=blocked
		 verdict "$impl" "$case" "the transfer was blocked: $WHY${extra:+; $extra}" ;;
	*) CELL[$impl/$case]=error; verdict "$impl" "$case" "$WHY${extra:+; $extra}" ;;
	esac
	[[ ${CELL[$impl/$case]} == PASS* ]] && return
	# a reference's failure: what became of its answer is the cause
	if [ "$impl" = conntrackd ] || [ "$impl" = kernel ]; then
		echo "  --- conntrack -L -p udp"
		timeout 10 conntrack -L -p udp 2>/dev/null | tr -s ' ' | sed 's/^/  | /'
	else
		diagnose "$impl"
	fi
}

# ------------------------------------------------------------ cases

# case_transfer IMPL CASE FAM get|put FILE: one transfer; the helper's
# queue must have seen the request (cthelperd: or the expectation came
# from elsewhere).
case_transfer() {
	local impl=$1 case=$2 extra=""
	events_mark
	queue_mark
	transfer "$@"
	queued_since
	say "$impl/$case: $STATUS: $WHY; queued: $QUEUED; expectations: $(events_since_mark)"
	if [ "$impl" = cthelperd ] && [ "$STATUS" = OK ] && [ "${QSEQ[$CTH_Q]:-0}" = "${QBEFORE[$CTH_Q]:-0}" ]; then
		extra="nothing reached cthelperd's queue $CTH_Q"
	fi
	outcome "$impl" "$case" "$extra"
}

# case_big IMPL CASE FAM FILE: a 1 MiB read; with a helper, the transfer's
# conntrack entry must carry no helper and the helper's queue must not
# have seen the transfer (at most QUEUE_MAX packets: the request).
case_big() {
	local impl=$1 case=$2 fam=$3 file=$4 extra="" line lines list data=0 helped=""
	topo_flush_conntrack
	events_mark
	queue_mark
	transfer "$impl" "$case" "$fam" get "$file"
	queued_since
	if [ "$impl" != none ]; then
		# the transfer: every udp entry but the request's (to port 69)
		list=$(timeout 10 conntrack -L -p udp 2>/dev/null)
		mapfile -t lines <<<"$list"
		for line in "${lines[@]}"; do
			[[ $line == *" dport=69 "* ]] && continue
			[[ $line == *" sport="* ]] || continue
			data=$((data + 1))
			[[ $line != *helper=* ]] || helped="${helped:+$helped; }$(tr -s ' ' <<<"$line")"
		done
		if [ "$STATUS" = OK ] && [ "$data" = 0 ]; then
			extra="no conntrack entry of the transfer found"
		elif [ -n "$helped" ]; then
			extra="the transfer's conntrack entry has a helper: $helped"
		elif [ "$QMAX" -gt "$QUEUE_MAX" ]; then
			extra="the helper's queue got $QUEUED packets during the transfer (at most $QUEUE_MAX: the request)"
		fi
		[ -n "$extra" ] || [ "$STATUS" != OK ] || CELL[$impl/$case]="PASS ($QUEUED)"
	fi
	say "$impl/$case: $STATUS: $WHY; queued: $QUEUED; transfer entries: $data${helped:+, helped}"
	outcome "$impl" "$case" "$extra"
}

# case_malformed IMPL CASE: a read request without its NULs
# ("\0\1pxelinux.0octet") from the client: cthelperd must open nothing;
# the kernel's helper, which reads only the opcode, does (a reference
# NOTE).  Sent with bash's /dev/udp and coreutils' printf (one write).
case_malformed() {
	local impl=$1 case=$2 exps
	events_mark
	# shellcheck disable=SC2016  # expanded by the inner bash
	timeout 5 nsenter --net="/run/netns/$TOPO_CL_NS" bash -c \
		'/usr/bin/printf "\000\001pxelinux.0octet" >"/dev/udp/$1/69"' _ "$SV4"
	exps=$(events_since_mark)
	say "$impl/$case: expectations: $exps"
	if [ "$exps" = none ]; then
		CELL[$impl/$case]="nothing"
		verdict "$impl" "$case" ""
	else
		CELL[$impl/$case]="expected!"
		verdict "$impl" "$case" "a malformed request opened an expectation: $exps"
	fi
}

run_case() {
	local impl=$1 name=$2 fam=$3 kind=$4 file=$5
	case $kind in
	get|put) case_transfer "$impl" "$name" "$fam" "$kind" "$file" ;;
	big) case_big "$impl" "$name" "$fam" "$file" ;;
	malformed) case_malformed "$impl" "$name" ;;
	esac
}

# ------------------------------------------------------------ implementations

# cthelperd's configuration: one tftp helper on queue CTH_Q, its declared
# keys at their defaults, debug log.
write_cthelperd_conf() {
	cat >"$W/cthelperd.conf" <<EOF
[server]
plugin_dir = $BUILD/plugins
log_level = debug

[helper tftp]
plugin = tftp
queue = $CTH_Q
ports = 69
loose = no
EOF
}

delete_helpers() { delete_user_helpers tftp udp; }

# impl_start IMPL: make IMPL the active tftp helper, with the CT rules.
# Sets START_WHY and IMPL_QUEUES.
impl_start() {
	local impl=$1
	IMPL_QUEUES=''
	clean_slate || return 1
	[ "$impl" = kernel ] || kernel_helper_absent tftp || return 1
	case $impl in
	none) return 0 ;;
	cthelperd)
		IMPL_QUEUES=$CTH_Q
		cth_built tftp || return 1
		write_cthelperd_conf
		# udp, IPv4 and IPv6
		cth_start "$LOGS/cthelperd.log" "$W/cthelperd.conf" tftp 2 || return 1 ;;
	conntrackd)
		IMPL_QUEUES="$CTD_Q4 $CTD_Q6"
		conntrackd_start "$REPO/tests/tftp/conntrackd.conf" \
			"tftp inet udp" "tftp inet6 udp" || return 1 ;;
	kernel) kernel_helpers_load tftp || return 1 ;;
	esac
	impl_rules tftp "$impl"
}

impl_stop() {
	local impl=$1
	# Rules first: deleting a helper a rule still names leaks it (kernel bug).
	topo_ct_del
	case $impl in
	cthelperd) stop_cthelperd ;;
	conntrackd) conntrackd_stop ;;
	kernel) kernel_helpers_unload tftp ;;
	esac
	helpers_gone_or_say e2e-tftp "$impl"
	if [ "$impl" = kernel ] && grep -qE '^nf_(conntrack|nat)_tftp ' /proc/modules; then
		echo "NOTE kernel/cleanup: nf_conntrack_tftp could not be unloaded"
	fi
}

not_run() {
	local impl=$1 name=$2 why=$3
	CELL[$impl/$name]="n/s"
	case $impl in
	none|cthelperd) echo "FAIL e2e-tftp/$impl/$name: not run: $why" ;;
	*) echo "NOTE $impl/$name: not run: $why" ;;
	esac
}

run_impl() {
	local impl=$1 line name fam mode kind file
	impl_begin "$impl" || return
	for line in "${CASES[@]}"; do
		read -r name fam mode kind file <<<"$line"
		want "$name" || continue
		# the control case has nothing to show without a helper
		[ "$impl/$kind" != none/malformed ] || continue
		progress "$impl/$name"
		[ "$TOPO_MODE" = "$mode" ] || topo_mode "$mode"
		run_case "$impl" "$name" "$fam" "$kind" "$file"
	done
	events_stop
	impl_stop "$impl"
	if [ "$impl" = conntrackd ] && [ -s "$LOGS/conntrackd.log" ]; then
		grep -iE 'error|fail' "$LOGS/conntrackd.log" | head -n 5 | sed 's/^/  conntrackd.log: /'
	fi
}

print_table() {
	print_cells "TFTP end-to-end, side by side (blocked = the transfer was stopped by the firewall, as it must be without a helper; PASSED! = it got through without one; n/s = not started; - = not run):" \
		case 16 18 "${CASES[@]}"
}

# ------------------------------------------------------------ the server

TFTPD_PID=
# tftpd-hpa in the server namespace, both families, chrooted to ROOT
# (-s), files may be created (-c) by its user nobody (ROOT is 0777),
# with the usual permissions only (-p).
start_server() {
	progress "server"
	mkdir -p "$ROOT" && chmod 0777 "$ROOT" || return 1
	head -c 3000 /dev/urandom >"$ROOT/small"
	head -c "$BIG_SIZE" /dev/urandom >"$ROOT/big"
	head -c 2000 /dev/urandom >"$W/upload"
	chmod 0644 "$ROOT/small" "$ROOT/big" "$W/upload"
	nsenter --net="/run/netns/$TOPO_SV_NS" in.tftpd -L -s "$ROOT" -c -p -u nobody \
		>"$LOGS/tftpd.out" 2>&1 &
	TFTPD_PID=$!
	# listening on 69 (v4 and v6) before the first case
	local _
	for _ in $(seq 1 50); do
		[ "$(in_server ss -Hlun 'sport = :69' 2>/dev/null | wc -l)" -ge 2 ] && return 0
		kill -0 "$TFTPD_PID" 2>/dev/null || break
		nap 0.2
	done
	echo "FAIL e2e-tftp/server: in.tftpd did not listen on udp/69: $(tr '\n' ' ' <"$LOGS/tftpd.out")"
	return 1
}

# shellcheck disable=SC2317  # runs from the EXIT trap
cleanup() {
	suite_cleanup
	[ -z "$TFTPD_PID" ] || kill "$TFTPD_PID" 2>/dev/null
	cp "$W"/*.out "$LOGS/" 2>/dev/null
}
trap cleanup EXIT

T0=$SECONDS
progress "topology"
require_tools e2e-tftp "apt-get install tftp-hpa tftpd-hpa" tftp in.tftpd
suite_topology e2e-tftp tftp
start_server || exit 1
say "server up at $((SECONDS - T0)) s"
run_suite "tftp cases"
exit 0
