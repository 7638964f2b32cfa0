#!/bin/bash
# SIP end-to-end scenarios, run inside the test VM by tests/sip/run.sh (one
# boot for everything).  Each scenario runs against each helper
# implementation:
#
#   none        no helper, no CT rule: media and the call to a registered
#               phone must be blocked (the firewall works);
#               counted: e2e-sip/none/<case>
#   cthelperd   $CTH_BUILD/cthelperd with the sip plugin;
#               counted: e2e-sip/cthelperd/<case>
#   kernel      nf_conntrack_sip + nf_nat_sip: the reference; failures are
#               "NOTE kernel/<case>: ..." lines, not counted
#   running     a daemon started outside this script that serves the four
#               sip helpers (tests/deb: the installed package's, under
#               its unit); never started, stopped or unregistered here
#               (no clean-stop); only when asked for;
#               counted: e2e-sip/running/<case>
#
# The user agents are sipp (scenario files next to this script) and, where
# sipp cannot play the part (an INVITE split across TCP segments),
# tests/lib/sip.py; media is probed with tests/host/peer.py's udp-agent.
# tests/sip/README.md has the table of what each case checks.
#
# Usage: inside.sh [IMPL...]   (default: none cthelperd kernel)
# Environment: CTH_BUILD = the daemon's build dir (default build; relative
# to the repo); SIP_ONLY = an extended regex: only the cases whose name
# matches run (the others show "-").
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/lib/vmsuite.sh
. tests/lib/vmsuite.sh
# shellcheck source=tests/lib/trunk.sh
. tests/lib/trunk.sh
suite_init sip

PEER=$REPO/tests/host/peer.py
SIPPY=$REPO/tests/lib/sip.py
SCEN=$REPO/tests/sip
# The SDP audio port each side announces (RTCP: +1), by namespace; the
# video port (never used during a call: the after-BYE check) is 2 above.
# The media listeners are bound to all four for the whole run.
CL_MEDIA=30000
SV_MEDIA=40000
# sipp's own bound (-timeout) and the wrapper's, in seconds: a call that
# hangs ends there, well before the VM's timeout.
SIPP_TIMEOUT=30
# How long (ms, wall clock) a call step may take before the test calls it
# blocked or lost: the callee seeing the INVITE (sipp retransmits it every
# 0.5-2 s), then the ACK.
INVITE_WAIT=6000
ACK_WAIT=10000
# Media: how long to wait for a probe that must arrive, and how long one
# that must not arrive is given (veth delivers in well under a second).
ARRIVE_WAIT=4000
BLOCK_WAIT=1500

# kmod/'s module for the cthelperd-kmod column (issue 34: the plugin's
# match rules filter there): tests/sip/run.sh passes a copy
KMOD=${CTH_KMOD:-build/kmod/cthelperd_nfnl.ko}
IMPLS=("$@")
if [ ${#IMPLS[@]} -eq 0 ]; then
	IMPLS=(none cthelperd kernel)
	if [ -f "$KMOD" ]; then
		IMPLS+=(cthelperd-kmod)
	else
		echo "SKIP e2e-sip/cthelperd-kmod: $KMOD not built (tests/kmod/run.sh --build-only)"
	fi
fi
check_impls e2e-sip none cthelperd cthelperd-kmod kernel running
# The kernel's helper last: it is unloaded afterwards, and while it is
# loaded a user-space "sip" helper cannot be registered (EBUSY).
SORTED=()
for impl in none cthelperd cthelperd-kmod running kernel; do
	[[ " ${IMPLS[*]} " == *" $impl "* ]] && SORTED+=("$impl")
done
IMPLS=("${SORTED[@]}")

CASES=(udp-call register-invite masq-call tcp-call v6-call tcp-split-invite
	masq-register dnat-call trunk clean-stop)
# Cases the kernel's helper is known to fail (beyond the kernel): its
# NOTE line says why, its cell says "FAIL (expected)".
declare -A KERNEL_FAILS=([tcp-split-invite]="expected: nf_conntrack_sip skips a message split across TCP segments"
	[trunk]="expected: nf_conntrack_sip removes a flow's media expectations at every INVITE and keeps 4 audio expectations a flow")
declare -A CELL    # CELL[impl/case] = text for the table
declare -A COLNAME=([none]="no helper" [cthelperd]=cthelperd [cthelperd-kmod]="cthelperd+kmod" [kernel]=nf_conntrack_sip [running]="running daemon")
is_cth() { [ "$1" = cthelperd ] || [ "$1" = cthelperd-kmod ]; }
want() { [ -z "${SIP_ONLY:-}" ] || [[ $1 =~ ^($SIP_ONLY)$ ]]; }

# ------------------------------------------------------------ reporting

# verdict IMPL CASE WHY: the case's PASS/FAIL/NOTE line and table cell.  In
# the no-helper column the caller has already turned "blocked" into an
# empty WHY and sets the cell itself.
verdict() {
	local impl=$1 case=$2 why=$3
	if [ "$impl" = kernel ]; then
		CELL[$impl/$case]=$([ -z "$why" ] && echo PASS || echo FAIL)
		if [ -n "$why" ] && [ -n "${KERNEL_FAILS[$case]:-}" ]; then
			CELL[$impl/$case]="FAIL (expected)"
			why="${KERNEL_FAILS[$case]}: $why"
		fi
		[ -z "$why" ] || echo "NOTE kernel/$case: $why"
		return
	fi
	[ -n "${CELL[$impl/$case]:-}" ] || CELL[$impl/$case]=$([ -z "$why" ] && echo PASS || echo FAIL)
	if [ -z "$why" ]; then
		echo "PASS e2e-sip/$impl/$case"
	else
		echo "FAIL e2e-sip/$impl/$case: $why"
	fi
}

# What a failed case leaves to look at: both sipp logs, the kernel's view
# (connections, expectations, expectations created during the case) and
# the daemon's log.
diagnose() {
	local impl=$1 f
	for f in "$CALLER" "$CALLEE"; do
		show_tail "$f.err" 6
		if grep -q '^segments ' "$f.out" 2>/dev/null; then
			echo "  $(basename "$f"): tests/lib/sip.py says: $(paste -sd';' "$f.out")"
			continue
		fi
		[ -s "$f.out" ] && echo "  $(basename "$f"): sipp says: $(grep -E 'Successful call|Failed call' "$f.out" | tr -s ' |' ' ' | paste -sd';' -)$(grep -iE 'error|abort|unable' "$f.out" | tail -n 2 | paste -sd';' -)"
	done
	echo "  --- conntrack -L (udp, tcp)"
	conntrack -L 2>/dev/null | grep -E '^(udp|tcp)' | tr -s ' ' | sed 's/^/  | /'
	echo "  --- conntrack -L expect"
	conntrack -L expect 2>/dev/null | tr -s ' ' | sed 's/^/  | /'
	echo "  expectations created during the case: $(events_since_mark)"
	if is_cth "$impl"; then
		show_tail "$LOGS/$impl.log" 20
		[ -z "$CTH_PID" ] || kill -0 "$CTH_PID" 2>/dev/null || echo "  cthelperd is no longer running"
	fi
}

# ------------------------------------------------------------ sipp

# sip_msg FILE sent|received START-ERE [CSEQ-METHOD]: the first message in
# sipp's -trace_msg log FILE that this side sent or received, whose start
# line matches START-ERE and (if given) whose CSeq names CSEQ-METHOD; CRs
# removed.  sipp frames each message with a "-----... date" line, a
# "UDP message sent (N bytes):" / "TCP message received [N] bytes :" line
# and an empty line.
sip_msg() {
	awk -v dir=" message $2" -v start="$3" -v method="${4:-}" '
		function check() {
			if (want && n > 0 && msg[0] ~ start && (method == "" || cseq ~ " " method "$")) {
				for (i = 0; i < n; i++) print msg[i]
				found = 1
				exit
			}
		}
		/^-----------------------------------------------/ { check(); n = 0; cseq = ""; state = 1; next }
		state == 1 { want = index($0, dir) > 0; state = 2; next }
		state == 2 { state = 0; next }
		{ sub(/\r$/, ""); msg[n++] = $0; if ($0 ~ /^CSeq:/) cseq = $0 }
		END { if (!found) check() }
	' "$1" 2>/dev/null
}

# sdp_field MSG c|m|v|o: the value of the first "c=" (address), "m=audio"
# (port), "m=video" (port) or "o=" (address) line of a message.
sdp_field() {
	local re line
	case $2 in
	c) re='^c=IN IP[46] ([^ ]+)' ;;
	m) re='^m=audio ([0-9]+) ' ;;
	v) re='^m=video ([0-9]+) ' ;;
	o) re='^o=.* IN IP[46] ([^ ]+)' ;;
	esac
	while IFS= read -r line; do
		[[ $line =~ $re ]] && { echo "${BASH_REMATCH[1]}"; return; }
	done <<<"$1"
}

# first_line MSG PREFIX: the message's first line that starts with PREFIX.
first_line() {
	local line
	while IFS= read -r line; do
		[[ $line == "$2"* ]] && { echo "$line"; return; }
	done <<<"$1"
}


# wait_listen NS udp|tcp FAMILY: up to 5 s for a socket bound to port 5060
# (UDP) or listening on it (TCP) in NS.  Read from /proc/PID/net of the
# namespace's media agent: the namespace's own view, without entering it.
wait_listen() {
	local ns=$1 file=/proc/${AGENT_PID[$1]}/net/$2 state=07 line lines
	[ "$3" = 6 ] && file+=6
	[ "$2" = tcp ] && state=0A
	until_ms 5000
	while :; do
		mapfile -t lines <"$file"
		for line in "${lines[@]}"; do
			# "  sl  local_address rem_address   st ...", port in hex
			[[ $line =~ ^\ *[0-9]+:\ [0-9A-F]+:13C4\ [0-9A-F]+:[0-9A-F]+\ $state\  ]] && return 0
		done
		before_deadline || return 1
		nap 0.1
	done
}

# One call, in three steps so that a case can probe media while it is up:
#
#   call_begin CASE PROTO UAC_NS UAC_IP UAC_PORT UAS_NS UAS_IP DIAL [DPORT]
#       the callee (sipp call-uas.xml) listens on UAS_IP:5060 in UAS_NS;
#       the caller (call-uac.xml) calls DIAL:DPORT (default 5060) from
#       UAC_IP:UAC_PORT in UAC_NS over PROTO (udp or tcp).  With
#       CALL_TOOL=split the caller is tests/lib/sip.py split-call instead
#       (TCP only, from an ephemeral port): its INVITE goes out as two TCP
#       segments, and its "segments N R" line is in CALLER.out.  Returns 0
#       once the callee has the ACK; else 1 with CALL_WHY (CALL_STEP =
#       invite when the INVITE never reached the callee: what "blocked"
#       means for a call).
#   call_end
#       the hang-up cue, then BYE/200; 0 if both user agents exit 0, else
#       CALL_WHY.
#   call_abort
#       stop both.
#
# The SDP of each side names its namespace's media ports.  Logs:
# LOGS/IMPL-CASE-caller.* and -callee.*: CALLER and CALLEE (without suffix).
CALL_TOOL=sipp
SPLIT_FD=
call_begin() {
	local case=$1 proto=$2 uac_ns=$3 uac_ip=$4 uac_port=$5 uas_ns=$6 uas_ip=$7 dial=$8 dport=${9:-5060}
	local t=() uac_media=$CL_MEDIA uas_media=$SV_MEDIA fam=4 host=$dial
	[ "$proto" = tcp ] && t=(-t t1)
	[[ $uas_ip == *:* ]] && fam=6
	[ "$uac_ns" = "$TOPO_SV_NS" ] && uac_media=$SV_MEDIA uas_media=$CL_MEDIA
	[[ $dial == *:* ]] && host="[$dial]"
	CALLER=$LOGS/$IMPL-$case-caller CALLEE=$LOGS/$IMPL-$case-callee
	CALL_UAC=("$uac_ns" "$uac_ip" "$uac_port" "$proto") CALL_ID="$case-1@sip.test"
	CALL_WHY='' CALL_STEP=start UAC_PID='' UAS_PID=''
	sipp_start "$uas_ns" "$(basename "$CALLEE")" -sf "$SCEN/call-uas.xml" "${t[@]}" \
		-i "$uas_ip" -p 5060 -key sdp_port "$uas_media" -key video_port $((uas_media + 2))
	UAS_PID=$SIPP_PID
	if ! wait_listen "$uas_ns" "$proto" "$fam"; then
		CALL_WHY="the callee (sipp) is not listening on $proto $uas_ip:5060: $(tail -n 3 "$CALLEE.out" | tr '\n' ' ')"
		return 1
	fi
	if [ "$CALL_TOOL" = split ]; then
		split_start "$uac_ns" "$uac_ip" "$dial" "$dport" "$uac_media" || return 1
	else
		# -cid_str fixes the Call-ID, which the hang-up cue must name.
		sipp_start "$uac_ns" "$(basename "$CALLER")" -sf "$SCEN/call-uac.xml" "${t[@]}" \
			-i "$uac_ip" -p "$uac_port" -key sdp_port "$uac_media" \
			-key video_port $((uac_media + 2)) \
			-cid_str "$case-%u@sip.test" "$host:$dport"
		UAC_PID=$SIPP_PID
	fi
	CALL_STEP=invite
	if ! wait_line "$CALLEE.msg" '^(UDP|TCP) message received' "$INVITE_WAIT"; then
		CALL_WHY="the callee did not receive the INVITE within $((INVITE_WAIT / 1000)) s"
		return 1
	fi
	CALL_STEP=ack
	if ! wait_line "$CALLEE.msg" '^ACK ' "$ACK_WAIT"; then
		CALL_WHY="the callee got the INVITE but no ACK within $((ACK_WAIT / 1000)) s (the 200 or the ACK was lost)"
		return 1
	fi
	CALL_STEP=up
}

# split_start NS IP DIAL DPORT MEDIA: tests/lib/sip.py split-call as the
# caller, its stdin a FIFO (the hang-up cue is a line "bye"); up to 20 s
# (a python start under TCG) for its "segments" line, i.e. the INVITE is
# out.  Sets UAC_PID and SPLIT_FD.
split_start() {
	local ns=$1 ip=$2 dial=$3 dport=$4 media=$5
	rm -f "$CALLER".{msg,out} "$W/split.in"
	mkfifo "$W/split.in" || { CALL_WHY="mkfifo $W/split.in failed"; return 1; }
	exec {SPLIT_FD}<>"$W/split.in"
	timeout $((SIPP_TIMEOUT + 10)) nsenter --net="/run/netns/$ns" \
		"$PY" -u "$SIPPY" split-call "$ip" "$dial" "$dport" "$media" "$CALL_ID" "$CALLER.msg" \
		<"$W/split.in" >"$CALLER.out" 2>&1 &
	UAC_PID=$!
	if ! wait_line "$CALLER.out" '^(segments|error)' 20000; then
		CALL_WHY="tests/lib/sip.py did not send its INVITE within 20 s: $(tail -n 3 "$CALLER.out" | tr '\n' ' ')"
		return 1
	fi
}

# The cue is an INFO with the call's Call-ID, sent to the caller from its
# own namespace (it never crosses the router); the caller then says BYE.
# (tests/lib/sip.py takes a line "bye" on its stdin.)
hangup_cue() {
	if [ "$CALL_TOOL" = split ]; then
		echo bye >&"$SPLIT_FD"
		return
	fi
	sip_cue "${CALL_UAC[0]}" "${CALL_UAC[1]}" "${CALL_UAC[2]}" "${CALL_UAC[3]}" \
		"$CALL_ID" 1 hangup
}

call_end() {
	local rc_uac rc_uas
	CALL_STEP=bye
	hangup_cue || { CALL_WHY="could not send the hang-up cue to the caller"; call_abort; return 1; }
	wait "$UAC_PID"; rc_uac=$?
	wait "$UAS_PID"; rc_uas=$?
	UAC_PID='' UAS_PID=''
	split_close
	[ $rc_uac = 0 ] && [ $rc_uas = 0 ] && return 0
	CALL_WHY="the call did not end cleanly: caller ($CALL_TOOL) status $rc_uac, callee sipp status $rc_uas (0 = the call succeeded; 124 = killed after $((SIPP_TIMEOUT + 10)) s)"
	[ "$CALL_TOOL" = split ] && CALL_WHY+="; sip.py says: $(grep -m1 '^error' "$CALLER.out")"
	return 1
}

call_abort() {
	local p
	for p in $UAC_PID $UAS_PID; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	UAC_PID='' UAS_PID=''
	split_close
}

split_close() {
	[ -n "$SPLIT_FD" ] || return 0
	exec {SPLIT_FD}>&-
	SPLIT_FD=
}

# ------------------------------------------------------------ media


# media_probe TAG WAIT NAME,NS,ADDR,PORT...: one datagram per probe, sent
# from namespace NS to ADDR:PORT from a fresh source port (a new flow: it
# passes only as an expected connection); then up to WAIT ms for them at
# the agents.  Sets GOT and MISSED (probe names) and ARRIVALS (what the
# agents received, for the log).
media_probe() {
	local tag=$1 wait=$2 p name ns addr port line lines n
	shift 2
	for p in "$@"; do
		IFS=, read -r name ns addr port <<<"$p"
		echo "$addr $port $tag/$name" >&"${AGENT_FD[$ns]}"
	done
	# Sent (or refused) first: only then does waiting for arrivals count.
	until_ms 10000
	while :; do
		agent_lines "$tag"
		n=0
		for line in "${AGENT_LINES[@]}"; do
			[[ $line == sent\ * || $line == error\ * ]] && n=$((n + 1))
		done
		[ "$n" -ge $# ] && break
		before_deadline || break
		nap 0.1
	done
	for line in "${AGENT_LINES[@]}"; do
		[[ $line == error\ * ]] && echo "  agent: $line"
	done
	until_ms "$wait"
	while :; do
		agent_lines "$tag"
		lines=()
		for line in "${AGENT_LINES[@]}"; do
			[[ $line == got\ * ]] && lines+=("${line#got }")
		done
		GOT=() MISSED=()
		for p in "$@"; do
			name=${p%%,*}
			if [[ " ${lines[*]} " == *" $tag/$name "* ]]; then GOT+=("$name"); else MISSED+=("$name"); fi
		done
		[ ${#MISSED[@]} = 0 ] && break
		before_deadline || break
		nap 0.1
	done
	ARRIVALS=
	for line in "${lines[@]}"; do ARRIVALS+="$line;"; done
}

# agent_lines TAG: the agents' output lines about TAG's probes, in
# AGENT_LINES.
agent_lines() {
	local f line lines
	AGENT_LINES=()
	for f in "$W"/media-*.log; do
		mapfile -t lines <"$f"
		for line in "${lines[@]}"; do
			[[ $line == *" $1/"* ]] && AGENT_LINES+=("$line")
		done
	done
}

# ------------------------------------------------------------ the call cases

# call_case IMPL CASE PROTO FAMILY: udp-call, masq-call, tcp-call, v6-call,
# tcp-split-invite, dnat-call.  The caller (client ns) calls the callee
# (server ns); then call_media: media while the call is up, and after the
# BYE.  What else each case checks:
#   plain (udp-call, tcp-call, v6-call): both SDPs arrive as sent.
#   masq (masq-call): the callee sees the router's address in Via,
#     Contact, o= and c=, and sends its media there.
#   dnat (dnat-call): the caller dials the router; the 200 reaches it with
#     the router's address in Contact, o= and c=, and it sends its media
#     there.
#   tcp-split-invite: the caller is tests/lib/sip.py, whose INVITE goes
#     out as two TCP segments (headers, then the SDP body); its TCP_INFO
#     counters must show two data segments and no retransmission, or
#     nothing was proven.
call_case() {
	local impl=$1 case=$2 proto=$3 fam=$4 why="" cl=$CL4 sv=$SV4 dial
	[ "$fam" = 6 ] && cl=$CL6 sv=$SV6
	dial=$sv
	[ "$TOPO_MODE" = dnat ] && dial=$R_CL4
	CALL_TOOL=sipp
	[ "$case" = tcp-split-invite ] && CALL_TOOL="split"
	progress "$impl/$case"
	events_mark
	if ! call_begin "$case" "$proto" "$TOPO_CL_NS" "$cl" 5060 "$TOPO_SV_NS" "$sv" "$dial"; then
		call_abort
		CALL_TOOL=sipp
		if [ "$impl" = none ]; then
			CELL[$impl/$case]=error
			verdict "$impl" "$case" "the call itself failed, so nothing was proven: $CALL_WHY"
		else
			verdict "$impl" "$case" "$CALL_WHY"
		fi
		diagnose "$impl"
		return
	fi

	# What each side received, and where its media must go.  Without NAT
	# the SDP must arrive as sent; under masq the caller's addresses must
	# have become the router's, under dnat the callee's.
	local invite ok200 to_caller=$cl to_callee=$sv
	invite=$(sip_msg "$CALLEE.msg" received '^INVITE ')
	ok200=$(sip_msg "$CALLER.msg" received '^SIP/2.0 200' INVITE)
	[ "$TOPO_MODE" = masq ] && to_caller=$R_SV4
	[ "$TOPO_MODE" = dnat ] && to_callee=$R_CL4
	if [ "$TOPO_MODE" != plain ]; then
		nat_diff "$impl" "$case"
	fi
	if [ "$impl" != none ]; then
		case $TOPO_MODE in
		masq) why=$(nat_headers "$invite" "$R_SV4" callee via) ;;
		dnat) why=$(nat_headers "$ok200" "$R_CL4" caller) ;;
		esac
		[ "$TOPO_MODE" = masq ] || [ "$(sdp_field "$invite" c)" = "$to_caller" ] ||
			why="${why:+$why; }the INVITE's SDP reached the callee with c=$(sdp_field "$invite" c), want $to_caller"
		[ "$TOPO_MODE" = dnat ] || [ "$(sdp_field "$ok200" c)" = "$to_callee" ] ||
			why="${why:+$why; }the 200's SDP reached the caller with c=$(sdp_field "$ok200" c), want $to_callee"
	fi
	if [ "$CALL_TOOL" = split ]; then
		local segs
		segs=$(grep -m1 '^segments ' "$CALLER.out")
		say "$impl/$case: the INVITE left the caller as: data segments, retransmissions: ${segs#segments }"
		if [ "$segs" != "segments 2 0" ]; then
			call_abort
			CALL_TOOL=sipp
			why="the INVITE did not go out as exactly two TCP segments without retransmission (TCP_INFO: ${segs:-nothing}), so nothing was proven"
			[ "$impl" = none ] && CELL[$impl/$case]=error
			verdict "$impl" "$case" "$why"
			diagnose "$impl"
			return
		fi
		is_cth "$impl" &&
			say "$impl/$case: the daemon on it: $(grep -m1 'message continues in the next segment' "$LOGS/$impl.log" | sed 's/^.*\] //')"
	fi
	call_media "$impl" "$case" "$why" \
		"$TOPO_CL_NS,$to_caller,$(sdp_field "$invite" m),$(sdp_field "$invite" v)" \
		"$TOPO_SV_NS,$to_callee,$(sdp_field "$ok200" m),$(sdp_field "$ok200" v)" \
		"$cl" "$dial"
	CALL_TOOL=sipp
}

# call_media IMPL CASE WHY UAC UAS MASTER-SRC MASTER-DST: the second half of
# every call case, once call_begin has succeeded and the case has checked
# what the SIP said (WHY: what is wrong so far).  UAC and UAS are
# "NS,ADDR,AUDIO,VIDEO": each side's namespace and where its media must go
# (the address and audio/video ports in the SDP the other side received).
# MASTER-SRC MASTER-DST: the signalling connection's original addresses.
#
#   while the call is up: RTP and RTCP of the audio line both ways must
#     arrive; the video line (announced, never used) must have its
#     expectations (conntrack -E expect);
#   hang up;
#   right after the BYE's 200: no media expectation (class 1..3) of the
#     master may be left (conntrack -L expect);
#   then, with the audio conntracks deleted, new RTP to the audio ports
#     and to the unused video ports, both ways, must be blocked.  The
#     kernel's expectations are one-shot: the audio probes while the call
#     is up use them up, so only the video line shows a helper that
#     ignores the BYE.
# In the no-helper column: blocked = nothing arrived while the call was up.
call_media() {
	local impl=$1 case=$2 why=$3 ms=$6 md=$7
	local uac_ns to_uac a_uac v_uac uas_ns to_uas a_uas v_uas
	IFS=, read -r uac_ns to_uac a_uac v_uac <<<"$4"
	IFS=, read -r uas_ns to_uas a_uas v_uas <<<"$5"
	[ -n "$a_uac" ] || { why="${why:+$why; }no m=audio port in the SDP the callee received"; a_uac=0; }
	[ -n "$a_uas" ] || { why="${why:+$why; }no m=audio port in the SDP the caller received"; a_uas=0; }
	[ -n "$v_uac" ] || { why="${why:+$why; }no m=video port in the SDP the callee received"; v_uac=0; }
	[ -n "$v_uas" ] || { why="${why:+$why; }no m=video port in the SDP the caller received"; v_uas=0; }

	local wait=$ARRIVE_WAIT
	[ "$impl" = none ] && wait=$BLOCK_WAIT
	progress "$impl/$case: media while the call is up"
	media_probe "$impl/$case/up" "$wait" \
		"rtp-to-caller,$uas_ns,$to_uac,$a_uac" \
		"rtcp-to-caller,$uas_ns,$to_uac,$((a_uac + 1))" \
		"rtp-to-callee,$uac_ns,$to_uas,$a_uas" \
		"rtcp-to-callee,$uac_ns,$to_uas,$((a_uas + 1))"
	say "$impl/$case: media while the call is up (callee -> $to_uac:$a_uac/+1, caller -> $to_uas:$a_uas/+1): arrived: ${GOT[*]:-none}; listeners saw: ${ARRIVALS:-nothing}"
	local up_got=("${GOT[@]}") up_missed=("${MISSED[@]}")
	# Under DNAT the caller only knows the address it dialled: the
	# callee's media must come from there (nf_nat_sip maps it so), or a
	# phone that answers media to its source (symmetric RTP) sends it
	# nowhere.
	if [ "$TOPO_MODE" = dnat ] && [ "$impl" != none ]; then
		local src
		src=$(tr ';' '\n' <<<"$ARRIVALS" | awk -v p="$a_uac" '$1 == p { print $2; exit }')
		say "$impl/$case: the callee's RTP reached the caller from ${src:-nowhere}"
		[ "$src" = "$R_CL4" ] ||
			why="${why:+$why; }the callee's RTP reached the caller from ${src:-nowhere}, want the address the caller dialled, $R_CL4"
	fi
	# Without these the after-BYE check below proves nothing.
	if [ "$impl" != none ]; then
		local vmiss=()
		event_seen "\[NEW\].* dst=$to_uac sport=0 dport=$v_uac .* class=2( |\$)" 2000 ||
			vmiss+=("to the caller $to_uac:$v_uac")
		event_seen "\[NEW\].* dst=$to_uas sport=0 dport=$v_uas .* class=2( |\$)" 2000 ||
			vmiss+=("to the callee $to_uas:$v_uas")
		[ ${#vmiss[@]} = 0 ] ||
			why="${why:+$why; }no video expectation (class 2) while the call was up ${vmiss[*]}"
	fi

	progress "$impl/$case: hang up"
	if ! call_end; then
		why="${why:+$why; }$CALL_WHY"
	fi
	if [ "$impl" = none ]; then
		if [ -n "$CALL_WHY" ]; then
			CELL[$impl/$case]=error
			verdict none "$case" "the call failed, so nothing was proven: $CALL_WHY"
			diagnose "$impl"
		elif [ ${#up_got[@]} -gt 0 ]; then
			CELL[$impl/$case]="PASSED!"
			verdict none "$case" "media went through without a helper: ${up_got[*]} (the firewall does not block)"
		else
			CELL[$impl/$case]=blocked
			verdict none "$case" ""
		fi
		return
	fi
	[ ${#up_missed[@]} = 0 ] || why="${why:+$why; }blocked while the call was up: ${up_missed[*]}"

	if [ -z "$CALL_WHY" ]; then
		# Right after the BYE's 200 (both user agents have exited):
		# the BYE must have removed the call's media expectations.
		# (no process substitution: the VM has no /dev/fd)
		local out line lines left=()
		out=$(timeout 10 conntrack -L expect 2>"$W/expect.err") ||
			why="${why:+$why; }conntrack -L expect failed: $(head -n 2 "$W/expect.err" | tr '\n' ' ')"
		mapfile -t lines <<<"$out"
		for line in "${lines[@]}"; do
			[[ $line == *" master-src=$ms master-dst=$md "* && $line == *" class="[123]* ]] || continue
			# "TIMEOUT proto=17 src=A dst=B sport=0 dport=P ... class=C ..."
			[[ $line =~ src=([^ ]+)\ dst=([^ ]+)\ sport=[0-9]+\ dport=([0-9]+).*\ (class=[0-9]+) ]] &&
				line="${BASH_REMATCH[1]} -> ${BASH_REMATCH[2]} port ${BASH_REMATCH[3]} ${BASH_REMATCH[4]}"
			left+=("$line")
		done
		if [ ${#left[@]} -gt 0 ]; then
			printf -v line '%s, ' "${left[@]}"
			why="${why:+$why; }media expectations of the call left after the BYE's 200: ${line%, }"
		fi
		# After the BYE: only an expectation could let new media
		# through once the media conntracks are gone.
		progress "$impl/$case: media after the BYE"
		local port
		for port in "$a_uac" $((a_uac + 1)) "$a_uas" $((a_uas + 1)); do
			conntrack -D -p udp --dport "$port" >/dev/null 2>&1
		done
		media_probe "$impl/$case/after-bye" "$BLOCK_WAIT" \
			"rtp-to-caller,$uas_ns,$to_uac,$a_uac" \
			"rtp-to-callee,$uac_ns,$to_uas,$a_uas" \
			"video-to-caller,$uas_ns,$to_uac,$v_uac" \
			"video-to-callee,$uac_ns,$to_uas,$v_uas"
		say "$impl/$case: after the BYE: media expectations left: ${#left[@]}; new media that passed: ${GOT[*]:-none}"
		[ ${#GOT[@]} = 0 ] ||
			why="${why:+$why; }new media still passes after the BYE (audio conntracks deleted): ${GOT[*]}"
	fi
	verdict "$impl" "$case" "$why"
	[ -z "$why" ] || diagnose "$impl"
}

# event_seen ERE MS: up to MS for a line matching ERE among the
# expectation events since events_mark (bash builtins only).
event_seen() {
	local re=$1 line lines
	until_ms "$2"
	while :; do
		mapfile -t -s "$EV_MARK" lines <"$EV_LOG"
		for line in "${lines[@]}"; do
			[[ $line =~ $re ]] && return 0
		done
		before_deadline || return 1
		nap 0.1
	done
}

# nat_headers MSG ADDR WHERE [via]: what is wrong with MSG as WHERE (the
# callee, the caller) got it through the NAT (empty: nothing).  Contact
# (and with via the top Via) and the SDP's o= and c= must carry the
# router's address ADDR: the caller behind MASQUERADE (the INVITE at the
# callee, $R_SV4, Via included), the callee behind DNAT (the 200 at the
# caller, $R_CL4, the address it dialled).
nat_headers() {
	local msg=$1 addr=$2 where=$3 via contact bad=()
	if [ "${4:-}" = via ]; then
		via=$(first_line "$msg" Via:)
		[[ $via == *"$addr:"* ]] || bad+=("$via")
	fi
	contact=$(first_line "$msg" Contact:)
	[[ $contact == *"@$addr:"* ]] || bad+=("$contact")
	[ "$(sdp_field "$msg" o)" = "$addr" ] || bad+=("$(first_line "$msg" o=)")
	[ "$(sdp_field "$msg" c)" = "$addr" ] || bad+=("$(first_line "$msg" c=)")
	[ ${#bad[@]} = 0 ] && return 0
	local IFS=';'
	echo "not rewritten to the router's address $addr at the $where: ${bad[*]}"
}

# nat_diff IMPL CASE: print what NAT changed between what each side sent
# and what the other received (the INVITE and its 200), line by line: a
# rewrite changes lines, it does not add or remove them.
nat_diff() {
	local impl=$1 case=$2
	say "$impl/$case: INVITE changed on the way (sent > received): $(line_diff \
		"$(sip_msg "$CALLER.msg" sent '^INVITE ')" "$(sip_msg "$CALLEE.msg" received '^INVITE ')")"
	say "$impl/$case: its 200 changed on the way (sent > received): $(line_diff \
		"$(sip_msg "$CALLEE.msg" sent '^SIP/2.0 200' INVITE)" "$(sip_msg "$CALLER.msg" received '^SIP/2.0 200' INVITE)")"
}
line_diff() {
	local a b i out=()
	mapfile -t a <<<"$1"
	mapfile -t b <<<"$2"
	for i in "${!a[@]}"; do
		[ "${a[i]}" = "${b[i]:-}" ] || out+=("${a[i]} > ${b[i]:-}")
	done
	[ ${#out[@]} -gt 0 ] || { echo nothing; return; }
	local IFS=$'\x1f'
	local all="${out[*]}"
	echo "${all//$'\x1f'/ | }"
}

# phone_call_failed IMPL CASE WHY: the registrar side's call to the phone
# did not complete.  Without a helper, stopping at the INVITE is what the
# firewall must do (blocked); anything else is the case's failure (WHY).
phone_call_failed() {
	local impl=$1 case=$2 why=$3
	call_abort
	if [ "$impl" = none ] && [ "$CALL_STEP" = invite ]; then
		CELL[$impl/$case]=blocked
		verdict none "$case" ""
		return
	fi
	[ "$impl" = none ] && CELL[$impl/$case]=error
	verdict "$impl" "$case" "$why"
	diagnose "$impl"
}

# register_phone IMPL CASE: the phone (client ns, $CL4:5060) registers
# over UDP with the registrar (server ns, sipp).  Sets CALLER and CALLEE
# (the two sides' log prefixes); on failure prints the verdict and
# returns 1.
register_phone() {
	local impl=$1 case=$2 why="" rc
	CALLER=$LOGS/$impl-$case-phone CALLEE=$LOGS/$impl-$case-registrar
	sipp_start "$TOPO_SV_NS" "$impl-$case-registrar" -sf "$SCEN/registrar.xml" -i "$SV4" -p 5060
	local reg_pid=$SIPP_PID
	if ! wait_listen "$TOPO_SV_NS" udp 4; then
		why="the registrar (sipp) is not listening on $SV4:5060"
	else
		sipp_start "$TOPO_CL_NS" "$impl-$case-phone" -sf "$SCEN/register.xml" \
			-i "$CL4" -p 5060 "$SV4:5060"
		wait "$SIPP_PID"; rc=$?
		[ $rc = 0 ] || why="REGISTER got no 200 (phone sipp status $rc)"
	fi
	kill "$reg_pid" 2>/dev/null; wait "$reg_pid" 2>/dev/null
	if [ -n "$why" ]; then
		[ "$impl" = none ] && CELL[$impl/$case]=error
		verdict "$impl" "$case" "$why"
		diagnose "$impl"
		return 1
	fi
}

# register-invite: the phone (client ns) registers its contact
# $CL4:5060 with the registrar (server ns), which answers 200 with the
# contact and expires=.  Then a caller in the server ns, from port 5070,
# calls the contact: NEW from the server side is dropped, so the INVITE
# reaches the phone only through the helper's signalling expectation
# (from the registrar's address, any port, to the contact).
case_register_invite() {
	local impl=$1 case=register-invite why="" rc reg exp
	progress "$impl/$case"
	events_mark
	register_phone "$impl" "$case" || return
	reg=$(sip_msg "$CALLER.msg" received '^SIP/2.0 200' REGISTER)
	exp=$(conntrack -L expect 2>/dev/null | grep "dport=5060" | tr -s ' ')
	say "$impl/$case: the 200 as the phone got it: $(grep -m1 '^Contact:' <<<"$reg"); expectation: ${exp:-none}"
	# What nf_conntrack_sip leaves once the 200 is through (seen in the
	# VM): from the registrar's address, any port, to the contact, class
	# 0 (signalling), PERMANENT (every call to the phone uses it) and no
	# longer INACTIVE.  (helper= there is the master's helper.)
	if [ "$impl" != none ]; then
		local e="src=$SV4 dst=$CL4 sport=0 dport=5060 "
		if [[ $exp != *"$e"* ]]; then
			why="no expectation $e(registrar to contact, any source port) after the 200"
		elif ! grep -F "$e" <<<"$exp" | grep -q ' PERMANENT class=0 helper=sip$'; then
			why="the expectation after the 200 is not an active PERMANENT one of class 0 (signalling): $(grep -F "$e" <<<"$exp")"
		fi
	fi

	if ! call_begin "$case" udp "$TOPO_SV_NS" "$SV4" 5070 "$TOPO_CL_NS" "$CL4" "$CL4"; then
		phone_call_failed "$impl" "$case" "${why:+$why; }$CALL_WHY"
		return
	fi
	# The connection the expectation let in must itself be helped by sip
	# (nf_conntrack_sip sets the expectation's helper): the SDP of this
	# call then opens media.
	if [ "$impl" != none ]; then
		local ct
		ct=$(conntrack -L -p udp --orig-port-src 5070 --orig-port-dst 5060 2>/dev/null | tr -s ' ')
		[[ $ct == *helper=sip* ]] ||
			why="${why:+$why; }the INVITE's connection (from port 5070) is not helped by sip: ${ct:-no conntrack}"
	fi
	if ! call_end; then
		why="${why:+$why; }$CALL_WHY"
	fi
	if [ "$impl" = none ]; then
		CELL[$impl/$case]="PASSED!"
		verdict none "$case" "the INVITE from the server side reached the phone without a helper (the firewall does not block)"
		return
	fi
	verdict "$impl" "$case" "$why"
	[ -z "$why" ] || diagnose "$impl"
}

# masq-register: the phone (client ns, behind MASQUERADE: topo_mode masq)
# registers its contact $CL4:5060 with the registrar (server ns).  The
# registrar must see the Contact rewritten to the router's address
# $R_SV4 (with the port NAT gave, or a free one).  Then a caller in the
# server ns, from port 5070, calls that rewritten contact: the router
# must map it to the phone (the registration's expectation, NATed), the
# call must complete and its media pass both ways (call_media).  Without a
# helper the contact stays private; the caller then dials $R_SV4 on the
# phone's own port, and nothing maps that to the phone: blocked.
case_masq_register() {
	local impl=$1 case=masq-register why="" rc req contact caddr=$R_SV4 cport=5060 exp
	progress "$impl/$case"
	events_mark
	register_phone "$impl" "$case" || return
	req=$(sip_msg "$CALLEE.msg" received '^REGISTER ')
	contact=$(first_line "$req" Contact:)
	[[ $contact =~ @([0-9.]+):([0-9]+) ]] && caddr=${BASH_REMATCH[1]} cport=${BASH_REMATCH[2]}
	exp=$(conntrack -L expect 2>/dev/null | grep ' class=0' | tr -s ' ')
	say "$impl/$case: the REGISTER at the registrar: $contact; the 200 at the phone: $(first_line "$(sip_msg "$CALLER.msg" received '^SIP/2.0 200' REGISTER)" Contact:); expectation: ${exp:-none}"
	if [ "$impl" != none ] && [ "$caddr" != "$R_SV4" ]; then
		why="the registrar got '$contact': not rewritten to the router's address $R_SV4"
	fi
	# Without a helper (or a rewrite): the router's address, on the
	# phone's own port.
	[ "$caddr" = "$R_SV4" ] || caddr=$R_SV4 cport=5060

	if ! call_begin "$case" udp "$TOPO_SV_NS" "$SV4" 5070 "$TOPO_CL_NS" "$CL4" "$caddr" "$cport"; then
		phone_call_failed "$impl" "$case" "${why:+$why; }the call to $caddr:$cport: $CALL_WHY"
		return
	fi
	if [ "$impl" = none ]; then
		call_end
		CELL[$impl/$case]="PASSED!"
		verdict none "$case" "the INVITE to $caddr:$cport reached the phone without a helper (the firewall does not block)"
		return
	fi
	# The phone's answer must name the router, where the caller's media
	# then goes; the caller's SDP needs no rewrite (it is not NATed).
	local invite ok200
	invite=$(sip_msg "$CALLEE.msg" received '^INVITE ')
	ok200=$(sip_msg "$CALLER.msg" received '^SIP/2.0 200' INVITE)
	nat_diff "$impl" "$case"
	[ "$(sdp_field "$ok200" c)" = "$R_SV4" ] ||
		why="${why:+$why; }the phone's 200 reached the caller with c=$(sdp_field "$ok200" c), want $R_SV4"
	[ "$(sdp_field "$invite" c)" = "$SV4" ] ||
		why="${why:+$why; }the INVITE's SDP reached the phone with c=$(sdp_field "$invite" c), want $SV4"
	call_media "$impl" "$case" "$why" \
		"$TOPO_SV_NS,$SV4,$(sdp_field "$invite" m),$(sdp_field "$invite" v)" \
		"$TOPO_CL_NS,$R_SV4,$(sdp_field "$ok200" m),$(sdp_field "$ok200" v)" \
		"$SV4" "$caddr"
}

# clean-stop (cthelperd): SIGTERM; exit status 0 and no sip helper left
# ENABLED (an enabled helper without a listener makes the kernel skip the
# confirmation of new connections: signalling would break).  Then a call's
# signalling must pass twice: with the CT rules still in place (they now
# name a disabled helper) and, after the rules are removed and the helpers
# deleted, without them.
case_clean_stop() {
	local impl=$1 case=clean-stop why="" left
	progress "$impl/$case"
	topo_mode plain
	events_mark
	stop_cthelperd
	left=$(nfct_helpers | sed -n 's/.*name = sip,.*l3protonum = \([0-9]*\),.l4protonum = \([0-9]*\),.*status = \([a-z]*\).*/sip l3=\1 l4=\2 \3/p' | tr '\n' ';')
	say "$impl/$case: after SIGTERM: exit status $STOP_RC; helpers left: ${left:-none}"
	[ "$STOP_RC" = 0 ] || why="cthelperd exit status $STOP_RC on SIGTERM (want 0)"
	nfct_helpers | grep -q 'name = sip,.*status = enabled' &&
		why="${why:+$why; }a sip helper is still ENABLED after the stop"
	if call_begin clean-stop-rules udp "$TOPO_CL_NS" "$CL4" 5060 "$TOPO_SV_NS" "$SV4" "$SV4" && call_end; then
		:
	else
		call_abort
		why="${why:+$why; }a call with the CT rules still in place: $CALL_WHY"
	fi
	topo_ct_del
	if ! delete_helpers >"$W/del.out" 2>&1; then
		why="${why:+$why; }helpers cannot be deleted even with the CT rules gone: $(tr '\n' ' ' <"$W/del.out")"
	fi
	topo_flush_conntrack
	if call_begin clean-stop udp "$TOPO_CL_NS" "$CL4" 5060 "$TOPO_SV_NS" "$SV4" "$SV4" && call_end; then
		:
	else
		call_abort
		why="${why:+$why; }a call without CT rules: $CALL_WHY"
	fi
	verdict "$impl" "$case" "$why"
	[ -z "$why" ] || diagnose "$impl"
}

# trunk (issue 34): TRUNK_DIALOGS dialogs on one UDP signalling flow
# (tests/lib/sip.py trunk-*, the bench's scale tool: each dialog's INVITE
# is answered only once every INVITE was sent), media sent both ways once
# every dialog is up, counted at the far side.  Every dialog's media must
# pass, and without a helper none may.  The kernel's helper removes the
# flow's media expectations at every INVITE (and keeps 4 audio ones), so
# only the last dialog's INVITE media can pass there.  cthelperd's sip
# helper runs with a class max for every dialog (write_cthelperd_conf);
# the running column's daemon is the package's, with the plugin's own
# max: not run there.
TRUNK_DIALOGS=8
case_trunk() {
	local impl=$1 case=trunk why n=$TRUNK_DIALOGS a b
	progress "$impl/$case"
	topo_mode plain
	events_mark
	trunk_run "$impl" "$n" 21000 41000
	why=$TRUNK_WHY a=${TRUNK_A:-?} b=${TRUNK_B:-?}
	[ -n "$why" ] || [ "$TRUNK_UP" = "$n" ] || why="$TRUNK_UP of $n dialogs answered"
	say "$impl/$case: dialogs whose media passed: callee to caller $a of $n, caller to callee $b of $n"
	if [ -n "$why" ] && [ "$impl" = none ]; then
		CELL[$impl/$case]=error
		why="the trunk itself failed, so nothing was proven: $why"
	elif [ "$impl" = none ]; then
		if [ "$a" = 0 ] && [ "$b" = 0 ]; then
			CELL[$impl/$case]=blocked
		else
			why="media passed without a helper: callee to caller $a, caller to callee $b of $n"
		fi
	elif [ -z "$why" ] && { [ "$a" != "$n" ] || [ "$b" != "$n" ]; }; then
		why="every dialog's media must pass: callee to caller $a of $n (the INVITEs' expectations), caller to callee $b of $n (the 200s')"
	fi
	verdict "$impl" "$case" "$why"
	[ -z "$why" ] || diagnose "$impl"
}

# ------------------------------------------------------------ captures for the replay

# Issue 16: these cases of the cthelperd column are captured for the
# offline replay (captured in tests/lib/vmsuite.sh; tests/sip/run.sh
# runs tests/replay/vmcompare.sh on the host after the boot): the sip
# plugin on the case's signalling protocol, port 5060, and the case's
# NAT.  All but tcp-split-invite and clean-stop.
# sip_capture CASE PROTO FAM before the case, sip_capture_end after it:
# when cthelperd runs (IMPL).
sip_capture() {
	[ "$IMPL" != cthelperd ] || capture_start "$1" "$3" sip "-P $2 -p 5060" fresh
}
sip_capture_end() {
	[ "$IMPL" != cthelperd ] || capture_stop 0.3
}

# ------------------------------------------------------------ implementations

write_cthelperd_conf() {
	cat >"$W/cthelperd.conf" <<EOF
[server]
plugin_dir = $BUILD/plugins
log_level = debug

[helper sip]
plugin = sip
family = both
protocol = both
queue = 0
# the trunk case: 2 expectations each way for each of its dialogs
policy.audio.max = 64
EOF
}

# Delete whatever user-space sip helpers are left (after topo_ct_del!).
delete_helpers() { delete_user_helpers sip "udp tcp"; }

# impl_start IMPL: make IMPL the active sip helper and load the CT rules
# (not for none).  Sets START_WHY on failure.
impl_start() {
	local impl=$1
	if [ "$impl" = running ]; then
		running_attach sip 4 && impl_rules sip "$impl"
		return
	fi
	clean_slate || return 1
	[ "$impl" = kernel ] || kernel_helper_absent sip || return 1
	case $impl in
	none) return 0 ;;
	cthelperd|cthelperd-kmod)
		cth_built sip || return 1
		if [ "$impl" = cthelperd-kmod ]; then
			kmod_use_ours "$KMOD" || return 1
		fi
		write_cthelperd_conf
		# sip for ipv4 and ipv6, udp and tcp: four kernel helpers
		cth_start "$LOGS/$impl.log" "$W/cthelperd.conf" sip 4 || return 1 ;;
	kernel) kernel_helpers_load sip || return 1 ;;
	esac
	impl_rules sip "$impl"
}

impl_stop() {
	local impl=$1
	# Rules first: deleting a helper a rule still names leaks it (kernel bug).
	topo_ct_del
	case $impl in
	cthelperd|cthelperd-kmod) stop_cthelperd ;;
	kernel) kernel_helpers_unload sip ;;
	running) topo_flush_conntrack; return ;;
	esac
	helpers_gone_or_say e2e-sip "$impl"
	# later columns run on the in-tree cthelper subsystem again
	if [ "$impl" = cthelperd-kmod ] && ! kmod_restore; then
		echo "FAIL e2e-sip/$impl/cleanup: cannot switch back from cthelperd_nfnl to nfnetlink_cthelper"
	fi
}

run_impl() {
	local impl=$1 case
	IMPL=$impl
	say "=== $impl"
	progress "start $impl"
	if ! impl_start "$impl"; then
		say "$impl could not be started: $START_WHY"
		is_cth "$impl" && show_tail "$LOGS/$impl.log" 30
		for case in "${CASES[@]}"; do
			[ "$case" = clean-stop ] && [ "$impl" != cthelperd ] && continue
			[ "$case" = trunk ] && [ "$impl" = running ] && continue
			want "$case" || continue
			CELL[$impl/$case]="n/s"
			[ "$impl" = kernel ] && echo "NOTE kernel/$case: not run: $START_WHY" ||
				echo "FAIL e2e-sip/$impl/$case: not run: $START_WHY"
		done
		impl_stop "$impl"
		return
	fi
	[ "$impl" = none ] || say "helpers: $(nfct_helpers | tr '\n' ' ')"
	events_start "$impl"
	if want udp-call; then topo_mode plain; sip_capture udp-call udp 4; call_case "$impl" udp-call udp 4; sip_capture_end; fi
	if want register-invite; then topo_mode plain; sip_capture register-invite udp 4; case_register_invite "$impl"; sip_capture_end; fi
	if want masq-call; then topo_mode masq; sip_capture masq-call udp 4; call_case "$impl" masq-call udp 4; sip_capture_end; fi
	if want tcp-call; then topo_mode plain; sip_capture tcp-call tcp 4; call_case "$impl" tcp-call tcp 4; sip_capture_end; fi
	if want v6-call; then topo_mode plain; sip_capture v6-call udp 6; call_case "$impl" v6-call udp 6; sip_capture_end; fi
	if want tcp-split-invite; then topo_mode plain; call_case "$impl" tcp-split-invite tcp 4; fi
	if want masq-register; then topo_mode masq; sip_capture masq-register udp 4; case_masq_register "$impl"; sip_capture_end; fi
	if want dnat-call; then topo_mode dnat; sip_capture dnat-call udp 4; call_case "$impl" dnat-call udp 4; sip_capture_end; fi
	if want trunk && [ "$impl" != running ]; then case_trunk "$impl"; fi
	if [ "$impl" = cthelperd ] && want clean-stop; then
		if [ -n "$CTH_PID" ] && kill -0 "$CTH_PID" 2>/dev/null; then
			case_clean_stop "$impl"
		else
			CELL[$impl/clean-stop]="n/s"
			echo "FAIL e2e-sip/$impl/clean-stop: not run: the daemon is no longer running"
		fi
	fi
	events_stop
	# issue 34: what kmod/'s filter let pass over the whole column
	[ "$impl" = cthelperd-kmod ] &&
		say "$impl: kmod/ filter over the column: $(cat /sys/module/cthelperd_nfnl/parameters/filter_queued 2>/dev/null) packets queued, $(cat /sys/module/cthelperd_nfnl/parameters/filter_passed 2>/dev/null) passed without the trip"
	impl_stop "$impl"
}

print_table() {
	print_cells "SIP end-to-end, side by side (blocked = media / the call to the phone stopped by the firewall, as it must be without a helper; n/s = not started; - = not run):" \
		scenario 18 18 "${CASES[@]}"
}

# shellcheck disable=SC2317  # runs from the EXIT trap
cleanup() {
	call_abort 2>/dev/null
	suite_cleanup
	cp "$W"/media-*.log "$LOGS/" 2>/dev/null
}
trap cleanup EXIT

T0=$SECONDS
progress "topology"
require_tools e2e-sip "apt-get install sip-tester" sipp
suite_topology e2e-sip sip
progress "media agents"
start_agents e2e-sip || exit 1
run_suite "sip scenarios"
exit 0
