/*
 * host_check.h - shared state of host_check, the libusb-1.0 host-side test
 * program for the mass_storage gadget (0525:a4a5), run in the qemu Linux
 * guest of tests/linux-host against a device attached through vhci-hcd.
 *
 * The program is split by concern: host_check.c (options, the expectation
 * profiles, result reporting, device open/close), host_ch9.c (descriptors and
 * chapter-9 standard requests), host_bot.c (Bulk-Only Transport and SCSI),
 * host_scsi.c (SCSI corners), host_xfer.c (transfers split, abandoned, or
 * cut short by a reset).
 * Every check prints one line: "PASS|FAIL|KNOWN|INFO <id>: <detail>".
 * KNOWN is a failure the selected profile lists as that implementation's
 * known deviation (only the kernel's profile has any); it does not fail the
 * run. Touches only the device it opens.
 */
#ifndef HOST_CHECK_H
#define HOST_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libusb.h>

/* Expected-byte tables: a value 0..255 must match; these match classes. */
#define X_ANY	-1	/* any value */
#define X_EPIN	-2	/* an IN endpoint address (bit 7 set, number 1..15) */
#define X_EPOUT	-3	/* an OUT endpoint address (bit 7 clear, number 1..15) */
#define X_NZ	-4	/* any non-zero value (a string index that must exist) */

#define HC_DEV_LEN	18
#define HC_CFG_LEN	32
#define HC_QUAL_LEN	10

/* How a device answers data after an invalid CBW (BOT 6.6.1 allows both). */
enum hc_bad_cbw_out {
	HC_BAD_CBW_OUT_HALT,	/* bulk-OUT halted (wedged) too */
	HC_BAD_CBW_OUT_DISCARD,	/* bulk-OUT accepts and drops data */
};

/* What one gadget implementation declares and how it behaves. */
struct hc_expect {
	const char *name;
	int16_t dev[HC_DEV_LEN];	/* device descriptor */
	int16_t cfg[HC_CFG_LEN];	/* high-speed configuration, full set */
	int16_t qual[HC_QUAL_LEN];	/* device qualifier */
	uint16_t dev_status;		/* GET_STATUS(device) */
	/* Expected strings (UTF-16 decoded to ASCII), NULL: only well-formed. */
	const char *manufacturer, *product, *serial, *configuration, *interface;
	uint8_t max_lun;		/* default for hc.max_lun */
	const char *inq_vendor;		/* 8 bytes, space padded */
	const char *inq_product;	/* 16 bytes, space padded */
	uint8_t inq_rmb;		/* INQUIRY byte 1 bit 7: removable */
	enum hc_bad_cbw_out bad_cbw_out;
	const char *const *known;	/* NULL-terminated check ids */
};

struct hc {
	libusb_context *ctx;
	libusb_device_handle *h;
	const struct hc_expect *exp;
	uint8_t ifnum;
	uint8_t ep_in, ep_out;		/* from the configuration descriptor */
	uint32_t blocks;		/* expected READ CAPACITY block count */
	int max_lun;			/* expected Get Max LUN answer */
	uint32_t tag;			/* next CBW tag */
	unsigned timeout_ms;
	unsigned n_pass, n_fail, n_known, n_info;
	bool verbose;
};

/* ---- host_check.c: reporting and transfer wrappers ---------------------- */

/* Report one check; returns ok. fmt describes what was seen. */
bool hc_check(struct hc *hc, bool ok, const char *id, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void hc_info(struct hc *hc, const char *id, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Hex dump of n bytes into out (size >= 3 * n + 1), returns out. */
const char *hc_hex(char *out, size_t size, const uint8_t *buf, int n);

/* A control transfer: >= 0 bytes moved, < 0 a libusb error. */
int hc_ctrl(struct hc *hc, uint8_t type, uint8_t req, uint16_t value,
	    uint16_t index, uint8_t *buf, uint16_t len);
/* A bulk transfer; *actual always set. Returns 0 or a libusb error. */
int hc_bulk(struct hc *hc, uint8_t ep, uint8_t *buf, int len, int *actual);
/* GET_STATUS(endpoint): 0/1 halted, < 0 an error. */
int hc_ep_halted(struct hc *hc, uint8_t ep);

/* Compare buf (n bytes) with an expected table; describes mismatches. */
bool hc_match(const int16_t *exp, const uint8_t *buf, int n, char *why,
	      size_t size);

const char *hc_err(int rc);

/* ---- host_ch9.c ---------------------------------------------------------- */

/* Descriptors: device, configuration, qualifier, other speed, strings. */
void hc_ch9_descriptors(struct hc *hc);
/* Standard requests: status, halt, configuration, interface, stalls. */
void hc_ch9_requests(struct hc *hc);

/* ---- host_bot.c ---------------------------------------------------------- */

#define CBW_LEN 31
#define CSW_LEN 13
#define DIR_IN 0x80

#define SC_TEST_UNIT_READY	0x00
#define SC_REQUEST_SENSE	0x03
#define SC_INQUIRY		0x12
#define SC_MODE_SENSE_6		0x1a
#define SC_READ_CAPACITY	0x25
#define SC_READ_10		0x28
#define SC_WRITE_10		0x2a
#define SC_READ_6		0x08
#define SC_WRITE_6		0x0a
#define SC_READ_12		0xa8
#define SC_READ_16		0x88
#define SC_WRITE_16		0x8a
#define SC_SERVICE_ACTION_IN_16	0x9e
#define SC_VERIFY_10		0x2f
#define SC_SYNCHRONIZE_CACHE	0x35
#define SC_READ_FORMAT_CAPACITIES 0x23
#define SC_MODE_SENSE_10	0x5a


struct cbw_spec {
	uint32_t len;		/* dCBWDataTransferLength */
	uint8_t flags;		/* bmCBWFlags */
	uint8_t lun;
	uint8_t cblen;
	uint8_t cb[16];
};

struct bot_res {
	int cbw_rc;
	int data_rc, data_actual;
	bool data_stalled;
	int csw_rc, csw_len;
	bool csw_stalled;
	bool csw_ok;		/* signature, length and tag right */
	uint32_t tag, csw_tag, residue;
	uint8_t status;
	uint8_t csw[512];
};

/* One command: CBW, data (IN into data, OUT from data), CSW; stalls cleared. */
void hc_bot_cmd(struct hc *hc, const struct cbw_spec *c, uint8_t *data, struct bot_res *r);
void hc_build_cbw(uint8_t *cbw, uint32_t tag, const struct cbw_spec *c);
/* What r saw, one line, for the check lines. */
const char *hc_bot_describe(const struct bot_res *r, char *out, size_t size);
/* Bulk-Only Mass Storage Reset, then CLEAR_FEATURE(HALT) on both. */
void hc_reset_recovery(struct hc *hc);
/* REQUEST SENSE on lun: key << 16 | asc << 8 | ascq, or -1. */
long hc_sense(struct hc *hc, uint8_t lun);
struct cbw_spec hc_cmd6(uint8_t op, uint8_t alloc, uint32_t len, uint8_t flags);
struct cbw_spec hc_rw10(uint8_t op, uint32_t lba, uint16_t n, uint32_t len, uint8_t flags);

/* Class requests, valid SCSI commands, the 13 cases, invalid CBWs. */
void hc_bot(struct hc *hc);
/* TEST UNIT READY until ready (a pending unit attention is consumed). */
bool hc_unit_ready(struct hc *hc);

/* ---- host_scsi.c --------------------------------------------------------- */

/* SCSI corners hosts use: 6/12/16-byte CDBs, range overflow, eject. */
void hc_scsi(struct hc *hc);

/* ---- host_xfer.c --------------------------------------------------------- */

/* Transfers split, cut short by a reset, abandoned by the host. */
void hc_xfer(struct hc *hc);

#endif
