#!/bin/sh
# Installs the built tree into a scratch prefix and builds two consumers
# against it: one with find_package(composite), one with pkg-config.
# Usage: check-install.sh BUILD_DIR SOURCE_DIR SCRATCH_DIR
set -eu
build=$1 src=$2 scratch=$3
rm -rf "$scratch"
mkdir -p "$scratch"
prefix=$scratch/prefix
cmake --install "$build" --prefix "$prefix" >"$scratch/install.log"
test -f "$prefix/lib/libcomposite.a" || test -f "$prefix/lib64/libcomposite.a" \
	|| { echo "libcomposite.a not installed"; exit 1; }
cmake -S "$src/tests/install/consumer" -B "$scratch/consumer" \
	-DCMAKE_PREFIX_PATH="$prefix" >"$scratch/configure.log"
cmake --build "$scratch/consumer" >"$scratch/build.log"
"$scratch/consumer/consumer"
pcdir=$(dirname "$(find "$prefix" -name composite.pc | head -n 1)")
# The .pc holds the configured prefix; point it at the scratch one.
cc -std=c11 -o "$scratch/pc-consumer" "$src/tests/install/consumer/main.c" \
	$(PKG_CONFIG_PATH=$pcdir pkg-config --define-variable=prefix="$prefix" --cflags --libs --static composite)
"$scratch/pc-consumer"
echo "install check passed: find_package and pkg-config consumers built and ran"
