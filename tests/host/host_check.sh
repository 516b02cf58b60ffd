#!/bin/sh
# host_check.sh PROVIDER: host_check (tests/host, libusb-1.0) in the qemu
# guest of tests/linux-host against a 64 MiB mass storage disk attached
# through vhci-hcd. PROVIDER: ours (examples/mass_storage, profile "ours")
# or kernel (Linux's usb_f_mass_storage on usbip-vudc, profile "kernel").
#
# Guest, twice (one LUN, then luns=2 with --max-lun 1): start the gadget,
# attach, wait until usb-storage has scanned it (/dev/sda), run host_check
# (it detaches usb-storage, runs its checks and reattaches it), wait for the
# disk to come back, detach, stop the gadget (ours: SIGINT, exit 0). The case
# fails when a check fails, the disk does not come back, or the gadget does
# not exit cleanly.
# Host: host_check's lines land in the work folder as host_check.txt and
# host_check.luns2.txt, and are printed.
#
# Environment (tests/host/CMakeLists.txt): LH_HOST_CHECK (the binary),
# LH_MASS_STORAGE (ours), LH_WORKDIR, LH_CACHE, LH_REQUIRE=1 (missing qemu
# or kernel fail instead of skipping), LH_HOST_CHECK_ARGS (extra options,
# e.g. --verbose).
LH_LIB=${LH_LIB:-$(cd "$(dirname "$0")/../linux-host/lib" && pwd)}
. "$LH_LIB/common.sh"

host_main() {
    case "$1" in
    ours|kernel) ;;
    *) lh_fail "usage: host_check.sh ours|kernel" ;;
    esac
    h_init "host_check.$1"
    [ -x "${LH_HOST_CHECK:-}" ] || lh_fail "LH_HOST_CHECK not set or not executable"
    set -- "$1" --bin "$LH_HOST_CHECK"
    if [ "$1" = ours ]; then
        [ -x "${LH_MASS_STORAGE:-}" ] || lh_fail "LH_MASS_STORAGE not set or not executable"
        set -- "$@" --bin "$LH_MASS_STORAGE"
    fi
    _prov=$1
    shift
    h_blank_image disk.img 64
    "$LH_RUN_GUEST" --timeout "${LH_HOST_CHECK_TIMEOUT:-300}" \
        --log "$LH_WORK/console.log" --quiet "$@" \
        "$LH_WORK" "$0" "$_prov" ${LH_HOST_CHECK_ARGS:-}
    _rc=$?
    for _f in host_check host_check.luns2; do
        [ -f "$LH_WORK/$_f.txt" ] && { echo "---- $_f ----"; cat "$LH_WORK/$_f.txt"; }
    done
    if [ "$_rc" != 0 ]; then
        sed -n '/^\[guest\]\|FAIL\[guest\]/p' "$LH_WORK/console.log" | tail -n 20
        lh_fail "guest half failed (rc $_rc)"
    fi
}

hc_any_disk() { ls /sys/block/ 2>/dev/null | grep -q '^sd'; }

# hc_phase PROVIDER NAME GADGET-ARGS -- HOST_CHECK-ARGS: one gadget run with
# host_check's lines in /host/NAME.txt; HC_FAILED=1 when host_check failed.
hc_phase() {
    hcp_prov=$1 hcp_name=$2
    shift 2
    hcp_gargs=
    while [ $# -gt 0 ] && [ "$1" != -- ]; do hcp_gargs="$hcp_gargs $1"; shift; done
    shift
    if [ "$hcp_prov" = ours ]; then
        g_gadget_start ours $hcp_gargs
    else
        g_gadget_start vudc $hcp_gargs
    fi
    g_attach
    g_wait_block sda
    # Let sd finish its first reads; host_check starts with Reset Recovery
    # anyway, in case usb-storage is detached mid-command.
    sleep 2
    timeout 240 host_check --expect "$hcp_prov" "$@" >"/host/$hcp_name.txt" 2>&1
    hcp_rc=$?
    lh_log "$hcp_name: host_check --expect $hcp_prov $*: exit $hcp_rc ($(tail -n 1 "/host/$hcp_name.txt"))"
    grep -E '^(FAIL|KNOWN)' "/host/$hcp_name.txt"
    [ "$hcp_rc" = 0 ] || HC_FAILED=1
    # usb-storage was reattached: it scans the LUNs again.
    g_wait 60 "the disk to come back after host_check" hc_any_disk
    lh_log "disks back after host_check: $(ls /sys/block | grep '^sd' | tr '\n' ' ')"
    g_detach
    g_gadget_stop
}

guest_main() {
    hc_prov=$1
    shift
    command -v host_check >/dev/null || lh_fail "host_check is not on PATH"
    HC_FAILED=0
    g_stage disk.img
    cp "$GW/disk.img" "$GW/disk2.img" || lh_fail "copy disk2.img"
    hc_phase "$hc_prov" host_check "file=$GW/disk.img" -- "$@"
    hc_phase "$hc_prov" host_check.luns2 luns=2 "file=$GW/disk.img,$GW/disk2.img" -- \
        --max-lun 1 "$@"
    g_no_hung_tasks
    dmesg >/host/dmesg.txt
    [ "$HC_FAILED" = 0 ] || lh_fail "host_check failed"
}

lh_main "$@"
