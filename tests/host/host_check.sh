#!/bin/sh
# host_check.sh PROVIDER: host_check (tests/host, libusb-1.0) in the qemu
# guest of tests/linux-host against a 64 MiB mass storage disk attached
# through vhci-hcd. PROVIDER: ours (examples/mass_storage, profile "ours")
# or kernel (Linux's usb_f_mass_storage on usbip-vudc, profile "kernel").
#
# Guest: start the gadget, attach, wait until usb-storage has scanned it
# (/dev/sda), run host_check (it detaches usb-storage, runs its checks and
# reattaches it), wait for the disk to come back, detach, stop the gadget
# (ours: SIGINT, exit 0). The case fails when a check fails, the disk does
# not come back, or the gadget does not exit cleanly.
# Host: host_check's lines land in the work folder as host_check.txt.
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
    [ -f "$LH_WORK/host_check.txt" ] && cat "$LH_WORK/host_check.txt"
    if [ "$_rc" != 0 ]; then
        sed -n '/^\[guest\]\|FAIL\[guest\]/p' "$LH_WORK/console.log" | tail -n 20
        lh_fail "guest half failed (rc $_rc)"
    fi
}

g_any_disk() { ls /sys/block/ 2>/dev/null | grep -q '^sd'; }

guest_main() {
    _prov=$1
    shift
    g_stage disk.img
    if [ "$_prov" = ours ]; then
        g_gadget_start ours "file=$GW/disk.img"
    else
        g_gadget_start vudc "file=$GW/disk.img"
    fi
    g_attach
    g_wait_block sda
    command -v host_check >/dev/null || lh_fail "host_check is not on PATH"
    timeout 240 host_check --expect "$_prov" "$@" >/host/host_check.txt 2>&1
    _hrc=$?
    lh_log "host_check --expect $_prov: exit $_hrc ($(tail -n 1 /host/host_check.txt))"
    grep -E '^(FAIL|KNOWN)' /host/host_check.txt
    # usb-storage was reattached: it scans the LUN again.
    g_wait 60 "the disk to come back after host_check" g_any_disk
    lh_log "disk back after host_check: $(ls /sys/block | grep '^sd' | tr '\n' ' ')"
    g_detach
    g_gadget_stop
    g_no_hung_tasks
    dmesg >/host/dmesg.txt
    [ "$_hrc" = 0 ] || lh_fail "host_check failed (exit $_hrc)"
}

lh_main "$@"
