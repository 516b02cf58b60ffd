/*
 * test_scheme.c - gadget schemes (composite/scheme.h): good schemes bound
 * to the in-process host and read back as a host reads them (device and
 * configuration descriptors, strings in two languages, MS OS string),
 * every error with its file and line (syntax, unknown type, unknown
 * attribute, value out of range, missing label, @include'd file, a
 * configuration out of endpoints naming the function), read-only
 * attributes ignored, the export round trip (load, export, load
 * again: the same descriptors), and gadget_scheme_for_each_function()
 * (instances, links, the bound function).
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "composite/composite.h"
#include "composite/errors.h"
#include "composite/acm.h"
#include "composite/inproc_host.h"
#include "inproc_string.h"
#include "composite/scheme.h"

#define TMO 2000

static void quiet_log(void *ctx, const char *line)
{
	(void)ctx;
	(void)line;
}

static int setup(void **state)
{
	(void)state;
	usb_composite_set_log_handler(quiet_log, NULL);
	return 0;
}

/* ---- a host's view ---------------------------------------------------------- */

struct view {
	struct usb_device_descriptor dev;
	uint8_t cfg[4][512];
	int cfg_len[4];
	char strings[16][2][64];	/* index 1..15, languages 0x409 and 0x407 */
};

/* Enumerate every configuration (values 1..n) and read strings 1..15. */
static void read_view(struct usb_inproc_host *h, unsigned n_configs, struct view *v)
{
	memset(v, 0, sizeof(*v));
	for (unsigned c = 0; c < n_configs; c++) {
		v->cfg_len[c] = usb_inproc_host_enumerate(h, USB_SPEED_HIGH, (uint8_t)(c + 1),
							  &v->dev, v->cfg[c], sizeof(v->cfg[c]), TMO);
		assert_true(v->cfg_len[c] > 9);
	}
	for (unsigned i = 1; i < 16; i++) {
		inproc_get_string(h, (uint8_t)i, 0x0409, v->strings[i][0], sizeof(v->strings[i][0]));
		inproc_get_string(h, (uint8_t)i, 0x0407, v->strings[i][1], sizeof(v->strings[i][1]));
	}
}

/* The interface classes of a configuration, in order (alternate 0). */
static int classes(const uint8_t *cfg, int len, uint8_t *out)
{
	int n = 0;

	for (int off = 0; off + 1 < len && cfg[off]; off += cfg[off])
		if (cfg[off + 1] == USB_DT_INTERFACE && cfg[off + 3] == 0)
			out[n++] = cfg[off + 5];
	return n;
}

static struct usb_inproc_host *host(const char *name)
{
	struct usb_inproc_host_config hc = { .udc_name = name, .max_speed = USB_SPEED_HIGH };
	struct usb_inproc_host *h;

	assert_int_equal(usb_inproc_host_create(&hc, &h), 0);
	return h;
}

static struct gadget_scheme *load_ok(const char *text)
{
	struct gadget_scheme_error err;
	struct gadget_scheme *s = NULL;
	int rc = gadget_scheme_load_string(text, "good.scheme", NULL, &s, &err);

	if (rc)
		print_error("%s:%d: %s\n", err.file, err.line, err.message);
	assert_int_equal(rc, 0);
	return s;
}

/* Load must fail with @code at @line, the message containing @needle. */
static void load_fails(const char *text, int code, int line, const char *needle)
{
	struct gadget_scheme_error err;
	struct gadget_scheme *s = NULL;
	int rc = gadget_scheme_load_string(text, "bad.scheme", NULL, &s, &err);

	if (rc != code || err.line != line || !strstr(err.message, needle))
		print_error("got %d %s:%d: %s\n", rc, err.file, err.line, err.message);
	assert_int_equal(rc, code);
	assert_null(s);
	assert_string_equal(err.file, "bad.scheme");
	assert_int_equal(err.line, line);
	assert_non_null(strstr(err.message, needle));
}

/* ---- good schemes ------------------------------------------------------------- */

static const char two_langs[] =
	"attrs = { bcdUSB = 0x0200; bDeviceClass = 0xEF; bDeviceSubClass = 2;\n"
	"          bDeviceProtocol = 1; idVendor = 0x1d6b; idProduct = 0x0104;\n"
	"          bcdDevice = 0x0601; };\n"
	"strings = ( { lang = 0x409; manufacturer = \"Maker\"; product = \"Thing\";\n"
	"              serialnumber = \"0042\"; },\n"
	"            { lang = 0x407; manufacturer = \"Hersteller\"; product = \"Ding\"; } );\n"
	"functions = {\n"
	"    acm_GS0 = { instance = \"GS0\"; type = \"acm\"; attrs = { port_num = 3; }; };\n"
	"    mass_storage_0 = { instance = \"0\"; type = \"mass_storage\";\n"
	"        attrs = { stall = false;\n"
	"                  luns = ( { ro = true; filename = \"\"; },\n"
	"                           { cdrom = true; removable = true; } ); }; };\n"
	"};\n"
	"configs = ( { id = 1; name = \"c\";\n"
	"              attrs = { bmAttributes = 0xC0; bMaxPower = 100; };\n"
	"              strings = ( { lang = 0x409; configuration = \"Serial and storage\"; },\n"
	"                          { lang = 0x407; configuration = \"Seriell\"; } );\n"
	"              functions = ( \"acm_GS0\", { name = \"ms\"; function = \"mass_storage_0\"; } ); },\n"
	"            { id = 2; name = \"hid only\";\n"
	"              functions = ( { function = { instance = \"kbd\"; type = \"hid\";\n"
	"                  attrs = { protocol = 1; subclass = 1; report_length = 8;\n"
	"                            report_desc = ( 0x05, 0x01, 0x09, 0x06, 0xa1, 0x01, 0xc0 ); }; }; } ); } );\n";

static void test_scheme_two_languages(void **state)
{
	struct usb_inproc_host *h = host("scheme.0");
	struct gadget_scheme *s = load_ok(two_langs);
	struct gadget_scheme_error err;
	uint8_t cls[8];
	struct view v;
	const uint8_t *c;

	(void)state;
	assert_int_equal(gadget_scheme_bind(s, "scheme.0", &err), 0);
	assert_non_null(gadget_scheme_cdev(s));
	read_view(h, 2, &v);
	assert_int_equal(v.dev.bDeviceClass, 0xEF);
	assert_int_equal(USB_LE16_TO_CPU(v.dev.idVendor), 0x1d6b);
	assert_int_equal(USB_LE16_TO_CPU(v.dev.idProduct), 0x0104);
	assert_int_equal(USB_LE16_TO_CPU(v.dev.bcdDevice), 0x0601);
	assert_int_equal(v.dev.bNumConfigurations, 2);
	/* configfs's order: the device's three strings, then the configuration's. */
	assert_int_equal(v.dev.iManufacturer, 1);
	assert_int_equal(v.dev.iProduct, 2);
	assert_int_equal(v.dev.iSerialNumber, 3);
	assert_string_equal(v.strings[1][0], "Maker");
	assert_string_equal(v.strings[1][1], "Hersteller");
	assert_string_equal(v.strings[2][1], "Ding");
	assert_string_equal(v.strings[3][0], "0042");
	assert_string_equal(v.strings[3][1], "");
	c = v.cfg[0];
	assert_int_equal(c[6], 4);	/* iConfiguration */
	assert_string_equal(v.strings[4][0], "Serial and storage");
	assert_string_equal(v.strings[4][1], "Seriell");
	assert_int_equal(c[7], 0xC0);
	assert_int_equal(c[8], 50);	/* 100 mA */
	assert_int_equal(classes(c, v.cfg_len[0], cls), 3);
	assert_int_equal(cls[0], USB_CLASS_COMM);
	assert_int_equal(cls[1], USB_CLASS_CDC_DATA);
	assert_int_equal(cls[2], USB_CLASS_MASS_STORAGE);
	/* The second configuration: no strings, so no iConfiguration. */
	c = v.cfg[1];
	assert_int_equal(c[6], 0);
	assert_int_equal(c[7], 0x80);
	assert_int_equal(c[8], 1);	/* configfs's 2 mA */
	assert_int_equal(classes(c, v.cfg_len[1], cls), 1);
	assert_int_equal(cls[0], USB_CLASS_HID);
	gadget_scheme_free(s);
	usb_inproc_host_destroy(h);
}

/* Written as libusbgx exports it, os_descs included. */
static const char os_scheme[] =
	"attrs = { idVendor = 0x1209; idProduct = 0x0001; };\n"
	"os_descs = { use = true; b_vendor_code = 0xcd; qw_sign = \"MSFT100\"; config_id = 1; };\n"
	"functions = { ss = { instance = \"0\"; type = \"SourceSink\"; attrs = { pattern = 1; };\n"
	"    os_descs = ( { interface = \"0\"; compatible_id = \"WINUSB\"; sub_compatible_id = \"\"; } ); }; };\n"
	"configs = ( { id = 1; name = \"c\"; functions = ( \"ss\" ); } );\n";

static void test_scheme_os_descs(void **state)
{
	struct usb_inproc_host *h = host("scheme.os");
	struct gadget_scheme *s = load_ok(os_scheme);
	struct usb_ctrlrequest rq = {
		.bRequestType = USB_DIR_IN, .bRequest = USB_REQ_GET_DESCRIPTOR,
		.wValue = USB_CPU_TO_LE16((USB_DT_STRING << 8) | 0xEE),
		.wLength = USB_CPU_TO_LE16(18),
	};
	struct usb_ctrlrequest vendor = {
		.bRequestType = USB_DIR_IN | USB_TYPE_VENDOR, .bRequest = 0xcd,
		.wIndex = USB_CPU_TO_LE16(USB_OS_DESC_EXT_COMPAT_ID), .wLength = USB_CPU_TO_LE16(40),
	};
	uint8_t buf[64];
	struct view v;

	(void)state;
	assert_int_equal(gadget_scheme_bind(s, "scheme.os", NULL), 0);
	read_view(h, 1, &v);
	assert_int_equal(usb_inproc_host_control(h, &rq, buf, TMO), 18);
	assert_int_equal(buf[2], 'M');
	assert_int_equal(buf[16], 0xcd);
	assert_int_equal(usb_inproc_host_control(h, &vendor, buf, TMO), 40);
	assert_memory_equal(buf + 18, "WINUSB", 6);
	gadget_scheme_free(s);
	usb_inproc_host_destroy(h);
}

/* ---- errors: file and line -------------------------------------------------- */

/* One bad scheme: the error, its line, a word of its message. */
struct bad_scheme {
	const char *what;
	const char *text;
	int code;
	int line;
	const char *needle;
};

static const struct bad_scheme syntax_errors[] = {
	{ "no value", "attrs = { idVendor = 0x1d6b; };\nstrings = ( { lang = ; } );\n",
	  -USB_EINVAL, 2, "syntax error" },
};

static const struct bad_scheme unknown_names[] = {
	{ "function type", "functions = {\n  x_0 = { instance = \"0\";\n    type = \"no_such\"; };\n};\n",
	  -USB_EINVAL, 3, "unknown type 'no_such'" },
	{ "function attribute", "functions = { ms = { instance = \"0\"; type = \"mass_storage\";\n"
	  "  attrs = {\n    stall = true;\n    colour = 3; }; }; };\n",
	  -USB_EINVAL, 4, "unknown attribute 'colour'" },
	{ "LUN setting", "functions = { ms = { instance = \"0\"; type = \"mass_storage\";\n"
	  "  attrs = { luns = ( {\n      speed = 1; } ); }; }; };\n",
	  -USB_EINVAL, 3, "unknown setting 'speed'" },
	{ "device attribute", "attrs = {\n idVendor = 1;\n iProduct = 2; };\n", -USB_EINVAL, 3,
	  "unknown device attribute 'iProduct'" },
	{ "top-level setting", "colour = 1;\n", -USB_EINVAL, 1, "unknown setting 'colour'" },
};

static const struct bad_scheme out_of_range[] = {
	{ "idVendor", "attrs = {\n  idVendor = 0x10000; };\n", -USB_ERANGE, 2, "out of range" },
	{ "bmAttributes", "configs = ( { id = 1; name = \"c\";\n  attrs = {\n    bmAttributes = 0x40; }; } );\n",
	  -USB_ERANGE, 3, "bmAttributes" },
	{ "configuration id", "configs = ( {\n  id = 256; name = \"c\"; } );\n", -USB_ERANGE, 2,
	  "out of range" },
	{ "report_length", "functions = { h = { instance = \"0\"; type = \"hid\";\n"
	  "  attrs = {\n    report_length = 5000; }; }; };\n", -USB_ERANGE, 3, "report_length" },
	{ "report_desc byte", "functions = { h = { instance = \"0\"; type = \"hid\";\n"
	  "  attrs = { report_desc = ( 1,\n   300 ); }; }; };\n", -USB_ERANGE, 3, "out of range" },
	{ "compatible_id", "functions = { ss = { instance = \"0\"; type = \"SourceSink\";\n"
	  "  os_descs = ( { interface = \"0\";\n    compatible_id = \"WINUSB-TOO-LONG\"; } ); }; };\n",
	  -USB_ERANGE, 3, "longer than 8 bytes" },
};

static const struct bad_scheme missing[] = {
	{ "label", "functions = { acm_GS0 = { instance = \"GS0\"; type = \"acm\"; }; };\n"
	  "configs = ( { id = 1; name = \"c\";\n  functions = (\n    \"acm_GS1\" ); } );\n",
	  -USB_EINVAL, 4, "no function labelled 'acm_GS1'" },
	{ "binding's function", "configs = ( { id = 1; name = \"c\";\n"
	  "  functions = ( {\n    name = \"x\"; } ); } );\n", -USB_EINVAL, 2, "'function' is missing" },
	{ "configuration id", "configs = ( {\n   name = \"c\"; } );\n", -USB_EINVAL, 1, "'id' is missing" },
};

static const struct bad_scheme wrong_types[] = {
	{ "string for a number", "attrs = {\n  idVendor = \"x\"; };\n", -USB_EINVAL, 2,
	  "must be an integer" },
	{ "group for a list", "strings = {\n  lang = 0x409; };\n", -USB_EINVAL, 1, "must be a list" },
	{ "same type and instance twice", "functions = { a = { instance = \"0\"; type = \"acm\"; };\n"
	  "  b = {\n instance = \"0\"; type = \"acm\"; }; };\n", -USB_EINVAL, 2, "defined twice" },
};

static void check_bad(const struct bad_scheme *cases, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		print_message("bad scheme: %s\n", cases[i].what);
		load_fails(cases[i].text, cases[i].code, cases[i].line, cases[i].needle);
	}
}

#define CHECK_BAD(table) check_bad(table, sizeof(table) / sizeof(table[0]))

static void test_scheme_syntax_error(void **state)
{
	(void)state;
	CHECK_BAD(syntax_errors);
}

static void test_scheme_unknown_names(void **state)
{
	(void)state;
	CHECK_BAD(unknown_names);
}

static void test_scheme_out_of_range(void **state)
{
	(void)state;
	CHECK_BAD(out_of_range);
}

static void test_scheme_missing_label(void **state)
{
	(void)state;
	CHECK_BAD(missing);
}

static void test_scheme_wrong_types(void **state)
{
	(void)state;
	CHECK_BAD(wrong_types);
}

/* Labels that follow libusbgx's TYPE_INSTANCE convention resolve too, and
 * read-only attributes (acm's port_num, hid's dev) are ignored. */
static void test_scheme_conventions(void **state)
{
	struct gadget_scheme *s = load_ok(
		"functions = { serial = { instance = \"GS0\"; type = \"acm\";\n"
		"  attrs = { port_num = 7; }; }; };\n"
		"configs = ( { id = 1; name = \"c\"; functions = ( \"acm_GS0\" ); } );\n");

	(void)state;
	gadget_scheme_free(s);
}

static char tmpdir[64];

static int make_dir(void **state)
{
	(void)state;
	setup(NULL);
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_scheme.XXXXXX");
	assert_non_null(mkdtemp(tmpdir));
	return 0;
}

static void write_file(const char *name, const char *text)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int remove_dir(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

/* @include is relative to the scheme's folder; an error inside the
 * included file names that file. */
static void test_scheme_include(void **state)
{
	struct gadget_scheme_error err;
	struct gadget_scheme *s = NULL;
	char path[128], inc[128];

	(void)state;
	write_file("functions.inc", "functions = { acm_GS0 = { instance = \"GS0\"; type = \"acm\"; }; };\n");
	write_file("main.scheme", "attrs = { idVendor = 0x1d6b; };\n@include \"functions.inc\"\n"
		   "configs = ( { id = 1; name = \"c\"; functions = ( \"acm_GS0\" ); } );\n");
	snprintf(path, sizeof(path), "%s/main.scheme", tmpdir);
	assert_int_equal(gadget_scheme_load_file(path, &s, &err), 0);
	gadget_scheme_free(s);

	write_file("functions.inc", "functions = {\n  acm_GS0 = { instance = \"GS0\"; type = \"acm\";\n"
		   "    attrs = { flavour = 1; }; }; };\n");
	s = NULL;
	assert_int_equal(gadget_scheme_load_file(path, &s, &err), -USB_EINVAL);
	assert_null(s);
	snprintf(inc, sizeof(inc), "%s/functions.inc", tmpdir);
	assert_non_null(strstr(err.file, "functions.inc"));
	assert_int_equal(err.line, 3);
	assert_non_null(strstr(err.message, "flavour"));

	snprintf(path, sizeof(path), "%s/none.scheme", tmpdir);
	assert_int_equal(gadget_scheme_load_file(path, &s, &err), -USB_ENOENT);
	assert_string_equal(err.file, path);
	assert_int_equal(err.line, 0);
	(void)inc;
}

/* Two bulk endpoints each way and no interrupt one: ACM's notify endpoint
 * cannot be had; the error names the function and the line linking it. */
static void test_scheme_out_of_endpoints(void **state)
{
	static const struct usb_inproc_ep_config eps[] = {
		{ .address = USB_DIR_IN | 1, .bulk = 1 }, { .address = 2, .bulk = 1 },
		{ .address = USB_DIR_IN | 3, .bulk = 1 }, { .address = 4, .bulk = 1 },
	};
	struct usb_inproc_host_config hc = { .udc_name = "scheme.few", .max_speed = USB_SPEED_HIGH,
					     .endpoints = eps, .num_endpoints = 4 };
	struct usb_inproc_host *h;
	struct gadget_scheme_error err;
	struct gadget_scheme *s = load_ok(
		"functions = { ms = { instance = \"0\"; type = \"mass_storage\"; };\n"
		"  acm_GS0 = { instance = \"GS0\"; type = \"acm\"; }; };\n"
		"configs = ( { id = 1; name = \"c\"; functions = ( \"ms\",\n"
		"    \"acm_GS0\" ); } );\n");

	(void)state;
	assert_int_equal(usb_inproc_host_create(&hc, &h), 0);
	assert_int_equal(gadget_scheme_bind(s, "scheme.few", &err), -USB_ENODEV);
	assert_null(gadget_scheme_cdev(s));
	assert_string_equal(err.file, "good.scheme");
	assert_int_equal(err.line, 4);
	assert_non_null(strstr(err.message, "runs out of endpoints"));
	assert_non_null(strstr(err.message, "acm_GS0"));
	/* Nothing stays bound: the UDC takes another driver. */
	assert_int_equal(gadget_scheme_bind(s, "no.such.udc", &err), -USB_ENODEV);
	gadget_scheme_free(s);
	usb_inproc_host_destroy(h);
}

/* ---- export ----------------------------------------------------------------- */

static const char everything[] =
	"attrs = { bDeviceClass = 0xEF; bDeviceSubClass = 2; bDeviceProtocol = 1;\n"
	"          idVendor = 0x1d6b; idProduct = 0x0104; bcdDevice = 0x0100; };\n"
	"strings = ( { lang = 0x409; manufacturer = \"M\"; product = \"P\"; serialnumber = \"S\"; } );\n"
	"functions = {\n"
	"  ecm_usb0 = { instance = \"usb0\"; type = \"ecm\"; };\n"
	"  acm_GS0 = { instance = \"GS0\"; type = \"acm\"; };\n"
	"  ms = { instance = \"0\"; type = \"mass_storage\";\n"
	"    attrs = { luns = ( { ro = true; nofua = true; }, { cdrom = true; } ); }; };\n"
	"};\n"
	"configs = ( { id = 1; name = \"a\"; attrs = { bMaxPower = 500; };\n"
	"              strings = ( { lang = 0x409; configuration = \"CDC\"; } );\n"
	"              functions = ( \"ecm_usb0\", \"acm_GS0\", \"ms\" ); },\n"
	"            { id = 2; name = \"b\"; functions = ( \"ms\", { function = { instance = \"k\";\n"
	"                type = \"hid\"; attrs = { report_length = 8; protocol = 1; subclass = 1;\n"
	"                report_desc = ( 0x05, 0x01, 0x09, 0x06, 0xa1, 0x01, 0xc0 ); }; }; } ); } );\n";

static void bind_and_view(struct gadget_scheme *s, struct view *v)
{
	struct usb_inproc_host *h = host("scheme.rt");
	struct gadget_scheme_error err;
	int rc = gadget_scheme_bind(s, "scheme.rt", &err);

	if (rc)
		print_error("%s:%d: %s\n", err.file, err.line, err.message);
	assert_int_equal(rc, 0);
	read_view(h, 2, v);
	gadget_scheme_unbind(s);
	usb_inproc_host_destroy(h);
}

static void test_scheme_export_round_trip(void **state)
{
	static struct view a, b;
	struct gadget_scheme *s = load_ok(everything);
	char *text = NULL, *text2 = NULL;
	size_t len = 0, len2 = 0;
	FILE *f;

	(void)state;
	bind_and_view(s, &a);
	f = open_memstream(&text, &len);
	assert_int_equal(gadget_scheme_export(s, f), 0);
	fclose(f);
	gadget_scheme_free(s);
	assert_non_null(strstr(text, "filename"));
	assert_non_null(strstr(text, "report_desc"));

	s = load_ok(text);
	bind_and_view(s, &b);
	assert_memory_equal(&a.dev, &b.dev, sizeof(a.dev));
	for (unsigned c = 0; c < 2; c++) {
		assert_int_equal(a.cfg_len[c], b.cfg_len[c]);
		assert_memory_equal(a.cfg[c], b.cfg[c], (size_t)a.cfg_len[c]);
	}
	assert_memory_equal(a.strings, b.strings, sizeof(a.strings));
	/* And the export of the export is the same text. */
	f = open_memstream(&text2, &len2);
	assert_int_equal(gadget_scheme_export(s, f), 0);
	fclose(f);
	assert_string_equal(text, text2);
	gadget_scheme_free(s);
	free(text);
	free(text2);
}

/* gadget_scheme_for_each_function(): every function in definition order
 * with its instance, how many configurations link it, and (bound only)
 * the function made for the first of them; a non-zero return stops. */
static const char two_ports[] =
	"functions = { acm_GS0 = { instance = \"GS0\"; type = \"acm\"; };\n"
	"  acm_GS1 = { instance = \"GS1\"; type = \"acm\"; }; };\n"
	"configs = ( { id = 1; name = \"a\"; functions = ( \"acm_GS0\" ); },\n"
	"  { id = 2; name = \"b\"; functions = ( \"acm_GS0\" ); } );\n";

struct seen {
	unsigned n, stop_after;
	struct gadget_scheme_function f[4];
	char label[4][16], type[4][16], instance[4][16];
};

static int note_function(void *ctx, const struct gadget_scheme_function *f)
{
	struct seen *v = ctx;

	assert_true(v->n < 4);
	v->f[v->n] = *f;
	snprintf(v->label[v->n], sizeof(v->label[0]), "%s", f->label);
	snprintf(v->type[v->n], sizeof(v->type[0]), "%s", f->type);
	snprintf(v->instance[v->n], sizeof(v->instance[0]), "%s", f->instance);
	v->n++;
	return v->n == v->stop_after ? 7 : 0;
}

static void test_scheme_for_each_function(void **state)
{
	struct usb_inproc_host *h = host("scheme.fn");
	struct gadget_scheme *s = load_ok(two_ports);
	struct seen v = { 0 };

	(void)state;
	assert_int_equal(gadget_scheme_for_each_function(s, note_function, &v), 0);
	assert_int_equal(v.n, 2);
	assert_string_equal(v.label[0], "acm_GS0");
	assert_string_equal(v.type[0], "acm");
	assert_string_equal(v.instance[0], "GS0");
	assert_string_equal(v.label[1], "acm_GS1");
	assert_int_equal(v.f[0].links, 2);
	assert_int_equal(v.f[1].links, 0);
	assert_non_null(v.f[0].fi);
	assert_ptr_not_equal(v.f[0].fi, v.f[1].fi);
	assert_null(v.f[0].f);			/* not bound */
	assert_true(v.f[0].line > 0);

	assert_int_equal(gadget_scheme_bind(s, "scheme.fn", NULL), 0);
	v = (struct seen){ .stop_after = 1 };
	assert_int_equal(gadget_scheme_for_each_function(s, note_function, &v), 7);
	assert_int_equal(v.n, 1);		/* stopped at the first */
	assert_non_null(v.f[0].f);
	assert_true(acm_is(v.f[0].f));
	v = (struct seen){ 0 };
	assert_int_equal(gadget_scheme_for_each_function(s, note_function, &v), 0);
	assert_null(v.f[1].f);			/* linked nowhere: never made */
	gadget_scheme_unbind(s);
	v = (struct seen){ 0 };
	assert_int_equal(gadget_scheme_for_each_function(s, note_function, &v), 0);
	assert_null(v.f[0].f);
	gadget_scheme_free(s);
	usb_inproc_host_destroy(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_scheme_two_languages, setup),
		cmocka_unit_test_setup(test_scheme_os_descs, setup),
		cmocka_unit_test_setup(test_scheme_syntax_error, setup),
		cmocka_unit_test_setup(test_scheme_unknown_names, setup),
		cmocka_unit_test_setup(test_scheme_out_of_range, setup),
		cmocka_unit_test_setup(test_scheme_missing_label, setup),
		cmocka_unit_test_setup(test_scheme_wrong_types, setup),
		cmocka_unit_test_setup(test_scheme_conventions, setup),
		cmocka_unit_test_setup_teardown(test_scheme_include, make_dir, remove_dir),
		cmocka_unit_test_setup(test_scheme_out_of_endpoints, setup),
		cmocka_unit_test_setup(test_scheme_export_round_trip, setup),
		cmocka_unit_test_setup(test_scheme_for_each_function, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
