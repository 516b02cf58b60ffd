/*
 * test_gadgetd_control.c - composite-gadgetd's run-time control (part of
 * the test_gadgetd program; helpers in test_gadgetd.c): add and remove
 * (while attached), detach, capture on and off, SIGHUP reload
 * (unchanged, changed, broken, deleted and new schemes), and garbage in
 * those requests.
 */
#define _XOPEN_SOURCE 700
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "composite/ch9.h"
#include "test_gadgetd.h"
#include "usbip_client.h"

/* add serves a scheme at the first free busid (its files opened); one
 * writing a served file, a broken one and one past --max-gadgets are
 * refused with their reason; remove unplugs an attached host, closes the
 * gadget's files and frees its busid for the next add. */
static void test_gadgetd_add_remove(void **state)
{
	char sock[128], out[4096], errs[2048], x[160], bad[160], rw[160];
	const char *args[] = { "mass_storage.scheme", "--port", "0", "--control", sock,
			       "--max-gadgets", "3", NULL };
	char ms[256];
	struct usbip_device_info info;
	struct uc_devrec devs[4];
	struct daemon d;
	struct host_view v;
	struct uc c;
	FILE *f;

	(void)state;
	scheme_path(ms, sizeof(ms), "mass_storage.scheme");
	args[0] = ms;
	snprintf(sock, sizeof(sock), "%s/control", tmpdir);
	make_image("x.img");
	write_scheme_file("x.scheme", false, "x.img");
	write_scheme_file("rw.scheme", false, "disk.img");	/* mass_storage.scheme's */
	snprintf(x, sizeof(x), "%s/x.scheme", tmpdir);
	snprintf(rw, sizeof(rw), "%s/rw.scheme", tmpdir);
	snprintf(bad, sizeof(bad), "%s/bad.scheme", tmpdir);
	f = fopen(bad, "w");
	assert_non_null(f);
	fputs("attrs = { idVendor = 0x1d6b;\n  idProduct = 0x10000; };\n", f);
	fclose(f);
	start_args(&d, args, NULL);
	assert_int_equal(uc_devlist(d.port, devs, 4), 1);

	assert_int_equal(CTL(sock, out, errs, "add", x), 0);
	assert_string_equal(out, "1-2\n");
	assert_true(has_open(d.pid, "/x.img"));
	assert_int_equal(uc_devlist(d.port, devs, 4), 2);
	assert_string_equal(devs[1].info.busid, "1-2");
	assert_true(list_shows(sock, "x.scheme"));

	assert_int_equal(CTL(sock, out, errs, "add", rw), 1);
	assert_non_null(strstr(errs, "rw.scheme:1: function ms LUN 0: "));
	assert_non_null(strstr(errs, "not both read-only"));
	assert_int_equal(CTL(sock, out, errs, "add", bad), 1);
	assert_non_null(strstr(errs, "bad.scheme:2: "));
	assert_int_equal(CTL(sock, out, errs, "--json", "add", bad), 1);
	assert_non_null(strstr(out, "{ \"ok\": false, \"error\": \""));
	assert_int_equal(uc_devlist(d.port, devs, 4), 2);

	/* Remove while attached: the host sees the end, the files close. */
	assert_int_equal(uc_import(&c, d.port, "1-2", &info), 0);
	read_host_view(&c, &v);
	assert_true(list_shows(sock, "1-2    attached"));
	assert_int_equal(CTL(sock, out, errs, "remove", "1-2"), 0);
	assert_true(uc_peer_closed(c.fd));
	uc_close(&c);
	assert_false(has_open(d.pid, "/x.img"));
	assert_int_equal(uc_devlist(d.port, devs, 4), 1);
	assert_int_equal(CTL(sock, out, errs, "remove", "1-2"), 1);
	assert_non_null(strstr(errs, "no gadget 1-2"));

	/* The busid is free again; --max-gadgets 3 holds three. */
	assert_int_equal(CTL(sock, out, errs, "--json", "add", x), 0);
	assert_string_equal(out, "{ \"ok\": true, \"busid\": \"1-2\" }\n");
	assert_int_equal(CTL(sock, out, errs, "add", "hid.scheme"), 1);	/* relative: not here */
	scheme_path(ms, sizeof(ms), "hid.scheme");
	assert_int_equal(CTL(sock, out, errs, "add", ms), 0);
	assert_string_equal(out, "1-3\n");
	assert_int_equal(CTL(sock, out, errs, "add", ms), 1);
	assert_non_null(strstr(errs, "no free busid"));
	assert_int_equal(uc_devlist(d.port, devs, 4), 3);
	stop(&d);
}

/* detach unplugs the host (as usbip detach), the gadget stays served and
 * importable; a gadget without a host gets an error. */
static void test_gadgetd_detach(void **state)
{
	char sock[128], out[4096], errs[1024];
	struct usbip_device_info info;
	struct host_view v;
	struct daemon d;
	struct uc c;

	(void)state;
	snprintf(sock, sizeof(sock), "%s/control", tmpdir);
	start_with(&d, "hid.scheme", "mass_storage.scheme", sock);
	assert_int_equal(CTL(sock, out, errs, "detach", "1-2"), 1);
	assert_non_null(strstr(errs, "1-2 has no host attached"));
	assert_int_equal(uc_import(&c, d.port, "1-2", &info), 0);
	read_host_view(&c, &v);
	assert_true(list_shows(sock, "1-2    attached"));
	assert_int_equal(CTL(sock, out, errs, "--json", "detach", "1-2"), 0);
	assert_string_equal(out, "{ \"ok\": true }\n");
	assert_true(uc_peer_closed(c.fd));
	uc_close(&c);
	assert_true(list_shows(sock, "1-2    detached"));
	assert_int_equal(uc_import(&c, d.port, "1-2", &info), 0);
	read_host_view(&c, &v);
	assert_string_equal(v.product, "Mass storage scheme");
	uc_close(&c);
	assert_int_equal(CTL(sock, out, errs, "detach", "9-9"), 1);
	assert_non_null(strstr(errs, "no gadget 9-9"));
	stop(&d);
}

static long file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

/* capture BUSID FILE starts a usbmon pcap of that gadget's URBs, off
 * stops it (the file complete, no more records); a folder that cannot
 * be written is an error and changes nothing. */
static void test_gadgetd_capture_on_off(void **state)
{
	char sock[128], out[4096], errs[1024], pcap[160], bad[160];
	struct usbip_device_info info;
	struct host_view v;
	struct daemon d;
	struct uc c;
	long size;

	(void)state;
	snprintf(sock, sizeof(sock), "%s/control", tmpdir);
	snprintf(pcap, sizeof(pcap), "%s/one.pcap", tmpdir);
	snprintf(bad, sizeof(bad), "%s/no/such/dir/x.pcap", tmpdir);
	start_with(&d, "hid.scheme", "mass_storage.scheme", sock);
	assert_int_equal(CTL(sock, out, errs, "capture", "1-2", pcap), 0);
	assert_int_equal(uc_import(&c, d.port, "1-2", &info), 0);
	read_host_view(&c, &v);
	assert_int_equal(CTL(sock, out, errs, "capture", "1-2", "off"), 0);
	size = file_size(pcap);
	assert_true(size > 24 + 16 + 64);	/* header and records */
	read_host_view(&c, &v);		/* not captured */
	assert_int_equal(file_size(pcap), size);
	uc_close(&c);

	assert_int_equal(CTL(sock, out, errs, "capture", "1-1", bad), 1);
	assert_non_null(strstr(errs, "capture to "));
	assert_int_equal(CTL(sock, out, errs, "--json", "capture", "9-9", "off"), 1);
	assert_non_null(strstr(out, "\"error\": \"no gadget 9-9\""));
	stop(&d);
}

/* SIGHUP, and the daemon's lines until it says "reloaded" into @log. */
void sighup(struct daemon *d, char *log, size_t size)
{
	size_t n = 0;
	bool done = false;

	assert_int_equal(kill(d->pid, SIGHUP), 0);
	log[0] = '\0';
	while (!done && n + 1 < size && fgets(log + n, (int)(size - n), d->out)) {
		done = strstr(log + n, ": reloaded") != NULL;
		n += strlen(log + n);
	}
	assert_true(done);
}

/* SIGHUP with a directory: an unchanged scheme (its file touched, the
 * same export) keeps its gadget and its attached host; a changed one is
 * rebound (its host unplugged, then it attaches again); one that no
 * longer loads keeps its old gadget and the FILE:LINE error is logged; a
 * deleted file's gadget goes, a new file's comes. A file changed without
 * a SIGHUP changes nothing. */
static void test_gadgetd_reload(void **state)
{
	char dir[96], sock[128], out[4096], errs[4096], err_file[160], path[160];
	const char *args[] = { dir, "--port", "0", "--control", sock, NULL };
	struct usbip_device_info info;
	struct host_view va, vb;
	struct uc ca, cb;
	struct daemon d;
	FILE *f;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/schemes", tmpdir);
	snprintf(sock, sizeof(sock), "%s/control", tmpdir);
	snprintf(err_file, sizeof(err_file), "%s/daemon.err", tmpdir);
	assert_int_equal(mkdir(dir, 0700), 0);
	make_image("a.img");
	make_image("b.img");
	make_image("c.img");
	make_image("d.img");
	make_image("e.img");
	write_scheme_file("schemes/a.scheme", false, "a.img");
	write_scheme_file("schemes/b.scheme", false, "b.img");
	write_scheme_file("schemes/c.scheme", false, "c.img");
	write_scheme_file("schemes/d.scheme", false, "d.img");
	start_args(&d, args, err_file);
	assert_int_equal(uc_import(&ca, d.port, "1-1", &info), 0);
	assert_int_equal(uc_import(&cb, d.port, "1-2", &info), 0);
	read_host_view(&ca, &va);
	read_host_view(&cb, &vb);

	/* a: the same scheme again; b: read-only now; c: broken; d: gone;
	 * e: new. No SIGHUP yet: nothing changes. */
	snprintf(path, sizeof(path), "%s/a.scheme", dir);
	f = fopen(path, "a");
	assert_non_null(f);
	fputs("# touched, the same gadget\n", f);
	fclose(f);
	write_scheme_file("schemes/b.scheme", true, "b.img");
	snprintf(path, sizeof(path), "%s/c.scheme", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("attrs = {\n  idVendor = \"x\"; };\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/d.scheme", dir);
	assert_int_equal(unlink(path), 0);
	write_scheme_file("schemes/e.scheme", false, "e.img");
	read_host_view(&cb, &vb);
	assert_true(has_open(d.pid, "/d.img"));
	assert_false(has_open(d.pid, "/e.img"));

	sighup(&d, out, sizeof(out));
	assert_non_null(strstr(out, "/b.scheme changed: busid 1-2 rebound"));
	assert_null(strstr(out, "/a.scheme changed"));
	assert_non_null(strstr(out, "/d.scheme is gone: busid 1-4 removed"));
	assert_non_null(strstr(out, "/e.scheme is busid 1-4"));
	assert_true(uc_peer_closed(cb.fd));	/* b rebound */
	uc_close(&cb);
	read_host_view(&ca, &va);		/* a untouched, still attached */
	assert_int_equal(ctl_list(sock, false, out, sizeof(out)), 0);
	assert_non_null(strstr(out, "1-1    attached  127.0.0.1:"));
	assert_non_null(strstr(out, "a.scheme"));
	assert_non_null(strstr(out, "1-3    detached  -"));	/* c: the old gadget */
	assert_non_null(strstr(out, "c.scheme"));
	assert_null(strstr(out, "d.scheme"));
	assert_non_null(strstr(out, "1-4    detached  -"));	/* e in d's busid */
	assert_non_null(strstr(out, "e.scheme"));
	assert_false(has_open(d.pid, "/d.img"));
	assert_true(has_open(d.pid, "/e.img"));
	read_text(err_file, errs, sizeof(errs));
	assert_non_null(strstr(errs, "c.scheme:2: "));
	assert_non_null(strstr(errs, "busid 1-3 keeps the gadget loaded before"));

	/* b attaches again, and is what its file says now. */
	assert_int_equal(uc_import(&cb, d.port, "1-2", &info), 0);
	read_host_view(&cb, &vb);
	uc_close(&ca);
	uc_close(&cb);
	stop(&d);
}

/* The new requests' bad forms: error replies, the daemon serving on. */
static void test_gadgetd_control_garbage(void **state)
{
	static const char *const bad[] = {
		"add\n", "add \n", "remove\n", "remove 1-1 x\n", "detach\n", "detach 1-1 2\n",
		"capture 1-1\n", "capture\n", "set 1-1\n", "remove 9-9\n", "capture 9-9 off\n",
		"add /nonexistent.scheme\n", "ADD x\n", " list\n",
	};
	char sock[128], out[4096];
	struct uc_devrec devs[4];
	struct daemon d;

	(void)state;
	snprintf(sock, sizeof(sock), "%s/control", tmpdir);
	start_with(&d, "hid.scheme", "mass_storage.scheme", sock);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		raw_request(sock, bad[i], strlen(bad[i]), out, sizeof(out));
		if (strncmp(out, "error ", 6))
			fprintf(stderr, "request '%s' answered '%s'\n", bad[i], out);
		assert_int_equal(strncmp(out, "error ", 6), 0);
		assert_non_null(strchr(out, '\n'));
	}
	raw_request(sock, "add\n", 4, out, sizeof(out));
	assert_string_equal(out, "error usage: add PATH\n");
	raw_request(sock, "add /nonexistent.scheme\n", 24, out, sizeof(out));
	assert_non_null(strstr(out, "/nonexistent.scheme"));
	assert_int_equal(uc_devlist(d.port, devs, 4), 2);
	assert_int_equal(ctl_list(sock, false, out, sizeof(out)), 0);
	stop(&d);
}

int gadgetd_control_tests(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_gadgetd_add_remove, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_gadgetd_detach, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_gadgetd_capture_on_off, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_gadgetd_reload, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_gadgetd_control_garbage, make_dir, remove_dir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
