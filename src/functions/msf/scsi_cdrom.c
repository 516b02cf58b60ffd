/*
 * scsi_cdrom.c - the CD-ROM commands of a cdrom LUN: READ TOC (formats 0,
 * 1 and 2, LBA or MSF addresses, the SFF-8020 format bits) and READ
 * HEADER. A one-track data disc: track 1 at LBA 0, the lead-out at the
 * medium's end.
 *
 * Portable C11; runs in the worker with the file lock held, writes the
 * reply buffer and the LUN's sense.
 */
#include <string.h>

#include "msf_internal.h"

#define REPLY_FAILED (-USB_EINVAL)

static void fail(struct msf_common *common, uint32_t sense)
{
	if (common->curlun)
		msf__lun_set_sense(common->curlun, sense, 0, false);
}

/* CD addresses: LBA, or minutes/seconds/frames with the 2-second lead-in. */
static void store_cdrom_address(uint8_t *dest, bool msf, uint64_t addr)
{
	if (msf) {
		/* 32-bit arithmetic: no 64-bit division on small cores. */
		const uint32_t last = 99u * 60u * 75u + 59u * 75u + 74u;	/* 99:59:74 */
		uint32_t a = addr >= last - 150u ? last : (uint32_t)addr + 150u;

		dest[0] = 0;
		dest[1] = (uint8_t)(a / (60 * 75));
		dest[2] = (uint8_t)((a / 75) % 60);
		dest[3] = (uint8_t)(a % 75);
	} else {
		msf__put_be32(dest, addr > 0xffffffffu ? 0xffffffffu : (uint32_t)addr);
	}
}

int msf__do_read_header(struct msf_common *common, uint8_t *buf)
{
	struct msf__lun *curlun = common->curlun;
	bool msf = common->cmnd[1] & 0x02;
	uint32_t lba = msf__get_be32(common->cmnd + 2);

	if (common->cmnd[1] & ~0x02u) {
		fail(common, SS_INVALID_FIELD_IN_CDB);
		return REPLY_FAILED;
	}
	if (lba >= curlun->num_sectors) {
		fail(common, SS_LOGICAL_BLOCK_ADDRESS_OUT_OF_RANGE);
		return REPLY_FAILED;
	}
	memset(buf, 0, 8);
	buf[0] = 0x01;		/* data mode 1: 2048 bytes of user data */
	store_cdrom_address(buf + 4, msf, lba);
	return 8;
}

int msf__do_read_toc(struct msf_common *common, uint8_t *buf)
{
	struct msf__lun *curlun = common->curlun;
	bool msf = common->cmnd[1] & 0x02;
	unsigned start_track = common->cmnd[6];
	unsigned format = common->cmnd[2] & 0x0f;
	uint8_t *q;

	if ((common->cmnd[1] & ~0x02u) || (common->cmnd[2] & 0xf0u)) {
		fail(common, SS_INVALID_FIELD_IN_CDB);
		return REPLY_FAILED;
	}
	/* Old (SFF-8020) hosts put the format in the control byte. */
	if (format == 0)
		format = (common->cmnd[9] >> 6) & 0x03;

	switch (format) {
	case 0:	/* formatted TOC: track 1 and the lead-out */
		if (start_track > 1 && start_track != 0xaa) {
			fail(common, SS_INVALID_FIELD_IN_CDB);
			return REPLY_FAILED;
		}
		memset(buf, 0, 20);
		buf[2] = 1;
		buf[3] = 1;
		q = buf + 4;
		if (start_track <= 1) {
			q[1] = 0x14;	/* ADR 1, data track */
			q[2] = 1;
			store_cdrom_address(q + 4, msf, 0);
			q += 8;
		}
		q[1] = 0x14;
		q[2] = 0xaa;		/* lead-out */
		store_cdrom_address(q + 4, msf, curlun->num_sectors);
		q += 8;
		msf__put_be16(buf, (uint16_t)(q - buf - 2));
		return (int)(q - buf);
	case 1:	/* multi-session info: one session starting at track 1 */
		memset(buf, 0, 12);
		msf__put_be16(buf, 10);
		buf[2] = 1;
		buf[3] = 1;
		buf[5] = 0x14;
		buf[6] = 1;
		store_cdrom_address(buf + 8, msf, 0);
		return 12;
	case 2:	/* raw TOC (macOS): points A0, A1, A2 and track 1, in MSF */
		memset(buf, 0, 4 + 4 * 11);
		buf[2] = 1;
		buf[3] = 1;
		q = buf + 4;
		for (unsigned i = 0; i < 4; i++, q += 11) {
			q[0] = 1;	/* session */
			q[1] = 0x14;
		}
		q = buf + 4;
		q[3] = 0xa0;		/* first track number */
		q[8] = 1;
		q[9] = 0x00;		/* disc type: CD-ROM */
		q += 11;
		q[3] = 0xa1;		/* last track number */
		q[8] = 1;
		q += 11;
		q[3] = 0xa2;		/* lead-out start */
		store_cdrom_address(q + 7, true, curlun->num_sectors);
		q += 11;
		q[3] = 1;		/* track 1 start */
		store_cdrom_address(q + 7, true, 0);
		msf__put_be16(buf, 2 + 4 * 11);
		return 4 + 4 * 11;
	default:
		fail(common, SS_INVALID_FIELD_IN_CDB);
		return REPLY_FAILED;
	}
}
