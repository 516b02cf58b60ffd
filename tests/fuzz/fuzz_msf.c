/*
 * fuzz_msf.c - libFuzzer target for the Mass Storage Function as a hostile
 * or broken host meets it: Bulk-Only Transport, the SCSI commands and the
 * worker's exceptions, through the in-process host (src/udc/inproc).
 *
 * Each input runs on a fresh device: four LUNs (read-write memory, a
 * removable CD-ROM, a removable LUN with no medium, and a medium whose
 * reads, writes and flushes fail part of the time), enumerated at the
 * speed the input picks, with the ring and can_stall it picks. The rest of the input is a script of steps (see
 * run_step()): BOT commands with fuzzed CBWs, CDBs and data phases,
 * cut-off data phases, raw bulk traffic, class and standard requests, bus
 * resets and media changes.
 *
 * What must hold, besides ASan/UBSan/LSan:
 * - While the host keeps to the protocol, the device always answers: a
 *   data phase or CSW wait that times out is a hang (trap).
 * - A CSW for a valid CBW is 13 bytes with the signature and the CBW's
 *   tag, status 0..2, and a residue no larger than the CBW's length
 *   (status 0 and 1).
 * - Reset Recovery always works, and the end of every input proves it:
 *   Reset Recovery, then TEST UNIT READY gets a valid CSW.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "composite/composite.h"
#include "composite/inproc_host.h"
#include "composite/mass_storage.h"
#include "functions/msf/msf_internal.h"	/* msf__get_be16/32 */
#include "fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Waits a spec-abiding device always answers well within (a hang if not). */
#define HANG_MS 5000u
/* Waits after the script left the protocol: no answer is allowed. */
#define SHORT_MS 20u
#define MAX_XFER (160u * 1024u)	/* data phases are cut to this */
#define NLUNS 4u
#define CBW_SIGNATURE 0x43425355u	/* "USBC" */
#define CSW_SIGNATURE 0x53425355u	/* "USBS" */

/* ---- a medium that fails part of the time ------------------------------ */

#define FAIL_BS 4096u
#define FAIL_BLOCKS 64u

struct failing {
	struct fsg_backend be;
	uint8_t mem[FAIL_BS * FAIL_BLOCKS];
	unsigned flushes;
};

/* Reads fail from block 40 on; a read across block 32 stops short there. */
static int failing_read(struct fsg_backend *be, uint64_t off, void *buf, uint32_t len)
{
	struct failing *f = be->priv;

	if (off >= 40u * FAIL_BS)
		return -USB_EIO;
	if (off < 32u * FAIL_BS && off + len > 32u * FAIL_BS)
		len = (uint32_t)(32u * FAIL_BS - off);
	memcpy(buf, f->mem + off, len);
	return (int)len;
}

/* Writes into blocks 48.. fail; every third flush fails. */
static int failing_write(struct fsg_backend *be, uint64_t off, const void *buf, uint32_t len)
{
	struct failing *f = be->priv;

	if (off + len > 48u * FAIL_BS)
		return off >= 48u * FAIL_BS ? -USB_EIO : (int)(48u * FAIL_BS - off);
	memcpy(f->mem + off, buf, len);
	return (int)len;
}

static int failing_flush(struct fsg_backend *be)
{
	struct failing *f = be->priv;

	return ++f->flushes % 3 == 0 ? -USB_EIO : 0;
}

static uint64_t failing_capacity(struct fsg_backend *be)
{
	(void)be;
	return (uint64_t)FAIL_BS * FAIL_BLOCKS;
}

static uint32_t failing_block_size(struct fsg_backend *be)
{
	(void)be;
	return FAIL_BS;
}

static void failing_release(struct fsg_backend *be)
{
	free(be->priv);
}

static const struct fsg_backend_ops failing_ops = {
	.read = failing_read,
	.write = failing_write,
	.flush = failing_flush,
	.capacity = failing_capacity,
	.block_size = failing_block_size,
	.release = failing_release,
};

static struct fsg_backend *failing_new(void)
{
	struct failing *f = calloc(1, sizeof(*f));

	CHECK(f);
	f->be.ops = &failing_ops;
	f->be.priv = f;
	return &f->be;
}

static struct fsg_backend *mem_new(uint64_t size, uint32_t bs)
{
	struct fsg_backend *be;

	CHECK(fsg_backend_mem_create(&be, NULL, size, bs, false) == 0);
	return be;
}

/* ---- the device -------------------------------------------------------- */

struct dut {
	struct usb_inproc_host *h;
	struct usb_composite_driver driver;
	struct usb_device_descriptor dd;
	struct usb_configuration config;
	struct fsg_config cfg;
	struct fsg_common *common;
	enum usb_device_speed speed;
	uint8_t ep_in, ep_out, intf;
	uint32_t tag;
	bool configured;
	bool in_sync;	/* the host kept to BOT since the last Reset Recovery */
};

static struct dut *current;

static int config_bind(struct usb_configuration *c)
{
	int rc = fsg_common_create(&current->common, c->cdev, &current->cfg);

	return rc ? rc : fsg_add(c->cdev, c, current->common);
}

static int driver_bind(struct usb_composite_dev *cdev)
{
	return usb_add_config(cdev, &current->config, config_bind);
}

/* Enumerate at the device's speed and find the interface and endpoints. */
static void enumerate(struct dut *d)
{
	uint8_t desc[256];
	int len = usb_inproc_host_enumerate(d->h, d->speed, 1, NULL, desc, sizeof(desc),
					      HANG_MS);

	CHECK(len > 0 && (size_t)len <= sizeof(desc));
	for (int off = 0; off + 2 <= len && desc[off] >= 2; off += desc[off]) {
		if (desc[off + 1] == USB_DT_INTERFACE)
			d->intf = desc[off + 2];
		else if (desc[off + 1] == USB_DT_ENDPOINT && (desc[off + 2] & USB_DIR_IN))
			d->ep_in = desc[off + 2];
		else if (desc[off + 1] == USB_DT_ENDPOINT)
			d->ep_out = desc[off + 2];
	}
	CHECK((d->ep_in & USB_DIR_IN) && d->ep_out);
	d->configured = true;
	d->in_sync = true;
}

static struct dut *dut_up(struct input *in)
{
	static const enum usb_device_speed speeds[] = { USB_SPEED_FULL, USB_SPEED_HIGH,
							USB_SPEED_SUPER };
	struct usb_inproc_host_config hc = { .max_speed = USB_SPEED_SUPER };
	struct dut *d = calloc(1, sizeof(*d));
	uint8_t setup = in_u8(in);

	CHECK(d);
	current = d;
	/* Once the zero-copy window choice; still read so the corpus keeps its layout. */
	(void)in_u8(in);
	CHECK(usb_inproc_host_create(&hc, &d->h) == 0);
	d->speed = speeds[setup % 3];
	d->dd.bLength = USB_DT_DEVICE_SIZE;
	d->dd.bDescriptorType = USB_DT_DEVICE;
	d->dd.bcdUSB = USB_CPU_TO_LE16(0x0200);
	d->dd.idVendor = USB_CPU_TO_LE16(0x0525);
	d->dd.idProduct = USB_CPU_TO_LE16(0xa4a5);
	d->driver.name = "fuzz_msf";
	d->driver.dev = &d->dd;
	d->driver.max_speed = USB_SPEED_SUPER;
	d->driver.udc_name = "inproc.0";
	d->driver.bind = driver_bind;
	d->config.label = "msf";
	d->config.bConfigurationValue = 1;
	d->config.MaxPower = 100;

	d->cfg.nluns = NLUNS;
	d->cfg.can_stall = (setup & 0x04) == 0;
	d->cfg.fsg_num_buffers = FSG_NUM_BUFFERS_MIN + (setup >> 3) % 3;
	d->cfg.buflen = (setup & 0x20) ? FSG_BUFLEN_MIN_SUPER : 0;	/* a SuperSpeed device */
	d->cfg.luns[0].backend = mem_new(256 * 512, 512);
	d->cfg.luns[0].nofua = (setup & 0x40) != 0;
	d->cfg.luns[1].backend = mem_new(32 * 2048, 2048);
	d->cfg.luns[1].cdrom = 1;
	d->cfg.luns[1].removable = 1;
	d->cfg.luns[2].removable = 1;	/* no medium until the script inserts one */
	d->cfg.luns[3].backend = failing_new();
	d->cfg.luns[3].ro = (setup & 0x80) != 0;

	CHECK(usb_composite_probe(&d->driver) == 0);
	enumerate(d);
	return d;
}

static void dut_down(struct dut *d)
{
	usb_composite_unregister(&d->driver);
	usb_inproc_host_destroy(d->h);
	fsg_common_put(d->common);
	free(d);
	current = NULL;
}

/* ---- host side --------------------------------------------------------- */

static int class_req(struct dut *d, bool in, uint8_t req, uint16_t value, uint16_t length,
		     void *data, unsigned tmo)
{
	struct usb_ctrlrequest s = {
		.bRequestType = (uint8_t)((in ? USB_DIR_IN : USB_DIR_OUT) | USB_TYPE_CLASS |
					  USB_RECIP_INTERFACE),
		.bRequest = req,
		.wValue = USB_CPU_TO_LE16(value),
		.wIndex = USB_CPU_TO_LE16(d->intf),
		.wLength = USB_CPU_TO_LE16(length),
	};

	return usb_inproc_host_control(d->h, &s, data, tmo);
}

/* SET_FEATURE(ENDPOINT_HALT): the host halts an endpoint itself (clearing
 * is usb_inproc_host_clear_halt()). */
static int set_halt(struct dut *d, uint8_t ep)
{
	struct usb_ctrlrequest s = {
		.bRequestType = USB_DIR_OUT | USB_TYPE_STANDARD | USB_RECIP_ENDPOINT,
		.bRequest = USB_REQ_SET_FEATURE,
		.wValue = USB_CPU_TO_LE16(USB_ENDPOINT_HALT),
		.wIndex = USB_CPU_TO_LE16(ep),
	};

	return usb_inproc_host_control(d->h, &s, NULL, HANG_MS);
}

static int set_configuration(struct dut *d, uint8_t value)
{
	struct usb_ctrlrequest s = {
		.bRequestType = USB_DIR_OUT | USB_TYPE_STANDARD | USB_RECIP_DEVICE,
		.bRequest = USB_REQ_SET_CONFIGURATION,
		.wValue = USB_CPU_TO_LE16(value),
	};
	int rc = usb_inproc_host_control(d->h, &s, NULL, HANG_MS);

	CHECK(rc != -USB_ETIMEDOUT);
	if (rc == 0) {
		d->configured = value == 1;
		d->in_sync = false;	/* the next command starts with Reset Recovery */
	}
	return rc;
}

/* BOT 5.3.4: must always bring the device back to waiting for a CBW. */
static void reset_recovery(struct dut *d)
{
	if (!d->configured)
		CHECK(set_configuration(d, 1) == 0);
	CHECK(class_req(d, false, 0xff, 0, 0, NULL, HANG_MS) == 0);
	CHECK(usb_inproc_host_clear_halt(d->h, d->ep_in, HANG_MS) == 0);
	CHECK(usb_inproc_host_clear_halt(d->h, d->ep_out, HANG_MS) == 0);
	d->in_sync = true;
}

/* A transfer on a bulk endpoint; a stall is cleared, as a host does. */
static int bulk(struct dut *d, uint8_t ep, void *buf, size_t len, unsigned tmo)
{
	int rc = usb_inproc_host_transfer(d->h, ep, buf, len, 0, tmo);

	if (rc == -USB_ETIMEDOUT)
		CHECK(tmo < HANG_MS);	/* a spec-abiding device answers */
	if (rc == -USB_EPIPE)
		(void)usb_inproc_host_clear_halt(d->h, ep, HANG_MS);
	return rc;
}

/* The SCSI commands a host sends, so that most CDBs reach their handler. */
static const uint8_t opcodes[] = {
	0x00, 0x03, 0x08, 0x0a, 0x12, 0x15, 0x1a, 0x1b, 0x1e, 0x23, 0x25, 0x28, 0x2a,
	0x2f, 0x35, 0x43, 0x44, 0x55, 0x5a, 0xa8, 0xaa, 0x88, 0x8a, 0x9e, 0x04, 0x16,
	0x17, 0x1d, 0xa0, 0x46, 0x4a, 0x51,
};

/* CDB length of an opcode's group (SPC-4 4.2.5.1). */
static uint8_t group_len(uint8_t op)
{
	static const uint8_t len[8] = { 6, 10, 10, 16, 16, 12, 10, 10 };

	return len[op >> 5];
}

/*
 * What a host would put in dCBWDataTransferLength for @cdb: the block
 * count times the LUN's block size for READ/WRITE/VERIFY, else the
 * allocation or parameter list length.
 */
static uint32_t natural_length(const uint8_t *cdb, uint8_t lun)
{
	uint32_t bs = lun == 1 ? 2048 : lun == 3 ? FAIL_BS : 512;

	switch (cdb[0]) {
	case 0x08: case 0x0a:
		return (cdb[4] ? cdb[4] : 256u) * bs;
	case 0x28: case 0x2a: case 0x2f:
		return msf__get_be16(cdb + 7) * bs;
	case 0xa8: case 0xaa:
		return msf__get_be32(cdb + 6) * bs;
	case 0x88: case 0x8a:
		return msf__get_be32(cdb + 10) * bs;
	case 0x03: case 0x12: case 0x15: case 0x1a:
		return cdb[4];
	case 0x23: case 0x43: case 0x44: case 0x55: case 0x5a: case 0x46: case 0x4a:
	case 0x51:
		return msf__get_be16(cdb + 7);
	case 0x25:
		return 8;
	case 0x9e: case 0xa0:
		return msf__get_be32(cdb + 6);
	default:
		return 0;
	}
}

static bool data_in(uint8_t op)
{
	return !(op == 0x0a || op == 0x2a || op == 0xaa || op == 0x8a || op == 0x15 ||
		 op == 0x55 || op == 0x2f);
}

/* Read and check the CSW of a valid CBW; the status, or -1 if it failed. */
static int read_csw(struct dut *d, uint32_t len)
{
	uint8_t csw[64];
	int rc = bulk(d, d->ep_in, csw, sizeof(csw), HANG_MS);

	if (rc == -USB_EPIPE)	/* BOT 5.3.3: clear the stall, read again */
		rc = bulk(d, d->ep_in, csw, sizeof(csw), HANG_MS);
	if (rc < 0)
		return -1;
	CHECK(rc == 13);
	CHECK(usb_get_le32(csw) == CSW_SIGNATURE);
	CHECK(usb_get_le32(csw + 4) == d->tag);
	CHECK(csw[12] <= 2);
	CHECK(csw[12] == 2 || usb_get_le32(csw + 8) <= len);
	return csw[12];
}

/* A valid CBW for @cdb (16 bytes) into @cbw (31 bytes), with the next tag. */
static void fill_cbw(struct dut *d, uint8_t *cbw, uint32_t len, bool in, uint8_t lun,
		     uint8_t cblen, const uint8_t *cdb)
{
	usb_put_le32(cbw, CBW_SIGNATURE);
	usb_put_le32(cbw + 4, ++d->tag);
	usb_put_le32(cbw + 8, len);
	cbw[12] = in ? 0x80 : 0x00;
	cbw[13] = lun;
	cbw[14] = cblen;
	memcpy(cbw + 15, cdb, 16);
}

/*
 * One Bulk-Only command: CBW (possibly invalid), data phase (possibly cut
 * short), CSW; a phase error or a failed CSW ends in Reset Recovery, as
 * Linux's usb-storage does it.
 */
static void bot_command(struct dut *d, struct input *in)
{
	static uint8_t buf[MAX_XFER];
	uint8_t flags = in_u8(in), more = in_u8(in), sel = in_u8(in);
	uint8_t cbw[33], cdb[16];
	uint8_t lun = flags & 0x07;
	uint32_t len;
	size_t cbw_len = 31;
	bool valid = true, meaningful = true, dir_in;
	unsigned tmo = HANG_MS;
	int rc;

	if (!d->configured || !d->in_sync)
		reset_recovery(d);
	in_fill(in, cdb, sizeof(cdb));
	if (sel < 4 * sizeof(opcodes))
		cdb[0] = opcodes[sel % sizeof(opcodes)];
	/* Keep READ/WRITE block counts small unless the input insists. */
	if (!(more & 0x01) && (cdb[0] == 0x28 || cdb[0] == 0x2a || cdb[0] == 0x2f))
		cdb[7] = 0, cdb[8] &= 0x3f;
	len = (flags & 0x40) ? in_le(in, 3) : natural_length(cdb, lun & 3);
	if (len > MAX_XFER)
		len = (more & 0x02) ? MAX_XFER : len % 4096;
	dir_in = data_in(cdb[0]) != ((flags & 0x08) != 0);

	memset(cbw, 0, sizeof(cbw));
	fill_cbw(d, cbw, len, dir_in, lun, group_len(cdb[0]), cdb);
	if ((flags & 0x10) && (more & 0x04))
		usb_put_le32(cbw, CBW_SIGNATURE + 1);
	if (more & 0x08)
		cbw[12] |= in_u8(in) & 0x7f;	/* reserved bits */
	if (flags & 0x20)
		cbw[14] = in_u8(in) & 0x1f;
	if ((flags & 0x10) && (more & 0x10))
		cbw_len = (more & 0x20) ? 33 : 30;
	if (cbw_len != 31 || usb_get_le32(cbw) != CBW_SIGNATURE)
		valid = false;
	/*
	 * BOT 6.4 leaves the answer to a valid but not meaningful CBW open:
	 * with can_stall the device wedges, without it (as Linux) it ignores
	 * the CBW and the host times out into Reset Recovery.
	 */
	if ((cbw[12] & 0x7f) || cbw[14] < 1 || cbw[14] > 16) {
		meaningful = false;
		tmo = d->cfg.can_stall ? HANG_MS : SHORT_MS;
	}

	rc = bulk(d, d->ep_out, cbw, cbw_len, HANG_MS);
	if (rc != (int)cbw_len) {
		reset_recovery(d);
		return;
	}
	if (len && (flags & 0x80)) {
		/* Cut the data phase off, then recover one way or another. */
		size_t part = (size_t)in_le(in, 2) % (len + 1);

		(void)usb_inproc_host_transfer(d->h, dir_in ? d->ep_in : d->ep_out, buf, part, 0,
						 SHORT_MS);
		d->in_sync = false;
		switch (in_u8(in) % 3) {
		case 0:
			reset_recovery(d);
			break;
		case 1:
			(void)set_configuration(d, 1);
			break;
		default:
			enumerate(d);	/* bus reset */
			break;
		}
		return;
	}
	if (len && !dir_in)
		in_fill(in, buf, len < 512 ? len : 512);
	if (len)
		(void)bulk(d, dir_in ? d->ep_in : d->ep_out, buf, len, tmo);
	if (!valid || !meaningful) {
		/* BOT 6.6.1: an invalid CBW wedges the device until Reset Recovery. */
		reset_recovery(d);
		return;
	}
	rc = read_csw(d, len);
	if (rc < 0 || rc == 2)
		reset_recovery(d);
}

/* Bulk bytes outside the protocol: anything may follow but a crash. */
static void raw_bulk(struct dut *d, struct input *in)
{
	static uint8_t buf[4096];
	uint8_t how = in_u8(in);
	size_t len = in_le(in, 2) % sizeof(buf);

	if (how & 1)
		in_fill(in, buf, len);
	(void)usb_inproc_host_transfer(d->h, (how & 1) ? d->ep_out : d->ep_in, buf, len, 0,
					 SHORT_MS);
	d->in_sync = false;
}

/* Control requests: the class requests with fuzzed fields, halts,
 * configuration and interface changes. */
static void control(struct dut *d, struct input *in)
{
	uint8_t what = in_u8(in), arg = in_u8(in);
	uint8_t data[64];
	int rc;

	switch (what % 8) {
	case 0:	/* Get Max LUN, correct (no interface while unconfigured) */
		rc = class_req(d, true, 0xfe, 0, 1, data, HANG_MS);
		CHECK(d->configured ? rc == 1 && data[0] == NLUNS - 1 : rc == -USB_EPIPE);
		break;
	case 1:	/* Bulk-Only Mass Storage Reset alone */
		rc = class_req(d, false, 0xff, 0, 0, NULL, HANG_MS);
		CHECK(d->configured ? rc == 0 : rc == -USB_EPIPE);
		d->in_sync = false;
		break;
	case 2:	/* a class request with fuzzed fields: may stall, must answer */
		rc = class_req(d, arg & 0x80, (arg & 1) ? 0xfe : 0xff, in_u8(in),
			       (uint16_t)(in_u8(in) % sizeof(data)), data, HANG_MS);
		CHECK(rc != -USB_ETIMEDOUT);
		d->in_sync = false;
		break;
	case 3:
		(void)set_configuration(d, arg % 3);
		break;
	case 4:
		CHECK(usb_inproc_host_set_interface(d->h, d->intf, arg % 2, HANG_MS) !=
		      -USB_ETIMEDOUT);
		d->in_sync = false;
		break;
	case 5:	/* the host halts a bulk endpoint itself */
		CHECK(set_halt(d, (arg & 1) ? d->ep_in : d->ep_out) != -USB_ETIMEDOUT);
		d->in_sync = false;
		break;
	case 6:
		CHECK(usb_inproc_host_clear_halt(d->h, (arg & 1) ? d->ep_in : d->ep_out,
						   HANG_MS) != -USB_ETIMEDOUT);
		d->in_sync = false;
		break;
	default:
		reset_recovery(d);
		break;
	}
}

/* The bus: reset and enumerate again (maybe at another speed), unplug,
 * suspend. */
static void bus(struct dut *d, struct input *in)
{
	uint8_t what = in_u8(in);

	switch (what % 3) {
	case 0:
		d->speed = (what & 0x08) ? USB_SPEED_HIGH : (what & 0x10) ? USB_SPEED_FULL
									: USB_SPEED_SUPER;
		enumerate(d);
		break;
	case 1:
		CHECK(usb_inproc_host_disconnect(d->h) == 0);
		enumerate(d);
		break;
	default:
		(void)usb_inproc_host_suspend(d->h);
		(void)usb_inproc_host_resume(d->h);
		d->in_sync = false;
		break;
	}
}

/* Media changes through the API, between commands (as an application's
 * eject would come). */
static void media(struct dut *d, struct input *in)
{
	uint8_t what = in_u8(in);
	unsigned lun = (what >> 2) % (NLUNS + 1);	/* NLUNS: no such LUN */
	int rc;

	if (!d->in_sync)
		reset_recovery(d);	/* no command may be waiting on the host */
	switch (what % 4) {
	case 0:
		rc = fsg_common_set_lun_backend(d->common, lun, NULL);
		break;
	case 1:
		rc = fsg_common_set_lun_backend(d->common, lun, mem_new(64 * 2048, 2048));
		break;
	case 2:
		rc = fsg_common_set_lun_backend(d->common, lun, failing_new());
		break;
	default:
		rc = fsg_common_forced_eject(d->common, lun);
		break;
	}
	CHECK(rc <= 0);
	CHECK(lun < NLUNS || rc == -USB_EINVAL);
}

static void run_step(struct dut *d, struct input *in)
{
	uint8_t op = in_u8(in);

	switch (op % 10) {
	case 6:
		raw_bulk(d, in);
		break;
	case 7:
		control(d, in);
		break;
	case 8:
		bus(d, in);
		break;
	case 9:
		media(d, in);
		break;
	default:
		bot_command(d, in);
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { data, size };
	struct dut *d = dut_up(&in);
	const uint8_t tur[16] = { 0 };	/* TEST UNIT READY */
	uint8_t cbw[31];
	int rc;

	for (unsigned steps = 0; in.left && steps < 64; steps++)
		run_step(d, &in);

	/* Whatever happened, Reset Recovery brings back a working device. */
	reset_recovery(d);
	fill_cbw(d, cbw, 0, false, 0, 6, tur);
	CHECK(bulk(d, d->ep_out, cbw, sizeof(cbw), HANG_MS) == (int)sizeof(cbw));
	rc = read_csw(d, 0);
	CHECK(rc == 0 || rc == 1);

	dut_down(d);
	return 0;
}
