/*
 * fuzz_net.c - libFuzzer target for the network functions (ECM, NCM:
 * include/composite/ether.h) as a hostile host drives them through the
 * in-process host. Input byte 0: bit 0 ECM/NCM, bits 1-2 the speed
 * (full, high, super). Then a script; each step's first byte picks:
 *   0  a control transfer (class to an interface, a standard GET, or raw)
 *   1  SET_INTERFACE of the data interface to 0, 1 or 2
 *   2  a bulk OUT transfer (arbitrary bytes; lengths around a frame,
 *      packet multiples, 0, > 16 KiB; with or without a ZLP)
 *   3  a bulk IN read (checked, arbitrary length, or submit then cancel)
 *   4  usb_net_send() of one frame, 5 of a burst of frames
 *   6  a notify read (rarely: the endpoint is paced at 32 ms)
 *   7  a bus reset and enumeration again, 8 SET_CONFIGURATION 0/1
 * What must hold besides ASan/UBSan: every frame given to ops->rx is
 * 14..1514 bytes, and (ECM) a single valid frame the host sent on a
 * request boundary arrives as sent; the counters never decrease;
 * usb_net_send() returns only its documented errors; what the host reads
 * on bulk IN while in step with the requests is one frame the gadget sent
 * (ECM) or one well-formed NTB of such frames in order (NCM), walked here
 * and not with the codec under test.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "composite/composite.h"
#include "composite/ether.h"
#include "composite/inproc_host.h"
#include "fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CTRL_TMO 5
#define BUF_MAX 40000

static struct usb_function *fn;
static struct usb_net_opts opts;
static bool is_ncm;

static int cfg_bind(struct usb_configuration *c)
{
	int rc = is_ncm ? ncm_alloc(&opts, &fn) : ecm_alloc(&opts, &fn);

	if (rc == 0 && (rc = usb_add_function(c, fn)) != 0)
		(is_ncm ? ncm_free : ecm_free)(fn);
	return rc;
}

static struct usb_configuration cfg = { .label = "net", .bConfigurationValue = 1 };

static int drv_bind(struct usb_composite_dev *cdev)
{
	return usb_add_config(cdev, &cfg, cfg_bind);
}

static const struct usb_device_descriptor dd = {
	.bLength = USB_DT_DEVICE_SIZE, .bDescriptorType = USB_DT_DEVICE,
	.bcdUSB = USB_CPU_TO_LE16(0x0200), .bDeviceClass = USB_CLASS_COMM,
	.idVendor = USB_CPU_TO_LE16(0x0525), .idProduct = USB_CPU_TO_LE16(0xa4a1),
};

static struct usb_composite_driver drv = {
	.name = "fuzz-net", .dev = &dd, .max_speed = USB_SPEED_SUPER,
	.udc_name = "fuzz-net.0", .bind = drv_bind,
};

/* What the fuzzer knows of the function's state. */
static struct {
	enum usb_device_speed speed;
	uint8_t ep_notify, ep_in, ep_out;
	unsigned maxp;		/* the bulk endpoints' */
	bool known;		/* nothing changed state behind the fuzzer's back */
	bool up;		/* the data interface is at alternate 1 */
	bool in_sync;		/* the next IN read starts at a request's start */
	bool size_stable;	/* NCM: the IN size did not change while up */
	bool out_clean;		/* ECM: the next OUT byte starts a request */
	unsigned notify_reads, enumerations;
	uint16_t next_id;	/* the next frame's id (gadget side) */
	int last_id;		/* the last id the host read */
	struct usb_net_stats st;
} S;

static unsigned rx_count;
static uint8_t rx_last[USB_NET_FRAME_MAX];
static size_t rx_len;
static uint8_t *buf;

static void ev_rx(struct usb_function *f, void *ctx, const void *frame, size_t len)
{
	(void)f;
	(void)ctx;
	CHECK(len >= USB_NET_HLEN && len <= USB_NET_FRAME_MAX);
	rx_count++;
	rx_len = len;
	memcpy(rx_last, frame, len);
}

static const struct usb_net_ops ev_ops = { .rx = ev_rx };

static unsigned le16(const uint8_t *p) { return p[0] | (unsigned)p[1] << 8; }
static uint32_t le32(const uint8_t *p) { return le16(p) | (uint32_t)le16(p + 2) << 16; }

static void unknown(void)
{
	S.known = S.in_sync = S.out_clean = false;
}

/* Link down and every request given back: the fuzzer knows where it is. */
static void link_reset(bool up)
{
	S.known = S.in_sync = S.size_stable = S.out_clean = true;
	S.up = up;
}

static void enumerate(struct usb_inproc_host *h)
{
	uint8_t c[512];
	int n = usb_inproc_host_enumerate(h, S.speed, 1, NULL, c, sizeof(c), CTRL_TMO);

	S.ep_notify = S.ep_in = S.ep_out = 0;
	for (int off = 0; off + 2 <= n && off < (int)sizeof(c) && c[off] >= 2; off += c[off]) {
		const uint8_t *d = c + off;

		if (off + 7 > (int)sizeof(c) || d[1] != USB_DT_ENDPOINT)
			continue;
		if ((d[3] & 3) == USB_ENDPOINT_XFER_INT) {
			S.ep_notify = d[2];
		} else {
			*(d[2] & USB_DIR_IN ? &S.ep_in : &S.ep_out) = d[2];
			S.maxp = le16(d + 4) & 0x7ff;
		}
	}
	link_reset(false);
	if (n <= 0)
		unknown();
}

/* A gadget frame: bytes 0-1 its id, 2-3 its length, then a pattern. */
static void make_frame(uint8_t *f, size_t len, uint16_t id)
{
	for (size_t k = 0; k < len; k++)
		f[k] = (uint8_t)(id * 7u + k);
	if (len >= 4) {
		f[0] = (uint8_t)id;
		f[1] = (uint8_t)(id >> 8);
		f[2] = (uint8_t)len;
		f[3] = (uint8_t)(len >> 8);
	}
}

/* A frame the host read: one the gadget sent, after the last one read. */
static void check_frame(const uint8_t *f, size_t len)
{
	unsigned id = le16(f);

	CHECK(len >= USB_NET_HLEN && len <= USB_NET_FRAME_MAX);
	CHECK(le16(f + 2) == len);
	for (size_t k = 4; k < len; k++)
		CHECK(f[k] == (uint8_t)(id * 7u + k));
	CHECK((int)id > S.last_id);
	S.last_id = (int)id;
}

static void send_one(size_t len)
{
	int r;

	make_frame(buf, len, S.next_id);
	r = usb_net_send(fn, buf, len);
	if (len < USB_NET_HLEN || len > USB_NET_FRAME_MAX)
		CHECK(r == -USB_EMSGSIZE);
	else
		CHECK(r == 0 || r == -USB_ENOTCONN || r == -USB_EAGAIN);
	if (r == 0 && S.next_id < 0xffff)
		S.next_id++;
}

/* The host's walk of an IN NTB of @n bytes: NTH, NDP chain, datagrams. */
static void walk_ntb(const uint8_t *b, size_t n)
{
	bool n32;
	size_t hl, ndp, block;
	unsigned ndps = 0, datagrams = 0;

	CHECK(n >= 12);
	n32 = memcmp(b, "ncmh", 4) == 0;
	CHECK(n32 || memcmp(b, "NCMH", 4) == 0);
	hl = le16(b + 4);
	CHECK(hl == (n32 ? 16u : 12u) && n >= hl);
	block = n32 ? le32(b + 8) : le16(b + 8);
	CHECK(block == n);
	ndp = n32 ? le32(b + 12) : le16(b + 10);
	while (ndp) {
		size_t wl, step = n32 ? 8 : 4, first = n32 ? 16 : 8, e;

		CHECK(++ndps <= 8);
		CHECK(ndp % 4 == 0 && ndp >= hl && ndp + first <= n);
		CHECK(memcmp(b + ndp, n32 ? "ncm0" : "NCM0", 4) == 0);
		wl = le16(b + ndp + 4);
		CHECK(wl >= first + 2 * step && wl % step == 0 && ndp + wl <= n);
		for (e = ndp + first; e + step <= ndp + wl; e += step) {
			size_t off = n32 ? le32(b + e) : le16(b + e);
			size_t dl = n32 ? le32(b + e + 4) : le16(b + e + 2);

			if (!off || !dl)
				break;
			CHECK(off >= hl && off <= n && dl <= n - off);
			check_frame(b + off, dl);
			datagrams++;
		}
		CHECK(e + step <= ndp + wl);	/* a terminating entry */
		ndp = n32 ? le32(b + ndp + 8) : le16(b + ndp + 6);
	}
	CHECK(datagrams > 0);
}

static int ctrl(struct usb_inproc_host *h, uint8_t type, uint8_t req, uint16_t value,
		uint16_t index, void *data, uint16_t len)
{
	struct usb_ctrlrequest rq = {
		.bRequestType = type, .bRequest = req, .wValue = USB_CPU_TO_LE16(value),
		.wIndex = USB_CPU_TO_LE16(index), .wLength = USB_CPU_TO_LE16(len),
	};

	return usb_inproc_host_control(h, &rq, data, CTRL_TMO);
}

static void step_control(struct usb_inproc_host *h, struct input *in)
{
	uint8_t sel = in_u8(in), type, req = in_u8(in);
	uint16_t value = (uint16_t)in_le(in, 2), index, len;

	switch (sel % 4) {
	case 0: type = USB_DIR_OUT | USB_TYPE_CLASS | USB_RECIP_INTERFACE; break;
	case 1: type = USB_DIR_IN | USB_TYPE_CLASS | USB_RECIP_INTERFACE; break;
	case 2: type = USB_DIR_IN | (uint8_t)((sel >> 2) % 3); break;	/* standard GETs */
	default: type = in_u8(in); break;
	}
	index = (sel >> 4) % 4 == 3 ? (uint16_t)in_le(in, 2) : (sel >> 4) % 4;
	len = (uint16_t)(in_le(in, 2) % 4097);
	if (!(type & USB_DIR_IN))
		in_fill(in, buf, len);
	if (sel % 4 == 3)
		unknown();
	/* SET_NTB_INPUT_SIZE while open: NTBs already built keep the old one. */
	if (sel % 4 == 0 && req == USB_CDC_SET_NTB_INPUT_SIZE && S.up)
		S.size_stable = false;
	(void)ctrl(h, type, req, value, index, buf, len);
}

static void step_out(struct usb_inproc_host *h, struct input *in)
{
	uint8_t sel = in_u8(in);
	unsigned flags = sel & 0x80 ? USB_INPROC_ZERO_PACKET : 0, before = rx_count;
	size_t len;
	bool ends_short, checked;
	int r;

	switch (sel % 8) {
	case 0: len = in_le(in, 2); break;
	case 1: len = 0; break;
	case 2: len = (size_t)(1514 + (int8_t)in_u8(in)); break;
	case 3: len = (size_t)(in_u8(in) % 40) * S.maxp; break;
	case 4: len = (size_t)(in_u8(in) % 40) * S.maxp + 1; break;
	case 5: len = 14 + in_u8(in); break;
	case 6: len = 16384 + in_u8(in) % 8 - 4; break;
	default: len = in_le(in, 2) % BUF_MAX; break;
	}
	if (len > BUF_MAX)
		len = BUF_MAX;
	in_fill(in, buf, len);
	if (!S.ep_out)
		return;
	ends_short = S.maxp && (len % S.maxp || (flags & USB_INPROC_ZERO_PACKET));
	checked = !is_ncm && S.known && S.up && S.out_clean && ends_short &&
		  len >= USB_NET_HLEN && len <= USB_NET_FRAME_MAX;
	r = usb_inproc_host_transfer(h, S.ep_out, buf, len, flags, sel & 0x40 ? 1 : 0);
	if (checked && r == (int)len) {
		CHECK(rx_count == before + 1);
		CHECK(rx_len == len && memcmp(rx_last, buf, len) == 0);
	}
	if (len)
		S.out_clean = r == (int)len && ends_short;
	else if (r < 0)
		S.out_clean = false;
}

static void step_in(struct usb_inproc_host *h, struct input *in)
{
	uint8_t sel = in_u8(in);
	size_t len;
	bool checked = false;
	int r;

	if (!S.ep_in)
		return;
	switch (sel % 4) {
	case 0:
		/* As the host's driver reads: ECM a frame and more, NCM the IN size. */
		len = 2048;
		if (is_ncm) {
			uint8_t b[4];

			if (ctrl(h, USB_DIR_IN | USB_TYPE_CLASS | USB_RECIP_INTERFACE,
				 USB_CDC_GET_NTB_INPUT_SIZE, 0, 0, b, 4) != 4) {
				unknown();
				return;
			}
			len = le32(b);
			if (len > BUF_MAX)
				len = BUF_MAX;
		}
		checked = S.known && S.in_sync && (!is_ncm || S.size_stable);
		break;
	case 1: len = in_le(in, 2) % BUF_MAX; break;
	case 2: len = (size_t)(in_u8(in) % 40) * S.maxp; break;
	default: {
		struct usb_inproc_xfer *x;

		len = in_le(in, 2) % BUF_MAX;
		if (usb_inproc_host_submit(h, S.ep_in, buf, len, 0, &x) == 0) {
			(void)usb_inproc_host_wait(h, x, in_u8(in) % 2);
			/* Cancelled: cut anywhere. Completed: a short end ended
			 * a request; a full one may have cut it. */
			if (usb_inproc_host_cancel(h, x) == 0)
				S.in_sync = false;
			else
				S.in_sync = usb_inproc_xfer_actual(x) < len;
			usb_inproc_host_free(h, x);
		}
		return;
	}
	}
	r = usb_inproc_host_transfer(h, S.ep_in, buf, len, 0, sel & 0x80 ? 1 : 0);
	if (checked && r > 0) {
		if (is_ncm)
			walk_ntb(buf, (size_t)r);
		else
			check_frame(buf, (size_t)r);
	}
	/* A short end ends the request; a full one may have cut it. */
	if (r >= 0)
		S.in_sync = (size_t)r < len || (checked && S.in_sync);
	else if (r != -USB_ETIMEDOUT)
		S.in_sync = false;
}

static void step(struct usb_inproc_host *h, struct input *in)
{
	uint8_t n[16];

	switch (in_u8(in) % 10) {
	case 0:
		step_control(h, in);
		break;
	case 1: {
		uint8_t alt = in_u8(in) % 3;

		if (usb_inproc_host_set_interface(h, 1, alt, CTRL_TMO) == 0)
			link_reset(alt == 1);
		else if (alt < 2)
			unknown();
		break;
	}
	case 2:
		step_out(h, in);
		break;
	case 3:
		step_in(h, in);
		break;
	case 4: {
		uint8_t sel = in_u8(in);
		size_t len;

		switch (sel % 4) {
		case 0: len = in_le(in, 2) % 2048; break;
		case 1: len = 14u + in_u8(in); break;
		case 2: len = 1510u + in_u8(in) % 8; break;
		default: len = in_u8(in) % 20; break;
		}
		send_one(len);
		break;
	}
	case 5: {
		unsigned count = in_u8(in) % 40, base = in_u8(in);

		for (unsigned i = 0; i < count; i++)
			send_one(14 + (base * 5 + i * 97) % 1501);
		break;
	}
	case 6:
		if (S.ep_notify && S.notify_reads++ < 2)
			(void)usb_inproc_host_transfer(h, S.ep_notify, n, sizeof(n), 0, 1);
		break;
	case 7:
		if (S.enumerations++ < 2)
			enumerate(h);
		break;
	case 8:
		(void)ctrl(h, 0, USB_REQ_SET_CONFIGURATION, in_u8(in) & 1, 0, NULL, 0);
		link_reset(false);
		break;
	default:
		(void)usb_inproc_host_poll(h);
		break;
	}
}

/* Every counter only grows. */
static void check_stats(void)
{
	struct usb_net_stats st;

	usb_net_get_stats(fn, &st);
	CHECK(st.rx_frames >= S.st.rx_frames && st.rx_bytes >= S.st.rx_bytes);
	CHECK(st.tx_frames >= S.st.tx_frames && st.tx_bytes >= S.st.tx_bytes);
	CHECK(st.rx_dropped_short >= S.st.rx_dropped_short);
	CHECK(st.rx_dropped_long >= S.st.rx_dropped_long);
	CHECK(st.rx_errors >= S.st.rx_errors && st.tx_dropped >= S.st.tx_dropped);
	CHECK(st.rx_ntbs_dropped >= S.st.rx_ntbs_dropped);
	S.st = st;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum usb_device_speed speeds[4] = {
		USB_SPEED_FULL, USB_SPEED_HIGH, USB_SPEED_SUPER, USB_SPEED_HIGH
	};
	struct usb_inproc_host_config hc = { .udc_name = "fuzz-net.0",
					     .max_speed = USB_SPEED_SUPER };
	struct usb_inproc_host *h;
	struct input in = { data, size };
	uint8_t mode = in_u8(&in);

	if (!buf) {
		buf = malloc(BUF_MAX);
		usb_composite_set_log_handler(NULL, NULL);
	}
	memset(&S, 0, sizeof(S));
	S.speed = speeds[(mode >> 1) & 3];
	S.last_id = -1;
	rx_count = 0;
	is_ncm = mode & 1;
	usb_net_opts_init(&opts);
	opts.ops = &ev_ops;
	opts.qmult = 1 + (mode >> 3) % 5;
	fn = NULL;
	CHECK(usb_inproc_host_create(&hc, &h) == 0);
	CHECK(usb_composite_probe(&drv) == 0);
	enumerate(h);
	for (unsigned steps = 0; in.left && steps < 64; steps++) {
		step(h, &in);
		check_stats();
	}
	usb_composite_unregister(&drv);
	usb_inproc_host_destroy(h);
	return 0;
}
