#!/bin/bash
# RTSP end-to-end cases, run inside the test VM by tests/rtsp/run.sh (one
# boot for everything).  Each case runs against each helper
# implementation, in this order:
#
#   none        no helper, no CT rule: the media must not arrive (the
#               firewall admits NEW only tcp/554 from the client side, and
#               RTP/RTCP are UDP flows of their own); counted:
#               e2e-rtsp/none/<case>
#   cthelperd   $CTH_BUILD/cthelperd with the rtsp plugin; counted:
#               e2e-rtsp/cthelperd/<case>
#
# No reference implementation exists: mainline Linux and conntrackd have
# no RTSP helper (the out-of-tree nf_conntrack_rtsp is not in Debian).
#
# Servers, in the server namespace for the whole run: GStreamer's RTSP
# server (tests/lib/gst_rtsp_server.py) on the second server addresses
# GST4/GST6, and tests/lib/rtsp.py's on SV4/SV6, both on tcp/554.
# Clients: ffmpeg (-rtsp_transport udp), gst-launch-1.0's rtspsrc and
# tests/lib/rtsp.py's client.  tests/rtsp/README.md has the table of
# cases.
#
# Usage: inside.sh [IMPL...]   (default: none cthelperd)
# Environment: CTH_BUILD = the daemon's build dir (default build; relative
# to the repo); RTSP_ONLY = an extended regex: only the cases whose name
# matches run (the others show "-"); RTSP_OPEN=1: no firewall (a sanity
# run of the clients and servers: the none column then fails where
# routing alone lets the media through).
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/lib/vmsuite.sh
. tests/lib/vmsuite.sh
suite_init rtsp

RTSP=$REPO/tests/lib/rtsp.py
GST=$REPO/tests/lib/gst_rtsp_server.py
CTH_Q=7
# GStreamer's server listens on addresses of its own (rtsp.py has
# SV4/SV6:554); a second client address for the taken-port case
GST4=10.0.2.3 GST6=fd00:2::3 CL4B=10.0.1.3
# rtsp.py's client ports: track 1 RTP_BASE/+1, track 2 +2/+3
RTP_BASE=5000
# what rtsp.py's server sends per played track (its RTP_COUNT, RTCP_COUNT)
WANT_RTP=5 WANT_RTCP=2
# bounds: rtsp.py's client, ffmpeg (it gives up after 10 s without UDP),
# gst-launch (rtspsrc's udp-timeout is 5 s)
OWN_BOUND=40 FFMPEG_BOUND=30 GSTL_BOUND=30
# ffmpeg reads FFMPEG_SECONDS of the stream (10 frames/s) and must decode
# at least FFMPEG_FRAMES video frames
FFMPEG_SECONDS=4 FFMPEG_FRAMES=10

IMPLS=("$@")
[ ${#IMPLS[@]} -gt 0 ] || IMPLS=(none cthelperd)
check_impls e2e-rtsp none cthelperd

# name  family  topology-mode  kind  rtsp.py client arguments
CASES=(
	"gst-ffmpeg     4 plain ffmpeg      -"
	"gst-ffmpeg-v6  6 plain ffmpeg      -"
	"gst-rtspsrc    4 plain rtspsrc     -"
	"two-tracks     4 plain own         --punch 2"
	"teardown       4 plain teardown    --tracks 2 --play 1 --late 2"
	"split-setup    4 plain own         --split --punch 2"
	"masq           4 masq  own         --punch 2"
	"masq-taken     4 masq  taken       --tracks 1"
	"masq-split     4 masq  own         --split --punch 2"
	"dnat           4 dnat  own         --punch 2"
	"v6             6 plain own         --punch 2"
	"interleaved    4 plain interleaved --interleaved"
	"rtsp2-dest     4 plain own         --rtsp2 --tracks 1 --punch 1"
)
declare -A CELL    # CELL[impl/case] = text for the table
declare -A COLNAME=([none]="no helper" [cthelperd]=cthelperd)
want() { [ -z "${RTSP_ONLY:-}" ] || [[ $1 =~ ^($RTSP_ONLY)$ ]]; }

# ------------------------------------------------------------ reporting

# verdict IMPL CASE WHY: the PASS/FAIL line and the table cell (unless
# the caller set it).
verdict() {
	local impl=$1 case=$2 why=$3
	[ -n "${CELL[$impl/$case]:-}" ] || CELL[$impl/$case]=$([ -z "$why" ] && echo PASS || echo FAIL)
	if [ -z "$why" ]; then
		echo "PASS e2e-rtsp/$impl/$case"
	else
		echo "FAIL e2e-rtsp/$impl/$case: $why"
	fi
}

# The kernel's view after a failed case and the helper's log.
diagnose() {
	local impl=$1
	echo "  --- conntrack -L -o extended"
	timeout 10 conntrack -L -o extended 2>/dev/null | tr -s ' ' | sed 's/^/  | /'
	echo "  --- conntrack -L expect"
	timeout 10 conntrack -L expect 2>/dev/null | tr -s ' ' | sed 's/^/  | /'
	echo "  expectations created during the case: $(events_since_mark)"
	if [ "$impl" = cthelperd ]; then
		show_tail "$LOGS/cthelperd.log" 25
		[ -z "$CTH_PID" ] || kill -0 "$CTH_PID" 2>/dev/null || echo "  cthelperd is no longer running"
	fi
}

# outcome IMPL CASE: the verdict for STATUS/WHY.  Without a helper
# BLOCKED is the pass (the cell says "blocked"); with one, OK.
outcome() {
	local impl=$1 case=$2
	if [ "$impl" = none ]; then
		case $STATUS in
		BLOCKED) CELL[$impl/$case]=blocked; verdict none "$case" "" ;;
		OK|PARTIAL) CELL[$impl/$case]="PASSED!"
		    verdict none "$case" "media passed without a helper (the firewall does not block): $WHY" ;;
		*) CELL[$impl/$case]=error; verdict none "$case" "nothing proven: $WHY" ;;
		esac
	else
		case $STATUS in
		OK) verdict "$impl" "$case" "" ;;
		BLOCKED) CELL[$impl/$case]=blocked; verdict "$impl" "$case" "the media was blocked: $WHY" ;;
		PARTIAL) CELL[$impl/$case]=FAIL; verdict "$impl" "$case" "$WHY" ;;
		*) CELL[$impl/$case]=error; verdict "$impl" "$case" "$WHY" ;;
		esac
	fi
	case $impl/${CELL[$impl/$case]} in
	none/blocked|*/PASS) ;;
	*) diagnose "$impl" ;;
	esac
}

# ------------------------------------------------------------ rtsp.py's client

# own_run ID FAM ARGS...: rtsp.py's client in the client namespace to the
# server (SV6, or SV4_DIAL: the router's address in dnat mode); its
# REPORT into R (R[t1.rtp]=5 ...), OWN_ERR its ERROR line (or why there
# was no report).
declare -A R
own_run() {
	local id=$1 fam=$2 host=$SV4_DIAL
	shift 2
	[ "$fam" = 6 ] && host=$SV6
	timeout -k 1 "$OWN_BOUND" nsenter --net="/run/netns/$TOPO_CL_NS" "$PY" "$RTSP" client \
		--host "$host" --rtp-base "$RTP_BASE" --log "$LOGS/$id-client.log" "$@" \
		>"$W/$id.out" 2>&1
	own_parse "$W/$id.out"
}

# own_parse FILE: R and OWN_ERR from a client's output.
own_parse() {
	local line kv
	R=() OWN_ERR=
	while read -r line; do
		case $line in
		REPORT*) for kv in ${line#REPORT}; do R[${kv%%=*}]=${kv#*=}; done ;;
		ERROR*) OWN_ERR=$line ;;
		esac
	done <"$1"
	[ ${#R[@]} -gt 0 ] || [ -n "$OWN_ERR" ] || OWN_ERR="no report: $(tr '\n' ' ' <"$1" | cut -c1-300)"
}

# media_check TRACKS PUNCHED DIAL: R against what rtsp.py's server sent
# for each of TRACKS (played track numbers); PUNCHED the tracks whose
# client sent first (their reverse direction is checked), DIAL the
# address the media must come from (dnat: the one dialled), or "".
# Sets GOT (packets that crossed the firewall, any direction), BAD (the
# complaints) and SUMMARY.
media_check() {
	local tracks=$1 punched=$2 dial=$3 n k p cp
	GOT=0 BAD='' SUMMARY=''
	for n in $tracks; do
		k=t$n
		p=$((RTP_BASE + 2 * (n - 1)))
		GOT=$((GOT + ${R[$k.rtp]:-0} + ${R[$k.rtcp]:-0} + ${R[$k.sv_rtcp]:-0}))
		SUMMARY+="track$n rtp ${R[$k.rtp]:-?}/$WANT_RTP rtcp ${R[$k.rtcp]:-?}/$WANT_RTCP from ${R[$k.src]:--}, server got rtp ${R[$k.sv_rtp]:-?} rtcp ${R[$k.sv_rtcp]:-?} (client_port ${R[$k.sv_cp]:-?}); "
		[ "${R[$k.rtp]:-0}" -ge "$WANT_RTP" ] || BAD+="track$n: ${R[$k.rtp]:-0} of $WANT_RTP RTP packets arrived; "
		[ "${R[$k.rtcp]:-0}" -ge "$WANT_RTCP" ] || BAD+="track$n: ${R[$k.rtcp]:-0} of $WANT_RTCP RTCP packets arrived; "
		cp="$p-$((p + 1))"
		[ "${R[$k.cp]:-}" = "$cp" ] || BAD+="track$n: the SETUP reply's client_port is ${R[$k.cp]:-none}, the client asked $cp; "
		[ "${R[$k.sv_rtcp]:-0}" -ge 1 ] || BAD+="track$n: the client's RTCP receiver report did not reach the server; "
		if [[ " $punched " == *" $n "* ]]; then
			GOT=$((GOT + ${R[$k.sv_rtp]:-0}))
			[ "${R[$k.sv_rtp]:-0}" -ge 2 ] || BAD+="track$n: the client's first packets (RTP to server_port, reverse) did not reach the server (${R[$k.sv_rtp]:-0} of 2); "
		fi
		if [ -n "$dial" ] && [ "${R[$k.rtp]:-0}" -gt 0 ]; then
			[ "${R[$k.src]%:*}" = "$dial" ] || BAD+="track$n: RTP came from ${R[$k.src]}, not from the address dialled ($dial); "
			[ "${R[$k.rtcp_src]%:*}" = "$dial" ] || BAD+="track$n: RTCP came from ${R[$k.rtcp_src]}, not from $dial; "
		fi
	done
}

# status_of: STATUS from OWN_ERR, GOT and BAD: ERROR (the session
# failed), BLOCKED (nothing crossed), OK (nothing to complain about) or
# PARTIAL; WHY says it.
status_of() {
	if [ -n "$OWN_ERR" ]; then
		STATUS=ERROR WHY="client: $OWN_ERR"
	elif [ "$GOT" = 0 ]; then
		STATUS=BLOCKED WHY="no media crossed: $SUMMARY"
	elif [ -z "$BAD" ]; then
		STATUS=OK WHY=$SUMMARY
	else
		STATUS=PARTIAL WHY="$BAD| $SUMMARY"
	fi
}

# arg_of NAME ARGS...: the value of --NAME in ARGS (rtsp.py's defaults
# otherwise).
arg_of() {
	local name=$1 v=''
	shift
	while [ $# -gt 0 ]; do
		[ "$1" = "--$name" ] && v=${2:-}
		shift
	done
	if [ -z "$v" ]; then
		case $name in tracks) v=2 ;; play) v=all ;; esac
	fi
	echo "$v"
}

# case_own IMPL CASE FAM ARGS...: one session of rtsp.py's client.
case_own() {
	local impl=$1 case=$2 fam=$3 tracks played dial=''
	shift 3
	tracks=$(arg_of tracks "$@")
	played=$(seq -s ' ' 1 "$tracks")
	[ "$TOPO_MODE" != dnat ] || [ "$fam" != 4 ] || dial=$SV4_DIAL
	own_run "$impl-$case" "$fam" "$@"
	local punch
	punch=$(arg_of punch "$@")
	media_check "$played" "${punch//,/ }" "$dial"
	status_of
	say "$impl/$case: $STATUS: $WHY expectations: $(events_since_mark)"
	outcome "$impl" "$case"
}

# case_teardown IMPL CASE FAM ARGS...: two tracks SETUP, only track 1
# played, TEARDOWN, then the server sends track 2's media anyway: it must
# not arrive.  With a helper, track 2's expectation must have existed
# (else the case proves nothing).
case_teardown() {
	local impl=$1 case=$2 fam=$3 exps
	shift 3
	own_run "$impl-$case" "$fam" "$@"
	exps=$(events_since_mark)
	media_check 1 "" ""
	status_of
	if [ "$STATUS" != ERROR ]; then
		if [ "${R[late.rtp]:-0}" != 0 ] || [ "${R[late.rtcp]:-0}" != 0 ]; then
			[ "$STATUS" = BLOCKED ] && STATUS=PARTIAL
			[ "$STATUS" = OK ] && STATUS=PARTIAL
			WHY="after TEARDOWN the unused track's media arrived (rtp ${R[late.rtp]}, rtcp ${R[late.rtcp]}): its ports were not closed | $WHY"
		elif [ "$STATUS" = OK ] && [[ $exps != *"dport=$((RTP_BASE + 2)) "* ]]; then
			STATUS=PARTIAL WHY="no expectation for the unused track's RTP port $((RTP_BASE + 2)) was seen: the case proves nothing | $WHY"
		else
			WHY="unused track after TEARDOWN: rtp ${R[late.rtp]:-?} rtcp ${R[late.rtcp]:-?} (none may arrive); $WHY"
		fi
	fi
	say "$impl/$case: $STATUS: $WHY expectations: $exps"
	outcome "$impl" "$case"
}

# case_taken IMPL CASE FAM ARGS...: client A (CL4B) SETUPs and holds
# (its expectations take RTP_BASE/+1 on the NAT address), then client B
# (CL4) asks the same ports: the helper must give B another pair on the
# NAT address (the server sees another client_port), rewrite the
# reply's client_port back, and both get their media.
case_taken() {
	local impl=$1 case=$2 fam=$3 sync=$W/sync-$1-$2 a_pid a_status b_status why=''
	shift 3
	rm -rf "$sync" && mkdir -p "$sync"
	timeout -k 1 "$OWN_BOUND" nsenter --net="/run/netns/$TOPO_CL_NS" "$PY" "$RTSP" client \
		--host "$SV4_DIAL" --bind "$CL4B" --rtp-base "$RTP_BASE" --sync-dir "$sync" \
		--log "$LOGS/$impl-$case-A-client.log" "$@" >"$W/$impl-$case-A.out" 2>&1 &
	a_pid=$!
	until_ms 20000
	while [ ! -e "$sync/setup" ] && kill -0 "$a_pid" 2>/dev/null && before_deadline; do nap 0.1; done
	[ -e "$sync/setup" ] || why="client A did not get through SETUP: $(tr '\n' ' ' <"$W/$impl-$case-A.out")"
	own_run "$impl-$case-B" "$fam" --bind "$CL4" "$@"
	media_check 1 "" ""
	status_of
	b_status=$STATUS
	local b_why=$WHY b_sv=${R[t1.sv_cp]:-?}
	if [ "$STATUS" = OK ] && [ "$b_sv" = "$RTP_BASE-$((RTP_BASE + 1))" ]; then
		b_status=PARTIAL b_why="the server saw client B's client_port $b_sv, the pair client A holds on the NAT address: not remapped | $b_why"
	fi
	: >"$sync/go"
	wait "$a_pid"
	own_parse "$W/$impl-$case-A.out"
	media_check 1 "" ""
	status_of
	a_status=$STATUS
	WHY="B: $b_status: $b_why|| A: $a_status: $WHY${why:+ ($why)}"
	if [ "$a_status" = OK ] && [ "$b_status" = OK ]; then
		STATUS=OK
	elif [ "$a_status" = BLOCKED ] && [ "$b_status" = BLOCKED ]; then
		STATUS=BLOCKED
	elif [ "$a_status" = ERROR ] || [ "$b_status" = ERROR ]; then
		STATUS=ERROR
	else
		STATUS=PARTIAL
	fi
	say "$impl/$case: $STATUS: $WHY expectations: $(events_since_mark)"
	outcome "$impl" "$case"
}

# case_interleaved IMPL CASE FAM ARGS...: RTP/AVP/TCP;interleaved=0-1:
# the server's frames (data that reads like SETUPs and replies) must
# arrive byte for byte, the client's too, with or without a helper; with
# one, no expectation may come of it.
case_interleaved() {
	local impl=$1 case=$2 fam=$3 exps
	shift 3
	own_run "$impl-$case" "$fam" "$@"
	exps=$(events_since_mark)
	if [ -n "$OWN_ERR" ]; then
		STATUS=ERROR WHY="client: $OWN_ERR"
	elif [ "${R[il.sha]:-}" = ok ] && [ "${R[il.up]:-}" = ok ] && [ "${R[il.frames]:-}" = "${R[il.want]:-x}" ]; then
		STATUS=OK WHY="${R[il.frames]} frames down, byte for byte; up: ${R[il.up]}"
	else
		STATUS=BAD WHY="frames down ${R[il.frames]:-?}/${R[il.want]:-?} sha256 ${R[il.sha]:-?}, up ${R[il.up]:-?}"
	fi
	if [ "$STATUS" = OK ] && [ "$impl" != none ] && [ "$exps" != none ]; then
		STATUS=BAD WHY="an expectation was created from interleaved data: $exps; $WHY"
	fi
	say "$impl/$case: $STATUS: $WHY expectations: $exps"
	if [ "$STATUS" = OK ]; then
		[ "$impl" = none ] && CELL[$impl/$case]=identical
		verdict "$impl" "$case" ""
	else
		CELL[$impl/$case]=FAIL
		verdict "$impl" "$case" "$WHY"
		diagnose "$impl"
	fi
}

# ------------------------------------------------------------ real clients

# udp_flows SERVER: FLOWS = "rtp N/M rtcp N/M" (the UDP conntrack entries
# between the client and SERVER, by the client's port's parity: those
# that saw both directions / all), RTCP_BOTH the RTCP ones that did.
udp_flows() {
	local sv=$1 line f src dst sport dport cport replied rtp=0 rtpr=0 rtcp=0
	local -a lines
	RTCP_BOTH=0
	mapfile -t lines <<<"$(timeout 10 conntrack -L -p udp 2>/dev/null)"
	for line in "${lines[@]}"; do
		src='' dst='' sport='' dport=''
		for f in $line; do
			case $f in
			src=*) [ -n "$src" ] || src=${f#src=} ;;
			dst=*) [ -n "$dst" ] || dst=${f#dst=} ;;
			sport=*) [ -n "$sport" ] || sport=${f#sport=} ;;
			dport=*) [ -n "$dport" ] || dport=${f#dport=} ;;
			esac
		done
		[ "$src" = "$sv" ] || [ "$dst" = "$sv" ] || continue
		[ "$src" = "$sv" ] && cport=$dport || cport=$sport
		replied=1
		[[ $line == *UNREPLIED* ]] && replied=0
		# an entry the server opened saw the server's packets
		[ "$src" = "$sv" ] && replied=1
		if ((cport % 2)); then
			rtcp=$((rtcp + 1)) RTCP_BOTH=$((RTCP_BOTH + replied))
		else
			rtp=$((rtp + 1)) rtpr=$((rtpr + replied))
		fi
	done
	FLOWS="udp flows: rtp $rtpr/$rtp rtcp $RTCP_BOTH/$rtcp"
}

# case_ffmpeg IMPL CASE FAM: ffmpeg reads FFMPEG_SECONDS of GStreamer's
# stream (video and audio track) over UDP and decodes it; the RTCP
# flows (odd client ports) must have carried the server's reports too.
case_ffmpeg() {
	local impl=$1 case=$2 fam=$3 id=$1-$2 url frames=0 video='' audio='' line
	local -a lines
	url=rtsp://$GST4/test
	[ "$fam" = 6 ] && url="rtsp://[$GST6]/test"
	timeout -k 1 "$FFMPEG_BOUND" nsenter --net="/run/netns/$TOPO_CL_NS" ffmpeg -nostdin -hide_banner \
		-rtsp_transport udp -i "$url" -t "$FFMPEG_SECONDS" -f null - >"$W/$id.out" 2>&1
	mapfile -t lines <<<"$(tr '\r' '\n' <"$W/$id.out")"
	for line in "${lines[@]}"; do
		[[ $line =~ frame=\ *([0-9]+) ]] && frames=${BASH_REMATCH[1]}
		[[ $line =~ video:([0-9]+)kB\ audio:([0-9]+)kB ]] && video=${BASH_REMATCH[1]} audio=${BASH_REMATCH[2]}
	done
	if [ "$fam" = 6 ]; then udp_flows "$GST6"; else udp_flows "$GST4"; fi
	WHY="$frames video frames decoded (video ${video:-?} kB, audio ${audio:-?} kB); $FLOWS"
	if [ "$frames" -ge "$FFMPEG_FRAMES" ] && [ "${audio:-0}" -gt 0 ] && [ "$RTCP_BOTH" -ge 1 ]; then
		STATUS=OK
	elif [ "$frames" = 0 ] && [ "${audio:-0}" = 0 ] && [ "$RTCP_BOTH" = 0 ]; then
		STATUS=BLOCKED
	else
		STATUS=PARTIAL WHY="want >= $FFMPEG_FRAMES frames, audio and RTCP both ways: $WHY; ffmpeg: $(grep -vE '^ |frame=' "$W/$id.out" | tail -n 3 | tr '\n' ' ' | cut -c1-300)"
	fi
	say "$impl/$case: $STATUS: $WHY expectations: $(events_since_mark)"
	outcome "$impl" "$case"
}

# case_rtspsrc IMPL CASE FAM: gst-launch-1.0 rtspsrc (UDP only) decodes 20
# frames of GStreamer's /video and ends on EOS (fakesink num-buffers).
case_rtspsrc() {
	local impl=$1 case=$2 fam=$3 id=$1-$2 rc host=$GST4
	[ "$fam" = 6 ] && host="[$GST6]"
	timeout -k 1 "$GSTL_BOUND" nsenter --net="/run/netns/$TOPO_CL_NS" gst-launch-1.0 \
		rtspsrc location="rtsp://$host/video" protocols=udp ! rtpjpegdepay ! jpegdec \
		! fakesink num-buffers=20 >"$W/$id.out" 2>&1
	rc=$?
	# EOS after 20 decoded frames is the pass; rtspsrc's PAUSE/TEARDOWN
	# at the shutdown that follows sometimes meets a connection the
	# server already closed (exit 1, "Could not send message.
	# (Received end-of-file)"): said, not counted
	if grep -q 'Got EOS' "$W/$id.out"; then
		STATUS=OK WHY="20 frames decoded, EOS"
		[ "$rc" = 0 ] || WHY+=", then exit $rc at shutdown: $(grep -E '^Could not|^ERROR' "$W/$id.out" | head -n 2 | tr '\n' ' ' | cut -c1-200)"
	elif grep -q 'Could not receive any UDP packets' "$W/$id.out"; then
		STATUS=BLOCKED WHY="rtspsrc: no UDP packets"
	else
		STATUS=ERROR WHY="gst-launch exit $rc: $(grep -iE 'error|warn' "$W/$id.out" | head -n 3 | tr '\n' ' ' | cut -c1-300)"
	fi
	say "$impl/$case: $STATUS: $WHY expectations: $(events_since_mark)"
	outcome "$impl" "$case"
}

run_case() {
	local impl=$1 name=$2 fam=$3 kind=$4
	shift 4
	[ "$1" != - ] || shift
	topo_flush_conntrack
	events_mark
	case $kind in
	own) case_own "$impl" "$name" "$fam" "$@" ;;
	teardown) case_teardown "$impl" "$name" "$fam" "$@" ;;
	taken) case_taken "$impl" "$name" "$fam" "$@" ;;
	interleaved) case_interleaved "$impl" "$name" "$fam" "$@" ;;
	ffmpeg) case_ffmpeg "$impl" "$name" "$fam" ;;
	rtspsrc) case_rtspsrc "$impl" "$name" "$fam" ;;
	esac
}

# ------------------------------------------------------------ implementations

# cthelperd's configuration: one rtsp helper on queue CTH_Q, its keys at
# their defaults, debug log.
write_cthelperd_conf() {
	cat >"$W/cthelperd.conf" <<EOF
[server]
plugin_dir = $BUILD/plugins
log_level = debug

[helper rtsp]
plugin = rtsp
queue = $CTH_Q
ports = 554
EOF
}

delete_helpers() { delete_user_helpers rtsp tcp; }

# impl_start IMPL: make IMPL the active rtsp helper, with the CT rules.
impl_start() {
	local impl=$1
	clean_slate || return 1
	case $impl in
	none) return 0 ;;
	cthelperd)
		cth_built rtsp || return 1
		write_cthelperd_conf
		# tcp, IPv4 and IPv6
		cth_start "$LOGS/cthelperd.log" "$W/cthelperd.conf" rtsp 2 || return 1 ;;
	esac
	impl_rules rtsp "$impl"
}

impl_stop() {
	local impl=$1
	# Rules first: deleting a helper a rule still names leaks it (kernel bug).
	topo_ct_del
	[ "$impl" != cthelperd ] || stop_cthelperd
	helpers_gone_or_say e2e-rtsp "$impl"
}

not_run() {
	local impl=$1 name=$2 why=$3
	CELL[$impl/$name]="n/s"
	echo "FAIL e2e-rtsp/$impl/$name: not run: $why"
}

run_impl() {
	local impl=$1 line name fam mode kind args
	impl_begin "$impl" || return
	for line in "${CASES[@]}"; do
		read -r name fam mode kind args <<<"$line"
		want "$name" || continue
		progress "$impl/$name"
		[ "$TOPO_MODE" = "$mode" ] || topo_mode "$mode"
		# shellcheck disable=SC2086  # the client's arguments
		run_case "$impl" "$name" "$fam" "$kind" $args
	done
	events_stop
	impl_stop "$impl"
}

print_table() {
	print_cells "RTSP end-to-end, side by side (blocked = the media was stopped by the firewall, as it must be without a helper; identical = interleaved data arrived byte for byte; PASSED! = media got through without a helper; n/s = not started; - = not run):" \
		case 16 12 "${CASES[@]}"
}

# ------------------------------------------------------------ the servers

OWN_PID='' GST_PID=''
# rtsp.py's server on SV4/SV6 and GStreamer's on GST4/GST6 (addresses of
# their own in the server namespace), both tcp/554; the client namespace
# gets CL4B (the taken-port case's first client).
start_servers() {
	progress "servers"
	if ! { ip -n "$TOPO_SV_NS" addr add "$GST4/24" dev eth0 &&
	       ip -n "$TOPO_SV_NS" -6 addr add "$GST6/64" dev eth0 nodad &&
	       ip -n "$TOPO_CL_NS" addr add "$CL4B/24" dev eth0; }; then
		echo "FAIL e2e-rtsp/servers: extra addresses failed"
		return 1
	fi
	rm -f "$W/own.ready" "$W/gst.ready"
	in_server "$PY" "$RTSP" server --addr "$SV4" --addr "$SV6" --ready "$W/own.ready" \
		--log "$LOGS/rtsp-server.log" >"$LOGS/rtsp-server.out" 2>&1 &
	OWN_PID=$!
	in_server "$PY" "$GST" --addr "$GST4" --addr "$GST6" --ready "$W/gst.ready" \
		>"$LOGS/gst-server.out" 2>&1 &
	GST_PID=$!
	until_ms 60000
	while before_deadline; do
		[ -s "$W/own.ready" ] && [ -s "$W/gst.ready" ] && return 0
		if ! kill -0 "$OWN_PID" 2>/dev/null || ! kill -0 "$GST_PID" 2>/dev/null; then
			break
		fi
		nap 0.2
	done
	echo "FAIL e2e-rtsp/servers: not ready within 60 s: rtsp.py: $(tr '\n' ' ' <"$LOGS/rtsp-server.out" | cut -c1-300); gst: $(tr '\n' ' ' <"$LOGS/gst-server.out" | cut -c1-300)"
	return 1
}

# shellcheck disable=SC2317  # runs from the EXIT trap
cleanup() {
	suite_cleanup
	[ -z "$OWN_PID" ] || kill "$OWN_PID" 2>/dev/null
	[ -z "$GST_PID" ] || kill "$GST_PID" 2>/dev/null
	cp "$W"/*.out "$LOGS/" 2>/dev/null
}
trap cleanup EXIT

T0=$SECONDS
progress "topology"
require_tools e2e-rtsp "apt-get install ffmpeg gstreamer1.0-tools gir1.2-gst-rtsp-server-1.0 python3-gi" \
	ffmpeg gst-launch-1.0
suite_topology e2e-rtsp rtsp
if [ -n "${RTSP_OPEN:-}" ]; then
	# the sanity run: no firewall, so the no-helper column shows what
	# passes on routing alone (PASSED! lines are expected then)
	say "RTSP_OPEN: FORWARD accepts everything"
	for t in "$IPT" "$IP6T"; do "$t" -F FORWARD; "$t" -P FORWARD ACCEPT; done
fi
start_servers || exit 1
say "servers up at $((SECONDS - T0)) s"
run_suite "rtsp cases"
exit 0
