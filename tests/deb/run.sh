#!/bin/bash
# The Debian packages (issue 33), host part: PASS/FAIL/SKIP lines
# (tests/README.md's result protocol).  As root, on this machine:
#
#  - the tree's files (tracked and not ignored) copied to build-deb/src,
#    `dpkg-buildpackage -us -uc -b` there (DEB_BUILD_OPTIONS from the
#    environment, default parallel=2), its log in build-deb/build.log;
#  - blhc on that log, hardening-check on every ELF the packages hold,
#    the -dbgsym packages' .debug files, lintian on the .changes;
#  - the packages installed with apt-get: files, dpkg's status, the system
#    users, the conffile, the packaged config accepted by cthelperd -n, the
#    unit enabled but not started, the module built and installed by DKMS
#    for each kernel that has headers, the SDK (pkg-config, a new plugin
#    built and checked against it);
#  - the VM part (tests/deb/vm.sh) unless CTH_DEB_VM=0;
#  - purged: nothing left but the system users (policy).
# Whatever fails, the packages are purged at the end, and users this run
# made are removed again.
# the package lists are split into words on purpose
# shellcheck disable=SC2086
set -u
cd "$(dirname "$0")/../.." || exit 1
# not under build/: the Makefile includes every *.d it finds there, and
# the copy has its own build and a unit drop-in directory named *.d
OUT=build-deb
SRC=$OUT/src
BLOG=$OUT/build.log
PKGS="cthelperd cthelperd-dkms libcthelperd-dev"
DBGSYM="cthelperd-dbgsym libcthelperd-dev-dbgsym"
USERS="cthelperd cthelperd-sandbox"
# a made-up kernel release for the BUILD_EXCLUSIVE check (removed at exit)
FAKE_K=4.19.0-cthfake
W=$(mktemp -d /tmp/cth-deb-XXXXXX)
# readable by the sandboxes' user: the new plugin's check loads from here
chmod 755 "$W"
LOG=$W/log.txt
SUITE=deb
# shellcheck source=tests/lib/hostcheck.sh
. tests/lib/hostcheck.sh
t0=$(date +%s)
export DEBIAN_FRONTEND=noninteractive
# another apt-get (make deps in a second tree) may hold the lock a while
APT="apt-get -y -q -o DPkg::Lock::Timeout=600"

if [ "$(id -u)" != 0 ]; then
	fail root "run as root: it installs and purges the packages"
	exit 1
fi
missing=""
for tool in dpkg-buildpackage dh dh_dkms dkms blhc hardening-check lintian git; do
	command -v "$tool" >/dev/null || missing="$missing $tool"
done
if [ -n "$missing" ]; then
	fail tools "not installed:$missing (make deps installs them)"
	exit 1
fi

# ------------------------------------------------------------ restoring

installed() { dpkg-query -W -f '${db:Status-Status}\n' "$1" 2>/dev/null | grep -qv '^not-installed$'; }
had_users=""
for u in $USERS; do getent passwd "$u" >/dev/null && had_users="$had_users $u"; done
cleanup() {
	local p todo=""
	for p in $PKGS $DBGSYM; do installed "$p" && todo="$todo $p"; done
	[ -z "$todo" ] || $APT purge $todo >"$W/cleanup.txt" 2>&1 ||
		echo "# deb: cleanup: apt-get purge$todo failed: $(tail -n 3 "$W/cleanup.txt" | tr '\n' ' ')"
	# the users stay at a purge (policy); this run made them, it removes them
	for u in $USERS; do
		case " $had_users " in *" $u "*) continue ;; esac
		getent passwd "$u" >/dev/null && deluser --quiet --system "$u" >/dev/null 2>&1
		getent group "$u" >/dev/null && delgroup --quiet --system "$u" >/dev/null 2>&1
	done
	rm -rf "$W" "/lib/modules/$FAKE_K"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---------------------------------------------------------------- build

# the tree as it is (uncommitted edits included), not build products
copy_tree() {
	rm -rf "$OUT" && mkdir -p "$SRC" || return 1
	git ls-files -z --cached --others --exclude-standard |
		while IFS= read -r -d '' f; do [ -f "$f" ] && printf '%s\0' "$f"; done |
		xargs -0 cp --parents -t "$SRC"
}
opts=${DEB_BUILD_OPTIONS-parallel=2}
tb=$(date +%s)
# CTH_DEB_REUSE=1 (working on the checks): the last build's packages
if [ "${CTH_DEB_REUSE:-0}" = 1 ] && [ -f "$BLOG" ] && ls "$OUT"/*.changes >/dev/null 2>&1; then
	echo "SKIP deb/build: CTH_DEB_REUSE=1, the packages of the last build"
elif ! check copy-tree copy_tree; then
	exit 1
elif (cd "$SRC" && DEB_BUILD_OPTIONS=$opts dpkg-buildpackage -us -uc -b) >"$BLOG" 2>&1; then
	pass "build ($(( $(date +%s) - tb )) s, DEB_BUILD_OPTIONS=$opts)"
else
	fail build "dpkg-buildpackage -us -uc -b: $(tail -n 5 "$BLOG" | tr '\n' ' ') (log $BLOG)"
	exit 1
fi
V=$(cd "$SRC" && dpkg-parsechangelog -S Version)
UV=${V%-*}
ARCH=$(dpkg --print-architecture)
CHANGES=$OUT/cthelperd_${V}_$ARCH.changes
debs() { local p; for p in "$@"; do ls "$OUT/${p}_${V}_"*.deb 2>/dev/null; done; }
debs_ok() {
	local p
	for p in $PKGS $DBGSYM; do
		[ -n "$(debs "$p")" ] || { echo "no ${p}_${V}_*.deb in $OUT"; return 1; }
	done
}
check packages debs_ok

# --------------------------------------------------- flags and symbols

# blhc: every compile and link line of the log has dpkg-buildflags' flags
# (hardening=+all: PIE by gcc's default on amd64, stack protector strong,
# fortify 2 with -O2, relro, bindnow, format security)
check blhc blhc "$BLOG"

X=$W/x
for d in $(debs $PKGS $DBGSYM); do
	n=${d##*/}; n=${n%%_*}
	mkdir -p "$X/$n" && dpkg-deb -x "$d" "$X/$n"
done
# the ELF files the two non-dbgsym packages ship, listed once for the
# checks below
for p in cthelperd libcthelperd-dev; do
	find "$X/$p" -type f | while read -r f; do
		[ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" = '177ELF' ] && echo "$f"
	done
done >"$W/elfs.txt"
# hardening-check on each binary the packages ship.  Checked: PIE (the
# programs; the plugins are shared objects, PIC by -fPIC), stack
# protector, relro, bindnow; fortify for the programs.  Not checked:
# fortify for the plugins (each compile line has -D_FORTIFY_SOURCE=2 -O2,
# blhc says so; a plugin whose copies all have sizes the compiler cannot
# know, or can prove safe, calls no __*_chk function, which
# hardening-check takes for no fortify), and control-flow protection
# (-fcf-protection), which bookworm's dpkg-buildflags does not set.
hardening() {
	local f opt bad="" n=0
	while read -r f; do
		case $f in *.so) opt=--nofortify ;; *) opt= ;; esac
		# shellcheck disable=SC2086
		hardening-check --nocfprotection $opt "$f" >"$W/hc.txt" 2>&1 ||
			bad="$bad ${f#"$X"/}: $(grep -E ': no|unknown' "$W/hc.txt" | grep -v ignored | tr '\n' ' ')"
		n=$((n + 1))
	done <"$W/elfs.txt"
	[ "$n" -ge 10 ] || { echo "only $n ELF files found"; return 1; }
	[ -z "$bad" ] || { echo "$bad"; return 1; }
	echo "$n ELF files"
}
check hardening-check hardening

# every ELF of the packages has its .debug in the -dbgsym package
dbgsym() {
	local f id miss="" n=0
	while read -r f; do
		id=$(readelf -n "$f" | sed -n 's/^ *Build ID: *//p')
		[ -n "$id" ] || { miss="$miss ${f#"$X"/}(no build id)"; continue; }
		[ -s "$X/cthelperd-dbgsym/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug" ] ||
			[ -s "$X/libcthelperd-dev-dbgsym/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug" ] ||
			miss="$miss ${f#"$X"/}"
		n=$((n + 1))
	done <"$W/elfs.txt"
	[ -z "$miss" ] || { echo "no .debug for:$miss"; return 1; }
	echo "$n .debug files"
}
check dbgsym dbgsym

# lintian: no error, no warning (overrides in debian/*.lintian-overrides,
# each with its reason)
lint() {
	lintian "$CHANGES" >"$W/lintian.txt" 2>&1
	grep -v '^running with root privileges' "$W/lintian.txt"
	! grep -qE '^[EW]: ' "$W/lintian.txt"
}
check lintian lint

# -------------------------------------------------------------- install

ti=$(date +%s)
# shellcheck disable=SC2046
if $APT install --no-install-recommends $(debs $PKGS | sed 's|^|./|') >"$W/install.txt" 2>&1; then
	pass "install ($(( $(date +%s) - ti )) s)"
else
	fail install "apt-get install: $(tail -n 5 "$W/install.txt" | tr '\n' ' ')"
	exit 1
fi
cp "$W/install.txt" "$OUT/install.log"

status() {
	local p
	for p in $PKGS; do
		dpkg -s "$p" | grep -qx 'Status: install ok installed' || { echo "$p: not installed"; return 1; }
		dpkg -s "$p" | grep -qx "Version: $V" || { echo "$p: not version $V"; return 1; }
	done
}
check dpkg-status status

files() {
	local f
	for f in /usr/sbin/cthelperd /usr/sbin/cthelperctl /usr/lib/cthelperd/cthelperd-sandbox \
		/usr/lib/cthelperd/ftp.so /usr/lib/cthelperd/sip.so /etc/cthelperd/cthelperd.conf \
		/lib/systemd/system/cthelperd.service \
		/lib/systemd/system/cthelperd.service.d/debian.conf \
		/usr/share/man/man8/cthelperd.8.gz /usr/share/man/man8/cthelperctl.8.gz \
		/usr/share/man/man5/cthelperd.conf.5.gz /usr/share/doc/cthelperd/README.Debian \
		/usr/share/doc/cthelperd/copyright \
		/usr/include/cthelperd/plugin.h /usr/include/cthelperd/plugtest.h \
		/usr/bin/cthelper-replay /usr/bin/cthelper-mkpcap /usr/bin/cthelper-new-plugin \
		/usr/share/man/man1/cthelper-replay.1.gz /usr/share/cthelperd-sdk/README.md \
		/usr/share/cthelperd-sdk/examples/udpback/udpback.c /usr/share/cthelperd-sdk/skeleton/udp.c \
		"/usr/src/cthelperd-kmod-$UV/dkms.conf" "/usr/src/cthelperd-kmod-$UV/Kbuild" \
		"/usr/src/cthelperd-kmod-$UV/Makefile" "/usr/src/cthelperd-kmod-$UV/cthelperd_nfnl.c"; do
		[ -f "$f" ] || { echo "missing $f"; return 1; }
	done
	[ -n "$(find /usr/lib -name libcthsdk.a -path '*/usr/lib/*-linux-gnu/*')" ] &&
		[ -n "$(find /usr/lib -name libcthelperd-plugtest.a)" ] || { echo "missing static libraries"; return 1; }
	# the module's description as upstream ships it
	cmp "/usr/src/cthelperd-kmod-$UV/dkms.conf" kmod/dkms.conf || return 1
	grep -qx 'ExecStart=/usr/sbin/cthelperd -c /etc/cthelperd/cthelperd.conf' \
		/lib/systemd/system/cthelperd.service || { echo "the unit's ExecStart"; return 1; }
	grep -qx 'ConditionPathExists=/etc/cthelperd/enabled' \
		/lib/systemd/system/cthelperd.service.d/debian.conf || { echo "the drop-in's condition"; return 1; }
	/usr/sbin/cthelperd --help 2>&1 | grep -q /etc/cthelperd/cthelperd.conf ||
		{ echo "cthelperd --help does not name /etc/cthelperd/cthelperd.conf"; return 1; }
}
check files files

users() {
	local u e
	for u in $USERS; do
		e=$(getent passwd "$u") || { echo "no user $u"; return 1; }
		getent group "$u" >/dev/null || { echo "no group $u"; return 1; }
		[ "$(echo "$e" | cut -d: -f3)" -lt 1000 ] || { echo "$u is not a system user: $e"; return 1; }
		[ "$(echo "$e" | cut -d: -f6)" = /nonexistent ] || { echo "$u's home: $e"; return 1; }
		[ "$(echo "$e" | cut -d: -f7)" = /usr/sbin/nologin ] || { echo "$u's shell: $e"; return 1; }
	done
}
check users users

conffile() {
	dpkg-query -W -f '${Conffiles}\n' cthelperd | grep -q '^ /etc/cthelperd/cthelperd.conf ' ||
		{ echo "not a conffile: $(dpkg-query -W -f '${Conffiles}' cthelperd)"; return 1; }
	grep -qx 'user = cthelperd' /etc/cthelperd/cthelperd.conf &&
		grep -qx 'sandbox_user = cthelperd-sandbox' /etc/cthelperd/cthelperd.conf &&
		grep -qx 'plugin_dir = /usr/lib/cthelperd' /etc/cthelperd/cthelperd.conf ||
		{ echo "the packaged config's user, sandbox_user, plugin_dir"; return 1; }
}
check conffile conffile

check config-accepted /usr/sbin/cthelperd -n -c /etc/cthelperd/cthelperd.conf

# enabled (systemctl offline, on the unit files), not started: no marker,
# no daemon
unit() {
	[ "$(systemctl --root=/ is-enabled cthelperd.service 2>&1)" = enabled ] ||
		{ echo "systemctl is-enabled: $(systemctl --root=/ is-enabled cthelperd.service 2>&1)"; return 1; }
	[ -L /etc/systemd/system/multi-user.target.wants/cthelperd.service ] ||
		{ echo "no multi-user.target.wants link"; return 1; }
	[ ! -e /etc/cthelperd/enabled ] || { echo "/etc/cthelperd/enabled exists"; return 1; }
	! pgrep -x cthelperd >/dev/null || { echo "a cthelperd runs: $(pgrep -a -x cthelperd)"; return 1; }
}
check unit-enabled-not-started unit

# DKMS: built and installed for every kernel that has its headers (the
# module's BUILD_EXCLUSIVE_KERNEL, 5.14 and later, holds for Debian 12's)
kvers() {
	local b
	for b in /lib/modules/*/build; do
		[ -f "$b/Makefile" ] && basename "$(dirname "$b")"
	done
}
dkms_ok() {
	local k n=0
	for k in $(kvers); do
		dkms status -m cthelperd-kmod -v "$UV" -k "$k" | grep -q ': installed' ||
			{ echo "dkms status for $k: $(dkms status -m cthelperd-kmod -k "$k")"; return 1; }
		ls "/lib/modules/$k/updates/dkms/"cthelperd_nfnl.ko* >/dev/null 2>&1 ||
			{ echo "no /lib/modules/$k/updates/dkms/cthelperd_nfnl.ko"; return 1; }
		modinfo -k "$k" -F version cthelperd_nfnl | grep -qx "$UV" ||
			{ echo "modinfo -k $k: version $(modinfo -k "$k" -F version cthelperd_nfnl)"; return 1; }
		n=$((n + 1))
	done
	[ "$n" -ge 1 ] || { echo "no kernel with headers (linux-headers-amd64)"; return 1; }
	echo "built for $n kernels: $(kvers | tr '\n' ' ')"
}
check dkms dkms_ok

# A kernel upgrade runs /etc/kernel/postinst.d/dkms (dkms autoinstall for
# that kernel) under run-parts --exit-on-error: it must succeed for the
# installed kernels.
kernel_hook() {
	local k
	for k in $(kvers); do
		/etc/kernel/postinst.d/dkms "$k" || { echo "the kernel hook failed for $k"; return 1; }
	done
}
check kernel-hook kernel_hook
# BUILD_EXCLUSIVE: a kernel the module is not for (older than 5.14, here
# a made-up one over Debian's headers) is skipped, exit 77, nothing
# installed.  Note: bookworm's dkms 3.0.10 still counts such a skip as a
# failure in autoinstall (exit 11, so a kernel hook would fail; dkms
# issue #302, fixed in 3.0.11); Debian 12's kernels all match.
excluded() {
	local h rc
	h=$(for k in $(kvers); do echo "/lib/modules/$k/build"; done | head -n 1)
	mkdir -p "/lib/modules/$FAKE_K" && ln -sfn "$(readlink -f "$h")" "/lib/modules/$FAKE_K/build" || return 1
	dkms build -m cthelperd-kmod -v "$UV" -k "$FAKE_K"
	rc=$?
	rm -rf "/lib/modules/$FAKE_K"
	[ "$rc" = 77 ] || { echo "dkms build for $FAKE_K: exit $rc, not 77"; return 1; }
	! dkms status -m cthelperd-kmod -k "$FAKE_K" | grep -q installed || { echo "installed for $FAKE_K"; return 1; }
}
check build-exclusive excluded

# the SDK as installed: pkg-config, and a new plugin from
# cthelper-new-plugin built and checked (make check: unit test, replay,
# cthelperd -n) against the installed headers, libraries and daemon
sdk_pc() {
	[ "$(pkg-config --modversion cthelperd-sdk)" = "$UV" ] || return 1
	[ "$(pkg-config --variable=plugindir cthelperd-sdk)" = /usr/lib/cthelperd ] &&
		[ "$(pkg-config --variable=config cthelperd-sdk)" = /etc/cthelperd/cthelperd.conf ] &&
		[ "$(pkg-config --variable=kitdir cthelperd-sdk)" = /usr/share/cthelperd-sdk ] ||
		{ echo "cthelperd-sdk.pc's variables"; return 1; }
	pkg-config --libs cthelperd-plugtest | grep -q -- '-lcthelperd-plugtest'
}
check sdk-pkg-config sdk_pc
newplugin() {
	mkdir -p "$W/vendor" && chmod 755 "$W/vendor" &&
		(cd "$W/vendor" && cthelper-new-plugin acme-probe --udp --port 5999) &&
		(cd "$W/vendor/acme-probe" && mk check)
}
check sdk-new-plugin newplugin

# ------------------------------------------------------------------ VM

if [ "${CTH_DEB_VM:-1}" != 0 ]; then
	if [ -x tests/deb/vm.sh ]; then
		tests/deb/vm.sh || fails=$((fails + 1))
	else
		fail vm "tests/deb/vm.sh missing"
	fi
else
	echo "SKIP deb/vm: CTH_DEB_VM=0"
fi

# ---------------------------------------------------------------- purge

p=""
for d in $DBGSYM; do installed "$d" && p="$p $d"; done
check purge $APT purge $PKGS $p
left() {
	local f bad=""
	for f in /etc/cthelperd /usr/lib/cthelperd /usr/sbin/cthelperd /usr/include/cthelperd \
		/usr/share/cthelperd-sdk /lib/systemd/system/cthelperd.service \
		/lib/systemd/system/cthelperd.service.d /var/lib/dkms/cthelperd-kmod \
		/usr/src/cthelperd-kmod-*; do
		[ -e "$f" ] && bad="$bad $f"
	done
	for f in /lib/modules/*/updates/dkms/cthelperd*; do
		[ -e "$f" ] && bad="$bad $f"
	done
	f=$(find /etc/systemd -name 'cthelperd*' 2>/dev/null | tr '\n' ' ')
	[ -z "$f" ] || bad="$bad $f"
	f=$(dpkg-query -W -f '${Package} ${db:Status-Status}\n' $PKGS 2>/dev/null | grep -v ' not-installed$')
	[ -z "$f" ] || bad="$bad dpkg: $f"
	[ -z "$bad" ] || { echo "left after purge:$bad"; return 1; }
}
check purge-leaves-nothing left
users_kept() {
	local u
	for u in $USERS; do getent passwd "$u" >/dev/null || { echo "user $u removed"; return 1; }; done
}
check purge-keeps-users users_kept

echo "# deb: $(( $(date +%s) - t0 )) s in all"
[ "$fails" -eq 0 ]
