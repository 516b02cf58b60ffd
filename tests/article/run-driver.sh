#!/bin/sh
# run-driver.sh BIN WORKDIR: a module-runner program (g_my_mass_storage or
# g_own_storage) as a user runs it: an unknown parameter exits 2 listing
# the valid ones; a missing file= fails init (exit 1) naming the file; with
# a 64 MiB image on an ephemeral port it prints the attach line, and exits
# 0 on SIGTERM. g_own_storage also shows its module_param() values arrived.
set -u
bin=$1 work=$2
name=$(basename "$bin")
fail() { echo "FAIL ($name): $*"; [ -f "$work/out" ] && cat "$work/out"; exit 1; }
rm -rf "$work" && mkdir -p "$work" || exit 1
case $name in g_own_storage) p=usb_ ;; *) p= ;; esac

"$bin" bogus=1 >"$work/out" 2>&1
[ $? = 2 ] || fail "unknown parameter: not exit 2"
grep -q 'unknown parameter "bogus=1"' "$work/out" || fail "no unknown-parameter message"
grep -q "valid parameters: address= port= speed= .*${p}file=" "$work/out" ||
	fail "no list of valid parameters"

"$bin" "${p}file=$work/none/x.img" port=0 >"$work/out" 2>&1
[ $? = 1 ] || fail "missing file: not exit 1"
grep -q "$work/none/x.img" "$work/out" || fail "missing file not named"

truncate -s 64M "$work/disk.img" || exit 1
set -- "${p}file=$work/disk.img" port=0
[ "$name" = g_own_storage ] && set -- "$@" serial=XYZ-42 product=0x1234 self_powered=0
"$bin" "$@" >"$work/out" 2>&1 &
pid=$!
i=0
until grep -q "on the host: usbip --tcp-port [0-9]* attach -r 127.0.0.1 -b 1-1" "$work/out"; do
	i=$((i + 1))
	[ $i -lt 100 ] || { kill -9 $pid; fail "no attach line"; }
	kill -0 $pid 2>/dev/null || fail "died before the attach line"
	sleep 0.1
done
if [ "$name" = g_own_storage ]; then
	grep -q "bound: 1 LUN(s), product 1234, serial XYZ-42" "$work/out" ||
		{ kill -9 $pid; fail "module_param values did not arrive"; }
fi
kill -TERM $pid
wait $pid
rc=$?
[ $rc = 0 ] || fail "exit $rc after SIGTERM"
grep -q "$name: stopped" "$work/out" || fail "no stopped line"
echo "ok: $name"
