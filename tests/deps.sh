#!/bin/sh
# Install every Debian package cthelperd needs to build, test and demo.
# Idempotent: apt-get skips what is already there.
set -eu
PKGS="build-essential pkg-config
 libmnl-dev libnetfilter-queue-dev libnetfilter-conntrack-dev libev-dev libinih-dev
 qemu-system-x86 linux-image-amd64 linux-headers-amd64 busybox-static cpio
 iproute2 iptables nftables conntrack nfct conntrackd
 python3 python3-pyftpdlib procps kmod iputils-ping ethtool sip-tester
 clang libclang-rt-14-dev rpcbind
 libcap-ng-dev libmicrohttpd-dev libsystemd-dev curl prometheus
 libpcap-dev tcpdump tftp-hpa tftpd-hpa
 ffmpeg python3-gi gir1.2-gst-rtsp-server-1.0 gstreamer1.0-tools
 gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-rtsp
 valgrind python3-matplotlib linux-perf strace
 debhelper dh-dkms dkms devscripts blhc lintian fakeroot adduser git"
if [ "$(id -u)" != 0 ]; then
	echo "make deps: must run as root (apt-get install)" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update
# shellcheck disable=SC2086
apt-get install -y --no-install-recommends $PKGS
apt-get install -y --no-install-recommends linux-headers-6.12-amd64 || echo "make deps: linux-headers-6.12-amd64 (bookworm-security) not installable: tests/kmod skips its second-kernel build" >&2
