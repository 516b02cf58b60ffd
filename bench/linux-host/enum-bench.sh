#!/bin/sh
# enum-bench.sh: where the enumeration time of a mass storage device goes,
# ours over USB/IP against the kernel's f_mass_storage on dummy_hcd and on
# usbip-vudc, in ONE qemu guest (tests/linux-host), with both values of
# the function's stall= setting: the kernel's configfs function defaults
# to stall=0, Linux's g_mass_storage and our examples to stall=1, and the
# setting changes how many round trips the SCSI scan takes (usb-storage's
# MODE SENSE(6) of all pages gets a short reply, which a stall=1 function
# ends with a halt of bulk-IN the host then clears).
#
# Each round attaches each provider once while usbmon (0u, every bus)
# records every URB, and measures from the start of the attach (usbip
# attach, or binding dummy_udc.0) until /dev/sda exists:
#   total   - what run-bench.sh calls enumeration;
#   attach  - the attach command alone (usbip attach: the tool's start,
#             its TCP connection, OP_REQ_IMPORT, the vhci sysfs write);
#   scan    - usbmon time from usb-storage's GET_MAX_LUN to the last bulk
#             completion (the SCSI scan: INQUIRY ... READ(10));
#   urbs    - URBs submitted in the trace; halts: CLEAR_FEATURE(HALT) of
#             bulk-IN.
# Prints the best (lowest) total of each and the ratios ours/dummy at the
# same stall setting. Only ratios of one run mean anything.
#
# Environment: LH_MASS_STORAGE (our binary, required), LH_BENCH_REPS
# (rounds; default 3), LH_BENCH_OUT (results file), LH_WORKDIR, LH_CACHE.
LH_LIB=${LH_LIB:-$(cd "$(dirname "$0")/../../tests/linux-host/lib" && pwd)}
. "$LH_LIB/common.sh"
. "$LH_LIB/bench.sh"

host_main() {
    h_init bench-enum
    [ -x "${LH_MASS_STORAGE:-}" ] || { lh_log "LH_MASS_STORAGE not set: skipped"; exit 77; }
    h_guest 1200 ours "${LH_BENCH_REPS:-3}"
    b_results "${LH_BENCH_OUT:-}"
}

# ---- guest half -------------------------------------------------------------

MON=/sys/kernel/debug/usb/usbmon/0u

# trace_stats TRACE: "URBS HALTS SCAN_S" of one usbmon text trace.
trace_stats() {
    awk '$3 == "S" { n++ }
         $3 == "S" && / s 02 01 0000 008[1-9a-f] / { h++ }
         $3 == "S" && / s a1 fe 0000 / && !lun { lun = $2 }
         $3 == "C" && $4 ~ /^B/ { last = $2 }
         END { printf "%d %d %.3f\n", n, h, (lun && last > lun) ? (last - lun) / 1e6 : 0 }' "$1"
}

# enumerate NAME: attach the started gadget under usbmon, wait for sda,
# record one round's figures in $GW/rounds.txt, then detach and stop.
enumerate() {
    _trace=$GW/mon-$1.txt
    cat "$MON" >"$_trace" &
    _cat=$!
    sleep 0.5	# the reader is in place before the first URB
    g_attach
    _a=$(g_elapsed "$ATTACH_T0")
    g_wait_block sda 120
    _t=$(g_elapsed "$ATTACH_T0")
    sleep 1	# the scan's last completions reach the trace
    kill "$_cat"
    wait "$_cat" 2>/dev/null
    # shellcheck disable=SC2046 # the stats are three words on purpose
    set -- "$1" "$_t" "$_a" $(trace_stats "$_trace")
    echo "$*" >>"$GW/rounds.txt"
    lh_log "$1: total $2 s, attach $3 s, urbs $4, halts $5, scan $6 s"
    g_detach
    g_gadget_stop
}

# best NAME: "TOTAL ATTACH URBS HALTS SCAN" of NAME's round with the lowest total.
best() {
    awk -v n="$1" '$1 == n && (b == "" || $2 + 0 < b + 0) { b = $2; r = $2 " " $3 " " $4 " " $5 " " $6 }
                   END { print r }' "$GW/rounds.txt"
}

# total NAME: the best total of NAME.
total() { best "$1" | cut -d' ' -f1; }

guest_main() {
    mount -t debugfs none /sys/kernel/debug 2>/dev/null
    g_mod usbmon
    [ -r "$MON" ] || lh_fail "no usbmon text interface at $MON"
    IMG=$GW/bench.img
    "$DD" if=/dev/zero of="$IMG" bs=1M count=64 status=none || lh_fail "make $IMG"
    : >"$GW/rounds.txt"
    _round=0
    while [ "$_round" -lt "$2" ]; do
        for _stall in 0 1; do
            g_gadget_start dummy "file=$IMG" "stall=$_stall"
            enumerate "dummy_stall$_stall"
            g_gadget_start vudc "file=$IMG" "stall=$_stall"
            enumerate "vudc_stall$_stall"
            g_gadget_start ours "file=$IMG" speed=high "stall=$_stall"
            enumerate "ours_stall$_stall"
        done
        _round=$((_round + 1))
    done
    g_no_hung_tasks
    {
        echo "linux-host enumeration bench: attach to /dev/sda, high speed, one guest"
        echo "($(uname -r), qemu TCG, $(nproc) vCPU, best of $2 rounds; times in s)"
        printf '%-14s %7s %7s %6s %6s %7s\n' provider total attach urbs halts scan
        for _p in dummy vudc ours; do
            for _stall in 0 1; do
                # shellcheck disable=SC2046,SC2183 # best gives five words
                printf '%-14s %7s %7s %6s %6s %7s\n' "${_p}_stall$_stall" \
                    $(best "${_p}_stall$_stall")
            done
        done
        for _stall in 0 1; do
            echo "ratio ours/dummy stall=$_stall: $(b_ratio "$(total "ours_stall$_stall")" \
                "$(total "dummy_stall$_stall")")"
            echo "ratio ours/vudc stall=$_stall: $(b_ratio "$(total "ours_stall$_stall")" \
                "$(total "vudc_stall$_stall")")"
        done
    } >/host/results.txt
}

lh_main "$@"
