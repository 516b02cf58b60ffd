#!/bin/sh
# footprint.sh MAP [LABEL]: what the linker kept of the library in a
# firmware image, from its GNU ld map file (-Wl,-Map): text (code and
# constants), data and bss per part (core, MSF with its endpoint pair,
# null UDC, port helpers: atomics, allocator, pool; other library objects) and per object, beside the libc/libgcc it pulls
# in, the whole image, and TinyUSB's figures on the same target
# (docs/firmware.md). Only input sections that were kept (gc'ed ones are
# listed apart in the map). A library built with COMPOSITE_LTO=ON reaches
# the link as GCC's intermediate code: what the link-time optimiser makes
# of it comes from ltrans objects, counted as part "lto" (the library's
# parts are no longer told apart; the image's own objects are not LTO).
# Prints a table; exits non-zero only when the map cannot be read.
set -eu
map=$1
label=${2:-$(basename "$map" .map)}
[ -r "$map" ] || { echo "footprint: cannot read $map" >&2; exit 1; }

awk -v label="$label" '
function hex(s,    v, i, c) {
	v = 0
	s = tolower(s); sub(/^0x/, "", s)
	for (i = 1; i <= length(s); i++) {
		c = index("0123456789abcdef", substr(s, i, 1)) - 1
		v = v * 16 + c
	}
	return v
}
function part(obj) {
	if (obj ~ /^(errors|log|udc|ep|composite|descriptors|describe|strings|os_desc|ep0)\.c/)
		return "core";
	# bulk_pair.c (functions/common) is the MSF'"'"'s endpoint pair.
	if (obj ~ /^(bot|scsi|scsi_rw|scsi_cdrom|lun|common|msf|params|handle|msf_instance|backend_mem|worker_none|backend_file_none|bulk_pair)\.c/)
		return "msf";
	if (obj ~ /^null_udc\.c/)
		return "null-udc";
	if (obj ~ /^(atomic_irq|alloc|pool)\.c/)
		return "port";
	return "other";
}
function add(sec, size, file,    kind, obj, p) {
	if (sec ~ /^\.(text|rodata)/) kind = "text";
	else if (sec ~ /^\.data/) kind = "data";
	else if (sec ~ /^\.bss/ || sec == "COMMON") kind = "bss";
	else return;
	image[kind] += size
	if (file ~ /\.ltrans[0-9]*\.ltrans\.o$/) {
		sz["lto", kind] += size;
	} else if (file ~ /libcomposite\.a\(/) {
		obj = file; sub(/.*libcomposite\.a\(/, "", obj); sub(/\)$/, "", obj);
		p = part(obj);
		sz[p, kind] += size; objs[obj] = p; osz[obj, kind] += size;
	} else if (file ~ /lib(c|c_nano|g|g_nano|gcc|nosys)\.a\(/) {
		sz["libc+libgcc", kind] += size;
	}
}
/^Linker script and memory map/ { inmap = 1; next }
!inmap { next }
/^ [.A-Za-z_]/ {
	# An input section: " .text.name  0xaddr  0xsize  file" or the name
	# alone with address, size and file on the next line.
	sec = $1
	if (NF >= 4 && $2 ~ /^0x/ && $3 ~ /^0x/) { add(sec, hex($3), $4); sec = "" }
	next
}
sec != "" && /^ +0x[0-9a-f]+ +0x[0-9a-f]+ / {
	add(sec, hex($2), $3); sec = ""; next
}
{ sec = "" }
END {
	printf "footprint of %s (bytes the linker kept)\n", label
	printf "%-14s %8s %6s %6s\n", "part", "text", "data", "bss"
	n = split("core msf null-udc port other lto", parts, " ")
	for (i = 1; i <= n; i++) {
		p = parts[i]
		printf "%-14s %8d %6d %6d\n", p, sz[p, "text"], sz[p, "data"], sz[p, "bss"]
		tt += sz[p, "text"]; td += sz[p, "data"]; tb += sz[p, "bss"]
	}
	printf "%-14s %8d %6d %6d\n", "library", tt, td, tb
	printf "%-14s %8d %6d %6d\n", "core+msf", sz["core", "text"] + sz["msf", "text"],
	       sz["core", "data"] + sz["msf", "data"], sz["core", "bss"] + sz["msf", "bss"]
	printf "%-14s %8d %6d %6d\n", "core+msf+port", sz["core", "text"] + sz["msf", "text"] + sz["port", "text"],
	       sz["core", "data"] + sz["msf", "data"] + sz["port", "data"],
	       sz["core", "bss"] + sz["msf", "bss"] + sz["port", "bss"]
	printf "%-14s %8d %6d %6d\n", "libc+libgcc", sz["libc+libgcc", "text"],
	       sz["libc+libgcc", "data"], sz["libc+libgcc", "bss"]
	printf "%-14s %8d %6d %6d\n", "image", image["text"], image["data"], image["bss"]
	printf "%-14s %8s %6s %6s\n", "TinyUSB (ref)", "7700", "-", "900"
	printf "  (usbd + msc_device + tusb, commit fd70160a, same target; 9.0 KiB text with tu_fifo;\n"
	printf "   its READ/WRITE and most SCSI replies are left to the application)\n"
	printf "per object (text data bss):\n"
	for (o in objs)
		printf "  %-22s %-9s %6d %5d %5d\n", o, objs[o], osz[o, "text"], osz[o, "data"], osz[o, "bss"] | "sort -b -k2,2 -k3,3nr"
}' "$map"
