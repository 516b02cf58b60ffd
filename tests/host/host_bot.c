/*
 * host_bot.c - host_check's Bulk-Only Transport checks, driven raw over the
 * bulk endpoints: the class requests (Get Max LUN, Bulk-Only Mass Storage
 * Reset), valid SCSI commands with data read back, the thirteen host/device
 * cases of BOT 1.0 section 6.7 that a host can provoke (one table), invalid
 * and not-meaningful CBWs with Reset Recovery.
 *
 * vhci hands stalls to the host as they come: after every stall the host
 * clears it (libusb_clear_halt) before the endpoint's next transfer, as BOT
 * 5.3.3 says. Writes only to blocks 1024..8191 of LUN 0.
 */
#include "host_check.h"

#include <stdio.h>
#include <string.h>

#define SCRATCH_LBA 1024u	/* the 13 cases write here */

static void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16), p[3] = (uint8_t)(v >> 24);
}

static uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

void hc_build_cbw(uint8_t *cbw, uint32_t tag, const struct cbw_spec *c)
{
	memset(cbw, 0, CBW_LEN);
	memcpy(cbw, "USBC", 4);
	put_le32(cbw + 4, tag);
	put_le32(cbw + 8, c->len);
	cbw[12] = c->flags;
	cbw[13] = c->lun;
	cbw[14] = c->cblen;
	memcpy(cbw + 15, c->cb, 16);
}

/* Read the CSW; a stall is cleared and the read tried once more (5.3.3). */
static void read_csw(struct hc *hc, struct bot_res *r)
{
	r->csw_rc = hc_bulk(hc, hc->ep_in, r->csw, sizeof(r->csw), &r->csw_len);
	if (r->csw_rc == LIBUSB_ERROR_PIPE) {
		r->csw_stalled = true;
		libusb_clear_halt(hc->h, hc->ep_in);
		r->csw_rc = hc_bulk(hc, hc->ep_in, r->csw, sizeof(r->csw), &r->csw_len);
	}
	if (r->csw_rc == 0 && r->csw_len == CSW_LEN && memcmp(r->csw, "USBS", 4) == 0) {
		r->csw_tag = get_le32(r->csw + 4);
		r->residue = get_le32(r->csw + 8);
		r->status = r->csw[12];
		r->csw_ok = r->csw_tag == r->tag;
	}
}

/* One command: CBW, data (IN into data, OUT from data), CSW. */
void hc_bot_cmd(struct hc *hc, const struct cbw_spec *c, uint8_t *data, struct bot_res *r)
{
	uint8_t cbw[CBW_LEN];
	int actual;

	memset(r, 0, sizeof(*r));
	r->tag = hc->tag++;
	hc_build_cbw(cbw, r->tag, c);
	r->cbw_rc = hc_bulk(hc, hc->ep_out, cbw, CBW_LEN, &actual);
	if (r->cbw_rc == LIBUSB_ERROR_PIPE)
		libusb_clear_halt(hc->h, hc->ep_out);
	if (r->cbw_rc < 0)
		return;
	if (c->len) {
		uint8_t ep = c->flags & DIR_IN ? hc->ep_in : hc->ep_out;

		r->data_rc = hc_bulk(hc, ep, data, (int)c->len, &r->data_actual);
		if (r->data_rc == LIBUSB_ERROR_PIPE) {
			r->data_stalled = true;
			libusb_clear_halt(hc->h, ep);
		}
		if (r->data_rc < 0 && r->data_rc != LIBUSB_ERROR_PIPE)
			return;
	}
	read_csw(hc, r);
}

/* "CSW status S residue R (tag ok, in stalled)" for the check lines. */
const char *hc_bot_describe(const struct bot_res *r, char *out, size_t size)
{
	if (r->cbw_rc < 0)
		snprintf(out, size, "CBW write %s", hc_err(r->cbw_rc));
	else if (r->data_rc < 0 && r->data_rc != LIBUSB_ERROR_PIPE)
		snprintf(out, size, "data phase %s after %d bytes", hc_err(r->data_rc),
			 r->data_actual);
	else if (r->csw_rc < 0)
		snprintf(out, size, "data %d bytes%s, CSW read %s", r->data_actual,
			 r->data_stalled ? " (stall)" : "", hc_err(r->csw_rc));
	else if (!r->csw_ok)
		snprintf(out, size, "data %d bytes%s, bad CSW: %d bytes, signature %02x%02x%02x%02x, "
			 "tag 0x%08x want 0x%08x", r->data_actual, r->data_stalled ? " (stall)" : "",
			 r->csw_len, r->csw[0], r->csw[1], r->csw[2], r->csw[3],
			 r->csw_len >= 8 ? get_le32(r->csw + 4) : 0, r->tag);
	else
		snprintf(out, size, "data %d bytes%s, CSW%s status %u residue %u",
			 r->data_actual, r->data_stalled ? " (stall)" : "",
			 r->csw_stalled ? " (after a stall)" : "", r->status, r->residue);
	return out;
}

void hc_reset_recovery(struct hc *hc)
{
	(void)hc_ctrl(hc, 0x21, 0xff, 0, hc->ifnum, NULL, 0);
	(void)libusb_clear_halt(hc->h, hc->ep_in);
	(void)libusb_clear_halt(hc->h, hc->ep_out);
}

struct cbw_spec hc_cmd6(uint8_t op, uint8_t alloc, uint32_t len, uint8_t flags)
{
	struct cbw_spec c = { .len = len, .flags = flags, .cblen = 6 };

	c.cb[0] = op;
	c.cb[4] = alloc;
	return c;
}

struct cbw_spec hc_rw10(uint8_t op, uint32_t lba, uint16_t n, uint32_t len, uint8_t flags)
{
	struct cbw_spec c = { .len = len, .flags = flags, .cblen = 10 };

	c.cb[0] = op;
	c.cb[2] = (uint8_t)(lba >> 24), c.cb[3] = (uint8_t)(lba >> 16);
	c.cb[4] = (uint8_t)(lba >> 8), c.cb[5] = (uint8_t)lba;
	c.cb[7] = (uint8_t)(n >> 8), c.cb[8] = (uint8_t)n;
	return c;
}

long hc_sense(struct hc *hc, uint8_t lun)
{
	struct cbw_spec c = hc_cmd6(SC_REQUEST_SENSE, 18, 18, DIR_IN);
	uint8_t d[18];
	struct bot_res r;

	c.lun = lun;
	memset(d, 0, sizeof(d));
	hc_bot_cmd(hc, &c, d, &r);
	if (!r.csw_ok || r.status != 0 || r.data_actual < 14 || (d[0] & 0x7f) != 0x70)
		return -1;
	return (long)(d[2] & 0x0f) << 16 | (long)d[12] << 8 | d[13];
}

bool hc_unit_ready(struct hc *hc)
{
	struct cbw_spec c = hc_cmd6(SC_TEST_UNIT_READY, 0, 0, 0);
	struct bot_res r;
	char d[160];

	for (int i = 0; i < 4; i++) {
		hc_bot_cmd(hc, &c, NULL, &r);
		if (r.csw_ok && r.status == 0 && r.residue == 0)
			return true;
		if (hc->verbose)
			printf("      (TEST UNIT READY: %s)\n", hc_bot_describe(&r, d, sizeof(d)));
		if (r.csw_ok && r.status == 1) {
			long s = hc_sense(hc, 0);

			if (hc->verbose)
				printf("      (sense %06lx)\n", s);
		} else {
			hc_reset_recovery(hc);
		}
	}
	return false;
}

/* ---- class requests and valid commands ----------------------------------- */

static void check_class_requests(struct hc *hc)
{
	uint8_t b[2] = { 0xee, 0xee };
	int rc;

	rc = hc_ctrl(hc, 0xa1, 0xfe, 0, hc->ifnum, b, 1);
	hc_check(hc, rc == 1 && b[0] == hc->max_lun, "class.get_max_lun",
		 "-> %s%d bytes, %u (want %d)", rc < 0 ? hc_err(rc) : "", rc < 0 ? 0 : rc,
		 b[0], hc->max_lun);
	rc = hc_ctrl(hc, 0xa1, 0xfe, 1, hc->ifnum, b, 1);
	hc_check(hc, rc == LIBUSB_ERROR_PIPE, "class.get_max_lun.wvalue1", "-> %s%s",
		 hc_err(rc), rc == LIBUSB_ERROR_PIPE ? " (stall)" : ", want stall");
	rc = hc_ctrl(hc, 0x21, 0xff, 1, hc->ifnum, NULL, 0);
	hc_check(hc, rc == LIBUSB_ERROR_PIPE, "class.reset.wvalue1", "-> %s%s",
		 hc_err(rc), rc == LIBUSB_ERROR_PIPE ? " (stall)" : ", want stall");
	rc = hc_ctrl(hc, 0x21, 0xff, 0, hc->ifnum, NULL, 0);
	hc_check(hc, rc == 0, "class.reset", "Bulk-Only Mass Storage Reset -> %s", hc_err(rc));
	hc_check(hc, hc_unit_ready(hc), "class.reset.works", "TEST UNIT READY after the reset");
}

static bool printable(const uint8_t *p, int n)
{
	for (int i = 0; i < n; i++)
		if (p[i] < 0x20 || p[i] > 0x7e)
			return false;
	return true;
}

static void check_inquiry(struct hc *hc)
{
	struct cbw_spec c = hc_cmd6(SC_INQUIRY, 36, 36, DIR_IN);
	uint8_t d[36];
	struct bot_res r;
	char desc[160];
	bool ok;

	memset(d, 0, sizeof(d));
	hc_bot_cmd(hc, &c, d, &r);
	ok = r.csw_ok && r.status == 0 && r.residue == 0 && r.data_actual == 36;
	hc_check(hc, ok, "scsi.inquiry", "%s", hc_bot_describe(&r, desc, sizeof(desc)));
	if (!ok)
		return;
	hc_check(hc, d[0] == 0x00 && (d[3] & 0x0f) == 2 && d[4] == 31 &&
		     d[1] >> 7 == hc->exp->inq_rmb, "scsi.inquiry.header",
		 "type 0x%02x (want 0 disk), format %u (want 2), additional length %u (want 31), "
		 "RMB %u (want %u), version %u", d[0], d[3] & 0x0f, d[4], d[1] >> 7,
		 hc->exp->inq_rmb, d[2]);
	hc_check(hc, memcmp(d + 8, hc->exp->inq_vendor, 8) == 0 &&
		     memcmp(d + 16, hc->exp->inq_product, 16) == 0 && printable(d + 32, 4),
		 "scsi.inquiry.ids", "vendor \"%.8s\" product \"%.16s\" revision \"%.4s\" "
		 "(want \"%s\" \"%s\")", (const char *)d + 8, (const char *)d + 16,
		 (const char *)d + 32, hc->exp->inq_vendor, hc->exp->inq_product);
}

static void check_capacity(struct hc *hc, uint8_t lun, const char *id)
{
	struct cbw_spec c = { .len = 8, .flags = DIR_IN, .lun = lun, .cblen = 10,
			      .cb = { SC_READ_CAPACITY } };
	uint8_t d[8];
	struct bot_res r;
	char desc[160];

	memset(d, 0, sizeof(d));
	hc_bot_cmd(hc, &c, d, &r);
	hc_check(hc, r.csw_ok && r.status == 0 && r.data_actual == 8 &&
		     get_be32(d) == hc->blocks - 1 && get_be32(d + 4) == 512,
		 id, "LUN %u: %s: last LBA %u, block %u (want %u, 512)", lun,
		 hc_bot_describe(&r, desc, sizeof(desc)), get_be32(d), get_be32(d + 4), hc->blocks - 1);
}

static void check_mode_sense(struct hc *hc)
{
	struct cbw_spec c = hc_cmd6(SC_MODE_SENSE_6, 192, 192, DIR_IN);
	uint8_t d[192];
	struct bot_res r;
	char desc[160];

	c.cb[2] = 0x3f;		/* all pages, current values */
	memset(d, 0, sizeof(d));
	hc_bot_cmd(hc, &c, d, &r);
	hc_check(hc, r.csw_ok && r.status == 0 && r.data_actual >= 4 &&
		     d[0] + 1 == r.data_actual && r.residue == 192u - (uint32_t)r.data_actual &&
		     !(d[2] & 0x80),
		 "scsi.mode_sense6", "page 0x3f: %s, mode data length %u, WP %u",
		 hc_bot_describe(&r, desc, sizeof(desc)), d[0], d[2] >> 7);
}

static void check_sense_ok(struct hc *hc)
{
	long s = hc_sense(hc, 0);

	hc_check(hc, s == 0, "scsi.request_sense", "after good commands: %06lx (want 000000)", s);
}

static void fill(uint8_t *p, size_t n, uint32_t seed)
{
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		p[i] = (uint8_t)(seed >> 16);
	}
}

static void check_write_read(struct hc *hc, const char *id, uint32_t lba, uint16_t n)
{
	static uint8_t out[1024 * 512], in[1024 * 512];
	uint32_t len = (uint32_t)n * 512;
	struct cbw_spec w = hc_rw10(SC_WRITE_10, lba, n, len, 0);
	struct cbw_spec rd = hc_rw10(SC_READ_10, lba, n, len, DIR_IN);
	struct bot_res r;
	char desc[160], sid[64];
	bool ok;

	fill(out, len, lba ^ hc->tag);
	hc_bot_cmd(hc, &w, out, &r);
	ok = r.csw_ok && r.status == 0 && r.residue == 0 && r.data_actual == (int)len;
	snprintf(sid, sizeof(sid), "%s.write", id);
	hc_check(hc, ok, sid, "WRITE(10) LBA %u x %u: %s", lba, n, hc_bot_describe(&r, desc, sizeof(desc)));
	memset(in, 0, len);
	hc_bot_cmd(hc, &rd, in, &r);
	ok = r.csw_ok && r.status == 0 && r.residue == 0 && r.data_actual == (int)len;
	snprintf(sid, sizeof(sid), "%s.read", id);
	hc_check(hc, ok && memcmp(in, out, len) == 0, sid, "READ(10) LBA %u x %u: %s, data %s",
		 lba, n, hc_bot_describe(&r, desc, sizeof(desc)),
		 memcmp(in, out, len) == 0 ? "as written" : "DIFFERS from what was written");
}

static void check_errors(struct hc *hc)
{
	struct cbw_spec c = hc_rw10(SC_READ_10, hc->blocks, 1, 512, DIR_IN);
	struct cbw_spec u = { .cblen = 6, .cb = { 0xff } };
	static uint8_t d[512], d2[1024];
	struct bot_res r;
	char desc[160];
	long s;

	c = hc_rw10(SC_READ_10, hc->blocks - 1, 1, 512, DIR_IN);
	hc_bot_cmd(hc, &c, d, &r);
	hc_check(hc, r.csw_ok && r.status == 0 && r.residue == 0 && r.data_actual == 512,
		 "scsi.read_last_block", "READ(10) LBA %u: %s", hc->blocks - 1,
		 hc_bot_describe(&r, desc, sizeof(desc)));

	c = hc_rw10(SC_READ_10, hc->blocks, 1, 512, DIR_IN);
	hc_bot_cmd(hc, &c, d, &r);
	s = r.csw_ok ? hc_sense(hc, 0) : -1;
	hc_check(hc, r.csw_ok && r.status == 1 && r.residue == 512 && s == 0x052100,
		 "scsi.read_out_of_range", "READ(10) LBA %u: %s, sense %06lx (want status 1, "
		 "residue 512, 052100)", hc->blocks, hc_bot_describe(&r, desc, sizeof(desc)), s);

	c = hc_rw10(SC_READ_10, hc->blocks - 1, 2, 1024, DIR_IN);
	hc_bot_cmd(hc, &c, d2, &r);
	s = r.csw_ok ? hc_sense(hc, 0) : -1;
	/* SBC checks the range first; Linux sends the blocks that exist. */
	hc_check(hc, r.csw_ok && r.status == 1 && s == 0x052100 &&
		     (r.data_actual == 0 || r.data_actual == 512) &&
		     r.residue == 1024u - (uint32_t)r.data_actual,
		 "scsi.read_past_end", "READ(10) LBA %u x 2: %s, sense %06lx (want status 1, "
		 "residue 1024 - data, 052100)", hc->blocks - 1,
		 hc_bot_describe(&r, desc, sizeof(desc)), s);

	c = hc_rw10(SC_WRITE_10, SCRATCH_LBA, 0, 0, 0);
	hc_bot_cmd(hc, &c, NULL, &r);
	hc_check(hc, r.csw_ok && r.status == 0 && r.residue == 0, "scsi.write_zero_blocks",
		 "WRITE(10) of 0 blocks: %s (want status 0)", hc_bot_describe(&r, desc, sizeof(desc)));

	hc_bot_cmd(hc, &u, NULL, &r);
	s = r.csw_ok ? hc_sense(hc, 0) : -1;
	hc_check(hc, r.csw_ok && r.status == 1 && s == 0x052000, "scsi.unknown_opcode",
		 "opcode 0xff: %s, sense %06lx (want status 1, 052000)",
		 hc_bot_describe(&r, desc, sizeof(desc)), s);

	for (int lun = 1; lun <= hc->max_lun; lun++) {
		struct cbw_spec t = hc_cmd6(SC_TEST_UNIT_READY, 0, 0, 0);
		char id[48];

		t.lun = (uint8_t)lun;
		hc_bot_cmd(hc, &t, NULL, &r);
		if (r.csw_ok && r.status == 1)	/* a first unit attention */
			(void)hc_sense(hc, (uint8_t)lun), hc_bot_cmd(hc, &t, NULL, &r);
		snprintf(id, sizeof(id), "scsi.lun%d.tur", lun);
		hc_check(hc, r.csw_ok && r.status == 0, id, "TEST UNIT READY LUN %d: %s", lun,
			 hc_bot_describe(&r, desc, sizeof(desc)));
		snprintf(id, sizeof(id), "scsi.lun%d.read_capacity", lun);
		check_capacity(hc, (uint8_t)lun, id);
	}
	if (hc->max_lun == 0) {
		struct cbw_spec t = hc_cmd6(SC_TEST_UNIT_READY, 0, 0, 0);
		struct cbw_spec q = hc_cmd6(SC_INQUIRY, 36, 36, DIR_IN);

		t.lun = 1;
		hc_bot_cmd(hc, &t, NULL, &r);
		s = r.csw_ok ? hc_sense(hc, 1) : -1;
		hc_check(hc, r.csw_ok && r.status == 1 && s == 0x052500, "scsi.missing_lun1.tur",
			 "TEST UNIT READY LUN 1: %s, sense %06lx (want status 1, 052500)",
			 hc_bot_describe(&r, desc, sizeof(desc)), s);
		q.lun = 1;
		memset(d, 0, 36);
		hc_bot_cmd(hc, &q, d, &r);
		hc_check(hc, r.csw_ok && r.status == 0 && r.data_actual == 36 && d[0] == 0x7f,
			 "scsi.missing_lun1.inquiry", "INQUIRY LUN 1: %s, byte 0 0x%02x (want 0x7f)",
			 hc_bot_describe(&r, desc, sizeof(desc)), d[0]);
	}
}

/* ---- the thirteen cases -------------------------------------------------- */

#define ANY_RES 0xffffffffu

struct bot_case {
	const char *id;
	const char *what;
	struct cbw_spec c;
	uint8_t status;		/* CSW status */
	uint32_t residue;	/* ANY_RES: not specified */
	int data_min, data_max;	/* bytes the host may receive (IN) */
	bool verify;		/* SCRATCH_LBA then holds the first 512 bytes sent */
};

#define TUR(dl, fl) { .len = dl, .flags = fl, .cblen = 6, .cb = { SC_TEST_UNIT_READY } }
#define INQ(dl, fl) { .len = dl, .flags = fl, .cblen = 6, .cb = { SC_INQUIRY, 0, 0, 0, 36 } }
#define RW(op, n, dl, fl) { .len = dl, .flags = fl, .cblen = 10, \
	.cb = { op, 0, 0, 0, SCRATCH_LBA >> 8, SCRATCH_LBA & 0xff, 0, 0, n } }

static const struct bot_case cases[] = {
	{ "bot.case01", "Hn=Dn TEST UNIT READY", TUR(0, 0), 0, 0, 0, 0, false },
	{ "bot.case02", "Hn<Di INQUIRY, no data", INQ(0, 0), 2, ANY_RES, 0, 0, false },
	{ "bot.case03", "Hn<Do WRITE(10) 1 block, no data", RW(SC_WRITE_10, 1, 0, 0), 2,
	  ANY_RES, 0, 0, false },
	{ "bot.case04", "Hi>Dn TEST UNIT READY, 512 in", TUR(512, DIR_IN), 0, 512, 0, 0, false },
	{ "bot.case05", "Hi>Di INQUIRY 36, 255 in", INQ(255, DIR_IN), 0, 219, 36, 36, false },
	{ "bot.case05b", "Hi>Di READ(10) 1 block, 1024 in", RW(SC_READ_10, 1, 1024, DIR_IN),
	  0, 512, 512, 512, false },
	{ "bot.case06", "Hi=Di INQUIRY 36, 36 in", INQ(36, DIR_IN), 0, 0, 36, 36, false },
	{ "bot.case07", "Hi<Di READ(10) 2 blocks, 512 in", RW(SC_READ_10, 2, 512, DIR_IN), 2,
	  ANY_RES, 0, 512, false },
	{ "bot.case08", "Hi<>Do WRITE(10) 1 block, 512 in", RW(SC_WRITE_10, 1, 512, DIR_IN), 2,
	  ANY_RES, 0, 0, false },
	{ "bot.case09", "Ho>Dn TEST UNIT READY, 512 out", TUR(512, 0), 0, 512, 0, 0, false },
	{ "bot.case10", "Ho<>Di INQUIRY 36, 36 out", INQ(36, 0), 2, ANY_RES, 0, 0, false },
	{ "bot.case11", "Ho>Do WRITE(10) 1 block, 1024 out", RW(SC_WRITE_10, 1, 1024, 0), 0, 512,
	  0, 0, true },
	{ "bot.case12", "Ho=Do WRITE(10) 1 block, 512 out", RW(SC_WRITE_10, 1, 512, 0), 0, 0,
	  0, 0, true },
	{ "bot.case13", "Ho<Do WRITE(10) 2 blocks, 512 out", RW(SC_WRITE_10, 2, 512, 0), 2,
	  ANY_RES, 0, 0, false },
};

static void check_cases(struct hc *hc)
{
	static uint8_t buf[2048];
	struct bot_res r;
	char desc[200], id[64], res[16];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct bot_case *k = &cases[i];
		bool in = k->c.flags & DIR_IN;
		bool ok;

		fill(buf, sizeof(buf), (uint32_t)i);
		hc_bot_cmd(hc, &k->c, buf, &r);
		ok = r.csw_ok && r.status == k->status &&
		     (k->residue == ANY_RES || r.residue == k->residue);
		if (in)
			ok = ok && r.data_actual >= k->data_min && r.data_actual <= k->data_max;
		if (k->residue == ANY_RES)
			snprintf(res, sizeof(res), "any");
		else
			snprintf(res, sizeof(res), "%u", k->residue);
		hc_check(hc, ok, k->id, "%s: %s (want status %u, residue %s%s)", k->what,
			 hc_bot_describe(&r, desc, sizeof(desc)), k->status, res,
			 in ? ", data in range" : "");
		if (!hc_unit_ready(hc)) {
			snprintf(id, sizeof(id), "%s.after", k->id);
			hc_check(hc, false, id, "TEST UNIT READY after the case fails; "
				 "Reset Recovery tried");
		}
		if (k->verify) {
			struct cbw_spec rd = hc_rw10(SC_READ_10, SCRATCH_LBA, 1, 512, DIR_IN);
			uint8_t back[512];

			memset(back, 0, sizeof(back));
			hc_bot_cmd(hc, &rd, back, &r);
			snprintf(id, sizeof(id), "%s.data", k->id);
			hc_check(hc, r.csw_ok && r.status == 0 && memcmp(back, buf, 512) == 0, id,
				 "READ(10) LBA %u: %s, %s", SCRATCH_LBA,
				 hc_bot_describe(&r, desc, sizeof(desc)),
				 memcmp(back, buf, 512) == 0 ? "holds the first 512 bytes sent" :
				 "does NOT hold the first 512 bytes sent");
		}
	}
}

/* ---- invalid and not meaningful CBWs ------------------------------------- */

static const char *halted_word(int h)
{
	return h == 1 ? "halted" : h == 0 ? "not halted" : hc_err(h);
}

/* Send cbw (n bytes) that is not valid; BOT 6.6.1 and 5.3.4. */
static void check_invalid_cbw(struct hc *hc, const char *name, const uint8_t *cbw, int n)
{
	bool out_halts = hc->exp->bad_cbw_out == HC_BAD_CBW_OUT_HALT;
	uint8_t buf[512], tur[CBW_LEN];
	struct cbw_spec t = hc_cmd6(SC_TEST_UNIT_READY, 0, 0, 0);
	char id[80];
	int rc, actual, hin, hout, c1, c2;

	snprintf(id, sizeof(id), "cbw.%s.sent", name);
	memcpy(buf, cbw, (size_t)n);
	rc = hc_bulk(hc, hc->ep_out, buf, n, &actual);
	hc_check(hc, rc == 0 && actual == n, id, "%d-byte CBW write -> %s, %d bytes", n,
		 hc_err(rc), actual);

	snprintf(id, sizeof(id), "cbw.%s.in_stalls", name);
	rc = hc_bulk(hc, hc->ep_in, buf, 512, &actual);
	hc_check(hc, rc == LIBUSB_ERROR_PIPE, id, "bulk-IN read -> %s, %d bytes%s", hc_err(rc),
		 actual, rc == LIBUSB_ERROR_PIPE ? " (stall)" : ", want stall");

	hin = hc_ep_halted(hc, hc->ep_in);
	hout = hc_ep_halted(hc, hc->ep_out);
	snprintf(id, sizeof(id), "cbw.%s.halted", name);
	hc_check(hc, hin == 1 && hout == (out_halts ? 1 : 0), id,
		 "GET_STATUS: IN %s, OUT %s (want IN halted, OUT %s)", halted_word(hin),
		 halted_word(hout), out_halts ? "halted" : "not halted");

	c1 = libusb_clear_halt(hc->h, hc->ep_in);
	c2 = libusb_clear_halt(hc->h, hc->ep_out);
	hin = hc_ep_halted(hc, hc->ep_in);
	hout = hc_ep_halted(hc, hc->ep_out);
	snprintf(id, sizeof(id), "cbw.%s.wedged", name);
	hc_check(hc, hin == 1 && hout == (out_halts ? 1 : 0), id,
		 "after CLEAR_FEATURE (%s, %s): IN %s, OUT %s (want IN halted, OUT %s)",
		 hc_err(c1), hc_err(c2), halted_word(hin), halted_word(hout),
		 out_halts ? "halted" : "not halted");

	/* A valid CBW now is refused (OUT halted) or dropped (no CSW comes). */
	hc_build_cbw(tur, hc->tag++, &t);
	rc = hc_bulk(hc, hc->ep_out, tur, CBW_LEN, &actual);
	if (rc == LIBUSB_ERROR_PIPE)
		libusb_clear_halt(hc->h, hc->ep_out);
	c1 = hc_bulk(hc, hc->ep_in, buf, 512, &actual);
	if (c1 == LIBUSB_ERROR_PIPE)
		libusb_clear_halt(hc->h, hc->ep_in);
	snprintf(id, sizeof(id), "cbw.%s.until_reset", name);
	hc_check(hc, (out_halts ? rc == LIBUSB_ERROR_PIPE : rc == 0) && c1 == LIBUSB_ERROR_PIPE,
		 id, "a valid CBW before the reset: write %s, then IN read %s, %d bytes "
		 "(want %s, stall)", hc_err(rc), hc_err(c1), actual,
		 out_halts ? "stall" : "accepted");

	snprintf(id, sizeof(id), "cbw.%s.reset", name);
	rc = hc_ctrl(hc, 0x21, 0xff, 0, hc->ifnum, NULL, 0);
	c1 = libusb_clear_halt(hc->h, hc->ep_in);
	c2 = libusb_clear_halt(hc->h, hc->ep_out);
	hin = hc_ep_halted(hc, hc->ep_in);
	hout = hc_ep_halted(hc, hc->ep_out);
	hc_check(hc, rc == 0 && c1 == 0 && c2 == 0 && hin == 0 && hout == 0, id,
		 "reset %s, CLEAR_FEATURE %s %s: IN %s, OUT %s", hc_err(rc), hc_err(c1),
		 hc_err(c2), halted_word(hin), halted_word(hout));
	snprintf(id, sizeof(id), "cbw.%s.works", name);
	hc_check(hc, hc_unit_ready(hc), id, "TEST UNIT READY after Reset Recovery");
}

/* A CBW that is valid but not meaningful (6.2.2): response unspecified. */
static void check_meaningless_cbw(struct hc *hc, const char *name, const struct cbw_spec *c)
{
	struct bot_res r;
	char desc[200], id[80];

	hc_bot_cmd(hc, c, NULL, &r);
	snprintf(id, sizeof(id), "cbw.%s", name);
	hc_info(hc, id, "%s; IN %s, OUT %s", hc_bot_describe(&r, desc, sizeof(desc)),
		halted_word(hc_ep_halted(hc, hc->ep_in)), halted_word(hc_ep_halted(hc, hc->ep_out)));
	snprintf(id, sizeof(id), "cbw.%s.not_passed", name);
	hc_check(hc, !(r.csw_ok && r.status == 0), id, "no CSW with status 0 (passed)");
	hc_reset_recovery(hc);
	snprintf(id, sizeof(id), "cbw.%s.works", name);
	hc_check(hc, hc_unit_ready(hc), id, "TEST UNIT READY after Reset Recovery");
}

static void check_cbws(struct hc *hc)
{
	struct cbw_spec t = hc_cmd6(SC_TEST_UNIT_READY, 0, 0, 0);
	uint8_t cbw[32];

	hc_build_cbw(cbw, hc->tag++, &t);
	memcpy(cbw, "USBX", 4);
	check_invalid_cbw(hc, "bad_signature", cbw, CBW_LEN);
	hc_build_cbw(cbw, hc->tag++, &t);
	check_invalid_cbw(hc, "short30", cbw, 30);
	hc_build_cbw(cbw, hc->tag++, &t);
	cbw[31] = 0;
	check_invalid_cbw(hc, "long32", cbw, 32);

	t.cblen = 0;
	check_meaningless_cbw(hc, "cblen0", &t);
	t.cblen = 17;
	check_meaningless_cbw(hc, "cblen17", &t);
	t.cblen = 6;
	t.flags = 0x01;
	check_meaningless_cbw(hc, "reserved_flags", &t);
}

void hc_bot(struct hc *hc)
{
	check_class_requests(hc);
	hc_check(hc, hc_unit_ready(hc), "scsi.test_unit_ready", "status 0");
	check_inquiry(hc);
	check_capacity(hc, 0, "scsi.read_capacity");
	check_mode_sense(hc);
	check_sense_ok(hc);
	check_write_read(hc, "scsi.rw8", 2048, 8);
	check_write_read(hc, "scsi.rw128", 4096, 128);
	check_write_read(hc, "scsi.rw1024", 6144, 1024);
	check_errors(hc);
	check_cases(hc);
	check_cbws(hc);
	hc_check(hc, hc_unit_ready(hc), "bot.final", "TEST UNIT READY at the end");
}
