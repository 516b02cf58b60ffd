# common.sh: sourced by every linux-host case script, on the host (bash or
# dash, from ctest) and in the guest (busybox sh, started by guest-init.sh).
#
# A case script holds both halves of a case: host_main (prepare images, boot
# the guest, check the images afterwards) and guest_main (drive the USB host
# side inside the guest). lh_main picks the half for the side it runs on and
# loads that side's helpers (host.sh or guest.sh). POSIX sh only: the same
# file runs under busybox ash.

lh_log() { echo "[${LH_SIDE:-?}] $*"; }

# lh_fail MSG: the case failed (a checked behaviour is wrong).
lh_fail() {
    echo "FAIL[${LH_SIDE:-?}]: $*" >&2
    exit 1
}

# lh_main ARGS...: run host_main or guest_main with ARGS.
lh_main() {
    if [ "${LH_IN_GUEST:-}" = 1 ]; then
        LH_SIDE=guest
        . "$LH_LIB/guest.sh"
        guest_main "$@"
    else
        LH_SIDE=host
        . "$LH_LIB/host.sh"
        host_main "$@"
    fi
}
