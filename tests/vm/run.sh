#!/bin/bash
# Boot Debian's kernel in qemu (TCG) with the host's / shared read-only and
# run one script inside.  See tests/vm/README.md.
#
#   tests/vm/run.sh [--timeout SECONDS] [--results DIR] SCRIPT [ARGS...]
set -u

usage() {
	echo "usage: $0 [--timeout SECONDS] [--results DIR] SCRIPT [ARGS...]" >&2
	exit 2
}

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
TIMEOUT=${VM_TIMEOUT:-300}
RES=
while [ $# -gt 0 ]; do
	case $1 in
	--timeout) [ $# -ge 2 ] || usage; TIMEOUT=$2; shift 2 ;;
	--timeout=*) TIMEOUT=${1#*=}; shift ;;
	--results) [ $# -ge 2 ] || usage; RES=$2; shift 2 ;;
	--results=*) RES=${1#*=}; shift ;;
	-h|--help) usage ;;
	--) shift; break ;;
	-*) usage ;;
	*) break ;;
	esac
done
[ $# -ge 1 ] || usage
for v in ${VM_PASS_ENV:-}; do
	[[ $v =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || { echo "$0: bad name '$v' in VM_PASS_ENV" >&2; exit 2; }
done
case $TIMEOUT in ''|*[!0-9]*) echo "$0: bad --timeout '$TIMEOUT'" >&2; exit 2 ;; esac
SCRIPT=$1; shift
case $SCRIPT in
/*) ;;
*) SCRIPT=$(cd "$(dirname "$SCRIPT")" && pwd)/$(basename "$SCRIPT") ;;
esac
if [ ! -f "$SCRIPT" ]; then
	echo "FAIL vm: script $SCRIPT not found"
	exit 2
fi
# /tmp, /run, /var/tmp, /var/log are fresh tmpfs mounts inside the VM.  A
# checkout living there (CI may clone into /tmp) is shared with the VM on
# its own and mounted back at the same path; any other script there would
# vanish.
REPO_HIDDEN=0
case $REPO in /tmp/*|/run/*|/var/run/*|/var/tmp/*|/var/log/*) REPO_HIDDEN=1 ;; esac
case $SCRIPT in
"$REPO"/*) ;;
/tmp/*|/run/*|/var/run/*|/var/tmp/*|/var/log/*|/proc/*|/sys/*|/dev/*)
	echo "FAIL vm: $SCRIPT is under a directory the VM mounts over; put it elsewhere (e.g. build/)"
	exit 2 ;;
esac

# shellcheck source=tests/vm/initrd.sh
. "$HERE/initrd.sh"
vm_pick_kernel || exit 2
INITRD=$(vm_build_initrd) || { echo "FAIL vm: cannot build the initrd"; exit 2; }

if [ -z "$RES" ]; then
	mkdir -p "$REPO/build/vm/runs"
	RES=$(mktemp -d "$REPO/build/vm/runs/$(date +%Y%m%d-%H%M%S)-XXXXXX") || exit 2
else
	mkdir -p "$RES" || exit 2
	RES=$(cd "$RES" && pwd)
	rm -f "$RES"/{job.sh,stdout,stderr,progress,rc,rc.tmp,console.log,console.txt}
	rm -rf "$RES/.ok"
fi

# The job runs in bash inside the chroot; %q keeps arguments with spaces.
{
	echo "# written by tests/vm/run.sh"
	# Where the results share is on the host, for messages that name files.
	printf 'export VM_HOST_RESULTS=%q\n' "$RES"
	# VM_PASS_ENV: names of host variables the script sees too.
	for v in ${VM_PASS_ENV:-}; do
		[ -n "${!v+x}" ] && printf 'export %s=%q\n' "$v" "${!v}"
	done
	printf 'cd %q || exit 125\n' "$REPO"
	printf 'exec %q' "$SCRIPT"
	[ $# -eq 0 ] || printf ' %q' "$@"
	echo
} >"$RES/job.sh"
: >"$RES/stdout"
: >"$RES/progress"

# Plain text for grepping: no CRs, no ANSI/VT100 escape sequences.
clean() {
	sed -u -e 's/\r//g' -e 's/\x1b\[[0-9;?]*[A-Za-z]//g' -e 's/\x1b[()][A-Za-z0-9]//g' -e 's/\x1b[=>c]//g'
}

REPO_SHARE=()
if [ $REPO_HIDDEN = 1 ]; then
	REPO_SHARE=(-virtfs "local,path=$REPO,mount_tag=repo,security_model=none,readonly=on,multidevs=remap")
	echo "$REPO" >"$RES/repo.path"
else
	rm -f "$RES/repo.path"
fi
SMP=${VM_SMP:-2}
MEM=${VM_MEM:-1G}
# no_timer_check: under TCG on a loaded host the kernel's IO-APIC timer
# check can fail and panic at boot ("IO-APIC + timer doesn't work", seen
# with four VMs on two cores); the timer works, only the check is slow.
# The outer timeout only matters if this script itself gets killed hard:
# no qemu may outlive its budget.
timeout -k 5 $((TIMEOUT + 30)) qemu-system-x86_64 -accel tcg -cpu max -smp "$SMP" -m "$MEM" \
	-nic none -display none -monitor none -no-reboot \
	-serial "file:$RES/console.log" \
	-kernel "$VM_KERNEL" -initrd "$INITRD" \
	-append "console=ttyS0 panic=-1 quiet no_timer_check rdinit=/init ${VM_APPEND:-}" \
	-virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap" \
	-virtfs "local,path=$RES,mount_tag=results,security_model=none,multidevs=remap" \
	"${REPO_SHARE[@]}" \
	</dev/null >"$RES/qemu.out" 2>&1 &
QPID=$!
# Stream the script's stdout while it runs (long e2e runs, make demo).
tail -n +1 -f --pid=$QPID "$RES/stdout" 2>/dev/null | clean &
TPID=$!

trap 'kill $QPID 2>/dev/null; kill $TPID 2>/dev/null; exit 130' INT TERM
start=$SECONDS
timed_out=0
while kill -0 $QPID 2>/dev/null; do
	if [ $((SECONDS - start)) -ge "$TIMEOUT" ]; then
		timed_out=1
		kill $QPID 2>/dev/null
		sleep 1
		kill -9 $QPID 2>/dev/null
		break
	fi
	sleep 1
done
wait $QPID 2>/dev/null
wait $TPID 2>/dev/null
trap - INT TERM
elapsed=$((SECONDS - start))
clean <"$RES/console.log" >"$RES/console.txt" 2>/dev/null

last_step() {
	local s
	s=$(grep -v '^[[:space:]]*$' "$RES/progress" 2>/dev/null | tail -n 1)
	echo "${s:-<none: the VM never reached the init script>}"
}
console_tail() {
	echo "--- VM console (last 30 lines of $RES/console.txt)"
	tail -n 30 "$RES/console.txt" 2>/dev/null
	if [ -s "$RES/stderr" ]; then
		echo "--- script stderr (last 30 lines of $RES/stderr)"
		tail -n 30 "$RES/stderr" | clean
	fi
	if [ -s "$RES/qemu.out" ]; then
		echo "--- qemu"
		cat "$RES/qemu.out"
	fi
}

echo "vm: ${elapsed}s, results in $RES"
if [ $timed_out = 1 ]; then
	echo "FAIL vm: timed out after $TIMEOUT s in step $(last_step)"
	console_tail
	exit 124
fi
if [ ! -f "$RES/rc" ]; then
	echo "FAIL vm: no completion marker (VM died or crashed) in step $(last_step)"
	console_tail
	exit 3
fi
rc=$(cat "$RES/rc")
if [ "$rc" != 0 ]; then
	echo "vm: script exited with status $rc"
	console_tail
fi
exit "$rc"
