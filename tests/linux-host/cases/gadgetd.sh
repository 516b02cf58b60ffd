#!/bin/sh
# gadgetd.sh ours: composite-gadgetd against the kernel's configfs gadget,
# one guest boot for the four shipped schemes (programs/gadgetd/schemes:
# mass_storage, acm_mass_storage, hid, ecm_acm_mass_storage). For each,
# the SAME scheme file is loaded into configfs with libusbgx
# (tools/usbg_import: usbg_import_gadget()) and bound to dummy_udc.0, the
# guest's host enumerates it and what it read is kept (sysfs: the raw
# device and configuration descriptors, every interface's class,
# subclass, protocol, alternate, endpoint types, sizes and intervals, the
# manufacturer, product, serial, configuration and interface strings);
# the gadget is removed; then the same scheme served by one
# composite-gadgetd (all four at once, busids 1-1..1-4) is attached over
# USB/IP and read the same way. The two must be equal, endpoint numbers
# aside (what the UDC decides; the direction bit is kept). SIGINT: the
# daemon exits 0.
LH_LIB=${LH_LIB:-$(cd "$(dirname "$0")/../lib" && pwd)}
. "$LH_LIB/common.sh"

SCHEMES="mass_storage acm_mass_storage hid ecm_acm_mass_storage"

host_main() {
    h_init "gadgetd.$1"
    [ -x "${LH_USBG_IMPORT:-}" ] || lh_fail "LH_USBG_IMPORT names no executable"
    [ -d "${LH_SCHEMES:-}" ] || lh_fail "LH_SCHEMES names no folder"
    # One image per scheme: the daemon refuses two gadgets writing one file.
    for _s in $SCHEMES; do
        sed "s/disk\.img/$_s.img/" "$LH_SCHEMES/$_s.scheme" >"$LH_WORK/$_s.scheme" ||
            lh_fail "copy $_s.scheme"
        if grep -q "$_s.img" "$LH_WORK/$_s.scheme"; then h_blank_image "$_s.img" 8; fi
    done
    H_OURS_BIN=$LH_GADGETD H_BINS=$LH_USBG_IMPORT h_guest 300 "$1"
}

# g_dev: the sysfs folder of the attached 1d6b:0104 (both sides use it).
g_dev() {
    for _d in /sys/bus/usb/devices/*; do
        [ "$(cat "$_d/idVendor" 2>/dev/null)" = 1d6b ] &&
            [ "$(cat "$_d/idProduct" 2>/dev/null)" = 0104 ] || continue
        echo "$_d"
        return 0
    done
    return 1
}
g_no_dev() { ! g_dev >/dev/null; }
# g_configured: the device is configured and its interfaces are in sysfs.
g_configured() {
    _d=$(g_dev) || return 1
    [ "$(cat "$_d/bConfigurationValue" 2>/dev/null)" != "" ] &&
        [ -e "$_d/${_d##*/}:$(cat "$_d/bConfigurationValue").0" ]
}

# g_descriptors FILE: one descriptor a line, hex; an endpoint's address
# keeps only its direction (8? IN, 0? OUT).
g_descriptors() {
    od -A n -t x1 -v "$1" | awk '
        function hex(h) {
            return (index("0123456789abcdef", substr(h, 1, 1)) - 1) * 16 +
                   index("0123456789abcdef", substr(h, 2, 1)) - 1
        }
        { for (i = 1; i <= NF; i++) b[n++] = $i }
        END {
            i = 0
            while (i < n) {
                len = hex(b[i])
                if (len < 2) { print "bad length at byte " i; exit }
                s = ""
                for (k = 0; k < len && i + k < n; k++) {
                    v = b[i + k]
                    if (b[i + 1] == "05" && k == 2)
                        v = hex(v) >= 128 ? "8?" : "0?"
                    s = s " " v
                }
                print s
                i += len
            }
        }'
}

# g_view DEV: what the host read, as text to compare.
g_view() {
    echo "descriptors:"
    g_descriptors "$1/descriptors"
    for _f in manufacturer product serial configuration bConfigurationValue \
            bNumConfigurations bNumInterfaces bmAttributes bMaxPower bDeviceClass \
            bDeviceSubClass bDeviceProtocol bcdDevice version speed; do
        echo "$_f: $(cat "$1/$_f" 2>/dev/null)"
    done
    for _i in "$1/${1##*/}":*; do
        [ -d "$_i" ] || continue
        echo "interface ${_i##*.}: $(cat "$_i/bInterfaceClass")/$(cat "$_i/bInterfaceSubClass")/$(cat "$_i/bInterfaceProtocol") alt $(cat "$_i/bAlternateSetting") eps $(cat "$_i/bNumEndpoints") string '$(cat "$_i/interface" 2>/dev/null)'"
        for _e in "$_i"/ep_*; do
            [ -d "$_e" ] || continue
            echo "  endpoint $(cat "$_e/type") $(cat "$_e/direction") $(cat "$_e/wMaxPacketSize") $(cat "$_e/interval")"
        done | sort
    done
}

g_read() {
    g_wait 30 "$1: 1d6b:0104 configured" g_configured
    sleep 1
    g_view "$(g_dev)" >"$2"
}

# g_compare NAME BUSID: the kernel's NAME, then ours at BUSID.
g_compare() {
    (cd "$GW" && lh_usbg_import "$1.scheme" lh dummy_udc.0) ||
        lh_fail "libusbgx could not load $1.scheme"
    g_read "the kernel's $1" "$GW/$1.kernel"
    lh_usbg_import --remove lh || lh_fail "libusbgx could not remove gadget lh"
    g_wait 30 "the kernel's $1 to go away" g_no_dev
    BUSID=$2
    g_attach
    g_read "ours $1 ($2)" "$GW/$1.ours"
    g_detach
    g_wait 30 "ours $1 to go away" g_no_dev
    cp "$GW/$1.kernel" "$GW/$1.ours" /host/ 2>/dev/null
    if diff -u "$GW/$1.kernel" "$GW/$1.ours"; then
        lh_log "$1: the kernel's and ours read the same ($(grep -c '^interface' "$GW/$1.ours") interfaces)"
    else
        FAILED="$FAILED $1"
    fi
}

guest_main() {
    g_host_modules
    g_mod cdc-acm usbhid hid-generic cdc_ether
    g_configfs usb_f_mass_storage usb_f_acm usb_f_hid usb_f_ecm
    g_dummy_hcd N
    _args=
    for _sch in $SCHEMES; do
        if [ -f "/host/$_sch.img" ]; then g_stage "$_sch.img"; fi
        g_stage "$_sch.scheme"
        _args="$_args $_sch.scheme"
    done
    # shellcheck disable=SC2086
    g_ours_start composite-gadgetd $_args
    FAILED=
    _num=1
    for _sch in $SCHEMES; do
        g_compare "$_sch" "1-$_num"
        _num=$((_num + 1))
    done
    g_ours_stop INT
    [ -z "$FAILED" ] || lh_fail "the kernel and composite-gadgetd differ for:$FAILED"
}

lh_main "$@"
