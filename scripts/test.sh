#!/bin/sh
# The test command (README.md, .ci/run): installs what is missing, then
#  1. dev build (warnings as errors): every ctest label, the qemu Linux host
#     included (unit, install, integration, linux-host);
#  2. ASan+UBSan build: unit and integration tests;
#  3. valgrind memcheck over the unit tests of the dev build;
#  4. libFuzzer smoke runs (clang) of every fuzz target;
#  5. the portable-only (firmware) configuration builds with the host
#     compiler; the library and the firmware scenario image cross-build for
#     Cortex-M4F and Cortex-M0+ (arm-none-eabi, Release -Os), and ctest
#     label firmware runs each image under qemu-system-arm (mps2-an386)
#     and checks its symbols.
# Stops at the first failing stage; prints one summary line at the end.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
out=${COMPOSITE_TEST_DIR:-$src/build}
jobs=${JOBS:-2}
"$src/scripts/deps.sh"

passed=0
failed=0
# run_ctest NAME BUILD_DIR [ctest args]: runs ctest, adds its counts.
run_ctest() {
	name=$1 dir=$2
	shift 2
	log=$out/$name.ctest.log
	echo "== $name: ctest $*"
	# ctest's own exit status, not tee's (POSIX sh has no pipefail).
	{ ctest --test-dir "$dir" --output-on-failure --no-tests=error "$@" 2>&1
	  echo $? >"$log.rc"; } | tee "$log"
	rc=$(cat "$log.rc")
	# "100% tests passed, 0 tests failed out of 42"
	line=$(grep -E 'tests passed, [0-9]+ tests? failed out of [0-9]+' "$log" | tail -n 1 || true)
	if [ -n "$line" ]; then
		total=$(echo "$line" | sed -E 's/.*out of ([0-9]+).*/\1/')
		nfail=$(echo "$line" | sed -E 's/.*passed, ([0-9]+) tests? failed.*/\1/')
		passed=$((passed + total - nfail))
		failed=$((failed + nfail))
	fi
	if [ "$rc" -ne 0 ] || [ -z "$line" ]; then
		echo "== $name FAILED (ctest exit $rc)"
		[ "$failed" -gt 0 ] || failed=1
		echo "test: $passed passed, $failed failed"
		exit 1
	fi
}

mkdir -p "$out"
echo "== dev build"
cmake --preset dev -S "$src" -B "$out/dev" >/dev/null
cmake --build "$out/dev" -j "$jobs"
run_ctest dev "$out/dev" -j "$jobs" -LE "valgrind|bench"

echo "== asan build"
cmake --preset asan -S "$src" -B "$out/asan" >/dev/null
cmake --build "$out/asan" -j "$jobs"
run_ctest asan "$out/asan" -j "$jobs" -L "unit|integration" -LE "install|valgrind|bench"

echo "== valgrind (memcheck) over the unit tests"
run_ctest valgrind "$out/dev" -j "$jobs" -L valgrind

echo "== fuzz smoke runs"
cmake --preset fuzz -S "$src" -B "$out/fuzz" >/dev/null
cmake --build "$out/fuzz" -j "$jobs"
if ctest --test-dir "$out/fuzz" -N -L fuzz | grep -q 'Total Tests: [1-9]'; then
	run_ctest fuzz "$out/fuzz" -L fuzz
fi

echo "== portable-only (firmware) build"
cmake --preset firmware -S "$src" -B "$out/firmware" >/dev/null
cmake --build "$out/firmware" -j "$jobs"
for core in cortex-m4f cortex-m4f-minimal cortex-m0plus; do
	echo "== firmware cross build: $core"
	cmake --preset "fw-$core" -S "$src" -B "$out/fw-$core" >/dev/null
	cmake --build "$out/fw-$core" -j "$jobs"
	run_ctest "fw-$core" "$out/fw-$core" -L firmware
done

echo "test: $passed passed, $failed failed"
