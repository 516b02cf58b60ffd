#!/bin/sh
# msf_reattach.sh PROVIDER: detach and re-attach without restarting the
# gadget, three times.
# Guest: pattern A written on the first attach reads back on the second,
# pattern B written on the second reads back on the third; the gadget stays
# up across detaches (ours: still running, exits 0 on SIGINT at the end);
# the host enumerated the device three times.
# Host: the image holds A at 0 MiB and B at 4 MiB.
LH_LIB=${LH_LIB:-$(cd "$(dirname "$0")/../lib" && pwd)}
. "$LH_LIB/common.sh"

host_main() {
    h_init "msf_reattach.$1"
    h_blank_image disk.img 64
    head -c 1048576 /dev/urandom >"$LH_WORK/a.bin"
    head -c 1048576 /dev/urandom >"$LH_WORK/b.bin"
    h_guest 300 "$1"
    dd if="$LH_WORK/disk.img" bs=1M count=1 status=none | cmp - "$LH_WORK/a.bin" ||
        lh_fail "disk.img lacks pattern A"
    dd if="$LH_WORK/disk.img" bs=1M skip=4 count=1 status=none | cmp - "$LH_WORK/b.bin" ||
        lh_fail "disk.img lacks pattern B"
    lh_log "disk.img holds both patterns"
}

# attach_once N: attach, wait for sda, check the host counted N devices.
attach_once() {
    g_attach
    g_wait_block sda
    lh_log "attach $1: sda after $(g_elapsed "$ATTACH_T0") s"
    _n=$(dmesg | grep -c "New USB device found, idVendor=0525, idProduct=a4a5")
    [ "$_n" = "$1" ] || lh_fail "host saw $_n enumerations, expected $1"
}

guest_main() {
    g_stage disk.img
    g_gadget_start "$1" "file=$GW/disk.img"
    attach_once 1
    g_write_pattern sda /host/a.bin 0
    g_detach
    if [ "$1" = ours ]; then
        g_proc_alive "$OURS_PID" || lh_fail "mass_storage exited on detach"
    fi
    attach_once 2
    g_check_pattern sda /host/a.bin 0
    g_write_pattern sda /host/b.bin 4
    g_detach
    attach_once 3
    g_check_pattern sda /host/a.bin 0
    g_check_pattern sda /host/b.bin 4
    g_detach
    g_gadget_stop
    g_unstage disk.img
    g_no_hung_tasks
}

lh_main "$@"
