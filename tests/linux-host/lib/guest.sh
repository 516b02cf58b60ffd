# guest.sh: helpers for the guest half of a linux-host case (busybox sh in
# the qemu guest, loaded by lh_main from common.sh).
#
# Owns: waiting with bounds, module loading, dmesg checks, the three gadget
# providers a case can run against (ours = examples/mass_storage over USB/IP,
# vudc = the kernel's own usb_f_mass_storage on usbip-vudc exported by
# `usbipd --device`, dummy = the same function on dummy_hcd, no USB/IP), USB/IP
# attach and detach, and the partition/format/copy/verify exercise of a disk.
# Touches only the guest, its /tmp and the share (/host).
#
# busybox here prefers its applets over PATH: the real dd, fdisk and env are
# called by full path.

DD=/usr/bin/dd
SFDISK=/usr/sbin/sfdisk
MKFS_FAT=/usr/sbin/mkfs.fat
ENV_CU=/usr/bin/env
CFS=/sys/kernel/config
KGADGET=$CFS/usb_gadget/lh
GW=/tmp/w            # guest-local work folder (tmpfs)

mkdir -p "$GW"

g_now() { cut -d' ' -f1 /proc/uptime; }

# g_elapsed T0: seconds since g_now returned T0, two decimals.
g_elapsed() { awk -v a="$1" -v b="$(g_now)" 'BEGIN { printf "%.2f", b - a }'; }

# g_wait SECS DESC CMD...: poll CMD every 0.1 s until it succeeds; fail the
# case naming DESC when SECS pass.
g_wait() {
    _gw_limit=$1
    _gw_desc=$2
    shift 2
    _gw_t0=$(g_now)
    while ! "$@" >/dev/null 2>&1; do
        if awk -v a="$_gw_t0" -v b="$(g_now)" -v l="$_gw_limit" \
            'BEGIN { exit !(b - a > l) }'; then
            g_diag
            lh_fail "timed out after ${_gw_limit}s waiting for $_gw_desc"
        fi
        sleep 0.1
    done
}

# g_diag: state worth seeing when a guest step fails.
g_diag() {
    echo "---- guest diagnostics ----" >&2
    ls /sys/block >&2 2>/dev/null
    usbip port >&2 2>/dev/null
    dmesg | tail -n 40 >&2
    echo "---------------------------" >&2
}

g_mod() {
    for _gm in "$@"; do
        modprobe "$_gm" || lh_fail "modprobe $_gm"
    done
}

# g_expect_dmesg STR [SECS]: STR (fixed string) appears in the kernel log,
# waiting up to SECS (default 10).
g_expect_dmesg() {
    g_wait "${2:-10}" "kernel log line \"$1\"" g_dmesg_has "$1"
    lh_log "dmesg has: $1"
}
g_dmesg_has() { dmesg | grep -F -q -- "$1"; }

# g_expect_seed_lines: the three host log lines of the seed article (a
# 64 MiB disk from VID 0525 PID a4a5).
g_expect_seed_lines() {
    g_expect_dmesg "New USB device found, idVendor=0525, idProduct=a4a5" 30
    g_expect_dmesg "131072 512-byte logical blocks: (67.1 MB/64.0 MiB)" 60
    # Wait for either form, then insist on the removable one.
    g_wait 60 'kernel log line "Attached SCSI ... disk"' g_dmesg_has "] Attached SCSI "
    g_dmesg_has "Attached SCSI removable disk" ||
        lh_fail "host log: $(dmesg | grep -o 'Attached SCSI.*' | head -n 1), not \"Attached SCSI removable disk\""
    lh_log "dmesg has: Attached SCSI removable disk"
}

g_block_ready() { [ -e "/sys/class/block/$1" ] && [ -b "/dev/$1" ]; }
g_block_gone() { ! [ -e "/sys/class/block/$1" ]; }

# g_wait_block NAME [SECS]: /dev/NAME is there (default 60 s).
g_wait_block() { g_wait "${2:-60}" "block device $1" g_block_ready "$1"; }

# g_host_modules: the USB host side's drivers. Nothing autoloads modules
# in this initramfs (no udev), so they are loaded before any attach.
g_host_modules() {
    g_mod usb-storage sd_mod sr_mod sg vhci-hcd nls_cp437 nls_ascii \
        nls_iso8859-1 vfat isofs
}

# g_configfs [MODULE...]: configfs mounted, libcomposite and the function
# modules MODULE (default usb_f_mass_storage) loaded.
g_configfs() {
    [ $# -gt 0 ] || set -- usb_f_mass_storage
    g_mod configfs libcomposite "$@"
    grep -q " $CFS configfs" /proc/mounts || mount -t configfs none "$CFS" ||
        lh_fail "mount configfs"
}

# g_kgadget_new VID PID PRODUCT MODULE [CONFIG]: an empty configfs gadget $KGADGET
# (high speed, strings, configuration c.1) with MODULE, the function's
# kernel module, loaded (configuration string CONFIG, default PRODUCT); the
# caller adds the function.
g_kgadget_new() {
    g_configfs "$4"
    mkdir "$KGADGET" || lh_fail "mkdir $KGADGET"
    echo "$1" >"$KGADGET/idVendor"
    echo "$2" >"$KGADGET/idProduct"
    echo 0x0200 >"$KGADGET/bcdUSB"
    mkdir "$KGADGET/strings/0x409"
    echo "linux-host reference" >"$KGADGET/strings/0x409/manufacturer"
    echo "$3" >"$KGADGET/strings/0x409/product"
    echo "0123456789ab" >"$KGADGET/strings/0x409/serialnumber"
    mkdir "$KGADGET/configs/c.1" "$KGADGET/configs/c.1/strings/0x409"
    echo "${5:-$3}" >"$KGADGET/configs/c.1/strings/0x409/configuration"
    echo 100 >"$KGADGET/configs/c.1/MaxPower"
}

# g_kgadget_link FUNC: the configfs function FUNC (e.g. acm.usb0) in c.1.
g_kgadget_link() {
    ln -s "$KGADGET/functions/$1" "$KGADGET/configs/c.1/" || lh_fail "link $1"
}

# g_list_nth LIST N: the Nth (0-based) item of a comma-separated LIST, or
# nothing.
g_list_nth() { echo "$1" | awk -F, -v n="$2" '{ if (n < NF) print $(n + 1) }'; }

# g_kmsf_create ARGS...: the kernel's own mass storage gadget in configfs,
# 0525:a4a5 like the seed article, with mass_storage-style ARGS (file=, ro=,
# removable=, cdrom=, nofua=, luns=, stall=, inquiry_string=; lists are
# comma-separated, one item per LUN). Not bound to a UDC yet.
g_kmsf_create() {
    _files='' _ro='' _rm='' _cd='' _nofua='' _luns='' _stall='' _inq=''
    for _a in "$@"; do
        case "$_a" in
        file=*) _files=${_a#file=} ;;
        ro=*) _ro=${_a#ro=} ;;
        removable=*) _rm=${_a#removable=} ;;
        cdrom=*) _cd=${_a#cdrom=} ;;
        nofua=*) _nofua=${_a#nofua=} ;;
        luns=*) _luns=${_a#luns=} ;;
        stall=*) _stall=${_a#stall=} ;;
        inquiry_string=*) _inq=${_a#inquiry_string=} ;;
        *) lh_fail "g_kmsf_create: unknown argument $_a" ;;
        esac
    done
    if [ -z "$_luns" ]; then
        _luns=$(echo "$_files" | awk -F, '{ print (NF > 0 ? NF : 1) }')
    fi
    # The configuration string host_check expects of the reference.
    g_kgadget_new 0x0525 0xa4a5 "kernel mass storage" usb_f_mass_storage "mass storage"
    _f=$KGADGET/functions/mass_storage.0
    mkdir "$_f" || lh_fail "mkdir $_f"
    [ -n "$_stall" ] && echo "$_stall" >"$_f/stall"
    _i=0
    while [ "$_i" -lt "$_luns" ]; do
        _l=$_f/lun.$_i
        [ -d "$_l" ] || mkdir "$_l" || lh_fail "mkdir $_l"
        _v=$(g_list_nth "$_rm" "$_i"); [ -n "$_v" ] && echo "$_v" >"$_l/removable"
        _v=$(g_list_nth "$_cd" "$_i"); [ -n "$_v" ] && echo "$_v" >"$_l/cdrom"
        _v=$(g_list_nth "$_ro" "$_i"); [ -n "$_v" ] && echo "$_v" >"$_l/ro"
        _v=$(g_list_nth "$_nofua" "$_i"); [ -n "$_v" ] && echo "$_v" >"$_l/nofua"
        [ -n "$_inq" ] && echo "$_inq" >"$_l/inquiry_string"
        _v=$(g_list_nth "$_files" "$_i")
        if [ -n "$_v" ]; then
            echo "$_v" >"$_l/file" || lh_fail "lun.$_i: cannot open $_v"
        fi
        _i=$((_i + 1))
    done
    g_kgadget_link mass_storage.0
}

# g_kacm_create: the kernel's CDC ACM function (usb_f_acm, g_serial's
# 0525:a4a7) in configfs, not bound yet; KACM_TTY is its gadget-side tty
# (/dev/ttyGS<port_num>).
g_kacm_create() {
    g_kgadget_new 0x0525 0xa4a7 "kernel CDC ACM" usb_f_acm
    mkdir "$KGADGET/functions/acm.usb0" || lh_fail "mkdir acm.usb0"
    KACM_TTY=/dev/ttyGS$(cat "$KGADGET/functions/acm.usb0/port_num")
    g_kgadget_link acm.usb0
}

# The HID specification's boot keyboard report descriptor (HID 1.11,
# appendix B.1), as src/functions/hid's hid_boot_keyboard_report_desc.
G_BOOT_KEYBOARD_DESC="05 01 09 06 a1 01 05 07 19 e0 29 e7 15 00 25 01 75 01
    95 08 81 02 95 01 75 08 81 03 95 05 75 01 05 08 19 01 29 05 91 02 95 01
    75 03 91 03 95 06 75 08 15 00 25 65 05 07 19 00 29 65 81 00 c0"

# g_khid_create: the kernel's HID function (usb_f_hid, g_hid's 0525:a4ac)
# as a boot keyboard (subclass 1, protocol 1, 8-byte reports) in configfs,
# not bound yet; its gadget side is /dev/hidg0 once bound.
g_khid_create() {
    g_kgadget_new 0x0525 0xa4ac "kernel HID keyboard" usb_f_hid
    _f=$KGADGET/functions/hid.usb0
    mkdir "$_f" || lh_fail "mkdir hid.usb0"
    echo 1 >"$_f/subclass"
    echo 1 >"$_f/protocol"
    echo 8 >"$_f/report_length"
    # One write of the binary descriptor (octal escapes for printf).
    # shellcheck disable=SC2059
    printf "$(for _x in $G_BOOT_KEYBOARD_DESC; do printf '\\%03o' "0x$_x"; done)" \
        >"$_f/report_desc" || lh_fail "hid.usb0 report_desc"
    g_kgadget_link hid.usb0
}

# g_kecm_create: the kernel's CDC ECM function (usb_f_ecm, g_ether's
# 0525:a4a1) in configfs; its gadget-side interface is named at bind.
g_kecm_create() {
    g_kgadget_new 0x0525 0xa4a1 "kernel CDC ECM" usb_f_ecm
    mkdir "$KGADGET/functions/ecm.usb0" || lh_fail "mkdir ecm.usb0"
    g_kgadget_link ecm.usb0
}

# g_kncm_create: the kernel's CDC NCM function (usb_f_ncm, g_ncm's
# 0525:a4a1) in configfs; its gadget-side interface is named at bind.
g_kncm_create() {
    g_kgadget_new 0x0525 0xa4a1 "kernel CDC NCM" usb_f_ncm
    mkdir "$KGADGET/functions/ncm.usb0" || lh_fail "mkdir ncm.usb0"
    g_kgadget_link ncm.usb0
}

g_kgadget_bind() { echo "$1" >"$KGADGET/UDC" || lh_fail "bind gadget to $1"; }
g_kgadget_unbind() {
    [ -n "$(cat "$KGADGET/UDC" 2>/dev/null)" ] || return 0
    echo "" >"$KGADGET/UDC" || lh_fail "unbind gadget"
}

g_kgadget_remove() {
    [ -d "$KGADGET" ] || return 0
    g_kgadget_unbind
    for _c in "$KGADGET"/configs/*; do
        for _l in "$_c"/*; do [ -L "$_l" ] && rm -f "$_l"; done
        rmdir "$_c"/strings/* "$_c"
    done
    for _f in "$KGADGET"/functions/*; do
        for _l in "$_f"/lun.*; do
            [ -d "$_l" ] && [ "${_l##*/}" != lun.0 ] && rmdir "$_l"
        done
        rmdir "$_f"
    done
    rmdir "$KGADGET"/strings/* "$KGADGET" || lh_fail "configfs teardown"
}

g_port_open() { netstat -ltn 2>/dev/null | grep -q ":$1 "; }

# g_usbipd_device: the kernel's gadget-side USB/IP server for usbip-vudc.
g_usbipd_device() {
    usbipd --device -D || lh_fail "usbipd --device -D"
    g_wait 20 "usbipd listening on 3240" g_port_open 3240
}

# ---- our example binaries (provider "ours") ---------------------------------

OURS_BIN=
OURS_LOG=
OURS_PID=

# g_ours_start BIN ARGS...: start one of our gadget programs (mass_storage,
# gadget_zero; on PATH through run-guest.sh --bin) in the background, cwd
# $GW, with SIGINT/SIGQUIT at their defaults (a background job of a
# non-interactive shell would inherit them ignored), and wait (bounded) for
# the line it prints when ready: OURS_READY, default the attach line for
# busid 1-1.
OURS_READY="usbip attach -r 127.0.0.1 -b 1-1"
g_ours_start() {
    OURS_BIN=$1
    shift
    OURS_LOG=$GW/$OURS_BIN.log
    command -v "$OURS_BIN" >/dev/null ||
        lh_fail "$OURS_BIN is not on PATH (run-guest.sh --bin)"
    (cd "$GW" && exec "$ENV_CU" --default-signal=INT,QUIT "$OURS_BIN" "$@" \
        >"$OURS_LOG" 2>&1) &
    OURS_PID=$!
    lh_log "$OURS_BIN $* (pid $OURS_PID)"
    _ol_t0=$(g_now)
    while ! grep -F -q "$OURS_READY" "$OURS_LOG"; do
        if ! g_proc_alive "$OURS_PID" ||
            awk -v a="$_ol_t0" -v b="$(g_now)" 'BEGIN { exit !(b - a > 30) }'; then
            g_ours_log
            lh_fail "$OURS_BIN printed no \"$OURS_READY\" line"
        fi
        sleep 0.1
    done
    g_proc_alive "$OURS_PID" || { cat "$OURS_LOG"; lh_fail "$OURS_BIN died"; }
}

# g_proc_alive PID: running (a zombie counts as gone).
g_proc_alive() {
    [ -r "/proc/$1/stat" ] || return 1
    _st=$(sed 's/^.*) \([A-Z]\).*/\1/' "/proc/$1/stat")
    [ "$_st" != Z ] && [ "$_st" != X ]
}
g_proc_gone() { ! g_proc_alive "$1"; }

# g_ours_stop [SIG]: signal our program (default INT), wait (bounded), keep
# its output on the share and check it exited 0.
g_ours_stop() {
    _sig=${1:-INT}
    kill "-$_sig" "$OURS_PID" || lh_fail "kill -$_sig $OURS_BIN"
    g_wait 30 "$OURS_BIN to exit after SIG$_sig" g_proc_gone "$OURS_PID"
    wait "$OURS_PID"
    _rc=$?
    g_ours_log
    [ "$_rc" = 0 ] || lh_fail "$OURS_BIN exited $_rc after SIG$_sig"
    lh_log "$OURS_BIN exited 0 after SIG$_sig"
    OURS_PID=
}

# g_ours_log: our program's output, on the console and on the share.
g_ours_log() {
    cp "$OURS_LOG" /host/ 2>/dev/null
    lh_log "$OURS_BIN output:"
    sed 's/^/    /' "$OURS_LOG"
}

# ---- providers ---------------------------------------------------------------
# g_gadget_start PROVIDER ARGS...: start a mass storage gadget (mass_storage
# style ARGS) and set BUSID for g_attach (empty for dummy, which connects on
# bind). dummy_ss: dummy with is_super_speed=Y (for the bench).

g_gadget_start() {
    PROVIDER=$1
    shift
    g_host_modules
    case "$PROVIDER" in
    ours)
        g_ours_start mass_storage "$@"
        BUSID=1-1 ;;
    gfs)
        g_gfs_start mass_storage "$@" ;;
    article)
        # The seed article's driver as printed, run by the module runner;
        # removable=1 as the article's host log shows a removable disk.
        g_ours_start g_my_mass_storage removable=1 "$@"
        BUSID=1-1 ;;
    vudc|dummy|dummy_ss)
        g_kmsf_create "$@"
        g_kgadget_connect "$PROVIDER" ;;
    *) lh_fail "unknown provider $PROVIDER" ;;
    esac
}

# g_kgadget_connect vudc|dummy|dummy_ss: make the configfs gadget reachable
# for g_attach: vudc binds it to usbip-vudc.0 and serves it with usbipd
# (BUSID usbip-vudc.0); dummy loads dummy_hcd (high speed, or SuperSpeed
# for dummy_ss) and leaves BUSID empty (g_attach binds dummy_udc.0).
g_kgadget_connect() {
    case "$1" in
    vudc)
        g_mod usbip-vudc
        g_kgadget_bind usbip-vudc.0
        g_usbipd_device
        BUSID=usbip-vudc.0 ;;
    dummy|dummy_ss)
        g_dummy_hcd "$([ "$1" = dummy_ss ] && echo Y || echo N)"
        BUSID= ;;
    *) lh_fail "g_kgadget_connect: unknown provider $1" ;;
    esac
}

# g_dummy_hcd Y|N: dummy_hcd loaded with is_super_speed=Y|N (it reads the
# parameter at load, so a change reloads it; no gadget may be bound).
g_dummy_hcd() {
    _ss=/sys/module/dummy_hcd/parameters/is_super_speed
    if [ -r "$_ss" ] && [ "$(cat "$_ss")" != "$1" ]; then
        rmmod dummy_hcd || lh_fail "rmmod dummy_hcd"
    fi
    [ -r "$_ss" ] || modprobe dummy_hcd is_super_speed="$1" ||
        lh_fail "modprobe dummy_hcd is_super_speed=$1"
}

# ---- ours on gadgetfs + dummy_hcd (provider "gfs") ----------------------------
GFS_MNT=/dev/gadget
GFS_UDC=dummy_udc.0

# g_gfs_prepare: dummy_hcd (high speed) and gadgetfs loaded, gadgetfs
# mounted on $GFS_MNT (after dummy_hcd: gadgetfs takes the UDC free at mount).
g_gfs_prepare() {
    g_dummy_hcd N
    g_mod gadgetfs
    # Mounted on another UDC (usbip-vudc was free first): mount again with
    # dummy_udc the only free one.
    if grep -q " $GFS_MNT gadgetfs" /proc/mounts && ! [ -e "$GFS_MNT/dummy_udc" ]; then
        umount "$GFS_MNT" || lh_fail "umount $GFS_MNT"
    fi
    if ! grep -q " $GFS_MNT gadgetfs" /proc/mounts; then
        if [ -d /sys/module/usbip_vudc ]; then
            rmmod usbip_vudc || lh_fail "rmmod usbip_vudc (gadgetfs would take its UDC)"
        fi
        mkdir -p "$GFS_MNT"
        mount -t gadgetfs gadgetfs "$GFS_MNT" || lh_fail "mount gadgetfs on $GFS_MNT"
    fi
}

# g_gfs_start BIN ARGS...: our program BIN with udc=gadgetfs on dummy_udc.0;
# it connects to the guest's host when it binds (BUSID empty).
g_gfs_start() {
    g_gfs_prepare
    _gb=$1
    shift
    _or=$OURS_READY
    OURS_READY="serving on controller"
    g_ours_start "$_gb" "udc=gadgetfs:$GFS_UDC" "$@"
    OURS_READY=$_or
    BUSID=
    GFS_DETACHED=0
}

# g_gfs_connect on|off: dummy_hcd's pullup (/sys/class/udc soft_connect).
g_gfs_connect() {
    echo "$([ "$1" = on ] && echo connect || echo disconnect)" \
        >"/sys/class/udc/$GFS_UDC/soft_connect" || lh_fail "soft_connect $1"
}

# g_attach: connect the gadget to the guest's USB host; ATTACH_T0 is when.
g_attach() {
    ATTACH_T0=$(g_now)
    if [ "$PROVIDER" = gfs ]; then
        # connected when it bound; after a g_detach, the pullup again
        [ "${GFS_DETACHED:-0}" = 1 ] && g_gfs_connect on
        GFS_DETACHED=0
    elif [ -n "$BUSID" ]; then
        timeout 30 usbip attach -r 127.0.0.1 -b "$BUSID" ||
            { g_diag; lh_fail "usbip attach -r 127.0.0.1 -b $BUSID"; }
    else
        g_kgadget_bind dummy_udc.0
    fi
}

# g_vhci_ports: vhci ports in use.
g_vhci_ports() {
    usbip port 2>/dev/null | sed -n 's/^Port \([0-9]*\): <Port in Use>.*/\1/p'
}
g_no_vhci_port() { [ -z "$(g_vhci_ports)" ]; }

# g_detach: disconnect from the host side (usbip detach of every port in use,
# or unbinding the dummy UDC), then wait until the disks are gone.
g_detach() {
    if [ -n "$BUSID" ]; then
        for _p in $(g_vhci_ports); do
            timeout 30 usbip detach -p "$_p" || lh_fail "usbip detach -p $_p"
        done
        g_wait 30 "vhci ports to be free" g_no_vhci_port
    elif [ "$PROVIDER" = gfs ]; then
        g_gfs_connect off
        GFS_DETACHED=1
    else
        g_kgadget_unbind
    fi
    for _b in /sys/block/sd* /sys/block/sr*; do
        [ -e "$_b" ] && g_wait 30 "${_b#/sys/block/} to go away" g_block_gone "${_b#/sys/block/}"
    done
    lh_log "detached"
}

# g_gadget_stop: stop the gadget side (ours: SIGINT, exit status 0).
g_gadget_stop() {
    case "$PROVIDER" in
    ours|article|gfs) g_ours_stop INT ;;
    vudc)
        g_usbipd_stop
        g_kgadget_remove ;;
    dummy|dummy_ss) g_kgadget_remove ;;
    esac
}

g_no_usbipd() { ! pidof usbipd >/dev/null && ! g_port_open 3240; }

# g_usbipd_stop: usbipd gone and port 3240 free (the next gadget binds it).
g_usbipd_stop() {
    _p=$(pidof usbipd) && kill $_p
    g_wait 20 "usbipd to exit and free port 3240" g_no_usbipd
}

# ---- the disk exercise -------------------------------------------------------

# g_partition DEV: one FAT partition from sector 2048 to the end.
g_partition() {
    printf 'label: dos\nstart=2048, type=c\n' |
        timeout 60 "$SFDISK" -q "/dev/$1" || lh_fail "sfdisk /dev/$1"
    g_wait 30 "/dev/${1}1" g_block_ready "${1}1"
}

# g_mount_vfat DEV MNT
g_mount_vfat() {
    mkdir -p "$2"
    mount -t vfat -o iocharset=ascii "/dev/$1" "$2" || lh_fail "mount /dev/$1"
}

# g_cmp_dir SRC DST: every file of SRC is byte-for-byte in DST.
g_cmp_dir() {
    for _s in "$1"/*; do
        cmp "$_s" "$2/$(basename "$_s")" ||
            lh_fail "$2/$(basename "$_s") differs from $_s"
    done
}

# g_disk_exercise DEV PAYLOAD: partition, mkfs.vfat, mount, copy PAYLOAD's
# files, umount, drop caches, mount again and compare, umount.
g_disk_exercise() {
    g_partition "$1"
    timeout 120 "$MKFS_FAT" -n LHTEST "/dev/${1}1" || lh_fail "mkfs.vfat /dev/${1}1"
    g_mount_vfat "${1}1" /mnt/lh
    cp "$2"/* /mnt/lh/ || lh_fail "copy to /mnt/lh"
    sync
    umount /mnt/lh || lh_fail "umount"
    echo 3 >/proc/sys/vm/drop_caches
    g_mount_vfat "${1}1" /mnt/lh
    g_cmp_dir "$2" /mnt/lh
    ls -l /mnt/lh
    umount /mnt/lh || lh_fail "umount"
    lh_log "disk exercise on /dev/$1 passed"
}

# g_stage FILE...: copy image files from the share to $GW (the gadget's
# backing files live in guest RAM; g_unstage puts them back).
g_stage() { for _s in "$@"; do cp "/host/$_s" "$GW/" || lh_fail "stage $_s"; done; }
g_unstage() {
    for _s in "$@"; do cp "$GW/$_s" "/host/$_s" || lh_fail "unstage $_s"; done
    sync
}

# g_copy_through SRC_FILE WRITER_DEV READER_DEV OUT: read READER_DEV into
# OUT (1 MiB) in the background, then write SRC_FILE to WRITER_DEV (a tty
# and a gadget's pty, either way).
g_copy_through() {
    timeout 120 head -c 1048576 "$3" >"$4" &
    _rd=$!
    sleep 0.5
    timeout 120 cat "$1" >"$2" || lh_fail "write $1 to $2"
    wait "$_rd" || lh_fail "read 1 MiB from $3"
    cmp "$1" "$4" || lh_fail "bytes through $2 -> $3 differ"
    lh_log "1 MiB $2 -> $3: $(md5sum <"$4" | cut -c1-32) equal"
}

# g_two_reports FIFO: a keyboard's key down ('a') and all keys up, written
# to a gadget's input report FIFO, come out of /dev/hidraw0 byte for byte
# (in $GW/keys.bin and $GW/hidraw.bin).
g_two_reports() {
    printf '\000\000\004\000\000\000\000\000\000\000\000\000\000\000\000\000' \
        >"$GW/keys.bin"
    timeout 20 head -c 16 /dev/hidraw0 >"$GW/hidraw.bin" &
    _hr=$!
    sleep 0.5
    cat "$GW/keys.bin" >"$1" || lh_fail "write $1"
    wait "$_hr" || lh_fail "read 2 reports from /dev/hidraw0"
    cmp "$GW/keys.bin" "$GW/hidraw.bin" || lh_fail "hidraw0 reports differ from what $1 took"
    lh_log "2 keyboard reports $1 -> /dev/hidraw0 byte for byte"
}

# g_no_hung_tasks: the kernel saw no task blocked for long.
g_no_hung_tasks() {
    if dmesg | grep -E -q 'blocked for more than|BUG:|Oops|WARNING:'; then
        dmesg | grep -E -A5 'blocked for more than|BUG:|Oops|WARNING:' >&2
        lh_fail "kernel reported a hung task, BUG, Oops or WARNING"
    fi
}

# g_write_pattern DEV FILE MIB [KIB]: write FILE to /dev/DEV at MIB MiB,
# O_DIRECT, in blocks of KIB KiB (default 64; FILE a multiple of it).
g_write_pattern() {
    _bs=${4:-64}
    timeout 120 "$DD" if="$2" of="/dev/$1" bs="${_bs}k" seek="$(($3 * 1024 / _bs))" \
        oflag=direct conv=notrunc status=none ||
        lh_fail "write $2 to /dev/$1 at $3 MiB"
}

# g_check_pattern DEV FILE MIB [KIB]: /dev/DEV holds FILE at MIB MiB (read
# with O_DIRECT in blocks of KIB KiB, default 64, so from the device, not
# the page cache).
g_check_pattern() {
    _bs=${4:-64}
    _n=$(($(stat -c %s "$2") / (_bs * 1024)))
    timeout 120 "$DD" if="/dev/$1" of="$GW/readback" bs="${_bs}k" skip="$(($3 * 1024 / _bs))" \
        count="$_n" iflag=direct status=none || lh_fail "read /dev/$1 at $3 MiB"
    cmp "$2" "$GW/readback" || lh_fail "/dev/$1 at $3 MiB does not hold $2"
    rm -f "$GW/readback"
}

# g_sectors DEV: size of /dev/DEV in 512-byte sectors.
g_sectors() { cat "/sys/class/block/$1/size"; }
