#!/bin/sh
# Installs the built tree into a scratch prefix, moves the prefix elsewhere
# (both the CMake package and the .pc must be relocatable), and builds two
# consumers against the moved tree: one with find_package(composite), one
# with pkg-config.
# Usage: check-install.sh BUILD_DIR SOURCE_DIR SCRATCH_DIR
set -eu
build=$1 src=$2 scratch=$3
rm -rf "$scratch"
mkdir -p "$scratch"
prefix=$scratch/prefix
cmake --install "$build" --prefix "$scratch/installed" >"$scratch/install.log"
mv "$scratch/installed" "$prefix"
test -f "$prefix/lib/libcomposite.a" || test -f "$prefix/lib64/libcomposite.a" \
	|| { echo "libcomposite.a not installed"; exit 1; }
cmake -S "$src/tests/install/consumer" -B "$scratch/consumer" \
	-DCMAKE_PREFIX_PATH="$prefix" >"$scratch/configure.log"
cmake --build "$scratch/consumer" >"$scratch/build.log"
"$scratch/consumer/consumer"
pcdir=$(dirname "$(find "$prefix" -name composite.pc | head -n 1)")
pc_flags=$(PKG_CONFIG_PATH=$pcdir pkg-config --cflags --libs --static composite)
case $pc_flags in
*"$scratch/installed"*) echo "composite.pc still names the install-time prefix: $pc_flags"; exit 1 ;;
esac
cc -std=c11 -o "$scratch/pc-consumer" "$src/tests/install/consumer/main.c" $pc_flags
"$scratch/pc-consumer"
# The seed article's driver, unchanged, and our own in its forms: built
# against the moved prefix both ways, then run as programs (run-driver.sh).
if ls "$prefix"/lib*/libcomposite-module.a >/dev/null 2>&1; then
	cmake -S "$src/tests/article/consumer" -B "$scratch/article" \
		-DCMAKE_PREFIX_PATH="$prefix" >"$scratch/article-configure.log"
	cmake --build "$scratch/article" >"$scratch/article-build.log" ||
		{ cat "$scratch/article-build.log"; exit 1; }
	mod_flags=$(PKG_CONFIG_PATH=$pcdir pkg-config --cflags --libs --static composite-module)
	mkdir -p "$scratch/article-pc"
	for drv in g_my_mass_storage g_own_storage; do
		sh "$src/tests/article/run-driver.sh" "$scratch/article/$drv" "$scratch/run-$drv"
		cc -std=c11 -Wall -Werror -Wno-unused-parameter -o "$scratch/article-pc/$drv" \
			"$src/tests/article/$drv.c" $mod_flags
		sh "$src/tests/article/run-driver.sh" "$scratch/article-pc/$drv" "$scratch/run-pc-$drv"
	done
	echo "article drivers built with find_package and pkg-config from the moved prefix, and ran"
fi
echo "install check passed: find_package and pkg-config consumers built and ran"
