#!/bin/bash
# The include rules of the tree: which folder may include which.  One
# PASS/FAIL line per rule (tests/README.md's result protocol); a FAIL
# names the file, the line and the header it must not include.
#
# server/ is layered, each folder on the ones below it only:
#   daemon   -> everything below (lifecycle: start, reload, stop)
#   control  -> runtime, base      (control socket, /metrics, stats answers)
#   worker   -> host, kernel, runtime, base   (queue workers)
#   sandbox  -> host, runtime, base      (plugin sandboxes: confinement)
#   kernel   -> runtime, base      (kernel registration, ctnetlink)
#   host     -> runtime, base      (the plugin host: what replay links)
#   runtime  -> base               (config, plugins, instances, counters)
#   base     -> nothing            (logging, text buffers, dlopen)
# replay/ and plugtest/ (the plugin author's test harness) see only what
# they link (host, runtime, base); plugins/ and the SDK see only the SDK's
# public headers.  docs/architecture.md's source
# map lists every source file.
set -u
cd "$(dirname "$0")/.."

declare -A ALLOW=(
	[daemon]="daemon control worker sandbox kernel host runtime base"
	[control]="control runtime base"
	[worker]="worker sandbox host kernel runtime base"
	[sandbox]="sandbox host runtime base"
	[kernel]="kernel runtime base"
	[host]="host runtime base"
	[runtime]="runtime base"
	[base]="base"
	[replay]="sandbox host runtime base"
	[plugtest]="host runtime base"
	[sandboxd]="sandbox host runtime base"
)
FOLDERS="daemon control worker sandbox kernel host runtime base"
fails=0
# The one header the kernel module shares (its matcher and wire numbers,
# pure C): server/ and replay/ may include it by this path.
KMOD_SHARED=../../kmod/cthd_match.h

# check_rule NAME FILES...: every quoted include of FILES must resolve to
# an allowed place (stdin lines: "file:line:header allowed-folders").
fail() { echo "FAIL layers/$1: $2"; fails=$((fails + 1)); }

# the folder a quoted include of FILE names: "x.h" is FILE's own folder,
# "dir/x.h" that server folder; anything else is printed as is
include_target() {
	local file=$1 inc=$2 here
	here=$(basename "$(dirname "$file")")
	case $inc in
	*/*) echo "${inc%%/*}" ;;
	*) echo "$here" ;;
	esac
}

check_server() {
	local dir f n inc tgt bad=0
	for dir in $FOLDERS; do
		for f in server/"$dir"/*.[ch]; do
			while IFS=: read -r n inc; do
				inc=${inc#*\"}; inc=${inc%%\"*}
				[ "$inc" = "$KMOD_SHARED" ] && continue
				tgt=$(include_target "$f" "$inc")
				if [[ " ${ALLOW[$dir]} " != *" $tgt "* ]]; then
					fail "server-$dir" "$f:$n includes \"$inc\" ($dir may include only: ${ALLOW[$dir]})"
					bad=1
				elif [ ! -f "server/$tgt/${inc##*/}" ]; then
					fail "server-$dir" "$f:$n includes \"$inc\", which is not server/$tgt/${inc##*/}"
					bad=1
				fi
			done < <(grep -n '^#include "' "$f")
		done
		[ $bad = 0 ] && echo "PASS layers/server-$dir"
		bad=0
	done
	# no source left outside the folders
	for f in server/*.[ch]; do
		[ -e "$f" ] && fail server-flat "$f is in server/ itself, not in one of its folders"
	done
}

# replay/ and plugtest/: their own headers, server/{host,runtime,base}/,
# and (plugtest) the tests' packet checks, tests/fuzz/pktcheck.h
check_linked() {
	local dir=$1 f n inc bad=0
	for f in "$dir"/*.[ch]; do
		while IFS=: read -r n inc; do
			inc=${inc#*\"}; inc=${inc%%\"*}
			[ "$inc" = "${KMOD_SHARED#../}" ] && continue
			case $inc in
			*/*) [[ " ${ALLOW[$dir]} " == *" ${inc%%/*} "* ]] && continue ;;
			*) [ -f "$dir/$inc" ] && continue
			   [ "$dir/$inc" = plugtest/pktcheck.h ] && continue ;;
			esac
			fail "$dir" "$f:$n includes \"$inc\" ($dir/ may include only its own headers and server/{${ALLOW[$dir]// /,}}/)"
			bad=1
		done < <(grep -n '^#include "' "$f")
	done
	[ $bad = 0 ] && echo "PASS layers/$dir"
}

# plugins/NAME and sdk/: quoted includes stay in their own folder, angle
# includes of the project are the SDK's public headers only
check_sdk_side() {
	local name=$1 f n inc bad=0; shift
	for f in "$@"; do
		while IFS=: read -r n inc; do
			case $inc in
			*'"'*)
				inc=${inc#*\"}; inc=${inc%%\"*}
				[[ $inc != */* && -f "$(dirname "$f")/$inc" ]] && continue ;;
			*'<'*)
				inc=${inc#*<}; inc=${inc%%>*}
				case $inc in
				cthelperd/*) [ -f "sdk/include/$inc" ] && continue ;;
				*) [ -e "server/${inc%%/*}" ] || [ -e "replay/$inc" ] || continue ;;
				esac ;;
			esac
			fail "$name" "$f:$n includes $inc (only its own headers and the SDK's <cthelperd/...>)"
			bad=1
		done < <(grep -n '^#include' "$f")
	done
	[ $bad = 0 ] && echo "PASS layers/$name"
}

# docs/architecture.md's source map names every source file, and no other
check_doc_map() {
	local f bad=0 map
	map=$(sed -n '/^## Source map/,/^## /p' docs/architecture.md)
	for f in server/*/*.c replay/*.c plugtest/*.c sandboxd/*.c; do
		grep -qF "| \`$f\` |" <<<"$map" && continue
		fail doc-map "$f is not in docs/architecture.md's source map"
		bad=1
	done
	while read -r f; do
		[ -e "$f" ] && continue
		fail doc-map "docs/architecture.md's source map names $f, which does not exist"
		bad=1
	done < <(grep -oE '^\| `[^`]+\.c` \|' <<<"$map" | sed -E 's/^\| `([^`]+)` \|/\1/')
	[ $bad = 0 ] && echo "PASS layers/doc-map"
}

check_server
check_linked replay
check_linked plugtest
check_linked sandboxd
check_doc_map
for p in plugins/*/; do
	p=${p%/}
	check_sdk_side "${p//\//-}" "$p"/*.[ch]
done
check_sdk_side sdk sdk/include/cthelperd/*.h sdk/lib/*.c sdk/examples/*/*.c
[ $fails = 0 ]
