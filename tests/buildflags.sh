#!/bin/bash
# The build honours a builder's flags (tests/README.md's result protocol):
# CPPFLAGS, CFLAGS and LDFLAGS reach every binary, plugin and test;
# WERROR= switches -Werror off; a missing package stops the build naming
# it; a changed header rebuilds what includes it.
set -u
cd "$(dirname "$0")/.."
B=build-flags
rm -rf "$B"
fails=0
fail() { echo "FAIL buildflags/$1: $2"; fails=$((fails + 1)); }
# make -n's commands, a continued line joined to one
commands() { make -n "$@" 2>&1 | sed -e ':a' -e '/\\$/N; s/\\\n//; ta'; }

# every compile and link command of a full build (the daemon, plugins, the
# tools, the unit tests, the fuzz targets), as make would run them
cmds=$(commands -B B="$B" CPPFLAGS=-DCTH_CPP_MARK CFLAGS="-O2 -g -DCTH_C_MARK" \
	LDFLAGS=-Wl,-z,now all unit fuzz | grep -E '^(cc|clang|gcc) ' | grep -v -- ' -MM ')
n=$(grep -c . <<<"$cmds")
if [ "$n" -lt 40 ]; then
	fail commands "only $n compiler commands in make -n"
else
	# every command that compiles a .c (a link of objects alone needs none)
	miss=$(grep -E '\.c( |$)' <<<"$cmds" | grep -v -- -DCTH_CPP_MARK | head -n 3)
	[ -z "$miss" ] && echo "PASS buildflags/cppflags-everywhere ($n commands)" ||
		fail cppflags-everywhere "without CPPFLAGS: $miss"
	# the fuzz targets' CFLAGS are their own (FUZZ_FLAGS: libFuzzer, ASan)
	miss=$(grep -v -- -DCTH_C_MARK <<<"$cmds" | grep -v -- '-fsanitize=fuzzer' | head -n 3)
	[ -z "$miss" ] && echo "PASS buildflags/cflags-everywhere" ||
		fail cflags-everywhere "without CFLAGS: $miss"
	miss=$(grep -- ' -o ' <<<"$cmds" | grep -v -- ' -c ' | grep -v -- -Wl,-z,now | head -n 3)
	[ -z "$miss" ] && echo "PASS buildflags/ldflags-every-link" ||
		fail ldflags-every-link "links without LDFLAGS: $miss"
fi

# a real build with BIND_NOW of one of each kind (the commands above show
# every link takes LDFLAGS): every ELF it makes carries it
if make -s -j2 B="$B" LDFLAGS=-Wl,-z,now "$B"/cthelperd "$B"/cthelperd-sandbox "$B"/plugins/ftp.so \
	"$B"/tests/test_log "$B"/tests/bad/good.so >"$B.log" 2>&1; then
	bad="" n=0
	while read -r f; do
		n=$((n + 1))
		readelf -d "$f" 2>/dev/null | grep -qE 'BIND_NOW|Flags:.*NOW' || bad="$bad ${f#"$B"/}"
	done < <(find "$B" -type f \( -name '*.so' -o -perm -u+x \) ! -name '*.d' \
		-exec sh -c 'head -c 4 "$1" | grep -q ELF' _ {} \; -print)
	[ "$n" -ge 5 ] || bad="$bad (only $n ELF files built)"
	[ -z "$bad" ] && echo "PASS buildflags/bind-now-everywhere ($n ELF files)" ||
		fail bind-now-everywhere "no BIND_NOW in:$bad"
else
	fail bind-now-everywhere "the build failed: $(tail -n 5 "$B.log")"
fi

# a changed header rebuilds what includes it, and only that
touch server/host/keep.h
re=$(commands B="$B" LDFLAGS=-Wl,-z,now all | grep -E '^cc .* -c ' | grep -o 'server/[a-z]*/[a-z_]*\.c' | sort)
if grep -q 'server/host/keep.c' <<<"$re" && ! grep -q 'server/base/log.c' <<<"$re"; then
	echo "PASS buildflags/header-dependencies"
else
	fail header-dependencies "after touching keep.h make would compile: ${re:-nothing}"
fi

# WERROR= turns -Werror off; on by default
if make -n -B B="$B" all | grep -q -- -Werror && ! make -n -B B="$B" WERROR= all | grep -q -- -Werror; then
	echo "PASS buildflags/werror-switch"
else
	fail werror-switch "-Werror not on by default, or not off with WERROR="
fi

# a package pkg-config does not know stops the build, named
out=$(make -n -B B="$B" PKGS="libmnl cth-no-such-package" all 2>&1)
if grep -q 'pkg-config cannot find: cth-no-such-package' <<<"$out"; then
	echo "PASS buildflags/missing-package-named"
else
	fail missing-package-named "make said: $(tail -n 2 <<<"$out")"
fi
rm -rf "$B" "$B.log"
[ $fails = 0 ]
