#!/bin/sh
# Builds and runs the mass_storage example (README's first command).
# Arguments are passed on: ./scripts/run-example.sh file=my.img ro=1
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
out=${COMPOSITE_BUILD_DIR:-$src/build/default}
if ! command -v cmake >/dev/null 2>&1 || ! command -v cc >/dev/null 2>&1; then
	"$src/scripts/deps.sh"
fi
cmake --preset default -S "$src" -B "$out" -DCOMPOSITE_BUILD_TESTS=OFF >/dev/null
cmake --build "$out" -j "${JOBS:-2}" --target mass_storage >/dev/null
exec "$out/examples/mass_storage/mass_storage" "$@"
