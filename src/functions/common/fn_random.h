/*
 * fn_random.h - bytes for what must differ between devices and runs
 * without being secret (the networking functions' default MAC
 * addresses). POSIX builds read the system's generator
 * (fn_random_posix.c); portable builds mix what C11 offers
 * (fn_random_portable.c), which is unique per run but not random:
 * firmware should give its own addresses. Private to src/functions.
 */
#ifndef COMPOSITE_FN_RANDOM_H
#define COMPOSITE_FN_RANDOM_H

#include <stddef.h>

/* Fill @buf with @n bytes. Never fails. Any thread. */
void fn_random_bytes(void *buf, size_t n);

#endif
