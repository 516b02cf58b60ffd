#!/bin/sh
# usbip_example_bad_file.sh MASS_STORAGE: file= naming something that
# cannot serve (a missing file, a directory, an empty file) fails the
# start, and the output names the file and the reason, not only
# "bind failed: ENOENT/EINVAL" (issue #15). No usbip tool needed.
set -eu
bin=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
fails=0

# expect FILE REASON: the example refuses FILE, saying FILE: ... REASON.
expect() {
	rc=0
	timeout 20 "$bin" port=0 file="$1" >out.log 2>&1 || rc=$?
	if [ "$rc" -eq 0 ] || [ "$rc" -eq 124 ]; then
		echo "FAIL: file=$1: exit $rc (want a failed start)"; fails=$((fails + 1))
	elif ! grep -F "$1: " out.log | grep -qF "$2"; then
		echo "FAIL: file=$1: no line naming it with '$2':"; cat out.log
		fails=$((fails + 1))
	else
		echo "ok: file=$1: $(grep -F "$1: " out.log | head -n 1)"
	fi
}

mkdir adir
: >empty.img
expect /nonexistent/x.img "No such file or directory"
expect adir "not a regular file or block device"
expect empty.img "0 bytes, less than one 512-byte block"
[ "$fails" -eq 0 ]
