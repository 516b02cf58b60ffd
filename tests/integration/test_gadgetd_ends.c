/*
 * test_gadgetd_ends.c - composite-gadgetd's gadget-side ends (part of the
 * test_gadgetd program; helpers in test_gadgetd.c): the acm pty behind
 * run/BUSID/acm.INSTANCE and the hid FIFOs run/BUSID/hid.INSTANCE(.out),
 * with data both ways between them and the project's USB/IP client; what
 * composite-gadgetctl list shows of them (text, JSON); removal and exit
 * taking the files away; SIGHUP leaving an unchanged gadget's ends alone
 * and making a changed one's anew; an end that cannot be made (a run
 * folder that is a file; a TAP interface without the rights) reported
 * with the function named while the gadget is served; ends of functions
 * linked into two configurations following the one the host chose.
 */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "composite/ch9.h"
#include "test_gadgetd.h"

/* tmpdir/run/BUSID/NAME */
static void end_path(char *buf, size_t size, const char *busid, const char *name)
{
	snprintf(buf, size, "%s/run/%s/%s", tmpdir, busid, name);
}

static bool exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

static mode_t file_type(const char *path)
{
	struct stat st;

	assert_int_equal(lstat(path, &st), 0);
	return st.st_mode & S_IFMT;
}

/* The endpoints of the first interface of class @cls in @v. */
static void class_endpoints(const struct host_view *v, uint8_t cls, uint8_t *in, uint8_t *out)
{
	bool inside = false, found = false;

	*in = *out = 0;
	for (uint32_t off = 0; off + 1 < v->cfg_len && v->cfg[off]; off += v->cfg[off]) {
		if (v->cfg[off + 1] == USB_DT_INTERFACE) {
			if (inside)
				break;
			inside = v->cfg[off + 5] == cls && !found;
			found = found || inside;
		}
		if (inside && v->cfg[off + 1] == USB_DT_ENDPOINT)
			*(v->cfg[off + 2] & USB_DIR_IN ? in : out) = v->cfg[off + 2] & 0x0f;
	}
}

/* bInterfaceNumber of the first interface of class @cls in @v. */
static uint8_t class_interface(const struct host_view *v, uint8_t cls)
{
	for (uint32_t off = 0; off + 1 < v->cfg_len && v->cfg[off]; off += v->cfg[off])
		if (v->cfg[off + 1] == USB_DT_INTERFACE && v->cfg[off + 5] == cls)
			return v->cfg[off + 2];
	fail_msg("no interface of class %u", cls);
	return 0xff;
}

/* Read @len bytes from @fd within 5 s. */
static void read_within(int fd, void *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		assert_int_equal(poll(&p, 1, 5000), 1);
		n = read(fd, (char *)buf + got, len - got);
		assert_true(n > 0 || (n < 0 && errno == EAGAIN));
		if (n > 0)
			got += (size_t)n;
	}
}

/* @v with the configuration descriptor of bConfigurationValue @value
 * (the scheme's ids are 1, 2... in order). */
static void config_view(struct uc *c, unsigned value, struct host_view *v)
{
	read_host_view(c, v);
	assert_int_equal(uc_control(c, USB_DIR_IN, USB_REQ_GET_DESCRIPTOR,
				    (uint16_t)(USB_DT_CONFIG << 8 | (value - 1)), 0,
				    sizeof(v->cfg), v->cfg, &v->cfg_len), 0);
	assert_true(v->cfg_len > 9);
	assert_int_equal(v->cfg[5], value);
}

/* Bytes both ways between the host's bulk endpoints of configuration
 * @config and the pty. */
static void acm_both_ways(struct uc *c, const char *link, unsigned config)
{
	struct host_view v;
	uint8_t in, out, buf[64];
	char target[64], from_host[] = "from the host";
	uint32_t n;
	int fd;
	ssize_t len = readlink(link, target, sizeof(target) - 1);

	assert_true(len > 0);
	target[len] = '\0';
	assert_int_equal(strncmp(target, "/dev/pts/", 9), 0);
	config_view(c, config, &v);
	class_endpoints(&v, USB_CLASS_CDC_DATA, &in, &out);
	assert_true(in && out);
	assert_int_equal(uc_control(c, 0, USB_REQ_SET_CONFIGURATION, config, 0, 0, NULL, &n), 0);
	fd = open(link, O_RDWR | O_NOCTTY | O_NONBLOCK);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "to the host", 11), 11);
	assert_int_equal(uc_transfer(c, in, true, buf, sizeof(buf), 0, &n), 0);
	assert_int_equal(n, 11);
	assert_memory_equal(buf, "to the host", 11);
	assert_int_equal(uc_transfer(c, out, false, from_host, 13, 0, &n), 0);
	read_within(fd, buf, 13);
	assert_memory_equal(buf, "from the host", 13);
	close(fd);
}

/* An input report written to the FIFO reaches the host's interrupt IN
 * of configuration @config; the host's output report (SET_REPORT) comes
 * out of the .out FIFO. */
static void hid_both_ways(struct uc *c, const char *in_fifo, const char *out_fifo,
			  unsigned config)
{
	static const uint8_t report[8] = { 0, 0, 0x04, 0, 0, 0, 0, 0 };	/* 'a' */
	uint8_t in, out, buf[64], leds = 0x02;
	struct host_view v;
	uint32_t n;
	int w, r;

	config_view(c, config, &v);
	class_endpoints(&v, USB_CLASS_HID, &in, &out);
	assert_true(in != 0);
	assert_int_equal(uc_control(c, 0, USB_REQ_SET_CONFIGURATION, config, 0, 0, NULL, &n), 0);
	r = open(out_fifo, O_RDONLY | O_NONBLOCK);
	w = open(in_fifo, O_WRONLY | O_NONBLOCK);
	assert_true(r >= 0 && w >= 0);
	assert_int_equal(write(w, report, sizeof(report)), (ssize_t)sizeof(report));
	/* As a host does: one wMaxPacketSize (8), the report fills it. */
	assert_int_equal(uc_transfer(c, in, true, buf, sizeof(report), 0, &n), 0);
	assert_int_equal(n, sizeof(report));
	assert_memory_equal(buf, report, sizeof(report));
	assert_int_equal(uc_control(c, USB_DIR_OUT | USB_TYPE_CLASS | USB_RECIP_INTERFACE, 0x09,
				    0x0200, class_interface(&v, USB_CLASS_HID), 1, &leds, &n),
			 0);	/* SET_REPORT, output */
	read_within(r, buf, 1);
	assert_int_equal(buf[0], leds);
	close(w);
	close(r);
}

/* The ends exist where list says, and data crosses them both ways. */
static void test_gadgetd_ends_data(void **state)
{
	char sock[128], out[8192], errs[1024], a[256], h[256], acm[160], hid[160], hid_out[160];
	char want[512];
	const char *args[] = { h, a, "--port", "0", "--control", sock, NULL };
	struct usbip_device_info info;
	struct daemon d;
	struct uc c;

	(void)state;
	snprintf(sock, sizeof(sock), "%s/control", tmpdir);
	scheme_path(h, sizeof(h), "hid.scheme");
	scheme_path(a, sizeof(a), "acm_mass_storage.scheme");
	end_path(hid, sizeof(hid), "1-1", "hid.usb0");
	end_path(hid_out, sizeof(hid_out), "1-1", "hid.usb0.out");
	end_path(acm, sizeof(acm), "1-2", "acm.GS0");
	start_args(&d, args, NULL);
	assert_int_equal(file_type(acm), S_IFLNK);
	assert_int_equal(file_type(hid), S_IFIFO);
	assert_int_equal(file_type(hid_out), S_IFIFO);

	assert_int_equal(ctl_list(sock, false, out, sizeof(out)), 0);
	snprintf(want, sizeof(want), "hid.scheme hid.usb0=%s\n", hid);
	assert_non_null(strstr(out, want));
	snprintf(want, sizeof(want), "acm_mass_storage.scheme acm.GS0=%s\n", acm);
	assert_non_null(strstr(out, want));
	assert_int_equal(ctl_list(sock, true, out, sizeof(out)), 0);
	snprintf(want, sizeof(want), "\"ends\": { \"acm.GS0\": \"%s\" } }", acm);
	assert_non_null(strstr(out, want));
	snprintf(want, sizeof(want), "\"ends\": { \"hid.usb0\": \"%s\" } }", hid);
	assert_non_null(strstr(out, want));

	assert_int_equal(uc_import(&c, d.port, "1-1", &info), 0);
	hid_both_ways(&c, hid, hid_out, 1);
	uc_close(&c);
	assert_int_equal(uc_import(&c, d.port, "1-2", &info), 0);
	acm_both_ways(&c, acm, 1);
	uc_close(&c);

	/* remove takes the ends and the busid's folder away. */
	assert_int_equal(CTL(sock, out, errs, "remove", "1-2"), 0);
	assert_false(exists(acm));
	end_path(acm, sizeof(acm), "1-2", "");
	assert_false(exists(acm));
	assert_true(exists(hid));
	stop(&d);
	assert_false(exists(hid));	/* and so does the exit */
	assert_false(exists(hid_out));
	end_path(hid, sizeof(hid), "1-1", "");
	assert_false(exists(hid));
}

static void copy_scheme(const char *name, const char *to, const char *from_text,
			const char *to_text)
{
	char src[256], dst[160], text[4096], *at;

	scheme_path(src, sizeof(src), name);
	read_text(src, text, sizeof(text));
	at = from_text ? strstr(text, from_text) : NULL;
	if (from_text) {
		assert_non_null(at);
		assert_int_equal(strlen(from_text), strlen(to_text));
		memcpy(at, to_text, strlen(to_text));
	}
	snprintf(dst, sizeof(dst), "%s/%s", tmpdir, to);
	FILE *f = fopen(dst, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* Three ports (with the served gadget's, the most acm has) and ten
 * loopbacks: 16 IN endpoints, one more than the UDC has. */
static void write_too_many_endpoints(const char *path)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs("functions = {", f);
	for (int i = 0; i < 3; i++)
		fprintf(f, " acm_GS%d = { instance = \"GS%d\"; type = \"acm\"; };\n", i, i);
	for (int i = 0; i < 10; i++)
		fprintf(f, " lb_%d = { instance = \"%d\"; type = \"Loopback\"; };\n", i, i);
	fputs(" };\nconfigs = ( { id = 1; name = \"c\"; functions = (", f);
	for (int i = 0; i < 3; i++)
		fprintf(f, " \"acm_GS%d\",", i);
	for (int i = 0; i < 10; i++)
		fprintf(f, "%s \"lb_%d\"", i ? "," : "", i);
	fputs(" ); } );\n", f);
	fclose(f);
}

/* SIGHUP: an unchanged gadget keeps its ends (the same FIFO), a changed
 * one gets new ones at the same places, a removed given one comes back
 * with its ends; one whose change cannot bind keeps its old gadget, with
 * ends again. */
static void test_gadgetd_ends_reload(void **state)
{
	char sock[128], out[8192], errs[1024], a[160], h[160], acm[160], hid[160];
	const char *args[] = { a, h, "--port", "0", "--control", sock, NULL };
	struct stat before, after;
	struct daemon d;

	(void)state;
	snprintf(sock, sizeof(sock), "%s/control", tmpdir);
	snprintf(a, sizeof(a), "%s/a.scheme", tmpdir);
	snprintf(h, sizeof(h), "%s/h.scheme", tmpdir);
	copy_scheme("acm_mass_storage.scheme", "a.scheme", NULL, NULL);
	copy_scheme("hid.scheme", "h.scheme", NULL, NULL);
	end_path(acm, sizeof(acm), "1-1", "acm.GS0");
	end_path(hid, sizeof(hid), "1-2", "hid.usb0");
	start_args(&d, args, NULL);
	assert_int_equal(lstat(hid, &before), 0);

	assert_int_equal(CTL(sock, out, errs, "remove", "1-1"), 0);
	assert_false(exists(acm));
	copy_scheme("hid.scheme", "h.scheme", "0123456789AD", "0123456789AE");
	sighup(&d, out, sizeof(out));
	assert_non_null(strstr(out, "h.scheme changed: busid 1-2 rebound"));
	assert_non_null(strstr(out, "a.scheme is busid 1-1"));
	assert_int_equal(file_type(acm), S_IFLNK);	/* back with its gadget */
	assert_int_equal(file_type(hid), S_IFIFO);	/* made anew */
	assert_true(list_shows(sock, "a.scheme acm.GS0="));

	assert_int_equal(lstat(acm, &before), 0);
	sighup(&d, out, sizeof(out));			/* nothing changed */
	assert_null(strstr(out, "rebound"));
	assert_int_equal(lstat(acm, &after), 0);
	assert_int_equal(before.st_ino, after.st_ino);	/* the same link */

	/* A change that cannot bind (more IN endpoints than the UDC has):
	 * the old gadget is bound again with ends of its own, the new one's
	 * are gone. */
	write_too_many_endpoints(a);
	sighup(&d, out, sizeof(out));
	assert_null(strstr(out, "rebound"));
	assert_non_null(strstr(out, "1-1: acm.GS2: "));	/* the new ones were made */
	assert_int_equal(file_type(acm), S_IFLNK);
	end_path(h, sizeof(h), "1-1", "acm.GS2");
	assert_false(exists(h));
	assert_true(list_shows(sock, "a.scheme acm.GS0="));
	stop(&d);
	assert_false(exists(acm));
	assert_false(exists(hid));
}

/* Ends that cannot be made are errors naming the function; the gadget is
 * served all the same. A TAP interface is made where the rights are
 * (then gone at exit), else its error says what is missing. */
static void test_gadgetd_ends_failures(void **state)
{
	char sock[128], out[8192], errs[4096], s[160], err_file[160], run[160];
	const char *args[] = { s, "--port", "0", "--control", sock, "--run-dir", run, NULL };
	struct uc_devrec devs[2];
	struct daemon d;
	bool tap;
	FILE *f;
	int fd;

	(void)state;
	snprintf(sock, sizeof(sock), "%s/control", tmpdir);
	snprintf(s, sizeof(s), "%s/net.scheme", tmpdir);
	snprintf(run, sizeof(run), "%s/disk.img", tmpdir);	/* a file, no folder */
	snprintf(err_file, sizeof(err_file), "%s/daemon.err", tmpdir);
	f = fopen(s, "w");
	assert_non_null(f);
	fputs("functions = { ecm_usb0 = { instance = \"usb0\"; type = \"ecm\";\n"
	      "  attrs = { ifname = \"gdtest%d\"; }; };\n"
	      "  acm_GS0 = { instance = \"GS0\"; type = \"acm\"; }; };\n"
	      "configs = ( { id = 1; name = \"c\"; functions = ( \"ecm_usb0\", \"acm_GS0\" ); } );\n",
	      f);
	fclose(f);
	fd = open("/dev/net/tun", O_RDWR);
	tap = fd >= 0 && geteuid() == 0;
	if (fd >= 0)
		close(fd);
	start_args(&d, args, err_file);
	assert_int_equal(uc_devlist(d.port, devs, 2), 1);	/* served */
	assert_int_equal(devs[0].info.bNumInterfaces, 4);
	read_text(err_file, errs, sizeof(errs));
	assert_non_null(strstr(errs, "1-1: function acm_GS0 (acm.GS0): no pseudo-terminal: "));
	assert_int_equal(ctl_list(sock, false, out, sizeof(out)), 0);
	assert_non_null(strstr(out, " acm.GS0=-\n"));
	if (tap) {
		const char *name = strstr(out, "net.scheme ecm.usb0=gdtest");

		assert_non_null(name);
		name += strlen("net.scheme ecm.usb0=");
		snprintf(run, sizeof(run), "%.*s", (int)strcspn(name, " \n"), name);
		assert_true(if_nametoindex(run) > 0);	/* the kernel's gdtestN */
	} else {
		assert_non_null(strstr(out, "net.scheme ecm.usb0=- "));
		assert_non_null(strstr(errs, "function ecm_usb0 (ecm.usb0): no TAP interface: "));
		assert_non_null(strstr(errs, "CAP_NET_ADMIN"));
	}
	stop(&d);
	if (tap)
		assert_int_equal(if_nametoindex(run), 0);	/* removed at exit */
}

/* acm and hid linked into two configurations, in a different order in
 * each (so their interfaces and endpoints differ): their ends serve
 * whichever configuration the host sets, and follow it back. */
static void test_gadgetd_ends_two_configs(void **state)
{
	char sock[128], s[160], acm[160], hid[160], hid_out[160];
	const char *args[] = { s, "--port", "0", "--control", sock, NULL };
	struct usbip_device_info info;
	struct daemon d;
	struct uc c;
	FILE *f;

	(void)state;
	snprintf(sock, sizeof(sock), "%s/control", tmpdir);
	snprintf(s, sizeof(s), "%s/two.scheme", tmpdir);
	f = fopen(s, "w");
	assert_non_null(f);
	fputs("functions = { acm_GS0 = { instance = \"GS0\"; type = \"acm\"; };\n"
	      "  hid_usb0 = { instance = \"usb0\"; type = \"hid\"; attrs = { report_length = 8;\n"
	      "    report_desc = ( 0x05, 0x01, 0x09, 0x06, 0xa1, 0x01, 0xc0 ); }; }; };\n"
	      "configs = ( { id = 1; name = \"c\"; functions = ( \"acm_GS0\", \"hid_usb0\" ); },\n"
	      "  { id = 2; name = \"c\"; functions = ( \"hid_usb0\", \"acm_GS0\" ); } );\n", f);
	fclose(f);
	end_path(acm, sizeof(acm), "1-1", "acm.GS0");
	end_path(hid, sizeof(hid), "1-1", "hid.usb0");
	end_path(hid_out, sizeof(hid_out), "1-1", "hid.usb0.out");
	start_args(&d, args, NULL);
	assert_int_equal(uc_import(&c, d.port, "1-1", &info), 0);
	acm_both_ways(&c, acm, 2);
	hid_both_ways(&c, hid, hid_out, 2);
	acm_both_ways(&c, acm, 1);
	hid_both_ways(&c, hid, hid_out, 1);
	acm_both_ways(&c, acm, 2);
	uc_close(&c);
	stop(&d);
}

int gadgetd_ends_tests(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_gadgetd_ends_data, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_gadgetd_ends_reload, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_gadgetd_ends_failures, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_gadgetd_ends_two_configs, make_dir, remove_dir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
