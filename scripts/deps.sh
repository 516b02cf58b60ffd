#!/bin/sh
# Installs the Debian 12 packages that building and testing need, when any
# is missing: through apt-get when run as root, otherwise it prints the exact
# command to run and fails. Sourced lists: this file and
# tests/linux-host/packages.txt (the qemu guest's needs).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
pkgs="build-essential cmake pkg-config git libcmocka-dev libusb-1.0-0-dev usbip
clang libclang-rt-14-dev valgrind qemu-system-x86 linux-image-amd64 busybox-static
cpio kmod mtools dosfstools fdisk genisoimage tshark libconfig-dev
libusbgx-dev linux-libc-dev gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm"
if [ -f "$here/tests/linux-host/packages.txt" ]; then
	pkgs="$pkgs $(grep -v '^#' "$here/tests/linux-host/packages.txt" | tr '\n' ' ')"
fi
missing=""
for p in $pkgs; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0
echo "deps: missing Debian packages:$missing"
if [ "$(id -u)" -ne 0 ]; then
	echo "deps: run as root:  apt-get update && apt-get install -y$missing" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing
