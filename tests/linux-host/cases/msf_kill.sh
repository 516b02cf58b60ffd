#!/bin/sh
# msf_kill.sh PROVIDER: the gadget dies in the middle of a write.
# ours: kill -9 of mass_storage (its USB/IP connection drops); vudc: the
# kernel gadget is unbound from usbip-vudc mid-transfer (the nearest thing
# the kernel's own server has; it keeps the socket in the kernel).
# Guest: a loop of 64 MiB O_DIRECT writes runs; once writes reach the device
# the gadget goes; within a bound the writer fails and ends, sda is gone,
# no vhci port stays in use, the kernel logs no hung task, BUG or WARNING;
# then a fresh gadget enumerates again and its disk reads.
LH_LIB=${LH_LIB:-$(cd "$(dirname "$0")/../lib" && pwd)}
. "$LH_LIB/common.sh"

host_main() {
    h_init "msf_kill.$1"
    [ "$1" = ours ] || h_blank_image disk.img 64
    h_guest 300 "$1"
}

# sda_written: the host has written some sectors to sda.
sda_written() { [ "$(awk '{ print $7 }' /sys/class/block/sda/stat)" -gt 0 ]; }

# kill_gadget PROVIDER: the gadget dies.
kill_gadget() {
    case "$1" in
    ours)
        kill -9 "$OURS_PID" || lh_fail "kill -9 mass_storage"
        g_wait 10 "mass_storage to die" g_proc_gone "$OURS_PID"
        wait "$OURS_PID"
        _rc=$?
        g_ours_log
        [ "$_rc" = 137 ] || lh_fail "mass_storage exit status $_rc, expected 137 (SIGKILL)"
        OURS_PID= ;;
    vudc) g_kgadget_unbind ;;
    *) lh_fail "no kill for provider $1" ;;
    esac
}

guest_main() {
    if [ "$1" = ours ]; then
        g_gadget_start ours
    else
        g_stage disk.img
        g_gadget_start "$1" "file=$GW/disk.img"
    fi
    g_attach
    g_wait_block sda
    (
        while "$DD" if=/dev/zero of=/dev/sda bs=64k count=1024 oflag=direct \
            status=none; do :; done
        echo "writer ended"
    ) &
    _writer=$!
    g_wait 60 "writes to reach sda" sda_written
    _t0=$(g_now)
    kill_gadget "$1"
    lh_log "gadget gone; waiting for the host to recover"
    g_wait 90 "the writer to fail and end" g_proc_gone "$_writer"
    wait "$_writer"
    g_wait 60 "sda to go away" g_block_gone sda
    if [ -n "$BUSID" ]; then
        g_wait 60 "the vhci port to be free" g_no_vhci_port
    fi
    lh_log "host recovered $(g_elapsed "$_t0") s after the gadget went"
    g_no_hung_tasks

    # The host is usable again: a fresh gadget enumerates and reads.
    if [ "$1" = ours ]; then
        rm -f "$GW/disk.img"
        g_gadget_start ours
    else
        # A fresh usbip-vudc too: the old instance may still hold URBs of
        # the dead connection.
        g_usbipd_stop
        g_kgadget_remove
        rmmod usbip_vudc || lh_fail "rmmod usbip_vudc"
        g_gadget_start "$1" "file=$GW/disk.img"
    fi
    g_attach
    g_wait_block sda
    timeout 60 "$DD" if=/dev/sda of=/dev/null bs=64k count=16 iflag=direct status=none ||
        lh_fail "read from the new sda"
    lh_log "a new gadget enumerates and reads after the kill"
    g_detach
    g_gadget_stop
    g_no_hung_tasks
}

lh_main "$@"
