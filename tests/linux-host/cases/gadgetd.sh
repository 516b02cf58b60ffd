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
# aside (what the UDC decides; the direction bit is kept). Then the
# daemon's gadget-side ends (--run-dir): 1 MiB each way between the
# host's /dev/ttyACM0 and the pty behind run/1-2/acm.GS0, the path that
# composite-gadgetctl list names; `composite-gadgetctl detach 1-2` frees
# the host's vhci port and the tty while the daemon serves on, and 1-2
# attaches again and carries data; two keyboard reports written to
# run/1-3/hid.usb0 come out of the host's /dev/hidraw0; the ecm
# function's TAP interface (moved to a network namespace, as in ether.sh)
# and the host's cdc_ether interface ping each other. A fifth gadget
# (1-5) links its acm.GS0 into two configurations (with acm.GS1 in the
# first): the host moved to configuration 2 (bConfigurationValue), 1 MiB
# goes each way between its tty and the one pty run/1-5/acm.GS0, and
# again back in configuration 1. SIGINT: the daemon exits 0 and its
# ends' files are gone.
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
    [ -x "${LH_GADGETCTL:-}" ] || lh_fail "LH_GADGETCTL names no executable"
    head -c 1048576 /dev/urandom >"$LH_WORK/to_gadget.bin"
    h_two_configs_scheme >"$LH_WORK/two_configs.scheme"
    head -c 1048576 /dev/urandom >"$LH_WORK/to_host.bin"
    H_OURS_BIN=$LH_GADGETD H_BINS="$LH_USBG_IMPORT $LH_GADGETCTL" h_guest 300 "$1"
}

# h_two_configs_scheme: acm.GS0 in both configurations, acm.GS1 in the first.
h_two_configs_scheme() {
    cat <<'EOF'
attrs = { bcdUSB = 0x0200; bDeviceClass = 0xEF; bDeviceSubClass = 0x02;
          bDeviceProtocol = 0x01; idVendor = 0x1d6b; idProduct = 0x0104; };
strings = ( { lang = 0x409; manufacturer = "libcomposite"; product = "Two configurations";
              serialnumber = "0123456789AE"; } );
functions = { acm_GS0 = { instance = "GS0"; type = "acm"; };
              acm_GS1 = { instance = "GS1"; type = "acm"; }; };
configs = ( { id = 1; name = "c"; functions = ( "acm_GS0", "acm_GS1" ); },
            { id = 2; name = "c"; functions = ( "acm_GS0" ); } );
EOF
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

TTY=/dev/ttyACM0
IP=/usr/sbin/ip          # iproute2 (busybox's ip has no netns)
HOST_ADDR=10.77.0.1
GADGET_ADDR=10.77.0.2

g_tty_ready() { [ -c "$TTY" ]; }
g_tty_gone() { ! [ -e "$TTY" ]; }
# g_some_tty: a /dev/ttyACM* is there, in TTY (cdc-acm frees the old
# minor only when its last user is gone: after a quick re-attach the port
# may be ttyACM1).
g_some_tty() {
    for TTY in /dev/ttyACM*; do [ -c "$TTY" ] && return 0; done
    return 1
}
g_ctl() { composite-gadgetctl --control "$CTL" "$@"; }
# g_listed TEXT: composite-gadgetctl list shows TEXT.
g_listed() { g_ctl list >"$GW/list.txt" && grep -F -q -- "$1" "$GW/list.txt"; }
g_expect_listed() {
    g_listed "$1" || { cat "$GW/list.txt"; lh_fail "composite-gadgetctl list shows no '$1'"; }
}

# g_acm_data: 1-2's serial port both ways, a detach from the daemon's
# side, an attach again.
g_acm_data() {
    _pty=$RUN/1-2/acm.GS0
    BUSID=1-2
    g_attach
    g_wait 30 "$TTY" g_tty_ready
    [ -L "$_pty" ] || lh_fail "no link $_pty"
    grep -F -q "1-2: acm.GS0: $_pty -> /dev/pts/" "$OURS_LOG" ||
        lh_fail "the daemon's log does not name acm.GS0's pty"
    g_expect_listed "acm.GS0=$_pty"
    stty -F "$TTY" 115200 raw -echo || lh_fail "stty 115200 raw"
    exec 3<>"$TTY"		# DTR up through both copies
    g_copy_through /host/to_gadget.bin "$TTY" "$_pty" "$GW/got_gadget.bin"
    g_copy_through /host/to_host.bin "$_pty" "$TTY" "$GW/got_host.bin"
    exec 3>&-
    g_ctl detach 1-2 || lh_fail "composite-gadgetctl detach 1-2"
    g_wait 30 "the vhci port free after composite-gadgetctl detach" g_no_vhci_port
    g_wait 30 "$TTY to go" g_tty_gone
    g_proc_alive "$OURS_PID" || { g_ours_log; lh_fail "composite-gadgetd died at the detach"; }
    g_expect_listed "1-2    detached  -"
    lh_log "composite-gadgetctl detach 1-2: the host's port is free, the daemon serves on"
    g_attach
    g_wait 30 "a ttyACM again" g_some_tty
    g_expect_listed "1-2    attached  127.0.0.1:"
    stty -F "$TTY" 115200 raw -echo || lh_fail "stty after the attach"
    exec 3<>"$TTY"
    g_copy_through /host/to_host.bin "$_pty" "$TTY" "$GW/got_host2.bin"
    exec 3>&-
    lh_log "1-2 attached again: the tty carries data"
    g_detach
}

# g_hid_data: two reports (a down, all up) from 1-3's FIFO to hidraw.
g_hid_data() {
    BUSID=1-3
    g_attach
    g_wait 30 "/dev/hidraw0" test -c /dev/hidraw0
    g_expect_listed "hid.usb0=$RUN/1-3/hid.usb0"
    g_two_reports "$RUN/1-3/hid.usb0"
    g_detach
}

# g_config N: the host's device (g_dev) set to configuration N; TTY the
# tty of its interface 0 (acm.GS0's: cdc-acm's minors need not follow).
g_config() {
    _d=$(g_dev) || lh_fail "no 1d6b:0104 device to configure"
    echo "$1" >"$_d/bConfigurationValue" || lh_fail "bConfigurationValue $1"
    _i0=$_d/${_d##*/}:$1.0
    g_wait 30 "configuration $1's ACM tty" test -d "$_i0/tty"
    TTY=/dev/$(ls "$_i0/tty")
    g_wait 30 "$TTY" g_tty_ready
}

# g_acm_two_configs: 1-5's acm.GS0 carries data in either configuration.
g_acm_two_configs() {
    _pty=$RUN/1-5/acm.GS0
    BUSID=1-5
    g_attach
    g_wait 30 "1-5's ttys" g_some_tty
    for _c in 2 1; do
        g_config "$_c"
        stty -F "$TTY" 115200 raw -echo || lh_fail "stty in configuration $_c"
        exec 3<>"$TTY"
        g_copy_through /host/to_gadget.bin "$TTY" "$_pty" "$GW/got_gadget_c$_c.bin"
        g_copy_through /host/to_host.bin "$_pty" "$TTY" "$GW/got_host_c$_c.bin"
        exec 3>&-
        lh_log "configuration $_c: acm.GS0's pty carries data both ways"
    done
    g_detach
}

in_ns() { nsenter -t "$NS_PID" -n "$@"; }
# g_cdc_ether_if: the interface cdc_ether made, or nothing.
g_cdc_ether_if() {
    for _n in /sys/class/net/*; do
        [ "$(basename "$(readlink -f "$_n/device/driver" 2>/dev/null)")" = cdc_ether ] &&
            echo "${_n##*/}" && return 0
    done
    return 1
}

# g_ecm_ping: 1-4's TAP interface (in a namespace: one kernel holds both
# ends) and the host's cdc_ether interface ping each other.
g_ecm_ping() {
    g_listed "ecm.usb0=" || { cat "$GW/list.txt"; lh_fail "list names no ecm.usb0 end"; }
    _tap=$(sed -n 's/.*ecm\.usb0=\([^ ]*\).*/\1/p' "$GW/list.txt")
    [ -e "/sys/class/net/$_tap" ] || lh_fail "ecm.usb0's TAP interface '$_tap' is not there"
    $IP link set lo up
    unshare -n sleep 100000 &
    NS_PID=$!
    sleep 0.2
    $IP link set dev "$_tap" netns "$NS_PID" || lh_fail "move $_tap to the namespace"
    in_ns $IP addr add "$GADGET_ADDR/24" dev "$_tap" || lh_fail "address $_tap"
    in_ns $IP link set dev "$_tap" up || lh_fail "up $_tap"
    # shellcheck disable=SC2034 # g_attach's (guest.sh)
    BUSID=1-4
    g_attach
    g_wait 30 "cdc_ether's interface" g_cdc_ether_if
    _hif=$(g_cdc_ether_if)
    $IP addr add "$HOST_ADDR/24" dev "$_hif" || lh_fail "address $_hif"
    $IP link set dev "$_hif" up || lh_fail "up $_hif"
    ping -c 2 -W 5 "$GADGET_ADDR" >"$GW/ping.log" 2>&1 ||
        { cat "$GW/ping.log"; lh_fail "ping host -> ecm.usb0's TAP"; }
    in_ns ping -c 2 -W 5 "$HOST_ADDR" >"$GW/ping.log" 2>&1 ||
        { cat "$GW/ping.log"; lh_fail "ping ecm.usb0's TAP -> host"; }
    lh_log "ecm.usb0's TAP $_tap and the host's $_hif ping each other"
    g_detach
}

guest_main() {
    RUN=$GW/run		# the daemon's --run-dir and --control
    CTL=$GW/control
    g_host_modules
    g_mod cdc-acm usbhid hid-generic cdc_ether tun
    g_configfs usb_f_mass_storage usb_f_acm usb_f_hid usb_f_ecm
    g_dummy_hcd N
    _args=
    for _sch in $SCHEMES; do
        if [ -f "/host/$_sch.img" ]; then g_stage "$_sch.img"; fi
        g_stage "$_sch.scheme"
        _args="$_args $_sch.scheme"
    done
    g_stage two_configs.scheme
    # shellcheck disable=SC2086
    g_ours_start composite-gadgetd $_args two_configs.scheme --control "$CTL" --run-dir "$RUN"
    FAILED=
    _num=1
    for _sch in $SCHEMES; do
        g_compare "$_sch" "1-$_num"
        _num=$((_num + 1))
    done
    [ -z "$FAILED" ] || lh_fail "the kernel and composite-gadgetd differ for:$FAILED"
    g_acm_data
    g_hid_data
    g_ecm_ping
    g_acm_two_configs
    g_ours_stop INT
    [ -z "$(ls -A "$RUN")" ] || lh_fail "ends left after the exit: $(ls -R "$RUN")"
    lh_log "the daemon's exit removed its ends"
}

lh_main "$@"
