# shellcheck shell=bash
# A SIP trunk (issue 34), one source for tests/sip's trunk case and the
# bench's scale phase: tests/lib/sip.py trunk-uas in the server namespace,
# trunk-uac in the client's, N dialogs on one UDP signalling flow (every
# INVITE is sent before the first is answered); once every dialog is up,
# one datagram each way for each dialog, counted at the far side.  Needs
# tests/lib/vmsuite.sh (wait_line, nap, W, LOGS, PY, REPO) and the
# topology's TOPO_CL_NS, TOPO_SV_NS, CL4, SV4.

# trunk_run TAG N CL_BASE SV_BASE [ON_UP...]: the caller's media ports
# from CL_BASE, the callee's from SV_BASE (2 a dialog); TAG names the
# logs (LOGS/trunk-uas-TAG.err, LOGS/trunk-uac-TAG.err); ON_UP, a command
# run once the dialogs are up, before the media.  Sets TRUNK_UP (dialogs
# answered), TRUNK_A (dialogs whose datagram reached the caller: the
# INVITEs' expectations), TRUNK_B (reached the callee: the 200s'), each
# empty when not known, and TRUNK_WHY (empty when the trunk came up).
trunk_run() {
	local tag=$1 n=$2 clb=$3 svb=$4 side sfd cfd pids=()
	shift 4
	TRUNK_UP='' TRUNK_A='' TRUNK_B='' TRUNK_WHY=''
	for side in uas uac; do
		rm -f "$W/trunk-$side.in" "$W/trunk-$side.out"
		mkfifo "$W/trunk-$side.in"
	done
	# each side reads its commands from a FIFO held open here
	exec {sfd}<>"$W/trunk-uas.in" {cfd}<>"$W/trunk-uac.in"
	nsenter --net="/run/netns/$TOPO_SV_NS" "$PY" -u "$REPO/tests/lib/sip.py" trunk-uas "$SV4" "$svb" "$n" \
		<"$W/trunk-uas.in" >"$W/trunk-uas.out" 2>"$LOGS/trunk-uas-$tag.err" &
	pids+=($!)
	if ! wait_line "$W/trunk-uas.out" '^ready' 60000; then
		TRUNK_WHY="the callee did not start: $(tail -n 2 "$LOGS/trunk-uas-$tag.err" | tr '\n' ' ')"
	else
		nsenter --net="/run/netns/$TOPO_CL_NS" "$PY" -u "$REPO/tests/lib/sip.py" trunk-uac "$CL4" "$SV4" "$clb" "$n" \
			<"$W/trunk-uac.in" >"$W/trunk-uac.out" 2>"$LOGS/trunk-uac-$tag.err" &
		pids+=($!)
		if wait_line "$W/trunk-uac.out" '^up ' 180000 && [[ $LINE =~ ^up\ ([0-9]+) ]]; then
			TRUNK_UP=${BASH_REMATCH[1]}
			[ $# -eq 0 ] || "$@"
			echo media >&"$sfd"
			wait_line "$W/trunk-uas.out" '^sent' 60000
			echo media >&"$cfd"
			wait_line "$W/trunk-uac.out" '^sent' 60000
			nap 3
			echo count >&"$cfd"
			wait_line "$W/trunk-uac.out" '^got' 60000 && TRUNK_A=${LINE#got }
			echo count >&"$sfd"
			wait_line "$W/trunk-uas.out" '^got' 60000 && TRUNK_B=${LINE#got }
		else
			TRUNK_WHY="the trunk did not come up: $(tail -n 2 "$W/trunk-uac.out" "$LOGS/trunk-uac-$tag.err" | tr '\n' ' ')"
		fi
	fi
	exec {sfd}>&- {cfd}>&-
	kill "${pids[@]}" 2>/dev/null
	wait "${pids[@]}" 2>/dev/null
}
