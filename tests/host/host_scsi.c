/*
 * host_scsi.c - host_check's SCSI corner cases, one table: the 6, 12 and
 * 16-byte READ/WRITE forms (READ(6) length 0 means 256 blocks), READ
 * CAPACITY(16), range checks that must not wrap (LBA + length past 2^32 or
 * 2^64), VERIFY, SYNCHRONIZE CACHE, READ FORMAT CAPACITIES, MODE SENSE(10),
 * PREVENT/ALLOW with a refused eject, CDB lengths Windows sends, and an
 * unknown opcode with a data phase. Each row: CSW status, residue, amount of
 * data and sense; some rows check the reply's bytes too.
 *
 * Writes only to blocks 8448..8703 of LUN 0; leaves the medium allowed to be
 * removed (and never ejects it).
 */
#include "host_check.h"

#include <stdio.h>
#include <string.h>

#define ANY -1L
#define SC_PREVENT_ALLOW	0x1e
#define SC_START_STOP		0x1b

struct scsi_row {
	const char *id;
	uint8_t cblen;
	uint8_t cb[16];
	uint32_t len;
	uint8_t flags;
	uint8_t status;
	long residue;		/* ANY: not checked */
	long data;		/* bytes in (IN) or ANY */
	long sense;		/* after status 1: key/asc/ascq, ANY */
	/* Checks the reply's bytes; returns NULL or what is wrong. */
	const char *(*reply)(const struct hc *hc, const uint8_t *d, int n);
};

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static const char *reply_capacity16(const struct hc *hc, const uint8_t *d, int n)
{
	if (n < 12)
		return "too short";
	if (be32(d) != 0 || be32(d + 4) != hc->blocks - 1)
		return "last LBA is not the block count - 1";
	if (be32(d + 8) != 512)
		return "block length is not 512";
	return NULL;
}

static const char *reply_format_capacities(const struct hc *hc, const uint8_t *d, int n)
{
	if (n < 12 || d[3] != 8)
		return "not one 8-byte capacity descriptor";
	if (be32(d + 4) != hc->blocks)
		return "block count differs from READ CAPACITY";
	if ((d[8] & 3) != 2)
		return "descriptor type is not 2 (formatted media)";
	if ((be32(d + 8) & 0xffffff) != 512)
		return "block length is not 512";
	return NULL;
}

static const char *reply_mode_sense10(const struct hc *hc, const uint8_t *d, int n)
{
	(void)hc;
	if (n < 8 || (d[0] << 8 | d[1]) + 2 != n)
		return "mode data length does not match the reply";
	if (d[3] & 0x80)
		return "write protected";
	return NULL;
}

#define LBA32(l) (uint8_t)((l) >> 24), (uint8_t)((l) >> 16), (uint8_t)((l) >> 8), (uint8_t)(l)
#define N16(n) (uint8_t)((n) >> 8), (uint8_t)(n)

static const struct scsi_row rows[] = {
	{ "scsi.read6_len0_is_256", 6, { SC_READ_6, 0x00, 0x21, 0x00, 0 }, 256 * 512, DIR_IN,
	  0, 0, 256 * 512, ANY, NULL },
	{ "scsi.write6", 6, { SC_WRITE_6, 0x00, 0x21, 0x00, 1 }, 512, 0, 0, 0, ANY, ANY, NULL },
	{ "scsi.read12", 12, { SC_READ_12, 0, LBA32(0x2100u), LBA32(8u) }, 4096, DIR_IN,
	  0, 0, 4096, ANY, NULL },
	{ "scsi.read16", 16, { SC_READ_16, 0, 0, 0, 0, 0, LBA32(0x2100u), LBA32(8u) }, 4096,
	  DIR_IN, 0, 0, 4096, ANY, NULL },
	{ "scsi.write16", 16, { SC_WRITE_16, 0, 0, 0, 0, 0, LBA32(0x2101u), LBA32(1u) }, 512, 0,
	  0, 0, ANY, ANY, NULL },
	{ "scsi.read_capacity16", 16, { SC_SERVICE_ACTION_IN_16, 0x10, 0, 0, 0, 0, 0, 0, 0, 0,
	  LBA32(32u) }, 32, DIR_IN, 0, 0, 32, ANY, reply_capacity16 },
	{ "scsi.read10_lba_wraps", 10, { SC_READ_10, 0, LBA32(0xffffffffu), 0, N16(2) }, 1024,
	  DIR_IN, 1, 1024, 0, 0x052100, NULL },
	{ "scsi.read16_lba_wraps", 16, { SC_READ_16, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	  0xff, LBA32(2u) }, 1024, DIR_IN, 1, 1024, 0, 0x052100, NULL },
	{ "scsi.read16_lba_2^32", 16, { SC_READ_16, 0, 0, 0, 0, 1, 0, 0, 0, 0, LBA32(1u) }, 512,
	  DIR_IN, 1, 512, 0, 0x052100, NULL },
	{ "scsi.write10_out_of_range", 10, { SC_WRITE_10, 0, LBA32(0xfffffff0u), 0, N16(1) }, 512,
	  0, 1, 512, ANY, 0x052100, NULL },
	{ "scsi.verify10", 10, { SC_VERIFY_10, 0, LBA32(0x2100u), 0, N16(8) }, 0, 0, 0, 0, ANY,
	  ANY, NULL },
	{ "scsi.synchronize_cache10", 10, { SC_SYNCHRONIZE_CACHE, 0, 0, 0, 0, 0, 0, 0, 0 }, 0, 0,
	  0, 0, ANY, ANY, NULL },
	{ "scsi.read_format_capacities", 10, { SC_READ_FORMAT_CAPACITIES, 0, 0, 0, 0, 0, 0,
	  N16(252) }, 252, DIR_IN, 0, 240, 12, ANY, reply_format_capacities },
	{ "scsi.mode_sense10", 10, { SC_MODE_SENSE_10, 0, 0x3f, 0, 0, 0, 0, N16(252) }, 252,
	  DIR_IN, 0, ANY, ANY, ANY, reply_mode_sense10 },
	{ "scsi.start_unit", 6, { SC_START_STOP, 0, 0, 0, 0x01 }, 0, 0, 0, 0, ANY, ANY, NULL },
	{ "scsi.prevent", 6, { SC_PREVENT_ALLOW, 0, 0, 0, 0x01 }, 0, 0, 0, 0, ANY, ANY, NULL },
	{ "scsi.eject_while_prevented", 6, { SC_START_STOP, 0, 0, 0, 0x02 }, 0, 0, 1, 0, ANY,
	  0x055302, NULL },
	{ "scsi.allow", 6, { SC_PREVENT_ALLOW, 0, 0, 0, 0x00 }, 0, 0, 0, 0, ANY, ANY, NULL },
	{ "scsi.tur_cblen12", 12, { SC_TEST_UNIT_READY }, 0, 0, 0, 0, ANY, ANY, NULL },
	{ "scsi.request_sense_cblen12", 12, { SC_REQUEST_SENSE, 0, 0, 0, 18 }, 18, DIR_IN, 0, 0,
	  18, ANY, NULL },
	{ "scsi.unknown_opcode_data_in", 10, { 0xff }, 512, DIR_IN, 1, 512, 0, 0x052000, NULL },
};

static void run_row(struct hc *hc, const struct scsi_row *w)
{
	static uint8_t buf[256 * 512];
	struct cbw_spec c = { .len = w->len, .flags = w->flags, .cblen = w->cblen };
	struct bot_res r;
	char desc[200], sn[16] = "-";
	const char *bad = NULL;
	long s = ANY;
	bool ok;

	memcpy(c.cb, w->cb, 16);
	memset(buf, 0x5a, w->len < sizeof(buf) ? w->len : sizeof(buf));
	hc_bot_cmd(hc, &c, buf, &r);
	ok = r.csw_ok && r.status == w->status &&
	     (w->residue == ANY || r.residue == (uint32_t)w->residue) &&
	     (w->data == ANY || !(w->flags & DIR_IN) || r.data_actual == w->data);
	if (r.csw_ok && r.status == 1) {
		s = hc_sense(hc, 0);
		snprintf(sn, sizeof(sn), "%06lx", s);
		if (w->sense != ANY && s != w->sense)
			ok = false;
	}
	if (ok && w->reply) {
		bad = w->reply(hc, buf, r.data_actual);
		ok = !bad;
	}
	hc_check(hc, ok, w->id, "%s, sense %s (want status %u%s%s)%s%s",
		 hc_bot_describe(&r, desc, sizeof(desc)), sn, w->status,
		 w->sense != ANY ? ", sense " : "", w->sense != ANY ? "as listed" : "",
		 bad ? ": " : "", bad ? bad : "");
	if (!r.csw_ok)
		hc_reset_recovery(hc);
}

void hc_scsi(struct hc *hc)
{
	struct cbw_spec evpd = hc_cmd6(SC_INQUIRY, 255, 255, DIR_IN);
	uint8_t d[255];
	struct bot_res r;
	char desc[200];

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		run_row(hc, &rows[i]);

	/* Vital product data pages are optional (Linux has none). */
	evpd.cb[1] = 0x01;
	memset(d, 0, sizeof(d));
	hc_bot_cmd(hc, &evpd, d, &r);
	hc_info(hc, "scsi.inquiry_vpd00", "INQUIRY EVPD page 0x00: %s, %s", hc_bot_describe(&r, desc,
		sizeof(desc)), r.csw_ok && r.status == 0 && r.data_actual >= 4 ?
		"pages listed" : "not supported");
	if (r.csw_ok && r.status == 1)
		(void)hc_sense(hc, 0);
	hc_check(hc, hc_unit_ready(hc), "scsi.corners.works", "TEST UNIT READY after the corners");
}
