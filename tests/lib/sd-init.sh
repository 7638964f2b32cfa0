#!/bin/bash
# PID 1 of a new PID and mount namespace inside the test VM: what systemd
# needs around it, then systemd itself, with one target that pulls in
# nothing (units are started by the test with systemctl).  Called by
# tests/lib/systemd.sh (systemd_boot).
set -e
mount -t proc proc /proc
mount -t tmpfs tmpfs /run
mkdir -p /run/systemd/system/cthelperd.service.d
mountpoint -q /sys/fs/cgroup || mount -t cgroup2 none /sys/fs/cgroup
printf '[Unit]\nDescription=cthelperd test\n' >/run/systemd/system/cth-test.target
# the test kills the daemon on purpose: no restart
printf '[Service]\nRestart=no\n' >/run/systemd/system/cthelperd.service.d/test.conf
exec env container=cthtest /lib/systemd/systemd --unit=cth-test.target \
	--log-target=console --log-level=notice
