#!/bin/sh
# /init of the linux-host initramfs (copied there by build-initramfs.sh).
#
# Mounts the pseudo file systems and the host share (9p, mount tag "host") on
# /host, runs /host/.lh/cmd (written by run-guest.sh) with its output on the
# console, and hands its exit status back twice: in /host/.lh/rc and as the
# console line "LH-GUEST-EXIT=<rc>". A guest-side watchdog (lh.timeout=SECS on
# the kernel command line) ends a stuck run with status 124 and a dmesg dump;
# run-guest.sh's own timeout is the backstop for a guest too stuck for that.
# Then it powers off. Touches only the guest and /host/.lh.
export PATH=/usr/bin:/usr/sbin
export HOME=/root

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm
mount -t tmpfs tmpfs /dev/shm
# Pseudo-terminals (multi's serial port bridge): devtmpfs's /dev/ptmx
# opens the instance mounted at /dev/pts next to it.
mount -t devpts devpts /dev/pts
mount -t tmpfs -o size=60% tmpfs /tmp
echo /usr/bin/modprobe >/proc/sys/kernel/modprobe

fail() {
    echo "LH-GUEST-ERROR $*"
    echo "LH-GUEST-EXIT=125"
    poweroff -f
    sleep 10
}

[ "$(uname -r)" = "$(cat /etc/lh-kernel)" ] ||
    fail "initramfs built for $(cat /etc/lh-kernel), booted $(uname -r)"

for m in virtio_pci 9pnet_virtio 9p; do
    modprobe "$m" || fail "modprobe $m"
done
mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 host /host ||
    fail "mount of the 9p share failed"
[ -f /host/.lh/cmd ] || fail "no /host/.lh/cmd on the share"
ip link set lo up || fail "ip link set lo up"

timeout=0
for arg in $(cat /proc/cmdline); do
    case "$arg" in
    lh.timeout=*) timeout=${arg#lh.timeout=} ;;
    esac
done

export LH_IN_GUEST=1
export LH_SHARE=/host
export LH_CTL=/host/.lh
if [ -d /host/.lh/bin ]; then
    export PATH=/host/.lh/bin:$PATH
fi
if [ -d /host/.lh/lib ]; then
    export LD_LIBRARY_PATH=/host/.lh/lib
fi
rm -f /host/.lh/rc /host/.lh/dmesg.txt

echo "LH-GUEST-READY uptime=$(cut -d' ' -f1 /proc/uptime)"
cd /host || fail "cd /host"
sh /host/.lh/cmd </dev/null &
pid=$!
if [ "$timeout" -gt 0 ] 2>/dev/null; then
    (
        sleep "$timeout"
        echo "LH-GUEST-TIMEOUT: guest script still running after ${timeout}s"
        ps | grep -v " \\["
        dmesg >/host/.lh/dmesg.txt
        echo 124 >/host/.lh/rc
        sync
        echo "LH-GUEST-EXIT=124"
        poweroff -f
    ) &
fi
wait "$pid"
rc=$?
dmesg >/host/.lh/dmesg.txt
echo "$rc" >/host/.lh/rc
sync
echo "LH-GUEST-EXIT=$rc"
poweroff -f
sleep 10
