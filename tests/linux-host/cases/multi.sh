#!/bin/sh
# multi.sh ours: examples/multi (mass storage + CDC ACM + HID keyboard)
# against the guest's own drivers. Guest: /dev/sda (usb-storage),
# /dev/ttyACM0 (cdc-acm) and /dev/hidraw0 (usbhid) appear together; two
# reports written to the hidg0 pipe come out of /dev/hidraw0 byte for byte
# (500 more no faster than the endpoint's 1 ms interval allows),
# and the input layer sees the key press (KEY_A down, then up); the caps
# lock LED set through /sys/class/leds reaches the hidg0_out pipe as an
# output report; stty's speed and parity changes reach the
# gadget as SET_LINE_CODING (its log); 1 MiB of random bytes through the
# tty each way, raw, checksums equal (the gadget side reads and writes
# the pty multi links at ./ttyGS0); closing the tty drops DTR (the
# gadget's log says so); a pattern written to sda reads back; detaching in
# the middle of a transfer leaves the gadget serving: attached again, the
# tty carries data. Then the second configuration, chosen through sysfs
# bConfigurationValue: cdc_ether binds (the link comes up, carrier on both
# sides), the second serial port carries 1 MiB, and sda holds the pattern
# written in configuration 1 (one fsg_common in both); back to
# configuration 1, the three devices return. SIGINT: exit 0.
LH_LIB=${LH_LIB:-$(cd "$(dirname "$0")/../lib" && pwd)}
. "$LH_LIB/common.sh"

host_main() {
    h_init "multi.$1"
    h_blank_image disk.img 16
    head -c 1048576 /dev/urandom >"$LH_WORK/to_gadget.bin"
    head -c 1048576 /dev/urandom >"$LH_WORK/to_host.bin"
    head -c 1048576 /dev/urandom >"$LH_WORK/pattern.bin"
    H_OURS_BIN=$LH_MULTI h_guest 300 "$1"
}

TTY=/dev/ttyACM0

# g_multi_log_has STR: the gadget's output holds STR.
g_multi_log_has() { grep -F -q -- "$1" "$OURS_LOG"; }
g_expect_multi_log() {
    g_wait 10 "multi to log \"$1\"" g_multi_log_has "$1"
    lh_log "multi says: $1"
}

g_tty_ready() { [ -c "$TTY" ]; }

# g_keyboard: reports through the hidg pipe to hidraw and the input
# layer; an LED set by the host comes out of hidg0_out.
g_keyboard() {
    _ev=
    for _e in /sys/class/input/event*; do
        grep -q Multifunction "$_e/device/name" 2>/dev/null && _ev=/dev/input/${_e##*/}
    done
    [ -n "$_ev" ] || lh_fail "no input device for the keyboard"
    # a down (key code 4: 'a'), then all keys up; the input layer's events
    # read meanwhile
    timeout 20 "$DD" if="$_ev" of="$GW/events.bin" bs=24 count=6 status=none &
    _evr=$!
    g_two_reports "$GW/hidg0"
    # The interrupt endpoint's interval holds (high speed, bInterval 4:
    # 1 ms), though vhci passes the URBs at once: 500 reports (all keys
    # up: nothing for the input layer) take no less than 499 ms, less the
    # 10 ms tick of /proc/uptime. Only a lower bound; the rate is logged.
    head -c 4000 /dev/zero >"$GW/many.bin"
    timeout 30 head -c 4000 /dev/hidraw0 >"$GW/many_got.bin" &
    _hr=$!
    sleep 0.5
    _t0=$(g_now)
    cat "$GW/many.bin" >"$GW/hidg0" || lh_fail "write 500 reports to the hidg0 pipe"
    wait "$_hr" || lh_fail "read 500 reports from /dev/hidraw0"
    _t1=$(g_now)
    cmp "$GW/many.bin" "$GW/many_got.bin" || lh_fail "the 500 reports differ"
    awk -v a="$_t0" -v b="$_t1" 'BEGIN { exit !(b - a >= 0.489) }' ||
        lh_fail "500 reports in $_t0 -> $_t1 s: faster than one a 1 ms interval"
    lh_log "500 reports through /dev/hidraw0 in $(awk -v a="$_t0" -v b="$_t1" \
        'BEGIN { printf "%.2f s, %.0f a second", b - a, 500 / (b - a) }') (bInterval 4 at high speed: 1000 a second)"
    wait "$_evr" || lh_fail "read the key events from $_ev"
    # struct input_event on x86_64: 16 bytes of time, type 1 (EV_KEY),
    # code 30 (KEY_A), value 1 (down), then 0 (up); little-endian.
    _hex=$(od -A n -t x1 -v "$GW/events.bin" | tr -d '\n')
    case "$_hex" in
    *" 01 00 1e 00 01 00 00 00"*) ;;
    *) lh_fail "the input layer saw no KEY_A press: $_hex" ;;
    esac
    case "$_hex" in
    *" 01 00 1e 00 00 00 00 00"*) ;;
    *) lh_fail "the input layer saw no KEY_A release" ;;
    esac
    lh_log "the input layer saw KEY_A down and up ($_ev)"
    # Ours, not the guest's AT keyboard (input0): the input device of $_ev.
    _inp=$(basename "$(readlink -f "/sys/class/input/${_ev##*/}/device")")
    _led=/sys/class/leds/$_inp::capslock
    [ -e "$_led" ] || lh_fail "no capslock LED for the keyboard ($_led)"
    echo 1 >"$_led/brightness" || lh_fail "set $_led"
    sleep 0.5
    timeout 1 cat "$GW/hidg0_out" >"$GW/leds.bin"
    _last=$(od -A n -t x1 -v "$GW/leds.bin" | tr -s ' \n' ' ' | awk '{ print $NF }')
    [ "$_last" = 02 ] || lh_fail "caps lock did not reach hidg0_out (got:$(od -A n -t x1 "$GW/leds.bin"))"
    lh_log "the caps lock LED reached hidg0_out as output report 02"
}

# g_multi_dev: the sysfs folder of the attached 1d6b:0104.
g_multi_dev() {
    for _d in /sys/bus/usb/devices/*; do
        [ "$(cat "$_d/idVendor" 2>/dev/null)" = 1d6b ] &&
            [ "$(cat "$_d/idProduct" 2>/dev/null)" = 0104 ] && echo "$_d" && return 0
    done
    return 1
}

g_ecm_if() {
    for _n in /sys/class/net/*; do
        [ "$(basename "$(readlink -f "$_n/device/driver" 2>/dev/null)")" = cdc_ether ] &&
            echo "${_n##*/}" && return 0
    done
    return 1
}

g_no_ecm_if() { ! g_ecm_if; }

# g_config2_tty: the /dev/ttyACM* of configuration 2's serial port (the
# name configuration 1's port had may not be free yet).
g_config2_tty() {
    for _t in /sys/class/tty/ttyACM*; do
        case "$(readlink -f "$_t/device")" in
        *:2.*) [ -c "/dev/${_t##*/}" ] && echo "/dev/${_t##*/}" && return 0 ;;
        esac
    done
    return 1
}

g_set_config() {
    echo "$1" >"$(g_multi_dev)/bConfigurationValue" ||
        lh_fail "sysfs bConfigurationValue=$1"
    lh_log "sysfs: bConfigurationValue=$1"
}

# g_second_config: ECM + ACM + the same mass storage.
g_second_config() {
    g_set_config 2
    g_wait 30 "cdc_ether's interface" g_ecm_if
    g_wait 30 "configuration 2's ttyACM" g_config2_tty
    TTY2=$(g_config2_tty)
    g_wait_block sda
    _if=$(g_ecm_if)
    /usr/sbin/ip link set dev "$_if" up || lh_fail "up $_if"
    g_wait 20 "$_if carrier" sh -c "[ \"\$(cat /sys/class/net/$_if/carrier 2>/dev/null)\" = 1 ]"
    /usr/sbin/ip link set dev usbg0 up || lh_fail "up usbg0"
    g_wait 20 "usbg0 carrier" sh -c "/usr/sbin/ip link show dev usbg0 | grep -q LOWER_UP"
    lh_log "configuration 2: cdc_ether's $_if and the gadget's usbg0 have carrier"
    g_check_pattern sda /host/pattern.bin 2
    lh_log "configuration 2: sda holds configuration 1's pattern (one fsg_common)"
    stty -F "$TTY2" 115200 raw -echo || lh_fail "stty (second port)"
    exec 3<>"$TTY2"
    g_copy_through /host/to_host.bin "$GW/ttyGS1" "$TTY2" "$GW/got_host3.bin"
    exec 3>&-
    g_set_config 1
    g_wait 30 "/dev/hidraw0 again" test -c /dev/hidraw0
    g_wait 30 "$TTY again" g_tty_ready
    g_wait_block sda
    g_wait 20 "cdc_ether's interface to go" g_no_ecm_if
    lh_log "configuration 1 again: sda, $TTY and /dev/hidraw0"
}

guest_main() {
    g_stage disk.img
    g_host_modules
    g_mod cdc-acm usbhid hid-generic evdev tun cdc_ether
    g_ours_start multi "file=$GW/disk.img" tty=./ttyGS0 hidg=./hidg0 hid_out=./hidg0_out \
        tty2=./ttyGS1 ifname=usbg0
    BUSID=1-1
    g_attach
    g_wait_block sda
    g_wait 30 "$TTY" g_tty_ready
    g_wait 30 "/dev/hidraw0" test -c /dev/hidraw0
    lh_log "sda, $TTY and /dev/hidraw0 present together"
    [ -L "$GW/ttyGS0" ] || lh_fail "multi made no ./ttyGS0 link"
    [ -p "$GW/hidg0" ] || lh_fail "multi made no ./hidg0 pipe"
    g_keyboard

    # Raw on the host side (the gadget's pty starts raw); stty opens the
    # tty (DTR up) and sends the line coding.
    stty -F "$TTY" 115200 raw -echo || lh_fail "stty 115200 raw"
    g_expect_multi_log "line coding 115200 8N1"
    stty -F "$TTY" 9600 cs7 parenb parodd || lh_fail "stty 9600 7O1"
    g_expect_multi_log "line coding 9600 7O1"
    stty -F "$TTY" 115200 cs8 -parenb raw -echo || lh_fail "stty 115200 8N1"
    g_expect_multi_log "host closed the port (DTR down)"

    # Hold the host tty open for both copies, so DTR stays up throughout;
    # closing it drops DTR once more.
    _downs=$(grep -c "DTR down" "$OURS_LOG")
    exec 3<>"$TTY"
    g_copy_through /host/to_gadget.bin "$TTY" "$GW/ttyGS0" "$GW/got_gadget.bin"
    g_copy_through /host/to_host.bin "$GW/ttyGS0" "$TTY" "$GW/got_host.bin"
    exec 3>&-
    g_wait 10 "a DTR drop after the close" \
        sh -c "[ \$(grep -c 'DTR down' '$OURS_LOG') -gt $_downs ]"
    lh_log "closing the tty dropped DTR: the gadget side saw it"

    g_write_pattern sda /host/pattern.bin 2
    g_check_pattern sda /host/pattern.bin 2
    lh_log "sda holds the pattern"

    # Detach while the host is writing to the tty (nobody reads the pty:
    # the write waits, NAKed); the gadget must keep serving.
    timeout 60 cat /host/to_gadget.bin >"$TTY" &
    _wr=$!
    sleep 1
    g_detach
    wait "$_wr"
    g_proc_alive "$OURS_PID" || { g_ours_log; lh_fail "multi died at the detach"; }
    g_attach
    g_wait 30 "$TTY again" g_tty_ready
    stty -F "$TTY" 115200 raw -echo || lh_fail "stty after reattach"
    # Whatever the pty still holds from before is the gadget side's to
    # read; drain it, then check a fresh copy.
    timeout 2 cat "$GW/ttyGS0" >/dev/null
    exec 3<>"$TTY"
    g_copy_through /host/to_host.bin "$GW/ttyGS0" "$TTY" "$GW/got_host2.bin"
    exec 3>&-
    lh_log "after detach and attach the tty carries data"
    g_second_config
    g_detach
    g_ours_stop INT
    g_unstage disk.img
    g_no_hung_tasks
}

lh_main "$@"
