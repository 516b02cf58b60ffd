#!/bin/sh
# usbip_example_control.sh MASS_STORAGE: the mass_storage example's
# control= FIFO (issue #21, 2) in a scratch directory. An existing path is
# refused and left alone (control= naming the disk image must not delete
# it at exit); control_reuse=1 takes only a FIFO of this user that group
# and others may not write, never through a symlink, and leaves it at
# exit; a new path becomes a FIFO of mode 600 that takes commands and is
# removed at exit. No usbip tool needed.
set -eu
bin=$1
dir=$(mktemp -d)
pid=
cleanup() {
	[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null || true
	rm -rf "$dir"
}
trap cleanup EXIT
cd "$dir"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# run ARGS...: start the example, wait until it serves its FIFO or exits,
# then SIGTERM it if still running. $rc: its exit status; out.log: output.
run() {
	: >out.log
	"$bin" port=0 file=disk.img "$@" >out.log 2>&1 &
	pid=$!
	for _ in $(seq 1 100); do
		grep -q "media: echo" out.log && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	if [ -n "${SEND:-}" ]; then
		# timeout: a writer of a FIFO nobody reads would wait forever
		timeout 5 sh -c 'echo "$1" >"$2"' sh "$SEND" "$FIFO" || true
		for _ in $(seq 1 100); do
			grep -q "lun0: medium ejected" out.log && break
			sleep 0.05
		done
	fi
	kill -TERM "$pid" 2>/dev/null || true
	rc=0
	wait "$pid" || rc=$?
	pid=
}

# expect_refused WHAT: nonzero exit and a "refused" line.
expect_refused() {
	[ "$rc" -ne 0 ] || fail "$1: accepted (exit $rc)"
	grep -q "refused" out.log || fail "$1: no refusal message"
}

dd if=/dev/zero of=disk.img bs=1024 count=1024 2>/dev/null
sum=$(cksum <disk.img)

# 1. control= naming the disk image: refused, the image intact.
run control=disk.img
cat out.log
expect_refused "control=disk.img"
[ -f disk.img ] && [ "$(cksum <disk.img)" = "$sum" ] || fail "disk.img deleted or changed"
run control=disk.img control_reuse=1
expect_refused "control=disk.img control_reuse=1"
[ -f disk.img ] || fail "disk.img deleted with control_reuse=1"

# 2. An existing FIFO without control_reuse=1: refused, left.
mkfifo old.fifo
run control=old.fifo
expect_refused "existing FIFO without control_reuse"
[ -p old.fifo ] || fail "old.fifo removed"

# 3. control_reuse=1 with a FIFO group or others may write: refused.
chmod 622 old.fifo
run control=old.fifo control_reuse=1
expect_refused "FIFO of mode 622"
[ -p old.fifo ] || fail "old.fifo (622) removed"
chmod 600 old.fifo

# 4. control_reuse=1 through a symlink: refused, both left.
ln -s old.fifo link.fifo
run control=link.fifo control_reuse=1
expect_refused "symlink to a FIFO"
[ -L link.fifo ] && [ -p old.fifo ] || fail "symlink or its FIFO removed"

# 5. Someone else's FIFO (as root: one given to nobody): refused.
if [ "$(id -u)" -eq 0 ]; then
	mkfifo other.fifo
	chmod 600 other.fifo
	chown 65534 other.fifo
	run control=other.fifo control_reuse=1
	expect_refused "FIFO of another user"
	[ -p other.fifo ] || fail "other.fifo removed"
fi

# 6. A new path: a FIFO of mode 600 that works, removed at exit.
FIFO=new.fifo SEND="lun0.file=" run control=new.fifo
cat out.log
[ "$rc" -eq 0 ] || fail "control=new.fifo: exit $rc"
grep -q "lun0: medium ejected" out.log || fail "control=new.fifo: command not taken"
[ -e new.fifo ] && fail "new.fifo left behind"

# 7. control_reuse=1 with our own FIFO of mode 600: works, left at exit.
FIFO=old.fifo SEND="lun0.file=" run control=old.fifo control_reuse=1
[ "$rc" -eq 0 ] || fail "control_reuse=1 with an own FIFO: exit $rc"
grep -q "lun0: medium ejected" out.log || fail "reused FIFO: command not taken"
[ -p old.fifo ] || fail "reused old.fifo removed at exit"

# Mode of a FIFO made by the example (looked at while it runs).
: >out.log
"$bin" port=0 file=disk.img control=mode.fifo >out.log 2>&1 &
pid=$!
for _ in $(seq 1 100); do
	grep -q "media: echo" out.log && break
	sleep 0.05
done
[ "$(stat -c %a mode.fifo 2>/dev/null)" = 600 ] || fail "mode.fifo is not a FIFO of mode 600"
kill -TERM "$pid"
wait "$pid" || true
pid=

[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "PASS"
