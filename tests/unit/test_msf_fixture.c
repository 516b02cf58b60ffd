/*
 * test_msf_fixture.c - see test_msf_fixture.h.
 */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "composite/function.h"
#include "test_msf_fixture.h"

static struct msf_fx *current;

static int fx_config_bind(struct usb_configuration *c)
{
	struct msf_fx *fx = current;
	int rc;

	fx->init_rc = fsg_common_create(&fx->common, c->cdev, &fx->cfg);
	if (fx->init_rc)
		return fx->init_rc;
	rc = fsg_add(c->cdev, c, fx->common);
	return rc;
}

/* The second configuration shares the first one's common object. */
static int fx_config2_bind(struct usb_configuration *c)
{
	return fsg_add(c->cdev, c, current->common);
}

static int fx_driver_bind(struct usb_composite_dev *cdev)
{
	int rc = usb_add_config(cdev, &current->config, fx_config_bind);

	if (rc || !current->two_configs)
		return rc;
	return usb_add_config(cdev, &current->config2, fx_config2_bind);
}

int msf_fx_set_config(struct msf_fx *fx, uint8_t value)
{
	struct usb_ctrlrequest s = {
		.bRequestType = USB_DIR_OUT | USB_TYPE_STANDARD | USB_RECIP_DEVICE,
		.bRequest = USB_REQ_SET_CONFIGURATION,
		.wValue = USB_CPU_TO_LE16(value),
	};

	return usb_inproc_host_control(fx->h, &s, NULL, MSF_TMO);
}


struct msf_fx *msf_fx_new(void)
{
	return msf_fx_new_max(USB_SPEED_HIGH);
}

struct msf_fx *msf_fx_new_max(enum usb_device_speed max)
{
	struct usb_inproc_host_config hc = { .max_speed = max };
	struct msf_fx *fx;

	if (current)
		msf_fx_free(current);	/* a failed test jumped out */
	fx = calloc(1, sizeof(*fx));
	assert_non_null(fx);
	current = fx;
	assert_int_equal(usb_inproc_host_create(&hc, &fx->h), 0);
	fx->dd.bLength = USB_DT_DEVICE_SIZE;
	fx->dd.bDescriptorType = USB_DT_DEVICE;
	fx->dd.bcdUSB = USB_CPU_TO_LE16(max >= USB_SPEED_SUPER ? 0x0300 : 0x0200);
	fx->dd.idVendor = USB_CPU_TO_LE16(0x0525);
	fx->dd.idProduct = USB_CPU_TO_LE16(0xa4a5);
	fx->driver.name = "g_mass_storage-test";
	fx->driver.dev = &fx->dd;
	fx->driver.max_speed = max;
	fx->driver.udc_name = "inproc.0";
	fx->driver.bind = fx_driver_bind;
	fx->config.label = "msf";
	fx->config.bConfigurationValue = 1;
	fx->config.MaxPower = 100;
	fx->config2.label = "msf2";
	fx->config2.bConfigurationValue = 2;
	fx->config2.MaxPower = 200;
	fx->cfg.nluns = 1;
	fx->cfg.can_stall = 1;
	return fx;
}

int msf_fx_probe(struct msf_fx *fx)
{
	return usb_composite_probe(&fx->driver);
}

void msf_fx_up(struct msf_fx *fx, enum usb_device_speed speed)
{
	const uint8_t *p;
	int off;

	assert_int_equal(msf_fx_probe(fx), 0);
	fx->config_len = usb_inproc_host_enumerate(fx->h, speed, 1, NULL, fx->config_desc,
						     sizeof(fx->config_desc), MSF_TMO);
	assert_true(fx->config_len > 0);
	/* Find our interface and its two bulk endpoints. */
	p = fx->config_desc;
	for (off = 0; off + 2 <= fx->config_len && p[off] >= 2; off += p[off]) {
		if (p[off + 1] == USB_DT_INTERFACE) {
			assert_int_equal(p[off + 5], 0x08);
			assert_int_equal(p[off + 6], 0x06);
			assert_int_equal(p[off + 7], 0x50);
			fx->intf = p[off + 2];
		} else if (p[off + 1] == USB_DT_ENDPOINT) {
			assert_int_equal(p[off + 3], USB_ENDPOINT_XFER_BULK);
			if (p[off + 2] & USB_DIR_IN)
				fx->ep_in = p[off + 2];
			else
				fx->ep_out = p[off + 2];
			fx->maxpacket = (uint16_t)(p[off + 4] | (p[off + 5] << 8));
		}
	}
	assert_true(fx->ep_in & USB_DIR_IN);
	assert_true(fx->ep_out != 0);
}

void msf_fx_free(struct msf_fx *fx)
{
	usb_composite_unregister(&fx->driver);
	usb_inproc_host_destroy(fx->h);
	/* The fixture's own reference: the last one frees the common object. */
	fsg_common_put(fx->common);
	free(fx);
	current = NULL;
}

uint8_t msf_fx_pat(uint64_t off)
{
	return (uint8_t)((off * 7u) ^ (off >> 9) ^ 0x5au);
}

struct fsg_backend *msf_fx_mem(uint64_t blocks, uint32_t bs)
{
	struct fsg_backend *be;
	uint64_t size = blocks * bs;
	uint8_t *mem = malloc(size);

	assert_non_null(mem);
	for (uint64_t i = 0; i < size; i++)
		mem[i] = msf_fx_pat(i);
	/* The backend owns a zeroed copy; fill it through its own write. */
	assert_int_equal(fsg_backend_mem_create(&be, NULL, size, bs, false), 0);
	assert_int_equal(be->ops->write(be, 0, mem, (uint32_t)size), (int)size);
	free(mem);
	return be;
}

void msf_fx_fill_cbw(struct msf_fx *fx, uint8_t cbw[31], uint8_t lun, const uint8_t *cdb,
		     uint8_t cblen, bool in, uint32_t len)
{
	memset(cbw, 0, 31);
	usb_put_le32(cbw, 0x43425355u);
	usb_put_le32(cbw + 4, ++fx->tag);
	usb_put_le32(cbw + 8, len);
	cbw[12] = in ? 0x80 : 0x00;
	cbw[13] = lun;
	cbw[14] = cblen;
	memcpy(cbw + 15, cdb, cblen > 16 ? 16 : cblen);
}

int msf_fx_cbw(struct msf_fx *fx, uint8_t lun, const uint8_t *cdb, uint8_t cblen,
	       bool in, uint32_t len)
{
	uint8_t cbw[31];

	msf_fx_fill_cbw(fx, cbw, lun, cdb, cblen, in, len);
	return usb_inproc_host_transfer(fx->h, fx->ep_out, cbw, sizeof(cbw), 0, MSF_TMO);
}

int msf_fx_csw(struct msf_fx *fx, uint8_t *status, uint32_t *residue)
{
	uint8_t csw[64];
	int rc;

	rc = usb_inproc_host_transfer(fx->h, fx->ep_in, csw, sizeof(csw), 0, MSF_TMO);
	fx->csw_stalled = rc == -USB_EPIPE;
	if (rc == -USB_EPIPE) {
		assert_int_equal(usb_inproc_host_clear_halt(fx->h, fx->ep_in, MSF_TMO), 0);
		rc = usb_inproc_host_transfer(fx->h, fx->ep_in, csw, sizeof(csw), 0, MSF_TMO);
	}
	if (rc < 0)
		return rc;
	assert_int_equal(rc, 13);
	assert_int_equal(usb_get_le32(csw), 0x53425355u);
	assert_int_equal(usb_get_le32(csw + 4), fx->tag);
	if (residue)
		*residue = usb_get_le32(csw + 8);
	if (status)
		*status = csw[12];
	return 0;
}

int msf_fx_cmd(struct msf_fx *fx, uint8_t lun, const uint8_t *cdb, uint8_t cblen,
	       bool in, void *buf, uint32_t len, int *xfer, uint32_t *residue)
{
	uint8_t status = 0xff;
	uint32_t res = 0;
	int rc, x = 0;

	rc = msf_fx_cbw(fx, lun, cdb, cblen, in, len);
	if (rc < 0)
		return rc;
	assert_int_equal(rc, 31);
	if (len) {
		x = usb_inproc_host_transfer(fx->h, in ? fx->ep_in : fx->ep_out, buf, len, 0,
					       MSF_TMO);
		if (x == -USB_EPIPE)
			assert_int_equal(usb_inproc_host_clear_halt(fx->h,
				in ? fx->ep_in : fx->ep_out, MSF_TMO), 0);
		else if (x < 0)
			return x;
	}
	if (xfer)
		*xfer = x;
	rc = msf_fx_csw(fx, &status, &res);
	if (rc)
		return rc;
	if (residue)
		*residue = res;
	return status;
}

uint32_t msf_fx_sense(struct msf_fx *fx, uint8_t lun, uint32_t *info, bool *valid)
{
	uint8_t cdb[6] = { 0x03, 0, 0, 0, 18, 0 };
	uint8_t s[18];
	int x;

	memset(s, 0, sizeof(s));
	assert_int_equal(msf_fx_cmd(fx, lun, cdb, 6, true, s, 18, &x, NULL), 0);
	assert_int_equal(x, 18);
	assert_int_equal(s[0] & 0x7f, 0x70);
	assert_int_equal(s[7], 10);
	if (info)
		*info = (uint32_t)s[3] << 24 | (uint32_t)s[4] << 16 | (uint32_t)s[5] << 8 | s[6];
	if (valid)
		*valid = (s[0] & 0x80) != 0;
	return (uint32_t)(s[2] & 0x0f) << 16 | (uint32_t)s[12] << 8 | s[13];
}

int msf_fx_clear_ua(struct msf_fx *fx, uint8_t lun)
{
	uint8_t tur[6] = { 0 };
	int st = -1;

	for (int i = 0; i < 4; i++) {
		st = msf_fx_cmd(fx, lun, tur, 6, false, NULL, 0, NULL, NULL);
		if (st != 1)
			return st;
		(void)msf_fx_sense(fx, lun, NULL, NULL);
	}
	return st;
}

int msf_fx_class(struct msf_fx *fx, bool in, uint8_t req, uint16_t value,
		 uint16_t length, void *data)
{
	struct usb_ctrlrequest s = {
		.bRequestType = (uint8_t)((in ? USB_DIR_IN : USB_DIR_OUT) | USB_TYPE_CLASS |
					  USB_RECIP_INTERFACE),
		.bRequest = req,
		.wValue = USB_CPU_TO_LE16(value),
		.wIndex = USB_CPU_TO_LE16(fx->intf),
		.wLength = USB_CPU_TO_LE16(length),
	};

	return usb_inproc_host_control(fx->h, &s, data, MSF_TMO);
}

int msf_fx_reset_recovery(struct msf_fx *fx)
{
	int rc = msf_fx_class(fx, false, 0xff, 0, 0, NULL);

	if (rc)
		return rc;
	rc = usb_inproc_host_clear_halt(fx->h, fx->ep_in, MSF_TMO);
	if (rc)
		return rc;
	return usb_inproc_host_clear_halt(fx->h, fx->ep_out, MSF_TMO);
}

void msf_fx_rw10_cdb(uint8_t cdb[10], bool write, uint32_t lba, uint16_t blocks, uint8_t flags)
{
	memset(cdb, 0, 10);
	cdb[0] = write ? 0x2a : 0x28;
	cdb[1] = flags;
	cdb[2] = (uint8_t)(lba >> 24);
	cdb[3] = (uint8_t)(lba >> 16);
	cdb[4] = (uint8_t)(lba >> 8);
	cdb[5] = (uint8_t)lba;
	cdb[7] = (uint8_t)(blocks >> 8);
	cdb[8] = (uint8_t)blocks;
}

int msf_fx_read10(struct msf_fx *fx, uint8_t lun, uint32_t lba, uint16_t blocks,
		  void *buf, uint32_t len, uint8_t flags)
{
	uint8_t cdb[10];

	msf_fx_rw10_cdb(cdb, false, lba, blocks, flags);
	return msf_fx_cmd(fx, lun, cdb, 10, true, buf, len, NULL, NULL);
}

int msf_fx_write10(struct msf_fx *fx, uint8_t lun, uint32_t lba, uint16_t blocks,
		   const void *buf, uint32_t len, uint8_t flags)
{
	uint8_t cdb[10];

	msf_fx_rw10_cdb(cdb, true, lba, blocks, flags);
	return msf_fx_cmd(fx, lun, cdb, 10, false, (void *)(uintptr_t)buf, len, NULL, NULL);
}
