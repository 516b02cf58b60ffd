#!/bin/bash
# build-initramfs.sh OUTDIR
#
# Builds the initramfs (gzip'd newc cpio) that run-guest.sh boots with the
# installed Debian kernel: busybox, the usbip tools, dosfstools, sfdisk/fdisk,
# coreutils dd, the dynamic loader and every library `ldd` lists for them, the
# kernel modules the linux-host cases load (with their dependencies, indexed by
# depmod -b), and guest-init.sh as /init.
#
# The result is cached in OUTDIR under a name keyed by the kernel version and
# a hash of this script, guest-init.sh and the versions of the packages it
# copies from, so a rerun is a lookup. OUTDIR/initramfs.cpio.gz always names
# the current image (a symlink); the path is also printed on stdout.
#
# Environment: LH_KVER (kernel version; default: newest /boot/vmlinuz-*).
# Touches only OUTDIR.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
outdir=${1:?usage: build-initramfs.sh OUTDIR}
mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)

die() { echo "build-initramfs: $*" >&2; exit 1; }

kver=${LH_KVER:-}
if [ -z "$kver" ]; then
    k=$(ls -1 /boot/vmlinuz-* 2>/dev/null | sort -V | tail -n 1) ||
        true
    [ -n "$k" ] || die "no /boot/vmlinuz-* (apt-get install linux-image-amd64)"
    kver=${k#/boot/vmlinuz-}
fi
moddir=/lib/modules/$kver
[ -d "$moddir" ] || die "no $moddir"

# Binaries copied with their libraries. Required ones must exist; optional
# ones are copied when installed (debugging tools, and iperf3 for
# bench/linux-host/net-bench.sh, which skips without it).
required_bins="/usr/sbin/usbip /usr/sbin/usbipd /usr/sbin/mkfs.fat
    /usr/sbin/fsck.fat /usr/sbin/sfdisk /usr/sbin/fdisk /usr/bin/dd /usr/bin/env
    /usr/bin/sg_raw /usr/bin/sg_inq /usr/bin/sg_readcap /usr/bin/sg_turs /usr/bin/lsusb
    /usr/sbin/ip"
optional_bins="/usr/bin/sg_start /usr/bin/eject /usr/bin/strace /usr/bin/iperf3"
# Modules (names as modprobe takes them); dependencies are added below.
modules="usbip-core vhci-hcd usbip-vudc usbip-host usbcore usb-storage
    sd_mod sr_mod sg cdrom loop vfat fat msdos isofs nls_cp437 nls_cp850
    nls_ascii nls_iso8859-1 nls_utf8 usbtest usbmon dummy_hcd udc-core
    libcomposite usb_f_mass_storage usb_f_ss_lb configfs 9p 9pnet_virtio
    virtio_pci crc-t10dif crct10dif_generic cdc-acm
    usbhid hid-generic evdev usb_f_acm usb_f_hid tun cdc_ether usb_f_ecm
    cdc_ncm usb_f_ncm gadgetfs"

busybox=/bin/busybox
[ -x "$busybox" ] || die "no $busybox (apt-get install busybox-static)"
case $(ldd "$busybox" 2>&1 || true) in
*"not a dynamic"*) ;;
*) die "$busybox is not static (apt-get install busybox-static)" ;;
esac
for b in $required_bins; do
    [ -x "$b" ] || die "missing $b (see tests/linux-host/packages.txt)"
done
command -v depmod >/dev/null || die "missing depmod (apt-get install kmod)"
command -v cpio >/dev/null || die "missing cpio"

# Cache key: anything that changes the image's content.
pkgs=$(dpkg-query -W -f '${Package}=${Version}\n' busybox-static usbip \
    dosfstools fdisk coreutils sg3-utils libc6 iperf3 "linux-image-$kver" \
    2>/dev/null || true)
key=$( { cat "$0" "$here/guest-init.sh"; echo "$kver"; echo "$pkgs"; } |
    sha256sum | cut -c1-16)
image=$outdir/initramfs-$kver-$key.cpio.gz

# Serialise concurrent builds (ctest -j) on one lock; the loser finds the
# cache filled.
exec 9>"$outdir/.build.lock"
flock 9
if [ -s "$image" ]; then
    ln -sfn "$(basename "$image")" "$outdir/initramfs.cpio.gz"
    echo "$image"
    exit 0
fi

root=$(mktemp -d "$outdir/root.XXXXXX")
trap 'rm -rf "$root"' EXIT

# usrmerged layout, as on the build machine, so paths from ldd work as-is.
mkdir -p "$root"/usr/bin "$root"/usr/sbin "$root"/usr/lib "$root"/usr/lib64 \
    "$root"/proc "$root"/sys "$root"/dev "$root"/tmp "$root"/host \
    "$root"/run "$root"/etc "$root"/mnt "$root"/root "$root"/var/run
for d in bin sbin lib lib64; do ln -s "usr/$d" "$root/$d"; done

# copy_file SRC: copy SRC (following links) to the same path in the image.
copy_file() {
    local src=$1 dir dst
    dir=$(readlink -f "$(dirname "$src")")
    dst=$root$dir/$(basename "$src")
    [ -e "$dst" ] && return 0
    mkdir -p "$root$dir"
    cp -L "$src" "$dst"
}

# copy_bin SRC: the binary and every library (and loader) ldd names.
copy_bin() {
    local src=$1 lib
    copy_file "$src"
    for lib in $(ldd "$src" 2>/dev/null |
        sed -n -e 's/.*=> \(\/[^ ]*\) .*/\1/p' -e 's/^[[:space:]]*\(\/[^ ]*\) .*/\1/p')
    do
        copy_file "$lib"
    done
}

for b in $required_bins; do copy_bin "$b"; done
for b in $optional_bins; do [ -x "$b" ] && copy_bin "$b"; done
ln -s mkfs.fat "$root/usr/sbin/mkfs.vfat"
ln -s fsck.fat "$root/usr/sbin/fsck.vfat"
# Any program from the share finds libc and the loader at the usual paths.
copy_file /lib64/ld-linux-x86-64.so.2
for l in libc.so.6 libm.so.6 libpthread.so.0 libdl.so.2 librt.so.1 \
    libgcc_s.so.1 libudev.so.1 libusb-1.0.so.0 libstdc++.so.6; do
    p=/lib/x86_64-linux-gnu/$l
    [ -e "$p" ] && copy_file "$p"
done

# busybox and its applets; never link "busybox" over itself (ELOOP at /init),
# never shadow the real binaries copied above.
cp "$busybox" "$root/usr/bin/busybox"
for applet in $("$busybox" --list); do
    [ "$applet" = busybox ] && continue
    [ -e "$root/usr/bin/$applet" ] || [ -e "$root/usr/sbin/$applet" ] ||
        [ -L "$root/usr/bin/$applet" ] && continue
    ln -s busybox "$root/usr/bin/$applet"
done

# Kernel modules with their dependencies, then a fresh index for this tree.
mods=$(for m in $modules; do
    modprobe -S "$kver" --show-depends "$m" 2>/dev/null ||
        { echo "MISSING $m"; }
done)
if echo "$mods" | grep -q '^MISSING'; then
    die "kernel $kver lacks: $(echo "$mods" | sed -n 's/^MISSING //p' | tr '\n' ' ')"
fi
for ko in $(echo "$mods" | sed -n 's/^insmod \([^ ]*\).*/\1/p' | sort -u); do
    mkdir -p "$root$(dirname "$ko")"
    cp "$ko" "$root$ko"
done
for f in modules.order modules.builtin modules.builtin.modinfo; do
    [ -e "$moddir/$f" ] && cp "$moddir/$f" "$root$moddir/"
done
depmod -b "$root" "$kver"

cp "$here/guest-init.sh" "$root/init"
chmod 755 "$root/init"
echo "root:x:0:0:root:/root:/bin/sh" >"$root/etc/passwd"
echo "root:x:0:" >"$root/etc/group"
echo "$kver" >"$root/etc/lh-kernel"

tmp=$(mktemp "$outdir/initramfs.XXXXXX")
(cd "$root" && find . -print0 | LC_ALL=C sort -z |
    cpio --null -o -H newc --quiet -R 0:0) | gzip -1 >"$tmp"
chmod 644 "$tmp"
mv "$tmp" "$image"
ln -sfn "$(basename "$image")" "$outdir/initramfs.cpio.gz"
# Older images of other keys are stale: drop them.
for old in "$outdir"/initramfs-*.cpio.gz; do
    [ "$old" = "$image" ] || rm -f "$old"
done
echo "$image"
