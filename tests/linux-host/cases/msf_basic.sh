#!/bin/sh
# msf_basic.sh PROVIDER: a 64 MiB mass storage disk used as the seed article
# uses it. PROVIDER: ours (examples/mass_storage over USB/IP, no file= so it
# creates disk.img itself), gfs (the same on gadgetfs + dummy_hcd), vudc or
# dummy (the kernel's usb_f_mass_storage, as a
# reference and a self-test of this harness).
# Guest: attach, the three seed log lines, one partition, mkfs.vfat, copy
# files, remount and compare, detach, stop the gadget (ours: SIGINT, exit 0).
# Host: the image is 64 MiB, fsck.fat -n is clean, mtools reads every file
# back byte for byte.
LH_LIB=${LH_LIB:-$(cd "$(dirname "$0")/../lib" && pwd)}
. "$LH_LIB/common.sh"

host_main() {
    h_init "msf_basic.$1"
    h_payload
    case $1 in ours|gfs) ;; *) h_blank_image disk.img 64 ;; esac
    h_guest 600 "$1"
    [ "$(stat -c %s "$LH_WORK/disk.img")" = 67108864 ] ||
        lh_fail "disk.img is not 64 MiB"
    h_check_fat_image "$LH_WORK/disk.img"
}

guest_main() {
    if [ "$1" = ours ] || [ "$1" = gfs ]; then
        g_gadget_start "$1"
    else
        g_stage disk.img
        g_gadget_start "$1" "file=$GW/disk.img"
    fi
    g_attach
    g_wait_block sda
    lh_log "enumeration (attach -> /dev/sda): $(g_elapsed "$ATTACH_T0") s"
    g_expect_seed_lines
    g_disk_exercise sda /host/payload
    g_detach
    g_gadget_stop
    [ -f "$GW/disk.img" ] || lh_fail "no $GW/disk.img"
    g_unstage disk.img
    g_no_hung_tasks
}

lh_main "$@"
