#!/bin/sh
# usbip_example_capture.sh MASS_STORAGE: the runner's capture= parameter.
# A path that cannot be created fails the start, naming it and the
# reason; capture=DIR writes DIR/usbip-1-1.pcap, a pcap file of
# LINKTYPE_USB_LINUX_MMAPPED (220) that is complete once the example has
# stopped on SIGTERM (its URBs are checked by test_usbip_msf and the
# linux-host case msf_capture). No usbip tool needed.
set -eu
bin=$1
dir=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$dir"' EXIT
cd "$dir"
fails=0

rc=0
timeout 20 "$bin" port=0 capture=/nonexistent/dir/x.pcap >out.log 2>&1 || rc=$?
if [ "$rc" -ne 1 ] || ! grep -qF "cannot capture to /nonexistent/dir/x.pcap: ENOENT" out.log; then
	echo "FAIL: capture=/nonexistent/dir/x.pcap: exit $rc:"; cat out.log; fails=$((fails + 1))
else
	echo "ok: $(grep -F 'cannot capture' out.log)"
fi

mkdir cap
"$bin" port=0 capture=cap >run.log 2>&1 &
pid=$!
for _ in $(seq 100); do
	grep -q "serving" run.log && break
	sleep 0.1
done
grep -qF "1-1: capturing to cap/usbip-1-1.pcap" run.log ||
	{ echo "FAIL: no capture line:"; cat run.log; fails=$((fails + 1)); }
kill -TERM "$pid"
wait "$pid" || { echo "FAIL: exit $? after SIGTERM"; fails=$((fails + 1)); }
pid=
# Little-endian pcap magic, version 2.4, linktype 220 (bytes 20..23).
head=$(od -An -tx1 -N24 cap/usbip-1-1.pcap | tr -d ' \n')
case "$head" in
d4c3b2a102000400*dc000000) echo "ok: cap/usbip-1-1.pcap: pcap header, linktype 220" ;;
*) echo "FAIL: cap/usbip-1-1.pcap: header $head"; fails=$((fails + 1)) ;;
esac
[ "$fails" -eq 0 ]
