#!/bin/sh
# msf_readonly.sh PROVIDER: a read-only LUN (ro=1) holding a FAT volume.
# Guest: the host reports "Write Protect is on" and a read-only disk, the
# files read back right, a write through the block layer is refused, and a
# raw SCSI WRITE(10) sent past the block layer (sg_raw) fails with a CHECK
# CONDITION / DATA PROTECT from the device itself.
# Host: the image is bit-for-bit unchanged.
LH_LIB=${LH_LIB:-$(cd "$(dirname "$0")/../lib" && pwd)}
. "$LH_LIB/common.sh"

host_main() {
    h_init "msf_readonly.$1"
    h_payload
    h_ro_payload_image
    h_guest 300 "$1"
    h_ro_unchanged
}

guest_main() {
    g_stage ro.img
    g_gadget_start "$1" "file=$GW/ro.img" ro=1
    g_attach
    g_wait_block sda
    g_expect_dmesg "[sda] Write Protect is " 30
    g_dmesg_has "[sda] Write Protect is on" || lh_fail "the host reports Write Protect off"
    [ "$(cat /sys/class/block/sda/ro)" = 1 ] || lh_fail "sda is not read-only"
    [ "$(blockdev --getro /dev/sda)" = 1 ] || lh_fail "blockdev --getro /dev/sda != 1"
    [ "$(g_sectors sda)" = 65536 ] || lh_fail "sda is $(g_sectors sda) sectors, not 65536"

    mkdir -p /mnt/ro
    mount -t vfat -o ro,iocharset=ascii /dev/sda /mnt/ro || lh_fail "mount -o ro"
    g_cmp_dir /host/payload /mnt/ro
    if touch /mnt/ro/new 2>/dev/null; then lh_fail "created a file on a ro mount"; fi
    umount /mnt/ro

    if "$DD" if=/dev/zero of=/dev/sda bs=4096 count=1 oflag=direct status=none 2>/dev/null; then
        lh_fail "a write to the read-only /dev/sda succeeded"
    fi
    lh_log "block-layer write refused"
    # WRITE(10) of one block at LBA 0, straight to the device.
    head -c 512 /dev/urandom >"$GW/block"
    sg_raw -s 512 -i "$GW/block" /dev/sg0 2a 00 00 00 00 00 00 00 01 00 \
        >"$GW/sg.out" 2>&1
    _rc=$?
    cat "$GW/sg.out"
    [ "$_rc" != 0 ] || lh_fail "sg_raw WRITE(10) to a read-only LUN succeeded"
    grep -q -i "data protect" "$GW/sg.out" ||
        lh_fail "WRITE(10) failed, but not with DATA PROTECT"
    lh_log "device refused WRITE(10) with DATA PROTECT"

    g_detach
    g_gadget_stop
    g_unstage ro.img
    g_no_hung_tasks
}

lh_main "$@"
