/*
 * test_ncm_ntb.c - the CDC NCM NTB codec (src/functions/ncm/ntb.c): the
 * parser against NTBs written here field by field (every check at its
 * boundary, each drop counted under its reason and delivering nothing),
 * the builder against hand-written NTB16 and NTB32 blocks, its alignment
 * and its limits, build -> parse round trips, the GET_NTB_PARAMETERS
 * reply.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "composite/errors.h"
#include "functions/ncm/ntb.h"

/* ------------------------------------------------------------------ */
/* What the callback saw. */

#define MAX_SEEN 64

struct seen {
	const uint8_t *base;
	size_t n;
	size_t off[MAX_SEEN];
	size_t len[MAX_SEEN];
};

static void on_datagram(void *ctx, const uint8_t *data, size_t len)
{
	struct seen *s = ctx;

	assert_true(s->n < MAX_SEEN);
	s->off[s->n] = (size_t)(data - s->base);
	s->len[s->n] = len;
	s->n++;
}

/* ------------------------------------------------------------------ */
/* Test-side writers of NTB fields (independent of the code under test). */

static void le16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void le32(uint8_t *p, uint32_t v)
{
	le16(p, v & 0xffff);
	le16(p + 2, v >> 16);
}

static void nth16(uint8_t *b, unsigned block, unsigned ndp)
{
	memcpy(b, "NCMH", 4);
	le16(b + 4, 12);
	le16(b + 6, 0);
	le16(b + 8, block);
	le16(b + 10, ndp);
}

static void nth32(uint8_t *b, uint32_t block, uint32_t ndp)
{
	memcpy(b, "ncmh", 4);
	le16(b + 4, 16);
	le16(b + 6, 0);
	le32(b + 8, block);
	le32(b + 12, ndp);
}

/* An NDP16 at @at with @n entries (pairs in @e) and a zero entry. */
static void ndp16(uint8_t *b, unsigned at, unsigned next, const unsigned *e, unsigned n)
{
	memcpy(b + at, "NCM0", 4);
	le16(b + at + 4, 8 + 4 * (n + 1));
	le16(b + at + 6, next);
	for (unsigned i = 0; i < n; i++) {
		le16(b + at + 8 + 4 * i, e[2 * i]);
		le16(b + at + 10 + 4 * i, e[2 * i + 1]);
	}
	le32(b + at + 8 + 4 * n, 0);
}

static void ndp32(uint8_t *b, unsigned at, unsigned next, const unsigned *e, unsigned n)
{
	memcpy(b + at, "ncm0", 4);
	le16(b + at + 4, 16 + 8 * (n + 1));
	le16(b + at + 6, 0);
	le32(b + at + 8, next);
	le32(b + at + 12, 0);
	for (unsigned i = 0; i < n; i++) {
		le32(b + at + 16 + 8 * i, e[2 * i]);
		le32(b + at + 20 + 8 * i, e[2 * i + 1]);
	}
	memset(b + at + 16 + 8 * n, 0, 8);
}

static struct ncm_ntb_parser parser(enum ncm_ntb_format f, uint32_t out_max)
{
	struct ncm_ntb_parser p;

	assert_int_equal(ncm_ntb_parser_init(&p, f, out_max), 0);
	return p;
}

static unsigned total_drops(const struct ncm_ntb_parser *p)
{
	unsigned n = 0;

	for (unsigned i = 0; i < NCM_NTB_DROP_REASONS; i++)
		n += p->stats.dropped[i];
	return n;
}

/* Parse @len bytes of @b, expecting a drop for @reason (nothing seen). */
static void expect_drop(struct ncm_ntb_parser *p, const uint8_t *b, size_t len,
			enum ncm_ntb_drop reason)
{
	struct seen s = { .base = b };
	unsigned before = p->stats.dropped[reason], all = total_drops(p);
	uint32_t ntbs = p->stats.ntbs;

	assert_int_equal(ncm_ntb_parse(p, b, len, on_datagram, &s), -USB_EBADMSG);
	assert_int_equal(s.n, 0);
	assert_int_equal(p->stats.dropped[reason], before + 1);
	assert_int_equal(total_drops(p), all + 1);
	assert_int_equal(p->stats.ntbs, ntbs);
}

/* Parse expecting acceptance: returns what the callback saw. */
static struct seen expect_ok(struct ncm_ntb_parser *p, const uint8_t *b, size_t len,
			     size_t block)
{
	struct seen s = { .base = b };

	assert_int_equal(ncm_ntb_parse(p, b, len, on_datagram, &s), (int)block);
	return s;
}

/* A one-datagram NTB16: NTH, datagram at 12 of @dlen, NDP at @ndp. */
static size_t one16(uint8_t *b, unsigned dlen)
{
	unsigned ndp = (12 + dlen + 3) & ~3u, e[2] = { 12, dlen };

	memset(b, 0x5a, 12 + dlen + 3);
	nth16(b, ndp + 16, ndp);
	ndp16(b, ndp, 0, e, 1);
	return ndp + 16;
}

/* ------------------------------------------------------------------ */
/* Parser: accepted NTBs */

/* The NTB16 test_ncm_ntb_build_ntb16_bytes spells out, as a host sends it. */
static const uint8_t ntb16_bytes[44] = {
	'N', 'C', 'M', 'H', 0x0c, 0x00, 0x34, 0x12, 0x2c, 0x00, 0x1c, 0x00,
	0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xab,
	0xac, 0xad, 0x00, 0x00,
	'N', 'C', 'M', '0', 0x10, 0x00, 0x00, 0x00, 0x0c, 0x00, 0x0e, 0x00,
	0x00, 0x00, 0x00, 0x00
};

/* NTB32, two datagrams (14 and 15 bytes) at remainder 2 of 4, NDP at 56
 * (alignment 8). */
static const uint8_t ntb32_bytes[96] = {
	'n', 'c', 'm', 'h', 0x10, 0x00, 0x07, 0x00, 0x60, 0x00, 0x00, 0x00,
	0x38, 0x00, 0x00, 0x00, 0x00, 0x00,
	0xb0, 0xb1, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba, 0xbb,
	0xbc, 0xbd, 0x00, 0x00,
	0xc0, 0xc1, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9, 0xca, 0xcb,
	0xcc, 0xcd, 0xce, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	'n', 'c', 'm', '0', 0x28, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00,
	0x12, 0x00, 0x00, 0x00, 0x0e, 0x00, 0x00, 0x00,
	0x22, 0x00, 0x00, 0x00, 0x0f, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00
};

static void test_ncm_ntb_parse_ntb16_bytes(void **state)
{
	struct ncm_ntb_parser p = parser(NCM_NTB16, 16384);
	struct seen s;

	(void)state;
	s = expect_ok(&p, ntb16_bytes, sizeof(ntb16_bytes), 44);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.off[0], 12);
	assert_int_equal(s.len[0], 14);
	assert_int_equal(p.stats.ntbs, 1);
	assert_int_equal(p.stats.datagrams, 1);
	assert_int_equal(total_drops(&p), 0);
	/* The same bytes are not an NTB32. */
	p = parser(NCM_NTB32, 16384);
	expect_drop(&p, ntb16_bytes, sizeof(ntb16_bytes), NCM_NTB_DROP_NTH_SIGN);
}

static void test_ncm_ntb_parse_ntb32_bytes(void **state)
{
	struct ncm_ntb_parser p = parser(NCM_NTB32, 16384);
	struct seen s;

	(void)state;
	s = expect_ok(&p, ntb32_bytes, sizeof(ntb32_bytes), 96);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.off[0], 18);
	assert_int_equal(s.len[0], 14);
	assert_int_equal(s.off[1], 34);
	assert_int_equal(s.len[1], 15);
	assert_int_equal(p.stats.datagrams, 2);
}

static void test_ncm_ntb_parse_many_datagrams(void **state)
{
	uint8_t b[1024] = { 0 };
	unsigned e[2 * 20];
	struct ncm_ntb_parser p = parser(NCM_NTB16, sizeof(b));
	struct seen s;

	(void)state;
	for (unsigned i = 0; i < 20; i++) {
		e[2 * i] = 12 + 20 * i;
		e[2 * i + 1] = 14 + i % 6;
	}
	nth16(b, 412 + 8 + 84, 412);
	ndp16(b, 412, 0, e, 20);
	s = expect_ok(&p, b, sizeof(b), 504);
	assert_int_equal(s.n, 20);
	for (unsigned i = 0; i < 20; i++) {
		assert_int_equal(s.off[i], e[2 * i]);
		assert_int_equal(s.len[i], e[2 * i + 1]);
	}
	/* max_datagrams: exactly 20 passes, 19 drops the NTB. */
	p.max_datagrams = 20;
	expect_ok(&p, b, sizeof(b), 504);
	p.max_datagrams = 19;
	expect_drop(&p, b, sizeof(b), NCM_NTB_DROP_TOO_MANY_DATAGRAMS);
}

/* Two NDPs, the first after the datagrams pointing back to one before. */
static void test_ncm_ntb_parse_chained_ndps(void **state)
{
	uint8_t b[256] = { 0 };
	unsigned e1[2] = { 100, 20 }, e2[4] = { 40, 14, 60, 30 };
	struct ncm_ntb_parser p = parser(NCM_NTB16, sizeof(b));
	struct seen s;

	(void)state;
	nth16(b, 160, 128);
	ndp16(b, 128, 12, e1, 1);
	ndp16(b, 12, 0, e2, 2);
	s = expect_ok(&p, b, sizeof(b), 160);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.off[0], 100);
	assert_int_equal(s.off[1], 40);
	assert_int_equal(s.off[2], 60);
	/* The limit counts across NDPs. */
	p.max_datagrams = 2;
	expect_drop(&p, b, sizeof(b), NCM_NTB_DROP_TOO_MANY_DATAGRAMS);
	/* A chain of two is fine with max_ndps 2, not with 1. */
	p.max_datagrams = 0;
	p.max_ndps = 2;
	expect_ok(&p, b, sizeof(b), 160);
	p.max_ndps = 1;
	expect_drop(&p, b, sizeof(b), NCM_NTB_DROP_TOO_MANY_NDPS);
}

static void test_ncm_ntb_parse_chained_ndps_ntb32(void **state)
{
	uint8_t b[256] = { 0 };
	unsigned e1[2] = { 16, 14 }, e2[2] = { 32, 60 };
	struct ncm_ntb_parser p = parser(NCM_NTB32, sizeof(b));
	struct seen s;

	(void)state;
	nth32(b, 96 + 32 + 32, 96);
	ndp32(b, 96, 128, e1, 1);
	ndp32(b, 128, 0, e2, 1);
	s = expect_ok(&p, b, sizeof(b), 160);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.off[1], 32);
	assert_int_equal(s.len[1], 60);
}

/* NDP 0 -> NDP 1 -> NDP 0 ...: bounded by max_ndps, no hang. */
static void test_ncm_ntb_parse_ndp_loop(void **state)
{
	uint8_t b[128] = { 0 };
	unsigned e[2] = { 12, 14 };
	struct ncm_ntb_parser p = parser(NCM_NTB16, sizeof(b));

	(void)state;
	nth16(b, 128, 32);
	ndp16(b, 32, 32, e, 1);		/* pointing at itself */
	expect_drop(&p, b, sizeof(b), NCM_NTB_DROP_TOO_MANY_NDPS);
	ndp16(b, 32, 64, e, 1);
	ndp16(b, 64, 32, e, 1);		/* a loop of two */
	p.max_ndps = 1000;
	expect_drop(&p, b, sizeof(b), NCM_NTB_DROP_TOO_MANY_NDPS);
}

/* ------------------------------------------------------------------ */
/* Parser: the NTH */

static void test_ncm_ntb_parse_nth_checks(void **state)
{
	uint8_t b[64];
	struct ncm_ntb_parser p = parser(NCM_NTB16, 64);
	size_t n = one16(b, 14);

	(void)state;
	expect_ok(&p, b, n, n);
	expect_drop(&p, b, 11, NCM_NTB_DROP_SHORT);
	expect_drop(&p, b, 0, NCM_NTB_DROP_SHORT);
	b[3] = 'h';
	expect_drop(&p, b, n, NCM_NTB_DROP_NTH_SIGN);
	b[3] = 'H';
	le16(b + 4, 16);
	expect_drop(&p, b, n, NCM_NTB_DROP_NTH_LEN);
	le16(b + 4, 12);
	expect_ok(&p, b, n, n);
}

/* wBlockLength against the transfer, dwNtbOutMaxSize and the minimum. */
static void test_ncm_ntb_parse_block_length(void **state)
{
	uint8_t b[64];
	struct ncm_ntb_parser p = parser(NCM_NTB16, 44);
	size_t n = one16(b, 14);	/* 44 */

	(void)state;
	assert_int_equal(n, 44);
	expect_ok(&p, b, n, 44);		/* block == dwNtbOutMaxSize */
	expect_ok(&p, b, sizeof(b), 44);	/* bytes after: not this NTB's */
	expect_drop(&p, b, 43, NCM_NTB_DROP_BLOCK_LEN);	/* past the transfer */
	p.ntb_out_max = 43;
	expect_drop(&p, b, n, NCM_NTB_DROP_BLOCK_LEN);	/* past the max */
	p.ntb_out_max = 64;
	le16(b + 8, 19);
	expect_drop(&p, b, n, NCM_NTB_DROP_BLOCK_LEN);	/* < NTH + NDP */
	le16(b + 8, 20);
	expect_drop(&p, b, n, NCM_NTB_DROP_NDP_INDEX);	/* NDP at 28 now past it */
	/* NTB16 wBlockLength 0: the block is the transfer, shorter than
	 * dwNtbOutMaxSize. */
	le16(b + 8, 0);
	expect_ok(&p, b, n, 44);
	p.ntb_out_max = 44;
	expect_drop(&p, b, n, NCM_NTB_DROP_BLOCK_LEN);
}

static void test_ncm_ntb_parse_block_length_ntb32(void **state)
{
	uint8_t b[96];
	struct ncm_ntb_parser p = parser(NCM_NTB32, 96);

	(void)state;
	memcpy(b, ntb32_bytes, sizeof(b));
	expect_ok(&p, b, 96, 96);
	le32(b + 8, 97);
	expect_drop(&p, b, 96, NCM_NTB_DROP_BLOCK_LEN);
	le32(b + 8, 0);		/* no "0 = to the short packet" in NTB32 */
	expect_drop(&p, b, 96, NCM_NTB_DROP_BLOCK_LEN);
	le32(b + 8, 0x10000060);
	expect_drop(&p, b, 96, NCM_NTB_DROP_BLOCK_LEN);
}

/* ------------------------------------------------------------------ */
/* Parser: NDPs */

static void test_ncm_ntb_parse_ndp_index(void **state)
{
	uint8_t b[64] = { 0 };
	unsigned e[2] = { 12, 14 };
	struct ncm_ntb_parser p = parser(NCM_NTB16, 64);

	(void)state;
	nth16(b, 64, 30);
	ndp16(b, 30, 0, e, 1);
	expect_drop(&p, b, 64, NCM_NTB_DROP_NDP_INDEX);	/* not a multiple of 4 */
	nth16(b, 64, 8);
	expect_drop(&p, b, 64, NCM_NTB_DROP_NDP_INDEX);	/* into the NTH */
	nth16(b, 64, 0);
	expect_drop(&p, b, 64, NCM_NTB_DROP_NDP_INDEX);	/* no NDP */
	nth16(b, 64, 60);
	expect_drop(&p, b, 64, NCM_NTB_DROP_NDP_INDEX);	/* header past the block */
	memset(b, 0, sizeof(b));
	nth16(b, 64, 48);
	ndp16(b, 48, 0, e, 1);
	expect_ok(&p, b, 64, 64);		/* NDP ends at the block's end */
	le16(b + 48 + 6, 2);
	expect_drop(&p, b, 64, NCM_NTB_DROP_NDP_INDEX);	/* next into the NTH */
}

static void test_ncm_ntb_parse_ndp_length(void **state)
{
	uint8_t b[64] = { 0 };
	unsigned e[2] = { 12, 14 };
	struct ncm_ntb_parser p = parser(NCM_NTB16, 64);

	(void)state;
	nth16(b, 64, 28);
	ndp16(b, 28, 0, e, 1);
	le16(b + 32, 12);
	expect_drop(&p, b, 64, NCM_NTB_DROP_NDP_LEN);	/* < 16 */
	le16(b + 32, 18);
	expect_drop(&p, b, 64, NCM_NTB_DROP_NDP_LEN);	/* not a multiple of 4 */
	le16(b + 32, 40);
	expect_drop(&p, b, 64, NCM_NTB_DROP_NDP_LEN);	/* 28 + 40 > 64 */
	le16(b + 32, 36);
	expect_ok(&p, b, 64, 64);			/* to the end exactly */
	le16(b + 32, 16);
	expect_ok(&p, b, 64, 64);
}

static void test_ncm_ntb_parse_ndp_signatures(void **state)
{
	uint8_t b[64], c[96];
	struct ncm_ntb_parser p = parser(NCM_NTB16, 64), q = parser(NCM_NTB32, 96);

	(void)state;
	one16(b, 14);
	b[28 + 3] = '1';
	expect_drop(&p, b, 44, NCM_NTB_DROP_NDP_CRC);
	b[28 + 3] = 'X';
	expect_drop(&p, b, 44, NCM_NTB_DROP_NDP_SIGN);
	memcpy(b + 28, "ncm0", 4);			/* NDP32's in an NTB16 */
	expect_drop(&p, b, 44, NCM_NTB_DROP_NDP_SIGN);
	memcpy(c, ntb32_bytes, sizeof(c));
	c[56 + 3] = '1';
	expect_drop(&q, c, 96, NCM_NTB_DROP_NDP_CRC);
	memcpy(c + 56, "NCM0", 4);
	expect_drop(&q, c, 96, NCM_NTB_DROP_NDP_SIGN);
}

/* The entry list: a datagram first, then a zero entry within wLength. */
static void test_ncm_ntb_parse_entries(void **state)
{
	uint8_t b[64] = { 0 };
	unsigned e[2] = { 12, 14 };
	struct ncm_ntb_parser p = parser(NCM_NTB16, 64);
	struct seen s;

	(void)state;
	nth16(b, 64, 28);
	ndp16(b, 28, 0, e, 1);
	le16(b + 38, 0);			/* length 0 first: empty NDP */
	expect_drop(&p, b, 64, NCM_NTB_DROP_NDP_ENTRIES);
	le16(b + 36, 0);
	le16(b + 38, 14);			/* index 0 first: empty too */
	expect_drop(&p, b, 64, NCM_NTB_DROP_NDP_ENTRIES);
	ndp16(b, 28, 0, e, 1);
	le16(b + 40, 12);
	le16(b + 42, 14);			/* the last slot not zero */
	expect_drop(&p, b, 64, NCM_NTB_DROP_NDP_ENTRIES);
	le16(b + 32, 20);			/* room for a zero entry: fine */
	memset(b + 44, 0, 4);
	s = expect_ok(&p, b, 64, 64);
	assert_int_equal(s.n, 2);
	le16(b + 40, 0);			/* index 0, length 14 ends it */
	s = expect_ok(&p, b, 64, 64);
	assert_int_equal(s.n, 1);
}

/* ------------------------------------------------------------------ */
/* Parser: datagram entries */

static void test_ncm_ntb_parse_datagram_bounds(void **state)
{
	uint8_t b[128] = { 0 };
	unsigned e[4] = { 12, 14, 100, 28 };	/* the second ends at 128 */
	struct ncm_ntb_parser p = parser(NCM_NTB16, 128);
	struct seen s;

	(void)state;
	nth16(b, 128, 28);
	ndp16(b, 28, 0, e, 2);
	s = expect_ok(&p, b, 128, 128);	/* at the very end of the block */
	assert_int_equal(s.off[1], 100);
	assert_int_equal(s.len[1], 28);
	le16(b + 42, 29);
	expect_drop(&p, b, 128, NCM_NTB_DROP_DATAGRAM);	/* one byte past */
	le16(b + 42, 28);
	le16(b + 40, 101);
	expect_drop(&p, b, 128, NCM_NTB_DROP_DATAGRAM);
	le16(b + 40, 0xfff0);
	expect_drop(&p, b, 128, NCM_NTB_DROP_DATAGRAM);	/* far past */
	le16(b + 40, 100);
	le16(b + 36, 11);
	expect_drop(&p, b, 128, NCM_NTB_DROP_DATAGRAM);	/* into the NTH */
	le16(b + 36, 12);
	le16(b + 38, 13);
	expect_drop(&p, b, 128, NCM_NTB_DROP_DATAGRAM);	/* < Ethernet header */
	le16(b + 38, 14);
	expect_ok(&p, b, 128, 128);
	assert_int_equal(p.stats.ntbs, 2);
	assert_int_equal(p.stats.datagrams, 4);
	assert_int_equal(p.stats.dropped[NCM_NTB_DROP_DATAGRAM], 5);
}

/* max_datagram_len: 1514 passes, 1515 drops (the frame max by default). */
static void test_ncm_ntb_parse_datagram_max(void **state)
{
	static uint8_t b[1600];
	struct ncm_ntb_parser p = parser(NCM_NTB16, sizeof(b));
	size_t n = one16(b, 1514);

	(void)state;
	expect_ok(&p, b, n, n);
	n = one16(b, 1515);
	expect_drop(&p, b, n, NCM_NTB_DROP_DATAGRAM);
	p.max_datagram_len = 1515;
	expect_ok(&p, b, n, n);
}

/* The first datagram good, the second bad: the first is not delivered. */
static void test_ncm_ntb_parse_drops_whole_ntb(void **state)
{
	uint8_t b[128] = { 0 };
	unsigned e1[2] = { 12, 14 }, e2[2] = { 40, 200 };
	struct ncm_ntb_parser p = parser(NCM_NTB16, 128);

	(void)state;
	nth16(b, 128, 64);
	ndp16(b, 64, 96, e1, 1);
	ndp16(b, 96, 0, e2, 1);
	expect_drop(&p, b, 128, NCM_NTB_DROP_DATAGRAM);
	assert_int_equal(p.stats.datagrams, 0);
}

/* Several NTBs in one transfer, a zero byte of padding after them. */
static void test_ncm_ntb_parse_transfer(void **state)
{
	uint8_t b[128];
	struct ncm_ntb_parser p = parser(NCM_NTB16, 64);
	struct seen s = { .base = b };

	(void)state;
	one16(b, 14);
	one16(b + 44, 16);		/* 12 + 16 -> NDP at 28, 44 long */
	b[88] = 0;
	assert_int_equal(ncm_ntb_parse_transfer(&p, b, 89, on_datagram, &s), 2);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.off[1], 44 + 12);
	assert_int_equal(s.len[1], 16);
	assert_int_equal(total_drops(&p), 0);
	/* A non-zero byte after them is a short NTB. */
	b[88] = 1;
	s.n = 0;
	assert_int_equal(ncm_ntb_parse_transfer(&p, b, 89, on_datagram, &s), 2);
	assert_int_equal(p.stats.dropped[NCM_NTB_DROP_SHORT], 1);
	/* A bad second NTB ends the transfer; the first was delivered. */
	b[44] = 'X';
	s.n = 0;
	assert_int_equal(ncm_ntb_parse_transfer(&p, b, 88, on_datagram, &s), 1);
	assert_int_equal(s.n, 1);
	assert_int_equal(p.stats.dropped[NCM_NTB_DROP_NTH_SIGN], 1);
	assert_int_equal(ncm_ntb_parse_transfer(&p, b, 0, on_datagram, &s), 0);
}

static void test_ncm_ntb_parse_bad_arguments(void **state)
{
	uint8_t b[64];
	struct ncm_ntb_parser p;
	struct seen s = { .base = b };

	(void)state;
	assert_int_equal(ncm_ntb_parser_init(&p, (enum ncm_ntb_format)2, 64), -USB_EINVAL);
	assert_int_equal(ncm_ntb_parser_init(&p, NCM_NTB32, 15), -USB_EINVAL);
	assert_int_equal(ncm_ntb_parser_init(NULL, NCM_NTB16, 64), -USB_EINVAL);
	p = parser(NCM_NTB16, 64);
	one16(b, 14);
	assert_int_equal(ncm_ntb_parse(&p, NULL, 44, on_datagram, &s), -USB_EINVAL);
	assert_int_equal(ncm_ntb_parse(&p, b, 44, NULL, &s), -USB_EINVAL);
	assert_int_equal(ncm_ntb_parse_transfer(NULL, b, 44, on_datagram, &s), -USB_EINVAL);
	p.max_ndps = 0;
	assert_int_equal(ncm_ntb_parse(&p, b, 44, on_datagram, &s), -USB_EINVAL);
	assert_int_equal(total_drops(&p), 0);
	assert_int_equal(s.n, 0);
}

/* ------------------------------------------------------------------ */
/* Builder */

static const struct ncm_ntb_in_params linux_in = { 16384, 4, 0, 4 };

static void test_ncm_ntb_build_ntb16_bytes(void **state)
{
	uint8_t buf[256], dg[14];
	struct ncm_ntb_builder b;

	(void)state;
	memset(buf, 0xee, sizeof(buf));
	for (unsigned i = 0; i < sizeof(dg); i++)
		dg[i] = (uint8_t)(0xa0 + i);
	assert_int_equal(ncm_ntb_builder_init(&b, buf, sizeof(buf), NCM_NTB16, &linux_in,
					      0x1234), 0);
	assert_int_equal(ncm_ntb_builder_add(&b, dg, sizeof(dg)), 0);
	assert_int_equal(ncm_ntb_builder_finish(&b), 44);
	assert_memory_equal(buf, ntb16_bytes, 44);
}

static void test_ncm_ntb_build_ntb32_bytes(void **state)
{
	const struct ncm_ntb_in_params in = { 16384, 4, 2, 8 };
	uint8_t buf[512], d0[14], d1[15];
	struct ncm_ntb_builder b;

	(void)state;
	memset(buf, 0xee, sizeof(buf));
	for (unsigned i = 0; i < 15; i++) {
		if (i < 14)
			d0[i] = (uint8_t)(0xb0 + i);
		d1[i] = (uint8_t)(0xc0 + i);
	}
	assert_int_equal(ncm_ntb_builder_init(&b, buf, sizeof(buf), NCM_NTB32, &in, 7), 0);
	assert_int_equal(ncm_ntb_builder_add(&b, d0, sizeof(d0)), 0);
	assert_int_equal(ncm_ntb_builder_add(&b, d1, sizeof(d1)), 0);
	assert_int_equal(ncm_ntb_builder_finish(&b), 96);
	assert_memory_equal(buf, ntb32_bytes, 96);
}

/* Datagrams at offset % divisor == remainder, the NDP aligned, gaps 0. */
static void test_ncm_ntb_build_alignment(void **state)
{
	static const struct ncm_ntb_in_params ins[] = {
		{ 4096, 4, 0, 4 }, { 4096, 8, 6, 16 }, { 4096, 1, 0, 4 },
		{ 4096, 3, 1, 8 }, { 4096, 512, 14, 64 }
	};
	uint8_t buf[4096], dg[200];

	(void)state;
	memset(dg, 0x77, sizeof(dg));
	for (unsigned k = 0; k < 2 * sizeof(ins) / sizeof(ins[0]); k++) {
		const struct ncm_ntb_in_params *in = &ins[k / 2];
		enum ncm_ntb_format f = k % 2 ? NCM_NTB32 : NCM_NTB16;
		struct ncm_ntb_parser p = parser(f, 4096);
		struct ncm_ntb_builder b;
		struct seen s = { .base = buf };
		int len;

		memset(buf, 0xee, sizeof(buf));
		assert_int_equal(ncm_ntb_builder_init(&b, buf, sizeof(buf), f, in, 0), 0);
		for (unsigned i = 0; i < 7; i++)
			assert_int_equal(ncm_ntb_builder_add(&b, dg, 14 + 29 * i), 0);
		len = ncm_ntb_builder_finish(&b);
		assert_true(len > 0);
		assert_int_equal(ncm_ntb_parse(&p, buf, (size_t)len, on_datagram, &s), len);
		assert_int_equal(s.n, 7);
		for (unsigned i = 0; i < 7; i++) {
			size_t gap_end = s.off[i];
			size_t gap = i ? s.off[i - 1] + s.len[i - 1] : (k % 2 ? 16 : 12);

			assert_int_equal(s.off[i] % in->ndp_in_divisor, in->ndp_in_payload_remainder);
			for (; gap < gap_end; gap++)
				assert_int_equal(buf[gap], 0);
		}
		assert_int_equal((k % 2 ? buf[12] : buf[10]) % in->ndp_in_alignment, 0);
		for (int i = 0; i < len; i++)
			assert_int_not_equal(buf[i], 0xee);
	}
}

/* The limit is min(buffer, dwNtbInMaxSize): each at its exact edge. */
static void test_ncm_ntb_build_enospc_boundary(void **state)
{
	uint8_t buf[256], dg[100] = { 0 };
	struct ncm_ntb_builder b;
	struct ncm_ntb_in_params in = linux_in;

	(void)state;
	/* 100 at 12..112, NDP at 112 + 16 = 128. */
	assert_int_equal(ncm_ntb_builder_init(&b, buf, 128, NCM_NTB16, &in, 0), 0);
	assert_int_equal(ncm_ntb_builder_add(&b, dg, 100), 0);
	/* A second (113, NDP at 116 + 8 + 12 = 136) does not fit. */
	assert_int_equal(ncm_ntb_builder_add(&b, dg, 1), -USB_ENOSPC);
	assert_int_equal(ncm_ntb_builder_finish(&b), 128);
	/* 4 more bytes: 112..116, NDP 116 + 20 = 136. */
	in.ntb_in_max = 136;
	assert_int_equal(ncm_ntb_builder_init(&b, buf, sizeof(buf), NCM_NTB16, &in, 0), 0);
	assert_int_equal(ncm_ntb_builder_add(&b, dg, 100), 0);
	assert_int_equal(ncm_ntb_builder_add(&b, dg, 4), 0);
	assert_int_equal(ncm_ntb_builder_add(&b, dg, 1), -USB_ENOSPC);
	assert_int_equal(ncm_ntb_builder_finish(&b), 136);
	in.ntb_in_max = 135;
	assert_int_equal(ncm_ntb_builder_init(&b, buf, sizeof(buf), NCM_NTB16, &in, 0), 0);
	assert_int_equal(ncm_ntb_builder_add(&b, dg, 100), 0);
	assert_int_equal(ncm_ntb_builder_add(&b, dg, 4), -USB_ENOSPC);
	assert_int_equal(ncm_ntb_builder_add(&b, dg, 3), -USB_ENOSPC); /* 115 -> 116 */
	assert_int_equal(ncm_ntb_builder_finish(&b), 128);
}

static void test_ncm_ntb_build_emsgsize(void **state)
{
	static uint8_t buf[4096], dg[2100];
	struct ncm_ntb_in_params in = linux_in;
	struct ncm_ntb_builder b;

	(void)state;
	in.ntb_in_max = 2048;	/* 12 + 2020 = 2032, NDP 16: 2048 */
	assert_int_equal(ncm_ntb_builder_init(&b, buf, sizeof(buf), NCM_NTB16, &in, 0), 0);
	assert_int_equal(ncm_ntb_builder_add(&b, dg, 2021), -USB_EMSGSIZE);
	assert_int_equal(ncm_ntb_builder_add(&b, dg, SIZE_MAX), -USB_EMSGSIZE);
	assert_int_equal(ncm_ntb_builder_add(&b, dg, 2020), 0);
	assert_int_equal(ncm_ntb_builder_add(&b, dg, 2020), -USB_ENOSPC);
	assert_int_equal(ncm_ntb_builder_add(&b, dg, 2021), -USB_EMSGSIZE);
	assert_int_equal(ncm_ntb_builder_finish(&b), 2048);
	/* NTB32: 16 + 2000 = 2016, NDP 32: 2048. */
	assert_int_equal(ncm_ntb_builder_init(&b, buf, sizeof(buf), NCM_NTB32, &in, 0), 0);
	assert_int_equal(ncm_ntb_builder_add(&b, dg, 2001), -USB_EMSGSIZE);
	assert_int_equal(ncm_ntb_builder_add(&b, dg, 2000), 0);
	assert_int_equal(ncm_ntb_builder_finish(&b), 2048);
}

static void test_ncm_ntb_build_limits(void **state)
{
	uint8_t buf[512], dg[20] = { 0 };
	struct ncm_ntb_builder b;
	struct ncm_ntb_in_params in = linux_in;

	(void)state;
	assert_int_equal(ncm_ntb_builder_init(&b, buf, sizeof(buf), NCM_NTB16, &in, 0), 0);
	assert_int_equal(ncm_ntb_builder_finish(&b), -USB_ENODATA);
	assert_int_equal(ncm_ntb_builder_add(&b, dg, 0), -USB_EINVAL);
	b.max_datagrams = 2;
	assert_int_equal(ncm_ntb_builder_add(&b, dg, 20), 0);
	assert_int_equal(ncm_ntb_builder_add(&b, dg, 20), 0);
	assert_int_equal(ncm_ntb_builder_add(&b, dg, 20), -USB_ENOSPC);
	assert_true(ncm_ntb_builder_finish(&b) > 0);
	assert_int_equal(ncm_ntb_builder_add(&b, dg, 20), -USB_EINVAL);	/* finished */
	assert_int_equal(ncm_ntb_builder_finish(&b), -USB_EINVAL);
	/* Bad parameters. */
	in.ndp_in_divisor = 0;
	assert_int_equal(ncm_ntb_builder_init(&b, buf, sizeof(buf), NCM_NTB16, &in, 0), -USB_EINVAL);
	in.ndp_in_divisor = 4;
	in.ndp_in_payload_remainder = 4;
	assert_int_equal(ncm_ntb_builder_init(&b, buf, sizeof(buf), NCM_NTB16, &in, 0), -USB_EINVAL);
	in.ndp_in_payload_remainder = 0;
	in.ndp_in_alignment = 2;
	assert_int_equal(ncm_ntb_builder_init(&b, buf, sizeof(buf), NCM_NTB16, &in, 0), -USB_EINVAL);
	in.ndp_in_alignment = 12;
	assert_int_equal(ncm_ntb_builder_init(&b, buf, sizeof(buf), NCM_NTB16, &in, 0), -USB_EINVAL);
	in.ndp_in_alignment = 4;
	assert_int_equal(ncm_ntb_builder_init(&b, buf, 31, NCM_NTB16, &in, 0), -USB_EINVAL);
	assert_int_equal(ncm_ntb_builder_init(&b, buf, 32, NCM_NTB16, &in, 0), 0);
	assert_int_equal(ncm_ntb_builder_init(&b, buf, sizeof(buf), (enum ncm_ntb_format)5,
					      &in, 0), -USB_EINVAL);
}

/* A big NTB16 stays within wBlockLength's 16 bits. */
static void test_ncm_ntb_build_ntb16_clamped(void **state)
{
	const struct ncm_ntb_in_params in = { 0x20000, 4, 0, 4 };
	uint8_t *buf = malloc(0x20000), dg[1514] = { 1 };
	struct ncm_ntb_builder b;
	struct ncm_ntb_parser p = parser(NCM_NTB16, 0xffff);
	struct seen s = { .base = buf };
	int len, n = 0;

	(void)state;
	assert_non_null(buf);
	assert_int_equal(ncm_ntb_builder_init(&b, buf, 0x20000, NCM_NTB16, &in, 0), 0);
	while (ncm_ntb_builder_add(&b, dg, sizeof(dg)) == 0)
		n++;
	assert_int_equal(n, 43);
	len = ncm_ntb_builder_finish(&b);
	assert_true(len <= 0xffff);
	assert_int_equal(ncm_ntb_parse(&p, buf, (size_t)len, on_datagram, &s), len);
	assert_int_equal(s.n, 43);
	free(buf);
}

/* Build -> parse gives back the datagrams, in order, byte for byte. */
static void test_ncm_ntb_round_trip(void **state)
{
	static uint8_t buf[8192], dgs[64][1514];
	size_t lens[64];
	uint32_t seed = 12345;

	(void)state;
	for (unsigned round = 0; round < 40; round++) {
		enum ncm_ntb_format f = round % 2 ? NCM_NTB32 : NCM_NTB16;
		struct ncm_ntb_in_params in = { 2048 + (round * 997) % 6000,
						(uint16_t)(1u << (round % 4)), 0,
						(uint16_t)(4u << (round % 3)) };
		struct ncm_ntb_parser p = parser(f, sizeof(buf));
		struct ncm_ntb_builder b;
		struct seen s = { .base = buf };
		unsigned n = 0;
		int len, r;

		in.ndp_in_payload_remainder = (uint16_t)(round % in.ndp_in_divisor);
		assert_int_equal(ncm_ntb_builder_init(&b, buf, sizeof(buf), f, &in,
						      (uint16_t)round), 0);
		do {
			seed = seed * 1103515245u + 12345u;
			lens[n] = 14 + (seed >> 8) % 1501;
			for (size_t i = 0; i < lens[n]; i++)
				dgs[n][i] = (uint8_t)(seed >> 16) + (uint8_t)i;
			r = ncm_ntb_builder_add(&b, dgs[n], lens[n]);
			if (r == 0)
				n++;
		} while (r == 0 && n < 64);
		assert_true(r == 0 || r == -USB_ENOSPC);
		len = ncm_ntb_builder_finish(&b);
		assert_true(len > 0 && (size_t)len <= in.ntb_in_max);
		assert_int_equal(usb_get_le16(buf + 6), round);
		assert_int_equal(ncm_ntb_parse(&p, buf, (size_t)len, on_datagram, &s), len);
		assert_int_equal(s.n, n);
		for (unsigned i = 0; i < n; i++) {
			assert_int_equal(s.len[i], lens[i]);
			assert_memory_equal(buf + s.off[i], dgs[i], lens[i]);
		}
	}
}

/* ------------------------------------------------------------------ */
/* GET_NTB_PARAMETERS */

static void test_ncm_ntb_parameters_bytes(void **state)
{
	static const uint8_t want[28] = {
		0x1c, 0x00, 0x03, 0x00, 0x00, 0x40, 0x00, 0x00,
		0x04, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00,
		0x00, 0x80, 0x00, 0x00, 0x08, 0x00, 0x02, 0x00,
		0x10, 0x00, 0x20, 0x00
	};
	const struct ncm_ntb_out_params out = { 32768, 8, 2, 16, 32 };
	struct ncm_ntb_out_params bad = out;
	uint8_t buf[32];

	(void)state;
	memset(buf, 0xee, sizeof(buf));
	assert_int_equal(ncm_ntb_parameters(&linux_in, &out, buf, sizeof(buf)), 28);
	assert_memory_equal(buf, want, 28);
	assert_int_equal(buf[28], 0xee);
	assert_int_equal(ncm_ntb_parameters(&linux_in, &out, buf, 27), -USB_ENOSPC);
	bad.ndp_out_alignment = 3;
	assert_int_equal(ncm_ntb_parameters(&linux_in, &bad, buf, sizeof(buf)), -USB_EINVAL);
	assert_int_equal(ncm_ntb_parameters(NULL, &out, buf, sizeof(buf)), -USB_EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ncm_ntb_parse_ntb16_bytes),
		cmocka_unit_test(test_ncm_ntb_parse_ntb32_bytes),
		cmocka_unit_test(test_ncm_ntb_parse_many_datagrams),
		cmocka_unit_test(test_ncm_ntb_parse_chained_ndps),
		cmocka_unit_test(test_ncm_ntb_parse_chained_ndps_ntb32),
		cmocka_unit_test(test_ncm_ntb_parse_ndp_loop),
		cmocka_unit_test(test_ncm_ntb_parse_nth_checks),
		cmocka_unit_test(test_ncm_ntb_parse_block_length),
		cmocka_unit_test(test_ncm_ntb_parse_block_length_ntb32),
		cmocka_unit_test(test_ncm_ntb_parse_ndp_index),
		cmocka_unit_test(test_ncm_ntb_parse_ndp_length),
		cmocka_unit_test(test_ncm_ntb_parse_ndp_signatures),
		cmocka_unit_test(test_ncm_ntb_parse_entries),
		cmocka_unit_test(test_ncm_ntb_parse_datagram_bounds),
		cmocka_unit_test(test_ncm_ntb_parse_datagram_max),
		cmocka_unit_test(test_ncm_ntb_parse_drops_whole_ntb),
		cmocka_unit_test(test_ncm_ntb_parse_transfer),
		cmocka_unit_test(test_ncm_ntb_parse_bad_arguments),
		cmocka_unit_test(test_ncm_ntb_build_ntb16_bytes),
		cmocka_unit_test(test_ncm_ntb_build_ntb32_bytes),
		cmocka_unit_test(test_ncm_ntb_build_alignment),
		cmocka_unit_test(test_ncm_ntb_build_enospc_boundary),
		cmocka_unit_test(test_ncm_ntb_build_emsgsize),
		cmocka_unit_test(test_ncm_ntb_build_limits),
		cmocka_unit_test(test_ncm_ntb_build_ntb16_clamped),
		cmocka_unit_test(test_ncm_ntb_round_trip),
		cmocka_unit_test(test_ncm_ntb_parameters_bytes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
