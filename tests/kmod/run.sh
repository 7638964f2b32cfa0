#!/bin/bash
# kmod/ tests (the tests/README.md PASS/FAIL protocol):
#   1. build kmod/ against the headers of the kernel the VM boots (Debian's
#      linux-headers-amd64), warnings as errors (CTHD_WERROR=y), in
#      build/kmod/; the same against a second kernel's headers (Debian 12's
#      linux-headers-6.12-amd64, installed by tests/deps.sh);
#   2. static checks of the .ko (name, license, version, vermagic, alias)
#      and of dkms.conf (names, kernel range, config symbols, and that its
#      build command does not turn warnings into errors);
#   3. the VM test (tests/kmod/vm-test.sh through tests/vm/run.sh): errno
#      and behaviour suite on our module, parity with the in-tree module.
#
# Output of a run: build/kmod/last/ (build/, build-<kver>/, dkms/, stage/,
# autoload/, vm/); the module itself is also copied to
# build/kmod/cthelperd_nfnl.ko.
#
#   tests/kmod/run.sh [--build-only] [--timeout S]
set -u
cd "$(dirname "$0")/../.." || exit 1
REPO=$(pwd)
BUILD_ONLY=0
TIMEOUT=${KMOD_VM_TIMEOUT:-900}
while [ $# -gt 0 ]; do
	case $1 in
	--build-only) BUILD_ONLY=1; shift ;;
	--timeout) TIMEOUT=$2; shift 2 ;;
	*) echo "usage: $0 [--build-only] [--timeout S]" >&2; exit 2 ;;
	esac
done

MOD=cthelperd_nfnl

# The VM's kernel, as tests/vm picks it.
# shellcheck source=tests/vm/initrd.sh
. "$REPO/tests/vm/initrd.sh"
if ! vm_pick_kernel >/dev/null; then
	echo "FAIL kmod-build: no Debian 6.1 kernel installed (make deps)"
	exit 1
fi
KDIR=/lib/modules/$VM_KVER/build
if [ ! -f "$KDIR/Makefile" ]; then
	echo "FAIL kmod-build: no headers at $KDIR (apt-get install linux-headers-amd64)"
	exit 1
fi

# Everything of this run in its own directory (runs may overlap: other
# work in the same tree), the newest five kept, build/kmod/last -> newest.
# The sources are copied so that kmod/ stays clean.
# shellcheck source=tests/vm/rundir.sh
. "$REPO/tests/vm/rundir.sh"
RUN=$(rundir_new build/kmod) || exit 1
# kbuild NAME DIR KDIR [MAKE ARGS...]: a CI build (warnings are errors)
# of a copy of kmod/ in DIR; PASS/FAIL NAME.
kbuild() {
	local name=$1 dir=$2 kdir=$3
	shift 3
	mkdir -p "$dir"
	cp kmod/Kbuild kmod/Makefile kmod/*.c kmod/*.h "$dir"/
	if ! make -C "$dir" KDIR="$kdir" CTHD_WERROR=y "$@" >"$dir/build.log" 2>&1; then
		echo "FAIL $name: make failed against $kdir (see $dir/build.log)"
		tail -n 30 "$dir/build.log"
		return 1
	fi
	if grep -q -i 'warning:' "$dir/build.log"; then
		echo "FAIL $name: warnings (see $dir/build.log)"
		grep -i 'warning:' "$dir/build.log" | head -n 20
		return 1
	fi
	echo "PASS $name"
}
# werror DIR: "yes" when the module's compile line had a bare -Werror.
werror() {
	if grep -q -E -- '(^| )-Werror( |$)' "$1/.$MOD.o.cmd" 2>/dev/null; then
		echo yes
	else
		echo no
	fi
}

OUT=$RUN/build
kbuild kmod-build "$OUT" "$KDIR" || exit 1
KO=$OUT/$MOD.ko
# The newest good build where tests/kmod/use-ours.sh looks for it.
cp "$KO" "build/kmod/.$MOD.ko.$$" && mv -f "build/kmod/.$MOD.ko.$$" "build/kmod/$MOD.ko"

field() { modinfo -F "$1" "$KO" 2>/dev/null; }
want() {	# want NAME EXPECTED GOT
	if [ "$2" = "$3" ]; then echo "PASS $1"; else echo "FAIL $1: got '$3', expected '$2'"; fi
}
want kmod-modinfo-name "$MOD" "$(field name)"
want kmod-modinfo-license GPL "$(field license)"
want kmod-modinfo-vermagic-kernel "$VM_KVER" "$(field vermagic | cut -d' ' -f1)"
ver=$(field version)
if [ -n "$ver" ]; then echo "PASS kmod-modinfo-version"; else echo "FAIL kmod-modinfo-version: none"; fi
if [ -n "$(field description)" ]; then echo "PASS kmod-modinfo-description"; else echo "FAIL kmod-modinfo-description: none"; fi
want kmod-spdx-gpl2 "// SPDX-License-Identifier: GPL-2.0" "$(head -n 1 kmod/$MOD.c)"
# This kernel has its own nfnetlink_cthelper: no autoload alias by default.
want kmod-no-alias-next-to-intree "" "$(field alias)"

want kmod-ci-build-werror yes "$(werror "$OUT")"

# A second kernel: Debian 12 carries 6.12 (linux-headers-6.12-amd64, in
# bookworm-security, next to the 6.1 one).  Newest installed 6.12 headers.
KDIR2=$(printf '%s\n' /lib/modules/6.12.*/build | grep -v '\*' | sort -V | tail -n 1)
if [ -n "$KDIR2" ] && [ -f "$KDIR2/Makefile" ]; then
	KVER2=$(basename "$(dirname "$KDIR2")")
	kbuild "kmod-build-$KVER2" "$RUN/build-$KVER2" "$KDIR2"
	want "kmod-modinfo-vermagic-$KVER2" "$KVER2" \
		"$(modinfo -F vermagic "$RUN/build-$KVER2/$MOD.ko" 2>/dev/null | cut -d' ' -f1)"
else
	echo "SKIP kmod-build-6.12: no /lib/modules/6.12.*/build (tests/deps.sh installs linux-headers-6.12-amd64; it said why it could not)"
fi

# dkms.conf: shell syntax, names matching the build, the kernels and
# config symbols it accepts (matched the way dkms does: bash =~ on the
# kernel version, CONFIG_ lines of the target's .config)
if [ -f kmod/dkms.conf ]; then
	# shellcheck disable=SC1091
	dk=$(bash -c '. kmod/dkms.conf && echo "$PACKAGE_NAME|$PACKAGE_VERSION|${BUILT_MODULE_NAME[0]}"' 2>&1)
	want kmod-dkms-conf "cthelperd-kmod|$ver|$MOD" "$dk"
	kernels="$VM_KVER ${KVER2:-6.12.118+deb12-amd64} 5.14.0-0.bpo.2-amd64 5.19.0 7.0.0 10.1.0 5.13.19 5.10.0-28-amd64 4.19.0-27-amd64 3.16.0"
	# shellcheck disable=SC2016
	got=$(bash -c '. kmod/dkms.conf; for k in '"$kernels"'; do
		if [[ $k =~ $BUILD_EXCLUSIVE_KERNEL ]]; then echo -n "$k:yes "; else echo -n "$k:no "; fi; done' 2>&1)
	exp=""
	for k in $kernels; do
		case $k in 5.1[0-3].*|4.*|3.*) exp+="$k:no " ;; *) exp+="$k:yes " ;; esac
	done
	want kmod-dkms-kernel-range "$exp" "$got"
	# shellcheck disable=SC2016
	cfg=$(bash -c '. kmod/dkms.conf; echo "$BUILD_EXCLUSIVE_CONFIG"')
	want kmod-dkms-config-symbols "CONFIG_NF_CONNTRACK CONFIG_NETFILTER_NETLINK" "$cfg"
	miss=""
	for c in $cfg; do grep -q -E "^$c=(y|m)$" "$KDIR/.config" || miss+="$c "; done
	want kmod-dkms-config-in-vm-kernel "" "$miss"
	# The DKMS build command, run as dkms would (kernel_source_dir=KDIR):
	# it must build, and without -Werror.
	DK=$RUN/dkms
	mkdir -p "$DK"
	cp kmod/Kbuild kmod/Makefile kmod/*.c kmod/*.h kmod/dkms.conf "$DK"/
	# shellcheck disable=SC2016
	if (cd "$DK" && kernel_source_dir=$KDIR bash -c '. ./dkms.conf; eval "${MAKE[0]}"') >"$DK/build.log" 2>&1 &&
	   [ -f "$DK/$MOD.ko" ]; then
		echo "PASS kmod-dkms-make"
	else
		echo "FAIL kmod-dkms-make: the dkms.conf MAKE line failed (see $DK/build.log)"
	fi
	want kmod-dkms-make-no-werror no "$(werror "$DK")"
else
	echo "FAIL kmod-dkms-conf: kmod/dkms.conf missing"
fi

# make install, staged: lands under the VM kernel's uname -r (Debian's
# headers carry the upstream version in kernel.release, not the ABI name)
ST=$RUN/stage
if make -C "$OUT" KDIR="$KDIR" INSTALL_MOD_PATH="$ST" install >"$OUT/install.log" 2>&1; then
	want kmod-install-staged "$ST/lib/modules/$VM_KVER/extra/$MOD.ko" \
		"$(find "$ST" -name "$MOD.ko" 2>/dev/null)"
else
	echo "FAIL kmod-install-staged: make install failed (see $OUT/install.log)"
fi

# The alias build: CTHD_AUTOLOAD=y declares the nfnetlink subsystem alias.
AL=$RUN/autoload
mkdir -p "$AL"
cp kmod/Kbuild kmod/Makefile kmod/*.c kmod/*.h "$AL"/
if make -C "$AL" KDIR="$KDIR" CTHD_WERROR=y CTHD_AUTOLOAD=y >"$AL/build.log" 2>&1; then
	want kmod-autoload-alias nfnetlink-subsys-9 "$(modinfo -F alias "$AL/$MOD.ko")"
else
	echo "FAIL kmod-autoload-alias: build failed (see $AL/build.log)"
fi

[ $BUILD_ONLY = 1 ] && exit 0

if [ ! -x tests/vm/run.sh ]; then
	echo "SKIP kmod-vm: tests/vm/run.sh missing"
	exit 0
fi
VM_PASS_ENV="${VM_PASS_ENV:-} CTH_BUILD" tests/vm/run.sh --timeout "$TIMEOUT" --results "$RUN/vm" \
	tests/kmod/vm-test.sh "$KO"
rc=$?
[ $rc = 0 ] || echo "FAIL kmod-vm: tests/vm/run.sh exited with $rc"
exit 0
