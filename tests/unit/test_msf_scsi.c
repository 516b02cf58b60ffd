/*
 * test_msf_scsi.c - the MSF's SCSI commands through the in-process host: the
 * exact reply bytes of INQUIRY (standard, VPD 00/80/83), REQUEST SENSE,
 * READ CAPACITY(10/16), READ FORMAT CAPACITIES, MODE SENSE(6/10), the
 * behaviour of MODE SELECT, READ/WRITE of every size, VERIFY, SYNCHRONIZE
 * CACHE, unit attention, unknown and refused commands, LBA range checks,
 * CDB field checks (the protection fields of READ/WRITE/VERIFY among
 * them), missing LUNs and Get Max LUN.
 */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "test_msf_fixture.h"

#define BLOCKS 2048u

static struct msf_fx *up_mem(unsigned nluns)
{
	struct msf_fx *fx = msf_fx_new();

	fx->cfg.nluns = nluns;
	for (unsigned i = 0; i < nluns; i++)
		fx->cfg.luns[i].backend = msf_fx_mem(BLOCKS, 512);
	msf_fx_up(fx, USB_SPEED_HIGH);
	return fx;
}

static void expect_sense(struct msf_fx *fx, uint8_t lun, uint32_t sense)
{
	assert_int_equal(msf_fx_sense(fx, lun, NULL, NULL), sense);
}

static void test_msf_scsi_unit_attention_after_configuration(void **state)
{
	uint8_t tur[6] = { 0 };
	struct msf_fx *fx = up_mem(1);

	(void)state;
	/* The first command after SET_CONFIGURATION: POWER ON, RESET. */
	assert_int_equal(msf_fx_cmd(fx, 0, tur, 6, false, NULL, 0, NULL, NULL), 1);
	expect_sense(fx, 0, 0x062900);
	assert_int_equal(msf_fx_cmd(fx, 0, tur, 6, false, NULL, 0, NULL, NULL), 0);
	/* Reading the sense cleared it. */
	expect_sense(fx, 0, 0);
	msf_fx_free(fx);
}

static void test_msf_scsi_inquiry_standard(void **state)
{
	static const uint8_t want[36] = {
		0x00, 0x00, 0x02, 0x02, 0x1f, 0x00, 0x00, 0x00,
		'L', 'i', 'n', 'u', 'x', ' ', ' ', ' ',
		'F', 'i', 'l', 'e', '-', 'S', 't', 'o', 'r', ' ', 'G', 'a', 'd', 'g', 'e', 't',
		'0', '1', '0', '0',
	};
	uint8_t cdb[6] = { 0x12, 0, 0, 0, 36, 0 };
	uint8_t buf[64];
	uint32_t residue;
	int x;
	struct msf_fx *fx = up_mem(1);

	(void)state;
	/* Allowed during the unit attention, which stays pending. */
	memset(buf, 0xee, sizeof(buf));
	assert_int_equal(msf_fx_cmd(fx, 0, cdb, 6, true, buf, 36, &x, &residue), 0);
	assert_int_equal(x, 36);
	assert_int_equal(residue, 0);
	assert_memory_equal(buf, want, 36);
	expect_sense(fx, 0, 0);

	/* Allocation length 255, host reads 64: 36 bytes, short, residue 28 (case 5). */
	cdb[4] = 255;
	assert_int_equal(msf_fx_cmd(fx, 0, cdb, 6, true, buf, 64, &x, &residue), 0);
	assert_int_equal(x, 36);
	assert_int_equal(residue, 64 - 36);

	/* The host wants less than the reply (case 7): 20 bytes, phase error. */
	cdb[4] = 36;
	assert_int_equal(msf_fx_cmd(fx, 0, cdb, 6, true, buf, 20, &x, &residue), 2);
	assert_int_equal(x, 20);
	assert_int_equal(msf_fx_reset_recovery(fx), 0);

	/* Allocation length 5: just the header. */
	cdb[4] = 5;
	assert_int_equal(msf_fx_cmd(fx, 0, cdb, 6, true, buf, 5, &x, &residue), 0);
	assert_int_equal(x, 5);
	assert_int_equal(residue, 0);
	msf_fx_free(fx);
}

static void test_msf_scsi_inquiry_names_removable_cdrom(void **state)
{
	uint8_t cdb[6] = { 0x12, 0, 0, 0, 36, 0 };
	uint8_t buf[36];
	struct msf_fx *fx = msf_fx_new();

	(void)state;
	fx->cfg.nluns = 3;
	fx->cfg.vendor_name = "ACME";
	fx->cfg.product_name = "Disk";
	fx->cfg.revision = "4.2";
	fx->cfg.luns[0].backend = msf_fx_mem(BLOCKS, 512);
	fx->cfg.luns[1].removable = 1;
	fx->cfg.luns[1].backend = msf_fx_mem(BLOCKS, 512);
	fx->cfg.luns[2].cdrom = 1;
	fx->cfg.luns[2].removable = 1;
	fx->cfg.luns[2].inquiry_string = "Vendor  CD drive        0001";
	fx->cfg.luns[2].backend = msf_fx_mem(BLOCKS, 512);
	msf_fx_up(fx, USB_SPEED_HIGH);

	assert_int_equal(msf_fx_cmd(fx, 0, cdb, 6, true, buf, 36, NULL, NULL), 0);
	assert_int_equal(buf[0], 0x00);
	assert_int_equal(buf[1], 0x00);
	assert_memory_equal(buf + 8, "ACME    Disk            4.2 ", 28);
	assert_int_equal(msf_fx_cmd(fx, 1, cdb, 6, true, buf, 36, NULL, NULL), 0);
	assert_int_equal(buf[1], 0x80);	/* RMB */
	assert_int_equal(msf_fx_cmd(fx, 2, cdb, 6, true, buf, 36, NULL, NULL), 0);
	assert_int_equal(buf[0], 0x05);	/* CD/DVD */
	assert_int_equal(buf[1], 0x80);
	assert_memory_equal(buf + 8, "Vendor  CD drive        0001", 28);
	msf_fx_free(fx);
}

static void test_msf_scsi_inquiry_vpd(void **state)
{
	static const uint8_t page0[7] = { 0x00, 0x00, 0x00, 0x03, 0x00, 0x80, 0x83 };
	uint8_t cdb[6] = { 0x12, 0x01, 0x00, 0, 255, 0 };
	uint8_t buf[255];
	int x;
	struct msf_fx *fx = msf_fx_new();

	(void)state;
	fx->cfg.serial = "SN1234";
	fx->cfg.luns[0].backend = msf_fx_mem(BLOCKS, 512);
	msf_fx_up(fx, USB_SPEED_HIGH);

	assert_int_equal(msf_fx_cmd(fx, 0, cdb, 6, true, buf, 255, &x, NULL), 0);
	assert_int_equal(x, 7);
	assert_memory_equal(buf, page0, 7);

	cdb[2] = 0x80;
	assert_int_equal(msf_fx_cmd(fx, 0, cdb, 6, true, buf, 255, &x, NULL), 0);
	assert_int_equal(x, 4 + 8);
	assert_memory_equal(buf, "\x00\x80\x00\x08SN1234-0", 12);

	cdb[2] = 0x83;
	assert_int_equal(msf_fx_cmd(fx, 0, cdb, 6, true, buf, 255, &x, NULL), 0);
	assert_int_equal(x, 4 + 4 + 24 + 8);
	assert_memory_equal(buf, "\x00\x83\x00\x24\x02\x01\x00\x20", 8);
	assert_memory_equal(buf + 8, "Linux   File-Stor GadgetSN1234-0", 32);

	/* An unsupported page: ILLEGAL REQUEST, INVALID FIELD IN CDB. */
	cdb[2] = 0xb0;
	assert_int_equal(msf_fx_cmd(fx, 0, cdb, 6, true, buf, 255, &x, NULL), 1);
	expect_sense(fx, 0, 0x052400);
	/* A page code without EVPD is invalid too. */
	cdb[1] = 0;
	cdb[2] = 0x80;
	assert_int_equal(msf_fx_cmd(fx, 0, cdb, 6, true, buf, 255, &x, NULL), 1);
	expect_sense(fx, 0, 0x052400);
	msf_fx_free(fx);
}

/* Without a configured serial: 12 hex digits of the INQUIRY string's
 * FNV-1a hash and the LUN in two digits, formatted by lun.c without printf
 * (newlib-nano printed "lX" for %llX); compared with the host's printf. */
static void test_msf_scsi_vpd_serial_from_hash(void **state)
{
	uint8_t cdb[6] = { 0x12, 0x01, 0x80, 0, 255, 0 };
	uint8_t inq[6] = { 0x12, 0, 0, 0, 36, 0 };
	uint64_t hash = 14695981039346656037u;
	char want[20];
	uint8_t buf[255];
	int x;
	struct msf_fx *fx = msf_fx_new();

	(void)state;
	fx->cfg.nluns = 2;
	fx->cfg.luns[0].backend = msf_fx_mem(BLOCKS, 512);
	fx->cfg.luns[1].backend = msf_fx_mem(BLOCKS, 512);
	msf_fx_up(fx, USB_SPEED_HIGH);
	/* The hashed string: vendor, product and revision of INQUIRY. */
	assert_int_equal(msf_fx_clear_ua(fx, 1), 0);
	assert_int_equal(msf_fx_cmd(fx, 1, inq, 6, true, buf, 36, &x, NULL), 0);
	assert_int_equal(x, 36);
	for (unsigned i = 8; i < 36; i++) {
		hash ^= buf[i];
		hash *= 1099511628211u;
	}
	snprintf(want, sizeof(want), "%012llX%02u",
		 (unsigned long long)(hash & 0xffffffffffffu), 1u);
	assert_int_equal(msf_fx_cmd(fx, 1, cdb, 6, true, buf, 255, &x, NULL), 0);
	assert_int_equal(x, 4 + 14);
	assert_int_equal(buf[3], 14);
	assert_memory_equal(buf + 4, want, 14);
	msf_fx_free(fx);
}

static void test_msf_scsi_request_sense_bytes(void **state)
{
	static const uint8_t want[18] = {
		0xf0, 0, 0x05, 0x00, 0x00, 0x08, 0x00, 10, 0, 0, 0, 0, 0x21, 0x00, 0, 0, 0, 0,
	};
	uint8_t rd[10] = { 0x28, 0, 0x00, 0x00, 0x08, 0x00, 0, 0, 1, 0 };	/* LBA 2048 */
	uint8_t rs[6] = { 0x03, 0, 0, 0, 18, 0 };
	uint8_t buf[512];
	int x;
	struct msf_fx *fx = up_mem(1);

	(void)state;
	assert_int_equal(msf_fx_clear_ua(fx, 0), 0);
	/* One block past the end: LBA OUT OF RANGE with the LBA as INFORMATION. */
	assert_int_equal(msf_fx_cmd(fx, 0, rd, 10, true, buf, 512, &x, NULL), 1);
	assert_int_equal(msf_fx_cmd(fx, 0, rs, 6, true, buf, 18, &x, NULL), 0);
	assert_int_equal(x, 18);
	assert_memory_equal(buf, want, 18);
	/* Windows sends REQUEST SENSE with a 12-byte CB length: accepted. */
	{
		uint8_t rs12[12] = { 0x03, 0, 0, 0, 18, 0 };

		assert_int_equal(msf_fx_cmd(fx, 0, rs12, 12, true, buf, 18, &x, NULL), 0);
	}
	assert_int_equal(buf[0], 0x70);
	assert_int_equal(buf[2], 0);
	/* A CB length too short for the command: phase error. */
	{
		uint8_t rd10[10] = { 0x28, 0, 0, 0, 0, 1, 0, 0, 1, 0 };

		assert_int_equal(msf_fx_cmd(fx, 0, rd10, 6, true, buf, 512, &x, NULL), 2);
		assert_int_equal(msf_fx_reset_recovery(fx), 0);
		assert_int_equal(msf_fx_cmd(fx, 0, rd10, 10, true, buf, 512, &x, NULL), 0);
		assert_int_equal(buf[0], msf_fx_pat(512));
	}
	msf_fx_free(fx);
}

static void test_msf_scsi_read_capacity(void **state)
{
	static const uint8_t want10[8] = { 0x00, 0x00, 0x07, 0xff, 0x00, 0x00, 0x02, 0x00 };
	static const uint8_t want16[32] = { 0, 0, 0, 0, 0x00, 0x00, 0x07, 0xff,
					    0x00, 0x00, 0x02, 0x00 };
	static const uint8_t wantfc[12] = { 0, 0, 0, 8, 0x00, 0x00, 0x08, 0x00,
					    0x02, 0x00, 0x02, 0x00 };
	uint8_t rc10[10] = { 0x25 };
	uint8_t rc16[16] = { 0x9e, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 32, 0, 0 };
	uint8_t rfc[10] = { 0x23, 0, 0, 0, 0, 0, 0, 0, 12, 0 };
	uint8_t buf[64];
	int x;
	struct msf_fx *fx = up_mem(1);

	(void)state;
	assert_int_equal(msf_fx_clear_ua(fx, 0), 0);
	assert_int_equal(msf_fx_cmd(fx, 0, rc10, 10, true, buf, 8, &x, NULL), 0);
	assert_int_equal(x, 8);
	assert_memory_equal(buf, want10, 8);
	assert_int_equal(msf_fx_cmd(fx, 0, rc16, 16, true, buf, 32, &x, NULL), 0);
	assert_int_equal(x, 32);
	assert_memory_equal(buf, want16, 32);
	assert_int_equal(msf_fx_cmd(fx, 0, rfc, 10, true, buf, 12, &x, NULL), 0);
	assert_int_equal(x, 12);
	assert_memory_equal(buf, wantfc, 12);
	/* PMI 0 with an LBA is invalid. */
	rc10[5] = 1;
	assert_int_equal(msf_fx_cmd(fx, 0, rc10, 10, true, buf, 8, &x, NULL), 1);
	expect_sense(fx, 0, 0x052400);
	/* Another service action of 9E: invalid command. */
	rc16[1] = 0x11;
	assert_int_equal(msf_fx_cmd(fx, 0, rc16, 16, true, buf, 32, &x, NULL), 1);
	expect_sense(fx, 0, 0x052000);
	msf_fx_free(fx);
}

static void test_msf_scsi_mode_sense(void **state)
{
	static const uint8_t want6[24] = {
		23, 0x00, 0x00, 0x00,
		0x08, 0x12, 0x04, 0x00, 0xff, 0xff, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff,
		0, 0, 0, 0, 0, 0, 0, 0,
	};
	static const uint8_t want10_changeable[28] = {
		0, 26, 0x00, 0x80, 0, 0, 0, 0,
		0x08, 0x12, 0x04, 0,
	};
	uint8_t ms6[6] = { 0x1a, 0, 0x3f, 0, 255, 0 };
	uint8_t ms10[10] = { 0x5a, 0, 0x48, 0, 0, 0, 0, 0, 255, 0 };
	uint8_t buf[255];
	int x;
	struct msf_fx *fx = msf_fx_new();

	(void)state;
	fx->cfg.nluns = 2;
	fx->cfg.luns[0].backend = msf_fx_mem(BLOCKS, 512);
	fx->cfg.luns[1].backend = msf_fx_mem(BLOCKS, 512);
	fx->cfg.luns[1].ro = 1;
	msf_fx_up(fx, USB_SPEED_HIGH);

	assert_int_equal(msf_fx_clear_ua(fx, 0), 0);
	assert_int_equal(msf_fx_clear_ua(fx, 1), 0);
	assert_int_equal(msf_fx_cmd(fx, 0, ms6, 6, true, buf, 255, &x, NULL), 0);
	assert_int_equal(x, 24);
	assert_memory_equal(buf, want6, 24);
	ms6[2] = 0x08;
	assert_int_equal(msf_fx_cmd(fx, 0, ms6, 6, true, buf, 255, &x, NULL), 0);
	assert_memory_equal(buf, want6, 24);
	/* Read-only LUN: WP bit; changeable values of page 08 (PC=1). */
	assert_int_equal(msf_fx_cmd(fx, 1, ms6, 6, true, buf, 255, &x, NULL), 0);
	assert_int_equal(buf[2], 0x80);
	assert_int_equal(msf_fx_cmd(fx, 1, ms10, 10, true, buf, 255, &x, NULL), 0);
	assert_int_equal(x, 28);
	assert_memory_equal(buf, want10_changeable, 12);
	for (int i = 12; i < 28; i++)
		assert_int_equal(buf[i], 0);
	/* Saved values: SAVING PARAMETERS NOT SUPPORTED. */
	ms6[2] = 0xc8;
	assert_int_equal(msf_fx_cmd(fx, 0, ms6, 6, true, buf, 255, &x, NULL), 1);
	expect_sense(fx, 0, 0x053900);
	/* A page we do not have. */
	ms6[2] = 0x1c;
	assert_int_equal(msf_fx_cmd(fx, 0, ms6, 6, true, buf, 255, &x, NULL), 1);
	expect_sense(fx, 0, 0x052400);
	msf_fx_free(fx);
}

static void test_msf_scsi_mode_select(void **state)
{
	uint8_t ms6[6] = { 0x1a, 0, 0x08, 0, 255, 0 };
	uint8_t sel[6] = { 0x15, 0x10, 0, 0, 24, 0 };
	uint8_t page[255];
	uint8_t buf[255];
	int x;
	struct msf_fx *fx = up_mem(1);

	(void)state;
	assert_int_equal(msf_fx_clear_ua(fx, 0), 0);
	assert_int_equal(msf_fx_cmd(fx, 0, ms6, 6, true, page, 255, &x, NULL), 0);
	assert_int_equal(x, 24);
	/* Turn the write cache off: accepted, and MODE SENSE shows it. */
	page[0] = 0;
	page[6] &= (uint8_t)~0x04;
	assert_int_equal(msf_fx_cmd(fx, 0, sel, 6, false, page, 24, &x, NULL), 0);
	assert_int_equal(x, 24);
	assert_int_equal(msf_fx_cmd(fx, 0, ms6, 6, true, buf, 255, &x, NULL), 0);
	assert_int_equal(buf[6] & 0x04, 0);
	/* Anything else changed: INVALID FIELD IN PARAMETER LIST. */
	page[8] = 0x12;
	assert_int_equal(msf_fx_cmd(fx, 0, sel, 6, false, page, 24, &x, NULL), 1);
	expect_sense(fx, 0, 0x052600);
	/* SP (save) is not supported. */
	sel[1] = 0x11;
	assert_int_equal(msf_fx_cmd(fx, 0, sel, 6, false, page, 24, &x, NULL), 1);
	expect_sense(fx, 0, 0x053900);
	msf_fx_free(fx);
}

/* Build a READ/WRITE CDB of @size bytes. */
static unsigned rw_cdb(uint8_t *cdb, unsigned size, bool write, uint64_t lba, uint32_t n)
{
	memset(cdb, 0, 16);
	switch (size) {
	case 6:
		cdb[0] = write ? 0x0a : 0x08;
		cdb[1] = (uint8_t)(lba >> 16) & 0x1f;
		cdb[2] = (uint8_t)(lba >> 8);
		cdb[3] = (uint8_t)lba;
		cdb[4] = (uint8_t)n;
		break;
	case 10:
		cdb[0] = write ? 0x2a : 0x28;
		for (int i = 0; i < 4; i++)
			cdb[2 + i] = (uint8_t)(lba >> (24 - 8 * i));
		cdb[7] = (uint8_t)(n >> 8);
		cdb[8] = (uint8_t)n;
		break;
	case 12:
		cdb[0] = write ? 0xaa : 0xa8;
		for (int i = 0; i < 4; i++) {
			cdb[2 + i] = (uint8_t)(lba >> (24 - 8 * i));
			cdb[6 + i] = (uint8_t)(n >> (24 - 8 * i));
		}
		break;
	default:
		cdb[0] = write ? 0x8a : 0x88;
		for (int i = 0; i < 8; i++)
			cdb[2 + i] = (uint8_t)(lba >> (56 - 8 * i));
		for (int i = 0; i < 4; i++)
			cdb[10 + i] = (uint8_t)(n >> (24 - 8 * i));
		break;
	}
	return size;
}

static void test_msf_scsi_read_write_all_sizes(void **state)
{
	static const unsigned sizes[] = { 6, 10, 12, 16 };
	uint8_t cdb[16];
	uint8_t *wbuf = malloc(64 * 512), *rbuf = malloc(64 * 512);
	int x;
	uint32_t residue;
	struct msf_fx *fx = up_mem(1);

	(void)state;
	assert_non_null(wbuf);
	assert_non_null(rbuf);
	assert_int_equal(msf_fx_clear_ua(fx, 0), 0);
	/* Reads return the backend's pattern. */
	for (unsigned s = 0; s < 4; s++) {
		uint64_t lba = 100 + 70 * s;

		rw_cdb(cdb, sizes[s], false, lba, 33);
		assert_int_equal(msf_fx_cmd(fx, 0, cdb, (uint8_t)sizes[s], true, rbuf, 33 * 512,
					    &x, &residue), 0);
		assert_int_equal(x, 33 * 512);
		assert_int_equal(residue, 0);
		for (unsigned i = 0; i < 33 * 512; i++)
			assert_int_equal(rbuf[i], msf_fx_pat(lba * 512 + i));
	}
	/* Writes land and read back, with each size. */
	for (unsigned s = 0; s < 4; s++) {
		uint64_t lba = 1000 + 100 * s;

		for (unsigned i = 0; i < 64 * 512; i++)
			wbuf[i] = (uint8_t)(i * 31u + s);
		rw_cdb(cdb, sizes[s], true, lba, 64);
		assert_int_equal(msf_fx_cmd(fx, 0, cdb, (uint8_t)sizes[s], false, wbuf, 64 * 512,
					    &x, &residue), 0);
		assert_int_equal(residue, 0);
		rw_cdb(cdb, 10, false, lba, 64);
		assert_int_equal(msf_fx_cmd(fx, 0, cdb, 10, true, rbuf, 64 * 512, &x, NULL), 0);
		assert_memory_equal(rbuf, wbuf, 64 * 512);
	}
	/* READ(6) with length 0 means 256 blocks. */
	rw_cdb(cdb, 6, false, 0, 0);
	{
		uint8_t *big = malloc(256 * 512);

		assert_non_null(big);
		assert_int_equal(msf_fx_cmd(fx, 0, cdb, 6, true, big, 256 * 512, &x, &residue), 0);
		assert_int_equal(x, 256 * 512);
		assert_int_equal(big[511], msf_fx_pat(511));
		free(big);
	}
	/* READ(10) of 0 blocks: no data, passed. */
	rw_cdb(cdb, 10, false, 5, 0);
	assert_int_equal(msf_fx_cmd(fx, 0, cdb, 10, true, NULL, 0, &x, &residue), 0);
	free(wbuf);
	free(rbuf);
	msf_fx_free(fx);
}

static void test_msf_scsi_lba_range_cannot_overflow(void **state)
{
	uint8_t cdb[16];
	uint8_t buf[1024];
	uint32_t info;
	bool valid;
	struct msf_fx *fx = up_mem(1);

	(void)state;
	assert_int_equal(msf_fx_clear_ua(fx, 0), 0);
	/* Last block: fine; last block + 1 more: out of range. */
	rw_cdb(cdb, 10, false, BLOCKS - 1, 1);
	assert_int_equal(msf_fx_cmd(fx, 0, cdb, 10, true, buf, 512, NULL, NULL), 0);
	rw_cdb(cdb, 10, false, BLOCKS - 1, 2);
	assert_int_equal(msf_fx_cmd(fx, 0, cdb, 10, true, buf, 1024, NULL, NULL), 1);
	assert_int_equal(msf_fx_sense(fx, 0, &info, &valid), 0x052100);
	/* LBA near 2^64 with a length that would wrap around. */
	rw_cdb(cdb, 16, false, UINT64_MAX - 1, 2);
	assert_int_equal(msf_fx_cmd(fx, 0, cdb, 16, true, buf, 1024, NULL, NULL), 1);
	assert_int_equal(msf_fx_sense(fx, 0, &info, &valid), 0x052100);
	assert_false(valid);	/* the LBA does not fit the 32-bit field */
	rw_cdb(cdb, 16, true, UINT64_MAX, 2);
	assert_int_equal(msf_fx_cmd(fx, 0, cdb, 16, false, buf, 1024, NULL, NULL), 1);
	assert_int_equal(msf_fx_sense(fx, 0, NULL, NULL), 0x052100);
	rw_cdb(cdb, 12, false, 5, 0xffffffffu);
	assert_int_equal(msf_fx_cmd(fx, 0, cdb, 12, true, buf, 1024, NULL, NULL), 2);
	/* 0xffffffff blocks > host's 1024 bytes: phase error (case 7), nothing read. */
	assert_int_equal(msf_fx_reset_recovery(fx), 0);
	msf_fx_free(fx);
}

/*
 * RDPROTECT/WRPROTECT (bits 7-5 of byte 1 of READ/WRITE(10/12/16)) and
 * VRPROTECT of VERIFY(10): a device without protection information
 * answers ILLEGAL REQUEST / INVALID FIELD IN CDB and moves no data (SBC-3
 * 5.8). The same bits are SCSI-2's LUN field, which Linux fills in for
 * LUNs 1-7 of a SCSI-2 device: the CBW's LUN there is accepted.
 */
static void test_msf_scsi_protection_fields_refused(void **state)
{
	static const unsigned sizes[] = { 10, 12, 16 };
	uint8_t verify[10] = { 0x2f, 0, 0, 0, 0, 10, 0, 0, 1, 0 };
	uint8_t cdb[16];
	uint8_t *buf = malloc(2 * 512), *back = malloc(2 * 512);
	uint32_t residue;
	int x;
	struct msf_fx *fx = up_mem(2);

	(void)state;
	assert_non_null(buf);
	assert_non_null(back);
	assert_int_equal(msf_fx_clear_ua(fx, 0), 0);
	for (unsigned s = 0; s < 3; s++) {
		for (unsigned prot = 1; prot < 8; prot++) {
			uint64_t lba = 10 + 4 * s;

			rw_cdb(cdb, sizes[s], false, lba, 2);
			cdb[1] = (uint8_t)(prot << 5);
			assert_int_equal(msf_fx_cmd(fx, 0, cdb, (uint8_t)sizes[s], true, buf,
						    2 * 512, &x, &residue), 1);
			assert_int_equal(residue, 2 * 512);	/* nothing sent */
			expect_sense(fx, 0, 0x052400);

			memset(buf, 0xa5, 2 * 512);
			rw_cdb(cdb, sizes[s], true, lba, 2);
			cdb[1] = (uint8_t)(prot << 5 | 0x08);	/* with FUA */
			assert_int_equal(msf_fx_cmd(fx, 0, cdb, (uint8_t)sizes[s], false, buf,
						    2 * 512, &x, &residue), 1);
			assert_int_equal(residue, 2 * 512);
			expect_sense(fx, 0, 0x052400);
			/* The medium still holds its pattern. */
			rw_cdb(cdb, 10, false, lba, 2);
			assert_int_equal(msf_fx_cmd(fx, 0, cdb, 10, true, back, 2 * 512, &x, NULL),
					 0);
			for (unsigned i = 0; i < 2 * 512; i++)
				assert_int_equal(back[i], msf_fx_pat(lba * 512 + i));
		}
	}
	verify[1] = 0x20;	/* VRPROTECT 001 */
	assert_int_equal(msf_fx_cmd(fx, 0, verify, 10, false, NULL, 0, NULL, NULL), 1);
	expect_sense(fx, 0, 0x052400);
	/* The LUN field holding the CBW's LUN (1): a SCSI-2 host's READ. */
	assert_int_equal(msf_fx_clear_ua(fx, 1), 0);
	for (unsigned s = 0; s < 3; s++) {
		rw_cdb(cdb, sizes[s], false, 3, 1);
		cdb[1] = 0x20;
		assert_int_equal(msf_fx_cmd(fx, 1, cdb, (uint8_t)sizes[s], true, buf, 512, &x,
					    NULL), 0);
		assert_int_equal(x, 512);
		cdb[1] = 0x40;	/* neither 0 nor LUN 1: RDPROTECT 010 */
		assert_int_equal(msf_fx_cmd(fx, 1, cdb, (uint8_t)sizes[s], true, buf, 512, &x,
					    NULL), 1);
		expect_sense(fx, 1, 0x052400);
	}
	rw_cdb(cdb, 6, false, 3, 1);
	cdb[1] |= 0x20;
	assert_int_equal(msf_fx_cmd(fx, 1, cdb, 6, true, buf, 512, &x, NULL), 0);
	assert_int_equal(msf_fx_cmd(fx, 0, cdb, 6, true, buf, 512, &x, NULL), 1);
	expect_sense(fx, 0, 0x052400);
	free(buf);
	free(back);
	msf_fx_free(fx);
}

static void test_msf_scsi_verify_sync_start_stop(void **state)
{
	uint8_t verify[10] = { 0x2f, 0, 0, 0, 0, 10, 0, 0, 100, 0 };
	uint8_t sync[10] = { 0x35, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
	uint8_t start[6] = { 0x1b, 0, 0, 0, 0x01, 0 };
	uint8_t prevent[6] = { 0x1e, 0, 0, 0, 0x01, 0 };
	struct msf_fx *fx = up_mem(1);

	(void)state;
	assert_int_equal(msf_fx_clear_ua(fx, 0), 0);
	assert_int_equal(msf_fx_cmd(fx, 0, verify, 10, false, NULL, 0, NULL, NULL), 0);
	verify[8] = 0xff;
	verify[7] = 0xff;
	assert_int_equal(msf_fx_cmd(fx, 0, verify, 10, false, NULL, 0, NULL, NULL), 1);
	expect_sense(fx, 0, 0x052100);
	verify[1] = 0x02;	/* BYTCHK: not supported */
	assert_int_equal(msf_fx_cmd(fx, 0, verify, 10, false, NULL, 0, NULL, NULL), 1);
	expect_sense(fx, 0, 0x052400);
	assert_int_equal(msf_fx_cmd(fx, 0, sync, 10, false, NULL, 0, NULL, NULL), 0);
	/* Not removable: START STOP UNIT and PREVENT are invalid commands. */
	assert_int_equal(msf_fx_cmd(fx, 0, start, 6, false, NULL, 0, NULL, NULL), 1);
	expect_sense(fx, 0, 0x052000);
	assert_int_equal(msf_fx_cmd(fx, 0, prevent, 6, false, NULL, 0, NULL, NULL), 1);
	expect_sense(fx, 0, 0x052000);
	msf_fx_free(fx);
}

static void test_msf_scsi_unknown_and_refused_commands(void **state)
{
	static const uint8_t ops[] = { 0xff, 0x04, 0x16, 0x17, 0x1d, 0xa0, 0x43, 0x44 };
	uint8_t cdb[16];
	uint8_t buf[64];
	int x;
	struct msf_fx *fx = up_mem(1);

	(void)state;
	assert_int_equal(msf_fx_clear_ua(fx, 0), 0);
	for (size_t i = 0; i < sizeof(ops); i++) {
		memset(cdb, 0, sizeof(cdb));
		cdb[0] = ops[i];
		assert_int_equal(msf_fx_cmd(fx, 0, cdb, 10, false, NULL, 0, NULL, NULL), 1);
		expect_sense(fx, 0, 0x052000);
	}
	/* With an IN data phase: empty reply, stall, full residue. */
	cdb[0] = 0xc5;
	{
		uint32_t residue;

		assert_int_equal(msf_fx_cmd(fx, 0, cdb, 12, true, buf, 64, &x, &residue), 1);
		assert_true(x == 0 || x == -USB_EPIPE);
		assert_int_equal(residue, 64);
	}
	expect_sense(fx, 0, 0x052000);
	/* A reserved CDB byte set: INVALID FIELD IN CDB. */
	memset(cdb, 0, sizeof(cdb));
	cdb[2] = 1;
	assert_int_equal(msf_fx_cmd(fx, 0, cdb, 6, false, NULL, 0, NULL, NULL), 1);
	expect_sense(fx, 0, 0x052400);
	msf_fx_free(fx);
}

static void test_msf_scsi_missing_lun_and_max_lun(void **state)
{
	uint8_t tur[6] = { 0 };
	uint8_t inq[6] = { 0x12, 0, 0, 0, 36, 0 };
	uint8_t buf[36];
	uint8_t maxlun = 0xee;
	struct msf_fx *fx = up_mem(3);

	(void)state;
	assert_int_equal(msf_fx_class(fx, true, 0xfe, 0, 1, &maxlun), 1);
	assert_int_equal(maxlun, 2);
	/* Wrong wLength / wValue: stalled (BOT 3.2). */
	assert_int_equal(msf_fx_class(fx, true, 0xfe, 1, 1, &maxlun), -USB_EPIPE);
	/* LUN 5 of 3: TUR fails with LOGICAL UNIT NOT SUPPORTED ... */
	assert_int_equal(msf_fx_cmd(fx, 5, tur, 6, false, NULL, 0, NULL, NULL), 1);
	expect_sense(fx, 5, 0x052500);
	/* ... INQUIRY passes with "no device here". */
	assert_int_equal(msf_fx_cmd(fx, 5, inq, 6, true, buf, 36, NULL, NULL), 0);
	assert_int_equal(buf[0], 0x7f);
	msf_fx_free(fx);
}

static void test_msf_scsi_sixteen_luns(void **state)
{
	uint8_t maxlun = 0;
	uint8_t buf[512];
	struct msf_fx *fx = up_mem(16);

	(void)state;
	assert_int_equal(msf_fx_class(fx, true, 0xfe, 0, 1, &maxlun), 1);
	assert_int_equal(maxlun, 15);
	for (uint8_t lun = 0; lun < 16; lun++) {
		assert_int_equal(msf_fx_clear_ua(fx, lun), 0);
		memset(buf, lun, sizeof(buf));
		assert_int_equal(msf_fx_write10(fx, lun, lun, 1, buf, 512, 0), 0);
	}
	/* Each LUN has its own medium. */
	for (uint8_t lun = 0; lun < 16; lun++) {
		assert_int_equal(msf_fx_read10(fx, lun, lun, 1, buf, 512, 0), 0);
		assert_int_equal(buf[0], lun);
		assert_int_equal(msf_fx_read10(fx, lun, 0, 1, buf, 512, 0), 0);
		assert_int_equal(buf[7], lun == 0 ? 0 : msf_fx_pat(7));
	}
	msf_fx_free(fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_msf_scsi_unit_attention_after_configuration),
		cmocka_unit_test(test_msf_scsi_inquiry_standard),
		cmocka_unit_test(test_msf_scsi_inquiry_names_removable_cdrom),
		cmocka_unit_test(test_msf_scsi_inquiry_vpd),
		cmocka_unit_test(test_msf_scsi_vpd_serial_from_hash),
		cmocka_unit_test(test_msf_scsi_request_sense_bytes),
		cmocka_unit_test(test_msf_scsi_read_capacity),
		cmocka_unit_test(test_msf_scsi_mode_sense),
		cmocka_unit_test(test_msf_scsi_mode_select),
		cmocka_unit_test(test_msf_scsi_read_write_all_sizes),
		cmocka_unit_test(test_msf_scsi_lba_range_cannot_overflow),
		cmocka_unit_test(test_msf_scsi_protection_fields_refused),
		cmocka_unit_test(test_msf_scsi_verify_sync_start_stop),
		cmocka_unit_test(test_msf_scsi_unknown_and_refused_commands),
		cmocka_unit_test(test_msf_scsi_missing_lun_and_max_lun),
		cmocka_unit_test(test_msf_scsi_sixteen_luns),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
