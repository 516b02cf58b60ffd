/*
 * fuzz_ncm_ntb.c - libFuzzer target for the NCM NTB codec
 * (src/functions/ncm/ntb.c). The input, after one byte of settings, is
 * handed as it is to the parser as NTB16 and as NTB32, one NTB and a
 * whole transfer: every datagram delivered must lie inside the input and
 * within the size limits, and the counters must add up (one NTB accepted
 * or one drop per NTB looked at, no callback for a dropped one). Then the
 * input is cut into datagrams, built into NTBs with parameters it chooses
 * and parsed back: the same datagrams must come out.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "composite/errors.h"
#include "functions/ncm/ntb.h"
#include "fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct seen {
	const uint8_t *base;
	size_t size;
	size_t max_len;
	uint32_t n;
	const uint8_t *expect[64];	/* the round trip's datagrams */
	size_t expect_len[64];
};

static void on_datagram(void *ctx, const uint8_t *p, size_t len)
{
	struct seen *s = ctx;

	CHECK(p >= s->base && len <= s->size && (size_t)(p - s->base) <= s->size - len);
	CHECK(len >= NCM_NTB_MIN_DATAGRAM && len <= s->max_len);
	if (s->n < 64 && s->expect[s->n]) {
		CHECK(len == s->expect_len[s->n]);
		CHECK(memcmp(p, s->expect[s->n], len) == 0);
	}
	s->n++;
}

static uint32_t drops(const struct ncm_ntb_parser *p)
{
	uint32_t n = 0;

	for (unsigned i = 0; i < NCM_NTB_DROP_REASONS; i++)
		n += p->stats.dropped[i];
	return n;
}

static void parse_one(struct ncm_ntb_parser *p, const uint8_t *data, size_t size)
{
	struct seen s = { .base = data, .size = size, .max_len = p->max_datagram_len };
	struct ncm_ntb_stats before = p->stats;
	int r = ncm_ntb_parse(p, data, size, on_datagram, &s);

	if (r > 0) {
		CHECK((size_t)r <= size && r <= (int)p->ntb_out_max);
		CHECK(p->stats.ntbs == before.ntbs + 1 && drops(p) == 0);
		CHECK(p->stats.datagrams == before.datagrams + s.n && s.n > 0);
		CHECK(!p->max_datagrams || s.n <= p->max_datagrams);
	} else {
		CHECK(r == -USB_EBADMSG && s.n == 0);
		CHECK(p->stats.ntbs == before.ntbs && drops(p) == 1);
	}
}

static void parse_all(struct ncm_ntb_parser *p, const uint8_t *data, size_t size)
{
	struct seen s = { .base = data, .size = size, .max_len = p->max_datagram_len };
	struct ncm_ntb_stats before = p->stats;
	uint32_t dropped = drops(p);
	int r = ncm_ntb_parse_transfer(p, data, size, on_datagram, &s);

	CHECK(r >= 0 && p->stats.ntbs == before.ntbs + (uint32_t)r);
	CHECK(drops(p) - dropped <= 1);
	CHECK(p->stats.datagrams == before.datagrams + s.n);
	CHECK(s.n >= (uint32_t)r);
}

static void parse_both(const uint8_t *data, size_t size, uint8_t settings)
{
	for (int f = NCM_NTB16; f <= NCM_NTB32; f++) {
		struct ncm_ntb_parser p;

		CHECK(ncm_ntb_parser_init(&p, (enum ncm_ntb_format)f,
					  settings & 1 ? 16384 : 0xffff) == 0);
		p.max_datagrams = (uint16_t)(settings >> 4);
		p.max_ndps = (uint16_t)(1 + ((settings >> 1) & 7));
		if (settings & 0x80)
			p.max_datagram_len = 60000;
		parse_one(&p, data, size);
		memset(&p.stats, 0, sizeof(p.stats));
		parse_all(&p, data, size);
	}
}

/* Datagrams cut from the input, built into one NTB, parsed back. */
static void round_trip(const uint8_t *data, size_t size)
{
	static uint8_t buf[70000];
	struct input in = { data, size };
	struct ncm_ntb_in_params ip;
	enum ncm_ntb_format f = (in_u8(&in) & 1) ? NCM_NTB32 : NCM_NTB16;
	struct ncm_ntb_builder b;
	struct ncm_ntb_parser p;
	struct seen s = { .base = buf, .size = sizeof(buf), .max_len = 60000 };
	uint32_t n = 0;
	int len, r = 0;

	ip.ntb_in_max = 32 + in_le(&in, 2);
	ip.ndp_in_divisor = (uint16_t)(1 + in_u8(&in));
	ip.ndp_in_payload_remainder = (uint16_t)(in_u8(&in) % ip.ndp_in_divisor);
	ip.ndp_in_alignment = (uint16_t)(4u << (in_u8(&in) % 8));
	if (ncm_ntb_builder_init(&b, buf, sizeof(buf), f, &ip, 1) != 0)
		return;
	while (in.left && n < 64) {
		size_t l = NCM_NTB_MIN_DATAGRAM + in_u8(&in) % 64;

		if (l > in.left)
			l = in.left;
		if (l == 0)
			break;
		r = ncm_ntb_builder_add(&b, in.p, l);
		if (r != 0)
			break;
		CHECK(l >= NCM_NTB_MIN_DATAGRAM || in.left == l);
		s.expect[n] = in.p;
		s.expect_len[n++] = l;
		in.p += l;
		in.left -= l;
	}
	CHECK(r == 0 || r == -USB_ENOSPC || r == -USB_EMSGSIZE);
	len = ncm_ntb_builder_finish(&b);
	if (n == 0) {
		CHECK(len == -USB_ENODATA);
		return;
	}
	CHECK(len > 0 && (size_t)len <= ip.ntb_in_max);
	/* A short last datagram is legal to build but not an Ethernet frame. */
	if (s.expect_len[n - 1] < NCM_NTB_MIN_DATAGRAM)
		return;
	CHECK(ncm_ntb_parser_init(&p, f, (uint32_t)len) == 0);
	p.max_datagram_len = 60000;
	CHECK(ncm_ntb_parse(&p, buf, (size_t)len, on_datagram, &s) == len);
	CHECK(s.n == n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	parse_both(data + 1, size - 1, data[0]);
	round_trip(data + 1, size - 1);
	return 0;
}
