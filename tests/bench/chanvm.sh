#!/bin/bash
# cthbench-chan inside the test VM (make bench-chan-vm): what a sandbox
# turn costs under qemu TCG, the VM the bench measures in, with nothing
# else running.  Twice as it comes and twice with the bench process and
# its sandboxes on one vCPU (taskset: the wake-up then needs no other
# vCPU), alternating; then once more with two busy loops running (the
# bench's client, server and kernel keep both vCPUs busy: a woken
# sandbox then waits for the scheduler).  Run by tests/vm/run.sh from
# the repository root.
set -u
B=${CTH_BUILD:-build}
[ -x "$B/bench/cthbench-chan" ] || { echo "FAIL bench-chan-vm: $B/bench/cthbench-chan is not built"; exit 1; }
N=${CHAN_N:-2000}
echo "# $(uname -r), $(nproc) CPUs, $N packets per load"
for i in 1 2; do
	echo "== vCPUs as the scheduler picks, run $i"
	CTH_BUILD=$B timeout 300 "$B/bench/cthbench-chan" "$N" || echo "FAIL bench-chan-vm: run $i exited $?"
	echo "== one vCPU (taskset -c 0), run $i"
	CTH_BUILD=$B timeout 300 taskset -c 0 "$B/bench/cthbench-chan" "$N" || echo "FAIL bench-chan-vm: pinned run $i exited $?"
done
echo "== two busy loops on the vCPUs"
busy=()
for c in 0 1; do
	taskset -c "$c" sh -c 'while :; do :; done' &
	busy+=($!)
done
CTH_BUILD=$B timeout 300 "$B/bench/cthbench-chan" "$N" || echo "FAIL bench-chan-vm: busy run exited $?"
kill "${busy[@]}"
