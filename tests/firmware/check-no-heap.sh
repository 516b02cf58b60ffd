#!/bin/sh
# check-no-heap.sh READELF ARCHIVE: fails if any object of the library
# (libcomposite.a of a COMPOSITE_NO_HEAP build) references the heap:
# malloc, calloc, realloc, free, their newlib reentrant forms, or the
# allocating string functions. Lists each offending object.
#
# It reads the objects' ELF symbol tables with readelf, not nm: for a
# COMPOSITE_LTO archive nm shows the intermediate code's symbols, which
# leave out calls to builtins (malloc, free, memset...), so a reference
# would pass unseen. COMPOSITE_LTO objects are fat (machine code
# included); a slim LTO object has no such table and fails the check.
set -eu
readelf=$1 lib=$2
[ -f "$lib" ] || { echo "check-no-heap: no archive $lib" >&2; exit 2; }
syms=$("$readelf" -s --wide "$lib" 2>/dev/null | awk '
	/^File: / { obj = $2; sub(/.*\(/, "", obj); sub(/\)$/, "", obj); next }
	obj != "" && $1 ~ /^[0-9]+:$/ { print obj, $7, $8 }')
objs=$(echo "$syms" | awk 'NF { print $1 }' | sort -u | wc -l)
[ "$objs" -gt 0 ] || { echo "check-no-heap: no objects read from $lib" >&2; exit 2; }
slim=$(echo "$syms" | awk '$3 == "__gnu_lto_slim" { print $1 }')
if [ -n "$slim" ]; then
	echo "check-no-heap: slim LTO objects (no machine code to check):" $slim >&2
	exit 2
fi
bad=$(echo "$syms" | awk '$2 == "UND" { print $1, $3 }' |
	grep -E ' (malloc|calloc|realloc|free|_malloc_r|_calloc_r|_realloc_r|_free_r|strdup|strndup|reallocarray|posix_memalign|aligned_alloc)$' || true)
if [ -n "$bad" ]; then
	echo "check-no-heap: $lib references the heap:" >&2
	echo "$bad" >&2
	exit 1
fi
echo "check-no-heap: $lib: $objs objects, none references malloc, calloc, realloc or free"
