/*
 * usbmon_pcap.c - encodes pcap file headers and Linux usbmon records
 * (usbmon_pcap.h has the layout). Portable C11: pure functions over byte
 * arrays, no I/O; capture_posix.c writes what they produce.
 */
#include <string.h>

#include "usbmon_pcap.h"

static void put_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put_le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* Signed fields go out as their two's complement bits: the conversion
 * to unsigned is defined by C (modulo 2^N). */
static uint32_t s32_bits(int32_t v)
{
	return (uint32_t)v;
}

static uint64_t s64_bits(int64_t v)
{
	return (uint64_t)v;
}

void usbmon__file_header(uint8_t out[USBMON_PCAP_FILE_HEADER_SIZE], uint32_t snaplen)
{
	put_le32(out, 0xa1b2c3d4u);	/* microsecond timestamps */
	put_le16(out + 4, 2);
	put_le16(out + 6, 4);
	put_le32(out + 8, 0);		/* thiszone */
	put_le32(out + 12, 0);		/* sigfigs */
	put_le32(out + 16, snaplen);
	put_le32(out + 20, USBMON_PCAP_LINKTYPE);
}

static char data_flag(const struct usbmon_event *ev)
{
	if (ev->data_len > 0)
		return 0;
	if (ev->type == 'S' && ev->dir_in)
		return '<';
	if (ev->type == 'C' && !ev->dir_in)
		return '>';
	return 0;
}

bool usbmon__record(uint8_t out[USBMON_PCAP_PREFIX_SIZE], const struct usbmon_event *ev)
{
	uint64_t caplen = USBMON_HDR_SIZE + (uint64_t)ev->ndesc * USBMON_ISO_DESC_SIZE + ev->data_len;
	uint8_t *h = out + USBMON_PCAP_RECORD_HEADER_SIZE;

	if (caplen > UINT32_MAX || ev->epnum > 15 || ev->ts_usec < 0 || ev->ts_usec >= 1000000 ||
	    (ev->type != 'S' && ev->type != 'C' && ev->type != 'E'))
		return false;
	/* pcap record header: its own 32-bit seconds (past 2106 they wrap,
	 * the usbmon header keeps all 64 bits). */
	put_le32(out, (uint32_t)s64_bits(ev->ts_sec));
	put_le32(out + 4, (uint32_t)ev->ts_usec);
	put_le32(out + 8, (uint32_t)caplen);
	put_le32(out + 12, (uint32_t)caplen);
	memset(h, 0, USBMON_HDR_SIZE);
	put_le64(h, ev->id);
	h[8] = (uint8_t)ev->type;
	h[9] = (uint8_t)ev->xfer;
	h[10] = (uint8_t)(ev->epnum | (ev->dir_in ? 0x80u : 0u));
	h[11] = ev->devnum;
	put_le16(h + 12, ev->busnum);
	h[14] = ev->has_setup ? 0 : (uint8_t)'-';
	h[15] = (uint8_t)data_flag(ev);
	put_le64(h + 16, s64_bits(ev->ts_sec));
	put_le32(h + 24, (uint32_t)ev->ts_usec);
	put_le32(h + 28, s32_bits(ev->status));
	put_le32(h + 32, ev->length);
	put_le32(h + 36, (uint32_t)(caplen - USBMON_HDR_SIZE));
	if (ev->has_setup) {
		memcpy(h + 40, ev->setup, 8);
	} else if (ev->xfer == USBMON_XFER_ISO) {
		put_le32(h + 40, s32_bits(ev->error_count));
		put_le32(h + 44, s32_bits(ev->numdesc));
	}
	put_le32(h + 48, s32_bits(ev->interval));
	put_le32(h + 52, s32_bits(ev->start_frame));
	put_le32(h + 56, ev->xfer_flags);
	put_le32(h + 60, ev->ndesc);
	return true;
}

void usbmon__iso_desc(uint8_t out[USBMON_ISO_DESC_SIZE], int32_t status, uint32_t offset,
		      uint32_t length)
{
	put_le32(out, s32_bits(status));
	put_le32(out + 4, offset);
	put_le32(out + 8, length);
	put_le32(out + 12, 0);
}
