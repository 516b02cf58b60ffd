/*
 * fuzz_msf_polled.c - libFuzzer target for the thread-free Mass Storage
 * Function (fsg_config.polled): the resumable worker of bot.c, scsi.c and
 * scsi_rw.c driven by fsg_common_poll(), through the null UDC, with no
 * thread, as firmware runs it (tests/firmware is the scripted scenario).
 *
 * Each input is a script of steps on a fresh device (one LUN on a RAM disk
 * behind a backend the script can make busy: -USB_EAGAIN): bulk OUT
 * packets with CBWs the input shapes or raw bytes, bulk IN completions
 * (whole or cut short), control requests (Bulk-Only reset, GET_MAX_LUN,
 * CLEAR_FEATURE, SET_CONFIGURATION 0/1), bus resets and disconnects, and
 * polls.
 *
 * What must hold, besides ASan/UBSan/LSan: fsg_common_poll() always comes
 * back (a bounded number of calls reaches 0); and the end of every input
 * proves the device alive: Reset Recovery, then TEST UNIT READY gets a
 * valid CSW with its tag.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "composite/composite.h"
#include "composite/mass_storage.h"
#include "composite/null_udc.h"
#include "busy_disk.h"	/* tests/firmware */
#include "fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define BLOCKS 32u
#define POLLS 2000u

static uint8_t disk[BLOCKS * 512u];
static uint32_t ring[FSG_RING_BYTES(2, FSG_BUFLEN_MIN) / sizeof(uint32_t)];
static struct usb_null_udc *udc;
static struct usb_gadget *gadget;
static struct fsg_common *common;
static struct usb_ep *ep_in, *ep_out;
static struct busy_disk rd;
static char can_stall;

/* ---- the gadget --------------------------------------------------------- */

static struct usb_device_descriptor dd = {
	.bLength = USB_DT_DEVICE_SIZE,
	.bDescriptorType = USB_DT_DEVICE,
	.bcdUSB = USB_CPU_TO_LE16(0x0200),
	.idVendor = USB_CPU_TO_LE16(0x0525),
	.idProduct = USB_CPU_TO_LE16(0xa4a5),
};
static struct usb_configuration config = {
	.label = "fuzz", .bConfigurationValue = 1, .MaxPower = 100,
};

static int config_bind(struct usb_configuration *c)
{
	struct fsg_config cfg;
	int rc;

	memset(&cfg, 0, sizeof(cfg));
	cfg.nluns = 1;
	cfg.luns[0].backend = &rd.be;
	cfg.luns[0].removable = true;
	cfg.can_stall = can_stall;
	cfg.fsg_num_buffers = 2;
	cfg.buflen = FSG_BUFLEN_MIN;
	cfg.ring = ring;
	cfg.polled = true;
	rc = fsg_common_create(&common, c->cdev, &cfg);
	return rc ? rc : fsg_add(c->cdev, c, common);
}

static int driver_bind(struct usb_composite_dev *cdev)
{
	return usb_add_config(cdev, &config, config_bind);
}

static struct usb_composite_driver driver = {
	.name = "fuzz_msf_polled", .dev = &dd, .max_speed = USB_SPEED_HIGH,
	.udc_name = "null.fuzz", .bind = driver_bind,
};

/* ---- the host ----------------------------------------------------------- */

/* The main loop: it must reach "waiting" within a bounded number of calls. */
static void pump(void)
{
	unsigned i;

	for (i = 0; i < POLLS && fsg_common_poll(common) > 0; i++)
		;
	CHECK(i < POLLS);
}

static int control(uint8_t type, uint8_t req, uint16_t value, uint16_t index,
		   uint8_t *buf, uint16_t length)
{
	struct usb_ctrlrequest s = {
		.bRequestType = type, .bRequest = req, .wValue = USB_CPU_TO_LE16(value),
		.wIndex = USB_CPU_TO_LE16(index), .wLength = USB_CPU_TO_LE16(length),
	};
	struct usb_request *r;
	unsigned n = 0;

	if (usb_null_udc_setup(udc, &s) < 0)
		return -1;
	pump();
	r = usb_null_udc_head(udc, gadget->ep0);
	if (!r || usb_null_udc_ep0_stalled(udc))
		return -1;
	if (type & USB_DIR_IN) {
		n = r->length < length ? r->length : length;
		memcpy(buf, r->buf, n);
	}
	(void)usb_null_udc_complete(udc, gadget->ep0, n, 0);
	pump();
	return (int)n;
}

static void configure(uint8_t value)
{
	(void)control(0, USB_REQ_SET_CONFIGURATION, value, 0, NULL, 0);
}

/* A bus reset: the host addresses the device again (configuring needs it). */
static void bus_reset(void)
{
	(void)usb_null_udc_event(udc, USB_GADGET_EVENT_RESET, USB_SPEED_HIGH);
	pump();
	(void)control(0, USB_REQ_SET_ADDRESS, 9, 0, NULL, 0);
}

/* Deliver @len bytes to the queued OUT request, if any. */
static void out_packet(const uint8_t *buf, uint32_t len)
{
	struct usb_request *r = usb_null_udc_head(udc, ep_out);

	if (!r || usb_ep_is_halted(ep_out))
		return;
	if (len > r->length)
		len = r->length;
	memcpy(r->buf, buf, len);
	(void)usb_null_udc_complete(udc, ep_out, len, 0);
	pump();
}

static void make_cbw(uint8_t *cbw, uint32_t tag, uint32_t len, uint8_t flags, uint8_t lun,
		     uint8_t cblen, const uint8_t *cdb)
{
	memset(cbw, 0, 31);
	cbw[0] = 'U'; cbw[1] = 'S'; cbw[2] = 'B'; cbw[3] = 'C';
	for (unsigned i = 0; i < 4; i++) {
		cbw[4 + i] = (uint8_t)(tag >> (8 * i));
		cbw[8 + i] = (uint8_t)(len >> (8 * i));
	}
	cbw[12] = flags;
	cbw[13] = lun;
	cbw[14] = cblen;
	memcpy(cbw + 15, cdb, 16);
}

static void reset_recovery(void)
{
	(void)control(USB_DIR_OUT | USB_TYPE_CLASS | USB_RECIP_INTERFACE, 0xff, 0, 0, NULL, 0);
	(void)control(USB_RECIP_ENDPOINT, USB_REQ_CLEAR_FEATURE, USB_ENDPOINT_HALT,
		      ep_in->address, NULL, 0);
	(void)control(USB_RECIP_ENDPOINT, USB_REQ_CLEAR_FEATURE, USB_ENDPOINT_HALT,
		      ep_out->address, NULL, 0);
}

/* The device must still answer: TEST UNIT READY gets its CSW. */
static void prove_alive(void)
{
	static const uint8_t tur[16];
	uint8_t cbw[31];
	struct usb_request *r;
	const uint8_t *csw;

	rd.busy = 0;
	configure(1);
	reset_recovery();
	make_cbw(cbw, 0x5eed, 0, 0, 0, 6, tur);
	CHECK(usb_null_udc_head(udc, ep_out) != NULL);
	out_packet(cbw, 31);
	r = usb_null_udc_head(udc, ep_in);
	CHECK(r && !usb_ep_is_halted(ep_in) && r->length == 13);
	csw = r->buf;
	CHECK(memcmp(csw, "USBS", 4) == 0 && csw[4] == 0xed && csw[5] == 0x5e && csw[12] <= 1);
	(void)usb_null_udc_complete(udc, ep_in, 13, 0);
	pump();
}

static void step(struct input *in)
{
	uint8_t op = in_u8(in), b[64], cbw[31], cdb[16];
	struct usb_request *r;

	switch (op % 9) {
	case 0: {	/* a CBW shaped by the input */
		uint8_t flags = in_u8(in), lun = in_u8(in) & 0x1f, cblen = in_u8(in) & 0x1f;
		uint32_t len = in_le(in, 2);

		in_fill(in, cdb, sizeof(cdb));
		make_cbw(cbw, in_le(in, 1), len, flags & 0x81 ? flags & 0x80 : flags, lun,
			 cblen, cdb);
		out_packet(cbw, (flags & 0x40) ? in_u8(in) % 32 : 31);
		break;
	}
	case 1: {	/* raw OUT bytes (data phases, garbage) */
		uint32_t len = in_le(in, 2) % 5000u;
		static uint8_t raw[5000];

		in_fill(in, raw, len < 64 ? len : 64);
		memset(raw + 64, in_u8(in), sizeof(raw) - 64);
		out_packet(raw, len);
		break;
	}
	case 2:		/* an IN completion, whole or short */
		r = usb_null_udc_head(udc, ep_in);
		if (r && !usb_ep_is_halted(ep_in)) {
			uint8_t cut = in_u8(in);

			(void)usb_null_udc_complete(udc, ep_in, cut & 1 ? cut : r->length, 0);
			pump();
		}
		break;
	case 3:
		reset_recovery();
		break;
	case 4:
		(void)control(USB_DIR_IN | USB_TYPE_CLASS | USB_RECIP_INTERFACE, 0xfe,
			      in_u8(in) & 1, 0, b, 1);
		(void)control(USB_RECIP_ENDPOINT, USB_REQ_CLEAR_FEATURE, USB_ENDPOINT_HALT,
			      in_u8(in) & 1 ? ep_in->address : ep_out->address, NULL, 0);
		break;
	case 5:
		configure(in_u8(in) & 1);
		break;
	case 6:		/* bus reset or disconnect, then the host starts over */
		(void)usb_null_udc_event(udc, in_u8(in) & 1 ? USB_GADGET_EVENT_DISCONNECT :
				       USB_GADGET_EVENT_RESET, USB_SPEED_HIGH);
		pump();
		bus_reset();
		configure(1);
		break;
	case 7:		/* the medium gets busy for a while */
		rd.busy = in_u8(in) % 16u;
		break;
	default:
		pump();
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct usb_null_udc_config uc = { .name = "null.fuzz", .max_speed = USB_SPEED_HIGH,
					  .num_pairs = 2 };
	struct input in = { data, size };
	unsigned steps = 0;

	can_stall = (char)(in_u8(&in) & 1);
	busy_disk_init(&rd, disk, sizeof(disk));
	common = NULL;
	CHECK(usb_null_udc_create(&uc, &udc) == 0);
	gadget = usb_null_udc_gadget(udc);
	CHECK(usb_composite_probe(&driver) == 0 && common);
	CHECK(usb_null_udc_event(udc, USB_GADGET_EVENT_RESET, USB_SPEED_HIGH) == 0);
	CHECK(control(0, USB_REQ_SET_ADDRESS, 9, 0, NULL, 0) == 0);
	configure(1);
	ep_in = usb_gadget_find_ep(gadget, 0x81);
	ep_out = usb_gadget_find_ep(gadget, 0x01);
	CHECK(ep_in && ep_out);
	while (in.left && steps++ < 64)
		step(&in);
	prove_alive();
	usb_composite_unregister(&driver);
	fsg_common_put(common);
	usb_null_udc_destroy(udc);
	return 0;
}
