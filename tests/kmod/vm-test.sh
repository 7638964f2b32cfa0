#!/bin/bash
# Runs INSIDE the test VM (tests/vm/run.sh tests/kmod/vm-test.sh KO).
#
# 1. reference: the in-tree nfnetlink_cthelper runs the whole cthnl.py
#    suite (results are commentary, recorded for the parity check);
# 2. ours: the in-tree module is unloaded, KO is insmod'ed, nfct and the
#    same suite run against it (PASS/FAIL), every result is compared with
#    the in-tree one (kmod-parity-*);
# 3. unload with helpers left, reload, coexistence, dmesg.
set -u
cd "$(dirname "$0")/../.." || exit 1
KO=${1:-build/kmod/cthelperd_nfnl.ko}
OURS=cthelperd_nfnl
INTREE=nfnetlink_cthelper
PY=/usr/bin/python3
CL=tests/kmod/cthnl.py
T=$(mktemp -d)

step() {
	echo "kmod: $*" >>"${VM_PROGRESS:-/dev/null}"
	echo "# $*"
}
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
ok_if() {	# ok_if NAME WHY CMD...: PASS when CMD succeeds
	local name=$1 why=$2
	shift 2
	if "$@"; then pass "$name"; else fail "$name" "$why"; fi
}
check() {	# check NAME WANT GOT
	if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "got '$3', expected '$2'"; fi
}
loaded() { [ -d "/sys/module/$1" ]; }
suite() {	# suite LABEL MODULE [--info]
	timeout 300 $PY $CL suite --label "$1" --module "$2" --record "$T/$1.tsv" "${@:3}"
	local rc=$?
	[ $rc = 0 ] || fail "kmod-$1-suite" "cthnl.py exited with $rc"
}

step "dependencies"
for m in nf_conntrack nfnetlink nfnetlink_queue nf_conntrack_netlink \
	 ip_tables iptable_raw xt_CT xt_tcpudp xt_NFQUEUE nf_tables nft_ct; do
	modprobe "$m" || fail kmod-vm-deps "modprobe $m failed"
done
dmesg -C

# ---------------------------------------------------------------- in-tree
step "reference run on the in-tree $INTREE"
have_ref=0
if loaded $INTREE || modprobe $INTREE; then
	have_ref=1
	suite intree $INTREE --info
	timeout 20 $PY $CL del >/dev/null
	if ! rmmod $INTREE; then
		fail kmod-intree-unload "rmmod $INTREE refused; our module cannot load"
	fi
else
	echo "SKIP kmod-parity: the VM kernel has no $INTREE to compare with"
fi

# ---------------------------------------------------------------- ours
step "our module"
if loaded $INTREE; then
	fail kmod-intree-absent "$INTREE still loaded"
else
	pass kmod-intree-absent
fi
if ! out=$(insmod "$KO" 2>&1); then
	fail kmod-insmod "insmod $KO: $out"
	echo "--- dmesg"; dmesg | tail -n 20
	exit 1
fi
pass kmod-insmod
check kmod-modinfo-version "$(modinfo -F version "$KO")" "$(cat /sys/module/$OURS/version 2>/dev/null)"

# The subsystem is ours now: nfnetlink cannot autoload the in-tree module,
# and loading it by hand must fail rather than steal the subsystem.
if modprobe $INTREE 2>/dev/null; then
	fail kmod-coexist "$INTREE loaded next to $OURS"
	rmmod $INTREE
else
	pass kmod-coexist-intree-refused
fi
loaded $INTREE && fail kmod-intree-absent-after "$INTREE got loaded"

step "cthelperd --check-kernel"
modprobe -a nf_nat nfnetlink_queue nf_conntrack_netlink
out=$(timeout 30 "${CTH_BUILD:-build}"/cthelperd --check-kernel 2>&1); rc=$?
printf '%s\n' "$out" | sed 's/^/#   /'
ok_if kmod-check-kernel-ours "rc=$rc: $(echo "$out" | tr '\n' '|')" \
	grep -q 'provided by cthelperd_nfnl' <<<"$out"
check kmod-check-kernel-ours-rc 0 "$rc"

step "nfct"
nfct_ok=1
for h in "ftp inet tcp" "tftp inet udp" "ftp inet6 tcp"; do
	# shellcheck disable=SC2086
	out=$(timeout 20 nfct add helper $h 2>&1) || { nfct_ok=0; fail "kmod-nfct-add-${h// /-}" "$out"; }
done
[ $nfct_ok = 1 ] && pass kmod-nfct-add
list=$(timeout 20 nfct list helper 2>&1)
printf '%s\n' "$list" | sed 's/^/#   /'
n=$(echo "$list" | grep -c -E '\.name = (ftp|tftp),')
check kmod-nfct-list-shows-helpers 3 "$n"
ok_if kmod-nfct-list-ipv6 "no inet6 entry" grep -q 'l3protonum = 10' <<<"$list"
out=$(timeout 20 nfct get helper ftp inet tcp 2>&1)
ok_if kmod-nfct-get "$out" grep -q '\.name = ftp,' <<<"$out"
if out=$(timeout 20 nfct disable helper ftp inet tcp 2>&1); then pass kmod-nfct-disable; else fail kmod-nfct-disable "$out"; fi
check kmod-nfct-disabled-state "ftp l3=2 l4=6 queue=0 status=0" \
	"$($PY $CL dump | grep '^ftp l3=2 l4=6' | cut -d' ' -f1-5)"
if out=$(timeout 20 nfct delete helper ftp 2>&1); then pass kmod-nfct-delete; else fail kmod-nfct-delete "$out"; fi
check kmod-nfct-delete-state "tftp" "$($PY $CL dump | cut -d' ' -f1 | tr '\n' ' ' | sed 's/ $//')"
if out=$(timeout 20 nfct flush helper 2>&1); then pass kmod-nfct-flush; else fail kmod-nfct-flush "$out"; fi
check kmod-nfct-flush-state "" "$($PY $CL dump)"

step "suite on $OURS"
suite ours $OURS
if [ $have_ref = 1 ]; then
	step "parity"
	$PY $CL compare "$T/intree.tsv" "$T/ours.tsv"
fi

# ---------------------------------------------------------------- unload
step "unload with helpers left"
check kmod-leave-helper-1 0 "$($PY $CL new left1 2 6 --priv 8 --status 1)"
check kmod-leave-helper-2 0 "$($PY $CL new left2 10 17 --classes 4)"
if out=$(rmmod $OURS 2>&1); then pass kmod-rmmod; else fail kmod-rmmod "$out"; fi
loaded $OURS && fail kmod-rmmod-gone "$OURS still loaded"

# Lookups that would touch a freed helper through an expectation left
# behind (cthnl.py's exp part deleted its helper and kept the master, and
# EXP_NEW expected 127.0.0.1:6101): expectation dumps, /proc, and a new
# connection matching the expectation.  Any oops shows in the dmesg check.
step "expectation lookups after rmmod"
out=$(timeout 20 conntrack -L expect 2>&1); rc=$?
check kmod-exp-list-after-rmmod "0 0" "$rc $(grep -c -E 'dport=|helper=' <<<"$out")"
out=$(timeout 20 cat /proc/net/nf_conntrack_expect 2>&1); rc=$?
check kmod-exp-proc-after-rmmod "0 " "$rc $out"
timeout 20 $PY -c 'import socket
s = socket.socket(); s.settimeout(3)
try: s.connect(("127.0.0.1", 6101))
except OSError: pass'
check kmod-exp-connect-after-rmmod 0 "$?"
check kmod-exp-dump-after-rmmod "" "$(timeout 20 $PY $CL exp-dump)"
# Without ours, the probe makes nfnetlink autoload the in-tree module (our
# module declares no alias where an in-tree one exists), and says so.
if [ $have_ref = 1 ]; then
	out=$(timeout 30 "${CTH_BUILD:-build}"/cthelperd --check-kernel 2>&1); rc=$?
	ok_if kmod-check-kernel-intree "rc=$rc: $(echo "$out" | tr '\n' '|')" \
		grep -q 'provided by nfnetlink_cthelper' <<<"$out"
fi
# Our exit must have unregistered both from conntrack: a new owner of the
# subsystem can register the same names and tuples again.
if [ $have_ref = 1 ] && modprobe $INTREE; then
	check kmod-exit-unregistered-all "0 0" \
		"$($PY $CL new left1 2 6) $($PY $CL new left2 10 17)"
	$PY $CL del >/dev/null
	rmmod $INTREE || fail kmod-intree-unload-2 "rmmod $INTREE refused"
else
	echo "SKIP kmod-exit-unregistered-all: no in-tree module to re-register with"
fi

step "reload"
if insmod "$KO" 2>/dev/null; then
	check kmod-reload-works 0 "$($PY $CL new again 2 17)"
	ok_if kmod-reload-rmmod "rmmod refused" rmmod $OURS
else
	fail kmod-reload "second insmod failed"
fi

step "dmesg"
bad=$(dmesg | grep -E 'WARNING:|BUG:|Oops|general protection|Call Trace|refcount_t|list_(add|del) corruption|UBSAN|KASAN|kernel BUG')
if [ -n "$bad" ]; then
	fail kmod-dmesg-clean "$(echo "$bad" | head -n 5 | tr '\n' '|')"
	dmesg | tail -n 60 | sed 's/^/#   /'
else
	pass kmod-dmesg-clean
fi
dmesg | grep -E "$OURS|cthelper" | sed 's/^/# dmesg: /'
rm -rf "$T"
exit 0
