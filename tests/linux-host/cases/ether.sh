#!/bin/sh
# ether.sh PROVIDER: a USB network card against the guest's cdc_ether, or
# with LH_NET_FUNC=ncm (cases/ncm.sh) against cdc_ncm.
# ours: examples/ether over USB/IP (ncm=1 for NCM; its gadget side a TAP
# interface); gfs: the same program on gadgetfs + dummy_hcd (udc=gadgetfs,
# the guest's host stack on dummy_hcd's root hub); vudc: the kernel's usb_f_ecm (usb_f_ncm) through configfs on
# usbip-vudc (its gadget side the kernel's usb0), the reference. The gadget side's interface goes
# into a network namespace of its own, so every packet between the two
# addresses crosses USB. Checks: cdc_ether binds and the interface comes
# up; ping both ways with payloads from 1 byte to the MTU (1472: 1514-byte
# frames; 470 and 982: frames of 512 and 1024 bytes, a packet multiple),
# then 200 back-to-back pings each way of those two (g_zlp_burst);
# NCM: bursts at the smallest NTBs (g_ntb_limits);
# 64 MiB over TCP each way, checksums equal (vudc: 8 MiB, the reference
# moves about 0.35 MB/s under TCG; gfs: 16 MiB); ours and gfs: detach
# (gfs: the host deauthorizes the device) takes the carrier off the TAP
# interface, reattach brings it back and ping works again;
# SIGINT: exit 0.
LH_LIB=${LH_LIB:-$(cd "$(dirname "$0")/../lib" && pwd)}
. "$LH_LIB/common.sh"

IP=/usr/sbin/ip          # iproute2 (busybox's ip has no netns)
HOST_ADDR=10.77.0.1
GADGET_ADDR=10.77.0.2
SIZES="1 56 470 982 1000 1472"

# MiB each way per provider.
xfer_mib() {
    case $1 in
    ours) echo 64 ;;
    gfs) echo 16 ;;
    *) echo 8 ;;
    esac
}

host_main() {
    _func=${LH_NET_FUNC:-ecm}
    h_init "ether.$_func.$1"
    [ -x "${LH_TCP_XFER:-}" ] || lh_fail "LH_TCP_XFER names no executable"
    head -c $(($(xfer_mib "$1") * 1048576)) /dev/urandom >"$LH_WORK/to_gadget.bin"
    head -c $(($(xfer_mib "$1") * 1048576)) /dev/urandom >"$LH_WORK/to_host.bin"
    H_OURS_BIN=${LH_ETHER:-} H_BINS=$LH_TCP_XFER h_guest 400 "$1" "$_func"
}

# in_ns CMD...: run CMD in the gadget side's namespace.
in_ns() { nsenter -t "$NS_PID" -n "$@"; }

# g_host_if: the interface the host's driver ($HOST_DRIVER) made, or nothing.
g_host_if() {
    for _n in /sys/class/net/*; do
        [ "$(basename "$(readlink -f "$_n/device/driver" 2>/dev/null)")" = "$HOST_DRIVER" ] &&
            echo "${_n##*/}" && return 0
    done
    return 1
}

g_start() {
    case "$PROVIDER" in
    ours)
        g_ours_start ether ifname=usbg0 "ncm=$([ "$FUNC" = ncm ] && echo 1 || echo 0)"
        GADGET_IF=usbg0
        BUSID=1-1 ;;
    gfs)
        g_gfs_start ether ifname=usbg0 "ncm=$([ "$FUNC" = ncm ] && echo 1 || echo 0)"
        GADGET_IF=usbg0 ;;
    vudc)
        g_k${FUNC}_create
        g_kgadget_connect vudc
        GADGET_IF=$(cat "$KGADGET/functions/$FUNC.usb0/ifname") ;;
    *) lh_fail "unknown provider $PROVIDER" ;;
    esac
    [ -e "/sys/class/net/$GADGET_IF" ] || lh_fail "no gadget-side interface $GADGET_IF"
    $IP link set dev "$GADGET_IF" netns "$NS_PID" || lh_fail "move $GADGET_IF to the namespace"
    in_ns $IP addr add "$GADGET_ADDR/24" dev "$GADGET_IF" || lh_fail "address $GADGET_IF"
    in_ns $IP link set dev "$GADGET_IF" up || lh_fail "up $GADGET_IF"
    lh_log "gadget side: $GADGET_IF $GADGET_ADDR in namespace $NS_PID"
}

g_host_up() {
    g_wait 30 "$HOST_DRIVER's interface" g_host_if
    HOST_IF=$(g_host_if)
    $IP addr flush dev "$HOST_IF"
    $IP addr add "$HOST_ADDR/24" dev "$HOST_IF" || lh_fail "address $HOST_IF"
    $IP link set dev "$HOST_IF" up || lh_fail "up $HOST_IF"
    g_wait 20 "$HOST_IF carrier" sh -c "[ \"\$(cat /sys/class/net/$HOST_IF/carrier 2>/dev/null)\" = 1 ]"
    lh_log "host side: $HOST_IF $HOST_ADDR ($HOST_DRIVER), carrier on"
}

g_pings() {
    for _s in $SIZES; do
        ping -c 2 -W 5 -s "$_s" "$GADGET_ADDR" >"$GW/ping.log" 2>&1 ||
            { cat "$GW/ping.log"; lh_fail "ping -s $_s host -> gadget"; }
        in_ns ping -c 2 -W 5 -s "$_s" "$HOST_ADDR" >"$GW/ping.log" 2>&1 ||
            { cat "$GW/ping.log"; lh_fail "ping -s $_s gadget -> host"; }
    done
    lh_log "ping both ways with payloads $SIZES"
}

# g_zlp_burst: back-to-back pings whose frames fill their last packet
# (512 and 1024 bytes: each IN transfer ends with a zero-length packet),
# 200 each way. On gadgetfs + dummy_hcd a ZLP submitted through AIO after
# its data deadlocked the guest's kernel within a few hundred of these
# (docs/gadgetfs.md, dummy_hcd); the plain pings above rarely hit it.
g_zlp_burst() {
    ping -c 200 -A -W 5 -s 470 "$GADGET_ADDR" >"$GW/ping.log" 2>&1 ||
        { tail -3 "$GW/ping.log"; lh_fail "200 pings -s 470 host -> gadget"; }
    in_ns ping -c 200 -A -W 5 -s 982 "$HOST_ADDR" >"$GW/ping.log" 2>&1 ||
        { tail -3 "$GW/ping.log"; lh_fail "200 pings -s 982 gadget -> host"; }
    lh_log "ZLP burst: 200 pings each way of 512- and 1024-byte frames"
}

# NCM at the NTB limits: cdc_ncm's rx_max and tx_max down to the smallest
# NTB the spec allows (2048: SET_NTB_INPUT_SIZE to the gadget, and the
# host's own NTBs), then full-size frames in bursts both ways, so every NTB
# holds one datagram or a few and must stay inside 2048 bytes; then the
# sizes as they were, and a ping again.
g_ntb_limits() {
    _d=/sys/class/net/$HOST_IF/cdc_ncm
    _rx_max=$(cat "$_d/rx_max") _tx_max=$(cat "$_d/tx_max")
    echo 2048 >"$_d/rx_max" || lh_fail "rx_max 2048"
    echo 2048 >"$_d/tx_max" || lh_fail "tx_max 2048"
    # cdc_ncm keeps its old rx_max when the gadget stalls the request; it
    # pads tx_max by a byte when it is a packet multiple (no ZLP needed).
    [ "$(cat "$_d/rx_max")" = 2048 ] && [ "$(cat "$_d/tx_max")" -le 2049 ] ||
        lh_fail "cdc_ncm kept rx_max $(cat "$_d/rx_max") tx_max $(cat "$_d/tx_max")"
    for _s in 1 1000 1472; do
        ping -c 2 -W 5 -s "$_s" "$GADGET_ADDR" >"$GW/ping.log" 2>&1 ||
            { cat "$GW/ping.log"; lh_fail "ping -s $_s host -> gadget at 2048-byte NTBs"; }
        in_ns ping -c 2 -W 5 -s "$_s" "$HOST_ADDR" >"$GW/ping.log" 2>&1 ||
            { cat "$GW/ping.log"; lh_fail "ping -s $_s gadget -> host at 2048-byte NTBs"; }
    done
    # TCP fills every NTB it can: one that outgrew 2048 bytes would
    # overflow cdc_ncm's receive URBs (usbnet counts it in rx_errors; TCP
    # would resend what was lost).
    _errs=$(cat "/sys/class/net/$HOST_IF/statistics/rx_errors")
    _lim=$([ "$PROVIDER" = ours ] && echo 4 || echo 1)
    head -c $((_lim * 1048576)) /host/to_host.bin >"$GW/limits.bin"
    g_tcp "$GW/limits.bin" to_host
    g_tcp "$GW/limits.bin" to_gadget
    _errs=$(($(cat "/sys/class/net/$HOST_IF/statistics/rx_errors") - _errs))
    [ "$_errs" = 0 ] || lh_fail "$HOST_IF: $_errs receive errors at 2048-byte NTBs"
    echo "$_rx_max" >"$_d/rx_max" || lh_fail "rx_max $_rx_max again"
    echo "$_tx_max" >"$_d/tx_max" || lh_fail "tx_max $_tx_max again"
    ping -c 2 -W 5 -s 1472 "$GADGET_ADDR" >/dev/null || lh_fail "ping at rx_max $_rx_max tx_max $_tx_max again"
    lh_log "NTB limits: 2048-byte NTBs both ways (pings of 1, 1000, 1472 bytes, $_lim MiB over TCP each way, no receive error), back to rx_max $_rx_max tx_max $_tx_max"
}

# g_tcp FILE to_gadget|to_host: FILE over TCP, compared byte for byte.
g_tcp() {
    _src=$1 _dir=$2
    rm -f "$GW/got.bin"
    if [ "$_dir" = to_gadget ]; then
        in_ns lh_tcp_xfer recv 5001 "$GW/got.bin" >"$GW/recv.log" 2>&1 &
        _rx=$!
        sleep 0.5
        _t0=$(g_now)
        timeout 240 lh_tcp_xfer send "$GADGET_ADDR" 5001 "$_src" >/dev/null ||
            lh_fail "TCP send to the gadget side"
    else
        lh_tcp_xfer recv 5002 "$GW/got.bin" >"$GW/recv.log" 2>&1 &
        _rx=$!
        sleep 0.5
        _t0=$(g_now)
        timeout 240 nsenter -t "$NS_PID" -n lh_tcp_xfer send "$HOST_ADDR" 5002 "$_src" >/dev/null ||
            lh_fail "TCP send to the host side"
    fi
    wait "$_rx" || { cat "$GW/recv.log"; lh_fail "TCP receive ($_dir)"; }
    _secs=$(g_elapsed "$_t0")
    _mib=$(($(wc -c <"$_src") / 1048576))
    cmp "$_src" "$GW/got.bin" || lh_fail "$_mib MiB over TCP ($_dir) differ"
    lh_log "$_mib MiB over TCP $_dir in $_secs s: $(md5sum <"$GW/got.bin" | cut -c1-32) equal"
}

g_carrier_is() {
    case "$(in_ns $IP link show dev "$GADGET_IF")" in
    *LOWER_UP*) [ "$1" = on ] ;;
    *) [ "$1" = off ] ;;
    esac
}

# net_detach / net_attach: the host lets the device go and takes it back.
# ours: usbip detach / attach. gfs: the host deauthorizes the device and
# authorizes it again (SET_CONFIGURATION 0, then 1, no bus reset; dummy_hcd's
# soft_connect off then on leaves the device failing enumeration with
# -EPROTO, see docs/gadgetfs.md).
net_detach() {
    if [ "$PROVIDER" = gfs ]; then
        NET_USB_DEV=$(readlink -f "/sys/class/net/$HOST_IF/device/..")
        [ -w "$NET_USB_DEV/authorized" ] || lh_fail "no authorized file at $NET_USB_DEV"
        echo 0 >"$NET_USB_DEV/authorized" || lh_fail "deauthorize $NET_USB_DEV"
    else
        g_detach
    fi
}
net_attach() {
    if [ "$PROVIDER" = gfs ]; then
        echo 1 >"$NET_USB_DEV/authorized" || lh_fail "authorize $NET_USB_DEV"
    else
        g_attach
    fi
}

guest_main() {
    PROVIDER=$1
    FUNC=$2
    HOST_DRIVER=$([ "$FUNC" = ncm ] && echo cdc_ncm || echo cdc_ether)
    g_host_modules
    g_mod tun "$HOST_DRIVER"
    $IP link set lo up
    unshare -n sleep 100000 &
    NS_PID=$!
    sleep 0.2
    in_ns $IP link set lo up || lh_fail "namespace loopback"
    g_start
    g_attach
    g_host_up
    g_pings
    g_zlp_burst
    [ "$FUNC" = ncm ] && g_ntb_limits
    g_tcp /host/to_gadget.bin to_gadget
    g_tcp /host/to_host.bin to_host
    if [ "$PROVIDER" = ours ] || [ "$PROVIDER" = gfs ]; then
        g_wait 10 "TAP carrier on" g_carrier_is on
        net_detach
        g_wait 20 "$HOST_DRIVER's interface to go" sh -c "! ls -l /sys/class/net/*/device/driver 2>/dev/null | grep -q $HOST_DRIVER"
        g_wait 10 "TAP carrier off after detach" g_carrier_is off
        lh_log "detach: the host interface went, the TAP carrier is off"
        net_attach
        g_host_up
        g_wait 10 "TAP carrier on after reattach" g_carrier_is on
        ping -c 2 -W 5 "$GADGET_ADDR" >/dev/null || lh_fail "ping after reattach"
        lh_log "reattach: carrier on, ping works"
    fi
    g_detach
    if [ "$PROVIDER" = ours ] || [ "$PROVIDER" = gfs ]; then
        g_ours_stop INT
    else
        g_kgadget_remove
    fi
    kill "$NS_PID"
    g_no_hung_tasks
}

lh_main "$@"
