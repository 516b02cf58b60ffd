/*
 * test_usbip_msf.c - the Mass Storage Function served by the USB/IP
 * backend, driven over 127.0.0.1 by the test client as usb-storage would
 * drive it through vhci: SET_CONFIGURATION (a delayed status stage),
 * GET_MAX_LUN, Bulk-Only commands with 128 KiB data URBs, a wedged
 * endpoint after an invalid CBW with the reset recovery, and a re-attach;
 * then the same device on a SuperSpeed server (512-byte ep0, 1024-byte bulk
 * packets with companions, BOS, no device qualifier), and a high-speed-only
 * driver on a SuperSpeed server, which enumerates at high speed; and the
 * capture of all that to a usbmon pcap file, read back with Debian's
 * tshark (INQUIRY vendor, READ(10)/WRITE(10) LBAs, CSW statuses, an
 * unlinked URB), and a capture that fails half way (the device goes on).
 */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "composite/mass_storage.h"
#include "composite/usbip.h"
#include "usbip_client.h"

#define DISK_BYTES (4u << 20)
#define BIG (128u * 1024u)

static struct usbip_server *srv;
static unsigned port;
static char busid[8];		/* the group's: "1-1", "2-1"... */
static struct fsg_common *common;
static const char *vendor;	/* INQUIRY vendor; NULL: the default */
static const char *capture_dir;	/* cfg.capture_dir of the next server */
static size_t capture_max;	/* cfg.capture_max_data of the next server */

static struct usb_device_descriptor dev_desc = {
	.bLength = USB_DT_DEVICE_SIZE,
	.bDescriptorType = USB_DT_DEVICE,
	.bcdUSB = USB_CPU_TO_LE16(0x0200),
	.idVendor = USB_CPU_TO_LE16(0x0525),
	.idProduct = USB_CPU_TO_LE16(0xa4a5),
	.bNumConfigurations = 1,
};

static int do_config(struct usb_configuration *c)
{
	return fsg_add(c->cdev, c, common);
}

static struct usb_configuration config = {
	.label = "Linux Mass Storage",
	.bConfigurationValue = 1,
	.bmAttributes = USB_CONFIG_ATT_SELFPOWER,
};

static int bind(struct usb_composite_dev *cdev)
{
	struct fsg_config cfg;
	int rc;

	memset(&cfg, 0, sizeof(cfg));
	cfg.nluns = 1;
	cfg.can_stall = 1;
	cfg.vendor_name = vendor;
	rc = fsg_backend_mem_create(&cfg.luns[0].backend, NULL, DISK_BYTES, 512, false);
	if (rc < 0)
		return rc;
	rc = fsg_common_create(&common, cdev, &cfg);
	if (rc < 0)
		return rc;
	rc = usb_add_config(cdev, &config, do_config);
	fsg_common_put(common);
	return rc;
}

static struct usb_composite_driver driver = {
	.name = "msf-over-usbip",
	.dev = &dev_desc,
	.iSerialNumber = "0001",
	.bind = bind,
};

/* The server's log, kept (for the capture's error) and shown. */
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static char log_text[8192];

static void log_line(void *ctx, const char *line)
{
	size_t n;

	(void)ctx;
	fprintf(stderr, "usbip: %s\n", line);
	pthread_mutex_lock(&log_lock);
	n = strlen(log_text);
	snprintf(log_text + n, sizeof(log_text) - n, "%s\n", line);
	pthread_mutex_unlock(&log_lock);
}

static bool logged(const char *what)
{
	bool found;

	pthread_mutex_lock(&log_lock);
	found = strstr(log_text, what) != NULL;
	pthread_mutex_unlock(&log_lock);
	return found;
}

/* A server at @speed on bus @busnum with the driver (max_speed @max) on
 * its device 1. */
static int serve(enum usb_device_speed speed, enum usb_device_speed max, unsigned busnum)
{
	struct usbip_server_config cfg;

	usbip_server_config_init(&cfg);
	cfg.port = 0;
	cfg.speed = speed;
	cfg.busnum = busnum;
	cfg.capture_dir = capture_dir;
	cfg.capture_max_data = capture_max;
	cfg.log = log_line;
	if (usbip_server_create(&cfg, &srv) != 0)
		return -1;
	port = usbip_server_port(srv);
	snprintf(busid, sizeof(busid), "%u-1", busnum);
	driver.udc_name = busid;
	driver.max_speed = max;
	if (usb_composite_probe(&driver) != 0)
		return -1;
	return usbip_server_start(srv);
}

static int group_setup(void **state)
{
	(void)state;
	return serve(USB_SPEED_HIGH, USB_SPEED_HIGH, 1);
}

static int group_setup_super(void **state)
{
	(void)state;
	return serve(USB_SPEED_SUPER, USB_SPEED_SUPER, 2);
}

static int group_setup_super_server_high_driver(void **state)
{
	(void)state;
	return serve(USB_SPEED_SUPER, USB_SPEED_HIGH, 3);
}

static int group_teardown(void **state)
{
	(void)state;
	usbip_server_stop(srv);
	usb_composite_unregister(&driver);
	usbip_server_destroy(srv);
	return 0;
}

/* ---- Bulk-Only Transport from the host side ----------------------------- */

static void nap(void)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };

	nanosleep(&ts, NULL);
}

struct host {
	struct uc c;
	struct usbip_device_info info;	/* from the import */
	unsigned in, out;	/* endpoint numbers */
	unsigned maxpacket;	/* of the bulk endpoints (both the same) */
	unsigned companions;	/* SuperSpeed endpoint companions seen */
	uint32_t tag;
};

static void attach(struct host *h)
{
	uint8_t buf[64];
	uint32_t actual;

	int rc;

	/* The server lets a closed connection's device go asynchronously. */
	for (int tries = 0; (rc = uc_import(&h->c, port, busid, &h->info)) == USBIP_ST_DEV_BUSY &&
			    tries < 500; tries++)
		nap();
	assert_int_equal(rc, 0);
	assert_int_equal(h->info.idVendor, 0x0525);
	assert_int_equal(h->info.idProduct, 0xa4a5);
	assert_int_equal(uc_control(&h->c, 0x80, USB_REQ_GET_DESCRIPTOR, USB_DT_CONFIG << 8, 0,
				    sizeof(buf), buf, &actual), 0);
	assert_true(actual >= 9 + 9 + 7 + 7);
	assert_int_equal(buf[2] | buf[3] << 8, actual);	/* wTotalLength */
	assert_int_equal(buf[9 + 5], 0x08);	/* mass storage */
	assert_int_equal(buf[9 + 6], 0x06);	/* SCSI */
	assert_int_equal(buf[9 + 7], 0x50);	/* bulk-only */
	h->in = h->out = h->maxpacket = h->companions = 0;
	for (unsigned off = 18; off + 2 <= actual && buf[off] >= 2; off += buf[off]) {
		assert_true(off + buf[off] <= actual);
		if (buf[off + 1] == USB_DT_SS_ENDPOINT_COMP) {
			assert_int_equal(buf[off], 6);
			h->companions++;
			continue;
		}
		assert_int_equal(buf[off + 1], USB_DT_ENDPOINT);
		if (buf[off + 2] & 0x80)
			h->in = buf[off + 2] & 0x0f;
		else
			h->out = buf[off + 2] & 0x0f;
		assert_true(h->maxpacket == 0 || h->maxpacket == (unsigned)(buf[off + 4] | buf[off + 5] << 8));
		h->maxpacket = buf[off + 4] | buf[off + 5] << 8;
	}
	assert_true(h->in && h->out);
	/* The MSF finishes SET_CONFIGURATION from its worker (delayed status). */
	assert_int_equal(uc_control(&h->c, 0x00, USB_REQ_SET_CONFIGURATION, 1, 0, 0, NULL, NULL), 0);
}

/* The CSW statuses bot() saw, in order (what the capture must show). */
static uint8_t csw_status[64];
static unsigned n_csw;

/* One command: CBW, data stage (IN into @data or OUT from it), CSW.
 * Return the CSW status, with the residue in *residue. */
static int bot(struct host *h, const uint8_t *cb, unsigned cblen, bool in, void *data,
	       uint32_t len, uint32_t *residue)
{
	uint8_t cbw[31] = { 'U', 'S', 'B', 'C' };
	uint8_t csw[13];
	uint32_t actual;
	uint32_t tag = ++h->tag;

	memcpy(cbw + 4, &tag, 4);
	cbw[8] = (uint8_t)len;
	cbw[9] = (uint8_t)(len >> 8);
	cbw[10] = (uint8_t)(len >> 16);
	cbw[11] = (uint8_t)(len >> 24);
	cbw[12] = in ? 0x80 : 0;
	cbw[14] = (uint8_t)cblen;
	memcpy(cbw + 15, cb, cblen);
	assert_int_equal(uc_transfer(&h->c, h->out, false, cbw, sizeof(cbw), 0, &actual), 0);
	if (len) {
		assert_int_equal(uc_transfer(&h->c, in ? h->in : h->out, in, data, len, 0, &actual), 0);
		if (!in)
			assert_int_equal(actual, len);
	}
	assert_int_equal(uc_transfer(&h->c, h->in, true, csw, sizeof(csw), 0, &actual), 0);
	assert_int_equal(actual, 13);
	if (n_csw < sizeof(csw_status))
		csw_status[n_csw++] = csw[12];
	assert_memory_equal(csw, "USBS", 4);
	assert_memory_equal(csw + 4, &tag, 4);
	if (residue)
		*residue = (uint32_t)csw[8] | (uint32_t)csw[9] << 8 | (uint32_t)csw[10] << 16 |
			   (uint32_t)csw[11] << 24;
	return csw[12];
}

/* TEST UNIT READY, clearing a unit attention (power on, reset) first. */
static void unit_ready(struct host *h)
{
	static const uint8_t tur[6] = { 0 };
	static const uint8_t sense[6] = { 0x03, 0, 0, 0, 18, 0 };
	uint8_t buf[18];

	if (bot(h, tur, 6, false, NULL, 0, NULL) != 0) {
		assert_int_equal(bot(h, sense, 6, true, buf, 18, NULL), 0);
		assert_int_equal(buf[2] & 0x0f, 0x06);	/* UNIT ATTENTION */
		assert_int_equal(bot(h, tur, 6, false, NULL, 0, NULL), 0);
	}
}

static void rw10(uint8_t *cb, uint8_t op, uint32_t lba, uint16_t blocks)
{
	memset(cb, 0, 10);
	cb[0] = op;
	cb[2] = (uint8_t)(lba >> 24);
	cb[3] = (uint8_t)(lba >> 16);
	cb[4] = (uint8_t)(lba >> 8);
	cb[5] = (uint8_t)lba;
	cb[7] = (uint8_t)(blocks >> 8);
	cb[8] = (uint8_t)blocks;
}

/* The byte at @i of bot_commands()'s 128 KiB written and read back. */
static uint8_t pattern(unsigned i)
{
	return (uint8_t)(i * 13 + (i >> 9));
}

/* GET_MAX_LUN, INQUIRY, READ CAPACITY and a 128 KiB WRITE and READ. */
static void bot_commands(struct host *h)
{
	static uint8_t wbuf[BIG], rbuf[BIG];
	static const uint8_t inquiry[6] = { 0x12, 0, 0, 0, 36, 0 };
	static const uint8_t capacity[10] = { 0x25 };
	uint8_t cb[10], buf[64];
	uint32_t actual, residue;

	/* GET_MAX_LUN: one LUN. */
	assert_int_equal(uc_control(&h->c, 0xa1, 0xfe, 0, 0, 1, buf, &actual), 0);
	assert_int_equal(actual, 1);
	assert_int_equal(buf[0], 0);
	assert_int_equal(bot(h, inquiry, 6, true, buf, 36, &residue), 0);
	assert_int_equal(residue, 0);
	assert_int_equal(buf[0], 0x00);		/* direct-access block device */
	unit_ready(h);
	assert_int_equal(bot(h, capacity, 10, true, buf, 8, NULL), 0);
	assert_int_equal(buf[0] << 24 | buf[1] << 16 | buf[2] << 8 | buf[3], DISK_BYTES / 512 - 1);
	assert_int_equal(buf[6] << 8 | buf[7], 512);
	/* 128 KiB each way, one URB each: several MSF buffers per URB. */
	for (unsigned i = 0; i < BIG; i++)
		wbuf[i] = pattern(i);
	rw10(cb, 0x2a, 100, BIG / 512);
	assert_int_equal(bot(h, cb, 10, false, wbuf, BIG, &residue), 0);
	assert_int_equal(residue, 0);
	rw10(cb, 0x28, 100, BIG / 512);
	assert_int_equal(bot(h, cb, 10, true, rbuf, BIG, &residue), 0);
	assert_memory_equal(rbuf, wbuf, BIG);
}

static void test_usbip_msf_bot_commands(void **state)
{
	struct host h = { 0 };

	(void)state;
	attach(&h);
	assert_int_equal(h.info.speed, USB_SPEED_HIGH);
	assert_int_equal(h.maxpacket, 512);
	assert_int_equal(h.companions, 0);
	bot_commands(&h);
	uc_close(&h.c);
}

/* The device descriptor's bcdUSB and bMaxPacketSize0, read over ep0. */
static void device_desc_of(struct host *h, unsigned *bcd_usb, unsigned *mp0)
{
	uint8_t d[18];
	uint32_t actual;

	assert_int_equal(uc_control(&h->c, 0x80, USB_REQ_GET_DESCRIPTOR, USB_DT_DEVICE << 8, 0,
				    sizeof(d), d, &actual), 0);
	assert_int_equal(actual, 18);
	*bcd_usb = d[2] | d[3] << 8;
	*mp0 = d[7];
}

/* What vhci_hcd and the Linux hub driver need from a SuperSpeed device,
 * then the same Bulk-Only traffic as at high speed. */
static void test_usbip_msf_superspeed(void **state)
{
	struct uc_devrec devs[2];
	struct host h = { 0 };
	uint8_t bos[64];
	uint32_t actual;
	unsigned bcd, mp0, total;
	bool ss_cap = false;

	(void)state;
	assert_int_equal(uc_devlist(port, devs, 2), 1);
	assert_int_equal(devs[0].info.speed, USB_SPEED_SUPER);	/* 5 on the wire */
	attach(&h);
	assert_int_equal(h.info.speed, USB_SPEED_SUPER);
	device_desc_of(&h, &bcd, &mp0);
	assert_true(bcd >= 0x0300);
	assert_int_equal(mp0, 9);		/* 2^9 = 512 */
	assert_int_equal(h.maxpacket, 1024);
	assert_int_equal(h.companions, 2);
	/* BOS with a SuperSpeed device capability. */
	assert_int_equal(uc_control(&h.c, 0x80, USB_REQ_GET_DESCRIPTOR, USB_DT_BOS << 8, 0,
				    sizeof(bos), bos, &actual), 0);
	assert_true(actual >= 5);
	assert_int_equal(bos[1], USB_DT_BOS);
	total = bos[2] | bos[3] << 8;
	assert_int_equal(actual, total);
	for (unsigned off = 5; off + 3 <= actual && bos[off] >= 3; off += bos[off])
		ss_cap |= bos[off + 1] == USB_DT_DEVICE_CAPABILITY && bos[off + 2] == 0x03;
	assert_true(ss_cap);
	/* A device at SuperSpeed has no other speed to describe. */
	assert_int_equal(uc_control(&h.c, 0x80, USB_REQ_GET_DESCRIPTOR,
				    USB_DT_DEVICE_QUALIFIER << 8, 0, 10, bos, &actual), -32);
	bot_commands(&h);
	uc_close(&h.c);
}

/* A high-speed-only driver on a SuperSpeed server: reported, and
 * enumerated, at high speed with a 64-byte ep0. */
static void test_usbip_msf_high_speed_driver_caps_super_server(void **state)
{
	struct uc_devrec devs[2];
	struct host h = { 0 };
	unsigned bcd, mp0;

	(void)state;
	assert_int_equal(uc_devlist(port, devs, 2), 1);
	assert_int_equal(devs[0].info.speed, USB_SPEED_HIGH);
	attach(&h);
	assert_int_equal(h.info.speed, USB_SPEED_HIGH);
	device_desc_of(&h, &bcd, &mp0);
	assert_int_equal(bcd, 0x0200);
	assert_int_equal(mp0, 64);
	assert_int_equal(h.maxpacket, 512);
	assert_int_equal(h.companions, 0);
	bot_commands(&h);
	uc_close(&h.c);
}

/* An invalid CBW wedges both bulk endpoints: -EPIPE until the host's
 * Bulk-Only Mass Storage Reset and CLEAR_FEATURE(HALT) on each. */
static void test_usbip_msf_invalid_cbw_and_reset_recovery(void **state)
{
	uint8_t junk[31] = { 'X', 'S', 'B', 'C' };
	uint8_t buf[64];
	uint32_t actual;
	struct host h = { 0 };

	(void)state;
	attach(&h);
	assert_int_equal(uc_transfer(&h.c, h.out, false, junk, sizeof(junk), 0, &actual), 0);
	assert_int_equal(uc_transfer(&h.c, h.in, true, buf, 13, 0, &actual), -32);
	/* Wedged: CLEAR_FEATURE alone does not un-halt it. */
	assert_int_equal(uc_control(&h.c, 0x02, USB_REQ_CLEAR_FEATURE, USB_ENDPOINT_HALT,
				    (uint16_t)(0x80 | h.in), 0, NULL, NULL), 0);
	assert_int_equal(uc_transfer(&h.c, h.in, true, buf, 13, 0, &actual), -32);
	/* Reset recovery. */
	assert_int_equal(uc_control(&h.c, 0x21, 0xff, 0, 0, 0, NULL, NULL), 0);
	assert_int_equal(uc_control(&h.c, 0x02, USB_REQ_CLEAR_FEATURE, USB_ENDPOINT_HALT,
				    (uint16_t)(0x80 | h.in), 0, NULL, NULL), 0);
	assert_int_equal(uc_control(&h.c, 0x02, USB_REQ_CLEAR_FEATURE, USB_ENDPOINT_HALT,
				    (uint16_t)h.out, 0, NULL, NULL), 0);
	unit_ready(&h);
	uc_close(&h.c);
}

/* A host that vanishes with a data URB pending; the next one works. */
static void test_usbip_msf_reattach_after_unplug(void **state)
{
	struct host h = { 0 };

	(void)state;
	attach(&h);
	assert_true(uc_submit(&h.c, h.in, true, NULL, NULL, 13, 0) != 0);	/* waits */
	uc_close(&h.c);
	attach(&h);
	unit_ready(&h);
	uc_close(&h.c);
}

/* ---- capture (usbip_server_set_capture) --------------------------------- */

static char cap_dir[64];

static int group_setup_capture(void **state)
{
	(void)state;
	snprintf(cap_dir, sizeof(cap_dir), "%s", "/tmp/usbip-capture-XXXXXX");
	if (!mkdtemp(cap_dir))
		return -1;
	capture_dir = cap_dir;
	vendor = "CapTest";
	return serve(USB_SPEED_HIGH, USB_SPEED_HIGH, 4);
}

static int group_teardown_capture(void **state)
{
	char path[128];

	group_teardown(state);
	if (getenv("USBIP_TEST_KEEP_CAPTURE")) {	/* to look at it in Wireshark */
		fprintf(stderr, "capture kept in %s\n", cap_dir);
		return 0;
	}
	snprintf(path, sizeof(path), "%s/usbip-4-1.pcap", cap_dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/small.pcap", cap_dir);
	unlink(path);
	rmdir(cap_dir);
	capture_dir = NULL;
	vendor = NULL;
	return 0;
}

/* A bulk IN URB that nothing answers (no command), unlinked. */
static void unlink_pending_in(struct host *h)
{
	static uint8_t buf[512];
	struct uc_reply r;
	uint32_t seq = uc_submit(&h->c, h->in, true, NULL, NULL, sizeof(buf), 0);

	assert_true(seq != 0);
	nap();
	assert_true(uc_unlink(&h->c, seq) != 0);
	assert_int_equal(uc_recv(&h->c, &r, buf, sizeof(buf)), 0);
	assert_int_equal(r.h.command, USBIP_RET_UNLINK);
	assert_int_equal(r.h.u.ret_unlink.status, USBIP_STATUS_ECONNRESET);
}

static off_t file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? st.st_size : -1;
}

static bool have_tshark(void)
{
	return system("tshark -v >/dev/null 2>&1") == 0;
}

/* What tshark found in a capture. */
struct dissected {
	bool vendor;			/* the INQUIRY reply's vendor id */
	unsigned reads, writes;		/* READ(10) / WRITE(10) at LBA 100 */
	uint8_t csw[64];		/* CSW statuses, in order */
	unsigned n_csw;
	unsigned unlinked;		/* 'C' records with status -ECONNRESET */
	unsigned records;
};

/* Split @line at tabs into @f (up to @max fields, in place). */
static unsigned split_tabs(char *line, char **f, unsigned max)
{
	unsigned n = 0;

	line[strcspn(line, "\r\n")] = '\0';
	while (n < max) {
		f[n++] = line;
		line = strchr(line, '\t');
		if (!line)
			break;
		*line++ = '\0';
	}
	return n;
}

/* tshark reading @file, one line a record: the fields @args name
 * (tshark's options and -e FIELD), tab-separated. pclose() it. */
static FILE *tshark_fields(const char *file, const char *args)
{
	char cmd[512];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "tshark -r '%s' -T fields -E separator=/t %s 2>/dev/null",
		 file, args);
	p = popen(cmd, "r");
	assert_non_null(p);
	return p;
}

/* Reads FILE's records back with tshark. A capture still being written
 * may end in a part record, which tshark reports by its exit status:
 * COMPLETE says whether the file must be whole. */
static void dissect(const char *file, struct dissected *d, bool complete)
{
	int rc;

	char line[512];
	FILE *p = tshark_fields(file, "-e usb.urb_type -e usb.urb_status "
				"-e scsi.inquiry.vendor_id -e scsi_sbc.opcode "
				"-e scsi_sbc.rdwr10.lba -e usbms.dCSWStatus");

	memset(d, 0, sizeof(*d));
	while (fgets(line, sizeof(line), p)) {
		char *f[6] = { 0 };
		unsigned n = split_tabs(line, f, 6);

		d->records++;
		if (n < 6)
			continue;
		if (strncmp(f[2], "CapTest", 7) == 0)
			d->vendor = true;
		if (f[3][0] && f[4][0] && strtoul(f[4], NULL, 0) == 100) {
			unsigned long op = strtoul(f[3], NULL, 0);

			d->reads += op == 0x28;
			d->writes += op == 0x2a;
		}
		if (f[5][0] && d->n_csw < sizeof(d->csw))
			d->csw[d->n_csw++] = (uint8_t)strtoul(f[5], NULL, 0);
		if (strchr(f[0], 'C') && strtol(f[1], NULL, 0) == -104)
			d->unlinked++;
	}
	rc = pclose(p);
	if (complete)
		assert_int_equal(rc, 0);
}

/* The seed's sequence (enumeration, INQUIRY, READ CAPACITY, WRITE(10)
 * and READ(10) of 128 KiB) captured from the first URB, and read back
 * by Wireshark's dissectors as a host capture. */
static void test_usbip_msf_capture_read_by_tshark(void **state)
{
	struct host h = { 0 };
	struct dissected d;
	char file[128];
	off_t size;

	(void)state;
	if (!have_tshark())
		skip();
	n_csw = 0;
	snprintf(file, sizeof(file), "%s/usbip-4-1.pcap", cap_dir);
	attach(&h);
	bot_commands(&h);
	/* While the host is quiet, the records still in the buffer (the
	 * last CSW's at least) reach the file within a second, capture on.
	 * The writer may have written them already: wait for the CSW count,
	 * not for the file to grow. */
	size = -1;
	for (int i = 0; i < 300; i++) {
		if (file_size(file) != size) {
			size = file_size(file);
			dissect(file, &d, false);
			if (d.n_csw == n_csw)
				break;
		}
		nap();
	}
	assert_int_equal(d.n_csw, n_csw);
	unlink_pending_in(&h);
	uc_close(&h.c);
	/* Every URB was answered: its records are in; closing writes them. */
	assert_int_equal(usbip_server_set_capture(srv, 0, NULL), 0);
	dissect(file, &d, true);
	assert_true(d.records > 20);
	assert_true(d.vendor);
	assert_int_equal(d.writes, 1);
	assert_int_equal(d.reads, 1);
	assert_int_equal(d.n_csw, n_csw);
	assert_memory_equal(d.csw, csw_status, n_csw);
	assert_int_equal(d.unlinked, 1);
}

/* Bad paths are refused with the cause; a capture whose writes fail
 * (here: over RLIMIT_FSIZE) stops with a log line, and the device goes
 * on serving. */
static void test_usbip_msf_capture_errors(void **state)
{
	struct rlimit old, small;
	struct host h = { 0 };
	char file[128];
	off_t size;

	(void)state;
	assert_int_equal(usbip_server_set_capture(srv, 1, "/tmp/x.pcap"), -USB_EINVAL);
	assert_int_equal(usbip_server_set_capture(srv, 0, "/nonexistent/dir/x.pcap"), -USB_ENOENT);
	/* A directory: DIR/usbip-BUSID.pcap there. */
	snprintf(file, sizeof(file), "%s/usbip-4-1.pcap", cap_dir);
	unlink(file);
	assert_int_equal(usbip_server_set_capture(srv, 0, cap_dir), 0);
	assert_int_equal(file_size(file), 24);	/* the pcap file header */
	if (file_size("/dev/full") >= 0)
		assert_int_equal(usbip_server_set_capture(srv, 0, "/dev/full"), -USB_ENOSPC);
	snprintf(file, sizeof(file), "%s/small.pcap", cap_dir);
	assert_int_equal(usbip_server_set_capture(srv, 0, file), 0);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	small = old;
	small.rlim_cur = 64 * 1024;
	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
	attach(&h);
	bot_commands(&h);
	uc_close(&h.c);
	for (int i = 0; i < 500 && !logged("capture to"); i++)
		nap();	/* the buffered records go out as the host leaves */
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	assert_true(logged("stopped"));
	size = file_size(file);
	assert_true(size > 0 && size <= 64 * 1024);
	/* Capture off, the device as before. */
	attach(&h);
	bot_commands(&h);
	uc_close(&h.c);
	assert_int_equal(file_size(file), size);
}

/* ---- capture with cfg.capture_max_data ------------------------------------ */

/* An odd count: the kept part ends inside a request's window. */
#define KEPT 1000u

static int group_setup_capture_kept(void **state)
{
	(void)state;
	snprintf(cap_dir, sizeof(cap_dir), "%s", "/tmp/usbip-capture-XXXXXX");
	if (!mkdtemp(cap_dir))
		return -1;
	capture_max = KEPT;
	return serve(USB_SPEED_HIGH, USB_SPEED_HIGH, 5);
}

static int group_teardown_capture_kept(void **state)
{
	char path[128];

	group_teardown(state);
	snprintf(path, sizeof(path), "%s/kept.pcap", cap_dir);
	unlink(path);
	rmdir(cap_dir);
	capture_max = 0;
	return 0;
}

/* Whether @hex (tshark's bytes, two digits a byte) is the first @n bytes
 * of pattern(). */
static bool is_pattern(const char *hex, unsigned n)
{
	if (strlen(hex) != 2u * n)
		return false;
	for (unsigned i = 0; i < n; i++) {
		unsigned v;

		if (sscanf(hex + 2 * i, "%2x", &v) != 1 || v != pattern(i))
			return false;
	}
	return true;
}

/* With capture_max_data, a record keeps the first bytes of its URB and
 * says its whole length: the 128 KiB WRITE's 'S' record (its payload
 * streamed into the MSF's requests) and the READ's 'C' record (gathered
 * from them) each keep KEPT bytes, the bytes the host moved. */
static void test_usbip_msf_capture_keeps_first_bytes(void **state)
{
	static char line[4 * BIG];
	struct host h = { 0 };
	unsigned s_out = 0, c_in = 0;
	char file[128];
	FILE *p;

	(void)state;
	if (!have_tshark())
		skip();
	snprintf(file, sizeof(file), "%s/kept.pcap", cap_dir);
	assert_int_equal(usbip_server_set_capture(srv, 0, file), 0);
	attach(&h);
	bot_commands(&h);
	uc_close(&h.c);
	assert_int_equal(usbip_server_set_capture(srv, 0, NULL), 0);
	/* usbms off: the data stays undissected, as usb.capdata. */
	p = tshark_fields(file, "--disable-protocol usbms -e usb.urb_type "
			  "-e usb.endpoint_address.direction -e usb.urb_len -e usb.data_len "
			  "-e usb.capdata");
	while (fgets(line, sizeof(line), p)) {
		char *f[5] = { 0 };

		if (split_tabs(line, f, 5) < 5 || strtoul(f[2], NULL, 0) != BIG)
			continue;
		assert_int_equal(strtoul(f[3], NULL, 0), strchr(f[0], 'S') && f[1][0] == '0' ? KEPT
			: strchr(f[0], 'C') && f[1][0] == '1' ? KEPT : 0);
		if (strchr(f[0], 'S') && f[1][0] == '0') {
			assert_true(is_pattern(f[4], KEPT));
			s_out++;
		}
		if (strchr(f[0], 'C') && f[1][0] == '1') {
			assert_true(is_pattern(f[4], KEPT));
			c_in++;
		}
	}
	assert_int_equal(pclose(p), 0);
	assert_int_equal(s_out, 1);
	assert_int_equal(c_in, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_usbip_msf_bot_commands),
		cmocka_unit_test(test_usbip_msf_invalid_cbw_and_reset_recovery),
		cmocka_unit_test(test_usbip_msf_reattach_after_unplug),
	};
	const struct CMUnitTest super_tests[] = {
		cmocka_unit_test(test_usbip_msf_superspeed),
		cmocka_unit_test(test_usbip_msf_reattach_after_unplug),
	};
	const struct CMUnitTest capture_tests[] = {
		cmocka_unit_test(test_usbip_msf_capture_read_by_tshark),
		cmocka_unit_test(test_usbip_msf_capture_errors),
	};
	const struct CMUnitTest kept_tests[] = {
		cmocka_unit_test(test_usbip_msf_capture_keeps_first_bytes),
	};
	const struct CMUnitTest capped_tests[] = {
		cmocka_unit_test(test_usbip_msf_high_speed_driver_caps_super_server),
	};
	int failed = cmocka_run_group_tests_name("high speed", tests, group_setup, group_teardown);

	failed += cmocka_run_group_tests_name("SuperSpeed", super_tests, group_setup_super,
					      group_teardown);
	failed += cmocka_run_group_tests_name("SuperSpeed server, high-speed driver",
					      capped_tests, group_setup_super_server_high_driver,
					      group_teardown);
	failed += cmocka_run_group_tests_name("capture", capture_tests, group_setup_capture,
					      group_teardown_capture);
	failed += cmocka_run_group_tests_name("capture, data kept per URB", kept_tests,
					      group_setup_capture_kept, group_teardown_capture_kept);
	return failed;
}
