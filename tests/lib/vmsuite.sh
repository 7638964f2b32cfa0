# shellcheck shell=bash
# shellcheck disable=SC2034  # LINE, COUNT, SIPP_PID, AGENT_FD...: read by the suites
# The frame of the suites that run inside the test VM (tests/e2e, sip,
# tnsrpc, host, ha, ops inside.sh and tests/bench/inside.sh): each starts
#
#   cd "$(dirname "$0")/../.." || exit 1
#   . tests/lib/vmsuite.sh
#   suite_init NAME
#
# which brings tests/lib/topo.sh (the topology) and tests/lib/impl.sh (the
# helper implementations: cthelperd, conntrackd, the kernel's, started and
# stopped), sets REPO, PY, W (the suite's scratch directory), LOGS (where
# logs go: the results share) and BUILD/CTHELPERD.  Their run.sh scripts
# source it on the host for suite_boot alone.
#
#   suite_init NAME             the preamble above (in the VM)
#   suite_boot NAME TIMEOUT VARS ARG...
#                               (on the host) boot the VM on
#                               tests/NAME/inside.sh ARG..., results in RES
#                               (a new run dir unless set), VARS passed in
#   suite_build_dir             BUILD and CTHELPERD from CTH_BUILD
#   suite_cleanup               for the suite's EXIT trap: the daemons,
#                               agents, captures and event listener ended
#   check_impls SUITE KNOWN...  every IMPLS entry is one of KNOWN, or exit
#   until_ms MS / before_deadline / nap SECONDS / wait_line FILE ERE MS /
#   count_lines FILE ERE        polls without processes
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
#   ftp_server_start ARGS...    tests/lib/ftp.py's server in the server
#                               namespace (ARGS: its files); sets FTP_PID
#   events_start NAME / events_stop / events_mark / events_since_mark
#                               "conntrack -E expect" into LOGS/NAME-expect-events.log;
#                               the expectations created since the mark
#   capture_start CASE FAM PLUGIN OPTS [fresh] / capture_stop [SECONDS]
#                               a case captured for the offline replay
#                               (issue 16): tcpdump on both router sides and
#                               the expectation events, into
#                               VM_RESULTS/replay-vm/CASE/ (tests/replay/vmcompare.sh)
#   start_agents SUITE [MS] / sipp_start NS NAME ARGS... /
#   sip_cue NS IP PORT PROTO CALL-ID CSEQ TAG
#                               SIP suites: the media agents (CL_MEDIA,
#                               SV_MEDIA, PEER set by the suite), sipp in
#                               a namespace in the background, the INFO
#                               a sipp caller waits for
#   captured CASE FAM PLUGIN OPTS CMD...
#                               CMD between capture_start ... fresh and
#                               capture_stop 0.3

# shellcheck source=tests/lib/topo.sh
. tests/lib/topo.sh
# shellcheck source=tests/lib/impl.sh
. tests/lib/impl.sh

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

# impl_begin IMPL: start one implementation for the suite's cases (the
# suite's impl_start; impl_stop, CASES, want and not_run IMPL CASE WHY are
# the suite's too, CASES' lines starting with the case name).  Started:
# names the helpers and starts the expectation events, returns 0.  Not
# started: says why with the daemon's log tail, marks every wanted case
# not run, stops what did start, returns 1.
impl_begin() {
	local impl=$1 line name
	say "=== $impl"
	progress "start $impl"
	if impl_start "$impl"; then
		[ "$impl" = none ] || say "helpers: $(nfct_helpers | tr '\n' ' ')"
		events_start "$impl"
		return 0
	fi
	say "$impl could not be started: $START_WHY"
	[ "$impl" != cthelperd ] || show_tail "$LOGS/cthelperd.log" 30
	[ "$impl" != conntrackd ] || show_tail "$LOGS/conntrackd.out" 10
	for line in "${CASES[@]}"; do
		read -r name _ <<<"$line"
		! want "$name" || not_run "$impl" "$name" "$START_WHY"
	done
	impl_stop "$impl"
	return 1
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

# ------------------------------------------------------------ captures for the replay

# Issue 16: some cases of the cthelperd column are captured for the offline
# replay (tests/replay/vmcompare.sh, on the host after the boot).  Per
# case, in $REPLAY_DIR/<case>/ (the results share):
#   client.pcap  tcpdump on r-cl (the router's client side), both directions
#   server.pcap  tcpdump on r-sv (the server side), both directions
#   expect.txt   the lines "conntrack -E expect" (events_start) printed
#                during the case: the kernel's view of the expectations
#   nat.txt      the replay options: the helped port and protocol (OPTS,
#                e.g. "-p 21", "-P udp -p 5060") and topo_replay_nat's NAT
#   plugin       the plugin's name (PLUGIN: ftp, sip, tns, rpc)
#   *.tcpdump    tcpdump's stderr; capture-error when a capture failed,
#                capture-note when tcpdump counted more than it wrote
# TCP and UDP: "tcp" or "udp" does not follow IPv6 extension headers (the
# e2e suite's nat6-*-dstopts puts a Destination Options header, 60,
# before TCP), hence the third term.  -Z root: Debian's tcpdump drops to
# user tcpdump otherwise, who may not write the file.  tcpdump writes to
# tmpfs and the files are copied afterwards: writing each packet over 9p,
# it fell behind by 20 of 77 packets, which were lost when it was stopped.
# --immediate-mode: a packet is handed over when it arrives, not when the
# ring's block is full or its timeout (1 s) expires.
CAP_FILTER='tcp or udp or (ip6[6] == 60 and (ip6[40] == 6 or ip6[40] == 17))'
CAP_PIDS=()
CAP_DIR=
CAP_T0=0
CAP_MS=0
CAP_MARK=0
# capture_start CASE FAM PLUGIN OPTS [fresh]: FAM (4 or 6) picks the NAT
# of the current topology mode for nat.txt.  With fresh, conntrack is
# flushed first: the replay starts from no connection, so the case must
# too (a UDP flow of an earlier case, e.g. SIP's 5060 to 5060, would
# otherwise carry on with the helper's state from then).
capture_start() {
	local case=$1 fam=$2 plugin=$3 opts=$4 side dev lines
	CAP_DIR=${VM_RESULTS:-$W}/replay-vm/$case
	CAP_PIDS=()
	CAP_T0=${EPOCHREALTIME/./}
	mkdir -p "$CAP_DIR" "$W/cap" || return 0
	echo "$opts $(topo_replay_nat "$fam")" >"$CAP_DIR/nat.txt"
	echo "$plugin" >"$CAP_DIR/plugin"
	[ "${5:-}" != fresh ] || topo_flush_conntrack
	for side in client server; do
		[ $side = client ] && dev="r-cl" || dev="r-sv"
		# emptied here, not by the job's redirection: that may come
		# after the first look for "listening on" and leave the last
		# case's line there to be found
		: >"$W/cap/$side.tcpdump"
		timeout 180 tcpdump -i $dev --immediate-mode -U -s 0 -Z root \
			-w "$W/cap/$side.pcap" "$CAP_FILTER" 2>"$W/cap/$side.tcpdump" &
		CAP_PIDS+=($!)
	done
	# tcpdump says "listening on" once its filter is attached (about
	# 1 s under TCG); packets before that would be missing.
	for side in client server; do
		wait_line "$W/cap/$side.tcpdump" 'listening on' 15000 && continue
		echo "$side: tcpdump did not start listening within 15 s" >>"$CAP_DIR/capture-error"
		say "capture $case: tcpdump on the $side side did not start"
	done
	# the expectation events from here on are the case's
	mapfile -t lines <"$EV_LOG"
	CAP_MARK=${#lines[@]}
	CAP_MS=$(((${EPOCHREALTIME/./} - CAP_T0) / 1000))
}
# capture_stop [SECONDS]: after SECONDS (or after events_since_mark, which
# gave the event listener, and tcpdump, 0.3 s): the kernel's expectation
# events since capture_start into expect.txt; SIGTERM to both tcpdumps
# (they flush and close the file; a background job of a script ignores
# SIGINT), up to 5 s.  A capture with fewer packets than its filter let
# through goes to capture-note, not capture-error: seen once with both
# files complete (the 71st packet was in neither), and a capture that
# really missed a packet of a helped flow fails the comparison anyway
# (vmcompare.sh quotes the note then).
capture_stop() {
	local pid side lines cap rcv drop line
	[ -n "$CAP_DIR" ] || return 0
	[ -z "${1:-}" ] || nap "$1"
	mapfile -t -s "$CAP_MARK" lines <"$EV_LOG"
	printf '%s\n' "${lines[@]}" >"$CAP_DIR/expect.txt"
	CAP_T0=${EPOCHREALTIME/./}
	kill -TERM "${CAP_PIDS[@]}" 2>/dev/null
	until_ms 5000
	for pid in "${CAP_PIDS[@]}"; do
		while kill -0 "$pid" 2>/dev/null && before_deadline; do nap 0.1; done
		if kill -0 "$pid" 2>/dev/null; then
			kill -KILL "$pid" 2>/dev/null
			echo "tcpdump $pid did not stop on SIGTERM within 5 s" >>"$CAP_DIR/capture-error"
		fi
		wait "$pid" 2>/dev/null
	done
	for side in client server; do
		cap='' rcv='' drop=''
		mapfile -t lines <"$W/cap/$side.tcpdump"
		for line in "${lines[@]}"; do
			[[ $line =~ ^([0-9]+)\ packets?\ captured ]] && cap=${BASH_REMATCH[1]}
			[[ $line =~ ^([0-9]+)\ packets?\ received\ by\ filter ]] && rcv=${BASH_REMATCH[1]}
			[[ $line =~ ^([0-9]+)\ packets?\ dropped\ by\ kernel ]] && drop=${BASH_REMATCH[1]}
		done
		[ -n "$cap" ] && [ "$cap" = "$rcv" ] && [ "$drop" = 0 ] ||
			echo "$side: tcpdump captured ${cap:-?} of ${rcv:-?} packets, ${drop:-?} dropped by the kernel" >>"$CAP_DIR/capture-note"
	done
	cp "$W/cap/client.pcap" "$W/cap/server.pcap" "$W/cap/client.tcpdump" \
		"$W/cap/server.tcpdump" "$CAP_DIR/" 2>>"$CAP_DIR/capture-error"
	for line in capture-error capture-note; do
		[ -s "$CAP_DIR/$line" ] || continue
		mapfile -t lines <"$CAP_DIR/$line"
		say "${line/-/ } ${CAP_DIR##*/}: ${lines[*]}"
	done
	say "capture ${CAP_DIR##*/}: tcpdump start ${CAP_MS} ms, stop and copy $(((${EPOCHREALTIME/./} - CAP_T0) / 1000)) ms"
	CAP_PIDS=()
	CAP_DIR=
}
# captured CASE FAM PLUGIN OPTS CMD...: CMD (a whole case) captured, from
# no connection on (fresh).
captured() {
	local case=$1 fam=$2 plugin=$3 opts=$4
	shift 4
	capture_start "$case" "$fam" "$plugin" "$opts" fresh
	"$@"
	capture_stop 0.3
}

# ------------------------------------------------------------ the suite

# suite_init NAME: the preamble of tests/NAME/inside.sh, run from the
# repo root.  W is the suite's scratch directory (a tmpfs in the VM);
# outside the VM its logs stay there too.
suite_init() {
	REPO=$PWD
	PY=/usr/bin/python3
	W=/tmp/$1
	LOGS=${VM_RESULTS:-$W}/logs
	suite_build_dir
	mkdir -p "$W" "$LOGS"
}

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

# suite_account NAME RC: the suite's own closing line, from the PASS and
# FAIL lines the VM wrote (tests/run.sh adds up every suite's lines); a
# run that failed (RC) without a FAIL line counts as one failure.
suite_account() {
	local name=$1 rc=$2 p=0 f=0
	if [ -f "$RES/stdout" ]; then
		p=$(grep -c '^PASS ' "$RES/stdout")
		f=$(grep -c '^FAIL ' "$RES/stdout")
	fi
	[ "$rc" = 0 ] || [ "$f" -gt 0 ] || f=1
	echo "$name: $p passed, $f failed, 0 skipped"
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

# suite_cleanup: what every suite's EXIT trap ends (then its own): the
# daemons, the media agents, the test FTP server, the captures and the
# event listener.
# shellcheck disable=SC2317  # runs from the EXIT trap
suite_cleanup() {
	local p
	[ -z "$CTH_PID" ] || kill -KILL "$CTH_PID" 2>/dev/null
	[ -z "$CTD_PID" ] || kill -KILL "$CTD_PID" 2>/dev/null
	for p in "${AGENT_PID[@]}" "${FTP_PID:-}"; do
		[ -z "$p" ] || kill "$p" 2>/dev/null
	done
	[ ${#CAP_PIDS[@]} = 0 ] || kill -TERM "${CAP_PIDS[@]}" 2>/dev/null
	events_stop
	return 0
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

# ------------------------------------------------------------ the test FTP server

# ftp_server_start ARGS...: tests/lib/ftp.py's server (FTP set by the
# suite) in the server namespace, its files in W/ftproot (ARGS: their
# sizes, names, families), its log in LOGS; up to 60 s for its ready file
# and META (the files' description, set by the suite).  Sets FTP_PID; 1
# when it did not start.
ftp_server_start() {
	rm -rf "$W/ftproot" "$W/ftp.ready"
	in_server "$PY" "$FTP" server --root "$W/ftproot" "$@" \
		--ready "$W/ftp.ready" --log "$LOGS/ftp-server.log" \
		>"$LOGS/ftp-server.out" 2>&1 &
	FTP_PID=$!
	until_ms 60000
	while before_deadline; do
		[ -s "$W/ftp.ready" ] && [ -s "$META" ] && return 0
		kill -0 "$FTP_PID" 2>/dev/null || return 1
		nap 0.2
	done
	return 1
}

# ------------------------------------------------------------ SIP suites (tests/sip, tests/ha)

# start_agents SUITE [MS]: one udp agent (tests/host/peer.py udp-agent)
# per namespace for the whole run (MS: how long to wait for them, 20 s by
# default; SUITE names the FAIL line): it listens on that side's media ports (client ns CL_MEDIA up to +3,
# server ns SV_MEDIA up to +3) and sends the datagrams the test writes to its
# stdin, each from a fresh socket.  Its output, $W/media-<ns>.log, has a
# "got PORT SRC-ADDR SRC-PORT TOKEN" line per datagram received and a
# "sent ..." or "error ..." line per datagram sent.  A probe thus costs
# no python start (seconds under TCG).
declare -A AGENT_FD AGENT_PID
start_agents() {
	local suite=$1 wait=${2:-20000} ns port fd
	for ns in "$TOPO_CL_NS" "$TOPO_SV_NS"; do
		port=$CL_MEDIA
		[ "$ns" = "$TOPO_SV_NS" ] && port=$SV_MEDIA
		rm -f "$W/media-$ns.in"
		mkfifo "$W/media-$ns.in" || return 1
		# Opened read-write, the FIFO never blocks and never sees EOF
		# while this script runs.
		exec {fd}<>"$W/media-$ns.in"
		AGENT_FD[$ns]=$fd
		nsenter --net="/run/netns/$ns" "$PY" -u "$PEER" udp-agent \
			"$port" $((port + 1)) $((port + 2)) $((port + 3)) \
			<"$W/media-$ns.in" >"$W/media-$ns.log" 2>&1 &
		AGENT_PID[$ns]=$!
	done
	for ns in "$TOPO_CL_NS" "$TOPO_SV_NS"; do
		wait_line "$W/media-$ns.log" '^ready' "$wait" ||
			{ echo "FAIL $suite/media-agents: $(head -n 3 "$W/media-$ns.log")"; return 1; }
	done
}

# sipp_start NS NAME ARGS...: sipp in netns NS, in the background, with
# its logs LOGS/NAME.{msg,err,out}; sets SIPP_PID.  -m 1: one call;
# -nostdin: it runs without a terminal.  Its cwd is $W (the repo is
# read-only in the VM).
sipp_start() {
	local ns=$1 name=$2
	shift 2
	rm -f "$LOGS/$name".{msg,err,out}
	timeout $((SIPP_TIMEOUT + 10)) nsenter --net="/run/netns/$ns" --wd="$W" \
		sipp -nostdin -m 1 -timeout "${SIPP_TIMEOUT}s" \
		-trace_msg -message_file "$LOGS/$name.msg" \
		-trace_err -error_file "$LOGS/$name.err" "$@" >"$LOGS/$name.out" 2>&1 &
	SIPP_PID=$!
}

# sip_cue NS IP PORT PROTO CALL-ID CSEQ TAG: the INFO a sipp caller
# scenario waits for (its cue to go on), sent to IP:PORT over PROTO (udp,
# tcp) from the caller's own namespace NS, never crossing a router.
sip_cue() {
	local ns=$1 ip=$2 port=$3 proto=$4 cid=$5 cseq=$6 tag=$7 uri=$2
	[[ $uri == *:* ]] && uri="[$uri]"
	local msg="INFO sip:caller@$uri SIP/2.0"$'\r\n'
	msg+="Via: SIP/2.0/${proto^^} $uri:9;branch=z9hG4bK$tag"$'\r\n'
	msg+="From: <sip:test@$uri>;tag=$tag"$'\r\n'"To: <sip:caller@$uri>"$'\r\n'
	msg+="Call-ID: $cid"$'\r\n'"CSeq: $cseq INFO"$'\r\n'"Content-Length: 0"$'\r\n\r\n'
	# bash's /dev/udp sends each write() as a datagram, and its builtin
	# printf writes line by line (seen in the VM): coreutils' printf
	# writes the whole message at once.
	# shellcheck disable=SC2016  # expanded by the inner bash
	timeout 5 nsenter --net="/run/netns/$ns" bash -c \
		'/usr/bin/printf "%s" "$1" >"/dev/$2/$3/$4"' _ "$msg" "$proto" "$ip" "$port"
}
