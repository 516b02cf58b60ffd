#!/bin/sh
# os_desc.sh ours: examples/gadget_zero winusb=1 landing_page=URL against
# the guest's USB stack. lsusb -v decodes what it knows: bcdUSB 2.01, the
# BOS with the MS OS 2.0 and WebUSB platform capabilities (their UUIDs),
# WebUSB's version, vendor code and landing page (lsusb fetches the URL
# descriptor itself). What no Linux tool asks, the case asks through usbfs
# (tools/usb_ctrl): string 0xEE with LANGID 0 ("MSFT100", the vendor code),
# the extended compat ID ("WINUSB" for interface 0), the extended
# properties (DeviceInterfaceGUIDs), and the MS OS 2.0 set, whose length
# must be what the BOS capability announced. Then detach, SIGINT, exit 0.
LH_LIB=${LH_LIB:-$(cd "$(dirname "$0")/../lib" && pwd)}
. "$LH_LIB/common.sh"

URL=https://example.com/gadget-zero
GUID="{4a1d62c5-8b3e-4f70-9e21-6d0c5b7a3f18}"
MS_CODE=1
WEB_CODE=2

host_main() {
    h_init "os_desc.$1"
    [ -x "${LH_USB_CTRL:-}" ] || lh_fail "LH_USB_CTRL names no executable"
    H_OURS_BIN=$LH_GADGET_ZERO H_BINS=$LH_USB_CTRL h_guest 200 "$1"
}

# g_zero_node: /dev/bus/usb/BBB/DDD of the attached 0525:a4a0, or nothing.
g_zero_node() {
    for _d in /sys/bus/usb/devices/*; do
        [ "$(cat "$_d/idVendor" 2>/dev/null)" = 0525 ] &&
            [ "$(cat "$_d/idProduct" 2>/dev/null)" = a4a0 ] || continue
        _n=$(printf '/dev/bus/usb/%03d/%03d' "$(cat "$_d/busnum")" "$(cat "$_d/devnum")")
        [ -c "$_n" ] && echo "$_n" && return 0
    done
    return 1
}

# g_ctrl TYPE REQ VALUE INDEX LENGTH: the reply's hex bytes.
g_ctrl() { lh_usb_ctrl "$NODE" "$@" || lh_fail "control $* failed"; }

# hex16 TEXT: TEXT (ASCII) as UTF-16LE hex bytes, as usb_ctrl prints them.
hex16() { printf '%s' "$1" | od -A n -t x1 -v | tr -s ' \n' ' ' | sed 's/^ //; s/ $//; s/ / 00 /g; s/$/ 00/'; }

# byte HEX N: byte N (0-based) of a usb_ctrl line, as a number.
byte() { echo $((0x$(echo "$1" | cut -d' ' -f$(($2 + 1))))); }
le16_at() { echo $(( $(byte "$1" "$2") + 256 * $(byte "$1" $(($2 + 1))) )); }
count() { echo "$1" | wc -w; }

g_lsusb() {
    lsusb -v -d 0525:a4a0 >"$GW/lsusb.txt" 2>&1
    cp "$GW/lsusb.txt" /host/ 2>/dev/null
    for _want in "bcdUSB +2\.01" "Binary Object Store Descriptor:" \
            "Platform Device Capability:" "\{d8dd60df-4589-4cc7-9cd2-659d9e648a9f\}" \
            "\{3408b638-09a9-47a0-8bfd-a0768815b665\}" "WebUSB:" "bcdVersion +1\.00" \
            "bVendorCode +$WEB_CODE\$" "iLandingPage +1 $URL"; do
        grep -i -E -q -- "$_want" "$GW/lsusb.txt" ||
            { cat "$GW/lsusb.txt"; lh_fail "lsusb -v shows no /$_want/"; }
    done
    [ "$(grep -c 'Platform Device Capability:' "$GW/lsusb.txt")" = 2 ] ||
        lh_fail "lsusb -v shows not two platform capabilities"
    lh_log "lsusb -v decodes bcdUSB 2.01, MS OS 2.0 and WebUSB capabilities, landing page $URL"
}

g_ms_os_10() {
    _s=$(g_ctrl 0x80 6 0x03ee 0 255)
    [ "$_s" = "12 03 $(hex16 MSFT100) 01 00" ] || lh_fail "string 0xEE: $_s"
    _h=$(g_ctrl 0xc0 $MS_CODE 0 4 16)
    _len=$(le16_at "$_h" 0)
    _c=$(g_ctrl 0xc0 $MS_CODE 0 4 "$_len")
    [ "$(count "$_c")" = "$_len" ] && [ "$_len" = 40 ] || lh_fail "extended compat ID: $_c"
    case "$_c" in
    *"00 01 57 49 4e 55 53 42 00 00"*) ;;
    *) lh_fail "extended compat ID without WINUSB for interface 0: $_c" ;;
    esac
    _h=$(g_ctrl 0xc1 $MS_CODE 0 5 10)
    _len=$(le16_at "$_h" 0)
    _p=$(g_ctrl 0xc1 $MS_CODE 0 5 "$_len")
    [ "$(count "$_p")" = "$_len" ] && [ "$(byte "$_p" 8)" = 1 ] ||
        lh_fail "extended properties: $_p"
    case "$_p" in
    *"$(hex16 DeviceInterfaceGUIDs) 00 00"*"$(hex16 "$GUID") 00 00 00 00"*) ;;
    *) lh_fail "extended properties without DeviceInterfaceGUIDs $GUID: $_p" ;;
    esac
    lh_log "MS OS 1.0: string 0xEE MSFT100/code $MS_CODE, compat ID WINUSB, $_len-byte properties"
}

g_ms_os_20() {
    _bos=$(g_ctrl 0x80 6 0x0f00 0 255)
    # USB 2.0 extension (7 bytes) after the 5-byte header, then MS OS 2.0's
    # 28-byte capability: wMSOSDescriptorSetTotalLength at its byte 24.
    [ "$(byte "$_bos" 12)" = 28 ] || lh_fail "BOS: no MS OS 2.0 capability first: $_bos"
    _want=$(le16_at "$_bos" 36)
    [ "$(byte "$_bos" 38)" = $MS_CODE ] || lh_fail "BOS: MS OS 2.0 vendor code: $_bos"
    _set=$(g_ctrl 0xc0 $MS_CODE 0 7 "$_want")
    [ "$(count "$_set")" = "$_want" ] && [ "$(le16_at "$_set" 8)" = "$_want" ] ||
        lh_fail "MS OS 2.0 set of $(count "$_set") bytes, BOS says $_want: $_set"
    case "$_set" in
    "0a 00 00 00 00 00 03 06 "*"14 00 03 00 57 49 4e 55 53 42 00 00"*) ;;
    *) lh_fail "MS OS 2.0 set without its header or WINUSB: $_set" ;;
    esac
    lh_log "MS OS 2.0: $_want-byte set as the BOS announced, WINUSB"
}

guest_main() {
    g_host_modules
    g_ours_start gadget_zero winusb=1 "landing_page=$URL"
    BUSID=1-1
    g_attach
    g_wait 30 "0525:a4a0 in /dev/bus/usb" g_zero_node
    NODE=$(g_zero_node)
    g_lsusb
    g_ms_os_10
    g_ms_os_20
    g_detach
    g_ours_stop INT
}

lh_main "$@"
