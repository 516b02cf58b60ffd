/*
 * fn_kick.h - one runner at a time without a lock: whoever raises the
 * kick count from 0 runs @fill, and runs it again for every kick that
 * came in meanwhile; the others return at once. Used where a function's
 * requests are refilled both from completions (event context) and from
 * the user's thread (ACM, HID). Private to src/functions; C11 atomics.
 */
#ifndef COMPOSITE_FN_KICK_H
#define COMPOSITE_FN_KICK_H

#include <stdatomic.h>

static inline void fn_kick(atomic_uint *kicks, void (*fill)(void *arg), void *arg)
{
	if (atomic_fetch_add(kicks, 1) != 0)
		return;
	do {
		atomic_store(kicks, 1);
		fill(arg);
	} while (atomic_fetch_sub(kicks, 1) != 1);
}

#endif
