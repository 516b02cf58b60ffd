#!/bin/sh
# Builds the Debian packages of a build tree with CPack (cmake/package.cmake)
# and checks them as a user would get them:
# - each .deb's name and contents (dpkg-deb);
# - libcomposite-dev unpacked (dpkg -x): a find_package(composite) consumer
#   and a pkg-config one build and run against it;
# - as root, when neither package is installed yet: both installed with
#   dpkg -i, the consumers built against /usr with no hints, the daemon's
#   --check run on every shipped scheme (when composite-gadgetd is built),
#   then both removed again (also on failure).
# Usage: check-packages.sh BUILD_DIR SOURCE_DIR SCRATCH_DIR
set -eu
build=$1 src=$2 scratch=$3
rm -rf "$scratch"
mkdir -p "$scratch"
fail() { echo "check-packages: $*" >&2; exit 1; }

cpack -G DEB --config "$build/CPackConfig.cmake" -B "$scratch/debs" >"$scratch/cpack.log" 2>&1 ||
	{ cat "$scratch/cpack.log"; fail "cpack failed"; }
dev_deb=$(ls "$scratch"/debs/libcomposite-dev_*.deb 2>/dev/null | head -n 1)
[ -n "$dev_deb" ] || fail "no libcomposite-dev .deb in $scratch/debs"
[ "$(dpkg-deb -f "$dev_deb" Package)" = libcomposite-dev ] || fail "wrong package name in $dev_deb"
dpkg-deb -c "$dev_deb" >"$scratch/dev.list"
for f in ./usr/include/composite/composite.h ./usr/include/composite/usbip.h \
	'./usr/lib/.*libcomposite\.a' './usr/lib/.*pkgconfig/composite\.pc' \
	'./usr/lib/.*cmake/composite/compositeConfig\.cmake'; do
	grep -q " $f\$" "$scratch/dev.list" || fail "libcomposite-dev lacks $f"
done
gadgetd_deb=$(ls "$scratch"/debs/composite-gadgetd_*.deb 2>/dev/null | head -n 1 || true)

consumers() { # PREFIX_HINT (empty: none) NAME
	hint=$1 name=$2
	cmake -S "$src/tests/install/consumer" -B "$scratch/$name-cmake" \
		${hint:+-DCMAKE_PREFIX_PATH="$hint"} >"$scratch/$name-configure.log" ||
		{ cat "$scratch/$name-configure.log"; fail "$name: find_package consumer did not configure"; }
	cmake --build "$scratch/$name-cmake" >"$scratch/$name-build.log" ||
		{ cat "$scratch/$name-build.log"; fail "$name: find_package consumer did not build"; }
	"$scratch/$name-cmake/consumer"
	pc_path=
	[ -n "$hint" ] && pc_path=$(dirname "$(find "$hint" -name composite.pc | head -n 1)")
	flags=$(PKG_CONFIG_PATH=$pc_path pkg-config --cflags --libs --static composite) ||
		fail "$name: pkg-config does not find composite"
	cc -std=c11 -o "$scratch/$name-pc" "$src/tests/install/consumer/main.c" $flags
	"$scratch/$name-pc"
}

dpkg -x "$dev_deb" "$scratch/root"
consumers "$scratch/root/usr" unpacked
echo "libcomposite-dev: contents checked; consumers built against the unpacked package"

if [ "$(id -u)" -ne 0 ]; then
	echo "not root: packages not installed into the system"
	exit 0
fi
for p in libcomposite-dev composite-gadgetd; do
	if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		echo "$p is already installed here: not touching the system's packages"
		exit 0
	fi
done
trap 'dpkg -r composite-gadgetd libcomposite-dev >/dev/null 2>&1 || true' EXIT
dpkg -i "$dev_deb" ${gadgetd_deb:+"$gadgetd_deb"} >"$scratch/dpkg.log" 2>&1 ||
	{ cat "$scratch/dpkg.log"; fail "dpkg -i failed"; }
consumers "" system
echo "libcomposite-dev installed: consumers built against /usr with no hints"
if [ -n "$gadgetd_deb" ]; then
	schemes=$(dpkg -L composite-gadgetd | grep '\.scheme$' || true)
	[ -n "$schemes" ] || fail "composite-gadgetd ships no schemes"
	# Each example serves disk.img of the folder it runs in, so each is
	# checked alone (two of them on one file would be refused).
	mkdir -p "$scratch/run" && truncate -s 16M "$scratch/run/disk.img"
	for s in $schemes; do
		(cd "$scratch/run" && composite-gadgetd --check "$s") ||
			fail "composite-gadgetd --check $s failed"
	done
	unit=$(dpkg -L composite-gadgetd | grep 'composite-gadgetd\.service$') ||
		fail "composite-gadgetd ships no systemd unit"
	if command -v systemd-analyze >/dev/null; then
		systemd-analyze verify "$unit" >"$scratch/unit.log" 2>&1 ||
			{ cat "$scratch/unit.log"; fail "systemd-analyze rejects $unit"; }
	fi
	[ -d /etc/composite-gadgetd ] || fail "no /etc/composite-gadgetd"
	echo "composite-gadgetd installed: --check passed on $(echo $schemes | wc -w) shipped schemes, $unit verified"
fi
