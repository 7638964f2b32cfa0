#!/bin/bash
# The installed Debian packages in the test VM (issue 33), run by
# tests/deb/vm.sh after tests/deb/run.sh installed them on the host (the
# VM's root is the host's, read-only): the daemon from /usr/sbin, started
# by the package's unit under systemd as PID 1 of a namespace (as
# tests/ops runs the `make install` one), with the package's
# configuration and users.
#
#   condition   no /etc/cthelperd/enabled: `systemctl start` starts
#               nothing (the package must not grab queues or register
#               helpers on a firewall that has not asked for it); the
#               unit is enabled
#   unit-start  the marker made: active, two ftp helpers, the daemon as
#               the package's user and the sandboxes as its sandbox user
#   e2e/running/*     tests/e2e's CASES on that daemon (its `running`
#               column), through the firewall that blocks them without it
#   reload-sip  sip added to the configuration, `systemctl reload`: the
#               four sip helpers appear, ftp stays
#   e2e-sip/running/* tests/sip's cases on it (DEB_VM_SIP, an extended
#               regex over their names, chooses; default below)
#   dkms-ftp    the module the cthelperd-dkms package built for this
#               kernel (/lib/modules/KVER/updates/dkms) in place of the
#               in-tree nfnetlink_cthelper: FTP cases through it
#   unit-stop   `systemctl stop`: no helper left
#
# Each case prints PASS deb/vm/NAME or FAIL deb/vm/NAME: why.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/lib/vmsuite.sh
. tests/lib/vmsuite.sh
# shellcheck source=tests/lib/systemd.sh
. tests/lib/systemd.sh
suite_init deb

ETC=/etc/cthelperd
CONF=$ETC/cthelperd.conf
UNIT=/lib/systemd/system/cthelperd.service
SIP_CASES=${DEB_VM_SIP:-udp-call|register-invite|masq-call|dnat-call}
DKMS_CASES=${DEB_VM_DKMS:-v4-pasv|nat-dnat-pasv}

verdict() {
	if [ -z "$2" ]; then echo "PASS deb/vm/$1"; else echo "FAIL deb/vm/$1: $2"; fi
}
journal() { sd journalctl -u cthelperd --no-pager 2>&1 | tail -n "${1:-15}" | sed 's/^/  | /'; }
unit_state() { sd systemctl show -p ActiveState -p SubState -p ConditionResult -p StatusText cthelperd 2>&1 | tr '\n' ' '; }
helpers_named() { nfct_helpers | grep -c "name = $1,.*status = enabled"; }

# The package's /etc/cthelperd is the host's, read-only here: a tmpfs copy
# of it takes the marker and the test's configuration edits.  Mounted
# before systemd starts, so its namespace sees the same files.
etc_writable() {
	mkdir -p "$W/etc" && cp -a "$ETC/." "$W/etc/" &&
		mount -t tmpfs -o mode=0755 tmpfs "$ETC" && cp -a "$W/etc/." "$ETC/"
}

case_condition() {
	local c=condition why="" st
	progress "$c"
	st=$(sd systemctl is-enabled cthelperd 2>&1)
	[ "$st" = enabled ] || why="systemctl is-enabled: $st (debhelper should enable it)"
	sdt systemctl start cthelperd >"$W/sd.out" 2>&1 ||
		why="${why:+$why; }systemctl start without the marker failed: $(tr '\n' ' ' <"$W/sd.out")"
	st=$(unit_state)
	say "$c: without $ETC/enabled: $st"
	[[ $st == *ConditionResult=no* && $st == *ActiveState=inactive* ]] ||
		why="${why:+$why; }started without $ETC/enabled: $st"
	[ -z "$(nfct_helpers)" ] || why="${why:+$why; }helpers registered: $(nfct_helpers | tr '\n' ' ')"
	verdict $c "$why"
}

case_unit_start() {
	local c=unit-start why="" st ps
	progress "$c"
	touch "$ETC/enabled"
	sdt systemctl start cthelperd >"$W/sd.out" 2>&1 ||
		why="systemctl start: $(tr '\n' ' ' <"$W/sd.out")"
	st=$(unit_state)
	say "$c: $st"
	[[ $st == *ActiveState=active* ]] || why="${why:+$why; }not active: $st"
	wait_helpers_enabled ftp 2 || why="${why:+$why; }ftp helpers: $(nfct_helpers | tr '\n' ' ')"
	ps=$(ps -eo user:24,comm:24 | grep cthelperd)
	say "$c: processes: $(tr -s ' \n' ' ;' <<<"$ps")"
	grep -qE '^cthelperd +cthelperd *$' <<<"$ps" ||
		why="${why:+$why; }the daemon does not run as user cthelperd: $ps"
	# (a sandbox's command name is exe: it is started with fexecve)
	grep -qE '^cthelperd-sandbox ' <<<"$ps" ||
		why="${why:+$why; }no sandbox runs as user cthelperd-sandbox: $ps"
	verdict $c "$why"
	[ -z "$why" ] || journal 20
	[[ $st == *ActiveState=active* ]]
}

# The sip example of the suite's own configuration, added to the package's.
case_reload_sip() {
	local c=reload-sip why="" st _
	progress "$c"
	cat >>"$CONF" <<EOF

[helper sip]
plugin = sip
family = both
protocol = both
queue = 1
EOF
	sdt systemctl reload cthelperd >"$W/sd.out" 2>&1 ||
		why="systemctl reload: $(tr '\n' ' ' <"$W/sd.out")"
	wait_helpers_enabled sip 4 || why="${why:+$why; }sip helpers after the reload: $(nfct_helpers | tr '\n' ' ')"
	[ "$(helpers_named ftp)" = 2 ] || why="${why:+$why; }ftp helpers after the reload: $(nfct_helpers | tr '\n' ' ')"
	st=$(unit_state)
	say "$c: $st"
	[[ $st == *ActiveState=active* ]] || why="${why:+$why; }not active after the reload: $st"
	verdict $c "$why"
	[ -z "$why" ] || journal 20
	[ -z "$why" ]
}

# The FTP cases on the DKMS-built module: the unit stopped, the in-tree
# module replaced, the unit started again; the sub-run's lines are shown
# indented and make one verdict (its case names are the first run's).
case_dkms_ftp() {
	local c=dkms-ftp why="" ko kver
	progress "$c"
	kver=$(uname -r)
	ko=$(modinfo -n cthelperd_nfnl 2>&1)
	say "$c: modinfo -n cthelperd_nfnl: $ko"
	if [[ $ko != /lib/modules/$kver/updates/dkms/cthelperd_nfnl.ko* ]]; then
		verdict $c "no module from the dkms package for $kver: $ko"
		return
	fi
	sdt systemctl stop cthelperd >"$W/sd.out" 2>&1 || why="systemctl stop: $(tr '\n' ' ' <"$W/sd.out")"
	if [ -d /sys/module/nfnetlink_cthelper ] && ! rmmod nfnetlink_cthelper 2>"$W/rmmod.out"; then
		verdict $c "${why:+$why; }cannot unload nfnetlink_cthelper: $(tr '\n' ' ' <"$W/rmmod.out"); helpers: $(nfct_helpers | tr '\n' ' ')"
		return
	fi
	if ! modprobe cthelperd_nfnl 2>"$W/modprobe.out"; then
		verdict $c "${why:+$why; }modprobe cthelperd_nfnl: $(tr '\n' ' ' <"$W/modprobe.out")"
		return
	fi
	say "$c: $(grep -E '^(cthelperd_nfnl|nfnetlink_cthelper) ' /proc/modules | cut -d' ' -f1-3 | tr '\n' ' ')"
	sdt systemctl start cthelperd >"$W/sd.out" 2>&1 || why="${why:+$why; }systemctl start: $(tr '\n' ' ' <"$W/sd.out")"
	wait_helpers_enabled ftp 2 || why="${why:+$why; }ftp helpers on the dkms module: $(nfct_helpers | tr '\n' ' ')"
	if [ -z "$why" ]; then
		E2E_ONLY=$DKMS_CASES tests/e2e/inside.sh running >"$W/dkms-e2e.out" 2>&1
		sed 's/^/  /' "$W/dkms-e2e.out" | grep -E '^  (PASS|FAIL|NOTE) '
		grep -q '^PASS ' "$W/dkms-e2e.out" || why="no FTP case passed on the dkms module"
		! grep -q '^FAIL ' "$W/dkms-e2e.out" ||
			why="${why:+$why; }$(grep '^FAIL ' "$W/dkms-e2e.out" | head -n 3 | tr '\n' ' ')"
	fi
	verdict $c "$why"
	[ -z "$why" ] || journal 20
}

case_unit_stop() {
	local c=unit-stop why=""
	progress "$c"
	sdt systemctl stop cthelperd >"$W/sd.out" 2>&1 || why="systemctl stop: $(tr '\n' ' ' <"$W/sd.out")"
	[ -z "$(nfct_helpers)" ] || why="${why:+$why; }helpers left after the stop: $(nfct_helpers | tr '\n' ' ')"
	verdict $c "$why"
}

# shellcheck disable=SC2317  # runs from the EXIT trap
cleanup() {
	[ -z "$SD_PID" ] || sd journalctl -u cthelperd --no-pager >"$LOGS/cthelperd-journal.log" 2>&1
	systemd_down
	suite_cleanup
}
trap cleanup EXIT

T0=$SECONDS
for f in /usr/sbin/cthelperd "$UNIT" "$CONF"; do
	[ -e "$f" ] && continue
	echo "FAIL deb/vm/installed: $f missing: are the packages installed on the host?"
	exit 1
done
if ! etc_writable; then
	echo "FAIL deb/vm/setup: cannot put a writable copy of $ETC in place"
	exit 1
fi
progress "systemd"
if ! systemd_boot; then
	echo "FAIL deb/vm/systemd: systemd did not come up as PID 1 of a PID namespace: $SD_STATE; $(tail -n 5 "$LOGS/systemd.log" | tr '\n' '|')"
	exit 1
fi
say "systemd $(sd systemctl --version | head -n 1) is PID 1 of its namespace"
sd systemctl start systemd-journald.socket systemd-journald.service >/dev/null 2>&1
# the same helper modules the suites load, before the unit asks for them
modprobe -a nf_conntrack nfnetlink_queue nf_conntrack_netlink nfnetlink_cthelper

case_condition
if case_unit_start; then
	progress "e2e running"
	E2E_ONLY=${DEB_VM_E2E:-} tests/e2e/inside.sh running
	if case_reload_sip; then
		progress "sip running"
		SIP_ONLY=$SIP_CASES tests/sip/inside.sh running
	fi
	case_dkms_ftp
	case_unit_stop
fi
say "deb took $((SECONDS - T0)) s inside the VM"
exit 0
