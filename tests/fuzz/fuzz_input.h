/*
 * fuzz_input.h - what the script-driven fuzz targets share: reading a
 * fuzzer's input as a stream of fields (zeros once it is used up, so every
 * input is a complete script) and CHECK(), which traps so libFuzzer keeps
 * the input that broke an invariant.
 */
#ifndef FUZZ_INPUT_H
#define FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define CHECK(cond)                         \
	do {                                \
		if (!(cond))                \
			__builtin_trap();   \
	} while (0)

struct input {
	const uint8_t *p;
	size_t left;
};

/* Next byte; 0 once the input is used up. */
static inline uint8_t in_u8(struct input *in)
{
	if (!in->left)
		return 0;
	in->left--;
	return *in->p++;
}

/* The next @bytes bytes (at most 4) as a little-endian number. */
static inline uint32_t in_le(struct input *in, unsigned bytes)
{
	uint32_t v = 0;

	for (unsigned i = 0; i < bytes; i++)
		v |= (uint32_t)in_u8(in) << (8 * i);
	return v;
}

/* Fill @buf with the next @len input bytes, zero-padded. */
static inline void in_fill(struct input *in, uint8_t *buf, size_t len)
{
	size_t n = len < in->left ? len : in->left;

	memcpy(buf, in->p, n);
	memset(buf + n, 0, len - n);
	in->p += n;
	in->left -= n;
}

#endif /* FUZZ_INPUT_H */
