# host.sh: helpers for the host half of a linux-host case (run by ctest on
# the build machine; loaded by lh_main from common.sh).
#
# Owns: the case's work folder (the guest's /host share), booting the guest
# through run-guest.sh, payload files, and the offline checks of a disk image
# after the guest is gone (fsck.fat -n, mtools). Touches only the work folder.
#
# Environment (set by tests/linux-host/CMakeLists.txt):
#   LH_WORKDIR       parent of the per-case work folders
#   LH_CACHE         initramfs cache folder (see build-initramfs.sh)
#   LH_MASS_STORAGE  examples/mass_storage binary, for provider "ours"
#   LH_ARTICLE       tests/article's g_my_mass_storage, for provider "article"
#   LH_KEEP=1        keep the images of a passing case too
#   LH_REQUIRE=1     missing qemu/kernel fail the case instead of skipping

LH_SRC=$(cd "$LH_LIB/.." && pwd)
LH_RUN_GUEST=$LH_SRC/run-guest.sh
PART_OFFSET=1048576     # g_partition's start sector 2048, in bytes

# h_init NAME: a clean work folder $LH_WORK for this case, and the
# prerequisites checked (exit 77, "skipped", when qemu or a kernel is missing).
h_init() {
    LH_WORK=${LH_WORKDIR:-${TMPDIR:-/tmp}/composite-linux-host}/$1
    _missing=
    command -v qemu-system-x86_64 >/dev/null || _missing="$_missing qemu-system-x86_64"
    ls /boot/vmlinuz-* >/dev/null 2>&1 || _missing="$_missing /boot/vmlinuz-*"
    for _t in fsck.fat mkfs.fat mcopy genisoimage; do
        command -v "$_t" >/dev/null || _missing="$_missing $_t"
    done
    if [ -n "$_missing" ]; then
        echo "missing:$_missing (see tests/linux-host/packages.txt)" >&2
        [ "${LH_REQUIRE:-0}" = 1 ] && exit 1
        echo "SKIP" >&2
        exit 77
    fi
    rm -rf "$LH_WORK"
    mkdir -p "$LH_WORK" || lh_fail "cannot create $LH_WORK"
    trap 'h_finish $?' EXIT
}

# h_finish RC (EXIT trap): on success drop the big files; on failure keep
# everything and say where.
h_finish() {
    trap - EXIT
    if [ "$1" = 0 ]; then
        [ "${LH_KEEP:-0}" = 1 ] || rm -f "$LH_WORK"/*.img "$LH_WORK"/*.iso
        lh_log "PASS (logs in $LH_WORK)"
    elif [ "$1" = 77 ]; then
        :
    else
        lh_log "FAILED (rc $1); console log and images kept in $LH_WORK"
        if [ -s "$LH_WORK/.lh/dmesg.txt" ]; then
            cp "$LH_WORK/.lh/dmesg.txt" "$LH_WORK/dmesg.txt"
        fi
    fi
    exit "$1"
}

# h_guest SECS PROVIDER ARGS...: boot the guest and run this script's
# guest_main with PROVIDER ARGS in it; fails the case when the guest half
# fails or times out. Binaries for the guest: $H_BINS (space separated) and,
# for provider ours, $H_OURS_BIN (default $LH_MASS_STORAGE).
h_guest() {
    _secs=$1
    _prov=$2
    shift 2
    set -- "$_prov" "$@"
    _bins=
    for _b in ${H_BINS:-}; do _bins="$_bins --bin $_b"; done
    if [ "$_prov" = ours ] || [ "$_prov" = gfs ]; then
        _ours=${H_OURS_BIN:-${LH_MASS_STORAGE:-}}
        [ -x "$_ours" ] ||
            lh_fail "no executable for provider ours (LH_MASS_STORAGE / LH_GADGET_ZERO)"
        _bins="$_bins --bin $_ours"
    fi
    if [ "$_prov" = article ]; then
        [ -x "${LH_ARTICLE:-}" ] ||
            lh_fail "no executable for provider article (LH_ARTICLE)"
        _bins="$_bins --bin $LH_ARTICLE"
    fi
    # $_bins holds no spaces other than separators (build-tree paths).
    # shellcheck disable=SC2086
    "$LH_RUN_GUEST" --timeout "$_secs" --log "$LH_WORK/console.log" $_bins \
        "$LH_WORK" "$0" "$@"
    _rc=$?
    [ -s "$LH_WORK/.lh/boot_s" ] &&
        lh_log "guest boot to shell: $(cat "$LH_WORK/.lh/boot_s") s"
    [ "$_rc" = 0 ] || lh_fail "guest half failed (rc $_rc)"
}

# h_payload: files of several shapes in $LH_WORK/payload (text, a long
# mixed-case name, sizes off the sector and cluster grid, random bytes).
h_payload() {
    _p=$LH_WORK/payload
    mkdir -p "$_p"
    printf 'hello from the linux-host test\n' >"$_p/HELLO.TXT"
    seq 1 20000 >"$_p/Numbers-Long-Name.txt"
    head -c 300007 /dev/urandom >"$_p/random.bin"
    head -c 1048576 /dev/urandom >"$_p/onemeg.bin"
    : >"$_p/empty"
}

# h_blank_image NAME MIB: a zero-filled image file in the work folder.
h_blank_image() {
    rm -f "$LH_WORK/$1"
    truncate -s "${2}M" "$LH_WORK/$1" || lh_fail "truncate $1"
}

# h_ro_payload_image: ro.img, a 16 MiB FAT "superfloppy" (no partition
# table) holding the payload, and its checksum in ro.sha256 (h_ro_unchanged).
h_ro_payload_image() {
    mkfs.fat -C -n LHRO "$LH_WORK/ro.img" 32768 >/dev/null || lh_fail "mkfs.fat"
    for _f in "$LH_WORK"/payload/*; do
        MTOOLS_SKIP_CHECK=1 mcopy -i "$LH_WORK/ro.img" "$_f" "::/" || lh_fail "mcopy"
    done
    sha256sum "$LH_WORK/ro.img" | cut -d' ' -f1 >"$LH_WORK/ro.sha256"
}

# h_ro_unchanged: ro.img is bit for bit what h_ro_payload_image made.
h_ro_unchanged() {
    [ "$(sha256sum "$LH_WORK/ro.img" | cut -d' ' -f1)" = "$(cat "$LH_WORK/ro.sha256")" ] ||
        lh_fail "ro.img changed"
    lh_log "ro.img unchanged"
}

# h_check_fat_image IMG: the FAT partition g_disk_exercise made in IMG is
# clean (fsck.fat -n) and holds the payload byte for byte (mtools).
h_check_fat_image() {
    _img=$1
    [ -f "$_img" ] || lh_fail "no image $_img"
    _part=$LH_WORK/part.fsck
    dd if="$_img" of="$_part" bs=1M skip=1 status=none || lh_fail "extract partition"
    fsck.fat -n "$_part" || lh_fail "fsck.fat -n reports errors in $_img"
    rm -f "$_part"
    mkdir -p "$LH_WORK/readback"
    for _f in "$LH_WORK"/payload/*; do
        _n=$(basename "$_f")
        rm -f "$LH_WORK/readback/$_n"
        MTOOLS_SKIP_CHECK=1 mcopy -n -i "$_img@@$PART_OFFSET" "::/$_n" \
            "$LH_WORK/readback/$_n" || lh_fail "mcopy ::/$_n from $_img"
        cmp "$_f" "$LH_WORK/readback/$_n" || lh_fail "$_n differs in $_img"
    done
    MTOOLS_SKIP_CHECK=1 mdir -i "$_img@@$PART_OFFSET" ::/ || lh_fail "mdir"
    lh_log "image $(basename "$_img"): fsck clean, payload byte-for-byte"
}
