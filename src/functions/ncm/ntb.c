/*
 * ntb.c - the CDC NCM 1.0 Transfer Block codec (see ntb.h): the NTB
 * parser for OUT, the NTB builder for IN, the GET_NTB_PARAMETERS reply.
 * Touches only the caller's buffers; all wire fields go through the
 * usb_get/put_le* helpers, so no alignment or endianness is assumed.
 */
#include "functions/ncm/ntb.h"

#include <limits.h>
#include <string.h>

#include "composite/errors.h"

/* What differs between NTB16 and NTB32: signatures and field widths. */
struct ntb_fmt {
	uint32_t nth_sign;
	uint32_t ndp_sign;		/* no CRC */
	uint32_t ndp_crc_sign;
	uint8_t nth_len;		/* wHeaderLength, also the least index */
	uint8_t word;			/* width of lengths and indexes: 2 or 4 */
	uint8_t ndp_hdr;		/* NDP before its entries */
	uint8_t ndp_next;		/* offset of (d)wNextNdpIndex in the NDP */
	uint8_t dpe;			/* an entry; also wLength's modulo */
};

static const struct ntb_fmt fmt16 = {
	USB_CDC_NCM_NTH16_SIGN, USB_CDC_NCM_NDP16_NOCRC_SIGN, USB_CDC_NCM_NDP16_CRC_SIGN,
	sizeof(struct usb_cdc_ncm_nth16), 2, sizeof(struct usb_cdc_ncm_ndp16),
	offsetof(struct usb_cdc_ncm_ndp16, wNextNdpIndex), sizeof(struct usb_cdc_ncm_dpe16)
};

static const struct ntb_fmt fmt32 = {
	USB_CDC_NCM_NTH32_SIGN, USB_CDC_NCM_NDP32_NOCRC_SIGN, USB_CDC_NCM_NDP32_CRC_SIGN,
	sizeof(struct usb_cdc_ncm_nth32), 4, sizeof(struct usb_cdc_ncm_ndp32),
	offsetof(struct usb_cdc_ncm_ndp32, dwNextNdpIndex), sizeof(struct usb_cdc_ncm_dpe32)
};

/* Both NTHs: signature, wHeaderLength, wSequence, then the block length
 * and the first NDP's index, each one word wide. */
#define NTH_HEADER_LEN	4u
#define NTH_SEQUENCE	6u
#define NTH_BLOCK_LEN	8u
#define NDP_LEN		4u

static const struct ntb_fmt *fmt_of(enum ncm_ntb_format format)
{
	if (format == NCM_NTB16)
		return &fmt16;
	if (format == NCM_NTB32)
		return &fmt32;
	return NULL;
}

static uint32_t get_word(const struct ntb_fmt *f, const uint8_t *p)
{
	return f->word == 2 ? usb_get_le16(p) : usb_get_le32(p);
}

static void put_word(const struct ntb_fmt *f, uint8_t *p, uint32_t v)
{
	if (f->word == 2)
		usb_put_le16(p, (uint16_t)v);
	else
		usb_put_le32(p, v);
}

/* ------------------------------------------------------------------ */
/* GET_NTB_PARAMETERS */

/* The divisor/remainder/alignment triple either direction announces. */
static int check_align(uint16_t divisor, uint16_t remainder, uint16_t alignment)
{
	if (divisor == 0 || remainder >= divisor)
		return -USB_EINVAL;
	if (alignment < USB_CDC_NCM_NDP_ALIGN_MIN_SIZE || (alignment & (alignment - 1)))
		return -USB_EINVAL;
	return 0;
}

int ncm_ntb_parameters(const struct ncm_ntb_in_params *in,
		       const struct ncm_ntb_out_params *out, void *buf, size_t size)
{
	uint8_t *p = buf;

	if (!in || !out || !buf)
		return -USB_EINVAL;
	if (check_align(in->ndp_in_divisor, in->ndp_in_payload_remainder,
			in->ndp_in_alignment) < 0 ||
	    check_align(out->ndp_out_divisor, out->ndp_out_payload_remainder,
			out->ndp_out_alignment) < 0)
		return -USB_EINVAL;
	if (size < sizeof(struct usb_cdc_ncm_ntb_parameters))
		return -USB_ENOSPC;
	usb_put_le16(p + 0, USB_CDC_NCM_NTB_MAX_LENGTH);
	usb_put_le16(p + 2, USB_CDC_NCM_NTB16_SUPPORTED | USB_CDC_NCM_NTB32_SUPPORTED);
	usb_put_le32(p + 4, in->ntb_in_max);
	usb_put_le16(p + 8, in->ndp_in_divisor);
	usb_put_le16(p + 10, in->ndp_in_payload_remainder);
	usb_put_le16(p + 12, in->ndp_in_alignment);
	usb_put_le16(p + 14, 0);
	usb_put_le32(p + 16, out->ntb_out_max);
	usb_put_le16(p + 20, out->ndp_out_divisor);
	usb_put_le16(p + 22, out->ndp_out_payload_remainder);
	usb_put_le16(p + 24, out->ndp_out_alignment);
	usb_put_le16(p + 26, out->ntb_out_max_datagrams);
	return (int)sizeof(struct usb_cdc_ncm_ntb_parameters);
}

/* ------------------------------------------------------------------ */
/* OUT: the parser */

/* "No drop": the walk below found the NTB well formed. */
#define NTB_OK NCM_NTB_DROP_REASONS

/* One walk over an NTB; the first pass checks (fn NULL), the second
 * delivers, so a bad entry late in the block drops the whole block. */
struct ntb_walk {
	const struct ncm_ntb_parser *p;
	const struct ntb_fmt *f;
	const uint8_t *buf;
	size_t block;
	uint32_t datagrams;
	ncm_ntb_datagram_fn fn;
	void *ctx;
};

int ncm_ntb_parser_init(struct ncm_ntb_parser *p, enum ncm_ntb_format format,
			uint32_t ntb_out_max)
{
	if (!p || !fmt_of(format) || ntb_out_max < fmt_of(format)->nth_len ||
	    ntb_out_max > INT_MAX)
		return -USB_EINVAL;
	memset(p, 0, sizeof(*p));
	p->format = format;
	p->ntb_out_max = ntb_out_max;
	p->max_datagram_len = NCM_NTB_ETH_FRAME_MAX;
	p->max_ndps = NCM_NTB_DEFAULT_MAX_NDPS;
	return 0;
}

/* NTH: signature, wHeaderLength, block length (NCM 1.0 3.2). */
static unsigned check_nth(const struct ncm_ntb_parser *p, const struct ntb_fmt *f,
			  const uint8_t *buf, size_t len, size_t *block)
{
	size_t b;

	if (len < f->nth_len)
		return NCM_NTB_DROP_SHORT;
	if (usb_get_le32(buf) != f->nth_sign)
		return NCM_NTB_DROP_NTH_SIGN;
	if (usb_get_le16(buf + NTH_HEADER_LEN) != f->nth_len)
		return NCM_NTB_DROP_NTH_LEN;
	b = get_word(f, buf + NTH_BLOCK_LEN);
	/* NTB16 only: 0 means "up to the short packet", and that transfer
	 * must be shorter than dwNtbOutMaxSize (NCM 1.0 table 3-1). */
	if (b == 0 && f->word == 2 && len < p->ntb_out_max)
		b = len;
	if (b > len || b > p->ntb_out_max || b < (size_t)f->nth_len + f->ndp_hdr)
		return NCM_NTB_DROP_BLOCK_LEN;
	*block = b;
	return NTB_OK;
}

/* One datagram entry's bounds: past the NTH, inside the block, a frame. */
static int datagram_ok(const struct ntb_walk *w, uint32_t index, uint32_t len)
{
	if (index < w->f->nth_len || index > w->block || len > w->block - index)
		return 0;
	return len >= NCM_NTB_MIN_DATAGRAM && len <= w->p->max_datagram_len;
}

/* The entries of one NDP of @n slots, up to the zero entry, which must
 * come after at least one datagram (NCM 1.0 3.3.1: wLength >= 16/32
 * makes room for one and the terminator). Either field zero ends the
 * list, as in both of Linux's NCM drivers. */
static unsigned walk_entries(struct ntb_walk *w, const uint8_t *e, size_t n)
{
	const struct ntb_fmt *f = w->f;
	uint32_t found = 0;

	for (size_t i = 0; i < n; i++, e += f->dpe) {
		uint32_t index = get_word(f, e), len = get_word(f, e + f->word);

		if (index == 0 || len == 0)
			return found ? NTB_OK : NCM_NTB_DROP_NDP_ENTRIES;
		if (!datagram_ok(w, index, len))
			return NCM_NTB_DROP_DATAGRAM;
		if (w->p->max_datagrams && w->datagrams + 1 > w->p->max_datagrams)
			return NCM_NTB_DROP_TOO_MANY_DATAGRAMS;
		w->datagrams++;
		found++;
		if (w->fn)
			w->fn(w->ctx, w->buf + index, len);
	}
	return NCM_NTB_DROP_NDP_ENTRIES;
}

/* One NDP at @index: position, signature, wLength, entries (3.3). */
static unsigned walk_ndp(struct ntb_walk *w, uint32_t index, uint32_t *next)
{
	const struct ntb_fmt *f = w->f;
	const uint8_t *ndp;
	uint32_t sign;
	size_t len;

	if (index % 4 || index < f->nth_len || index > w->block - f->ndp_hdr)
		return NCM_NTB_DROP_NDP_INDEX;
	ndp = w->buf + index;
	sign = usb_get_le32(ndp);
	if (sign == f->ndp_crc_sign)
		return NCM_NTB_DROP_NDP_CRC;
	if (sign != f->ndp_sign)
		return NCM_NTB_DROP_NDP_SIGN;
	len = usb_get_le16(ndp + NDP_LEN);
	if (len < (size_t)f->ndp_hdr + 2u * f->dpe || len % f->dpe || len > w->block - index)
		return NCM_NTB_DROP_NDP_LEN;
	*next = get_word(f, ndp + f->ndp_next);
	return walk_entries(w, ndp + f->ndp_hdr, (len - f->ndp_hdr) / f->dpe);
}

/* The NDP chain from wNdpIndex until a zero wNextNdpIndex, at most
 * max_ndps long, so a chain that loops ends in a drop, not a hang. */
static unsigned walk_ntb(struct ntb_walk *w)
{
	uint32_t index = get_word(w->f, w->buf + NTH_BLOCK_LEN + w->f->word);
	unsigned ndps = 0, r;

	w->datagrams = 0;
	do {
		if (++ndps > w->p->max_ndps)
			return NCM_NTB_DROP_TOO_MANY_NDPS;
		r = walk_ndp(w, index, &index);
		if (r != NTB_OK)
			return r;
	} while (index != 0);
	return NTB_OK;
}

int ncm_ntb_parse(struct ncm_ntb_parser *p, const void *buf, size_t len,
		  ncm_ntb_datagram_fn fn, void *ctx)
{
	struct ntb_walk w = { .p = p, .buf = buf };
	unsigned r;

	if (!p || !buf || !fn || !(w.f = fmt_of(p->format)) || p->max_ndps == 0)
		return -USB_EINVAL;
	r = check_nth(p, w.f, w.buf, len, &w.block);
	if (r == NTB_OK)
		r = walk_ntb(&w);
	if (r != NTB_OK) {
		p->stats.dropped[r]++;
		return -USB_EBADMSG;
	}
	w.fn = fn;
	w.ctx = ctx;
	(void)walk_ntb(&w);	/* cannot fail: the same bytes passed above */
	p->stats.ntbs++;
	p->stats.datagrams += w.datagrams;
	return (int)w.block;
}

int ncm_ntb_parse_transfer(struct ncm_ntb_parser *p, const void *buf, size_t len,
			   ncm_ntb_datagram_fn fn, void *ctx)
{
	const uint8_t *at = buf;
	int accepted = 0, n;

	if (!p || !buf || !fn || !fmt_of(p->format) || p->max_ndps == 0)
		return -USB_EINVAL;
	while (len > 0 && !(len == 1 && at[0] == 0)) {
		n = ncm_ntb_parse(p, at, len, fn, ctx);
		if (n < 0)
			break;
		accepted++;
		at += n;
		len -= (size_t)n;
	}
	return accepted;
}

/* ------------------------------------------------------------------ */
/* IN: the builder */

static size_t align_up(size_t v, size_t a)
{
	return (v + a - 1) & ~(a - 1);
}

/* The first offset >= @at where offset % divisor == remainder (3.3.4). */
static size_t datagram_offset(const struct ncm_ntb_builder *b, size_t at)
{
	size_t d = b->in.ndp_in_divisor;

	return at + (b->in.ndp_in_payload_remainder + d - at % d) % d;
}

/* The block length if a datagram of @len followed @count datagrams
 * ending at @tail, or 0 if that exceeds the limit. */
static size_t layout(const struct ncm_ntb_builder *b, size_t tail, size_t count,
		     size_t len, size_t *offset)
{
	const struct ntb_fmt *f = fmt_of(b->format);
	size_t off, end;

	/* wLength is 16 bits wide in both formats. */
	if (len > b->limit || f->ndp_hdr + (count + 2) * f->dpe > 0xffffu)
		return 0;
	off = datagram_offset(b, tail);
	end = align_up(off + len, b->in.ndp_in_alignment) + f->ndp_hdr +
	      (count + 2) * f->dpe;
	*offset = off;
	return end <= b->limit ? end : 0;
}

int ncm_ntb_builder_init(struct ncm_ntb_builder *b, void *buf, size_t size,
			 enum ncm_ntb_format format, const struct ncm_ntb_in_params *in,
			 uint16_t sequence)
{
	const struct ntb_fmt *f = fmt_of(format);
	size_t off;

	if (!b || !buf || !f || !in ||
	    check_align(in->ndp_in_divisor, in->ndp_in_payload_remainder,
			in->ndp_in_alignment) < 0)
		return -USB_EINVAL;
	memset(b, 0, sizeof(*b));
	b->buf = buf;
	b->format = format;
	b->in = *in;
	b->sequence = sequence;
	b->limit = size < in->ntb_in_max ? size : in->ntb_in_max;
	if (b->limit > (f->word == 2 ? 0xffffu : (size_t)INT_MAX))
		b->limit = f->word == 2 ? 0xffffu : (size_t)INT_MAX;
	b->tail = f->nth_len;
	if (layout(b, b->tail, 0, 1, &off) == 0) {
		b->buf = NULL;
		return -USB_EINVAL;
	}
	return 0;
}

int ncm_ntb_builder_add(struct ncm_ntb_builder *b, const void *data, size_t len)
{
	const struct ntb_fmt *f;
	size_t off, empty_off;
	uint8_t *entry;

	if (!b || !b->buf || (!data && len) || len == 0)
		return -USB_EINVAL;
	f = fmt_of(b->format);
	if (layout(b, f->nth_len, 0, len, &empty_off) == 0)
		return -USB_EMSGSIZE;
	if ((b->max_datagrams && b->count >= b->max_datagrams) ||
	    layout(b, b->tail, b->count, len, &off) == 0)
		return -USB_ENOSPC;
	memset(b->buf + b->tail, 0, off - b->tail);
	memcpy(b->buf + off, data, len);
	/* Entries wait at the buffer's end, last added lowest: the layout
	 * check keeps the data below them. */
	entry = b->buf + b->limit - (size_t)(b->count + 1) * f->dpe;
	put_word(f, entry, (uint32_t)off);
	put_word(f, entry + f->word, (uint32_t)len);
	b->count++;
	b->tail = off + len;
	return 0;
}

/* Turn the waiting entries (reversed at the end) into the NDP's order. */
static void reverse_entries(uint8_t *first, size_t count, size_t size)
{
	uint8_t tmp[sizeof(struct usb_cdc_ncm_dpe32)];

	for (size_t i = 0, j = count - 1; i < j; i++, j--) {
		memcpy(tmp, first + i * size, size);
		memcpy(first + i * size, first + j * size, size);
		memcpy(first + j * size, tmp, size);
	}
}

int ncm_ntb_builder_finish(struct ncm_ntb_builder *b)
{
	const struct ntb_fmt *f;
	size_t ndp, ndp_len, waiting;

	if (!b || !b->buf)
		return -USB_EINVAL;
	if (b->count == 0)
		return -USB_ENODATA;
	f = fmt_of(b->format);
	ndp = align_up(b->tail, b->in.ndp_in_alignment);
	ndp_len = f->ndp_hdr + (size_t)(b->count + 1) * f->dpe;
	waiting = b->limit - (size_t)b->count * f->dpe;
	reverse_entries(b->buf + waiting, b->count, f->dpe);
	/* The NDP ends below the waiting entries' end: move, then write
	 * the header and the zero entry over what is left behind. */
	memmove(b->buf + ndp + f->ndp_hdr, b->buf + waiting, (size_t)b->count * f->dpe);
	memset(b->buf + b->tail, 0, ndp - b->tail + f->ndp_hdr);
	memset(b->buf + ndp + ndp_len - f->dpe, 0, f->dpe);
	usb_put_le32(b->buf + ndp, f->ndp_sign);
	usb_put_le16(b->buf + ndp + NDP_LEN, (uint16_t)ndp_len);
	memset(b->buf, 0, f->nth_len);
	usb_put_le32(b->buf, f->nth_sign);
	usb_put_le16(b->buf + NTH_HEADER_LEN, f->nth_len);
	usb_put_le16(b->buf + NTH_SEQUENCE, b->sequence);
	put_word(f, b->buf + NTH_BLOCK_LEN, (uint32_t)(ndp + ndp_len));
	put_word(f, b->buf + NTH_BLOCK_LEN + f->word, (uint32_t)ndp);
	b->buf = NULL;
	return (int)(ndp + ndp_len);
}
