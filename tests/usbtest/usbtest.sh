#!/bin/sh
# usbtest.sh CONFIG: Linux's own USB test driver (usbtest.ko) against
# examples/gadget_zero over USB/IP ("ours") and, as the reference in the
# same guest, against the kernel's own function (usb_f_ss_lb through
# configfs on usbip-vudc, "kernel"). CONFIG: sourcesink, loopback, or
# sourcesink-ss: ours only, with speed=super on vhci's USB 3 root hub
# (usbip-vudc is high-speed only, so there is no reference: every case
# must pass), length 2048 and vary 1024 for the main cases (an IN URB
# shorter than the 1024-byte packets the source sends overflows, as on
# any SuperSpeed device, so vary must be a multiple of them).
#
# One guest boot per provider (a case stuck in one cannot starve the
# other). Guest: start the gadget, `usbip attach`, wait for
# usbtest to bind, run the cases with usbtest_run (iterations 100, length
# 1024, vary 512, sglen 32), then the unlink cases 11 and 12 with many
# iterations (ours also case 24) followed by a short bulk check (the
# device and host must not be left stuck), the isochronous cases with
# usbtest's alt=1, detach and stop the gadget (ours: SIGINT, exit 0).
# Host: print the per-case table; the test fails when one of our cases
# fails where the kernel's passes (or is n/a where the kernel's runs), or
# when ours does not pass the unlink stress, survive it or exit cleanly.
#
# Environment (tests/usbtest/CMakeLists.txt): LH_GADGET_ZERO (the binary),
# LH_USBTEST_RUN (tests/usbtest/usbtest_run), LH_WORKDIR, LH_CACHE,
# LH_REQUIRE=1 (missing qemu/kernel fail instead of skipping).
LH_LIB=${LH_LIB:-$(cd "$(dirname "$0")/../linux-host/lib" && pwd)}
. "$LH_LIB/common.sh"

# The cases of linux-host.md's reference run, per configuration. Loopback:
# usbtest has no loopback mode, so only the cases that do not expect
# sourced IN data or unbounded OUT sinking (bulk writes beyond qlen wait
# for the host to read the echo back, on Linux's f_loopback too).
SS_CASES="0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 17 18 19 20 21 24 27 28 29"
LB_CASES="0 9 10 13 14 21"
# Alternate setting 1: iso OUT/IN, and their unaligned-buffer variants.
ISO_CASES="15 16 22 23"
STRESS_ITER=1000

host_main() {
    cfg=$1
    case "$cfg" in
    sourcesink|loopback|sourcesink-ss) ;;
    *) lh_fail "usage: usbtest.sh sourcesink|loopback|sourcesink-ss" ;;
    esac
    missing=
    command -v qemu-system-x86_64 >/dev/null || missing="$missing qemu-system-x86_64"
    ls /boot/vmlinuz-* >/dev/null 2>&1 || missing="$missing /boot/vmlinuz-*"
    if [ -n "$missing" ]; then
        echo "missing:$missing" >&2
        [ "${LH_REQUIRE:-0}" = 1 ] && exit 1
        echo SKIP >&2
        exit 77
    fi
    [ -x "${LH_GADGET_ZERO:-}" ] || lh_fail "LH_GADGET_ZERO not set or not executable"
    [ -x "${LH_USBTEST_RUN:-}" ] || lh_fail "LH_USBTEST_RUN not set or not executable"
    base=${LH_WORKDIR:-${TMPDIR:-/tmp}/composite-usbtest}/usbtest.$cfg
    # LH_USBTEST_PROVIDERS reruns one side, keeping the other's results.
    providers=${LH_USBTEST_PROVIDERS:-ours kernel}
    [ "$cfg" = sourcesink-ss ] && providers=ours
    mkdir -p "$base"
    run_guest=$(cd "$LH_LIB/.." && pwd)/run-guest.sh
    # One guest per provider: a case stuck in one (the kernel's own
    # vudc path can wedge case 24 on a loaded machine) cannot starve the
    # other.
    for p in $providers; do
        work=$base/$p
        rm -rf "$work" "$base/$p.txt"
        mkdir -p "$work" || lh_fail "cannot create $work"
        # Two guest CPUs: usbtest's unlink loop (cases 11/12) spins in the
        # kernel retrying while vhci's receive thread completes the URB it
        # is unlinking; with one CPU and a device that answers at once
        # (ours), that thread never runs and the guest livelocks.
        "$run_guest" --timeout "${LH_USBTEST_TIMEOUT:-480}" --log "$work/console.log" \
            --smp "${LH_USBTEST_SMP:-2}" --quiet --bin "$LH_GADGET_ZERO" --bin "$LH_USBTEST_RUN" "$work" "$0" "$cfg" "$p"
        grc=$?
        echo "GUEST rc $grc" >>"$work/$p.txt"
        cp "$work/$p.txt" "$base/$p.txt" 2>/dev/null
        echo "---- $p (guest rc $grc) ----"
        cat "$work/$p.txt" 2>/dev/null
        [ "$grc" = 0 ] || tail -n 30 "$work/console.log"
    done
    h_table "$base" "$cfg"
}

# is_sourcesink CONFIG: sourcesink at either speed.
is_sourcesink() { [ "$1" = sourcesink ] || [ "$1" = sourcesink-ss ]; }

# h_result FILE CASE: pass|fail|n/a|stuck|- for CASE in FILE.
h_result() {
    r=$(sed -n "s/^usbtest case $2: \([a-z/]*\) .*/\1/p" "$1" 2>/dev/null | head -n 1)
    echo "${r:--}"
}

h_table() {
    w=$1
    if is_sourcesink "$2"; then cases=$SS_CASES; else cases=$LB_CASES; fi
    # Without a reference (sourcesink-ss), every case must pass.
    ref=pass
    [ "$2" = sourcesink-ss ] && ref=-
    bad=0
    printf '%-6s %-8s %-8s\n' case ours kernel
    for c in $cases; do
        o=$(h_result "$w/ours.txt" "$c")
        k=$(h_result "$w/kernel.txt" "$c")
        printf '%-6s %-8s %-8s\n' "$c" "$o" "$k"
        if [ "$o" != pass ] && [ "$k" = "$ref" ]; then bad=1; fi
        if [ "$o" = stuck ] || [ "$o" = - ]; then bad=1; fi
    done
    if is_sourcesink "$2"; then
        for c in $ISO_CASES; do
            o=$(sed -n "s/^ISO usbtest case $c: \([a-z/]*\) .*/\1/p" "$w/ours.txt" | head -n 1)
            k=$(sed -n "s/^ISO usbtest case $c: \([a-z/]*\) .*/\1/p" "$w/kernel.txt" | head -n 1)
            printf '%-6s %-8s %-8s (alt 1)\n' "$c" "${o:--}" "${k:--}"
            if [ "${o:--}" != pass ] && [ "${k:--}" = "$ref" ]; then bad=1; fi
        done
    fi
    for s in ours kernel; do
        printf 'stress %-6s: %s\n' "$s" "$(sed -n 's/^STRESS //p' "$w/$s.txt" | tr '\n' ' ')"
    done
    # The after-stress (or echo) check: ours as good as the kernel's.
    if ! grep -q '^STRESS after: pass' "$w/ours.txt" &&
        grep -q '^STRESS after: pass' "$w/kernel.txt"; then
        bad=1
    fi
    # Our unlink stress cases themselves must pass (sourcesink only).
    if is_sourcesink "$2"; then
        for c in 11 12 24; do
            grep -q "^STRESS usbtest case $c: pass" "$w/ours.txt" || bad=1
        done
    fi
    grep -q '^GADGET exit 0' "$w/ours.txt" || bad=1
    if [ "$bad" != 0 ]; then
        [ "$2" = sourcesink-ss ] && lh_fail "our Gadget Zero fails usbtest at SuperSpeed"
        lh_fail "our Gadget Zero fails usbtest where the kernel's passes"
    fi
    lh_log "PASS (logs in $w)"
}

# ---- guest --------------------------------------------------------------------

KG=/sys/kernel/config/usb_gadget/gz
GZ_PID=

gz_usbtest_bound() { ls /sys/bus/usb/drivers/usbtest/ 2>/dev/null | grep -q ':[0-9]*\.0$'; }
# gz_usbtest_rebind ALT: unbind usbtest from the interface and bind it
# again with its alt parameter set to ALT (-1: its own choice, alternate 0).
gz_usbtest_rebind() {
    _if=$(ls /sys/bus/usb/drivers/usbtest/ | grep ':[0-9]*\.0$' | head -n 1)
    [ -n "$_if" ] || lh_fail "usbtest is not bound"
    echo "$1" >/sys/module/usbtest/parameters/alt || lh_fail "usbtest alt=$1"
    echo "$_if" >/sys/bus/usb/drivers/usbtest/unbind
    echo "$_if" >/sys/bus/usb/drivers/usbtest/bind || lh_fail "rebind usbtest to $_if"
    g_wait 30 "usbtest to bind with alt=$1" gz_usbtest_bound
    dmesg | grep 'usbtest' | tail -n 1 | sed 's/^/REBIND /' >>"$out"
}

gz_attach_line() { grep -F -q "usbip attach -r 127.0.0.1 -b 1-1" "$GW/gadget_zero.log"; }

gz_start_ours() {
    extra=
    [ "$1" = loopback ] && extra=loopdefault=1
    [ "$1" = sourcesink-ss ] && extra=speed=super
    (cd "$GW" && exec "$ENV_CU" --default-signal=INT,QUIT gadget_zero $extra \
        >"$GW/gadget_zero.log" 2>&1) &
    GZ_PID=$!
    g_wait 30 "gadget_zero to print its attach line" gz_attach_line
    BUSID=1-1
}

gz_start_kernel() {
    g_mod configfs libcomposite usb_f_ss_lb usbip-vudc
    grep -q " /sys/kernel/config configfs" /proc/mounts ||
        mount -t configfs none /sys/kernel/config || lh_fail "mount configfs"
    mkdir "$KG" || lh_fail "mkdir $KG"
    echo 0x0525 >"$KG/idVendor"
    echo 0xa4a0 >"$KG/idProduct"
    mkdir "$KG/strings/0x409" "$KG/configs/c.1" "$KG/configs/c.1/strings/0x409"
    echo "Gadget Zero" >"$KG/strings/0x409/product"
    if [ "$1" = loopback ]; then f=Loopback.0; else f=SourceSink.0; fi
    mkdir "$KG/functions/$f" || lh_fail "mkdir functions/$f"
    ln -s "$KG/functions/$f" "$KG/configs/c.1/" || lh_fail "link $f"
    echo usbip-vudc.0 >"$KG/UDC" || lh_fail "bind to usbip-vudc.0"
    g_usbipd_device
    BUSID=usbip-vudc.0
}

gz_stop_kernel() {
    kill "$(pidof usbipd)" 2>/dev/null
    echo "" >"$KG/UDC"
    rm -f "$KG"/configs/c.1/*.0
    rmdir "$KG/configs/c.1/strings/0x409" "$KG/configs/c.1" "$KG"/functions/*.0 \
        "$KG/strings/0x409" "$KG"
    sleep 1
}

gz_detach() {
    for p in $(g_vhci_ports); do timeout 30 usbip detach -p "$p"; done
    g_wait 30 "vhci ports to be free" g_no_vhci_port
}

# gz_provider PROVIDER CONFIG: one provider's whole run into /host/PROVIDER.txt.
gz_provider() {
    out=/host/$1.txt
    : >"$out"
    if [ "$1" = ours ]; then gz_start_ours "$2"; else gz_start_kernel "$2"; fi
    timeout 30 usbip attach -r 127.0.0.1 -b "$BUSID" || { g_diag; lh_fail "attach $1"; }
    g_wait 30 "usbtest to bind to $1" gz_usbtest_bound
    dmesg | grep -E 'usbtest|New USB device' | tail -n 4 >>"$out"
    if [ "$2" = sourcesink-ss ]; then
        g_dmesg_has "new SuperSpeed USB device number" ||
            lh_fail "gadget_zero speed=super did not enumerate at SuperSpeed"
    fi
    if [ "$2" = loopback ]; then
        # The echo itself, first, on a fresh configuration (the halt and
        # control cases below leave echoes and halts behind): fewer writes
        # than qlen, then read them back. 1000 bytes end with a short
        # packet: no zero-length packet either way, one echo per read.
        if usbtest_run -n 16 -l 1000 -v 0 -t 60 1 2 >"$GW/echo" 2>&1; then
            echo "STRESS after: pass (echo 16 x 1000)" >>"$out"
        else
            echo "STRESS after: fail (echo)" >>"$out"
        fi
        sed 's/^/STRESS /' "$GW/echo" >>"$out"
    fi
    if is_sourcesink "$2"; then cases=$SS_CASES; else cases=$LB_CASES; fi
    lv="-l 1024 -v 512"
    [ "$2" = sourcesink-ss ] && lv="-l 2048 -v 1024"
    usbtest_run -n 100 $lv -g 32 -t 90 $cases >>"$out" 2>&1
    if grep -q ': stuck ' "$out"; then
        # A URB the host cannot get back: nothing after it would finish.
        echo "STUCK: skipping the rest" >>"$out"
        [ "$1" = ours ] && sed 's/^/GADGET /' "$GW/gadget_zero.log" >>"$out"
        dmesg | grep -v 'unlink->seqnum\|already given back\|unlink retry' |
            tail -n 40 | sed 's/^/DMESG /' >>"$out"
        sync
        return 0
    fi
    if is_sourcesink "$2"; then
        # Alternate setting 1 (isochronous): usbtest takes it with its
        # alt=1 parameter, read when it binds; rebind through sysfs.
        gz_usbtest_rebind 1
        usbtest_run -n 100 -l 1024 -v 512 -g 32 -t 90 $ISO_CASES >"$GW/iso" 2>&1
        sed 's/^/ISO /' "$GW/iso" >>"$out"
        gz_usbtest_rebind -1
    fi
    if is_sourcesink "$2"; then
        # Many unlinks, then plain bulk I/O must still work. Ours also
        # runs case 24 (unlinks that vhci can send ahead of their
        # submits) many times: it once got stuck about once in a thousand.
        # Not the kernel's: usbip-vudc itself can wedge there.
        stress_cases="11 12"
        [ "$1" = ours ] && stress_cases="11 12 24"
        usbtest_run -n $STRESS_ITER -l 1024 -v 512 -g 32 -t 240 $stress_cases >"$GW/stress" 2>&1
        sed 's/^/STRESS /' "$GW/stress" >>"$out"
        if usbtest_run -n 10 -l 1024 -t 60 0 1 2 9 >"$GW/after" 2>&1; then
            echo "STRESS after: pass" >>"$out"
        else
            echo "STRESS after: fail" >>"$out"
            sed 's/^/STRESS /' "$GW/after" >>"$out"
        fi
    fi
    gz_detach
    if [ "$1" = ours ]; then
        kill -INT "$GZ_PID"
        g_wait 30 "gadget_zero to exit after SIGINT" g_proc_gone "$GZ_PID"
        wait "$GZ_PID"
        echo "GADGET exit $?" >>"$out"
        sed 's/^/GADGET /' "$GW/gadget_zero.log" >>"$out"
    else
        gz_stop_kernel
    fi
    dmesg | grep -E 'usbtest.*(failed|error)|BUG|Oops|WARNING' | tail -n 20 |
        sed 's/^/DMESG /' >>"$out"
    sync
}

guest_main() {
    g_mod usbip-core vhci-hcd usbtest
    gz_provider "$2" "$1"
    dmesg >/host/dmesg.txt
    return 0
}

lh_main "$@"
