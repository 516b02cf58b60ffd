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
# Ours also captures every URB (capture=, from the first one) to
# msf_basic.pcap, which the host reads with tshark after the guest exits:
# the INQUIRY reply's vendor, READ(10) and WRITE(10) with their LBAs (the
# partition table at 0, the boot sector at 2048), a CSW for every CBW, all
# Good or Check Condition, and a payload file's bytes in the Data Out.
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
    [ "$1" = ours ] && h_check_capture "$LH_WORK/msf_basic.pcap"
    return 0
}

# h_check_capture PCAP: what Wireshark's dissectors find in our capture of
# the sequence above, as in a capture of usbmon on the host.
h_check_capture() {
    command -v tshark >/dev/null || lh_fail "tshark missing (scripts/deps.sh)"
    [ -s "$1" ] || lh_fail "no capture $1"
    _f=$LH_WORK/capture.fields
    tshark -r "$1" -T fields -E separator=/t -e usb.urb_type -e scsi.inquiry.vendor_id \
        -e scsi_sbc.opcode -e scsi_sbc.rdwr10.lba -e usbms.dCBWSignature \
        -e usbms.dCSWStatus >"$_f" 2>"$LH_WORK/tshark.err" ||
        { cat "$LH_WORK/tshark.err" >&2; lh_fail "tshark cannot read $1"; }
    lh_log "capture: $(wc -l <"$_f") records, $(stat -c %s "$1") bytes"
    _vendor=$(awk -F'\t' '$2 != "" { print $2; exit }' "$_f")
    [ "$(echo $_vendor)" = Linux ] || lh_fail "capture: INQUIRY vendor '$_vendor', not Linux"
    _reads=$(awk -F'\t' '$3 == "0x28" && $4 != ""' "$_f" | wc -l)
    _writes=$(awk -F'\t' '$3 == "0x2a" && $4 != ""' "$_f" | wc -l)
    awk -F'\t' '$3 == "0x28" && $4 == "0" { f = 1 } END { exit !f }' "$_f" ||
        lh_fail "capture: no READ(10) of LBA 0 (the partition table)"
    awk -F'\t' '$3 == "0x2a" && $4 == "2048" { f = 1 } END { exit !f }' "$_f" ||
        lh_fail "capture: no WRITE(10) of LBA 2048 (the boot sector)"
    _cbws=$(awk -F'\t' '$5 != ""' "$_f" | wc -l)
    _csws=$(awk -F'\t' '$6 != ""' "$_f" | wc -l)
    # tshark prints the status in hex: 0x00 Good, 0x01 Check Condition.
    _bad=$(awk -F'\t' '$6 != "" && $6 != "0x00" && $6 != "0x01"' "$_f" | wc -l)
    _good=$(awk -F'\t' '$6 == "0x00"' "$_f" | wc -l)
    lh_log "capture: vendor $_vendor, READ(10) $_reads, WRITE(10) $_writes, CBW $_cbws, CSW $_csws ($_good Good)"
    [ "$_cbws" -gt 0 ] && [ "$_cbws" = "$_csws" ] ||
        lh_fail "capture: $_cbws CBWs but $_csws CSWs"
    [ "$_bad" = 0 ] || lh_fail "capture: $_bad CSWs neither Good nor Check Condition"
    [ "$_good" -gt "$((_csws / 2))" ] || lh_fail "capture: only $_good of $_csws CSWs Good"
    grep -a -q "hello from the linux-host test" "$1" ||
        lh_fail "capture: HELLO.TXT's bytes are in no Data Out"
}

guest_main() {
    if [ "$1" = ours ]; then
        g_gadget_start ours capture=msf_basic.pcap
    elif [ "$1" = gfs ]; then
        g_gadget_start gfs
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
    [ "$1" = ours ] && g_unstage msf_basic.pcap
    g_no_hung_tasks
}

lh_main "$@"
