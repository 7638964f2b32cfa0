#!/bin/bash
# kmod/ tests (the tests/README.md PASS/FAIL protocol):
#   1. build kmod/ against the headers of the kernel the VM boots (Debian's
#      linux-headers-amd64), warnings as errors, in build/kmod/;
#   2. static checks of the .ko (name, license, version, vermagic, alias)
#      and of dkms.conf;
#   3. the VM test (tests/kmod/vm-test.sh through tests/vm/run.sh): errno
#      and behaviour suite on our module, parity with the in-tree module.
#
# Output of a run: build/kmod/last/ (build/, stage/, autoload/, vm/); the
# module itself is also copied to build/kmod/cthelperd_nfnl.ko.
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
mkdir -p build/kmod || exit 1
RUN=$(mktemp -d "$REPO/build/kmod/run-$(date +%Y%m%d-%H%M%S)-XXXX") || exit 1
ln -sfn "$(basename "$RUN")" build/kmod/last
find build/kmod -maxdepth 1 -name 'run-*' -type d | sort | head -n -5 | xargs -r rm -rf
OUT=$RUN/build
mkdir -p "$OUT"
cp kmod/Kbuild kmod/Makefile kmod/*.c "$OUT"/
if make -C "$OUT" KDIR="$KDIR" >"$OUT/build.log" 2>&1; then
	if grep -q -i 'warning:' "$OUT/build.log"; then
		echo "FAIL kmod-build: warnings (see $OUT/build.log)"
		grep -i 'warning:' "$OUT/build.log" | head -n 20
	else
		echo "PASS kmod-build"
	fi
else
	echo "FAIL kmod-build: make failed against $KDIR"
	tail -n 30 "$OUT/build.log"
	exit 1
fi
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

# dkms.conf: shell syntax, names matching the build
if [ -f kmod/dkms.conf ]; then
	# shellcheck disable=SC1091
	dk=$(bash -c '. kmod/dkms.conf && echo "$PACKAGE_NAME|$PACKAGE_VERSION|${BUILT_MODULE_NAME[0]}"' 2>&1)
	want kmod-dkms-conf "cthelperd-kmod|$ver|$MOD" "$dk"
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
cp kmod/Kbuild kmod/Makefile kmod/*.c "$AL"/
if make -C "$AL" KDIR="$KDIR" CTHD_AUTOLOAD=y >"$AL/build.log" 2>&1; then
	want kmod-autoload-alias nfnetlink-subsys-9 "$(modinfo -F alias "$AL/$MOD.ko")"
else
	echo "FAIL kmod-autoload-alias: build failed (see $AL/build.log)"
fi

[ $BUILD_ONLY = 1 ] && exit 0

if [ ! -x tests/vm/run.sh ]; then
	echo "SKIP kmod-vm: tests/vm/run.sh missing"
	exit 0
fi
tests/vm/run.sh --timeout "$TIMEOUT" --results "$RUN/vm" \
	tests/kmod/vm-test.sh "$KO"
rc=$?
[ $rc = 0 ] || echo "FAIL kmod-vm: tests/vm/run.sh exited with $rc"
exit 0
