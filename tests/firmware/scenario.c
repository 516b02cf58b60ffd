/*
 * scenario.c - see scenario.h. The simulated host plays the controller's
 * interrupt through the null UDC's entry points (usb_null_udc_setup(),
 * _event(), _complete()) and the firmware's main loop through
 * fsg_common_poll(). It checks enumeration, Bulk-Only Transport (CBW,
 * data, CSW; short replies with stalls, phase errors, an invalid CBW and
 * Reset Recovery), READ/WRITE with the data compared on both sides, a bus
 * reset and reconfiguration, and unregistering. Portable C11, no stdio.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "composite/composite.h"
#include "composite/mass_storage.h"
#include "composite/null_udc.h"
#include "busy_disk.h"
#include "scenario.h"

#define BLOCKS 64u
#define BS 512u
#define POLLS 1000u		/* far above what any step needs */

static uint8_t disk[BLOCKS * BS];
/* The MSF's buffer ring: static, two buffers of the smallest size (one
 * high-speed packet): every READ/WRITE longer than 512 bytes goes
 * through it in pieces. */
#define RING_BUFLEN FSG_BUFLEN_MIN
static uint32_t ring[FSG_RING_BYTES(2, RING_BUFLEN) / sizeof(uint32_t)];
static uint8_t data[8 * BS];
static void (*say)(const char *line);

static struct usb_null_udc *udc;
static struct usb_gadget *gadget;
static struct fsg_common *common;
static struct usb_ep *ep_in, *ep_out;
static uint8_t ep_in_addr, ep_out_addr, intf;
static uint16_t maxpacket;
static uint32_t tag;

/* ---- reporting ------------------------------------------------------------ */

void fw_say_num(const char *what, unsigned long v)
{
	char line[64], digits[12];
	size_t n = strlen(what), k = 0;

	if (n > sizeof(line) - sizeof(digits) - 1)
		n = sizeof(line) - sizeof(digits) - 1;
	memcpy(line, what, n);
	do {
		digits[k++] = (char)('0' + v % 10u);
		v /= 10u;
	} while (v);
	while (k)
		line[n++] = digits[--k];
	line[n] = '\0';
	say(line);
}

#define CHECK(cond)                                             \
	do {                                                    \
		if (!(cond)) {                                  \
			fw_say_num("FAILED: check at scenario.c:", __LINE__); \
			return __LINE__;                        \
		}                                               \
	} while (0)
#define RUN(step)                  \
	do {                           \
		int rc_ = (step);      \
		if (rc_)               \
			return rc_;    \
	} while (0)

/* ---- the main loop and the controller ------------------------------------- */

/* The firmware's main loop: poll until the MSF waits. */
static int pump(void)
{
	for (unsigned i = 0; i < POLLS; i++) {
		int rc = common ? fsg_common_poll(common) : 0;

		if (rc <= 0)
			return rc;
	}
	return -1;
}

/* The oldest request on @ep, running the main loop until there is one
 * (it polls again while the medium is busy, as a main loop would). */
static struct usb_request *head(struct usb_ep *ep)
{
	struct usb_request *r = usb_null_udc_head(udc, ep);

	for (unsigned i = 0; !r && i < POLLS; i++) {
		if (pump() < 0)
			return NULL;
		r = usb_null_udc_head(udc, ep);
	}
	return r;
}

/* ---- a slow medium: the RAM disk behind a backend that can be busy ------- */

static struct busy_disk slow;


/* A control transfer: length moved, or -1 for a stall. */
static int control(uint8_t type, uint8_t req, uint16_t value, uint16_t index,
		   void *buf, uint16_t length)
{
	struct usb_ctrlrequest s = {
		.bRequestType = type,
		.bRequest = req,
		.wValue = USB_CPU_TO_LE16(value),
		.wIndex = USB_CPU_TO_LE16(index),
		.wLength = USB_CPU_TO_LE16(length),
	};
	struct usb_request *r;
	unsigned n = 0;

	if (usb_null_udc_setup(udc, &s) < 0 || usb_null_udc_ep0_stalled(udc))
		return -1;
	r = head(gadget->ep0);	/* a delayed status comes from the poll */
	if (!r || usb_null_udc_ep0_stalled(udc))
		return -1;
	if (type & USB_DIR_IN) {
		n = r->length < length ? r->length : length;
		memcpy(buf, r->buf, n);
	} else if (length) {
		n = r->length < length ? r->length : length;
		memcpy(r->buf, buf, n);
	}
	if (usb_null_udc_complete(udc, gadget->ep0, n, 0))
		return -1;
	(void)pump();
	return (int)n;
}

static int clear_halt(uint8_t addr)
{
	return control(USB_RECIP_ENDPOINT, USB_REQ_CLEAR_FEATURE, USB_ENDPOINT_HALT,
		       addr, NULL, 0);
}

/* Bulk OUT: send @len bytes; the bytes taken, or -1 for a stall. */
static int bulk_out(const uint8_t *buf, uint32_t len)
{
	uint32_t sent = 0;

	do {
		struct usb_request *r;
		uint32_t n;

		if (usb_ep_is_halted(ep_out))
			return -1;
		r = head(ep_out);
		if (usb_ep_is_halted(ep_out))
			return -1;
		if (!r)
			return sent ? (int)sent : -2;
		n = len - sent < r->length ? len - sent : r->length;
		memcpy(r->buf, buf + sent, n);
		sent += n;
		if (usb_null_udc_complete(udc, ep_out, n, 0))
			return -2;
	} while (sent < len);
	(void)pump();
	return (int)sent;
}

/* Bulk IN up to @len bytes: the bytes read, -1 for a stall before any. */
static int bulk_in(uint8_t *buf, uint32_t len)
{
	uint32_t got = 0;

	for (;;) {
		struct usb_request *r;
		uint32_t n;

		if (usb_ep_is_halted(ep_in))
			return got ? (int)got : -1;
		r = head(ep_in);
		if (usb_ep_is_halted(ep_in))
			return got ? (int)got : -1;
		if (!r)
			return -2;
		n = r->length < len - got ? r->length : len - got;
		memcpy(buf + got, r->buf, n);
		got += n;
		if (usb_null_udc_complete(udc, ep_in, r->length, 0))
			return -2;
		/* A short packet or the whole length ends the transfer. */
		if (got == len || n % maxpacket || n == 0)
			break;
	}
	(void)pump();
	return (int)got;
}

/* ---- Bulk-Only Transport ---------------------------------------------------- */

static void put_le32(uint8_t *p, uint32_t v)
{
	for (unsigned i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static int send_cbw(const uint8_t *cdb, uint8_t cblen, bool in, uint32_t len, uint32_t cbw_len)
{
	uint8_t cbw[32] = { 0 };

	put_le32(cbw, 0x43425355u);
	put_le32(cbw + 4, ++tag);
	put_le32(cbw + 8, len);
	cbw[12] = in ? 0x80 : 0;
	cbw[14] = cblen;
	memcpy(cbw + 15, cdb, cblen);
	return bulk_out(cbw, cbw_len);
}

/* Read the CSW, clearing a bulk-IN stall first (BOT 5.3.3). */
static int read_csw(uint8_t *status, uint32_t *residue)
{
	uint8_t csw[13];
	int n = bulk_in(csw, 13);

	if (n == -1) {
		if (clear_halt(ep_in_addr) < 0)
			return -1;
		n = bulk_in(csw, 13);
	}
	if (n != 13 || get_le32(csw) != 0x53425355u || get_le32(csw + 4) != tag)
		return -1;
	*status = csw[12];
	*residue = get_le32(csw + 8);
	return 0;
}

/* One command: CBW, data (@in: up to @len into @buf; else @len of @buf),
 * CSW. *@xfer: bytes moved or -1 (stalled). Return the CSW status or -1. */
static int command(const uint8_t *cdb, uint8_t cblen, bool in, uint8_t *buf,
		   uint32_t len, int *xfer, uint32_t *residue)
{
	uint8_t status;
	uint32_t res;
	int n = 0;

	if (send_cbw(cdb, cblen, in, len, 31) != 31)
		return -1;
	if (len)
		n = in ? bulk_in(buf, len) : bulk_out(buf, len);
	if (n == -1 && !in && clear_halt(ep_out_addr) < 0)
		return -1;
	if (xfer)
		*xfer = n;
	if (read_csw(&status, &res))
		return -1;
	if (residue)
		*residue = res;
	return status;
}

static uint32_t sense(void)
{
	static const uint8_t rs[6] = { 0x03, 0, 0, 0, 18, 0 };
	uint8_t b[18];

	if (command(rs, 6, true, b, 18, NULL, NULL) != 0)
		return 0xffffffffu;
	return (uint32_t)(b[2] & 0x0f) << 16 | (uint32_t)b[12] << 8 | b[13];
}

static int reset_recovery(void)
{
	if (control(USB_DIR_OUT | USB_TYPE_CLASS | USB_RECIP_INTERFACE, 0xff, 0, intf,
		    NULL, 0) < 0)
		return -1;
	if (clear_halt(ep_in_addr) < 0 || clear_halt(ep_out_addr) < 0)
		return -1;
	return 0;
}

static void rw10(uint8_t *cdb, uint8_t op, uint32_t lba, uint16_t blocks)
{
	memset(cdb, 0, 10);
	cdb[0] = op;
	cdb[2] = (uint8_t)(lba >> 24);
	cdb[3] = (uint8_t)(lba >> 16);
	cdb[4] = (uint8_t)(lba >> 8);
	cdb[5] = (uint8_t)lba;
	cdb[7] = (uint8_t)(blocks >> 8);
	cdb[8] = (uint8_t)blocks;
}

static uint8_t pattern(uint32_t off, uint8_t seed)
{
	return (uint8_t)(off * 7u + (off >> 9) * 13u + seed);
}

/* ---- the gadget --------------------------------------------------------- */

static struct usb_device_descriptor dd = {
	.bLength = USB_DT_DEVICE_SIZE,
	.bDescriptorType = USB_DT_DEVICE,
	.bcdUSB = USB_CPU_TO_LE16(0x0200),
	.idVendor = USB_CPU_TO_LE16(0x0525),
	.idProduct = USB_CPU_TO_LE16(0xa4a5),
};
static struct usb_configuration config = {
	.label = "mass storage",
	.bConfigurationValue = 1,
	.MaxPower = 100,
};

static int config_bind(struct usb_configuration *c)
{
	struct fsg_config cfg;
	int rc;

	memset(&cfg, 0, sizeof(cfg));
	cfg.nluns = 1;
	cfg.luns[0].backend = &slow.be;	/* static: no release */
	cfg.luns[0].removable = true;
	cfg.can_stall = 1;
	cfg.fsg_num_buffers = 2;
	cfg.buflen = RING_BUFLEN;
	cfg.ring = ring;
	cfg.polled = true;
	rc = fsg_common_create(&common, c->cdev, &cfg);
	if (rc)
		return rc;
	return fsg_add(c->cdev, c, common);
}

static struct usb_composite_dev *dev_cdev;

static int driver_bind(struct usb_composite_dev *cdev)
{
	dev_cdev = cdev;
	return usb_add_config(cdev, &config, config_bind);
}

static struct usb_composite_driver driver = {
	.name = "g_fw_mass_storage",
	.dev = &dd,
	.max_speed = USB_SPEED_HIGH,
	.udc_name = "null.0",
	.bind = driver_bind,
};

/* ---- steps ---------------------------------------------------------------- */

#ifdef FW_PROFILE_MINIMAL
/* Built without SuperSpeed: a device that could come up at SuperSpeed is
 * refused at probe (it would have no descriptors for it), before bind;
 * the same UDC with a high-speed driver is taken. */
static int no_superspeed(void)
{
	struct usb_null_udc_config c = { .name = "null.ss", .max_speed = USB_SPEED_SUPER,
					 .num_pairs = 1 };
	struct usb_composite_driver d = driver;
	struct usb_null_udc *ss;

	d.udc_name = "null.ss";
	d.max_speed = USB_SPEED_SUPER;
	CHECK(usb_null_udc_create(&c, &ss) == 0);
	CHECK(usb_composite_probe(&d) == -USB_EOPNOTSUPP);
	CHECK(common == NULL);	/* bind never ran */
	usb_null_udc_destroy(ss);
	return 0;
}
#endif

/* A bcdUSB 2.00 device has no BOS; at 2.01 it is the USB 2.0 extension
 * alone (no LPM; no SuperSpeed, no platform capability here): the same
 * 12 bytes from the minimal profile's table and the full one's builder. */
static int bos(void)
{
	static const uint8_t want[12] = { 5, USB_DT_BOS, 12, 0, 1,
					  7, USB_DT_DEVICE_CAPABILITY, USB_CAP_TYPE_EXT, 0, 0, 0, 0 };
	uint8_t b[32];
	int n;

	CHECK(control(USB_DIR_IN, USB_REQ_GET_DESCRIPTOR, USB_DT_BOS << 8, 0, b, sizeof(b)) < 0);
	dev_cdev->desc.bcdUSB = USB_CPU_TO_LE16(0x0201);
	n = control(USB_DIR_IN, USB_REQ_GET_DESCRIPTOR, USB_DT_BOS << 8, 0, b, sizeof(b));
	dev_cdev->desc.bcdUSB = USB_CPU_TO_LE16(0x0200);
	CHECK(n == (int)sizeof(want) && memcmp(b, want, sizeof(want)) == 0);
	return 0;
}

static int enumerate(void)
{
	uint8_t b[128];
	int n;

	CHECK(usb_null_udc_event(udc, USB_GADGET_EVENT_RESET, USB_SPEED_HIGH) == 0);
	CHECK(control(USB_DIR_IN, USB_REQ_GET_DESCRIPTOR, USB_DT_DEVICE << 8, 0, b, 64) == 18);
	CHECK(b[1] == USB_DT_DEVICE && b[8] == 0x25 && b[9] == 0x05);
	CHECK(control(0, USB_REQ_SET_ADDRESS, 7, 0, NULL, 0) == 0);
	RUN(bos());
	n = control(USB_DIR_IN, USB_REQ_GET_DESCRIPTOR, USB_DT_CONFIG << 8, 0, b, sizeof(b));
	CHECK(n == 9 + 9 + 7 + 7);
	for (int off = 0; off + 2 <= n && b[off] >= 2; off += b[off]) {
		if (b[off + 1] == USB_DT_INTERFACE) {
			CHECK(b[off + 5] == 0x08 && b[off + 6] == 0x06 && b[off + 7] == 0x50);
			intf = b[off + 2];
		} else if (b[off + 1] == USB_DT_ENDPOINT) {
			if (b[off + 2] & USB_DIR_IN)
				ep_in_addr = b[off + 2];
			else
				ep_out_addr = b[off + 2];
			maxpacket = (uint16_t)(b[off + 4] | b[off + 5] << 8);
		}
	}
	CHECK(maxpacket == 512 && ep_in_addr && ep_out_addr);
	ep_in = usb_gadget_find_ep(gadget, ep_in_addr);
	ep_out = usb_gadget_find_ep(gadget, ep_out_addr);
	CHECK(ep_in && ep_out);
	return 0;
}

static int configure(void)
{
	uint8_t v = 0xff;

	/* Delayed status: the poll finishes it (the control() helper polls). */
	CHECK(control(0, USB_REQ_SET_CONFIGURATION, 1, 0, NULL, 0) == 0);
	CHECK(control(USB_DIR_IN, USB_REQ_GET_CONFIGURATION, 0, 0, &v, 1) == 1 && v == 1);
	CHECK(control(USB_DIR_IN | USB_TYPE_CLASS | USB_RECIP_INTERFACE, 0xfe, 0, intf,
		      &v, 1) == 1 && v == 0);
	return 0;
}

static int identify(void)
{
	static const uint8_t tur[6] = { 0 };
	static const uint8_t inq[6] = { 0x12, 0, 0, 0, 36, 0 };
	static const uint8_t vpd80[6] = { 0x12, 0x01, 0x80, 0, 64, 0 };
	static const uint8_t cap[10] = { 0x25 };
	uint8_t b[64];
	int x;

	/* Power-on: UNIT ATTENTION, POWER ON / RESET, then ready. */
	CHECK(command(tur, 6, false, NULL, 0, NULL, NULL) == 1);
	CHECK(sense() == 0x062900);
	CHECK(command(tur, 6, false, NULL, 0, NULL, NULL) == 0);
	CHECK(command(inq, 6, true, b, 36, &x, NULL) == 0 && x == 36);
	CHECK(b[0] == 0x00 && b[1] == 0x80 && memcmp(b + 8, "Linux   ", 8) == 0);
	/* VPD 80: 12 hex digits and the LUN (newlib-nano's printf gave "lX"). */
	CHECK(command(vpd80, 6, true, b, 64, &x, NULL) == 0 && x == 4 + 14);
	CHECK(b[1] == 0x80 && b[3] == 14);
	for (unsigned i = 4; i < 16; i++)
		CHECK((b[i] >= '0' && b[i] <= '9') || (b[i] >= 'A' && b[i] <= 'F'));
	CHECK(b[16] == '0' && b[17] == '0');
	CHECK(command(cap, 10, true, b, 8, &x, NULL) == 0 && x == 8);
	CHECK(get_le32(b) == 0x3f000000u && b[6] == 0x02 && b[7] == 0);	/* 63, 512 */
	return 0;
}

/* The commands the minimal profile leaves out (FW_PROFILE_MINIMAL, set
 * by tests/firmware/CMakeLists.txt): refused there as unknown codes,
 * answered in the full profile. */
static int profile_commands(void)
{
	static const uint8_t cap16[16] = { 0x9e, 0x10, [13] = 32 };
	static const uint8_t read16[16] = { 0x88, [13] = 1 };
	static const uint8_t msel6[6] = { 0x15, 0x10, 0, 0, 0, 0 };
	uint8_t b[32];
	int x;

#ifdef FW_PROFILE_MINIMAL
	CHECK(command(cap16, 16, true, b, 32, &x, NULL) == 1);
	CHECK(sense() == 0x052000);
	CHECK(command(read16, 16, true, b, 0, NULL, NULL) == 1);
	CHECK(sense() == 0x052000);
	CHECK(command(msel6, 6, false, NULL, 0, NULL, NULL) == 1);
	CHECK(sense() == 0x052000);
#else
	CHECK(command(cap16, 16, true, b, 32, &x, NULL) == 0 && x == 32);
	CHECK(get_le32(b + 4) == 0x3f000000u && b[10] == 0x02);	/* 63, 512 */
	CHECK(command(read16, 16, true, data, BS, &x, NULL) == 0 && x == (int)BS);
	CHECK(command(msel6, 6, false, NULL, 0, NULL, NULL) == 0);	/* empty list */
#endif
	return 0;
}

static int read_write(uint8_t seed)
{
	uint8_t cdb[10];
	uint32_t res = 1;
	int x;

	for (uint32_t i = 0; i < sizeof(data); i++)
		data[i] = pattern(i, seed);
	/* WRITE(10) 8 blocks at LBA 4: 8 pieces through a ring of 2 x 512. */
	rw10(cdb, 0x2a, 4, 8);
	CHECK(command(cdb, 10, false, data, sizeof(data), &x, &res) == 0);
	CHECK(x == (int)sizeof(data) && res == 0);
	CHECK(memcmp(disk + 4 * BS, data, sizeof(data)) == 0);
	/* READ(10) it back. */
	memset(data, 0, sizeof(data));
	rw10(cdb, 0x28, 4, 8);
	CHECK(command(cdb, 10, true, data, sizeof(data), &x, &res) == 0);
	CHECK(x == (int)sizeof(data) && res == 0);
	for (uint32_t i = 0; i < sizeof(data); i++)
		CHECK(data[i] == pattern(i, seed));
	/* The data went through the caller's ring (fsg_config.ring): one of
	 * its two buffers still holds the last piece (the CSW went into the
	 * other). */
	CHECK(sizeof(data) == 8 * RING_BUFLEN);
	CHECK(memcmp(ring, data + 7 * RING_BUFLEN, RING_BUFLEN) == 0 ||
	      memcmp((uint8_t *)ring + RING_BUFLEN, data + 7 * RING_BUFLEN, RING_BUFLEN) == 0);
	/* Out of range: CHECK CONDITION, LBA OUT OF RANGE. */
	rw10(cdb, 0x28, BLOCKS, 1);
	CHECK(command(cdb, 10, true, data, BS, &x, NULL) == 1);
	CHECK(sense() == 0x052100);
	return 0;
}

static int bot_cases(void)
{
	static const uint8_t inq[6] = { 0x12, 0, 0, 0, 36, 0 };
	static const uint8_t tur[6] = { 0 };
	uint8_t cdb[10], b[64];
	uint32_t res = 0;
	int x;

	/* Case 5 (Hi > Di): 36 bytes of 64, bulk-IN stalled, residue 28. */
	CHECK(command(inq, 6, true, b, 64, &x, &res) == 0);
	CHECK(x == 36 && res == 28);
	/* Case 4 (Hi > Dn): READ of 0 blocks with 64 bytes wanted: a
	 * zero-length packet, the stall, residue 64. */
	rw10(cdb, 0x28, 0, 0);
	CHECK(command(cdb, 10, true, b, 64, &x, &res) == 0);
	CHECK(x == 0 && res == 64);
	/* Case 9 (Ho > Do): a WRITE of 1 block with 2 sent: extra dropped. */
	rw10(cdb, 0x2a, 40, 1);
	CHECK(command(cdb, 10, false, data, 2 * BS, &x, &res) == 0);
	CHECK(res == BS);
	/* Case 7 (Hi < Di): READ of 2 blocks with 1 block's length: phase
	 * error, then Reset Recovery as BOT 5.3.4 says. */
	rw10(cdb, 0x28, 0, 2);
	CHECK(command(cdb, 10, true, data, BS, &x, &res) == 2);
	CHECK(reset_recovery() == 0);
	CHECK(command(tur, 6, false, NULL, 0, NULL, NULL) == 0);
	/* An invalid CBW (30 bytes): both endpoints wedged until Reset
	 * Recovery; CLEAR_FEATURE alone does not end it. */
	CHECK(send_cbw(tur, 6, false, 0, 30) == 30);
	(void)pump();
	CHECK(usb_ep_is_halted(ep_in) && usb_ep_is_halted(ep_out));
	CHECK(clear_halt(ep_in_addr) == 0);
	CHECK(usb_ep_is_halted(ep_in));
	CHECK(reset_recovery() == 0);
	CHECK(!usb_ep_is_halted(ep_in) && !usb_ep_is_halted(ep_out));
	CHECK(command(tur, 6, false, NULL, 0, NULL, NULL) == 0);
	return 0;
}

/* A medium that answers -USB_EAGAIN: commands go on at later polls, and
 * EP0 is served while one waits for the medium. */
static int slow_medium(void)
{
	uint8_t cdb[10], b[2] = { 0xff, 0xff }, status = 0xff;
	uint32_t res = 1;
	int x;

	for (uint32_t i = 0; i < BS; i++)
		data[i] = pattern(i, 3);
	slow.stuck = true;
	slow.busy_answers = 0;
	rw10(cdb, 0x2a, 20, 1);
	CHECK(send_cbw(cdb, 10, false, BS, 31) == 31);
	CHECK(bulk_out(data, BS) == (int)BS);
	CHECK(fsg_common_poll(common) == 0 && slow.busy_answers > 0);
	/* The command waits for the medium; a control transfer does not. */
	CHECK(control(USB_DIR_IN, USB_REQ_GET_STATUS, 0, 0, b, 2) == 2);
	CHECK(b[1] == 0 && usb_null_udc_queued(udc, ep_in) == 0);
	slow.stuck = false;
	CHECK(read_csw(&status, &res) == 0 && status == 0 && res == 0);
	CHECK(memcmp(disk + 20 * BS, data, BS) == 0);
	/* Every read and write busy three times: the data still match. */
	slow.busy_per_call = slow.busy = 3;
	slow.busy_answers = 0;
	memset(data, 0, sizeof(data));
	rw10(cdb, 0x28, 4, 8);
	CHECK(command(cdb, 10, true, data, sizeof(data), &x, NULL) == 0 && x == (int)sizeof(data));
	for (uint32_t i = 0; i < sizeof(data); i++)
		CHECK(data[i] == pattern(i, 1));
	/* 8 buffer-sized reads, each busy three times. */
	CHECK(slow.busy_answers == 3 * sizeof(data) / RING_BUFLEN);
	slow.busy_per_call = slow.busy = 0;
	return 0;
}

static int reset_and_reconfigure(void)
{
	static const uint8_t tur[6] = { 0 };
	uint8_t cdb[10];
	int x;

	/* A bus reset: the configuration is gone; the host starts over. */
	CHECK(usb_null_udc_event(udc, USB_GADGET_EVENT_RESET, USB_SPEED_HIGH) == 0);
	(void)pump();
	CHECK(control(0, USB_REQ_SET_ADDRESS, 8, 0, NULL, 0) == 0);
	RUN(configure());
	CHECK(command(tur, 6, false, NULL, 0, NULL, NULL) == 1);
	CHECK(sense() == 0x062900);
	/* The medium kept what was written before the reset. */
	rw10(cdb, 0x28, 4, 8);
	CHECK(command(cdb, 10, true, data, sizeof(data), &x, NULL) == 0 && x == (int)sizeof(data));
	for (uint32_t i = 0; i < sizeof(data); i++)
		CHECK(data[i] == pattern(i, 1));
	/* Unconfigure and configure again. */
	CHECK(control(0, USB_REQ_SET_CONFIGURATION, 0, 0, NULL, 0) == 0);
	RUN(configure());
	CHECK(command(tur, 6, false, NULL, 0, NULL, NULL) == 1);
	CHECK(sense() == 0x062900);
	return read_write(2);
}

int fw_scenario_run(void (*say_line)(const char *line), unsigned long (*allocs)(void))
{
	unsigned long bound = 0;

	struct usb_null_udc_config uc = { .name = "null.0", .max_speed = USB_SPEED_HIGH,
					  .num_pairs = 2 };

	say = say_line;
	tag = 0;
	common = NULL;
	busy_disk_init(&slow, disk, sizeof(disk));
#ifdef FW_PROFILE_MINIMAL
	RUN(no_superspeed());
#endif
	CHECK(usb_null_udc_create(&uc, &udc) == 0);
	gadget = usb_null_udc_gadget(udc);
	CHECK(usb_composite_probe(&driver) == 0);
	CHECK(common != NULL);
	if (allocs)
		bound = allocs();
	RUN(enumerate());
	say("enumerated");
	RUN(configure());
	RUN(identify());
	say("configured, identified");
	RUN(profile_commands());
#ifdef FW_PROFILE_MINIMAL
	say("minimal profile: READ CAPACITY(16), READ(16), MODE SELECT refused");
#else
	say("full profile: READ CAPACITY(16), READ(16), MODE SELECT answered");
#endif
	RUN(read_write(1));
	say("READ/WRITE checked");
	RUN(bot_cases());
	say("BOT cases checked");
	RUN(slow_medium());
	say("busy medium checked (EP0 served meanwhile)");
	RUN(reset_and_reconfigure());
	say("reset and reconfiguration checked");
	if (allocs) {
		CHECK(allocs() == bound);
		fw_say_num("heap allocations after bind: ", allocs() - bound);
	}
	usb_composite_unregister(&driver);
	CHECK(fsg_common_poll(common) == 0);	/* unbound: nothing to do */
	fsg_common_put(common);
	common = NULL;
	usb_null_udc_destroy(udc);
	say("unregistered");
	return 0;
}
