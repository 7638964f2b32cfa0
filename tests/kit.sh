#!/bin/bash
# The plugin author's kit as a vendor gets it (issue 29), no VM:
# PASS/FAIL lines (tests/README.md's result protocol).
#
#  - a build for PREFIX=/usr ($KIT_BUILD, default build-kit) installed into
#    a DESTDIR: FHS paths (/etc, /usr/sbin, /usr/lib/cthelperd), compiled-in
#    defaults that are the install's (cthelperd --help, cthelperd -n, the
#    binaries), the .pc variables with pkgconf and pkg-config; the paths'
#    plumbing (SYSCONFDIR, RUNSTATEDIR overrides, a rebuild when they
#    change); make install for other paths refused, naming both;
#  - cthelper-mkpcap: TCP and UDP over IPv4 and IPv6 written as a valid
#    capture (lengths, checksums, sequence numbers checked by tcpdump and
#    by checkcases.py's own code), errors as FILE:LINE;
#  - cthelper-new-plugin --udp and --tcp, against the installed SDK only
#    (PKG_CONFIG_PATH, PKG_CONFIG_SYSROOT_DIR): make check passes, a
#    broken plugin fails it, make asan passes and catches a heap overflow,
#    make fuzz runs; the udpback example copied out of the kit passes its
#    own make check;
#  - every option of the kit's tools' --help in their manuals;
#  - make uninstall removes the kit and keeps the configuration.
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
KB=${KIT_BUILD:-build-kit}
W=$(mktemp -d /tmp/cth-kit-XXXXXX)
# readable by the sandboxes' user: they load the plugins installed here
chmod 755 "$W"
D=$W/dest
LOG=$W/log.txt
SUITE=kit
# shellcheck source=tests/lib/hostcheck.sh
. tests/lib/hostcheck.sh
sdk_env() {
	env PKG_CONFIG_PATH="$D/usr/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$D" "$@"
}

# ---------------------------------------------------------------- install

if ! mk -s -j2 B="$KB" PREFIX=/usr all >"$W/build.txt" 2>&1; then
	fail build "make B=$KB PREFIX=/usr: $(tail -n 5 "$W/build.txt" | tr '\n' ' ')"
	rm -rf "$W"
	exit 1
fi
check install mk -s B="$KB" PREFIX=/usr DESTDIR="$D" install
# sandboxed helpers' plugins are described by sandboxes: the DESTDIR
# daemon (-n here, the new plugins' make check) finds the sandbox program
# next to itself before the installed path it is not at; the link goes
# before uninstall
ln -s "$D/usr/lib/cthelperd/cthelperd-sandbox" "$D/usr/sbin/cthelperd-sandbox" ||
	fail sandbox-program "cannot link the sandbox program next to the daemon"

fhs() {
	local f
	for f in etc/cthelperd.conf usr/sbin/cthelperd usr/sbin/cthelperctl \
		usr/lib/cthelperd/ftp.so usr/bin/cthelper-replay usr/bin/cthelper-mkpcap \
		usr/bin/cthelper-new-plugin usr/include/cthelperd/plugin.h \
		usr/include/cthelperd/plugtest.h usr/lib/libcthsdk.a \
		usr/lib/libcthelperd-plugtest.a usr/lib/pkgconfig/cthelperd-sdk.pc \
		usr/lib/pkgconfig/cthelperd-plugtest.pc usr/share/man/man1/cthelper-mkpcap.1 \
		usr/share/man/man1/cthelper-new-plugin.1 usr/share/cthelperd-sdk/README.md \
		usr/share/cthelperd-sdk/examples/udpback/udpback.c \
		usr/share/cthelperd-sdk/examples/toydata/toydata.c \
		usr/share/cthelperd-sdk/skeleton/udp.c usr/lib/systemd/system/cthelperd.service; do
		[ -f "$D/$f" ] || { echo "missing /$f"; return 1; }
	done
	[ ! -e "$D/usr/etc" ] || { echo "/usr/etc exists"; return 1; }
	[ -x "$D/usr/bin/cthelper-mkpcap" ] && [ -x "$D/usr/bin/cthelper-new-plugin" ] ||
		{ echo "a kit tool is not executable"; return 1; }
	grep -qx 'plugin_dir = /usr/lib/cthelperd' "$D/etc/cthelperd.conf" ||
		{ echo "cthelperd.conf's plugin_dir"; return 1; }
	grep -qx 'ExecStart=/usr/sbin/cthelperd -c /etc/cthelperd.conf' \
		"$D/usr/lib/systemd/system/cthelperd.service" || { echo "the unit's ExecStart"; return 1; }
	! grep -rq /usr/local "$D/usr/share/man" ||
		{ echo "an installed manual names /usr/local: $(grep -rl /usr/local "$D/usr/share/man")"; return 1; }
	grep -q '/usr/share/cthelperd-sdk/README.md' "$D/usr/share/cthelperd-sdk/README.md" ||
		{ echo "the kit's README does not name where it is"; return 1; }
	grep -q '/etc/cthelperd.conf' "$D/usr/share/man/man8/cthelperd.8" ||
		{ echo "cthelperd(8) does not name /etc/cthelperd.conf"; return 1; }
}
check fhs-paths fhs

# the daemon's own idea of where it was installed
defaults() {
	"$D/usr/sbin/cthelperd" --help | grep -q '/etc/cthelperd.conf' ||
		{ echo "--help does not name /etc/cthelperd.conf"; return 1; }
	! "$D/usr/sbin/cthelperd" --help | grep -q '/usr/local' ||
		{ echo "--help names /usr/local"; return 1; }
	# no plugin_dir: the compiled-in one, named in the loader's error
	printf '[helper ftp]\nplugin = ftp\n' >"$W/noplugindir.conf"
	if [ ! -e /usr/lib/cthelperd/ftp.so ]; then
		! "$D/usr/sbin/cthelperd" -n -c "$W/noplugindir.conf" >"$W/n.txt" 2>&1 &&
			grep -q '/usr/lib/cthelperd/ftp.so' "$W/n.txt" ||
			{ echo "-n without plugin_dir: $(cat "$W/n.txt")"; return 1; }
	fi
	# runtime_dir, share_dir, the control socket: RUNSTATEDIR's
	grep -qa '/run/cthelperd-shared' "$D/usr/sbin/cthelperd" &&
		grep -qa '/run/cthelperd/cthelperd.sock' "$D/usr/sbin/cthelperctl" ||
		{ echo "run-state defaults"; return 1; }
	# the installed config, its plugin_dir moved under DESTDIR, checks
	sed "s|^plugin_dir = .*|plugin_dir = $D/usr/lib/cthelperd|" "$D/etc/cthelperd.conf" \
		>"$W/moved.conf"
	"$D/usr/sbin/cthelperd" -n -c "$W/moved.conf"
}
check compiled-in-defaults defaults

# the paths reach the compiler, and a change of them rebuilds
plumbing() {
	local b=$W/b cmd
	mk -s B="$b" PREFIX=/usr "$b/cthelperctl" || return 1
	[ -z "$(mk -s -n B="$b" PREFIX=/usr "$b/cthelperctl")" ] ||
		{ echo "the same paths rebuild"; return 1; }
	cmd=$(mk -s -n B="$b" PREFIX=/usr RUNSTATEDIR=/var/run "$b/cthelperctl")
	grep -q "CTH_RUNSTATEDIR='\"/var/run\"'" <<<"$cmd" ||
		{ echo "RUNSTATEDIR=/var/run does not rebuild cthelperctl: $cmd"; return 1; }
	grep -qx 'SYSCONFDIR=/etc' "$KB/paths" || { echo "$KB/paths: $(cat "$KB/paths")"; return 1; }
	cmd=$(mk -s -n -B B="$b" PREFIX=/opt/cth "$b/server/daemon/main.o")
	grep -q "CTH_DEFAULT_CONFIG='\"/opt/cth/etc/cthelperd.conf\"'" <<<"$cmd" &&
		grep -q "CTH_PLUGIN_DIR='\"/opt/cth/lib/cthelperd\"'" <<<"$cmd" ||
		{ echo "PREFIX=/opt/cth: $cmd"; return 1; }
	cmd=$(mk -s -n -B B="$b" PREFIX=/usr SYSCONFDIR=/etc/cth "$b/server/daemon/main.o")
	grep -q "CTH_DEFAULT_CONFIG='\"/etc/cth/cthelperd.conf\"'" <<<"$cmd" ||
		{ echo "SYSCONFDIR=/etc/cth: $cmd"; return 1; }
}
check paths-plumbing plumbing

# an install for other paths than the build's: refused, nothing written
refused() {
	! mk -s B="$KB" PREFIX=/usr/local DESTDIR="$W/other" install >"$W/r.txt" 2>&1 &&
		grep -q 'built for: SYSCONFDIR=/etc PLUGIN_DIR=/usr/lib/cthelperd' "$W/r.txt" &&
		grep -q 'installing: SYSCONFDIR=/usr/local/etc' "$W/r.txt" &&
		grep -q "make B=$KB PREFIX=/usr/local" "$W/r.txt" && [ ! -e "$W/other" ] ||
		{ cat "$W/r.txt"; return 1; }
}
check install-other-paths-refused refused

# cthelperd-sdk.pc with both names Debian gives pkg-config (pkg-config is
# pkgconf in Debian 12: the classic one is not packaged)
pcvars() {
	local pc v want
	for pc in pkgconf pkg-config; do
		command -v $pc >/dev/null || { echo "no $pc"; return 1; }
		for v in cthelperd=/usr/sbin/cthelperd config=/etc/cthelperd.conf \
			plugindir=/usr/lib/cthelperd replay=/usr/bin/cthelper-replay \
			mkpcap=/usr/bin/cthelper-mkpcap newplugin=/usr/bin/cthelper-new-plugin \
			kitdir=/usr/share/cthelperd-sdk examplesdir=/usr/share/cthelperd-sdk/examples \
			sysconfdir=/etc; do
			want=${v#*=}
			# under the sysroot: the files in DESTDIR
			[ "$(sdk_env $pc --variable="${v%%=*}" cthelperd-sdk)" = "$D$want" ] ||
				{ echo "$pc ${v%%=*}: $(sdk_env $pc --variable="${v%%=*}" cthelperd-sdk)"; return 1; }
			# without: where they are once installed for real
			[ "$(PKG_CONFIG_PATH=$D/usr/lib/pkgconfig $pc --variable="${v%%=*}" cthelperd-sdk)" = "$want" ] ||
				{ echo "$pc ${v%%=*} without sysroot"; return 1; }
			[ -e "$D$want" ] || { echo "$want not installed"; return 1; }
		done
		[ "$(sdk_env $pc --variable=abi cthelperd-sdk)" = \
		  "$(sed -n 's/^#define CTH_ABI_VERSION \([0-9]*\)u$/\1/p' sdk/include/cthelperd/plugin.h)" ] ||
			{ echo "$pc abi"; return 1; }
		sdk_env $pc --libs cthelperd-plugtest | grep -q -- '-lcthelperd-plugtest .*-lcthsdk' ||
			{ echo "$pc --libs cthelperd-plugtest: $(sdk_env $pc --libs cthelperd-plugtest)"; return 1; }
	done
}
check pc-variables pcvars

# ---------------------------------------------------------------- cthelper-mkpcap

MKPCAP=$D/usr/bin/cthelper-mkpcap
cat >"$W/all.conv" <<'EOF'
# every kind: TCP and UDP, IPv4 and IPv6, data both ways, a segment cut
# at the MSS, a lost segment resent, an odd length, FINs
tcp 10.0.0.1:40000 > 10.0.0.2:21
< "220 ready\r\n"
> "PORT 10,0,0,1,156,65\r\n"
< "200 ok\r\n"
tcp 10.0.0.2:20 > 10.0.0.1:40001     # the data connection, while the control stays open
> "x"*3001
close >
tcp 10.0.0.1:40000 > 10.0.0.2:21
> "QUIT\r\n" lost
wait 0.2
> "QUIT\r\n" resend
close <
tcp [2001:db8::1]:40000 > [2001:db8::2]:7000 mss 536
< "DATA 7100\n"
> hex 00 01 "abc" hex ff*7
close >
udp 10.0.0.1:4000 > 10.0.0.2:69
> hex 0001 "file\0octet\0"
udp 10.0.0.2:50000 > 10.0.0.1:4000
> hex 00030001 "hello"
< hex 00040001
udp [2001:db8::1]:4000 > [2001:db8::2]:69 answer [2001:db8::99]:4000
> "odd"
EOF
mkpcap_valid() {
	"$MKPCAP" -o "$W/all.pcap" "$W/all.conv" || return 1
	# tcpdump reads every packet and finds each checksum correct
	n=$(tcpdump -nn -vv -r "$W/all.pcap" 2>/dev/null | grep -cE '^[0-9:.]+ IP')
	[ "$n" = "$("$MKPCAP" -v -o /dev/null "$W/all.conv" 2>&1 | grep -c '^#')" ] ||
		{ echo "tcpdump read $n packets"; return 1; }
	! tcpdump -nn -vv -r "$W/all.pcap" 2>/dev/null | grep -qi 'incorrect\|bad' ||
		{ echo "tcpdump: a bad checksum"; return 1; }
	# lengths, sums, handshakes, sequence and acknowledgement numbers,
	# with checkcases.py's code (not the tool's)
	python3 -c "import sys; sys.path.insert(0, 'tests/replay'); import checkcases
why = checkcases.check_pcap('$W/all.pcap')
sys.exit(why and 'checkcases: ' + why)" || return 1
	# a description from standard input gives the same bytes
	"$MKPCAP" <"$W/all.conv" >"$W/stdin.pcap" && cmp -s "$W/all.pcap" "$W/stdin.pcap" ||
		{ echo "stdin differs"; return 1; }
}
check mkpcap-valid mkpcap_valid

mkpcap_errors() {
	printf 'tcp 10.0.0.1:1 > 10.0.0.2:2\n> "ok"\nfin > x\n' >"$W/bad.conv"
	"$MKPCAP" -o "$W/bad.pcap" "$W/bad.conv" >"$W/e.txt" 2>&1
	[ $? = 1 ] && grep -q "bad.conv:3: fin takes only the side" "$W/e.txt" ||
		{ echo "error: $(cat "$W/e.txt")"; return 1; }
	printf 'udp 10.0.0.1:1 > [::1]:2\n' | "$MKPCAP" -o /dev/null >"$W/e.txt" 2>&1
	[ $? = 1 ] && grep -q -- "-:1: one address IPv4, the other IPv6" "$W/e.txt" ||
		{ echo "error: $(cat "$W/e.txt")"; return 1; }
	"$MKPCAP" --nonsense >/dev/null 2>&1
	[ $? = 2 ] || { echo "a bad option is not exit 2"; return 1; }
}
check mkpcap-errors mkpcap_errors

# ---------------------------------------------------------------- a new plugin

mkdir -p "$W/vendor"
newplugin() {
	local name=$1 shape=$2 port=$3
	(cd "$W/vendor" && sdk_env "$D/usr/bin/cthelper-new-plugin" "$name" "$shape" --port "$port") &&
		[ -f "$W/vendor/$name/$name.expect" ] &&
		(cd "$W/vendor/$name" && sdk_env make check) || return 1
	grep -q "conn 2 related" "$W/vendor/$name/$name.expect" ||
		{ echo "$name.expect: the expected connection is not related"; return 1; }
}
check new-plugin-udp newplugin acme-tftp --udp 69
check new-plugin-tcp newplugin acme_ctl --tcp 7010

# the golden test fails when the plugin changes (here: it expects nothing)
golden_catches() {
	cp -r "$W/vendor/acme-tftp" "$W/vendor/broken" && cd "$W/vendor/broken" &&
		sed -i 's/ret = cth_expect(ctx, &exp, 0);/ret = 0;/' acme-tftp.c &&
		grep -q '^	ret = 0;' acme-tftp.c &&
		! sdk_env make -s replay >"$W/g.txt" 2>&1 && grep -qi 'differ\|expect' "$W/g.txt"
	local rc=$?
	cd "$ROOT"
	return $rc
}
check new-plugin-golden-catches-a-change golden_catches

new_plugin_refused() {
	(cd "$W/vendor" && "$D/usr/bin/cthelper-new-plugin" 9lives --no-golden >/dev/null 2>&1)
	[ $? = 2 ] || { echo "a name starting with a digit"; return 1; }
	(cd "$W/vendor" && "$D/usr/bin/cthelper-new-plugin" acme-tftp --no-golden >/dev/null 2>&1)
	[ $? = 2 ] || { echo "an existing directory"; return 1; }
}
check new-plugin-refuses new_plugin_refused

# a sanitizer build replayed with the runtime preloaded; a heap overflow
# the plugin makes is caught there (by UBSan's object-size check or ASan)
asan() {
	(cd "$W/vendor/acme-tftp" && sdk_env make asan) || return 1
	cp -r "$W/vendor/acme-tftp" "$W/vendor/overflow" && cd "$W/vendor/overflow" &&
		sed -i 's|^\tcth_count(ctx, ACME_TFTP_REQUESTS);|&\n\t{ volatile char *b = malloc(4); b[4] = 1; free((void *)b); }|' \
			acme-tftp.c &&
		sed -i 's|#include <string.h>|&\n#include <stdlib.h>|' acme-tftp.c &&
		grep -q 'b\[4\] = 1' acme-tftp.c &&
		! sdk_env make asan >"$W/a.txt" 2>&1 &&
		grep -qE 'AddressSanitizer: heap-buffer-overflow|acme-tftp.c:[0-9]+:[0-9]+: runtime error' \
			"$W/a.txt"
	local rc=$?
	cd "$ROOT"
	[ $rc = 0 ] || { echo "the overflow was not caught: $(grep -m1 -i error "$W/a.txt")"; }
	return $rc
}
check new-plugin-asan asan

fuzz() {
	command -v "${FUZZ_CC:-clang}" >/dev/null || { echo "SKIP: no clang"; return 0; }
	cd "$W/vendor/acme_ctl" && sdk_env make fuzz FUZZ_SECONDS=5
	local rc=$?
	cd "$ROOT"
	return $rc
}
if command -v clang >/dev/null; then
	check new-plugin-fuzz fuzz
else
	echo "SKIP kit/new-plugin-fuzz: no clang"
fi

# the example's Makefile is the generator's
check udpback-makefile-is-the-skeletons \
	bash -c "sed 's|@NAME@|udpback|g' sdk/skeleton/Makefile | cmp - sdk/examples/udpback/Makefile"

udpback() {
	cp -r "$D/usr/share/cthelperd-sdk/examples/udpback" "$W/vendor/" &&
		cd "$W/vendor/udpback" && sdk_env make check && grep -q '^PASS' <(./udpback-test)
	local rc=$?
	cd "$ROOT"
	return $rc
}
check udpback-out-of-tree udpback

# ---------------------------------------------------------------- manuals

# every long option a tool's --help names is in its manual (test_docs's
# rule for cthelperd and cthelper-replay)
manuals() {
	local tool man opt
	for tool in cthelper-mkpcap cthelper-new-plugin; do
		man=docs/man/$tool.1
		for opt in $("$D/usr/bin/$tool" --help | grep -oE -- '--[a-z][a-z-]*' | sort -u); do
			sed 's/\\-/-/g' "$man" | grep -qE -- "(^|[^a-z-])$opt([^a-z-]|$)" ||
				{ echo "$tool: $opt is not in $man"; return 1; }
		done
	done
	# and they format without a warning (where man-db is installed)
	command -v man >/dev/null || return 0
	man -l --warnings docs/man/cthelper-mkpcap.1 docs/man/cthelper-new-plugin.1 \
		>/dev/null 2>"$W/m.txt" || true
	[ ! -s "$W/m.txt" ] || { echo "man warns: $(head -n 2 "$W/m.txt")"; return 1; }
}
check manuals manuals

# ---------------------------------------------------------------- uninstall

uninstall() {
	rm -f "$D/usr/sbin/cthelperd-sandbox"
	mk -s B="$KB" PREFIX=/usr DESTDIR="$D" uninstall || return 1
	[ ! -e "$D/usr/share/cthelperd-sdk" ] && [ ! -e "$D/usr/bin/cthelper-mkpcap" ] &&
		[ ! -e "$D/usr/bin/cthelper-new-plugin" ] &&
		[ ! -e "$D/usr/lib/libcthelperd-plugtest.a" ] &&
		[ ! -e "$D/usr/lib/pkgconfig/cthelperd-plugtest.pc" ] &&
		[ ! -e "$D/usr/include/cthelperd/plugtest.h" ] && [ -f "$D/etc/cthelperd.conf" ] ||
		{ echo "left: $(cd "$D" && find . -type f | grep -v etc/cthelperd.conf | head -n 5)"; return 1; }
}
check uninstall uninstall

rm -rf "$W"
[ $fails = 0 ]
