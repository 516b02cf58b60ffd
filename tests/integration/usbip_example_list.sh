#!/bin/sh
# usbip_example_list.sh MASS_STORAGE: start the mass_storage example in a
# scratch directory (no file=: it must create a 64 MiB disk.img), list it
# with Debian's `usbip list -r 127.0.0.1`, expect 0525:a4a5 and 08/06/50,
# then SIGINT: exit status 0 after "stopped". Exit 77 (skip) without usbip.
set -eu
bin=$1
tool=$(command -v usbip || true)
[ -n "$tool" ] || for p in /usr/sbin/usbip /sbin/usbip; do [ -x "$p" ] && tool=$p; done
if [ -z "$tool" ]; then
	echo "SKIP: no usbip binary (Debian package usbip)"
	exit 77
fi
dir=$(mktemp -d)
pid=
cleanup() {
	[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null || true
	rm -rf "$dir"
}
trap cleanup EXIT
cd "$dir"
# Made here, not only by the child's redirection: the polling below may
# run before the child has opened it (sed on a missing file ends the
# script under set -e).
: >out.log
"$bin" port=0 >out.log 2>&1 &
pid=$!
port=
for _ in $(seq 1 100); do
	port=$(sed -n 's/.*serving 1-1 on 127\.0\.0\.1:\([0-9][0-9]*\).*/\1/p' out.log)
	[ -n "$port" ] && break
	sleep 0.1
done
cat out.log
[ -n "$port" ] || { echo "FAIL: the example did not start"; exit 1; }
grep -q "usbip --tcp-port $port attach -r 127.0.0.1 -b 1-1" out.log ||
	{ echo "FAIL: no attach line"; exit 1; }
[ "$(stat -c %s disk.img)" -eq 67108864 ] || { echo "FAIL: disk.img is not 64 MiB"; exit 1; }
out=$(timeout 20 "$tool" --tcp-port "$port" list -r 127.0.0.1 2>&1)
echo "$out"
echo "$out" | grep -q "1-1: .*(0525:a4a5)" || { echo "FAIL: 0525:a4a5 not listed"; exit 1; }
echo "$out" | grep -q "(08/06/50)" || { echo "FAIL: interface 08/06/50 not listed"; exit 1; }
kill -INT "$pid"
rc=0
wait "$pid" || rc=$?
pid=
cat out.log
[ "$rc" -eq 0 ] || { echo "FAIL: exit status $rc after SIGINT"; exit 1; }
grep -q "stopped" out.log || { echo "FAIL: no clean stop"; exit 1; }
echo "PASS"
