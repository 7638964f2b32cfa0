# Sourced by tests/vm/run.sh: pick the kernel, build (or reuse) the initrd.
# shellcheck shell=bash

# Load order matters: insmod does not resolve dependencies.
VM_MODULES="virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev virtio_pci
 netfs fscache 9pnet 9p 9pnet_virtio"

# Sets VM_KERNEL and VM_KVER: the newest installed Debian 6.1 kernel.
vm_pick_kernel() {
	VM_KERNEL=$(printf '%s\n' /boot/vmlinuz-6.1.*-amd64 | grep -v '\*' | sort -V | tail -n 1)
	if [ -z "$VM_KERNEL" ]; then
		echo "FAIL vm: no /boot/vmlinuz-6.1.*-amd64 (apt-get install linux-image-amd64)"
		return 1
	fi
	VM_KVER=${VM_KERNEL#/boot/vmlinuz-}
	if [ ! -d "/lib/modules/$VM_KVER" ]; then
		echo "FAIL vm: /lib/modules/$VM_KVER missing"
		return 1
	fi
}

# Prints the path of a gzipped newc initrd under build/vm/, rebuilt when
# the kernel, its modules, busybox or the init scripts change.
vm_build_initrd() {
	local out="$REPO/build/vm" bb m f key stage
	bb=$(command -v busybox) || { echo "vm: busybox not found" >&2; return 1; }
	if ! file -L "$bb" 2>/dev/null | grep -q 'statically linked' &&
	   ldd "$bb" >/dev/null 2>&1; then
		echo "vm: $bb is not static (apt-get install busybox-static)" >&2
		return 1
	fi
	mkdir -p "$out" || return 1
	local files=("$HERE/init" "$HERE/modprobe" "$HERE/initrd.sh" "$bb")
	for m in $VM_MODULES; do
		f=$(modinfo -k "$VM_KVER" -n "$m" 2>/dev/null) || {
			echo "vm: module $m not found for $VM_KVER" >&2
			return 1
		}
		files+=("$f")
	done
	key=$({ echo "$VM_KVER"; sha256sum "${files[@]}"; } | sha256sum | cut -c1-16)
	local img="$out/initrd-$VM_KVER-$key.cpio.gz"
	if [ -s "$img" ]; then
		echo "$img"
		return 0
	fi
	stage=$(mktemp -d "$out/stage.XXXXXX") || return 1
	mkdir -p "$stage"/{bin,sbin,proc,sys,dev,results,newroot,lib/modules}
	cp "$bb" "$stage/bin/busybox"
	local a
	for a in $("$bb" --list); do
		[ "$a" = busybox ] || ln -s busybox "$stage/bin/$a"
	done
	install -m 755 "$HERE/init" "$stage/init"
	install -m 755 "$HERE/modprobe" "$stage/sbin/modprobe"
	: >"$stage/modules.list"
	for m in $VM_MODULES; do
		f=$(modinfo -k "$VM_KVER" -n "$m")
		case $f in
		*.ko) cp "$f" "$stage/lib/modules/$m.ko" ;;
		*.ko.xz) xz -dc "$f" >"$stage/lib/modules/$m.ko" ;;
		*.ko.zst) zstd -qdc "$f" >"$stage/lib/modules/$m.ko" ;;
		*.ko.gz) gzip -dc "$f" >"$stage/lib/modules/$m.ko" ;;
		*) echo "vm: unknown module format $f" >&2; rm -rf "$stage"; return 1 ;;
		esac || { rm -rf "$stage"; return 1; }
		echo "$m" >>"$stage/modules.list"
	done
	# Build into a temporary name: several runs may start at once.
	(cd "$stage" && find . -print0 | LC_ALL=C sort -z |
		cpio --null -o -H newc --quiet --owner=0:0 | gzip -1) >"$img.tmp.$$" &&
		mv -f "$img.tmp.$$" "$img"
	local rc=$?
	rm -rf "$stage"
	# Older images of the same kernel are stale.
	[ $rc = 0 ] && find "$out" -maxdepth 1 -name "initrd-$VM_KVER-*.cpio.gz" ! -name "$(basename "$img")" -mmin +60 -delete 2>/dev/null
	[ $rc = 0 ] && echo "$img"
	return $rc
}
