/*
 * host_check.c - libusb-1.0 host-side checks of a mass storage gadget
 * (0525:a4a5): descriptors, chapter-9 standard requests and raw Bulk-Only
 * Transport traffic, compared with an expectation profile.
 *
 *	host_check [--expect ours|kernel] [--blocks N] [--max-lun N]
 *		   [--timeout MS] [--wait SECS] [--verbose]
 *
 * --expect picks what the gadget declares: "ours" (examples/mass_storage)
 * or "kernel" (Linux's usb_f_mass_storage as tests/linux-host's configfs
 * helper sets it up). --blocks: the LUN's expected block count (default
 * 131072, a 64 MiB image) of every LUN; --max-lun: the expected Get Max
 * LUN answer (default the profile's, 0). Exit status: 0 all checks passed, 1 a check
 * failed, 2 the device could not be opened or claimed.
 *
 * Owns options, the profiles, reporting and opening the device: it detaches
 * the usb-storage kernel driver from the interface and reattaches it at the
 * end. Touches only that device.
 */
#define _POSIX_C_SOURCE 200809L /* nanosleep: this is a POSIX program */

#include "host_check.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define HC_VID 0x0525
#define HC_PID 0xa4a5

/* ---- profiles ------------------------------------------------------------ */

/* Identical in both: USB 2.0, class at interface level, one configuration. */
#define DEV_COMMON(imfr, iprod, iser) \
	{ 18, 1, 0x00, 0x02, 0, 0, 0, 64, 0x25, 0x05, 0xa5, 0xa4, \
	  X_ANY, X_ANY, imfr, iprod, iser, 1 }
/* wTotalLength 32: one interface 08/06/50, bulk IN and OUT of 512 bytes. */
#define CFG_COMMON(iconf, attr, power, iintf) \
	{ 9, 2, 32, 0, 1, 1, iconf, attr, power, \
	  9, 4, 0, 0, 2, 0x08, 0x06, 0x50, iintf, \
	  7, 5, X_EPIN, 2, 0x00, 0x02, X_ANY, \
	  7, 5, X_EPOUT, 2, 0x00, 0x02, X_ANY }
#define QUAL_COMMON { 10, 6, 0x00, 0x02, 0, 0, 0, 64, 1, 0 }

static const struct hc_expect expect_ours = {
	.name = "ours",
	.dev = DEV_COMMON(X_NZ, X_NZ, X_NZ),
	.cfg = CFG_COMMON(X_NZ, 0xC0, X_ANY, X_NZ),
	.qual = QUAL_COMMON,
	.dev_status = 0x0001,	/* self-powered, as bmAttributes says */
	/* examples/mass_storage/mass_storage.c and the MSF's interface string */
	.manufacturer = "libcomposite",
	.product = "Mass Storage Gadget",
	.serial = "0123456789AB",
	.configuration = "Linux Mass Storage",
	.interface = "Mass Storage",
	.max_lun = 0,
	.inq_vendor = "Linux   ",
	.inq_product = "File-Stor Gadget",
	.inq_rmb = 1,	/* removable unless removable= says otherwise */
	.bad_cbw_out = HC_BAD_CBW_OUT_HALT,
	.known = NULL,
};

/*
 * Linux's f_mass_storage as g_kmsf_create (tests/linux-host/lib/guest.sh)
 * sets it up: strings written to configfs, bus-powered, MaxPower 100 mA.
 * Its known deviations are listed (and printed as KNOWN) rather than
 * hidden: each one was seen on a real run (tests/host/README.md).
 */
static const char *const kernel_known[] = {
	/* usbip-vudc acks SET_FEATURE(ENDPOINT, selector 1); 9.4.9: stall. */
	"std.set_feature.ep_bad_selector",
	/* ... and SET_FEATURE(DEVICE_REMOTE_WAKEUP) with no wakeup in
	 * bmAttributes (GET_STATUS then says 02 00); 9.4.9: stall. */
	"std.set_feature.remote_wakeup",
	NULL
};

static const struct hc_expect expect_kernel = {
	.name = "kernel",
	.dev = DEV_COMMON(X_NZ, X_NZ, X_NZ),
	.cfg = CFG_COMMON(X_NZ, 0x80, 50, X_NZ),
	.qual = QUAL_COMMON,
	.dev_status = 0x0000,
	.manufacturer = "linux-host reference",
	.product = "kernel mass storage",
	.serial = "0123456789ab",
	.configuration = "mass storage",
	.interface = "Mass Storage",
	.max_lun = 0,
	.inq_vendor = "Linux   ",
	.inq_product = "File-Stor Gadget",
	.inq_rmb = 1,	/* configfs LUNs are removable by default */
	/* f_mass_storage wedges bulk-IN only and drops bulk-OUT data. */
	.bad_cbw_out = HC_BAD_CBW_OUT_DISCARD,
	.known = kernel_known,
};

/* ---- reporting ----------------------------------------------------------- */

static bool is_known(const struct hc *hc, const char *id)
{
	if (!hc->exp->known)
		return false;
	for (const char *const *k = hc->exp->known; *k; k++)
		if (strcmp(*k, id) == 0)
			return true;
	return false;
}

bool hc_check(struct hc *hc, bool ok, const char *id, const char *fmt, ...)
{
	const char *word;
	va_list ap;

	if (ok) {
		word = "PASS";
		hc->n_pass++;
	} else if (is_known(hc, id)) {
		word = "KNOWN";
		hc->n_known++;
	} else {
		word = "FAIL";
		hc->n_fail++;
	}
	printf("%-5s %s: ", word, id);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	return ok;
}

void hc_info(struct hc *hc, const char *id, const char *fmt, ...)
{
	va_list ap;

	hc->n_info++;
	printf("INFO  %s: ", id);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

const char *hc_hex(char *out, size_t size, const uint8_t *buf, int n)
{
	size_t at = 0;

	out[0] = '\0';
	for (int i = 0; i < n && at + 4 <= size; i++)
		at += (size_t)snprintf(out + at, size - at, "%s%02x", i ? " " : "", buf[i]);
	return out;
}

const char *hc_err(int rc)
{
	return rc >= 0 ? "ok" : libusb_error_name(rc);
}

bool hc_match(const int16_t *exp, const uint8_t *buf, int n, char *why, size_t size)
{
	size_t at = 0;
	bool ok = true;

	why[0] = '\0';
	for (int i = 0; i < n; i++) {
		int e = exp[i];
		bool m;

		switch (e) {
		case X_ANY:
			m = true;
			break;
		case X_EPIN:
			m = (buf[i] & 0x80) && (buf[i] & 0x0f) && !(buf[i] & 0x70);
			break;
		case X_EPOUT:
			m = !(buf[i] & 0x80) && (buf[i] & 0x0f) && !(buf[i] & 0x70);
			break;
		case X_NZ:
			m = buf[i] != 0;
			break;
		default:
			m = buf[i] == e;
			break;
		}
		if (!m) {
			ok = false;
			if (at + 32 < size)
				at += (size_t)snprintf(why + at, size - at,
						       "%sbyte %d is 0x%02x, want %s%02x",
						       at ? "; " : "", i, buf[i],
						       e < 0 ? "class " : "0x",
						       (unsigned)(e < 0 ? -e : e));
		}
	}
	return ok;
}

/* ---- transfers ----------------------------------------------------------- */

int hc_ctrl(struct hc *hc, uint8_t type, uint8_t req, uint16_t value,
	    uint16_t index, uint8_t *buf, uint16_t len)
{
	return libusb_control_transfer(hc->h, type, req, value, index, buf, len,
				       hc->timeout_ms);
}

int hc_bulk(struct hc *hc, uint8_t ep, uint8_t *buf, int len, int *actual)
{
	*actual = 0;
	return libusb_bulk_transfer(hc->h, ep, buf, len, actual, hc->timeout_ms);
}

int hc_ep_halted(struct hc *hc, uint8_t ep)
{
	uint8_t st[2] = { 0xee, 0xee };
	int rc = hc_ctrl(hc, 0x82, LIBUSB_REQUEST_GET_STATUS, 0, ep, st, 2);

	if (rc < 0)
		return rc;
	if (rc != 2)
		return LIBUSB_ERROR_OTHER;
	return st[0] & 1;
}

/* ---- device -------------------------------------------------------------- */

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static int open_device(struct hc *hc, unsigned wait_s)
{
	for (unsigned i = 0; i <= wait_s * 10; i++) {
		hc->h = libusb_open_device_with_vid_pid(hc->ctx, HC_VID, HC_PID);
		if (hc->h)
			return 0;
		sleep_ms(100);
	}
	return -1;
}

/*
 * usb-storage may have been detached in the middle of a command (the sd
 * driver's first reads, SYNCHRONIZE CACHE on unbind), leaving a halt or a
 * queued CSW behind: start from Reset Recovery, as a new owner of the
 * interface does, and say what was found.
 */
static void takeover(struct hc *hc)
{
	int hin = hc_ep_halted(hc, hc->ep_in), hout = hc_ep_halted(hc, hc->ep_out);
	int rc = hc_ctrl(hc, 0x21, 0xff, 0, hc->ifnum, NULL, 0);
	int c1 = libusb_clear_halt(hc->h, hc->ep_in);
	int c2 = libusb_clear_halt(hc->h, hc->ep_out);

	hc_info(hc, "host.takeover.found", "bulk-IN halted %d, bulk-OUT halted %d "
		"when usb-storage let go", hin, hout);
	hc_check(hc, rc == 0 && c1 == 0 && c2 == 0, "host.takeover",
		 "Reset Recovery: reset %s, CLEAR_FEATURE %s %s", hc_err(rc), hc_err(c1),
		 hc_err(c2));
}

static void usage(void)
{
	fprintf(stderr, "usage: host_check [--expect ours|kernel] [--blocks N] "
			"[--max-lun N] [--timeout MS] [--wait SECS] [--verbose]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct hc hc = { .exp = &expect_ours, .blocks = 131072, .tag = 0x48430001,
			 .timeout_ms = 3000, .max_lun = -1 };
	unsigned wait_s = 10;
	bool reattach = false;
	int rc;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (strcmp(a, "--verbose") == 0) {
			hc.verbose = true;
			continue;
		}
		if (!v)
			usage();
		i++;
		if (strcmp(a, "--expect") == 0) {
			if (strcmp(v, "ours") == 0)
				hc.exp = &expect_ours;
			else if (strcmp(v, "kernel") == 0)
				hc.exp = &expect_kernel;
			else
				usage();
		} else if (strcmp(a, "--blocks") == 0) {
			hc.blocks = (uint32_t)strtoul(v, NULL, 0);
		} else if (strcmp(a, "--max-lun") == 0) {
			hc.max_lun = (int)strtol(v, NULL, 0);
		} else if (strcmp(a, "--timeout") == 0) {
			hc.timeout_ms = (unsigned)strtoul(v, NULL, 0);
		} else if (strcmp(a, "--wait") == 0) {
			wait_s = (unsigned)strtoul(v, NULL, 0);
		} else {
			usage();
		}
	}

	if (hc.max_lun < 0)
		hc.max_lun = hc.exp->max_lun;
	if (hc.max_lun > 15)
		usage();
	rc = libusb_init(&hc.ctx);
	if (rc < 0) {
		fprintf(stderr, "host_check: libusb_init: %s\n", hc_err(rc));
		return 2;
	}
	if (open_device(&hc, wait_s) < 0) {
		fprintf(stderr, "host_check: no device %04x:%04x\n", HC_VID, HC_PID);
		rc = 2;
		goto out_exit;
	}
	printf("host_check: profile %s, device %04x:%04x, speed %d (3 = high)\n",
	       hc.exp->name, HC_VID, HC_PID,
	       libusb_get_device_speed(libusb_get_device(hc.h)));
	hc_check(&hc, libusb_get_device_speed(libusb_get_device(hc.h)) == LIBUSB_SPEED_HIGH,
		 "dev.speed", "enumerated at %s speed",
		 libusb_get_device_speed(libusb_get_device(hc.h)) == LIBUSB_SPEED_HIGH ?
		 "high" : "not high");

	hc.ifnum = 0;
	rc = libusb_kernel_driver_active(hc.h, hc.ifnum);
	if (rc == 1) {
		rc = libusb_detach_kernel_driver(hc.h, hc.ifnum);
		if (rc < 0) {
			fprintf(stderr, "host_check: detach kernel driver: %s\n", hc_err(rc));
			rc = 2;
			goto out_close;
		}
		reattach = true;
		printf("host_check: detached the kernel driver from interface 0\n");
	}
	rc = libusb_claim_interface(hc.h, hc.ifnum);
	if (rc < 0) {
		fprintf(stderr, "host_check: claim interface: %s\n", hc_err(rc));
		rc = 2;
		goto out_attach;
	}

	hc_ch9_descriptors(&hc);
	if (hc.ep_in && hc.ep_out) {
		takeover(&hc);
		hc_ch9_requests(&hc);
		hc_bot(&hc);
		hc_scsi(&hc);
		hc_xfer(&hc);
	} else {
		hc_check(&hc, false, "desc.endpoints", "no bulk endpoint pair; "
			 "request and BOT checks not run");
	}

	libusb_release_interface(hc.h, hc.ifnum);
	rc = 0;
out_attach:
	if (reattach) {
		int r = libusb_attach_kernel_driver(hc.h, hc.ifnum);

		hc_check(&hc, r == 0, "host.reattach", "usb-storage reattached: %s", hc_err(r));
	}
	if (rc == 0) {
		printf("host_check: %s: %u passed, %u failed, %u known, %u info\n",
		       hc.exp->name, hc.n_pass, hc.n_fail, hc.n_known, hc.n_info);
		rc = hc.n_fail ? 1 : 0;
	}
out_close:
	libusb_close(hc.h);
out_exit:
	libusb_exit(hc.ctx);
	return rc;
}
