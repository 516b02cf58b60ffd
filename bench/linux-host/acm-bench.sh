#!/bin/sh
# acm-bench.sh: CDC ACM throughput against a real Linux host, in ONE qemu
# guest (see tests/linux-host): LH_BENCH_MIB (default 64) MiB of random
# bytes through the guest's /dev/ttyACM0 (cdc-acm, raw: stty raw -echo)
# each way, for
#   (a) ours:  examples/multi over USB/IP (when LH_MULTI names the binary);
#              its serial port is a pty, linked at ./ttyGS0,
#   (b) vudc:  the kernel's usb_f_acm through configfs on usbip-vudc over
#              USB/IP, gadget side /dev/ttyGS0,
#   (c) dummy: the same function on dummy_hcd (no USB/IP),
# all at high speed. Each copy is timed from the first write until the
# reader holds every byte, then compared with cmp against what was sent
# (a broken path fails the bench instead of looking fast). Prints MB/s per
# direction and provider, the ratios ours/vudc and ours/dummy, and whether
# the goals of issue #16 (10x vudc, 0.5x dummy_hcd) are met. Figures move
# with the machine; only the ratios of one run mean something.
#
# Environment: LH_MULTI (binary for (a)), LH_BENCH_MIB (size of each copy),
# LH_BENCH_REPS (rounds of all providers in turn, the best kept; default
# 1), LH_BENCH_OUT (results file; default $LH_WORKDIR/bench-acm/results.txt),
# LH_WORKDIR, LH_CACHE as for the tests.
LH_LIB=${LH_LIB:-$(cd "$(dirname "$0")/../../tests/linux-host/lib" && pwd)}
. "$LH_LIB/common.sh"
. "$LH_LIB/bench.sh"

host_main() {
    h_init bench-acm
    _t0=$(date +%s)
    _mib=${LH_BENCH_MIB:-64}
    head -c "$((_mib * 1048576))" /dev/urandom >"$LH_WORK/payload.bin" ||
        lh_fail "make the payload"
    if [ -n "${LH_MULTI:-}" ]; then
        H_OURS_BIN=$LH_MULTI h_guest 1800 ours "$_mib" "${LH_BENCH_REPS:-1}"
    else
        lh_log "LH_MULTI not set: (a) ours is left out"
        h_guest 1800 none "$_mib" "${LH_BENCH_REPS:-1}"
    fi
    rm -f "$LH_WORK/payload.bin"
    lh_log "bench took $(($(date +%s) - _t0)) s"
    b_results "${LH_BENCH_OUT:-}"
}

# ---- guest half -------------------------------------------------------------

TTY=/dev/ttyACM0

# acm_start PROVIDER: the serial gadget up and attached, /dev/ttyACM0 there;
# GSIDE is the gadget side's tty.
acm_start() {
    PROVIDER=$1
    case "$1" in
    ours)
        "$DD" if=/dev/zero of="$GW/disk.img" bs=1M count=1 status=none
        g_ours_start multi "file=$GW/disk.img" tty=./ttyGS0
        BUSID=1-1
        GSIDE=$GW/ttyGS0 ;;
    *)
        g_kacm_create
        g_kgadget_connect "$1"
        GSIDE=$KACM_TTY ;;
    esac
    g_attach
    g_wait 60 "$TTY" test -c "$TTY"
    g_wait 10 "$GSIDE" test -c "$GSIDE"
}

# acm_copy WDEV RDEV: the payload written to WDEV, read back from RDEV in
# the background; sets SECS (first write to last byte read); fails the
# bench when the bytes differ.
acm_copy() {
    rm -f "$GW/got.bin"
    timeout 900 head -c "$BYTES" "$2" >"$GW/got.bin" &
    _rd=$!
    sleep 0.5
    _t0=$(g_now)
    timeout 900 cat "$GW/src.bin" >"$1" || lh_fail "$PROVIDER: write to $1"
    wait "$_rd" ||
        lh_fail "$PROVIDER: read from $2 ($(stat -c %s "$GW/got.bin") of $BYTES bytes)"
    SECS=$(g_elapsed "$_t0")
    cmp -s "$GW/src.bin" "$GW/got.bin" ||
        lh_fail "$PROVIDER: bytes $1 -> $2 differ from those sent"
    rm -f "$GW/got.bin"
}

# acm_measure NAME: both directions, keeping the best of the rounds in
# O_<NAME> (host to gadget) and I_<NAME> (gadget to host), MB/s.
acm_measure() {
    stty -F "$TTY" raw -echo || lh_fail "stty raw $TTY"
    stty -F "$GSIDE" raw -echo || lh_fail "stty raw $GSIDE"
    # Both ends held open throughout: no hang-up, DTR stays up.
    exec 3<>"$TTY" 4<>"$GSIDE"
    _pid=
    [ "$PROVIDER" != ours ] || _pid=$OURS_PID
    _c0=$(b_cpu_now "$_pid")
    acm_copy "$TTY" "$GSIDE"
    _o=$(b_mbps "$BYTES" "$SECS")
    _os=$SECS
    _c1=$(b_cpu_now "$_pid")
    acm_copy "$GSIDE" "$TTY"
    _i=$(b_mbps "$BYTES" "$SECS")
    _c2=$(b_cpu_now "$_pid")
    exec 3>&- 4>&-
    lh_log "$1: host->gadget $_o MB/s ($_os s), gadget->host $_i MB/s ($SECS s), bytes equal"
    lh_log "$1: host->gadget: $(b_cpu_share "$_c0" "$_c1")"
    lh_log "$1: gadget->host: $(b_cpu_share "$_c1" "$_c2")"
    eval "O_$1=\$(b_best \"\$O_$1\" \"\$_o\") I_$1=\$(b_best \"\$I_$1\" \"\$_i\")"
    g_detach
    g_gadget_stop
}

row() { printf '%-30s %16s %16s\n' "$@"; }

# goal LABEL A B MIN: "LABEL: A/B = R, goal MIN: met|not met" per direction.
goal() {
    eval "_ao=\$O_$2 _ai=\$I_$2 _bo=\$O_$3 _bi=\$I_$3"
    _ro=$(b_ratio "$_ao" "$_bo")
    _ri=$(b_ratio "$_ai" "$_bi")
    row "$1" "$_ro" "$_ri"
    awk -v o="$_ro" -v i="$_ri" -v m="$4" -v l="$1" 'BEGIN {
        if (o == "-" || i == "-") exit
        printf "  goal %sx: host->gadget %s, gadget->host %s\n", m,
            (o + 0 >= m ? "met" : "NOT met"), (i + 0 >= m ? "met" : "NOT met") }'
}

guest_main() {
    BYTES=$(($2 * 1048576))
    REPS=$3
    cp /host/payload.bin "$GW/src.bin" || lh_fail "stage the payload"
    g_mod vhci-hcd cdc-acm
    O_ours='' I_ours='' O_vudc='' I_vudc='' O_dummy='' I_dummy=''
    _round=0
    while [ "$_round" -lt "$REPS" ]; do
        for _p in dummy vudc ours; do
            [ "$_p" != ours ] || [ "$1" = ours ] || continue
            acm_start "$_p"
            acm_measure "$_p"
        done
        _round=$((_round + 1))
    done
    g_no_hung_tasks
    {
        echo "linux-host bench, CDC ACM: $2 MiB each way through $TTY (raw), one guest"
        echo "($(uname -r), qemu TCG, $(nproc) vCPU, high speed, best of $REPS rounds)"
        row provider "host->gadget MB/s" "gadget->host MB/s"
        row "(a) ours, multi, USB/IP" "${O_ours:--}" "${I_ours:--}"
        row "(b) kernel f_acm, usbip-vudc" "$O_vudc" "$I_vudc"
        row "(c) kernel f_acm, dummy_hcd" "$O_dummy" "$I_dummy"
        goal "ratio ours/vudc" ours vudc 10
        goal "ratio ours/dummy" ours dummy 0.5
    } >/host/results.txt
}

lh_main "$@"
