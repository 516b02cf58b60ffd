#!/bin/sh
# net-bench.sh: TCP throughput through a USB network card against a real
# Linux host, in ONE qemu guest (see tests/linux-host). iperf3 (Debian's,
# in the initramfs when installed on the build machine) runs its server in
# a network namespace that holds only the gadget side's interface, and its
# client in the root namespace, where the host's cdc_ether or cdc_ncm
# interface is: LH_BENCH_SECS (default 10) seconds host to gadget, then as
# long gadget to host (-R). Two functions, CDC ECM (host driver cdc_ether)
# and CDC NCM (cdc_ncm), each for
#   (a) ours:  examples/ether over USB/IP (when LH_ETHER names the binary),
#              ncm=1 for NCM; its gadget side a TAP interface,
#   (b) vudc:  the kernel's usb_f_ecm / usb_f_ncm through configfs on
#              usbip-vudc over USB/IP, gadget side the kernel's usb0,
#   (c) dummy: the same functions on dummy_hcd (no USB/IP),
# all at high speed. When our ether does not take ncm=1 (the parameter
# does not exist yet, or it fails to start) ours-NCM is left out and the
# results say why.
#
# Every packet must cross USB: the gadget side's interface is moved into
# the namespace (on dummy_hcd both ends are in this one kernel, and two
# addresses of one namespace would talk over loopback). After each run the
# host interface's byte counters (/sys/class/net/IF/statistics) and the
# gadget interface's (/proc/net/dev in the namespace) must have grown by at
# least the bytes iperf3 moved, in the right direction, or the bench fails.
# Also logged per run: the guest's idle share and our gadget process's
# share of the busy time (b_cpu_share).
#
# Prints Mbit/s (iperf3's receiver side) per direction, function and
# provider, and the ratios ours/vudc and ours/dummy against the goals of
# issue #17 (10x vudc, 0.5x dummy_hcd). Figures move with the machine;
# only the ratios of one run mean something.
#
# One guest per vCPU count in LH_BENCH_SMP (default "1 2"): with one
# vCPU the host's stack, the USB/IP transport and our gadget process
# share it, while the kernel's gadget on dummy_hcd runs in the stack's own
# softirq context; with two, ours can pipeline as on any multi-core
# machine. Each guest's table is printed (console-smpN.log kept).
#
# Environment: LH_ETHER (binary for (a)), LH_BENCH_SECS (seconds per
# direction), LH_BENCH_SMP (vCPU counts), LH_BENCH_OUT (results file;
# default $LH_WORKDIR/bench-net/results.txt), LH_WORKDIR, LH_CACHE as for
# the tests.
LH_LIB=${LH_LIB:-$(cd "$(dirname "$0")/../../tests/linux-host/lib" && pwd)}
. "$LH_LIB/common.sh"
. "$LH_LIB/bench.sh"

IP=/usr/sbin/ip          # iproute2 (busybox's ip has no netns)
HOST_ADDR=10.78.0.1
GADGET_ADDR=10.78.0.2
PORT=5201

host_main() {
    if [ ! -x /usr/bin/iperf3 ]; then
        echo "net-bench: /usr/bin/iperf3 missing (apt-get install iperf3," \
            "see tests/linux-host/packages.txt); SKIP" >&2
        exit 77
    fi
    h_init bench-net
    _t0=$(date +%s)
    nb_secs=${LH_BENCH_SECS:-10}   # not _secs: h_guest sets that
    : >"$LH_WORK/results-all.txt"
    for _smp in ${LH_BENCH_SMP:-1 2}; do
        if [ -n "${LH_ETHER:-}" ]; then
            LH_SMP=$_smp H_OURS_BIN=$LH_ETHER h_guest 1500 ours "$nb_secs"
        else
            lh_log "LH_ETHER not set: (a) ours is left out"
            LH_SMP=$_smp h_guest 1500 none "$nb_secs"
        fi
        cp "$LH_WORK/console.log" "$LH_WORK/console-smp$_smp.log"
        cat "$LH_WORK/results.txt" >>"$LH_WORK/results-all.txt"
    done
    mv "$LH_WORK/results-all.txt" "$LH_WORK/results.txt"
    lh_log "bench took $(($(date +%s) - _t0)) s"
    b_results "${LH_BENCH_OUT:-}"
}

# ---- guest half -------------------------------------------------------------

# in_ns CMD...: run CMD in the gadget side's namespace.
in_ns() { nsenter -t "$NS_PID" -n "$@"; }

# host_if DRIVER: the interface DRIVER (cdc_ether, cdc_ncm) made, or fail.
host_if() {
    for _n in /sys/class/net/*; do
        [ "$(basename "$(readlink -f "$_n/device/driver" 2>/dev/null)")" = "$1" ] &&
            echo "${_n##*/}" && return 0
    done
    return 1
}

# ours_try ARGS...: start examples/ether with ARGS like g_ours_start, but
# return 1 (with WHY set) instead of failing when it will not start.
ours_try() {
    OURS_BIN=ether
    OURS_LOG=$GW/ether.log
    command -v ether >/dev/null || lh_fail "ether is not on PATH (run-guest.sh --bin)"
    (cd "$GW" && exec "$ENV_CU" --default-signal=INT,QUIT ether "$@" \
        >"$OURS_LOG" 2>&1) &
    OURS_PID=$!
    lh_log "ether $* (pid $OURS_PID)"
    _t0=$(g_now)
    while ! grep -F -q "usbip attach -r 127.0.0.1 -b 1-1" "$OURS_LOG"; do
        if ! g_proc_alive "$OURS_PID"; then
            wait "$OURS_PID"
            WHY="ether $* exited $?: $(grep -v '^  ' "$OURS_LOG" | head -n 1)"
            sed 's/^/    /' "$OURS_LOG"
            OURS_PID=
            return 1
        fi
        if awk -v a="$_t0" -v b="$(g_now)" 'BEGIN { exit !(b - a > 30) }'; then
            g_ours_log
            lh_fail "ether $* printed no attach line in 30 s"
        fi
        sleep 0.1
    done
    return 0
}

# carrier_within SECS: HOST_IF's carrier comes within SECS seconds.
carrier_within() {
    _n=$(($1 * 10))
    while [ "$_n" -gt 0 ]; do
        [ "$(cat "/sys/class/net/$HOST_IF/carrier" 2>/dev/null)" = 1 ] && return 0
        sleep 0.1
        _n=$((_n - 1))
    done
    return 1
}

# net_start PROVIDER FUNC: the network gadget (FUNC ecm or ncm) up and
# attached, its gadget side interface GADGET_IF in the namespace with
# GADGET_ADDR, the host's HOST_IF with HOST_ADDR and carrier on. Returns 1
# (WHY says why) when ours does not do FUNC.
net_start() {
    PROVIDER=$1
    DRIVER=cdc_ether
    [ "$2" = ncm ] && DRIVER=cdc_ncm
    case "$1" in
    ours)
        if [ "$DRIVER" = cdc_ncm ]; then
            ours_try ncm=1 ifname=usbg0 || return 1
        else
            ours_try ifname=usbg0 || return 1
        fi
        BUSID=1-1
        g_attach
        GADGET_IF=usbg0 ;;
    *)
        if [ "$DRIVER" = cdc_ncm ]; then g_kncm_create; else g_kecm_create; fi
        g_kgadget_connect "$1"
        # dummy binds at g_attach, and the kernel names usb0 at bind.
        g_attach
        GADGET_IF=$(cat "$KGADGET/functions/$2.usb0/ifname") ;;
    esac
    [ -e "/sys/class/net/$GADGET_IF" ] || lh_fail "$1 $2: no gadget-side interface $GADGET_IF"
    $IP link set dev "$GADGET_IF" netns "$NS_PID" || lh_fail "move $GADGET_IF to the namespace"
    in_ns $IP addr add "$GADGET_ADDR/24" dev "$GADGET_IF" || lh_fail "address $GADGET_IF"
    in_ns $IP link set dev "$GADGET_IF" up || lh_fail "up $GADGET_IF"
    g_wait 30 "$DRIVER's interface" host_if "$DRIVER"
    HOST_IF=$(host_if "$DRIVER")
    $IP addr flush dev "$HOST_IF"
    $IP addr add "$HOST_ADDR/24" dev "$HOST_IF" || lh_fail "address $HOST_IF"
    $IP link set dev "$HOST_IF" up || lh_fail "up $HOST_IF"
    if ! carrier_within 20 && [ "$1" != ours ]; then
        # The kernel's f_ecm now and then sends no NETWORK_CONNECTION
        # (seen on a loaded machine): its interface's open sends one.
        lh_log "$1 $2: no carrier on $HOST_IF in 20 s; $GADGET_IF down and up again"
        in_ns $IP link set dev "$GADGET_IF" down
        in_ns $IP link set dev "$GADGET_IF" up
    fi
    g_wait 20 "$HOST_IF carrier" sh -c "[ \"\$(cat /sys/class/net/$HOST_IF/carrier 2>/dev/null)\" = 1 ]"
    # The first packets wait for ARP and the carrier on both sides.
    g_wait 20 "ping $GADGET_ADDR" ping -c 1 -W 1 "$GADGET_ADDR"
    lh_log "$1 $2: host $HOST_IF ($DRIVER) $HOST_ADDR, gadget $GADGET_IF $GADGET_ADDR in namespace $NS_PID"
    return 0
}

net_stop() {
    g_detach
    case "$PROVIDER" in
    ours) g_ours_stop INT ;;
    vudc) g_usbipd_stop; g_kgadget_remove ;;
    dummy) g_kgadget_remove ;;
    esac
}

# host_pkts: "rx tx" frames of the host interface (for ECM one frame is
# one bulk transfer, one URB).
host_pkts() {
    echo "$(cat "/sys/class/net/$HOST_IF/statistics/rx_packets")" \
        "$(cat "/sys/class/net/$HOST_IF/statistics/tx_packets")"
}

# if_bytes: "host_rx host_tx gadget_rx gadget_tx" byte counters.
if_bytes() {
    printf '%s %s ' "$(cat "/sys/class/net/$HOST_IF/statistics/rx_bytes")" \
        "$(cat "/sys/class/net/$HOST_IF/statistics/tx_bytes")"
    in_ns cat /proc/net/dev | awk -v i="$GADGET_IF:" '$1 == i { print $2, $10 }'
}

ns_port_open() { in_ns netstat -ltn 2>/dev/null | grep -q ":$PORT "; }

# iperf_run NAME FUNC DIR: one iperf3 run, DIR to_gadget (client sends)
# or to_host (-R); sets MBPS (receiver's Mbit/s) and logs bytes, counters
# and CPU. Fails when the counters show the bytes did not cross USB.
iperf_run() {
    _r=
    [ "$3" = to_host ] && _r=-R
    _pid=
    [ "$PROVIDER" != ours ] || _pid=$OURS_PID
    _b0=$(if_bytes)
    _k0=$(host_pkts)
    _c0=$(b_cpu_now "$_pid")
    # shellcheck disable=SC2086
    timeout $((SECS + 60)) iperf3 -c "$GADGET_ADDR" -p "$PORT" -t "$SECS" $_r -J \
        >"$GW/iperf.json" 2>"$GW/iperf.err" ||
        { cat "$GW/iperf.json" "$GW/iperf.err"; g_diag; lh_fail "$1 $2: iperf3 $3 failed"; }
    _c1=$(b_cpu_now "$_pid")
    _k1=$(host_pkts)
    _b1=$(if_bytes)
    # iperf3 -J: end.sum_received's bytes and bits_per_second (two numbers).
    # shellcheck disable=SC2046
    set -- "$1" "$2" "$3" $(awk '/"sum_received"/ { f = 1 }
        f && /"bytes"/ { gsub(",", "", $2); b = $2 }
        f && /"bits_per_second"/ { gsub(",", "", $2); print b, $2; exit }' "$GW/iperf.json")
    [ -n "${5:-}" ] || { cat "$GW/iperf.json"; lh_fail "$1 $2: no iperf3 result ($3)"; }
    MBPS=$(awk -v b="$5" 'BEGIN { printf "%.1f", b / 1e6 }')
    # Bytes the counters saw in the direction of the data: host tx and
    # gadget rx to the gadget, gadget tx and host rx to the host.
    _cnt=$(echo "$_b0 $_b1" | awk -v d="$3" '{
        if (d == "to_gadget") { h = $6 - $2; g = $7 - $3 } else { h = $5 - $1; g = $8 - $4 }
        print (h < g ? h : g) }')
    _pct=$(awk -v c="$_cnt" -v n="$4" 'BEGIN { printf "%.0f", (n > 0 ? 100 * c / n : 0) }')
    _fr=$(echo "$_k0 $_k1" | awk -v s="$SECS" '{
        printf "%d frames in, %d out on the host side (%.0f/s in all)",
            $3 - $1, $4 - $2, ($3 - $1 + $4 - $2) / s }')
    lh_log "$1 $2 $3: $MBPS Mbit/s, $4 bytes received by iperf3; $_cnt bytes on both" \
        "interfaces' counters ($_pct% of it); $_fr; $(b_cpu_share "$_c0" "$_c1")"
    [ "$4" -gt 0 ] && [ "$_pct" -ge 100 ] ||
        lh_fail "$1 $2 $3: the interface counters saw $_cnt bytes for $4 sent: not over USB"
    IDLE=$(b_cpu_idle "$_c0" "$_c1")
}

# net_measure NAME FUNC: both directions; T_<NAME>_<FUNC> (to gadget) and
# R_<NAME>_<FUNC> (to host) Mbit/s, CPU idle in I_<NAME>_<FUNC>.
net_measure() {
    in_ns iperf3 -s -p "$PORT" >"$GW/iperf-s.log" 2>&1 &
    _srv=$!
    g_wait 10 "iperf3 server in the namespace" ns_port_open
    iperf_run "$1" "$2" to_gadget
    _t=$MBPS _it=$IDLE
    iperf_run "$1" "$2" to_host
    eval "T_$1_$2=\$_t R_$1_$2=\$MBPS I_$1_$2=\"\$_it/\$IDLE\""
    kill "$_srv"
    wait "$_srv" 2>/dev/null
}

row() { printf '%-34s %14s %14s %10s\n' "$@"; }

# result NAME FUNC LABEL
result() {
    eval "_t=\${T_$1_$2:-} _r=\${R_$1_$2:-} _i=\${I_$1_$2:-}"
    row "$3" "${_t:--}" "${_r:--}" "${_i:--}"
}

# goal FUNC REF MIN: ours/REF per direction against MIN.
goal() {
    eval "_ot=\${T_ours_$1:-} _or=\${R_ours_$1:-} _bt=\${T_$2_$1:-} _br=\${R_$2_$1:-}"
    _qt=$(b_ratio "$_ot" "$_bt")
    _qr=$(b_ratio "$_or" "$_br")
    awk -v t="$_qt" -v r="$_qr" -v m="$3" -v f="$1" -v p="$2" 'BEGIN {
        printf "  %s ours/%s: host->gadget %s, gadget->host %s", f, p, t, r
        if (t == "-" || r == "-") { print ""; exit }
        printf "; goal %sx: %s, %s\n", m,
            (t + 0 >= m ? "met" : "NOT met"), (r + 0 >= m ? "met" : "NOT met") }'
}

guest_main() {
    SECS=$2
    command -v iperf3 >/dev/null ||
        lh_fail "no iperf3 in the guest (installed after the initramfs was cached?)"
    g_host_modules
    g_mod tun cdc_ether cdc_ncm
    $IP link set lo up
    unshare -n sleep 100000 &
    NS_PID=$!
    sleep 0.2
    in_ns $IP link set lo up || lh_fail "namespace loopback"
    NOTE_NCM=
    # Loop variables of their own: the guest.sh helpers use _f and _p.
    for nb_fn in ecm ncm; do
        for nb_pv in dummy vudc ours; do
            [ "$nb_pv" != ours ] || [ "$1" = ours ] || continue
            if ! net_start "$nb_pv" "$nb_fn"; then
                NOTE_NCM="ours NCM left out: $WHY"
                lh_log "$NOTE_NCM"
                continue
            fi
            net_measure "$nb_pv" "$nb_fn"
            net_stop
        done
    done
    kill "$NS_PID"
    g_no_hung_tasks
    {
        echo "linux-host bench, USB networking: iperf3 TCP, $SECS s each way, Mbit/s"
        echo "(receiver side), one guest ($(uname -r), qemu TCG, $(nproc) vCPU, high speed)"
        row provider "host->gadget" "gadget->host" "idle %"
        result ours ecm "(a) ours ECM, ether, USB/IP"
        result vudc ecm "(b) kernel f_ecm, usbip-vudc"
        result dummy ecm "(c) kernel f_ecm, dummy_hcd"
        result ours ncm "(a) ours NCM, ether ncm=1, USB/IP"
        result vudc ncm "(b) kernel f_ncm, usbip-vudc"
        result dummy ncm "(c) kernel f_ncm, dummy_hcd"
        [ -z "$NOTE_NCM" ] || echo "$NOTE_NCM"
        echo "ratios (goal of issue #17, for NCM: 10x vudc, 0.5x dummy_hcd):"
        goal ecm vudc 10
        goal ecm dummy 0.5
        goal ncm vudc 10
        goal ncm dummy 0.5
    } >/host/results.txt
}

lh_main "$@"
