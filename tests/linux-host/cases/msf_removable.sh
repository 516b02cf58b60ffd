#!/bin/sh
# msf_removable.sh PROVIDER: a removable LUN with no medium, then a medium
# inserted while attached.
# Guest: the host attaches a removable disk with no medium (size 0, reads fail
# with "No medium found"); after insert_medium the host sees the medium
# (131072 sectors), the image's content reads back, and a write goes through.
# Host: the write landed in the image.
#
# The insertion step is provider specific: the kernel's gadget takes a file
# name in configfs; examples/mass_storage reads "lun0.file=PATH" from its
# control= FIFO (fsg_common_set_lun_file()).
LH_LIB=${LH_LIB:-$(cd "$(dirname "$0")/../lib" && pwd)}
. "$LH_LIB/common.sh"

host_main() {
    h_init "msf_removable.$1"
    h_blank_image medium.img 64
    head -c 1048576 /dev/urandom >"$LH_WORK/content.bin"
    dd if="$LH_WORK/content.bin" of="$LH_WORK/medium.img" conv=notrunc status=none
    head -c 1048576 /dev/urandom >"$LH_WORK/written.bin"
    h_guest 300 "$1"
    dd if="$LH_WORK/medium.img" bs=1M skip=8 count=1 status=none |
        cmp - "$LH_WORK/written.bin" || lh_fail "the host's write is not in medium.img"
    lh_log "medium.img holds the host's write"
}

# ---------------------------------------------------------------------------
# insert_medium PROVIDER FILE: put FILE into LUN 0 while attached.
MSF_CONTROL=/tmp/msf.control
insert_medium() {
    case "$1" in
    vudc|dummy)
        echo "$2" >"$KGADGET/functions/mass_storage.0/lun.0/file" ||
            lh_fail "configfs: insert $2" ;;
    ours)
        echo "lun0.file=$2" >"$MSF_CONTROL" || lh_fail "control FIFO: insert $2"
        g_wait 10 "mass_storage to report the insertion" \
            grep -F -q "lun0: medium $2 inserted" "$OURS_LOG" ;;
    esac
}

# no_medium_args PROVIDER: the gadget's arguments for a LUN without medium.
no_medium_args() {
    case "$1" in
    ours) mkdir -p /tmp; echo "file= removable=1 control=$MSF_CONTROL" ;;
    *) echo "removable=1" ;;
    esac
}
# ---------------------------------------------------------------------------

has_medium() { [ "$(g_sectors sda)" = 131072 ]; }

# poke_sda: open and read sda, as a user would; the open makes sd check for
# a media change.
poke_sda() { "$DD" if=/dev/sda of=/dev/null bs=512 count=1 iflag=direct status=none; }

guest_main() {
    g_stage medium.img
    # shellcheck disable=SC2046
    g_gadget_start "$1" $(no_medium_args "$1")
    g_attach
    g_wait_block sda
    g_expect_dmesg "Attached SCSI removable disk" 30
    [ "$(g_sectors sda)" = 0 ] || lh_fail "no medium, yet sda has $(g_sectors sda) sectors"
    if poke_sda 2>"$GW/err"; then lh_fail "read without a medium succeeded"; fi
    cat "$GW/err"
    grep -q "No medium found" "$GW/err" || lh_fail "read without a medium: not ENOMEDIUM"
    lh_log "no medium: size 0, reads fail with ENOMEDIUM"

    insert_medium "$1" "$GW/medium.img"
    g_wait 30 "the host to see the medium" sh -c \
        "$DD if=/dev/sda of=/dev/null bs=512 count=1 iflag=direct status=none; \
         [ \$(cat /sys/class/block/sda/size) = 131072 ]"
    lh_log "medium inserted: sda has $(g_sectors sda) sectors"
    g_check_pattern sda /host/content.bin 0
    g_write_pattern sda /host/written.bin 8
    g_check_pattern sda /host/written.bin 8
    g_detach
    g_gadget_stop
    g_unstage medium.img
    g_no_hung_tasks
}

lh_main "$@"
