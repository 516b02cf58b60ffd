/*
 * host_xfer.c - host_check's checks of transfers the way real hosts break
 * them up and cut them short: data phases split over several URBs, a bulk
 * read the host abandons (timeout, so an unlink reaches the device), a
 * Reset Recovery in the middle of a READ or WRITE data phase, a control
 * read with wLength 0, CLEAR_FEATURE on an endpoint that is not halted, and
 * a burst of commands. After each, the next command must get its own CSW.
 *
 * Writes only to blocks 3072..3199 and 5120..5247 of LUN 0.
 */
#include "host_check.h"

#include <stdio.h>
#include <string.h>

#define SPLIT_LBA 3072u
#define ABORT_LBA 5120u

static void fill(uint8_t *p, size_t n, uint32_t seed)
{
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1664525u + 1013904223u;
		p[i] = (uint8_t)(seed >> 24);
	}
}

/* The first command after an event: its CSW, with its own tag, comes. */
static void check_next_csw(struct hc *hc, const char *id, const char *after)
{
	struct cbw_spec t = hc_cmd6(SC_TEST_UNIT_READY, 0, 0, 0);
	struct bot_res r;
	char desc[200];

	hc_bot_cmd(hc, &t, NULL, &r);
	/* status 1 is a unit attention the event may raise; still its CSW. */
	hc_check(hc, r.csw_ok && r.status <= 1 && r.residue == 0, id,
		 "first TEST UNIT READY after %s: %s", after, hc_bot_describe(&r, desc, sizeof(desc)));
	if (!hc_unit_ready(hc))
		hc_reset_recovery(hc);
}

/* A data phase moved in URBs of the given sizes (multiples of 512). */
static bool split_cmd(struct hc *hc, const struct cbw_spec *c, uint8_t *data,
		      const int *chunks, int n, char *why, size_t size)
{
	uint8_t cbw[CBW_LEN], csw[512];
	uint8_t ep = c->flags & DIR_IN ? hc->ep_in : hc->ep_out;
	uint32_t tag = hc->tag++;
	int rc, actual, at = 0;

	hc_build_cbw(cbw, tag, c);
	rc = hc_bulk(hc, hc->ep_out, cbw, CBW_LEN, &actual);
	if (rc < 0) {
		snprintf(why, size, "CBW write %s", hc_err(rc));
		return false;
	}
	for (int i = 0; i < n; i++) {
		rc = hc_bulk(hc, ep, data + at, chunks[i], &actual);
		at += actual;
		if (rc < 0 || actual != chunks[i]) {
			snprintf(why, size, "URB %d of %d bytes: %s, %d bytes", i, chunks[i],
				 hc_err(rc), actual);
			if (rc == LIBUSB_ERROR_PIPE)
				libusb_clear_halt(hc->h, ep);
			return false;
		}
	}
	rc = hc_bulk(hc, hc->ep_in, csw, sizeof(csw), &actual);
	if (rc < 0 || actual != CSW_LEN || memcmp(csw, "USBS", 4) != 0 ||
	    memcmp(csw + 4, cbw + 4, 4) != 0 || csw[8] | csw[9] | csw[10] | csw[11] | csw[12]) {
		snprintf(why, size, "CSW read %s, %d bytes, status %u", hc_err(rc), actual,
			 actual >= 13 ? csw[12] : 0xff);
		if (rc == LIBUSB_ERROR_PIPE)
			libusb_clear_halt(hc->h, hc->ep_in);
		return false;
	}
	snprintf(why, size, "%d bytes in %d URBs, CSW status 0 residue 0", at, n);
	return true;
}

static void check_split(struct hc *hc)
{
	static const int out_chunks[] = { 1024, 512, 2560, 512 * 8, 512 * 112 };
	static const int in_chunks[] = { 512, 1536, 2048, 512 * 120 };
	static uint8_t out[128 * 512], in[128 * 512];
	struct cbw_spec w = hc_rw10(SC_WRITE_10, SPLIT_LBA, 128, sizeof(out), 0);
	struct cbw_spec rd = hc_rw10(SC_READ_10, SPLIT_LBA, 128, sizeof(in), DIR_IN);
	struct bot_res r;
	char why[200];
	bool ok;

	fill(out, sizeof(out), hc->tag);
	ok = split_cmd(hc, &w, out, out_chunks, 5, why, sizeof(why));
	hc_check(hc, ok, "xfer.split_out", "WRITE(10) LBA %u x 128: %s", SPLIT_LBA, why);
	if (!ok)
		hc_reset_recovery(hc);
	memset(in, 0, sizeof(in));
	hc_bot_cmd(hc, &rd, in, &r);
	hc_check(hc, r.csw_ok && r.status == 0 && memcmp(in, out, sizeof(in)) == 0,
		 "xfer.split_out.data", "READ(10) in one URB: %s, data %s",
		 hc_bot_describe(&r, why, sizeof(why)),
		 memcmp(in, out, sizeof(in)) == 0 ? "as written" : "DIFFERS");

	memset(in, 0, sizeof(in));
	ok = split_cmd(hc, &rd, in, in_chunks, 4, why, sizeof(why));
	hc_check(hc, ok && memcmp(in, out, sizeof(in)) == 0, "xfer.split_in",
		 "READ(10) LBA %u x 128: %s, data %s", SPLIT_LBA, why,
		 memcmp(in, out, sizeof(in)) == 0 ? "as written" : "DIFFERS");
	if (!ok)
		hc_reset_recovery(hc);
}

/* A bulk-IN read with nothing to send, given up by the host (unlinked). */
static void check_abandoned_read(struct hc *hc)
{
	uint8_t buf[512];
	unsigned saved = hc->timeout_ms;
	int rc, actual;

	hc->timeout_ms = 300;
	rc = hc_bulk(hc, hc->ep_in, buf, sizeof(buf), &actual);
	hc->timeout_ms = saved;
	hc_check(hc, rc == LIBUSB_ERROR_TIMEOUT && actual == 0, "xfer.abandoned_read",
		 "idle bulk-IN read, 300 ms -> %s, %d bytes (want a timeout)", hc_err(rc), actual);
	check_next_csw(hc, "xfer.abandoned_read.next", "the abandoned read");
}

/* Reset Recovery while the device is in a 64 KiB READ or WRITE data phase. */
static void check_reset_mid(struct hc *hc, bool in)
{
	static uint8_t buf[128 * 512];
	struct cbw_spec c = hc_rw10(in ? SC_READ_10 : SC_WRITE_10, ABORT_LBA, 128, sizeof(buf),
				    in ? DIR_IN : 0);
	struct cbw_spec rd = hc_rw10(SC_READ_10, ABORT_LBA, 8, 4096, DIR_IN);
	uint8_t cbw[CBW_LEN];
	struct bot_res r;
	char id[64], desc[200];
	int rc, actual, data_rc;

	fill(buf, sizeof(buf), 77);
	hc_build_cbw(cbw, hc->tag++, &c);
	rc = hc_bulk(hc, hc->ep_out, cbw, CBW_LEN, &actual);
	data_rc = hc_bulk(hc, in ? hc->ep_in : hc->ep_out, buf, 4096, &actual);
	snprintf(id, sizeof(id), "xfer.reset_mid_%s", in ? "read" : "write");
	hc_check(hc, rc == 0 && data_rc == 0 && actual == 4096, id,
		 "%s(10) x 128, the host moves 4096 bytes: CBW %s, data %s %d bytes, then "
		 "Reset Recovery", in ? "READ" : "WRITE", hc_err(rc), hc_err(data_rc), actual);
	hc_reset_recovery(hc);
	snprintf(id, sizeof(id), "xfer.reset_mid_%s.next", in ? "read" : "write");
	check_next_csw(hc, id, "the reset");
	snprintf(id, sizeof(id), "xfer.reset_mid_%s.read", in ? "read" : "write");
	hc_bot_cmd(hc, &rd, buf, &r);
	hc_check(hc, r.csw_ok && r.status == 0 && r.data_actual == 4096, id,
		 "READ(10) LBA %u x 8 afterwards: %s", ABORT_LBA, hc_bot_describe(&r, desc, sizeof(desc)));
}

static void check_control(struct hc *hc)
{
	uint8_t b[18];
	int rc;

	rc = hc_ctrl(hc, 0x80, LIBUSB_REQUEST_GET_DESCRIPTOR, 0x0100, 0, b, 0);
	hc_check(hc, rc == 0, "ctrl.wlength0", "GET_DESCRIPTOR(DEVICE) wLength 0 -> %s, "
		 "%d bytes (want no data stage, ok)", hc_err(rc), rc < 0 ? 0 : rc);
	for (int k = 0; k < 2; k++) {
		uint8_t ep = k ? hc->ep_out : hc->ep_in;
		int h;

		rc = hc_ctrl(hc, 0x02, LIBUSB_REQUEST_CLEAR_FEATURE, 0, ep, NULL, 0);
		h = hc_ep_halted(hc, ep);
		hc_check(hc, rc == 0 && h == 0, k ? "ctrl.clear_not_halted.out" :
			 "ctrl.clear_not_halted.in", "CLEAR_FEATURE(ENDPOINT_HALT) 0x%02x when not "
			 "halted -> %s, GET_STATUS -> %d", ep, hc_err(rc), h);
	}
	check_next_csw(hc, "ctrl.clear_not_halted.next", "CLEAR_FEATURE");
}

static void check_burst(struct hc *hc)
{
	struct cbw_spec t = hc_cmd6(SC_TEST_UNIT_READY, 0, 0, 0);
	struct bot_res r;
	char desc[200];
	int n = 0;

	for (; n < 200; n++) {
		hc_bot_cmd(hc, &t, NULL, &r);
		if (!r.csw_ok || r.status != 0)
			break;
	}
	hc_check(hc, n == 200, "xfer.burst", "%d of 200 TEST UNIT READY in a row%s%s", n,
		 n == 200 ? "" : "; then ", n == 200 ? "" : hc_bot_describe(&r, desc, sizeof(desc)));
	if (n != 200)
		hc_reset_recovery(hc);
}

void hc_xfer(struct hc *hc)
{
	check_control(hc);
	check_split(hc);
	check_abandoned_read(hc);
	check_reset_mid(hc, true);
	check_reset_mid(hc, false);
	check_burst(hc);
}
