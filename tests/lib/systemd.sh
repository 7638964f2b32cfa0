# shellcheck shell=bash
# systemd as PID 1 inside the test VM, for the suites that run a unit the
# way an installed system does (tests/ops: the `make install` unit;
# tests/deb: the package's).  Sourced after tests/lib/vmsuite.sh (LOGS,
# REPO, until_ms, nap).
#
#   systemd_boot    start it (tests/lib/sd-init.sh) and wait until it is
#                   running; 1 with SD_STATE saying why not
#   sd CMD...       run CMD in its namespaces (systemctl, journalctl)
#   sdt CMD...      the same, bounded to 60 s (a start or stop that hangs)
#   systemd_down    kill it

# The VM boots a busybox init, so systemd runs as PID 1 of a new PID and
# mount namespace (as in a container), in the VM's network namespace: the
# service it starts sees the router, its queues and the kernel's helpers.
SD_PID=
SD_BOOT_PID=
sd() { nsenter --target "$SD_PID" --mount --pid --root --wd -- "$@"; }
systemd_boot() {
	local _
	# unshare --fork fails in this VM ("sigprocmask unblock failed"):
	# without it, the first child of the shell is the namespace's PID 1
	unshare --pid --mount --propagation private -- \
		/bin/bash -c '"$1" & wait' _ "$REPO/tests/lib/sd-init.sh" \
		>"$LOGS/systemd.log" 2>&1 &
	SD_BOOT_PID=$!
	until_ms 90000
	while before_deadline; do
		SD_PID=$(pgrep -P "$SD_BOOT_PID" | head -n 1)
		if [ -n "$SD_PID" ]; then
			SD_STATE=$(timeout 10 nsenter --target "$SD_PID" --mount --pid --root --wd -- \
				systemctl is-system-running 2>&1)
			[[ $SD_STATE == running || $SD_STATE == degraded ]] && return 0
		fi
		nap 1
	done
	SD_STATE="${SD_STATE:-no PID 1 found}; jobs: $(timeout 10 nsenter --target "$SD_PID" --mount --pid --root --wd -- systemctl list-jobs --no-legend 2>&1 | head -n 5 | tr '\n' '|')"
	return 1
}
systemd_down() {
	[ -z "$SD_PID" ] || kill -KILL "$SD_PID" 2>/dev/null
	[ -z "$SD_BOOT_PID" ] || wait "$SD_BOOT_PID" 2>/dev/null
	SD_PID= SD_BOOT_PID=
}
sdt() { timeout 60 nsenter --target "$SD_PID" --mount --pid --root --wd -- "$@"; }
