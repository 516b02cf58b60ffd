/*
 * ntb.h - the CDC NCM 1.0 Transfer Block codec: parsing the NTBs a host
 * sends (OUT), building the NTBs the gadget sends (IN), and the
 * GET_NTB_PARAMETERS reply. Private to src/functions/ncm.
 *
 * Pure protocol code: no gadget state, no heap, no I/O. Every buffer is
 * borrowed from the caller for the length of one call (the builder's for
 * as long as it is in use). Formats are NTB16 and NTB32 without CRCs: an
 * NDP signed NCM1/ncm1 is refused. Calls on different objects are
 * independent; one object is used from one context at a time.
 *
 * Errors are negative enum usb_error values; a hostile NTB is not a bug
 * but a counted drop (struct ncm_ntb_stats), and its datagrams never reach
 * the callback.
 */
#ifndef COMPOSITE_NCM_NTB_H
#define COMPOSITE_NCM_NTB_H

#include <stddef.h>
#include <stdint.h>

#include "composite/cdc.h"

/* SET_NTB_FORMAT's values. */
enum ncm_ntb_format {
	NCM_NTB16 = USB_CDC_NCM_NTB16_FORMAT,
	NCM_NTB32 = USB_CDC_NCM_NTB32_FORMAT
};

/* Ethernet frame bounds (header included, no FCS): a datagram outside
 * them is refused by the parser. */
#define NCM_NTB_MIN_DATAGRAM	14u
#define NCM_NTB_ETH_FRAME_MAX	1514u
/* How many NDPs one OUT NTB may chain when the parser is not told. */
#define NCM_NTB_DEFAULT_MAX_NDPS 8u

/* The parameters the function announces (GET_NTB_PARAMETERS). */
struct ncm_ntb_in_params {
	uint32_t ntb_in_max;		/* dwNtbInMaxSize */
	uint16_t ndp_in_divisor;	/* wNdpInDivisor: >= 1 */
	uint16_t ndp_in_payload_remainder; /* < the divisor */
	uint16_t ndp_in_alignment;	/* a power of two, >= 4 */
};

struct ncm_ntb_out_params {
	uint32_t ntb_out_max;		/* dwNtbOutMaxSize */
	uint16_t ndp_out_divisor;
	uint16_t ndp_out_payload_remainder;
	uint16_t ndp_out_alignment;
	uint16_t ntb_out_max_datagrams;	/* 0: no limit */
};

/**
 * ncm_ntb_parameters() - the 28-byte GET_NTB_PARAMETERS reply.
 * @in, @out: borrowed; @in must pass the builder's checks (see
 *	ncm_ntb_builder_init()), @out the same for its divisor, remainder
 *	and alignment.
 * @buf: where to write (borrowed), @size its length.
 *
 * bmNtbFormatsSupported is always NTB16 | NTB32.
 * Return: 28; -USB_EINVAL for bad parameters; -USB_ENOSPC when @size < 28
 * (nothing written then). The caller cuts the reply to wLength.
 */
int ncm_ntb_parameters(const struct ncm_ntb_in_params *in,
		       const struct ncm_ntb_out_params *out, void *buf, size_t size);

/* --- OUT: parsing what the host sends --- */

/*
 * What an NTB must satisfy (NCM 1.0 3.2-3.3; each failure is a reason
 * below): at least an NTH's bytes; dwSignature NCMH/ncmh; wHeaderLength
 * 12/16; a block length not past the bytes given, not over ntb_out_max,
 * not under NTH + NDP header (NTB16's 0 means "the whole transfer", which
 * must then be shorter than ntb_out_max); every NDP index a multiple of 4,
 * past the NTH, its header inside the block; signature NCM0/ncm0 (NCM1/
 * ncm1 counted apart); wLength >= 16/32, a multiple of 4/8, inside the
 * block; at least one datagram and then an entry with index or length 0
 * within wLength (entries after it are ignored); each datagram past the
 * NTH, wholly inside the block, NCM_NTB_MIN_DATAGRAM..max_datagram_len
 * long; at most max_datagrams in all NDPs, at most max_ndps NDPs.
 * Not refused: datagrams overlapping each other or an NDP (the spec does
 * not forbid it and no byte outside the block is ever read), NDPs not at
 * wNdpOutAlignment, reserved fields not zero, any wSequence.
 */

/* Why an NTB was dropped: each drop counts exactly one reason. */
enum ncm_ntb_drop {
	NCM_NTB_DROP_SHORT,		/* fewer bytes than an NTH */
	NCM_NTB_DROP_NTH_SIGN,		/* not NCMH / ncmh */
	NCM_NTB_DROP_NTH_LEN,		/* wHeaderLength not 12 / 16 */
	NCM_NTB_DROP_BLOCK_LEN,		/* past the transfer, the max, or < NTH+NDP */
	NCM_NTB_DROP_NDP_INDEX,		/* unaligned, into the NTH, past the block */
	NCM_NTB_DROP_NDP_SIGN,		/* neither NCM0 nor NCM1 */
	NCM_NTB_DROP_NDP_CRC,		/* NCM1: CRC mode is not supported */
	NCM_NTB_DROP_NDP_LEN,		/* too short, bad modulo, past the block */
	NCM_NTB_DROP_NDP_ENTRIES,	/* no datagram, or no terminating entry */
	NCM_NTB_DROP_DATAGRAM,		/* into the NTH, past the block, bad size */
	NCM_NTB_DROP_TOO_MANY_DATAGRAMS, /* more than max_datagrams */
	NCM_NTB_DROP_TOO_MANY_NDPS,	/* a longer chain than max_ndps (or a loop) */
	NCM_NTB_DROP_REASONS
};

/* Counters; the caller may read or zero them at any time it owns the
 * parser. Every NTB looked at adds one to ntbs or to one dropped[]. */
struct ncm_ntb_stats {
	uint32_t ntbs;			/* NTBs accepted */
	uint32_t datagrams;		/* datagrams handed to the callback */
	uint32_t dropped[NCM_NTB_DROP_REASONS];
};

/* The parser's settings (set by ncm_ntb_parser_init(), then tunable) and
 * its counters. */
struct ncm_ntb_parser {
	enum ncm_ntb_format format;	/* as SET_NTB_FORMAT chose */
	uint32_t ntb_out_max;		/* the dwNtbOutMaxSize announced */
	uint32_t max_datagram_len;	/* e.g. NCM_NTB_ETH_FRAME_MAX */
	uint16_t max_datagrams;		/* per NTB; 0: no limit */
	uint16_t max_ndps;		/* per NTB, >= 1: bounds the chain walk */
	struct ncm_ntb_stats stats;
};

/**
 * ncm_ntb_datagram_fn - called once per datagram of an accepted NTB, in
 * NDP then entry order.
 * @ctx: the caller's pointer.
 * @data: into the buffer given to the parse call: borrowed for the call
 *	only (copy or consume it before returning).
 * @len: NCM_NTB_MIN_DATAGRAM..max_datagram_len bytes.
 */
typedef void (*ncm_ntb_datagram_fn)(void *ctx, const uint8_t *data, size_t len);

/**
 * ncm_ntb_parser_init() - settings for one data interface.
 * @p: the parser (caller-owned), counters zeroed.
 * @format: NCM_NTB16 or NCM_NTB32.
 * @ntb_out_max: the dwNtbOutMaxSize announced (>= 12).
 *
 * Defaults: max_datagram_len NCM_NTB_ETH_FRAME_MAX, max_datagrams 0 (the
 * wNtbOutMaxDatagrams to set when announcing one), max_ndps
 * NCM_NTB_DEFAULT_MAX_NDPS. Return: 0, or -USB_EINVAL.
 */
int ncm_ntb_parser_init(struct ncm_ntb_parser *p, enum ncm_ntb_format format,
			uint32_t ntb_out_max);

/**
 * ncm_ntb_parse() - check one NTB at the start of @buf, then deliver it.
 * @p: the parser; its counters are updated.
 * @buf, @len: the bytes received from this NTB on (borrowed).
 * @fn, @ctx: the datagram callback and its context.
 *
 * The whole NTB is checked before the first callback, so a malformed NTB
 * delivers nothing (NCM 1.0 gives no way to trust part of a block whose
 * pointers are wrong; Linux's f_ncm drops it whole too).
 * Return: the NTB's block length (> 0: where a next NTB would start);
 * -USB_EBADMSG when the NTB was dropped (the reason counted, @fn not
 * called); -USB_EINVAL for a bad argument (nothing counted).
 */
int ncm_ntb_parse(struct ncm_ntb_parser *p, const void *buf, size_t len,
		  ncm_ntb_datagram_fn fn, void *ctx);

/**
 * ncm_ntb_parse_transfer() - every NTB of one OUT transfer.
 * @p, @buf, @len, @fn, @ctx: as ncm_ntb_parse(); @len is the transfer's.
 *
 * NTBs follow one another as their block lengths say; a single zero byte
 * after the last is padding (a host may add one to avoid a zero-length
 * packet) and is ignored. The first malformed NTB is dropped with the rest
 * of the transfer: its length cannot be trusted to find the next one.
 * NTBs before it were already delivered.
 * Return: the number of NTBs accepted (>= 0); -USB_EINVAL for a bad
 * argument (@fn not called).
 */
int ncm_ntb_parse_transfer(struct ncm_ntb_parser *p, const void *buf, size_t len,
			   ncm_ntb_datagram_fn fn, void *ctx);

/* --- IN: building what the gadget sends --- */

/*
 * Layout: NTH, then the datagrams, each at the first offset where
 * offset % wNdpInDivisor == wNdpInPayloadRemainder, then one NDP at the
 * next multiple of wNdpInAlignment (as Linux's f_ncm does since it packs
 * several datagrams; Linux's and Windows' hosts take any NDP position).
 * Until ncm_ntb_builder_finish() the entries are kept at the end of the
 * buffer, so bytes past the block length are scratch. Gaps are zeroed.
 */
struct ncm_ntb_builder {
	uint8_t *buf;			/* borrowed until finished */
	size_t limit;			/* min(size, ntb_in_max, 0xffff for NTB16) */
	enum ncm_ntb_format format;
	struct ncm_ntb_in_params in;
	uint16_t sequence;
	uint16_t max_datagrams;		/* 0: no limit; set after init from
					 * SET_NTB_INPUT_SIZE's wNtbInMaxDatagrams */
	uint32_t count;			/* datagrams added */
	size_t tail;			/* end of the last datagram */
};

/**
 * ncm_ntb_builder_init() - start an NTB in @buf.
 * @b: the builder (caller-owned).
 * @buf, @size: the IN request's buffer, borrowed until finish or a new init.
 * @format: NCM_NTB16 or NCM_NTB32.
 * @in: the announced IN parameters (copied), with ntb_in_max as the host
 *	may have lowered it with SET_NTB_INPUT_SIZE.
 * @sequence: wSequence for this NTB (the caller counts).
 *
 * Return: 0; -USB_EINVAL for a bad format, divisor 0, remainder >=
 * divisor, an alignment not a power of two >= 4, or no room for an NTB
 * holding one datagram.
 */
int ncm_ntb_builder_init(struct ncm_ntb_builder *b, void *buf, size_t size,
			 enum ncm_ntb_format format, const struct ncm_ntb_in_params *in,
			 uint16_t sequence);

/**
 * ncm_ntb_builder_add() - copy one datagram into the NTB.
 * @b: an initialised builder.
 * @data, @len: the datagram (borrowed for the call), @len >= 1.
 *
 * Return: 0; -USB_ENOSPC when it, or the NDP grown by its entry, does not
 * fit this NTB, or max_datagrams is reached (finish and send this one,
 * then add it to the next); -USB_EMSGSIZE when it would not fit even an
 * empty NTB; -USB_EINVAL for @len 0. On error the NTB is unchanged.
 */
int ncm_ntb_builder_add(struct ncm_ntb_builder *b, const void *data, size_t len);

/**
 * ncm_ntb_builder_finish() - write the NTH and the NDP.
 * @b: a builder holding at least one datagram.
 *
 * Return: the block length (> 0: the bytes to send from the buffer's
 * start); -USB_ENODATA when no datagram was added (an NDP must point at
 * one). Adding after finish is a bug; init again for the next NTB.
 */
int ncm_ntb_builder_finish(struct ncm_ntb_builder *b);

#endif /* COMPOSITE_NCM_NTB_H */
