#!/bin/sh
# msf_two_luns.sh PROVIDER: luns=2 file=a.img,b.img (32 and 16 MiB, so the
# two are told apart by size).
# Guest: sda (LUN 0, 65536 sectors) and sdb (LUN 1, 32768 sectors) appear;
# sda gets the partition/mkfs/copy exercise, sdb a raw pattern at 2 MiB read
# back with O_DIRECT; each LUN's data stays on its own LUN.
# Host: a.img passes fsck.fat -n and holds the payload; b.img holds the
# pattern at 2 MiB and zeros before it.
LH_LIB=${LH_LIB:-$(cd "$(dirname "$0")/../lib" && pwd)}
. "$LH_LIB/common.sh"

host_main() {
    h_init "msf_two_luns.$1"
    h_payload
    h_blank_image a.img 32
    h_blank_image b.img 16
    head -c 1048576 /dev/urandom >"$LH_WORK/pattern.bin"
    h_guest 300 "$1"
    h_check_fat_image "$LH_WORK/a.img"
    dd if="$LH_WORK/b.img" bs=1M skip=2 count=1 status=none | cmp - "$LH_WORK/pattern.bin" ||
        lh_fail "b.img does not hold the pattern at 2 MiB"
    [ "$(dd if="$LH_WORK/b.img" bs=1M count=2 status=none | tr -d '\000' | wc -c)" = 0 ] ||
        lh_fail "b.img is not zero before 2 MiB"
    lh_log "b.img holds the pattern"
}

guest_main() {
    g_stage a.img b.img
    g_gadget_start "$1" luns=2 "file=$GW/a.img,$GW/b.img"
    g_attach
    g_wait_block sda
    g_wait_block sdb
    # sd names disks as their probes finish, which is asynchronous: under
    # load LUN 1 can become sda. Map the names by SCSI address instead.
    _d0= _d1=
    for _d in sda sdb; do
        case "$(basename "$(readlink /sys/class/block/$_d/device)")" in
        *:0) _d0=$_d ;;
        *:1) _d1=$_d ;;
        esac
    done
    [ -n "$_d0" ] && [ -n "$_d1" ] ||
        lh_fail "sda/sdb are not SCSI LUN 0 and LUN 1 of one target"
    lh_log "LUN 0: $_d0 ($(g_sectors $_d0) sectors), LUN 1: $_d1 ($(g_sectors $_d1) sectors)"
    [ "$(g_sectors $_d0)" = 65536 ] || lh_fail "LUN 0 is not 32 MiB"
    [ "$(g_sectors $_d1)" = 32768 ] || lh_fail "LUN 1 is not 16 MiB"
    g_write_pattern $_d1 /host/pattern.bin 2
    g_disk_exercise $_d0 /host/payload
    g_check_pattern $_d1 /host/pattern.bin 2
    g_detach
    g_gadget_stop
    g_unstage a.img b.img
    g_no_hung_tasks
}

lh_main "$@"
