#!/bin/sh
# check-no-heap.sh NM ARCHIVE: fails if any object of the library
# (libcomposite.a of a COMPOSITE_NO_HEAP build) references the heap:
# malloc, calloc, realloc, free, their newlib reentrant forms, or the
# allocating string functions. Lists each offending object.
set -eu
nm=$1 lib=$2
[ -f "$lib" ] || { echo "check-no-heap: no archive $lib" >&2; exit 2; }
bad=$("$nm" -u -A "$lib" 2>/dev/null | awk '{print $1, $NF}' |
	grep -E ' (malloc|calloc|realloc|free|_malloc_r|_calloc_r|_realloc_r|_free_r|strdup|strndup|reallocarray|posix_memalign|aligned_alloc)$' || true)
if [ -n "$bad" ]; then
	echo "check-no-heap: $lib references the heap:" >&2
	echo "$bad" >&2
	exit 1
fi
objs=$("$nm" -A "$lib" 2>/dev/null | cut -d: -f2 | sort -u | wc -l)
[ "$objs" -gt 0 ] || { echo "check-no-heap: no objects read from $lib" >&2; exit 2; }
echo "check-no-heap: $lib: $objs objects, none references malloc, calloc, realloc or free"
