#!/bin/bash
# make demo: one FTP session through a NATed firewall, with cthelperd as the
# FTP helper, narrated.  On the host this boots the test VM and runs itself
# inside it (IN_TEST_VM=1).  Exit status 0 only if the file arrived intact.
set -u
cd "$(dirname "$0")/../.." || exit 1

if [ "${IN_TEST_VM:-}" != 1 ]; then
	if [ ! -x build/cthelperd ] || [ ! -e build/plugins/ftp.so ]; then
		echo "demo: build/cthelperd or build/plugins/ftp.so missing; run make first" >&2
		exit 1
	fi
	# shellcheck source=tests/vm/rundir.sh
	. tests/vm/rundir.sh
	res=$(rundir_new build/vm/demo) || exit 1
	exec tests/vm/run.sh --timeout "${DEMO_TIMEOUT:-300}" --results "$res" "$PWD/tests/vm/demo.sh"
fi

# ---------------------------------------------------------------- in the VM
REPO=$PWD
# shellcheck source=tests/lib/topo.sh
. tests/lib/topo.sh
PY=/usr/bin/python3
FTP=$REPO/tests/lib/ftp.py
W=/tmp/demo
mkdir -p "$W/sync"
CTH_PID='' FTP_PID='' EV_PID='' CL_PID=''

step() { echo; echo "==> $*"; echo "$*" >>"${VM_PROGRESS:-/dev/null}"; }
show() { sed 's/^/    /'; }
fail() {
	echo
	echo "DEMO FAILED: $*"
	if [ -s "$W/cthelperd.log" ]; then
		echo "    --- cthelperd log (last 20 lines)"
		tail -n 20 "$W/cthelperd.log" | show
	fi
	if [ -s "$W/client.log" ]; then
		echo "    --- client dialogue (last 15 lines)"
		tail -n 15 "$W/client.log" | show
	fi
	exit 1
}
# shellcheck disable=SC2317  # runs from the EXIT trap
cleanup() {
	local p
	for p in "$CL_PID" "$EV_PID" "$FTP_PID"; do
		[ -n "$p" ] && kill "$p" 2>/dev/null
	done
	# Rules before helpers (kernel bug), then a clean stop.
	topo_ct_del
	[ -n "$CTH_PID" ] && kill -TERM "$CTH_PID" 2>/dev/null && wait "$CTH_PID" 2>/dev/null
}
trap cleanup EXIT

# wait_file FILE SECONDS
wait_file() {
	local _
	for _ in $(seq 1 $(($2 * 5))); do
		[ -s "$1" ] && return 0
		sleep 0.2
	done
	return 1
}

step "Topology: client $CL4 -- router ($R_CL4 | $R_SV4) -- server $SV4 (private)"
topo_setup || fail "topology setup"
topo_mode dnat || fail "DNAT setup"
echo "    The server is private: the client dials the router's $R_CL4:21, which"
echo "    DNATs to $SV4:21.  The client has no route to 10.0.2.0/24."
echo "    Router FORWARD policy DROP; allowed: ESTABLISHED,RELATED and NEW to tcp/21:"
"$IPT" -S FORWARD | show
"$IPT" -t nat -S PREROUTING | grep -- '-j DNAT' | show
topo_assert_no_kernel_ftp || fail "nf_conntrack_ftp is loaded"

step "Starting the FTP server (pyftpdlib) on $SV4:21"
in_server "$PY" "$FTP" server --root "$W/ftproot" --size $((1024 * 1024)) \
	--ready "$W/ftp.ready" --log "$W/ftp-server.log" >"$W/ftp-server.out" 2>&1 &
FTP_PID=$!
wait_file "$W/ftp.ready" 60 || fail "FTP server did not start"
read -r SIZE SHA <"$W/ftproot/testfile.meta"
echo "    serving 'testfile': $SIZE bytes, sha256 $SHA"

step "Starting cthelperd with the shipped example (build/cthelperd -c conf/cthelperd.conf)"
grep -vE '^[[:space:]]*(;|$)' "$REPO/conf/cthelperd.conf" | show
"$REPO/build/cthelperd" -c "$REPO/conf/cthelperd.conf" >"$W/cthelperd.log" 2>&1 &
CTH_PID=$!
for _ in $(seq 1 100); do
	grep -q ready "$W/cthelperd.log" && break
	kill -0 "$CTH_PID" 2>/dev/null || fail "cthelperd exited before it was ready"
	sleep 0.2
done
grep -q ready "$W/cthelperd.log" || fail "cthelperd did not print ready"
show <"$W/cthelperd.log"

step "Kernel helpers registered by cthelperd (nfct helper list)"
nfct helper list | show

step "Attaching the helper to FTP control connections (raw PREROUTING, both families)"
topo_ct_add ftp || fail "CT --helper ftp rule"
"$IPT" -t raw -S PREROUTING | grep -- '--helper' | show
"$IP6T" -t raw -S PREROUTING | grep -- '--helper' | show
topo_assert_no_kernel_ftp || fail "the rule made the kernel load nf_conntrack_ftp"
echo "    (the in-kernel nf_conntrack_ftp is not loaded: the helper is cthelperd's)"

step "FTP session: client $CL4 -> $R_CL4:21, passive mode (PASV)"
stdbuf -oL conntrack -E expect >"$W/expect-events.log" 2>&1 &
EV_PID=$!
in_client "$PY" "$FTP" client --host "$R_CL4" --mode pasv --meta "$W/ftproot/testfile.meta" \
	--sync-dir "$W/sync" --hold-data --pause-timeout 60 --data-timeout 8 \
	>"$W/client.out" 2>"$W/client.log" &
CL_PID=$!
if ! wait_file "$W/sync/hold.1" 30; then
	wait "$CL_PID"; CL_PID=
	fail "the client never got a data port: $(cat "$W/client.out")"
fi
read -r DHOST DPORT <"$W/sync/hold.1"
sent=$(grep -- '-> 227' "$W/ftp-server.log" | tail -n 1 | sed 's/.*-> //')
got=$(grep -- '<- 227' "$W/client.log" | tail -n 1 | sed 's/^[0-9.]* <- //')
echo "    the server sent:      $sent"
echo "    the client received:  $got"
echo "    cthelperd rewrote the private address for NAT; the client will connect to $DHOST port $DPORT."

step "The expectation cthelperd created, while the client holds off (conntrack -L expect)"
conntrack -L expect 2>&1 | show
touch "$W/sync/release.1"
wait "$CL_PID"
rc=$?
CL_PID=

step "Transfer"
show <"$W/client.out"
grep -E 'data connection to|<- 226' "$W/client.log" | sed 's/^[0-9.]* //' | show
[ $rc = 0 ] || fail "transfer failed"
grep -q '^OK pasv transfer 1: .* sha256 ok' "$W/client.out" || fail "transfer not verified"

sleep 0.3
kill "$EV_PID" 2>/dev/null; wait "$EV_PID" 2>/dev/null; EV_PID=
step "Expectation events during the session (conntrack -E expect)"
show <"$W/expect-events.log"
step "The data connection as conntrack saw it (the reply tuple shows the DNAT to the server)"
conntrack -L -p tcp 2>/dev/null | grep -v 'dport=21 ' | show

step "cthelperd log"
show <"$W/cthelperd.log"

step "Clean shutdown: CT rules removed first, then SIGTERM to cthelperd"
topo_ct_del
kill -TERM "$CTH_PID"
wait "$CTH_PID"
src=$?
CTH_PID=
echo "    cthelperd exited with status $src"
echo "    helpers left in the kernel: $(nfct helper list 2>/dev/null | grep -c 'name = ') (0 expected)"
echo
echo "DEMO OK: $SIZE bytes through the NATed firewall, sha256 verified, helped by cthelperd."
