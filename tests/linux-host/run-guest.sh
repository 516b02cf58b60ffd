#!/bin/bash
# run-guest.sh [options] SHAREDIR SCRIPT [ARG...]
#
# Boots the installed Debian kernel under qemu (TCG, no network, serial
# console) with the linux-host initramfs, shares SHAREDIR with the guest over
# 9p (mount tag "host", mounted on /host), runs `sh SCRIPT ARG...` inside with
# /host as its working directory, and exits with that script's exit status.
#
# Options:
#   --initramfs FILE  image from build-initramfs.sh (default: $LH_INITRAMFS,
#                     else built/cached in $LH_CACHE, default
#                     ${XDG_CACHE_HOME:-$HOME/.cache}/composite-linux-host)
#   --kernel FILE     default: $LH_KERNEL, else the newest /boot/vmlinuz-*
#   --timeout SECS    guest script limit (default $LH_TIMEOUT or 300); qemu
#                     itself is killed LH_BOOT_MARGIN (default 120) s later
#   --log FILE        console log (default SHAREDIR/console.log)
#   --bin FILE        copy FILE and the libraries ldd lists for it into
#                     SHAREDIR/.lh/bin and .lh/lib (on the guest's PATH and
#                     LD_LIBRARY_PATH); repeatable
#   --mem MIB         guest memory (default $LH_MEM or 1024)
#   --smp N           guest CPUs (default $LH_SMP or 1)
#   --quiet           do not copy the console to stdout
#
# Diagnostics (environment): LH_APPEND adds to the kernel command line
# (e.g. "nokaslr loglevel=7"); LH_QEMU_ARGS adds qemu options, split at
# spaces (e.g. "-monitor unix:/tmp/m.sock,server,nowait" to read a stuck
# guest's registers with `info registers`).
#
# The script and tests/linux-host/lib/*.sh are copied to SHAREDIR/.lh (the
# guest sources the libraries from $LH_LIB=/host/.lh/sh). Exit status: the
# script's; 124 when the guest script or qemu ran out of time; 125 when the
# guest never reported (boot failure, panic, qemu error), with the console
# log's path and tail on stderr. The guest's dmesg lands in
# SHAREDIR/.lh/dmesg.txt, the boot-to-shell time in SHAREDIR/.lh/boot_s.
set -uo pipefail

here=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
initramfs=${LH_INITRAMFS:-}
kernel=${LH_KERNEL:-}
timeout=${LH_TIMEOUT:-300}
margin=${LH_BOOT_MARGIN:-120}
mem=${LH_MEM:-1024}
smp=${LH_SMP:-1}
log=
quiet=0
bins=()

usage() { sed -n '2,30s/^# \{0,1\}//p' "$0" >&2; exit 125; }
die() { echo "run-guest: $*" >&2; exit 125; }

while [ $# -gt 0 ]; do
    case "$1" in
    --initramfs) initramfs=$2; shift 2 ;;
    --kernel) kernel=$2; shift 2 ;;
    --timeout) timeout=$2; shift 2 ;;
    --log) log=$2; shift 2 ;;
    --bin) bins+=("$2"); shift 2 ;;
    --mem) mem=$2; shift 2 ;;
    --smp) smp=$2; shift 2 ;;
    --quiet) quiet=1; shift ;;
    -h|--help) usage ;;
    --) shift; break ;;
    -*) die "unknown option $1" ;;
    *) break ;;
    esac
done
[ $# -ge 2 ] || usage
share=$1
script=$2
shift 2
[ -d "$share" ] || die "no share directory $share"
[ -f "$script" ] || die "no guest script $script"
share=$(cd "$share" && pwd)
log=${log:-$share/console.log}

command -v qemu-system-x86_64 >/dev/null ||
    die "qemu-system-x86_64 missing (apt-get install qemu-system-x86)"
if [ -z "$kernel" ]; then
    kernel=$(ls -1 /boot/vmlinuz-* 2>/dev/null | sort -V | tail -n 1)
    [ -n "$kernel" ] || die "no /boot/vmlinuz-* (apt-get install linux-image-amd64)"
fi
[ -r "$kernel" ] || die "cannot read kernel $kernel"
if [ -z "$initramfs" ]; then
    cache=${LH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/composite-linux-host}
    initramfs=$(LH_KVER=${kernel#*/vmlinuz-} "$here/build-initramfs.sh" "$cache") ||
        die "building the initramfs failed"
fi
[ -r "$initramfs" ] || die "cannot read initramfs $initramfs"

# The control folder the guest's /init reads (cmd) and writes (rc, dmesg).
ctl=$share/.lh
rm -rf "$ctl"
mkdir -p "$ctl/sh" || die "cannot create $ctl"
cp "$script" "$ctl/script.sh"
cp "$here"/lib/*.sh "$ctl/sh/"

copy_lib() {
    local lib
    for lib in $(ldd "$1" 2>/dev/null |
        sed -n 's/.*=> \(\/[^ ]*\) .*/\1/p'); do
        [ -e "$ctl/lib/$(basename "$lib")" ] || cp -L "$lib" "$ctl/lib/"
    done
}
for b in "${bins[@]}"; do
    [ -x "$b" ] || die "--bin $b: not an executable"
    mkdir -p "$ctl/bin" "$ctl/lib"
    cp -L "$b" "$ctl/bin/"
    copy_lib "$b"
done

# POSIX-sh quoting for the guest's busybox sh.
squote() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }
{
    echo "export LH_LIB=/host/.lh/sh"
    printf 'exec sh /host/.lh/script.sh'
    for a in "$@"; do printf ' %s' "$(squote "$a")"; done
    echo
} >"$ctl/cmd"

: >"$log" || die "cannot write $log"
start=$EPOCHREALTIME
# stdin from /dev/null: qemu must not put a terminal into raw mode.
timeout -k 10 "$((timeout + margin))" \
    qemu-system-x86_64 -accel tcg -m "$mem" -smp "$smp" \
    -nographic -no-reboot -nic none \
    -kernel "$kernel" -initrd "$initramfs" \
    -append "console=ttyS0 quiet panic=-1 lh.timeout=$timeout ${LH_APPEND:-}" \
    -fsdev "local,id=h,path=$share,security_model=none" \
    -device virtio-9p-pci,fsdev=h,mount_tag=host ${LH_QEMU_ARGS:-} \
    </dev/null 2>&1 |
    while IFS= read -r line || [ -n "$line" ]; do
        line=${line%$'\r'}
        printf '%s\n' "$line" >>"$log"
        [ "$quiet" = 1 ] || printf '%s\n' "$line"
        case "$line" in
        *LH-GUEST-READY*)
            awk -v a="$start" -v b="$EPOCHREALTIME" \
                'BEGIN { printf "%.2f\n", b - a }' >"$ctl/boot_s" ;;
        esac
    done
qrc=${PIPESTATUS[0]}

tail_log() { echo "run-guest: console log: $log" >&2; tail -n 40 "$log" >&2; }
if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
    echo "run-guest: qemu killed after $((timeout + margin)) s (guest stuck)" >&2
    tail_log
    exit 124
fi
rc=$(cat "$ctl/rc" 2>/dev/null)
marker=$(sed -n 's/.*LH-GUEST-EXIT=\([0-9]*\).*/\1/p' "$log" | tail -n 1)
if [ -z "$rc" ]; then rc=$marker; fi
if [ -z "$rc" ]; then
    grep -q 'Kernel panic' "$log" && echo "run-guest: guest kernel panic" >&2
    echo "run-guest: guest did not report an exit status (qemu rc $qrc)" >&2
    tail_log
    exit 125
fi
if grep -q 'LH-GUEST-ERROR' "$log"; then
    echo "run-guest: guest setup failed" >&2
    tail_log
    exit 125
fi
if [ "$rc" = 124 ]; then
    echo "run-guest: guest script timed out after $timeout s" >&2
    tail_log
fi
exit "$rc"
