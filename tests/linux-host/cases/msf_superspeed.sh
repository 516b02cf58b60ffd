#!/bin/sh
# msf_superspeed.sh ours: examples/mass_storage with speed=super, which the
# kernel's vudc cannot offer (it is high-speed only), so there is no
# reference provider.
# Guest: vhci_hcd enumerates a SuperSpeed device on its USB 3 root hub, the
# seed article's log lines follow, usb-storage allows 1 MiB per command
# (2048 sectors, its SuperSpeed limit; 240 at high speed), 4 MiB written and
# read back in 1 MiB O_DIRECT blocks match, then the seed article's disk
# exercise (partition, mkfs.vfat, files), detach, SIGINT, exit 0.
# Host: fsck.fat is clean and mtools reads every file back.
LH_LIB=${LH_LIB:-$(cd "$(dirname "$0")/../lib" && pwd)}
. "$LH_LIB/common.sh"

host_main() {
    [ "$1" = ours ] || lh_fail "usage: msf_superspeed.sh ours"
    h_init "msf_superspeed.$1"
    h_payload
    h_blank_image disk.img 64
    head -c 4194304 /dev/urandom >"$LH_WORK/big.bin"
    h_guest 300 "$1"
    h_check_fat_image "$LH_WORK/disk.img"
}

guest_main() {
    g_stage disk.img
    g_gadget_start ours "file=$GW/disk.img" speed=super
    g_attach
    g_wait_block sda
    lh_log "enumeration (attach -> /dev/sda): $(g_elapsed "$ATTACH_T0") s"
    g_expect_dmesg "new SuperSpeed USB device number" 30
    g_expect_seed_lines
    _kb=$(cat /sys/block/sda/queue/max_hw_sectors_kb)
    [ "$_kb" = 1024 ] || lh_fail "max_hw_sectors_kb is $_kb, expected 1024 (SuperSpeed)"
    lh_log "usb-storage allows $_kb KiB per command (max_sectors_kb $(cat /sys/block/sda/queue/max_sectors_kb), max_segments $(cat /sys/block/sda/queue/max_segments), max_segment_size $(cat /sys/block/sda/queue/max_segment_size))"
    g_write_pattern sda /host/big.bin 8 1024
    g_check_pattern sda /host/big.bin 8 1024
    lh_log "4 MiB in 1 MiB O_DIRECT blocks read back intact"
    g_disk_exercise sda /host/payload
    g_detach
    g_gadget_stop
    g_unstage disk.img
    g_no_hung_tasks
}

lh_main "$@"
