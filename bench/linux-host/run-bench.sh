#!/bin/sh
# run-bench.sh: mass storage throughput against a real Linux host, in ONE
# qemu guest (see tests/linux-host): 64 MiB sequential write then read of the
# whole block device, dd bs=1M with O_DIRECT, for
#   (a) ours:     examples/mass_storage speed=super over USB/IP (when
#                 LH_MASS_STORAGE names the binary),
#   (a') ours_hs: the same at high speed (speed=high, its default),
#   (b) vudc:     the kernel's usb_f_mass_storage on usbip-vudc over USB/IP
#                 (high speed: vudc offers nothing faster),
#   (c) dummy:    the same function on dummy_hcd (no USB/IP; high speed,
#                 dummy_hcd's default),
#   (d) dummy_ss: the same on dummy_hcd is_super_speed=Y,
#   (d') dummy_ss128: (d) with the block device's max_sectors_kb set to 128,
#                 the command size vhci_hcd's 32 scatter-gather segments
#                 (its sg_tablesize) allow ours at SuperSpeed: (a) against
#                 (d') compares the gadgets at the same commands,
#   (e) gfs:      ours (examples/mass_storage udc=gadgetfs) on dummy_hcd
#                 through gadgetfs, high speed (gadgetfs offers nothing
#                 faster), the same dummy_hcd as (c),
# all backed by the same 64 MiB file in guest RAM. The speed matters beyond
# the name: usb-storage sends at most 240 sectors (120 KiB) per command to a
# high-speed device and 2048 (1 MiB) to a SuperSpeed one (over vhci, whose
# 32 scatter-gather segments hold 128 KiB of dd's scattered pages, 128 KiB;
# dummy_hcd has no such limit). Prints MB/s, the
# ratios and the enumeration time (usbip attach until the block device
# exists) of the USB/IP paths. Figures move with the machine; only the
# ratios of one run mean something.
#
# Environment: LH_MASS_STORAGE (binary for (a)), LH_BENCH_REPS (rounds of
# all providers in turn, the best of each kept; default 2: one round in a
# slow phase of a shared machine says more about the machine), LH_BENCH_OUT
# (results file; default $LH_WORKDIR/bench/results.txt), LH_BENCH_STRACE
# (set: also count our gadget's system calls, see strace_profile; "gfs":
# of ours on gadgetfs, anything else: ours over USB/IP), LH_BENCH_PROVIDERS
# (the providers measured, by name: "dummy gfs" for the gadgetfs pair;
# default all),
# LH_BENCH_STALL (the stall= setting of every provider, default 1: the
# kernel's configfs function defaults to 0, Linux's g_mass_storage and our
# examples to 1; it changes the enumeration's round trips, see
# enum-bench.sh), LH_WORKDIR, LH_CACHE as for the tests.
LH_LIB=${LH_LIB:-$(cd "$(dirname "$0")/../../tests/linux-host/lib" && pwd)}
. "$LH_LIB/common.sh"
. "$LH_LIB/bench.sh"

host_main() {
    h_init bench
    _out=${LH_BENCH_OUT:-$LH_WORK/results.txt}
    _reps=${LH_BENCH_REPS:-2}
    _stall=${LH_BENCH_STALL:-1}
    if [ -n "${LH_MASS_STORAGE:-}" ]; then
        h_guest 1800 ours "$_reps" "$_stall" "${LH_BENCH_STRACE:-}" \
            "${LH_BENCH_PROVIDERS:-dummy vudc dummy_ss dummy_ss128 ours ours_hs gfs}"
    else
        lh_log "LH_MASS_STORAGE not set: (a) ours is left out"
        h_guest 1800 none "$_reps" "$_stall" "" "${LH_BENCH_PROVIDERS:-dummy vudc dummy_ss dummy_ss128}"
    fi
    b_results "$_out"
}

# ---- guest half -------------------------------------------------------------

# rate_of LOG: MB/s (10^6 bytes/s) from coreutils dd's summary line
# "67108864 bytes (67 MB, 64 MiB) copied, 1.49 s, 45.0 MB/s".
rate_of() {
    awk '/bytes .* copied/ { b = $1; s = $(NF - 3); sub(",", "", s) }
         END { if (s > 0) printf "%.2f", b / s / 1e6; else print "?" }' "$1"
}

# dd_sda write|read MIB: MIB MiB of O_DIRECT I/O on /dev/sda in 1 MiB
# blocks; dd's report in $GW/dd.log.
dd_sda() {
    if [ "$1" = write ]; then
        timeout 900 "$DD" if=/dev/zero of=/dev/sda bs=1M count="$2" oflag=direct 2>"$GW/dd.log"
    else
        timeout 900 "$DD" if=/dev/sda of=/dev/null bs=1M count="$2" iflag=direct 2>"$GW/dd.log"
    fi
}

# strace_profile NAME: with strace in the image, our gadget's system calls
# (strace -c -f) during a 16 MiB write and a 16 MiB read, into
# /host/strace-NAME-{write,read}.txt; usb-storage sends at most 120 KiB a
# command at high speed, so 16 MiB is at least 137 commands. Diagnostic
# only: ptrace slows it down.
strace_profile() {
    command -v strace >/dev/null || { lh_log "no strace in the image"; return 0; }
    g_attach
    g_wait_block sda 120
    for _dir in write read; do
        strace -c -f -o "$GW/strace-$_dir.txt" -p "$OURS_PID" 2>/dev/null &
        _st=$!
        sleep 1
        dd_sda "$_dir" 16
        kill -INT "$_st"
        wait "$_st"
        cp "$GW/strace-$_dir.txt" "/host/strace-$1-$_dir.txt"
        lh_log "strace $1 $_dir ($(rate_of "$GW/dd.log") MB/s while traced):"
        cat "$GW/strace-$_dir.txt"
    done
    g_detach
    g_gadget_stop
}

# queue_limits: sda's request queue limits, for the log: what the host
# controller driver lets usb-storage send per command.
queue_limits() {
    _q=/sys/block/sda/queue
    echo "max_segments $(cat $_q/max_segments) max_hw_sectors_kb" \
         "$(cat $_q/max_hw_sectors_kb) max_sectors_kb $(cat $_q/max_sectors_kb)"
}

# measure NAME [MAX_KB]: enumeration, then write and read of the whole of
# sda (commands capped at MAX_KB KiB when given), then detach and stop;
# keeps the best of the rounds in W_<NAME>, R_<NAME> (MB/s) and E_<NAME> (s).
measure() {
    g_attach
    g_wait_block sda 120
    _e=$(g_elapsed "$ATTACH_T0")
    if [ -n "${2:-}" ]; then
        echo "$2" >/sys/block/sda/queue/max_sectors_kb || lh_fail "$1: max_sectors_kb $2"
    fi
    lh_log "$1: $(queue_limits)"
    [ "$(g_sectors sda)" = 131072 ] || lh_fail "$1: sda is not 64 MiB"
    _pid=
    case $PROVIDER in ours|gfs) _pid=$OURS_PID ;; esac
    _c0=$(b_cpu_now "$_pid")
    dd_sda write 64 || { cat "$GW/dd.log"; lh_fail "$1: write"; }
    _w=$(rate_of "$GW/dd.log")
    _c1=$(b_cpu_now "$_pid")
    dd_sda read 64 || { cat "$GW/dd.log"; lh_fail "$1: read"; }
    _r=$(rate_of "$GW/dd.log")
    _c2=$(b_cpu_now "$_pid")
    lh_log "$1: write $_w MB/s, read $_r MB/s, enumeration $_e s"
    lh_log "$1: write: $(b_cpu_share "$_c0" "$_c1"); read: $(b_cpu_share "$_c1" "$_c2")"
    eval "W_$1=\$(b_best \"\$W_$1\" \"\$_w\") R_$1=\$(b_best \"\$R_$1\" \"\$_r\")"
    eval "E_$1=\$(b_lowest \"\$E_$1\" \"\$_e\")"
    g_detach
    g_gadget_stop
}

# provider_max_kb NAME: the command size cap of provider NAME (KiB), or
# nothing.
provider_max_kb() { [ "$1" = dummy_ss128 ] && echo 128; }

# row LABEL WRITE READ ENUM: one line of the results table.
row() { printf '%-28s %12s %12s %16s\n' "$@"; }

# ratios LABEL A B: the write, read and enumeration ratios of providers A/B.
ratios() {
    eval "_aw=\$W_$2 _ar=\$R_$2 _ae=\$E_$2 _bw=\$W_$3 _br=\$R_$3 _be=\$E_$3"
    row "$1" "$(b_ratio "$_aw" "$_bw")" "$(b_ratio "$_ar" "$_br")" "$(b_ratio "$_ae" "$_be")"
}

guest_main() {
    REPS=$2
    STALL=$3
    IMG=$GW/bench.img
    # Same backing store for all: 64 MiB of real (not sparse) tmpfs pages.
    "$DD" if=/dev/zero of="$IMG" bs=1M count=64 status=none || lh_fail "make $IMG"

    W_dummy='' R_dummy='' E_dummy='' W_vudc='' R_vudc='' E_vudc=''
    W_dummy_ss='' R_dummy_ss='' E_dummy_ss='' W_dummy_ss128='' R_dummy_ss128='' E_dummy_ss128=''
    W_ours='' R_ours='' E_ours='' W_ours_hs='' R_ours_hs='' E_ours_hs=''
    W_gfs='' R_gfs='' E_gfs=''
    # Rounds of all providers in turn, so a change in the machine's load
    # hits every provider alike.
    _round=0
    while [ "$_round" -lt "$REPS" ]; do
        for _p in $5; do
            case $_p in
            dummy | vudc | dummy_ss) g_gadget_start "$_p" "file=$IMG" "stall=$STALL" ;;
            dummy_ss128) g_gadget_start dummy_ss "file=$IMG" "stall=$STALL" ;;
            ours) [ "$1" = ours ] && g_gadget_start ours "file=$IMG" speed=super "stall=$STALL" ;;
            ours_hs) [ "$1" = ours ] && g_gadget_start ours "file=$IMG" speed=high "stall=$STALL" ;;
            gfs) [ "$1" = ours ] && g_gadget_start gfs "file=$IMG" "stall=$STALL" ;;
            *) lh_fail "LH_BENCH_PROVIDERS: unknown provider $_p" ;;
            esac && measure "$_p" "$(provider_max_kb "$_p")"
        done
        _round=$((_round + 1))
    done
    if [ "$1" = ours ] && [ -n "${4:-}" ]; then
        if [ "$4" = gfs ]; then
            g_gadget_start gfs "file=$IMG"
        else
            g_gadget_start ours "file=$IMG" speed=super
        fi
        strace_profile "$PROVIDER"
    fi
    g_no_hung_tasks

    {
        echo "linux-host bench: 64 MiB sequential, dd bs=1M O_DIRECT, one guest"
        echo "($(uname -r), qemu TCG, $(nproc) vCPU, best of $REPS rounds, stall=$STALL)"
        row provider "write MB/s" "read MB/s" "enumeration s"
        row "(a) ours, USB/IP, SS" "${W_ours:--}" "${R_ours:--}" "${E_ours:--}"
        row "(a') ours, USB/IP, HS" "${W_ours_hs:--}" "${R_ours_hs:--}" "${E_ours_hs:--}"
        row "(b) kernel, usbip-vudc, HS" "$W_vudc" "$R_vudc" "$E_vudc"
        row "(c) kernel, dummy_hcd, HS" "$W_dummy" "$R_dummy" "$E_dummy"
        row "(d) kernel, dummy_hcd, SS" "$W_dummy_ss" "$R_dummy_ss" "$E_dummy_ss"
        row "(d') dummy_hcd SS, 128 KiB" "$W_dummy_ss128" "$R_dummy_ss128" "$E_dummy_ss128"
        row "(e) ours, gadgetfs, dummy HS" "${W_gfs:--}" "${R_gfs:--}" "${E_gfs:--}"
        ratios "ratio ours/vudc" ours vudc
        ratios "ratio ours/dummy" ours dummy
        ratios "ratio ours/dummy SS" ours dummy_ss
        ratios "ratio ours/dummy SS 128 KiB" ours dummy_ss128
        ratios "ratio ours HS/vudc" ours_hs vudc
        ratios "ratio ours HS/dummy" ours_hs dummy
        ratios "ratio gadgetfs/dummy HS" gfs dummy
    } >/host/results.txt
}

lh_main "$@"
