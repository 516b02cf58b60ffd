#!/bin/sh
# msf_cdrom.sh PROVIDER: a CD-ROM LUN (cdrom=1) backed by an ISO 9660 image
# made on the host with genisoimage (Rock Ridge + Joliet).
# Guest: the host attaches it as a CD-ROM (sr0), it mounts as iso9660, every
# file reads back byte for byte, and the raw device equals the image.
LH_LIB=${LH_LIB:-$(cd "$(dirname "$0")/../lib" && pwd)}
. "$LH_LIB/common.sh"

host_main() {
    h_init "msf_cdrom.$1"
    h_payload
    genisoimage -quiet -R -J -V LHCD -o "$LH_WORK/cd.iso" "$LH_WORK/payload" ||
        lh_fail "genisoimage"
    h_guest 300 "$1"
}

guest_main() {
    g_stage cd.iso
    g_gadget_start "$1" "file=$GW/cd.iso" cdrom=1
    g_attach
    g_wait_block sr0
    g_expect_dmesg "Attached scsi CD-ROM sr0" 30
    _size=$(stat -c %s "$GW/cd.iso")
    [ "$(g_sectors sr0)" = "$((_size / 512))" ] ||
        lh_fail "sr0 is $(g_sectors sr0) sectors, the ISO $((_size / 512))"
    mkdir -p /mnt/cd
    mount -t iso9660 -o ro /dev/sr0 /mnt/cd || lh_fail "mount -t iso9660 /dev/sr0"
    ls -l /mnt/cd
    g_cmp_dir /host/payload /mnt/cd
    umount /mnt/cd
    timeout 120 "$DD" if=/dev/sr0 of="$GW/raw.iso" bs=2048 iflag=direct status=none ||
        lh_fail "read /dev/sr0"
    cmp "$GW/raw.iso" "$GW/cd.iso" || lh_fail "/dev/sr0 differs from the ISO"
    lh_log "sr0 mounted as iso9660, files and raw image match"
    g_detach
    g_gadget_stop
    g_no_hung_tasks
}

lh_main "$@"
