/*
 * host_ch9.c - host_check's chapter-9 checks: every descriptor read back with
 * raw GET_DESCRIPTOR control transfers and compared with the profile's
 * tables (full and short reads), the string descriptors in every listed
 * language, and the standard requests (status, halt, configuration,
 * interface) including the ones a device must refuse with a stall.
 *
 * Touches only the device's control pipe and, for the halt checks, its bulk
 * endpoints (each left clear and working).
 */
#include "host_check.h"

#include <stdio.h>
#include <string.h>

#define DT_DEVICE	0x01
#define DT_CONFIG	0x02
#define DT_STRING	0x03
#define DT_INTERFACE	0x04
#define DT_ENDPOINT	0x05
#define DT_QUALIFIER	0x06
#define DT_OTHER_SPEED	0x07
#define DT_BOS		0x0f

#define MAX_STRINGS 8
#define MAX_LANGS 8

/* String indices the descriptors reference, in first-seen order. */
struct str_refs {
	uint8_t idx[MAX_STRINGS];
	const char *want[MAX_STRINGS];
	const char *what[MAX_STRINGS];
	int n;
};

static int get_desc(struct hc *hc, uint8_t type, uint8_t index, uint16_t lang,
		    uint8_t *buf, uint16_t len)
{
	memset(buf, 0xee, len);
	return hc_ctrl(hc, 0x80, LIBUSB_REQUEST_GET_DESCRIPTOR,
		       (uint16_t)(type << 8 | index), lang, buf, len);
}

/* A read of len bytes returns exactly len and they are full[0..len). */
static void check_short(struct hc *hc, const char *id, uint8_t type, uint8_t index,
			uint16_t lang, const uint8_t *full, uint16_t len)
{
	uint8_t buf[256];
	char h1[64], h2[64];
	int rc = get_desc(hc, type, index, lang, buf, len);

	hc_check(hc, rc == len && memcmp(buf, full, len) == 0, id,
		 "wLength %u -> %s%d bytes [%s], want %u [%s]", len,
		 rc < 0 ? hc_err(rc) : "", rc < 0 ? 0 : rc,
		 hc_hex(h1, sizeof(h1), buf, rc > 0 ? (rc > 16 ? 16 : rc) : 0), len,
		 hc_hex(h2, sizeof(h2), full, len > 16 ? 16 : len));
}

static void add_ref(struct str_refs *r, uint8_t idx, const char *what, const char *want)
{
	if (!idx)
		return;
	for (int i = 0; i < r->n; i++)
		if (r->idx[i] == idx)
			return;
	if (r->n == MAX_STRINGS)
		return;
	r->idx[r->n] = idx;
	r->what[r->n] = what;
	r->want[r->n] = want;
	r->n++;
}

static void check_device(struct hc *hc, struct str_refs *refs)
{
	uint8_t d[64];
	char why[512], hex[128];
	int rc = get_desc(hc, DT_DEVICE, 0, 0, d, 64);
	bool ok = rc == HC_DEV_LEN && hc_match(hc->exp->dev, d, HC_DEV_LEN, why, sizeof(why));

	hc_check(hc, ok, "desc.device", "wLength 64 -> %s%d bytes [%s]%s%s",
		 rc < 0 ? hc_err(rc) : "", rc < 0 ? 0 : rc,
		 hc_hex(hex, sizeof(hex), d, rc > 0 ? rc : 0), ok ? "" : " ", ok ? "" : why);
	if (rc < HC_DEV_LEN)
		return;
	check_short(hc, "desc.device.short8", DT_DEVICE, 0, 0, d, 8);
	check_short(hc, "desc.device.short1", DT_DEVICE, 0, 0, d, 1);
	add_ref(refs, d[14], "iManufacturer", hc->exp->manufacturer);
	add_ref(refs, d[15], "iProduct", hc->exp->product);
	add_ref(refs, d[16], "iSerialNumber", hc->exp->serial);
}

/* The bulk endpoints of interface 0, found by walking the descriptors. */
static void find_endpoints(struct hc *hc, const uint8_t *c, int n)
{
	for (int at = 0; at + 2 <= n && c[at] >= 2; at += c[at]) {
		if (c[at + 1] != DT_ENDPOINT || at + 7 > n || (c[at + 3] & 3) != 2)
			continue;
		if (c[at + 2] & 0x80)
			hc->ep_in = hc->ep_in ? hc->ep_in : c[at + 2];
		else
			hc->ep_out = hc->ep_out ? hc->ep_out : c[at + 2];
	}
}

static void check_config(struct hc *hc, uint8_t type, const char *id,
			 struct str_refs *refs)
{
	int16_t exp[HC_CFG_LEN];
	uint8_t c[256];
	char why[512], hex[128], sid[64];
	int rc;
	bool ok;

	memcpy(exp, hc->exp->cfg, sizeof(exp));
	if (type == DT_OTHER_SPEED) {
		/* The full-speed set: the same but 64-byte bulk packets. */
		exp[1] = DT_OTHER_SPEED;
		exp[22] = 0x40, exp[23] = 0x00;
		exp[29] = 0x40, exp[30] = 0x00;
	}
	rc = get_desc(hc, type, 0, 0, c, 255);
	ok = rc == HC_CFG_LEN && hc_match(exp, c, HC_CFG_LEN, why, sizeof(why));
	hc_check(hc, ok, id, "wLength 255 -> %s%d bytes [%s]%s%s",
		 rc < 0 ? hc_err(rc) : "", rc < 0 ? 0 : rc,
		 hc_hex(hex, sizeof(hex), c, rc > 0 ? (rc > 40 ? 40 : rc) : 0),
		 ok ? "" : " ", ok ? "" : why);
	if (rc < 9)
		return;
	snprintf(sid, sizeof(sid), "%s.short9", id);
	check_short(hc, sid, type, 0, 0, c, 9);
	snprintf(sid, sizeof(sid), "%s.short20", id);
	if (rc >= 20)
		check_short(hc, sid, type, 0, 0, c, 20);
	if (type == DT_CONFIG) {
		find_endpoints(hc, c, rc);
		add_ref(refs, c[6], "iConfiguration", hc->exp->configuration);
		if (rc >= 18)
			add_ref(refs, c[17], "iInterface", hc->exp->interface);
		/* bNumConfigurations is 1: index 1 does not exist. */
		snprintf(sid, sizeof(sid), "%s.index1", id);
		rc = get_desc(hc, type, 1, 0, c, 255);
		hc_check(hc, rc == LIBUSB_ERROR_PIPE, sid, "index 1 -> %s%s",
			 hc_err(rc), rc == LIBUSB_ERROR_PIPE ? " (stall)" : ", want stall");
	}
}

static void check_qualifier(struct hc *hc)
{
	uint8_t q[64];
	char why[256], hex[64];
	int rc = get_desc(hc, DT_QUALIFIER, 0, 0, q, 64);
	bool ok = rc == HC_QUAL_LEN && hc_match(hc->exp->qual, q, HC_QUAL_LEN, why, sizeof(why));

	hc_check(hc, ok, "desc.qualifier", "wLength 64 -> %s%d bytes [%s]%s%s",
		 rc < 0 ? hc_err(rc) : "", rc < 0 ? 0 : rc,
		 hc_hex(hex, sizeof(hex), q, rc > 0 ? rc : 0), ok ? "" : " ", ok ? "" : why);
	if (rc >= 4)
		check_short(hc, "desc.qualifier.short4", DT_QUALIFIER, 0, 0, q, 4);
}

/* UTF-16LE payload well-formed (no lone surrogate, no NUL); ASCII copy. */
static bool utf16_ok(const uint8_t *s, int bytes, char *ascii, size_t size)
{
	size_t o = 0;

	for (int i = 0; i + 1 < bytes; i += 2) {
		unsigned u = (unsigned)(s[i] | s[i + 1] << 8);

		if (u == 0)
			return false;
		if (u >= 0xd800 && u <= 0xdbff) {
			unsigned l;

			if (i + 3 >= bytes)
				return false;
			l = (unsigned)(s[i + 2] | s[i + 3] << 8);
			if (l < 0xdc00 || l > 0xdfff)
				return false;
			i += 2;
			u = '?';
		} else if (u >= 0xdc00 && u <= 0xdfff) {
			return false;
		}
		if (o + 1 < size)
			ascii[o++] = u < 0x80 ? (char)u : '?';
	}
	ascii[o] = '\0';
	return true;
}

static void check_strings(struct hc *hc, const struct str_refs *refs)
{
	uint8_t s0[256], s[256];
	uint16_t langs[MAX_LANGS] = { 0 };
	char id[96], hex[64], text[128];
	int n_langs, rc;

	rc = get_desc(hc, DT_STRING, 0, 0, s0, 255);
	if (!hc_check(hc, rc >= 4 && rc % 2 == 0 && s0[0] == rc && s0[1] == DT_STRING,
		      "desc.string0", "wLength 255 -> %s%d bytes [%s]",
		      rc < 0 ? hc_err(rc) : "", rc < 0 ? 0 : rc,
		      hc_hex(hex, sizeof(hex), s0, rc > 0 ? (rc > 16 ? 16 : rc) : 0)))
		return;
	check_short(hc, "desc.string0.short2", DT_STRING, 0, 0, s0, 2);
	n_langs = (rc - 2) / 2 < MAX_LANGS ? (rc - 2) / 2 : MAX_LANGS;
	for (int l = 0; l < n_langs; l++)
		langs[l] = (uint16_t)(s0[2 + 2 * l] | s0[3 + 2 * l] << 8);
	hc_check(hc, n_langs >= 1 && langs[0] == 0x0409, "desc.string0.langid",
		 "%d language(s), first 0x%04x (want 0x0409, US English)", n_langs,
		 n_langs ? langs[0] : 0);

	for (int l = 0; l < n_langs; l++) {
		for (int i = 0; i < refs->n; i++) {
			uint8_t idx = refs->idx[i];
			bool ok;

			snprintf(id, sizeof(id), "desc.string.%s.0x%04x", refs->what[i], langs[l]);
			rc = get_desc(hc, DT_STRING, idx, langs[l], s, 255);
			ok = rc >= 2 && rc % 2 == 0 && s[0] == rc && s[1] == DT_STRING &&
			     utf16_ok(s + 2, rc - 2, text, sizeof(text));
			if (!ok) {
				hc_check(hc, false, id, "index %u -> %s%d bytes [%s]", idx,
					 rc < 0 ? hc_err(rc) : "", rc < 0 ? 0 : rc,
					 hc_hex(hex, sizeof(hex), s, rc > 0 ? (rc > 16 ? 16 : rc) : 0));
				continue;
			}
			if (refs->want[i] && langs[l] == 0x0409)
				ok = strcmp(text, refs->want[i]) == 0;
			hc_check(hc, ok, id, "index %u: bLength %u, \"%s\"%s%s%s", idx, s[0], text,
				 refs->want[i] ? " (want \"" : "",
				 refs->want[i] ? refs->want[i] : "", refs->want[i] ? "\")" : "");
			if (l == 0 && i == 0) {
				snprintf(id, sizeof(id), "desc.string.%s.short2", refs->what[i]);
				check_short(hc, id, DT_STRING, idx, langs[l], s, 2);
				snprintf(id, sizeof(id), "desc.string.%s.short3", refs->what[i]);
				check_short(hc, id, DT_STRING, idx, langs[l], s, 3);
			}
		}
	}

	/* Indices past any a gadget allocates (ids are handed out from 1). */
	for (int k = 0; k < 2; k++) {
		int idx = k == 0 ? 0x7f : 0xfe;

		snprintf(id, sizeof(id), "desc.string.absent0x%02x", idx);
		rc = get_desc(hc, DT_STRING, (uint8_t)idx, 0x0409, s, 255);
		hc_check(hc, rc == LIBUSB_ERROR_PIPE, id, "index %d -> %s%s", idx, hc_err(rc),
			 rc == LIBUSB_ERROR_PIPE ? " (stall)" : ", want stall");
	}
	/* A language string 0 does not list: the spec leaves it open. */
	if (refs->n) {
		rc = get_desc(hc, DT_STRING, refs->idx[0], 0x0407, s, 255);
		hc_info(hc, "desc.string.unlisted_lang", "index %u langid 0x0407 -> %s%s",
			refs->idx[0], hc_err(rc), rc >= 0 ? " (answered)" : "");
	}
	/* Which indices exist at all; the unreferenced ones are listed. */
	for (int idx = 1; idx < 256; idx++) {
		bool ref = false;

		for (int i = 0; i < refs->n; i++)
			ref = ref || refs->idx[i] == idx;
		rc = get_desc(hc, DT_STRING, (uint8_t)idx, 0x0409, s, 255);
		if (rc < 0 || ref)
			continue;
		if (rc < 2 || !utf16_ok(s + 2, rc - 2, text, sizeof(text)))
			snprintf(text, sizeof(text), "(malformed)");
		hc_info(hc, "desc.string.unreferenced", "index %d answers: %d bytes, \"%s\"",
			idx, rc, text);
	}
}

void hc_ch9_descriptors(struct hc *hc)
{
	struct str_refs refs = { .n = 0 };

	check_device(hc, &refs);
	check_config(hc, DT_CONFIG, "desc.config", &refs);
	check_qualifier(hc);
	check_config(hc, DT_OTHER_SPEED, "desc.other_speed", &refs);
	check_strings(hc, &refs);
}

/* ---- standard requests -------------------------------------------------- */

#define IDX_EPIN	0x1000
#define IDX_EPOUT	0x2000

/* A request the device must refuse with a stall. */
struct stall_req {
	const char *id;
	uint8_t type, req;
	uint16_t value, index, len;
};

static const struct stall_req stall_reqs[] = {
	{ "std.set_descriptor", 0x00, 0x07, 0x0100, 0, 18 },
	{ "std.synch_frame.bulk", 0x82, 0x0c, 0, IDX_EPIN, 2 },
	{ "std.get_descriptor.interface", 0x80, 0x06, 0x0400, 0, 9 },
	{ "std.get_descriptor.endpoint", 0x80, 0x06, 0x0500, 0, 7 },
	{ "std.get_descriptor.bos", 0x80, 0x06, 0x0f00, 0, 5 },
	{ "std.get_descriptor.type0x42", 0x80, 0x06, 0x4200, 0, 64 },
	{ "std.get_status.other", 0x83, 0x00, 0, 0, 2 },
	{ "std.unknown_request0x20", 0x80, 0x20, 0, 0, 2 },
	{ "std.set_feature.ep_bad_selector", 0x02, 0x03, 0x0001, IDX_EPIN, 0 },
	{ "std.set_feature.interface", 0x01, 0x03, 0x0000, 0, 0 },
	{ "vendor.device_in", 0xc0, 0x5b, 0, 0, 4 },
	{ "vendor.device_out", 0x40, 0x5c, 0, 0, 0 },
	{ "vendor.interface_in", 0xc1, 0x01, 0, 0, 8 },
	{ "vendor.endpoint_in", 0xc2, 0x01, 0, IDX_EPIN, 8 },
	{ "class.unknown_in", 0xa1, 0x00, 0, 0, 4 },
	{ "class.unknown_out", 0x21, 0x01, 0, 0, 0 },
};

static uint16_t resolve(const struct hc *hc, uint16_t index)
{
	if (index == IDX_EPIN)
		return hc->ep_in;
	if (index == IDX_EPOUT)
		return hc->ep_out;
	return index;
}

static void check_status(struct hc *hc, const char *id, uint8_t type, uint16_t index,
			 uint16_t want)
{
	uint8_t st[2] = { 0xee, 0xee };
	int rc = hc_ctrl(hc, type, LIBUSB_REQUEST_GET_STATUS, 0, index, st, 2);

	hc_check(hc, rc == 2 && (st[0] | st[1] << 8) == want, id,
		 "wIndex 0x%02x -> %s%d bytes %02x %02x, want %02x %02x", index,
		 rc < 0 ? hc_err(rc) : "", rc < 0 ? 0 : rc, st[0], st[1], want & 0xff, want >> 8);
}

/* A CBW for TEST UNIT READY: what the halted bulk-OUT must refuse. */
static void tur_cbw(struct hc *hc, uint8_t *cbw)
{
	uint32_t tag = hc->tag++;

	memset(cbw, 0, 31);
	memcpy(cbw, "USBC", 4);
	cbw[4] = (uint8_t)tag, cbw[5] = (uint8_t)(tag >> 8);
	cbw[6] = (uint8_t)(tag >> 16), cbw[7] = (uint8_t)(tag >> 24);
	cbw[14] = 6;
}

static void check_halt(struct hc *hc, uint8_t ep)
{
	uint8_t buf[512];
	char id[64];
	bool in = ep & 0x80;
	int rc, actual, h;

	snprintf(id, sizeof(id), "std.halt.%s.set", in ? "in" : "out");
	rc = hc_ctrl(hc, 0x02, LIBUSB_REQUEST_SET_FEATURE, 0, ep, NULL, 0);
	hc_check(hc, rc == 0, id, "SET_FEATURE(ENDPOINT_HALT) 0x%02x -> %s", ep, hc_err(rc));
	snprintf(id, sizeof(id), "std.halt.%s.status", in ? "in" : "out");
	h = hc_ep_halted(hc, ep);
	hc_check(hc, h == 1, id, "GET_STATUS(0x%02x) -> %s", ep,
		 h == 1 ? "halted" : h == 0 ? "not halted" : hc_err(h));
	snprintf(id, sizeof(id), "std.halt.%s.stalls", in ? "in" : "out");
	if (in) {
		rc = hc_bulk(hc, ep, buf, 512, &actual);
	} else {
		tur_cbw(hc, buf);
		rc = hc_bulk(hc, ep, buf, 31, &actual);
	}
	hc_check(hc, rc == LIBUSB_ERROR_PIPE, id, "bulk %s -> %s, %d bytes%s",
		 in ? "read" : "write of a CBW", hc_err(rc), actual,
		 rc == LIBUSB_ERROR_PIPE ? " (stall)" : ", want stall");
	snprintf(id, sizeof(id), "std.halt.%s.clear", in ? "in" : "out");
	rc = libusb_clear_halt(hc->h, ep);
	h = hc_ep_halted(hc, ep);
	hc_check(hc, rc == 0 && h == 0, id, "CLEAR_FEATURE -> %s, GET_STATUS -> %s",
		 hc_err(rc), h == 1 ? "halted" : h == 0 ? "not halted" : hc_err(h));
	if (!in && rc == 0 && actual == 31) {
		/* The CBW went through after all: take its CSW to stay in step. */
		(void)hc_bulk(hc, hc->ep_in, buf, 512, &actual);
	}
	snprintf(id, sizeof(id), "std.halt.%s.works", in ? "in" : "out");
	hc_check(hc, hc_unit_ready(hc), id, "TEST UNIT READY after the clear");
}

static void check_stall_reqs(struct hc *hc)
{
	uint8_t buf[64];

	for (size_t i = 0; i < sizeof(stall_reqs) / sizeof(stall_reqs[0]); i++) {
		const struct stall_req *r = &stall_reqs[i];
		uint16_t index = resolve(hc, r->index);
		int rc;

		memset(buf, 0, sizeof(buf));
		rc = hc_ctrl(hc, r->type, r->req, r->value, index, buf, r->len);
		hc_check(hc, rc == LIBUSB_ERROR_PIPE, r->id,
			 "%02x %02x wValue 0x%04x wIndex 0x%04x wLength %u -> %s%s",
			 r->type, r->req, r->value, index, r->len, hc_err(rc),
			 rc == LIBUSB_ERROR_PIPE ? " (stall)" :
			 rc == LIBUSB_ERROR_NOT_FOUND || rc == LIBUSB_ERROR_INVALID_PARAM ?
			 " (refused by the host, not sent)" : ", want stall");
	}
}

/*
 * bmAttributes without the remote-wakeup bit: the feature cannot be set, so
 * SET_FEATURE(DEVICE_REMOTE_WAKEUP) is a request error (9.4.9) and
 * GET_STATUS must not report it enabled. Cleared again either way.
 */
static void check_remote_wakeup(struct hc *hc)
{
	uint8_t st[2] = { 0xee, 0xee };
	bool capable = hc->exp->cfg[7] >= 0 && (hc->exp->cfg[7] & 0x20);
	int rc, rs;

	if (capable)
		return;
	rc = hc_ctrl(hc, 0x00, LIBUSB_REQUEST_SET_FEATURE, 1, 0, NULL, 0);
	rs = hc_ctrl(hc, 0x80, LIBUSB_REQUEST_GET_STATUS, 0, 0, st, 2);
	hc_check(hc, rc == LIBUSB_ERROR_PIPE && rs == 2 && !(st[0] & 2),
		 "std.set_feature.remote_wakeup",
		 "no remote wakeup in bmAttributes: SET_FEATURE(DEVICE_REMOTE_WAKEUP) -> %s%s, "
		 "then GET_STATUS -> %02x %02x%s", hc_err(rc),
		 rc == LIBUSB_ERROR_PIPE ? " (stall)" : ", want stall", st[0], st[1],
		 st[0] & 2 ? " (remote wakeup enabled)" : "");
	(void)hc_ctrl(hc, 0x00, LIBUSB_REQUEST_CLEAR_FEATURE, 1, 0, NULL, 0);
}

void hc_ch9_requests(struct hc *hc)
{
	uint8_t b[4];
	int rc;

	check_status(hc, "std.get_status.device", 0x80, 0, hc->exp->dev_status);
	check_status(hc, "std.get_status.interface", 0x81, hc->ifnum, 0);
	check_status(hc, "std.get_status.ep0", 0x82, 0, 0);
	check_status(hc, "std.get_status.ep_in", 0x82, hc->ep_in, 0);
	check_status(hc, "std.get_status.ep_out", 0x82, hc->ep_out, 0);

	b[0] = 0xee;
	rc = hc_ctrl(hc, 0x80, LIBUSB_REQUEST_GET_CONFIGURATION, 0, 0, b, 1);
	hc_check(hc, rc == 1 && b[0] == 1, "std.get_configuration", "-> %s%d bytes, value %u",
		 rc < 0 ? hc_err(rc) : "", rc < 0 ? 0 : rc, b[0]);
	b[0] = 0xee;
	rc = hc_ctrl(hc, 0x81, LIBUSB_REQUEST_GET_INTERFACE, 0, hc->ifnum, b, 1);
	hc_check(hc, rc == 1 && b[0] == 0, "std.get_interface", "-> %s%d bytes, alt %u",
		 rc < 0 ? hc_err(rc) : "", rc < 0 ? 0 : rc, b[0]);

	/* Raw SET_INTERFACE: libusb's own call refuses alt 1 without asking. */
	rc = hc_ctrl(hc, 0x01, LIBUSB_REQUEST_SET_INTERFACE, 0, hc->ifnum, NULL, 0);
	hc_check(hc, rc == 0, "std.set_interface.alt0", "-> %s", hc_err(rc));
	hc_check(hc, hc_unit_ready(hc), "std.set_interface.alt0.works",
		 "TEST UNIT READY after SET_INTERFACE(0)");
	rc = hc_ctrl(hc, 0x01, LIBUSB_REQUEST_SET_INTERFACE, 1, hc->ifnum, NULL, 0);
	hc_check(hc, rc == LIBUSB_ERROR_PIPE, "std.set_interface.alt1", "-> %s%s", hc_err(rc),
		 rc == LIBUSB_ERROR_PIPE ? " (stall)" : ", want stall");
	b[0] = 0xee;
	rc = hc_ctrl(hc, 0x81, LIBUSB_REQUEST_GET_INTERFACE, 0, hc->ifnum, b, 1);
	hc_check(hc, rc == 1 && b[0] == 0, "std.set_interface.alt1.unchanged",
		 "GET_INTERFACE -> %s%d bytes, alt %u", rc < 0 ? hc_err(rc) : "",
		 rc < 0 ? 0 : rc, b[0]);

	check_halt(hc, hc->ep_in);
	check_halt(hc, hc->ep_out);

	check_stall_reqs(hc);
	check_remote_wakeup(hc);
	check_status(hc, "std.after_stalls.get_status", 0x80, 0, hc->exp->dev_status);
	hc_check(hc, hc_unit_ready(hc), "std.after_stalls.works",
		 "TEST UNIT READY after the refused requests");
}
