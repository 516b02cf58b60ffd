/*
 * scsi.c - the SCSI command set of a logical unit: command checking (the
 * host/device reconciliation of BOT's 13 cases, LUN, unit attention and
 * CDB field checks), the dispatch table, and every command that answers
 * from LUN state (INQUIRY with VPD pages, REQUEST SENSE, MODE SENSE/SELECT,
 * capacities, START STOP, PREVENT ALLOW). Media access (READ/WRITE/VERIFY/
 * SYNCHRONIZE CACHE) is in scsi_rw.c, the CD-ROM commands in scsi_cdrom.c.
 * The minimal profile leaves out what a disk of a few GiB never needs:
 * MODE SELECT (MSF_NO_MODE_SELECT; the caching page stays reported, not
 * changeable) and the 12- and 16-byte CDBs, READ/WRITE(12/16) and READ
 * CAPACITY(16) (MSF_NO_LONG_CDB; hosts fall back to the 10-byte forms):
 * they are answered INVALID COMMAND OPERATION CODE, as any unknown one.
 *
 * Portable C11. Runs in the worker with the file lock held; writes the
 * single reply buffer and the current LUN's sense.
 */
#include <string.h>

#include "msf_internal.h"
#include "msf_os.h"

/* Operation codes (READ and WRITE: scsi_rw.c; the rest, FORMAT UNIT,
 * RESERVE, RELEASE, SEND DIAGNOSTIC included, is refused as unknown). */
#define SC_TEST_UNIT_READY 0x00
#define SC_REQUEST_SENSE 0x03
#define SC_INQUIRY 0x12
#define SC_MODE_SELECT_6 0x15
#define SC_MODE_SENSE_6 0x1a
#define SC_START_STOP_UNIT 0x1b
#define SC_PREVENT_ALLOW_MEDIUM_REMOVAL 0x1e
#define SC_READ_FORMAT_CAPACITIES 0x23
#define SC_READ_CAPACITY 0x25
#define SC_VERIFY_10 0x2f
#define SC_SYNCHRONIZE_CACHE 0x35
#define SC_READ_TOC 0x43
#define SC_READ_HEADER 0x44
#define SC_MODE_SELECT_10 0x55
#define SC_MODE_SENSE_10 0x5a
#define SC_SERVICE_ACTION_IN_16 0x9e

#define SAI_READ_CAPACITY_16 0x10

/* Handlers return a reply length, or one of these. */
#define REPLY_FAILED (-USB_EINVAL)		/* sense set, no data */

/* Set the current LUN's sense (no INFORMATION field). */
static void fail(struct msf_common *common, uint32_t sense)
{
	if (common->curlun)
		msf__lun_set_sense(common->curlun, sense, 0, false);
}

int msf__check_command(struct msf_common *common, unsigned cmnd_size,
		       enum msf__data_dir data_dir, uint32_t mask,
		       bool needs_medium)
{
	struct msf__lun *curlun = common->curlun;

	/* No data in the command means no data phase from the device. */
	if (common->data_size_from_cmnd == 0)
		data_dir = MSF_DIR_NONE;
	/* Host expects less than the device means (cases 2, 3, 7, 13). */
	if (common->data_size < common->data_size_from_cmnd) {
		common->data_size_from_cmnd = common->data_size;
		common->phase_error = true;
	}
	common->residue = common->data_size;
	common->usb_amount_left = common->data_size;

	/* Directions that disagree (cases 8, 10) are a phase error. */
	if (common->data_dir != data_dir && common->data_size_from_cmnd) {
		common->phase_error = true;
		return -USB_EINVAL;
	}

	/*
	 * The CDB length: hosts get it wrong (Windows sends REQUEST SENSE
	 * with 12, some consoles INQUIRY with 10). Accept a longer one, as
	 * Linux does; a shorter one lacks bytes the command needs.
	 */
	if (cmnd_size != common->cmnd_size) {
		if (cmnd_size > common->cmnd_size) {
			common->phase_error = true;
			return -USB_EINVAL;
		}
		cmnd_size = common->cmnd_size;
	}

	if (curlun) {
		if (common->cmnd[0] != SC_REQUEST_SENSE)
			msf__lun_set_sense(curlun, SS_NO_SENSE, 0, false);
	} else {
		/* Only INQUIRY and REQUEST SENSE may address a missing LUN. */
		common->bad_lun_okay = false;
		if (common->cmnd[0] != SC_INQUIRY && common->cmnd[0] != SC_REQUEST_SENSE)
			return -USB_EINVAL;
	}

	/* A unit attention fails everything but INQUIRY and REQUEST SENSE. */
	if (curlun && curlun->unit_attention_data != SS_NO_SENSE &&
	    common->cmnd[0] != SC_INQUIRY && common->cmnd[0] != SC_REQUEST_SENSE) {
		msf__lun_set_sense(curlun, curlun->unit_attention_data, 0, false);
		curlun->unit_attention_data = SS_NO_SENSE;
		return -USB_EINVAL;
	}

	/*
	 * Bits 7-5 of byte 1 are SCSI-2's LUN field, which Linux's SCSI layer
	 * fills in for a SCSI-2 device such as this one; later standards made
	 * them reserved, or the protection fields of READ, WRITE and VERIFY
	 * (RDPROTECT, WRPROTECT, VRPROTECT), which a device without protection
	 * information refuses (SBC-3 5.8). So they are 0 or the CBW's LUN.
	 */
	if ((common->cmnd[1] & 0xe0u) &&
	    (common->cmnd[1] & 0xe0u) != ((common->lun << 5) & 0xe0u)) {
		fail(common, SS_INVALID_FIELD_IN_CDB);
		return -USB_EINVAL;
	}
	/* Only the bytes in @mask may be non-zero (the LUN field aside). */
	common->cmnd[1] &= 0x1f;
	for (unsigned i = 1; i < cmnd_size && i < MSF_MAX_CDB; i++) {
		if (common->cmnd[i] && !(mask & (1u << i))) {
			fail(common, SS_INVALID_FIELD_IN_CDB);
			return -USB_EINVAL;
		}
	}

	if (curlun && needs_medium && !msf__lun_is_open(curlun)) {
		fail(common, SS_MEDIUM_NOT_PRESENT);
		return -USB_EINVAL;
	}
	return 0;
}

/* ---- commands answered from LUN state --------------------------------- */

static int do_inquiry(struct msf_common *common, uint8_t *buf)
{
	struct msf__lun *curlun = common->curlun;
	uint8_t type, page;
	size_t n;

	if (!curlun) {
		/* Peripheral qualifier 3, no device type: nothing here. */
		common->bad_lun_okay = true;
		memset(buf, 0, 36);
		buf[0] = 0x7f;
		buf[4] = 31;
		return 36;
	}
	type = curlun->cdrom ? 0x05 : 0x00;
	page = common->cmnd[2];

	if (!(common->cmnd[1] & 0x01)) {
		if (page != 0 || (common->cmnd[1] & ~0x01u)) {
			fail(common, SS_INVALID_FIELD_IN_CDB);
			return REPLY_FAILED;
		}
		memset(buf, 0, 36);
		buf[0] = type;
		buf[1] = curlun->removable ? 0x80 : 0;
		buf[2] = 2;		/* SCSI-2 level, as Linux reports */
		buf[3] = 2;		/* response data format */
		buf[4] = 31;		/* additional length */
		memcpy(buf + 8, curlun->inquiry_string, FSG_INQUIRY_STRING_LEN);
		return 36;
	}

	/* Vital product data. */
	memset(buf, 0, 8);
	buf[0] = type;
	buf[1] = page;
	switch (page) {
	case 0x00:	/* supported pages */
		buf[3] = 3;
		buf[4] = 0x00;
		buf[5] = 0x80;
		buf[6] = 0x83;
		return 7;
	case 0x80:	/* unit serial number */
		n = strlen(curlun->serial);
		buf[3] = (uint8_t)n;
		memcpy(buf + 4, curlun->serial, n);
		return (int)(4 + n);
	case 0x83:	/* device identification: one T10 vendor id designator */
		n = strlen(curlun->serial);
		buf[4] = 0x02;	/* code set ASCII */
		buf[5] = 0x01;	/* association: the LUN; type: T10 vendor id */
		buf[6] = 0;
		buf[7] = (uint8_t)(FSG_VENDOR_LEN + FSG_PRODUCT_LEN + n);
		memcpy(buf + 8, curlun->inquiry_string, FSG_VENDOR_LEN + FSG_PRODUCT_LEN);
		memcpy(buf + 8 + FSG_VENDOR_LEN + FSG_PRODUCT_LEN, curlun->serial, n);
		msf__put_be16(buf + 2, (uint16_t)(4 + buf[7]));
		return 4 + 4 + buf[7];
	default:
		fail(common, SS_INVALID_FIELD_IN_CDB);
		return REPLY_FAILED;
	}
}

static int do_request_sense(struct msf_common *common, uint8_t *buf)
{
	struct msf__lun *curlun = common->curlun;
	uint32_t sd, sdinfo = 0;
	bool valid = false;

	if (!curlun) {
		common->bad_lun_okay = true;
		sd = SS_LOGICAL_UNIT_NOT_SUPPORTED;
	} else {
		sd = curlun->sense_data;
		sdinfo = curlun->sense_data_info;
		valid = curlun->info_valid;
		/* Reading the sense clears it (SPC-4 5.12). */
		msf__lun_set_sense(curlun, SS_NO_SENSE, 0, false);
	}
	/* Fixed format, 18 bytes, with the INFORMATION field. */
	memset(buf, 0, 18);
	buf[0] = (uint8_t)(0x70 | (valid ? 0x80 : 0));
	buf[2] = MSF_SK(sd);
	msf__put_be32(buf + 3, sdinfo);
	buf[7] = 18 - 8;
	buf[12] = MSF_ASC(sd);
	buf[13] = MSF_ASCQ(sd);
	return 18;
}

/* The caching mode page (SBC-3 6.4.5); @changeable: the changeable mask. */
static size_t caching_page(const struct msf__lun *curlun, uint8_t *buf, bool changeable)
{
	memset(buf, 0, 20);
	buf[0] = 0x08;
	buf[1] = 0x12;
	if (changeable) {
		buf[2] = 0x04;			/* WCE may be changed */
		return 20;
	}
	buf[2] = curlun->wce ? 0x04 : 0x00;	/* read cache enabled */
	msf__put_be16(buf + 4, 0xffff);	/* disable prefetch length */
	msf__put_be16(buf + 8, 0xffff);	/* maximum prefetch */
	msf__put_be16(buf + 10, 0xffff);	/* maximum prefetch ceiling */
	return 20;
}

static int do_mode_sense(struct msf_common *common, uint8_t *buf, bool ten)
{
	struct msf__lun *curlun = common->curlun;
	unsigned pc = common->cmnd[2] >> 6;
	unsigned page = common->cmnd[2] & 0x3f;
	size_t hdr = ten ? 8 : 4, len;

	/* DBD (we send no block descriptors anyway), LLBAA in the 10-byte form. */
	if ((common->cmnd[1] & ~(ten ? 0x18u : 0x08u)) != 0) {
		fail(common, SS_INVALID_FIELD_IN_CDB);
		return REPLY_FAILED;
	}
	if (pc == 3) {
		fail(common, SS_SAVING_PARAMETERS_NOT_SUPPORTED);
		return REPLY_FAILED;
	}
	if (ten && common->cmnd[3] != 0) {	/* subpages */
		fail(common, SS_INVALID_FIELD_IN_CDB);
		return REPLY_FAILED;
	}
	if (page != 0x08 && page != 0x3f) {
		fail(common, SS_INVALID_FIELD_IN_CDB);
		return REPLY_FAILED;
	}

	/* No block descriptors; device-specific parameter: the WP bit. */
	memset(buf, 0, hdr);
	len = hdr + caching_page(curlun, buf + hdr, pc == 1);
	if (ten) {
		msf__put_be16(buf, (uint16_t)(len - 2));
		buf[3] = curlun->ro ? 0x80 : 0;
	} else {
		buf[0] = (uint8_t)(len - 1);
		buf[2] = curlun->ro ? 0x80 : 0;
	}
	return (int)len;
}

#ifndef MSF_NO_MODE_SELECT
/*
 * MODE SELECT: the only changeable value is WCE of the caching page; any
 * other difference from what MODE SENSE reports is refused.
 */
static int do_mode_select(struct msf_common *common, struct msf__buffhd *bh, bool ten)
{
	struct msf__lun *curlun = common->curlun;
	uint8_t cur[20];
	const uint8_t *p = bh->buf;
	uint32_t got = 0, hdr = ten ? 8 : 4, bdl, off;
	int rc;

	if (common->cmnd[1] & 0x01) {
		fail(common, SS_SAVING_PARAMETERS_NOT_SUPPORTED);
		return REPLY_FAILED;
	}
	if (common->data_size_from_cmnd == 0)
		return 0;
	if (!(common->cmnd[1] & 0x10)) {	/* vendor-specific format */
		fail(common, SS_INVALID_FIELD_IN_CDB);
		return REPLY_FAILED;
	}
	if (common->data_size_from_cmnd > common->buflen) {
		fail(common, SS_PARAMETER_LIST_LENGTH_ERROR);
		return REPLY_FAILED;
	}
	rc = msf__receive_data(common, bh, &got);
	if (rc)
		return rc;
	if (got < common->data_size_from_cmnd || got < hdr) {
		fail(common, SS_PARAMETER_LIST_LENGTH_ERROR);
		return REPLY_FAILED;
	}
	bdl = ten ? msf__get_be16(p + 6) : p[3];
	if ((bdl != 0 && bdl != 8) || hdr + bdl > got) {
		fail(common, SS_INVALID_FIELD_IN_PARAMETER_LIST);
		return REPLY_FAILED;
	}
	if (bdl == 8) {
		uint32_t nblocks = msf__get_be32(p + hdr);
		uint32_t blen = ((uint32_t)p[hdr + 5] << 16) | ((uint32_t)p[hdr + 6] << 8) | p[hdr + 7];
		uint64_t have = curlun->num_sectors > 0xffffffffu ? 0xffffffffu : curlun->num_sectors;

		if (blen != curlun->blksize || (nblocks != 0 && nblocks != have)) {
			fail(common, SS_INVALID_FIELD_IN_PARAMETER_LIST);
			return REPLY_FAILED;
		}
	}
	for (off = hdr + bdl; off < got;) {
		uint32_t plen;

		if (off + 2 > got || (p[off] & 0x3f) != 0x08 || p[off + 1] != 0x12 ||
		    off + 20 > got) {
			fail(common, SS_INVALID_FIELD_IN_PARAMETER_LIST);
			return REPLY_FAILED;
		}
		caching_page(curlun, cur, false);
		cur[2] = (uint8_t)((cur[2] & ~0x04u) | (p[off + 2] & 0x04u));
		if ((p[off] & 0x80) || memcmp(cur + 1, p + off + 1, 19) != 0) {
			fail(common, SS_INVALID_FIELD_IN_PARAMETER_LIST);
			return REPLY_FAILED;
		}
		curlun->wce = (p[off + 2] & 0x04) != 0;
		plen = 20;
		off += plen;
	}
	return 0;
}
#endif /* MSF_NO_MODE_SELECT */

static int do_start_stop(struct msf_common *common)
{
	struct msf__lun *curlun = common->curlun;
	bool loej = common->cmnd[4] & 0x02, start = common->cmnd[4] & 0x01;

	if (!curlun->removable) {
		fail(common, SS_INVALID_COMMAND);
		return REPLY_FAILED;
	}
	/* IMMED only in byte 1; no power conditions in byte 4. */
	if ((common->cmnd[1] & ~0x01u) || (common->cmnd[4] & ~0x03u)) {
		fail(common, SS_INVALID_FIELD_IN_CDB);
		return REPLY_FAILED;
	}
	if (!start) {
		if (curlun->prevent_medium_removal) {
			fail(common, SS_MEDIUM_REMOVAL_PREVENTED);
			return REPLY_FAILED;
		}
		if (loej)
			msf__lun_close(curlun);	/* the host ejects */
		return 0;
	}
	/* Start (with or without load): the medium must be there. */
	if (!msf__lun_is_open(curlun)) {
		fail(common, SS_MEDIUM_NOT_PRESENT);
		return REPLY_FAILED;
	}
	return 0;
}

static int do_prevent_allow(struct msf_common *common)
{
	struct msf__lun *curlun = common->curlun;
	bool prevent;

	if (!curlun->removable) {
		fail(common, SS_INVALID_COMMAND);
		return REPLY_FAILED;
	}
	if (common->cmnd[4] & ~0x01u) {
		fail(common, SS_INVALID_FIELD_IN_CDB);
		return REPLY_FAILED;
	}
	prevent = common->cmnd[4] & 0x01;
	/* Allowing removal: make what was written durable first. */
	if (curlun->prevent_medium_removal && !prevent && curlun->be &&
	    curlun->be->ops->flush)
		(void)curlun->be->ops->flush(curlun->be);
	curlun->prevent_medium_removal = prevent;
	return 0;
}

static int do_read_format_capacities(struct msf_common *common, uint8_t *buf)
{
	struct msf__lun *curlun = common->curlun;
	uint64_t n = curlun->num_sectors;

	memset(buf, 0, 12);
	buf[3] = 8;					/* capacity list length */
	msf__put_be32(buf + 4, n > 0xffffffffu ? 0xffffffffu : (uint32_t)n);
	buf[8] = 0x02;					/* formatted media */
	buf[9] = (uint8_t)(curlun->blksize >> 16);
	buf[10] = (uint8_t)(curlun->blksize >> 8);
	buf[11] = (uint8_t)curlun->blksize;
	return 12;
}

static int do_read_capacity(struct msf_common *common, uint8_t *buf)
{
	struct msf__lun *curlun = common->curlun;
	uint32_t lba = msf__get_be32(common->cmnd + 2);
	unsigned pmi = common->cmnd[8];
	uint64_t last = curlun->num_sectors - 1;

	if (pmi > 1 || (pmi == 0 && lba != 0)) {
		fail(common, SS_INVALID_FIELD_IN_CDB);
		return REPLY_FAILED;
	}
	/* Too big for 32 bits: 0xffffffff sends the host to the 16-byte form. */
	msf__put_be32(buf, last > 0xfffffffeu ? 0xffffffffu : (uint32_t)last);
	msf__put_be32(buf + 4, curlun->blksize);
	return 8;
}

#ifndef MSF_NO_LONG_CDB
static int do_read_capacity_16(struct msf_common *common, uint8_t *buf)
{
	struct msf__lun *curlun = common->curlun;
	uint64_t lba = msf__get_be64(common->cmnd + 2);

	if ((common->cmnd[14] & 0x01) == 0 && lba != 0) {
		fail(common, SS_INVALID_FIELD_IN_CDB);
		return REPLY_FAILED;
	}
	memset(buf, 0, 32);
	msf__put_be64(buf, curlun->num_sectors - 1);
	msf__put_be32(buf + 8, curlun->blksize);
	return 32;
}
#endif /* MSF_NO_LONG_CDB */

/* ---- dispatch ------------------------------------------------------------- */

/*
 * The commands answered outside READ and WRITE, as msf__check_command()
 * sees them: one row each instead of a call per command, so adding one
 * costs a row. @alloc says where the CDB keeps the allocation (or
 * parameter list) length; @mask which CDB bytes may be non-zero.
 */
enum alloc_at {
	ALLOC_NONE,		/* no data phase */
	ALLOC_BYTE4,		/* 6-byte CDBs */
	ALLOC_BE16_3,		/* INQUIRY */
	ALLOC_BE16_7,		/* 10-byte CDBs */
	ALLOC_BE32_10,		/* 16-byte CDBs */
	ALLOC_EIGHT		/* READ CAPACITY(10): always 8 bytes */
};

struct cmd_rule {	/* 8 bytes a row */
	uint8_t op;
	uint8_t size;			/* CDB bytes */
	unsigned dir : 2;		/* enum msf__data_dir */
	unsigned alloc : 3;		/* enum alloc_at */
	unsigned needs_medium : 1;
	uint32_t mask;
};

static const struct cmd_rule cmd_rules[] = {
	{ SC_TEST_UNIT_READY, 6, MSF_DIR_NONE, ALLOC_NONE, true, 0 },
	{ SC_REQUEST_SENSE, 6, MSF_DIR_TO_HOST, ALLOC_BYTE4, false, 1u << 4 },
	{ SC_INQUIRY, 6, MSF_DIR_TO_HOST, ALLOC_BE16_3, false,
	  (1u << 1) | (1u << 2) | (1u << 3) | (1u << 4) },
#ifndef MSF_NO_MODE_SELECT
	{ SC_MODE_SELECT_6, 6, MSF_DIR_FROM_HOST, ALLOC_BYTE4, false, (1u << 1) | (1u << 4) },
	{ SC_MODE_SELECT_10, 10, MSF_DIR_FROM_HOST, ALLOC_BE16_7, false, (1u << 1) | (3u << 7) },
#endif
	{ SC_MODE_SENSE_6, 6, MSF_DIR_TO_HOST, ALLOC_BYTE4, false,
	  (1u << 1) | (1u << 2) | (1u << 4) },
	{ SC_MODE_SENSE_10, 10, MSF_DIR_TO_HOST, ALLOC_BE16_7, false,
	  (1u << 1) | (1u << 2) | (1u << 3) | (3u << 7) },
	{ SC_START_STOP_UNIT, 6, MSF_DIR_NONE, ALLOC_NONE, false, (1u << 1) | (1u << 4) },
	{ SC_PREVENT_ALLOW_MEDIUM_REMOVAL, 6, MSF_DIR_NONE, ALLOC_NONE, false, 1u << 4 },
	{ SC_READ_FORMAT_CAPACITIES, 10, MSF_DIR_TO_HOST, ALLOC_BE16_7, true, 3u << 7 },
	{ SC_READ_CAPACITY, 10, MSF_DIR_TO_HOST, ALLOC_EIGHT, true, (0xfu << 2) | (1u << 8) },
#ifndef MSF_NO_LONG_CDB
	{ SC_SERVICE_ACTION_IN_16, 16, MSF_DIR_TO_HOST, ALLOC_BE32_10, true,
	  (1u << 1) | (0xffu << 2) | (0xfu << 10) | (1u << 14) },
#endif
	{ SC_VERIFY_10, 10, MSF_DIR_NONE, ALLOC_NONE, true, (1u << 1) | (0xfu << 2) | (3u << 7) },
	{ SC_SYNCHRONIZE_CACHE, 10, MSF_DIR_NONE, ALLOC_NONE, true,
	  (1u << 1) | (0xfu << 2) | (3u << 7) },
#ifndef MSF_NO_CDROM
	{ SC_READ_TOC, 10, MSF_DIR_TO_HOST, ALLOC_BE16_7, true,
	  (1u << 1) | (1u << 2) | (1u << 6) | (3u << 7) | (1u << 9) },
	{ SC_READ_HEADER, 10, MSF_DIR_TO_HOST, ALLOC_BE16_7, true,
	  (1u << 1) | (0xfu << 2) | (3u << 7) },
#endif
};

/* The row of the command in common->cmnd, or NULL: unknown, or a known
 * code that does not apply (a disk's READ TOC, another service action). */
static const struct cmd_rule *find_rule(const struct msf_common *common)
{
	const uint8_t *c = common->cmnd;

	for (size_t i = 0; i < sizeof(cmd_rules) / sizeof(cmd_rules[0]); i++) {
		if (cmd_rules[i].op != c[0])
			continue;
		if (c[0] == SC_SERVICE_ACTION_IN_16 && (c[1] & 0x1f) != SAI_READ_CAPACITY_16)
			return NULL;
		if ((c[0] == SC_READ_TOC || c[0] == SC_READ_HEADER) &&
		    (!common->curlun || !common->curlun->cdrom))
			return NULL;
		return &cmd_rules[i];
	}
	return NULL;
}

static uint32_t alloc_length(const uint8_t *c, unsigned at)
{
	switch (at) {
	case ALLOC_BYTE4:
		return c[4];
	case ALLOC_BE16_3:
		return msf__get_be16(c + 3);
	case ALLOC_BE16_7:
		return msf__get_be16(c + 7);
	case ALLOC_BE32_10:
		return msf__get_be32(c + 10);
	case ALLOC_EIGHT:
		return 8;
	default:
		return 0;
	}
}

static int check_rule(struct msf_common *common, const struct cmd_rule *r)
{
	uint32_t alloc = alloc_length(common->cmnd, r->alloc);

	/*
	 * An allocation length is a limit, not the reply's size: what the
	 * device sends is only known from the reply (msf__do_scsi_command
	 * turns a reply longer than the host's length into case 7).
	 */
	if (r->dir == MSF_DIR_TO_HOST && common->data_dir == MSF_DIR_TO_HOST) {
		common->reply_limit = alloc;
		common->reply_limited = true;
		if (alloc > common->data_size)
			alloc = common->data_size;
	}
	common->data_size_from_cmnd = alloc;
	return msf__check_command(common, r->size, (enum msf__data_dir)r->dir, r->mask,
				  r->needs_medium);
}

/* Refused as Linux does: INVALID COMMAND OPERATION CODE, once the CBW's
 * direction and length have been checked against no data. */
static int refuse(struct msf_common *common)
{
	int reply;

	common->data_size_from_cmnd = 0;
	reply = msf__check_command(common, common->cmnd_size, MSF_DIR_NONE, 0xffffffffu, false);
	if (reply == 0) {
		fail(common, SS_INVALID_COMMAND);
		reply = REPLY_FAILED;
	}
	return reply;
}

/* The command, checked (unless resumed: the checks are done) and answered.
 * Returns a reply length, REPLY_FAILED, or what the handler returned. */
static int run_command(struct msf_common *common, struct msf__buffhd *bh, bool *done)
{
	const uint8_t *c = common->cmnd;
	uint8_t *buf = bh->buf;
	const struct cmd_rule *r;
	unsigned rw;
	bool write;
	int reply;

	rw = msf__rw_size(c[0], &write);
	if (rw)
		return common->cmd_resume ? msf__rw_resume(common, done)
					  : msf__rw_command(common, rw, write, done);
	r = find_rule(common);
	if (!r)
		return refuse(common);
	reply = common->cmd_resume ? 0 : check_rule(common, r);
	if (reply)
		return reply;
	switch (c[0]) {
	case SC_REQUEST_SENSE:
		return do_request_sense(common, buf);
	case SC_INQUIRY:
		return do_inquiry(common, buf);
#ifndef MSF_NO_MODE_SELECT
	case SC_MODE_SELECT_6:
	case SC_MODE_SELECT_10:
		return do_mode_select(common, bh, c[0] == SC_MODE_SELECT_10);
#endif
	case SC_MODE_SENSE_6:
	case SC_MODE_SENSE_10:
		return do_mode_sense(common, buf, c[0] == SC_MODE_SENSE_10);
	case SC_START_STOP_UNIT:
		return do_start_stop(common);
	case SC_PREVENT_ALLOW_MEDIUM_REMOVAL:
		return do_prevent_allow(common);
	case SC_READ_FORMAT_CAPACITIES:
		return do_read_format_capacities(common, buf);
	case SC_READ_CAPACITY:
		return do_read_capacity(common, buf);
#ifndef MSF_NO_LONG_CDB
	case SC_SERVICE_ACTION_IN_16:
		return do_read_capacity_16(common, buf);
#endif
	case SC_VERIFY_10:
		return msf__do_verify(common);
	case SC_SYNCHRONIZE_CACHE:
		return msf__do_synchronize_cache(common);
#ifndef MSF_NO_CDROM
	case SC_READ_TOC:
		return msf__do_read_toc(common, buf);
	case SC_READ_HEADER:
		return msf__do_read_header(common, buf);
#endif
	default:
		return 0;	/* TEST UNIT READY: the checks are the answer */
	}
}

int msf__do_scsi_command(struct msf_common *common)
{
	struct msf__buffhd *bh;
	int reply;
	bool done = false;	/* READ/WRITE set up the buffers themselves */
	int rc;

	/*
	 * The single reply buffer (data commands use the ring from here). A
	 * polled worker that returned -USB_EAGAIN mid-command comes back with
	 * cmd_resume set: the checks are done, the command goes on.
	 */
	if (common->cmd_resume) {
		bh = common->reply_bh;
	} else {
		bh = common->next_buffhd_to_fill;
		common->next_buffhd_to_drain = bh;
		rc = msf__wait_buf(common, bh, MSF_BUF_EMPTY);
		if (rc)
			return rc;
		common->reply_bh = bh;
		common->phase_error = false;
		common->short_packet_received = false;
		common->bad_lun_okay = false;
		common->reply_limited = false;
	}

	msf__os_file_lock(common->os);
	reply = run_command(common, bh, &done);
	msf__os_file_unlock(common->os);

	/* Polled, waiting for a buffer or a busy medium: resume here. */
	common->cmd_resume = reply == -USB_EAGAIN;
	if (reply == -USB_EAGAIN || reply == -USB_EINTR)
		return reply;
	if (done)
		return 0;
	if (reply == REPLY_FAILED)
		reply = 0;
	if (reply >= 0 && common->data_dir == MSF_DIR_TO_HOST) {
		uint32_t len = (uint32_t)reply;

		if (common->reply_limited) {
			if (len > common->reply_limit)
				len = common->reply_limit;
			if (len > common->data_size) {
				common->phase_error = true;	/* case 7: Hi < Di */
				len = common->data_size;
			}
		}
		if (len > common->data_size_from_cmnd)
			len = common->data_size_from_cmnd;
		msf__os_lock(common->os);
		bh->inreq->length = (unsigned)len;
		bh->state = MSF_BUF_FULL;
		msf__os_unlock(common->os);
		common->residue -= (uint32_t)len;
	}
	return 0;
}
