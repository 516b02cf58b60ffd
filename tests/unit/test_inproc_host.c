/*
 * test_inproc_host.c - the in-process host backend end to end: a small
 * test function (one interface, bulk IN + OUT, vendor control requests)
 * bound through the real core to an in-process UDC, driven by the host API.
 * Enumeration, transfers of many sizes, ZLPs, short packets, babble, halt
 * and CLEAR_FEATURE, wedge, dequeue, disconnect, bus reset, delayed status,
 * a worker thread queueing while the host waits, async transfers, bad
 * arguments.
 */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "composite/composite.h"
#include "composite/function.h"
#include "composite/inproc_host.h"
#include "composite/udc.h"

#define TMO 2000u	/* generous: only reached when something is broken */
#define BUFSZ 65536u

#define VREQ_IN 0x01	/* IN: reply with wValue bytes of pattern */
#define VREQ_OUT 0x02	/* OUT: store the data stage */
#define VREQ_DELAY 0x03	/* no data: delayed status */
#define VREQ_STALL 0x04	/* stall */

/* ---- the test function -------------------------------------------------- */

struct log_entry {
	bool in;
	int status;
	unsigned actual;
	bool host_thread;
};

struct tf {
	struct usb_function func;
	struct usb_ep *in, *out;
	struct usb_request *in_req, *out_req, *in_req2;
	uint8_t *in_buf, *out_buf, *in_buf2;
	bool echo;
	bool enabled;
	int set_alt_calls, disable_calls;
	uint8_t ctrl_out[512];
	unsigned ctrl_out_len;
	int ctrl_out_status;
	pthread_mutex_t mu;
	struct log_entry log[64];
	int nlog;
	pthread_t host_thread;

	struct usb_interface_descriptor intf;
	struct usb_endpoint_descriptor fs_in, fs_out, hs_in, hs_out;
	struct usb_descriptor_header *fs[4], *hs[4];
};

static uint8_t pat(size_t k)
{
	return (uint8_t)(k * 13u + 5u + k / 256u);
}

static struct tf *tf_of(struct usb_function *f)
{
	return usb_container_of(f, struct tf, func);
}

static void log_it(struct tf *t, bool in, struct usb_request *req)
{
	pthread_mutex_lock(&t->mu);
	if (t->nlog < 64) {
		t->log[t->nlog].in = in;
		t->log[t->nlog].status = req->status;
		t->log[t->nlog].actual = req->actual;
		t->log[t->nlog].host_thread = pthread_equal(pthread_self(), t->host_thread);
		t->nlog++;
	}
	pthread_mutex_unlock(&t->mu);
}

static void in_complete(struct usb_ep *ep, struct usb_request *req)
{
	(void)ep;
	log_it(req->context, true, req);
}

static void out_complete(struct usb_ep *ep, struct usb_request *req)
{
	struct tf *t = req->context;

	(void)ep;
	log_it(t, false, req);
	if (!t->echo || req->status != 0)
		return;
	/* Echo: send back what arrived, then listen again. */
	memcpy(t->in_buf, t->out_buf, req->actual);
	t->in_req->length = req->actual;
	t->in_req->zero = 1;
	assert_int_equal(usb_ep_queue(t->in, t->in_req, USB_GFP_ATOMIC), 0);
	t->out_req->length = BUFSZ;
	assert_int_equal(usb_ep_queue(t->out, t->out_req, USB_GFP_ATOMIC), 0);
}

static void ctrl_out_complete(struct usb_ep *ep, struct usb_request *req)
{
	struct tf *t = req->context;

	(void)ep;
	t->ctrl_out_status = req->status;
	t->ctrl_out_len = req->actual;
	memcpy(t->ctrl_out, req->buf, req->actual < sizeof(t->ctrl_out) ? req->actual : sizeof(t->ctrl_out));
}

static void ctrl_in_complete(struct usb_ep *ep, struct usb_request *req)
{
	(void)ep;
	(void)req;
}

static int tf_bind(struct usb_configuration *c, struct usb_function *f)
{
	struct tf *t = tf_of(f);
	int id = usb_interface_id(c, f);

	if (id < 0)
		return id;
	t->intf.bInterfaceNumber = (uint8_t)id;
	t->in = usb_ep_autoconfig(c->cdev->gadget, &t->fs_in);
	t->out = usb_ep_autoconfig(c->cdev->gadget, &t->fs_out);
	if (!t->in || !t->out)
		return -USB_ENODEV;
	t->hs_in.bEndpointAddress = t->fs_in.bEndpointAddress;
	t->hs_out.bEndpointAddress = t->fs_out.bEndpointAddress;
	t->in_req = usb_ep_alloc_request(t->in, USB_GFP_KERNEL);
	t->in_req2 = usb_ep_alloc_request(t->in, USB_GFP_KERNEL);
	t->out_req = usb_ep_alloc_request(t->out, USB_GFP_KERNEL);
	if (!t->in_req || !t->in_req2 || !t->out_req)
		return -USB_ENOMEM;
	t->in_req->buf = t->in_buf;
	t->in_req2->buf = t->in_buf2;
	t->out_req->buf = t->out_buf;
	t->in_req->complete = in_complete;
	t->in_req2->complete = in_complete;
	t->out_req->complete = out_complete;
	t->in_req->context = t->in_req2->context = t->out_req->context = t;
	return usb_assign_descriptors(f, t->fs, t->hs, NULL, NULL);
}

static void tf_unbind(struct usb_configuration *c, struct usb_function *f)
{
	struct tf *t = tf_of(f);

	(void)c;
	usb_ep_free_request(t->in, t->in_req);
	usb_ep_free_request(t->in, t->in_req2);
	usb_ep_free_request(t->out, t->out_req);
	usb_free_all_descriptors(f);
}

static void tf_disable(struct usb_function *f)
{
	struct tf *t = tf_of(f);

	t->disable_calls++;
	if (t->enabled) {
		usb_ep_disable(t->in);
		usb_ep_disable(t->out);
		t->enabled = false;
	}
}

static int tf_set_alt(struct usb_function *f, unsigned intf, unsigned alt)
{
	struct tf *t = tf_of(f);
	struct usb_gadget *g = f->config->cdev->gadget;
	int rc;

	(void)intf;
	if (alt != 0)
		return -USB_EINVAL;
	t->set_alt_calls++;
	if (t->enabled)
		tf_disable(f);
	if ((rc = config_ep_by_speed(g, f, t->in)) || (rc = usb_ep_enable(t->in)))
		return rc;
	if ((rc = config_ep_by_speed(g, f, t->out)) || (rc = usb_ep_enable(t->out))) {
		usb_ep_disable(t->in);
		return rc;
	}
	t->enabled = true;
	if (t->echo) {
		t->out_req->length = BUFSZ;
		rc = usb_ep_queue(t->out, t->out_req, USB_GFP_ATOMIC);
	}
	return rc;
}

static int tf_setup(struct usb_function *f, const struct usb_ctrlrequest *ctrl)
{
	struct tf *t = tf_of(f);
	struct usb_composite_dev *cdev = f->config->cdev;
	struct usb_request *req = cdev->req;
	unsigned value = USB_LE16_TO_CPU(ctrl->wValue);
	unsigned length = USB_LE16_TO_CPU(ctrl->wLength);

	if ((ctrl->bRequestType & USB_TYPE_MASK) != USB_TYPE_VENDOR)
		return -USB_EOPNOTSUPP;
	switch (ctrl->bRequest) {
	case VREQ_IN:
		if (!(ctrl->bRequestType & USB_DIR_IN))
			return -USB_EINVAL;
		if (value > length)
			value = length;
		for (unsigned k = 0; k < value; k++)
			((uint8_t *)req->buf)[k] = pat(k);
		req->length = value;
		req->zero = value < length;
		req->context = t;
		req->complete = ctrl_in_complete;
		return usb_ep_queue(cdev->gadget->ep0, req, USB_GFP_ATOMIC);
	case VREQ_OUT:
		if ((ctrl->bRequestType & USB_DIR_IN) || length == 0)
			return -USB_EINVAL;
		req->length = length;
		req->context = t;
		req->complete = ctrl_out_complete;
		t->ctrl_out_status = 1;
		return usb_ep_queue(cdev->gadget->ep0, req, USB_GFP_ATOMIC);
	case VREQ_DELAY:
		return USB_GADGET_DELAYED_STATUS;
	default:
		return -USB_EOPNOTSUPP;
	}
}

static bool tf_req_match(struct usb_function *f, const struct usb_ctrlrequest *ctrl, bool config0)
{
	(void)f;
	(void)config0;
	return (ctrl->bRequestType & USB_TYPE_MASK) == USB_TYPE_VENDOR;
}

static void tf_init(struct tf *t)
{
	memset(t, 0, sizeof(*t));
	pthread_mutex_init(&t->mu, NULL);
	t->in_buf = calloc(1, BUFSZ);
	t->in_buf2 = calloc(1, BUFSZ);
	t->out_buf = calloc(1, BUFSZ);
	assert_non_null(t->in_buf);
	assert_non_null(t->in_buf2);
	assert_non_null(t->out_buf);
	t->func.name = "inproc-test";
	t->func.bind = tf_bind;
	t->func.unbind = tf_unbind;
	t->func.set_alt = tf_set_alt;
	t->func.disable = tf_disable;
	t->func.setup = tf_setup;
	t->func.req_match = tf_req_match;

	t->intf.bLength = USB_DT_INTERFACE_SIZE;
	t->intf.bDescriptorType = USB_DT_INTERFACE;
	t->intf.bNumEndpoints = 2;
	t->intf.bInterfaceClass = USB_CLASS_VENDOR_SPEC;
	t->fs_in.bLength = t->fs_out.bLength = USB_DT_ENDPOINT_SIZE;
	t->fs_in.bDescriptorType = t->fs_out.bDescriptorType = USB_DT_ENDPOINT;
	t->fs_in.bEndpointAddress = USB_DIR_IN;
	t->fs_out.bEndpointAddress = USB_DIR_OUT;
	t->fs_in.bmAttributes = t->fs_out.bmAttributes = USB_ENDPOINT_XFER_BULK;
	t->hs_in = t->fs_in;
	t->hs_out = t->fs_out;
	t->fs_in.wMaxPacketSize = t->fs_out.wMaxPacketSize = USB_CPU_TO_LE16(64);
	t->hs_in.wMaxPacketSize = t->hs_out.wMaxPacketSize = USB_CPU_TO_LE16(512);
	t->fs[0] = (struct usb_descriptor_header *)&t->intf;
	t->fs[1] = (struct usb_descriptor_header *)&t->fs_in;
	t->fs[2] = (struct usb_descriptor_header *)&t->fs_out;
	t->hs[0] = (struct usb_descriptor_header *)&t->intf;
	t->hs[1] = (struct usb_descriptor_header *)&t->hs_in;
	t->hs[2] = (struct usb_descriptor_header *)&t->hs_out;
}

static void tf_fini(struct tf *t)
{
	pthread_mutex_destroy(&t->mu);
	free(t->in_buf);
	free(t->in_buf2);
	free(t->out_buf);
}

/* ---- the device and the fixture ---------------------------------------- */

struct fx {
	struct usb_inproc_host *h;
	struct usb_composite_driver driver;
	struct usb_device_descriptor dd;
	struct usb_configuration config;
	struct tf t;
	struct usb_device_descriptor got_dev;
	uint8_t got_config[256];
	int total;
};

static struct fx *current_fx;

static int fx_config_bind(struct usb_configuration *c)
{
	return usb_add_function(c, &current_fx->t.func);
}

/* The device bound to @x's gadget, or NULL (what a driver outside the
 * core sees: the gadget's data). */
static struct usb_composite_dev *fx_cdev(struct fx *x)
{
	return get_gadget_data(usb_inproc_host_gadget(x->h));
}

static int fx_driver_bind(struct usb_composite_dev *cdev)
{
	return usb_add_config(cdev, &current_fx->config, fx_config_bind);
}

static void fx_free(struct fx *x);

static struct fx *fx_new_cfg(bool echo, const struct usb_inproc_host_config *cfg)
{
	struct fx *x;

	/* A failed test jumps out before freeing its device. */
	if (current_fx)
		fx_free(current_fx);
	x = calloc(1, sizeof(*x));

	assert_non_null(x);
	current_fx = x;
	tf_init(&x->t);
	x->t.echo = echo;
	x->t.host_thread = pthread_self();
	assert_int_equal(usb_inproc_host_create(cfg, &x->h), 0);
	x->dd.bLength = USB_DT_DEVICE_SIZE;
	x->dd.bDescriptorType = USB_DT_DEVICE;
	x->dd.bcdUSB = USB_CPU_TO_LE16(0x0200);
	x->dd.idVendor = USB_CPU_TO_LE16(0x1d6b);
	x->dd.idProduct = USB_CPU_TO_LE16(0x0104);
	x->driver.name = "inproc-test";
	x->driver.dev = &x->dd;
	x->driver.max_speed = USB_SPEED_HIGH;
	x->driver.udc_name = "inproc.0";
	x->driver.bind = fx_driver_bind;
	x->config.label = "test";
	x->config.bConfigurationValue = 1;
	x->config.MaxPower = 100;
	assert_int_equal(usb_composite_probe(&x->driver), 0);
	return x;
}

static struct fx *fx_new(bool echo)
{
	return fx_new_cfg(echo, NULL);
}

static struct fx *fx_up(bool echo, enum usb_device_speed speed)
{
	struct fx *x = fx_new(echo);

	x->total = usb_inproc_host_enumerate(x->h, speed, 1, &x->got_dev, x->got_config,
					       sizeof(x->got_config), TMO);
	assert_int_equal(x->total, USB_DT_CONFIG_SIZE + USB_DT_INTERFACE_SIZE +
					   2 * USB_DT_ENDPOINT_SIZE);
	return x;
}

static void fx_free(struct fx *x)
{
	usb_composite_unregister(&x->driver);
	usb_inproc_host_destroy(x->h);
	tf_fini(&x->t);
	free(x);
	current_fx = NULL;
}

static uint8_t in_addr(struct fx *x)
{
	return x->t.fs_in.bEndpointAddress;
}

static uint8_t out_addr(struct fx *x)
{
	return x->t.fs_out.bEndpointAddress;
}

static int vendor(struct fx *x, bool in, uint8_t req, uint16_t value, uint16_t length,
		  void *data, unsigned timeout)
{
	struct usb_ctrlrequest s = {
		.bRequestType = (uint8_t)((in ? USB_DIR_IN : USB_DIR_OUT) | USB_TYPE_VENDOR |
					  USB_RECIP_DEVICE),
		.bRequest = req,
		.wValue = USB_CPU_TO_LE16(value),
		.wIndex = 0,
		.wLength = USB_CPU_TO_LE16(length),
	};

	return usb_inproc_host_control(x->h, &s, data, timeout);
}

static int get_status_ep(struct fx *x, uint8_t ep)
{
	uint8_t st[2] = { 0xff, 0xff };
	struct usb_ctrlrequest s = {
		.bRequestType = USB_DIR_IN | USB_TYPE_STANDARD | USB_RECIP_ENDPOINT,
		.bRequest = USB_REQ_GET_STATUS,
		.wIndex = USB_CPU_TO_LE16(ep),
		.wLength = USB_CPU_TO_LE16(2),
	};
	int rc = usb_inproc_host_control(x->h, &s, st, TMO);

	return rc == 2 ? st[0] | st[1] << 8 : (rc < 0 ? rc : -1000);
}

static int get_configuration(struct fx *x)
{
	uint8_t v = 0xff;
	struct usb_ctrlrequest s = {
		.bRequestType = USB_DIR_IN | USB_TYPE_STANDARD | USB_RECIP_DEVICE,
		.bRequest = USB_REQ_GET_CONFIGURATION,
		.wLength = USB_CPU_TO_LE16(1),
	};
	int rc = usb_inproc_host_control(x->h, &s, &v, TMO);

	return rc == 1 ? v : (rc < 0 ? rc : -1000);
}

static void queue_in(struct fx *x, struct usb_request *req, unsigned len, bool zero)
{
	for (unsigned k = 0; k < len; k++)
		((uint8_t *)req->buf)[k] = pat(k);
	req->length = len;
	req->zero = zero;
	assert_int_equal(usb_ep_queue(x->t.in, req, USB_GFP_ATOMIC), 0);
}

static struct log_entry last_log(struct fx *x)
{
	struct log_entry e;

	pthread_mutex_lock(&x->t.mu);
	assert_true(x->t.nlog > 0);
	e = x->t.log[x->t.nlog - 1];
	pthread_mutex_unlock(&x->t.mu);
	return e;
}

static int nlog(struct fx *x)
{
	int n;

	pthread_mutex_lock(&x->t.mu);
	n = x->t.nlog;
	pthread_mutex_unlock(&x->t.mu);
	return n;
}

/* ---- tests -------------------------------------------------------------- */

static void test_inproc_host_enumerate(void **state)
{
	static const enum usb_device_speed speeds[] = { USB_SPEED_FULL, USB_SPEED_HIGH };

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		struct fx *x = fx_up(false, speeds[i]);
		unsigned mp = speeds[i] == USB_SPEED_HIGH ? 512 : 64;
		struct usb_inproc_host_info info;
		const uint8_t *ep1 = x->got_config + 18, *ep2 = ep1 + 7;

		assert_int_equal(x->got_dev.bDescriptorType, USB_DT_DEVICE);
		assert_int_equal(USB_LE16_TO_CPU(x->got_dev.idVendor), 0x1d6b);
		assert_int_equal(x->got_dev.bMaxPacketSize0, 64);
		assert_int_equal(x->got_dev.bNumConfigurations, 1);
		assert_int_equal(x->got_config[1], USB_DT_CONFIG);
		assert_int_equal(x->got_config[5], 1);
		assert_int_equal(ep1[1], USB_DT_ENDPOINT);
		assert_int_equal(usb_get_le16(ep1 + 4), mp);
		assert_int_equal(usb_get_le16(ep2 + 4), mp);
		assert_int_equal(x->t.set_alt_calls, 1);
		assert_int_equal(get_configuration(x), 1);
		usb_inproc_host_info(x->h, &info);
		assert_int_equal(info.connected, 1);
		assert_int_equal(info.address, 1);
		assert_int_equal(usb_inproc_host_gadget(x->h)->speed, speeds[i]);
		fx_free(x);
	}
}

static void test_inproc_host_echo_sizes(void **state)
{
	static const size_t sizes[] = { 0, 1, 10, 63, 64, 65, 127, 128, 511, 512, 513,
					1000, 1023, 1024, 1025, 4096, 4097, 30000, 65535 };
	static const enum usb_device_speed speeds[] = { USB_SPEED_FULL, USB_SPEED_HIGH };
	uint8_t *out = malloc(BUFSZ), *in = malloc(BUFSZ);

	(void)state;
	assert_non_null(out);
	assert_non_null(in);
	for (size_t s = 0; s < 2; s++) {
		struct fx *x = fx_up(true, speeds[s]);
		size_t mp = speeds[s] == USB_SPEED_HIGH ? 512 : 64;

		for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			size_t n = sizes[i];
			/* A multiple of maxpacket needs a ZLP to end the device's
			 * 64 KiB request early. */
			unsigned flags = (n % mp == 0 && n < BUFSZ) ? USB_INPROC_ZERO_PACKET : 0;

			for (size_t k = 0; k < n; k++)
				out[k] = (uint8_t)(pat(k) ^ (uint8_t)i);
			memset(in, 0, BUFSZ);
			assert_int_equal(usb_inproc_host_transfer(x->h, out_addr(x), out, n, flags,
								    TMO), (int)n);
			assert_int_equal(usb_inproc_host_transfer(x->h, in_addr(x), in, BUFSZ, 0,
								    TMO), (int)n);
			if (n)
				assert_memory_equal(in, out, n);
			assert_int_equal(last_log(x).status, 0);
			assert_int_equal(last_log(x).actual, n);
			assert_true(last_log(x).host_thread);
		}
		fx_free(x);
	}
	free(out);
	free(in);
}

static void test_inproc_host_vendor_in(void **state)
{
	static const struct {
		uint16_t value, wlength;
		int want;
	} cases[] = {
		{ 0, 64, 0 },	  { 1, 64, 1 },	    { 18, 64, 18 },   { 63, 255, 63 },
		{ 64, 255, 64 },  { 64, 64, 64 },   { 65, 255, 65 },  { 128, 128, 128 },
		{ 128, 255, 128 }, { 300, 200, 200 }, { 4096, 4096, 4096 },
	};
	uint8_t *buf = malloc(4096);
	struct fx *x;

	(void)state;
	assert_non_null(buf);
	x = fx_up(false, USB_SPEED_HIGH);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(buf, 0, 4096);
		assert_int_equal(vendor(x, true, VREQ_IN, cases[i].value, cases[i].wlength, buf,
					TMO), cases[i].want);
		for (int k = 0; k < cases[i].want; k++)
			assert_int_equal(buf[k], pat((size_t)k));
	}
	free(buf);
	fx_free(x);
}

static void test_inproc_host_vendor_out(void **state)
{
	uint8_t data[300];
	struct fx *x = fx_up(false, USB_SPEED_FULL);

	(void)state;
	for (size_t k = 0; k < sizeof(data); k++)
		data[k] = (uint8_t)(k ^ 0x5a);
	/* 300 bytes in 64-byte packets, ending short; then exactly 128. */
	assert_int_equal(vendor(x, false, VREQ_OUT, 0, 300, data, TMO), 300);
	/* The completion ran before the status stage was reported. */
	assert_int_equal(x->t.ctrl_out_status, 0);
	assert_int_equal(x->t.ctrl_out_len, 300);
	assert_memory_equal(x->t.ctrl_out, data, 300);
	assert_int_equal(vendor(x, false, VREQ_OUT, 0, 128, data + 1, TMO), 128);
	assert_int_equal(x->t.ctrl_out_len, 128);
	assert_memory_equal(x->t.ctrl_out, data + 1, 128);
	/* wLength > 0 without a buffer: refused by the host. */
	assert_int_equal(vendor(x, false, VREQ_OUT, 0, 4, NULL, TMO), -USB_EINVAL);
	fx_free(x);
}

struct continuer {
	struct fx *x;
	unsigned delay_ms;
};

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { (time_t)(ms / 1000u), (long)(ms % 1000u) * 1000000L };

	nanosleep(&ts, NULL);
}

static void *continue_later(void *arg)
{
	struct continuer *c = arg;

	sleep_ms(c->delay_ms);
	usb_composite_setup_continue(fx_cdev(c->x));
	return NULL;
}

static void test_inproc_host_delayed_status(void **state)
{
	struct fx *x = fx_up(false, USB_SPEED_HIGH);
	struct continuer c = { x, 50 };
	pthread_t th;
	uint8_t buf[8];

	(void)state;
	/* Continued from another thread while the host waits. */
	assert_int_equal(pthread_create(&th, NULL, continue_later, &c), 0);
	assert_int_equal(vendor(x, false, VREQ_DELAY, 0, 0, NULL, TMO), 0);
	pthread_join(th, NULL);
	/* Never continued: the host gives up, bounded. */
	assert_int_equal(vendor(x, false, VREQ_DELAY, 0, 0, NULL, 100), -USB_ETIMEDOUT);
	/* A late continue is discarded at the next SETUP; ep0 still works. */
	usb_composite_setup_continue(fx_cdev(x));
	assert_int_equal(vendor(x, true, VREQ_IN, 8, 8, buf, TMO), 8);
	assert_int_equal(buf[7], pat(7));
	fx_free(x);
}

static void test_inproc_host_stall(void **state)
{
	struct fx *x = fx_up(false, USB_SPEED_HIGH);
	uint8_t buf[16];

	(void)state;
	assert_int_equal(vendor(x, false, VREQ_STALL, 0, 0, NULL, TMO), -USB_EPIPE);
	assert_int_equal(vendor(x, true, 0x77, 0, 16, buf, TMO), -USB_EPIPE);
	/* Wrong direction for the request: the function refuses: stall. */
	assert_int_equal(vendor(x, false, VREQ_IN, 4, 4, buf, TMO), -USB_EPIPE);
	/* ep0 recovers at the next SETUP. */
	assert_int_equal(vendor(x, true, VREQ_IN, 16, 16, buf, TMO), 16);
	fx_free(x);
}

static void test_inproc_host_short_packets(void **state)
{
	struct fx *x = fx_up(false, USB_SPEED_HIGH);
	uint8_t buf[2048];

	(void)state;
	/* IN: a request ending in a partial packet ends the host transfer. */
	queue_in(x, x->t.in_req, 100, false);
	assert_int_equal(usb_inproc_host_transfer(x->h, in_addr(x), buf, 2048, 0, TMO), 100);
	assert_int_equal(buf[99], pat(99));
	queue_in(x, x->t.in_req, 700, false);
	assert_int_equal(usb_inproc_host_transfer(x->h, in_addr(x), buf, 2048,
						    USB_INPROC_SHORT_NOT_OK, TMO),
			 -USB_EREMOTEIO);
	/* OUT: a short packet ends a request; short_not_ok reports it. */
	x->t.out_req->length = 1024;
	x->t.out_req->short_not_ok = 1;
	assert_int_equal(usb_ep_queue(x->t.out, x->t.out_req, USB_GFP_ATOMIC), 0);
	assert_int_equal(usb_inproc_host_transfer(x->h, out_addr(x), buf, 10, 0, TMO), 10);
	assert_int_equal(last_log(x).status, -USB_EREMOTEIO);
	assert_int_equal(last_log(x).actual, 10);
	x->t.out_req->short_not_ok = 0;
	/* OUT bigger than the request: the rest waits for the next request. */
	x->t.out_req->length = 512;
	assert_int_equal(usb_ep_queue(x->t.out, x->t.out_req, USB_GFP_ATOMIC), 0);
	assert_int_equal(usb_inproc_host_transfer(x->h, out_addr(x), buf, 1024, 0, 50),
			 -USB_ETIMEDOUT);
	assert_int_equal(last_log(x).status, 0);
	assert_int_equal(last_log(x).actual, 512);
	fx_free(x);
}

static void test_inproc_host_zlp(void **state)
{
	struct fx *x = fx_up(false, USB_SPEED_HIGH);
	uint8_t buf[4096];

	(void)state;
	/* zero=1, 512 bytes: data then a ZLP ends the host's 4 KiB read. */
	queue_in(x, x->t.in_req, 512, true);
	assert_int_equal(usb_inproc_host_transfer(x->h, in_addr(x), buf, 4096, 0, TMO), 512);
	/* Without zero the host keeps reading: the next request continues it. */
	queue_in(x, x->t.in_req, 512, false);
	queue_in(x, x->t.in_req2, 3, false);
	assert_int_equal(usb_inproc_host_transfer(x->h, in_addr(x), buf, 4096, 0, TMO), 515);
	/* A zero-length request is a ZLP. */
	queue_in(x, x->t.in_req, 0, false);
	assert_int_equal(usb_inproc_host_transfer(x->h, in_addr(x), buf, 4096, 0, TMO), 0);
	/* Exactly full: the ZLP stays for the next read. */
	queue_in(x, x->t.in_req, 512, true);
	assert_int_equal(usb_inproc_host_transfer(x->h, in_addr(x), buf, 512, 0, TMO), 512);
	assert_int_equal(usb_inproc_host_transfer(x->h, in_addr(x), buf, 512, 0, TMO), 0);
	assert_int_equal(last_log(x).actual, 512);
	/* OUT: ZERO_PACKET ends a request at a multiple of maxpacket. */
	x->t.out_req->length = 4096;
	assert_int_equal(usb_ep_queue(x->t.out, x->t.out_req, USB_GFP_ATOMIC), 0);
	assert_int_equal(usb_inproc_host_transfer(x->h, out_addr(x), buf, 1024,
						    USB_INPROC_ZERO_PACKET, TMO), 1024);
	assert_int_equal(last_log(x).actual, 1024);
	assert_false(last_log(x).in);
	fx_free(x);
}

static void test_inproc_host_babble(void **state)
{
	struct fx *x = fx_up(false, USB_SPEED_HIGH);
	uint8_t buf[600];

	(void)state;
	queue_in(x, x->t.in_req, 600, false);
	assert_int_equal(usb_inproc_host_transfer(x->h, in_addr(x), buf, 13, 0, TMO),
			 -USB_EOVERFLOW);
	assert_int_equal(buf[12], pat(12));
	fx_free(x);
}

static void test_inproc_host_halt(void **state)
{
	struct fx *x = fx_up(false, USB_SPEED_HIGH);
	uint8_t buf[512];

	(void)state;
	assert_int_equal(usb_ep_set_halt(x->t.in), 0);
	assert_int_equal(usb_inproc_host_transfer(x->h, in_addr(x), buf, 512, 0, TMO),
			 -USB_EPIPE);
	assert_int_equal(get_status_ep(x, in_addr(x)), 1);
	/* Requests queued meanwhile wait for the host. */
	queue_in(x, x->t.in_req, 5, false);
	assert_int_equal(usb_inproc_host_transfer(x->h, in_addr(x), buf, 512, 0, TMO),
			 -USB_EPIPE);
	assert_int_equal(usb_inproc_host_clear_halt(x->h, in_addr(x), TMO), 0);
	assert_int_equal(get_status_ep(x, in_addr(x)), 0);
	assert_int_equal(usb_inproc_host_transfer(x->h, in_addr(x), buf, 512, 0, TMO), 5);
	/* IN with data queued: the function may not halt. */
	queue_in(x, x->t.in_req, 5, false);
	assert_int_equal(usb_ep_set_halt(x->t.in), -USB_EAGAIN);
	assert_int_equal(usb_inproc_host_transfer(x->h, in_addr(x), buf, 512, 0, TMO), 5);
	/* The host halts OUT itself with SET_FEATURE. */
	{
		struct usb_ctrlrequest s = {
			.bRequestType = USB_DIR_OUT | USB_TYPE_STANDARD | USB_RECIP_ENDPOINT,
			.bRequest = USB_REQ_SET_FEATURE,
			.wValue = USB_CPU_TO_LE16(USB_ENDPOINT_HALT),
			.wIndex = USB_CPU_TO_LE16(out_addr(x)),
		};

		assert_int_equal(usb_inproc_host_control(x->h, &s, NULL, TMO), 0);
	}
	assert_int_equal(usb_inproc_host_transfer(x->h, out_addr(x), buf, 10, 0, TMO),
			 -USB_EPIPE);
	assert_int_equal(usb_inproc_host_clear_halt(x->h, out_addr(x), TMO), 0);
	/* Wedged: the host's CLEAR_FEATURE does not clear it. */
	assert_int_equal(usb_ep_set_wedge(x->t.out), 0);
	assert_int_equal(usb_inproc_host_clear_halt(x->h, out_addr(x), TMO), 0);
	assert_int_equal(get_status_ep(x, out_addr(x)), 1);
	assert_int_equal(usb_inproc_host_transfer(x->h, out_addr(x), buf, 10, 0, TMO),
			 -USB_EPIPE);
	assert_int_equal(usb_ep_clear_halt(x->t.out), 0);
	x->t.out_req->length = 512;
	assert_int_equal(usb_ep_queue(x->t.out, x->t.out_req, USB_GFP_ATOMIC), 0);
	assert_int_equal(usb_inproc_host_transfer(x->h, out_addr(x), buf, 10, 0, TMO), 10);
	fx_free(x);
}

static void test_inproc_host_dequeue(void **state)
{
	struct fx *x = fx_up(false, USB_SPEED_HIGH);
	uint8_t buf[2048];
	int n;

	(void)state;
	queue_in(x, x->t.in_req, 1024, false);
	n = nlog(x);
	assert_int_equal(usb_ep_dequeue(x->t.in, x->t.in_req), 0);
	/* Given back inside the call, in the caller's thread. */
	assert_int_equal(nlog(x), n + 1);
	assert_int_equal(last_log(x).status, -USB_ECONNRESET);
	assert_int_equal(usb_ep_dequeue(x->t.in, x->t.in_req), -USB_EINVAL);
	assert_int_equal(usb_inproc_host_transfer(x->h, in_addr(x), buf, 2048, 0, 30),
			 -USB_ETIMEDOUT);
	/* Dequeue after part of the data went: actual says how much. */
	queue_in(x, x->t.in_req, 1024, false);
	assert_int_equal(usb_inproc_host_transfer(x->h, in_addr(x), buf, 512, 0, TMO), 512);
	assert_int_equal(usb_ep_dequeue(x->t.in, x->t.in_req), 0);
	assert_int_equal(last_log(x).status, -USB_ECONNRESET);
	assert_int_equal(last_log(x).actual, 512);
	fx_free(x);
}

static void test_inproc_host_disconnect(void **state)
{
	struct fx *x = fx_up(false, USB_SPEED_HIGH);
	struct usb_inproc_xfer *xin = NULL;
	uint8_t buf[512];
	int n;

	(void)state;
	queue_in(x, x->t.in_req, 1024, false);
	x->t.out_req->length = 512;
	assert_int_equal(usb_ep_queue(x->t.out, x->t.out_req, USB_GFP_ATOMIC), 0);
	assert_int_equal(usb_inproc_host_submit(x->h, out_addr(x) | 0, buf, 0, 0, &xin), 0);
	/* That ZLP completed the OUT request at once. */
	assert_int_equal(usb_inproc_host_wait(x->h, xin, TMO), 0);
	usb_inproc_host_free(x->h, xin);
	assert_int_equal(usb_ep_queue(x->t.out, x->t.out_req, USB_GFP_ATOMIC), 0);
	/* A host transfer waiting on another endpoint. */
	n = nlog(x);
	assert_int_equal(usb_inproc_host_disconnect(x->h), 0);
	assert_int_equal(nlog(x), n + 2);
	for (int i = n; i < n + 2; i++) {
		assert_int_equal(x->t.log[i].status, -USB_ESHUTDOWN);
		assert_true(x->t.log[i].host_thread);
	}
	assert_int_equal(x->t.disable_calls, 1);
	assert_int_equal(usb_ep_queue(x->t.in, x->t.in_req, USB_GFP_ATOMIC), -USB_ESHUTDOWN);
	assert_int_equal(usb_inproc_host_transfer(x->h, in_addr(x), buf, 512, 0, TMO),
			 -USB_ENODEV);
	assert_int_equal(vendor(x, true, VREQ_IN, 1, 1, buf, TMO), -USB_ENODEV);
	assert_int_equal(usb_inproc_host_disconnect(x->h), 0);
	/* And back. */
	assert_int_equal(usb_inproc_host_enumerate(x->h, USB_SPEED_FULL, 1, NULL, NULL, 0, TMO),
			 x->total);
	assert_int_equal(x->t.set_alt_calls, 2);
	fx_free(x);
}

static void test_inproc_host_disconnect_pending_transfer(void **state)
{
	struct fx *x = fx_up(false, USB_SPEED_HIGH);
	struct usb_inproc_xfer *a = NULL;
	uint8_t buf[512];

	(void)state;
	assert_int_equal(usb_inproc_host_submit(x->h, in_addr(x), buf, 512, 0, &a), 0);
	assert_int_equal(usb_inproc_host_wait(x->h, a, 0), -USB_ETIMEDOUT);
	assert_int_equal(usb_inproc_host_disconnect(x->h), 0);
	assert_int_equal(usb_inproc_host_wait(x->h, a, TMO), -USB_ESHUTDOWN);
	usb_inproc_host_free(x->h, a);
	fx_free(x);
}

static void test_inproc_host_bus_reset(void **state)
{
	struct fx *x = fx_up(false, USB_SPEED_HIGH);
	struct usb_inproc_xfer *a = NULL;
	uint8_t buf[512];

	(void)state;
	assert_int_equal(usb_inproc_host_submit(x->h, in_addr(x), buf, 512, 0, &a), 0);
	queue_in(x, x->t.in_req2, 5000, false);
	assert_int_equal(usb_inproc_host_wait(x->h, a, TMO), 512);
	usb_inproc_host_free(x->h, a);
	assert_int_equal(usb_inproc_host_submit(x->h, out_addr(x), buf, 512, 0, &a), 0);
	assert_int_equal(usb_inproc_host_connect(x->h, USB_SPEED_HIGH), 0);
	assert_int_equal(usb_inproc_host_wait(x->h, a, TMO), -USB_ECONNRESET);
	usb_inproc_host_free(x->h, a);
	assert_int_equal(last_log(x).status, -USB_ESHUTDOWN);
	assert_int_equal(last_log(x).actual, 512);
	assert_int_equal(x->t.disable_calls, 1);
	/* Default state: SET_ADDRESS and GET_DESCRIPTOR work; the device is
	 * not configured. */
	assert_int_equal(usb_inproc_host_enumerate(x->h, USB_SPEED_HIGH, 0, NULL, NULL, 0, TMO),
			 x->total);
	assert_int_equal(get_configuration(x), 0);
	fx_free(x);
}

struct worker {
	struct fx *x;
	unsigned delay_ms;
	unsigned len;
	bool out;	/* queue the OUT request instead of the IN one */
};

static void *queue_later(void *arg)
{
	struct worker *w = arg;

	sleep_ms(w->delay_ms);
	if (!w->out) {
		queue_in(w->x, w->x->t.in_req, w->len, false);
		return NULL;
	}
	w->x->t.out_req->length = w->len;
	assert_int_equal(usb_ep_queue(w->x->t.out, w->x->t.out_req, USB_GFP_ATOMIC), 0);
	return NULL;
}

static void test_inproc_host_worker_thread(void **state)
{
	struct fx *x = fx_up(false, USB_SPEED_HIGH);
	struct worker w = { x, 50, 1000, false };
	uint8_t buf[2048];
	pthread_t th;

	(void)state;
	assert_int_equal(pthread_create(&th, NULL, queue_later, &w), 0);
	assert_int_equal(usb_inproc_host_transfer(x->h, in_addr(x), buf, 2048, 0, TMO), 1000);
	pthread_join(th, NULL);
	assert_int_equal(buf[999], pat(999));
	/* The completion ran in the host thread (the event context). */
	assert_int_equal(last_log(x).status, 0);
	assert_true(last_log(x).host_thread);
	/* Queued by a worker with no host waiting: given back at the next
	 * host call. */
	w.delay_ms = 0;
	w.len = 10;
	assert_int_equal(pthread_create(&th, NULL, queue_later, &w), 0);
	pthread_join(th, NULL);
	{
		struct usb_inproc_xfer *a = NULL;
		int n = nlog(x);

		assert_int_equal(usb_inproc_host_submit(x->h, in_addr(x), buf, 512, 0, &a), 0);
		assert_int_equal(nlog(x), n + 1);
		assert_int_equal(usb_inproc_host_wait(x->h, a, TMO), 10);
		usb_inproc_host_free(x->h, a);
	}
	fx_free(x);
}

/* OUT queued by a worker while the host waits: the host thread moves the
 * bytes and gives the request back (inproc_udc_posix.c's deferred path). */
static void test_inproc_host_worker_out(void **state)
{
	struct fx *x = fx_up(false, USB_SPEED_HIGH);
	struct worker w = { x, 50, 1024, true };
	uint8_t buf[1024];
	pthread_t th;

	(void)state;
	for (size_t k = 0; k < sizeof(buf); k++)
		buf[k] = pat(k);
	assert_int_equal(pthread_create(&th, NULL, queue_later, &w), 0);
	assert_int_equal(usb_inproc_host_transfer(x->h, out_addr(x), buf, 1024, 0, TMO), 1024);
	pthread_join(th, NULL);
	assert_int_equal(last_log(x).status, 0);
	assert_int_equal(last_log(x).actual, 1024);
	assert_true(last_log(x).host_thread);
	assert_memory_equal(x->t.out_buf, buf, 1024);
	fx_free(x);
}

static void test_inproc_host_async(void **state)
{
	struct fx *x = fx_up(false, USB_SPEED_HIGH);
	struct usb_inproc_xfer *a[3] = { NULL, NULL, NULL };
	uint8_t buf[3][512];

	(void)state;
	for (int i = 0; i < 3; i++)
		assert_int_equal(usb_inproc_host_submit(x->h, in_addr(x), buf[i], 512, 0, &a[i]), 0);
	/* 512 + 100: the first transfer is full, the second ends short. */
	queue_in(x, x->t.in_req, 612, false);
	assert_int_equal(usb_inproc_host_wait(x->h, a[1], TMO), 100);
	assert_int_equal(usb_inproc_host_wait(x->h, a[0], 0), 512);
	assert_int_equal(buf[1][0], pat(512));
	assert_int_equal(usb_inproc_host_cancel(x->h, a[0]), -USB_EALREADY);
	assert_int_equal(usb_inproc_host_wait(x->h, a[2], 10), -USB_ETIMEDOUT);
	assert_int_equal(usb_inproc_host_cancel(x->h, a[2]), 0);
	assert_int_equal(usb_inproc_host_wait(x->h, a[2], 0), -USB_ECONNRESET);
	assert_int_equal(usb_inproc_xfer_actual(a[2]), 0);
	for (int i = 0; i < 3; i++)
		usb_inproc_host_free(x->h, a[i]);
	/* Freed while pending: cancelled, nothing left behind. */
	assert_int_equal(usb_inproc_host_submit(x->h, out_addr(x), buf[0], 10, 0, &a[0]), 0);
	usb_inproc_host_free(x->h, a[0]);
	x->t.out_req->length = 64;
	assert_int_equal(usb_ep_queue(x->t.out, x->t.out_req, USB_GFP_ATOMIC), 0);
	assert_int_equal(usb_inproc_host_transfer(x->h, out_addr(x), buf[1], 7, 0, TMO), 7);
	fx_free(x);
}

static void test_inproc_host_bad_arguments(void **state)
{
	struct usb_inproc_host *h = NULL, *h2 = NULL;
	struct usb_inproc_host_config c;
	struct usb_inproc_ep_config eps[2] = { { .address = 0x81 }, { .address = 0x81 } };
	struct usb_ctrlrequest s = { .bRequestType = USB_DIR_IN, .bRequest = 6,
				     .wValue = USB_CPU_TO_LE16(0x100), .wLength = USB_CPU_TO_LE16(18) };
	uint8_t buf[18];

	(void)state;
	memset(&c, 0, sizeof(c));
	c.ep0_maxpacket = 7;
	assert_int_equal(usb_inproc_host_create(&c, &h), -USB_EINVAL);
	c.ep0_maxpacket = 0;
	c.endpoints = eps;
	c.num_endpoints = 2;
	assert_int_equal(usb_inproc_host_create(&c, &h), -USB_EINVAL);
	c.num_endpoints = 1;
	c.udc_name = "lb.bad";
	c.max_speed = USB_SPEED_FULL;
	assert_int_equal(usb_inproc_host_create(&c, &h), 0);
	assert_int_equal(usb_inproc_host_create(&c, &h2), -USB_EINVAL);	/* name taken */
	assert_null(h2);
	assert_ptr_equal(usb_udc_find("lb.bad"), usb_inproc_host_gadget(h));
	/* No driver bound. */
	assert_int_equal(usb_inproc_host_connect(h, USB_SPEED_FULL), -USB_ENODEV);
	assert_int_equal(usb_inproc_host_connect(h, USB_SPEED_HIGH), -USB_EINVAL);
	assert_int_equal(usb_inproc_host_control(h, &s, buf, 10), -USB_ENODEV);
	assert_int_equal(usb_inproc_host_transfer(h, 0x81, buf, 18, 0, 10), -USB_ENODEV);
	assert_int_equal(usb_inproc_host_transfer(h, 0x82, buf, 18, 0, 10), -USB_EINVAL);
	assert_int_equal(usb_inproc_host_transfer(h, 0x00, buf, 18, 0, 10), -USB_EINVAL);
	assert_int_equal(usb_inproc_host_transfer(h, 0x81, NULL, 18, 0, 10), -USB_EINVAL);
	assert_int_equal(usb_inproc_host_suspend(h), -USB_ENODEV);
	assert_int_equal(usb_inproc_host_poll(h), 0);
	assert_int_equal(usb_inproc_host_disconnect(h), 0);
	usb_inproc_host_destroy(h);
	assert_null(usb_udc_find("lb.bad"));
	usb_inproc_host_destroy(NULL);
}

static void test_inproc_host_suspend_resume_info(void **state)
{
	struct fx *x = fx_up(false, USB_SPEED_HIGH);
	struct usb_inproc_host_info info;

	(void)state;
	assert_int_equal(usb_inproc_host_suspend(x->h), 0);
	assert_int_equal(fx_cdev(x)->suspended, 1);
	assert_int_equal(usb_inproc_host_resume(x->h), 0);
	assert_int_equal(fx_cdev(x)->suspended, 0);
	usb_inproc_host_info(x->h, &info);
	assert_int_equal(info.vbus_mA, 100);
	assert_int_equal(info.pullup, 1);
	fx_free(x);
}

static void test_inproc_host_ep0_maxpacket8(void **state)
{
	struct usb_inproc_host_config cfg = { .ep0_maxpacket = 8, .max_speed = USB_SPEED_FULL };
	struct fx *x = fx_new_cfg(false, &cfg);
	uint8_t buf[256];
	int total;

	(void)state;
	/* Every descriptor crosses several 8-byte packets. */
	total = usb_inproc_host_enumerate(x->h, USB_SPEED_FULL, 1, &x->got_dev, x->got_config,
					    sizeof(x->got_config), TMO);
	assert_int_equal(total, 32);
	assert_int_equal(x->got_dev.bMaxPacketSize0, 8);
	assert_int_equal(x->got_config[18 + 1], USB_DT_ENDPOINT);
	/* 64 < wLength, a multiple of 8: ends with a ZLP. */
	assert_int_equal(vendor(x, true, VREQ_IN, 64, 255, buf, TMO), 64);
	assert_int_equal(vendor(x, true, VREQ_IN, 61, 255, buf, TMO), 61);
	assert_int_equal(buf[60], pat(60));
	assert_int_equal(vendor(x, false, VREQ_OUT, 0, 20, buf, TMO), 20);
	/* High speed needs 64 on ep0; too fast for this controller anyway. */
	assert_int_equal(usb_inproc_host_connect(x->h, USB_SPEED_HIGH), -USB_EINVAL);
	fx_free(x);
}

static void test_inproc_host_pullup(void **state)
{
	struct fx *x = fx_up(false, USB_SPEED_HIGH);
	struct usb_gadget *g = usb_inproc_host_gadget(x->h);
	struct usb_inproc_host_info info;
	int n;

	(void)state;
	queue_in(x, x->t.in_req, 10, false);
	n = nlog(x);
	/* The device hides itself (as usb_function_deactivate() does): the
	 * host sees an unplug at its next call. */
	assert_int_equal(usb_gadget_disconnect(g), 0);
	assert_int_equal(usb_inproc_host_poll(x->h), 1);
	assert_int_equal(nlog(x), n + 1);
	assert_int_equal(last_log(x).status, -USB_ESHUTDOWN);
	usb_inproc_host_info(x->h, &info);
	assert_int_equal(info.connected, 0);
	assert_int_equal(info.pullup, 0);
	assert_int_equal(usb_inproc_host_connect(x->h, USB_SPEED_HIGH), -USB_ENODEV);
	assert_int_equal(usb_gadget_connect(g), 0);
	assert_int_equal(usb_inproc_host_enumerate(x->h, USB_SPEED_HIGH, 1, NULL, NULL, 0, TMO),
			 x->total);
	assert_int_equal(x->t.set_alt_calls, 2);
	fx_free(x);
}

static void test_inproc_host_destroy_bound(void **state)
{
	struct fx *x = fx_up(true, USB_SPEED_HIGH);
	struct usb_inproc_xfer *a = NULL;
	uint8_t buf[64];

	(void)state;
	/* Destroying the host unbinds the driver: its requests come back,
	 * the function is unbound, and the host transfer fails. */
	assert_int_equal(usb_inproc_host_submit(x->h, in_addr(x), buf, sizeof(buf), 0, &a), 0);
	usb_inproc_host_free(x->h, a);
	usb_inproc_host_destroy(x->h);
	x->h = NULL;
	assert_null(fx_cdev(x));
	assert_int_equal(x->t.disable_calls, 1);
	assert_null(usb_udc_find("inproc.0"));
	tf_fini(&x->t);
	free(x);
	current_fx = NULL;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_inproc_host_enumerate),
		cmocka_unit_test(test_inproc_host_echo_sizes),
		cmocka_unit_test(test_inproc_host_vendor_in),
		cmocka_unit_test(test_inproc_host_vendor_out),
		cmocka_unit_test(test_inproc_host_delayed_status),
		cmocka_unit_test(test_inproc_host_stall),
		cmocka_unit_test(test_inproc_host_short_packets),
		cmocka_unit_test(test_inproc_host_zlp),
		cmocka_unit_test(test_inproc_host_babble),
		cmocka_unit_test(test_inproc_host_halt),
		cmocka_unit_test(test_inproc_host_dequeue),
		cmocka_unit_test(test_inproc_host_disconnect),
		cmocka_unit_test(test_inproc_host_disconnect_pending_transfer),
		cmocka_unit_test(test_inproc_host_bus_reset),
		cmocka_unit_test(test_inproc_host_worker_thread),
		cmocka_unit_test(test_inproc_host_worker_out),
		cmocka_unit_test(test_inproc_host_async),
		cmocka_unit_test(test_inproc_host_bad_arguments),
		cmocka_unit_test(test_inproc_host_suspend_resume_info),
		cmocka_unit_test(test_inproc_host_ep0_maxpacket8),
		cmocka_unit_test(test_inproc_host_pullup),
		cmocka_unit_test(test_inproc_host_destroy_bound),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
