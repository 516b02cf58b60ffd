/*
 * test_gadgetd.c - composite-gadgetd against the project's own USB/IP
 * client on 127.0.0.1: two shipped schemes served at once (busids 1-1 and
 * 1-2 in order, both imported together, each read as a host reads it),
 * a mass storage INQUIRY through the served scheme, SIGTERM ending with
 * exit 0, --check's exit codes and FILE:LINE errors, and --export's
 * scheme served beside the original giving the same descriptors and
 * strings; the control socket (mode 0600) through composite-gadgetctl:
 * list as text and JSON, the attach state following an import and its
 * end, garbage requests answered with errors while the daemon goes on;
 * run-time control in test_gadgetd_control.c, the gadget-side ends in
 * test_gadgetd_ends.c. Every daemon runs with --run-dir run (in the
 * test's folder). Arguments: the daemon, the shipped schemes' folder, the CLI.
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
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "composite/ch9.h"
#include "test_gadgetd.h"
#include "usbip_client.h"

static const char *daemon_path, *ctl_path;
const char *schemes_dir;
char tmpdir[64];

int make_dir(void **state)
{
	char path[128];
	FILE *f;

	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_gadgetd.XXXXXX");
	assert_non_null(mkdtemp(tmpdir));
	snprintf(path, sizeof(path), "%s/disk.img", tmpdir);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(ftruncate(fileno(f), 1 << 20), 0);
	fclose(f);
	return 0;
}

/* The daemon a failed test left running (stop() clears it). */
static pid_t live_daemon;

int remove_dir(void **state)
{
	char cmd[128];

	(void)state;
	if (live_daemon > 0) {
		kill(live_daemon, SIGKILL);
		waitpid(live_daemon, NULL, 0);
		live_daemon = 0;
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

void scheme_path(char *buf, size_t size, const char *name)
{
	if (name[0] == '/')
		snprintf(buf, size, "%s", name);
	else
		snprintf(buf, size, "%s/%s", schemes_dir, name);
}

static const char *spawn_path;	/* NULL: the daemon */

/* Run the daemon (or @spawn_path) in @tmpdir with @args (NULL-ended);
 * stdout to a pipe, stderr to @err_file (or inherited). */
static pid_t spawn(const char *const *args, int *out_fd, const char *err_file)
{
	const char *argv[16];
	const char *path = spawn_path ? spawn_path : daemon_path;
	int p[2];
	pid_t pid;
	unsigned n = 0;

	argv[n++] = path;
	if (!spawn_path) {	/* the ends in the test's folder; a later --run-dir wins */
		argv[n++] = "--run-dir";
		argv[n++] = "run";
	}
	while (*args && n + 1 < 16)
		argv[n++] = *args++;
	argv[n] = NULL;
	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		if (err_file && !freopen(err_file, "w", stderr))
			_exit(126);
		if (chdir(tmpdir))
			_exit(126);
		execv(path, (char *const *)argv);
		_exit(127);
	}
	close(p[1]);
	*out_fd = p[0];
	return pid;
}

/* Start the daemon with @args (NULL-ended, "--port 0" among them), its
 * stderr to @err_file (or inherited); wait for the port. */
void start_args(struct daemon *d, const char *const *args, const char *err_file)
{
	char line[512];
	int fd;

	d->pid = spawn(args, &fd, err_file);
	live_daemon = d->pid;
	d->out = fdopen(fd, "r");
	assert_non_null(d->out);
	d->port = 0;
	while (!d->port && fgets(line, sizeof(line), d->out)) {
		const char *p = strstr(line, "listening on 127.0.0.1:");

		if (p)
			d->port = (unsigned)atoi(p + strlen("listening on 127.0.0.1:"));
	}
	assert_true(d->port > 0);
}

/* Start serving @a and @b (with a control socket at @control, or none);
 * wait for the port. */
void start_with(struct daemon *d, const char *a, const char *b, const char *control)
{
	char pa[256], pb[256];
	const char *args[] = { pa, pb, "--port", "0", control ? "--control" : NULL, control, NULL };

	scheme_path(pa, sizeof(pa), a);
	scheme_path(pb, sizeof(pb), b);
	start_args(d, args, NULL);
}

static void start(struct daemon *d, const char *a, const char *b)
{
	start_with(d, a, b, NULL);
}

/* SIGTERM: every gadget stops, exit 0, "stopped" said. */
void stop(struct daemon *d)
{
	char line[512];
	bool stopped = false;
	int status;

	assert_int_equal(kill(d->pid, SIGTERM), 0);
	live_daemon = 0;
	while (fgets(line, sizeof(line), d->out))
		if (strstr(line, "stopped"))
			stopped = true;
	assert_int_equal(waitpid(d->pid, &status, 0), d->pid);
	fclose(d->out);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_true(stopped);
}

/* The run's exit status, its stdout into @out (may be NULL). */
int run_to_end(const char *const *args, const char *err_file, char *out, size_t size)
{
	int fd, status;
	size_t n = 0;
	ssize_t r;
	char sink[512];
	pid_t pid = spawn(args, &fd, err_file);

	while ((r = read(fd, out ? out + n : sink, out ? size - 1 - n : sizeof(sink))) > 0)
		if (out)
			n += (size_t)r;
	if (out)
		out[n] = '\0';
	close(fd);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

/* The whole of file @path (a few KiB at most) into @buf, terminated. */
void read_text(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, size - 1, f);
	buf[n] = '\0';
	fclose(f);
}

static void get_descriptor(struct uc *c, uint8_t type, uint8_t index, uint16_t lang,
			   void *buf, uint16_t len, uint32_t *actual)
{
	assert_int_equal(uc_control(c, USB_DIR_IN, USB_REQ_GET_DESCRIPTOR,
				    (uint16_t)(type << 8 | index), lang, len, buf, actual), 0);
}

void read_host_view(struct uc *c, struct host_view *v)
{
	uint8_t s[255];
	uint32_t n;

	memset(v, 0, sizeof(*v));
	get_descriptor(c, USB_DT_DEVICE, 0, 0, v->dev, 18, &n);
	assert_int_equal(n, 18);
	get_descriptor(c, USB_DT_CONFIG, 0, 0, v->cfg, sizeof(v->cfg), &v->cfg_len);
	assert_true(v->cfg_len > 9);
	get_descriptor(c, USB_DT_STRING, v->dev[15], 0x409, s, sizeof(s), &n);
	for (uint32_t i = 2, k = 0; i + 1 < n && k + 1 < sizeof(v->product); i += 2)
		v->product[k++] = (char)s[i];
}

static int interface_classes(const struct host_view *v, uint8_t *out)
{
	int n = 0;

	for (uint32_t off = 0; off + 1 < v->cfg_len && v->cfg[off]; off += v->cfg[off])
		if (v->cfg[off + 1] == USB_DT_INTERFACE && v->cfg[off + 3] == 0)
			out[n++] = v->cfg[off + 5];
	return n;
}

/* A Bulk-Only INQUIRY on the mass storage interface of @c (configured). */
static void inquiry(struct uc *c, const struct host_view *v)
{
	uint8_t cbw[31] = { 'U', 'S', 'B', 'C', 1, 0, 0, 0, 36, 0, 0, 0, 0x80, 0, 6, 0x12,
			    0, 0, 0, 36, 0 };
	uint8_t ep_in = 0, ep_out = 0, data[64], csw[13];
	bool in_ms = false;
	uint32_t n;

	for (uint32_t off = 0; off + 1 < v->cfg_len && v->cfg[off]; off += v->cfg[off]) {
		if (v->cfg[off + 1] == USB_DT_INTERFACE)
			in_ms = v->cfg[off + 5] == USB_CLASS_MASS_STORAGE;
		if (in_ms && v->cfg[off + 1] == USB_DT_ENDPOINT)
			*(v->cfg[off + 2] & USB_DIR_IN ? &ep_in : &ep_out) = v->cfg[off + 2];
	}
	assert_true(ep_in && ep_out);
	assert_int_equal(uc_transfer(c, ep_out & 0x0f, false, cbw, sizeof(cbw), 0, &n), 0);
	assert_int_equal(uc_transfer(c, ep_in & 0x0f, true, data, 36, 0, &n), 0);
	assert_int_equal(n, 36);
	assert_int_equal(data[0], 0);	/* a direct-access block device */
	assert_int_equal(uc_transfer(c, ep_in & 0x0f, true, csw, 13, 0, &n), 0);
	assert_int_equal(n, 13);
	assert_memory_equal(csw, "USBS", 4);
	assert_int_equal(csw[12], 0);
}

static void test_gadgetd_two_schemes(void **state)
{
	struct uc_devrec devs[4];
	struct usbip_device_info info;
	struct uc kbd, multi;
	struct host_view vk, vm;
	struct daemon d;
	uint8_t cls[8];
	uint32_t n;

	(void)state;
	start(&d, "hid.scheme", "ecm_acm_mass_storage.scheme");
	assert_int_equal(uc_devlist(d.port, devs, 4), 2);
	assert_string_equal(devs[0].info.busid, "1-1");
	assert_string_equal(devs[1].info.busid, "1-2");
	assert_int_equal(devs[0].info.bNumInterfaces, 1);
	assert_int_equal(devs[0].intf[0].bInterfaceClass, USB_CLASS_HID);
	assert_int_equal(devs[1].info.bNumInterfaces, 5);
	assert_int_equal(devs[1].info.bDeviceClass, 0xEF);

	/* Both attached at once. */
	assert_int_equal(uc_import(&kbd, d.port, "1-1", &info), 0);
	assert_int_equal(uc_import(&multi, d.port, "1-2", &info), 0);
	read_host_view(&kbd, &vk);
	read_host_view(&multi, &vm);
	assert_string_equal(vk.product, "Keyboard scheme");
	assert_string_equal(vm.product, "Network, serial and storage");
	assert_int_equal(interface_classes(&vk, cls), 1);
	assert_int_equal(cls[0], USB_CLASS_HID);
	assert_int_equal(vk.cfg[7], 0xa0);	/* bmAttributes: remote wakeup */
	assert_int_equal(interface_classes(&vm, cls), 5);
	assert_int_equal(cls[0], USB_CLASS_COMM);
	assert_int_equal(cls[1], USB_CLASS_CDC_DATA);
	assert_int_equal(cls[2], USB_CLASS_COMM);
	assert_int_equal(cls[3], USB_CLASS_CDC_DATA);
	assert_int_equal(cls[4], USB_CLASS_MASS_STORAGE);
	assert_int_equal(uc_control(&multi, 0, USB_REQ_SET_CONFIGURATION, 1, 0, 0, NULL, &n), 0);
	inquiry(&multi, &vm);
	uc_close(&kbd);
	uc_close(&multi);
	stop(&d);
}

static void test_gadgetd_check(void **state)
{
	char good[256], bad[256], err_file[128], errs[1024] = "";
	const char *good_args[] = { good, "--check", NULL };
	const char *bad_args[] = { good, bad, "--check", NULL };
	FILE *f;

	(void)state;
	scheme_path(good, sizeof(good), "mass_storage.scheme");
	assert_int_equal(run_to_end(good_args, NULL, NULL, 0), 0);

	snprintf(bad, sizeof(bad), "%s/bad.scheme", tmpdir);
	f = fopen(bad, "w");
	assert_non_null(f);
	fputs("attrs = { idVendor = 0x1d6b; };\nfunctions = { x = { instance = \"0\";\n"
	      "  type = \"printer\"; }; };\n", f);
	fclose(f);
	snprintf(err_file, sizeof(err_file), "%s/stderr", tmpdir);
	assert_int_equal(run_to_end(bad_args, err_file, NULL, 0), 2);
	read_text(err_file, errs, sizeof(errs));
	assert_non_null(strstr(errs, "bad.scheme:3: function x: unknown type 'printer'"));
}

void write_scheme_file(const char *name, bool ro, const char *file)
{
	char path[160];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "functions = { ms = { instance = \"0\"; type = \"mass_storage\";\n"
		"  attrs = { luns = ( { ro = %s; filename = \"%s\"; } ); }; }; };\n"
		"configs = ( { id = 1; name = \"c\"; functions = ( \"ms\" ); } );\n",
		ro ? "true" : "false", file);
	fclose(f);
}

static void write_scheme(const char *name, bool ro)
{
	write_scheme_file(name, ro, "disk.img");
}

void make_image(const char *name)
{
	char path[160];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(ftruncate(fileno(f), 1 << 20), 0);
	fclose(f);
}

/* Whether process @pid has a file called @name open. */
bool has_open(pid_t pid, const char *name)
{
	char dir[64], link[96], target[512];
	bool found = false;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
	for (int fd = 0; fd < 256 && !found; fd++) {
		ssize_t n;

		snprintf(link, sizeof(link), "%s/%d", dir, fd);
		n = readlink(link, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		found = strstr(target, name) != NULL;
	}
	return found;
}

/* composite-gadgetctl set ...: its status, its stderr into @errs. */
static int ctl_set(const char *sock, const char *busid, const char *fn, const char *attr,
		   const char *value, char *errs, size_t size)
{
	char err_file[160];
	const char *args[] = { "--control", sock, "set", busid, fn, attr, value, NULL };
	int rc;

	snprintf(err_file, sizeof(err_file), "%s/ctl.err", tmpdir);
	spawn_path = ctl_path;
	rc = run_to_end(args, err_file, NULL, 0);
	spawn_path = NULL;
	read_text(err_file, errs, size);
	return rc;
}

/* Medium changes through the control socket, while served: a file
 * another LUN writes is refused, a fresh one goes in (the daemon holds it
 * open, the old one closed), an empty value ejects, forced_eject ejects;
 * unknown gadgets and functions get errors. */
static void test_gadgetd_medium(void **state)
{
	char sock[128], m[160], errs[1024], path[160];
	struct daemon d;

	(void)state;
	make_image("m.img");
	make_image("new.img");
	write_scheme_file("m.scheme", false, "m.img");
	snprintf(m, sizeof(m), "%s/m.scheme", tmpdir);
	snprintf(sock, sizeof(sock), "%s/control", tmpdir);
	start_with(&d, "mass_storage.scheme", m, sock);
	assert_true(has_open(d.pid, "/disk.img"));
	assert_true(has_open(d.pid, "/m.img"));

	snprintf(path, sizeof(path), "%s/m.img", tmpdir);
	assert_int_equal(ctl_set(sock, "1-1", "mass_storage_0", "lun.0/file", path, errs,
				 sizeof(errs)), 1);
	assert_non_null(strstr(errs, "is served by function ms LUN 0"));
	assert_true(has_open(d.pid, "/disk.img"));

	snprintf(path, sizeof(path), "%s/new.img", tmpdir);
	assert_int_equal(ctl_set(sock, "1-1", "mass_storage_0", "lun.0/file", path, errs,
				 sizeof(errs)), 0);
	assert_true(has_open(d.pid, "/new.img"));
	assert_false(has_open(d.pid, "/disk.img"));
	assert_int_equal(ctl_set(sock, "1-1", "mass_storage_0", "lun.0/file", NULL, errs,
				 sizeof(errs)), 0);
	assert_false(has_open(d.pid, "/new.img"));
	assert_int_equal(ctl_set(sock, "1-2", "ms", "lun.0/forced_eject", "1", errs,
				 sizeof(errs)), 0);
	assert_false(has_open(d.pid, "/m.img"));

	assert_int_equal(ctl_set(sock, "1-2", "nosuch", "lun.0/file", "x", errs, sizeof(errs)), 1);
	assert_non_null(strstr(errs, "no function nosuch"));
	assert_int_equal(ctl_set(sock, "9-9", "ms", "lun.0/file", "x", errs, sizeof(errs)), 1);
	assert_non_null(strstr(errs, "no gadget 9-9"));
	stop(&d);
}

/* Two gadgets on one file: refused (--check and serving) unless both
 * are read-only. */
static void test_gadgetd_shared_file(void **state)
{
	char a[160], b[160], c[160], err_file[160], errs[2048];
	const char *both_ro[] = { a, b, "--check", NULL };
	const char *one_rw[] = { a, c, "--check", NULL };
	const char *serve_rw[] = { a, c, "--port", "0", NULL };

	(void)state;
	write_scheme("a.scheme", true);
	write_scheme("b.scheme", true);
	write_scheme("c.scheme", false);
	snprintf(a, sizeof(a), "%s/a.scheme", tmpdir);
	snprintf(b, sizeof(b), "%s/b.scheme", tmpdir);
	snprintf(c, sizeof(c), "%s/c.scheme", tmpdir);
	snprintf(err_file, sizeof(err_file), "%s/stderr", tmpdir);
	assert_int_equal(run_to_end(both_ro, NULL, NULL, 0), 0);
	assert_int_equal(run_to_end(one_rw, err_file, NULL, 0), 2);
	assert_int_equal(run_to_end(serve_rw, err_file, NULL, 0), 2);
	read_text(err_file, errs, sizeof(errs));
	assert_non_null(strstr(errs, "c.scheme:1: function ms LUN 0: "));
	assert_non_null(strstr(errs, "disk.img is also served by function ms LUN 0"));
	assert_non_null(strstr(errs, "not both read-only"));
}

/* --export's output, served beside the original: the same device. */
static void test_gadgetd_export_served(void **state)
{
	char orig[256], exported[128], copy[128], *text = malloc(65536);
	const char *args[] = { orig, "--export", NULL };
	struct usbip_device_info info;
	struct host_view a, b;
	struct uc ca, cb;
	struct daemon d;
	FILE *f;

	(void)state;
	assert_non_null(text);
	scheme_path(orig, sizeof(orig), "ecm_acm_mass_storage.scheme");
	assert_int_equal(run_to_end(args, NULL, text, 65536), 0);
	assert_non_null(strstr(text, "# busid 1-1: "));
	snprintf(exported, sizeof(exported), "%s/exported.scheme", tmpdir);
	f = fopen(exported, "w");
	assert_non_null(f);
	/* Its own image: two gadgets may not write one file. */
	for (char *p = text, *hit; *p; p = hit + strlen("disk.img")) {
		hit = strstr(p, "disk.img");
		if (!hit) {
			fputs(p, f);
			break;
		}
		fwrite(p, 1, (size_t)(hit - p), f);
		fputs("copy.img", f);
	}
	fclose(f);
	free(text);
	snprintf(copy, sizeof(copy), "%s/copy.img", tmpdir);
	f = fopen(copy, "w");
	assert_non_null(f);
	assert_int_equal(ftruncate(fileno(f), 1 << 20), 0);
	fclose(f);

	start(&d, orig, exported);
	assert_int_equal(uc_import(&ca, d.port, "1-1", &info), 0);
	assert_int_equal(uc_import(&cb, d.port, "1-2", &info), 0);
	read_host_view(&ca, &a);
	read_host_view(&cb, &b);
	assert_memory_equal(a.dev, b.dev, sizeof(a.dev));
	assert_int_equal(a.cfg_len, b.cfg_len);
	assert_memory_equal(a.cfg, b.cfg, a.cfg_len);
	assert_string_equal(a.product, b.product);
	uc_close(&ca);
	uc_close(&cb);
	stop(&d);
}

/* composite-gadgetctl --control @sock [--json] list into @out; its status. */
int ctl_list(const char *sock, bool json, char *out, size_t size)
{
	const char *args[] = { "--control", sock, json ? "--json" : "list", json ? "list" : NULL,
			       NULL };
	int rc;

	spawn_path = ctl_path;
	rc = run_to_end(args, NULL, out, size);
	spawn_path = NULL;
	return rc;
}

/* One raw request on the control socket; the reply into @out. */
void raw_request(const char *sock, const char *req, size_t len, char *out, size_t size)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	size_t n = 0;
	ssize_t r;

	assert_true(fd >= 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(send(fd, req, len, MSG_NOSIGNAL), (ssize_t)len);
	shutdown(fd, SHUT_WR);
	while (n + 1 < size && (r = read(fd, out + n, size - 1 - n)) > 0)
		n += (size_t)r;
	out[n] = '\0';
	close(fd);
}

static void test_gadgetd_control(void **state)
{
	char sock[128], out[4096], garbage[600];
	struct usbip_device_info info;
	struct daemon d;
	struct stat st;
	struct uc c;
	int tries;

	(void)state;
	snprintf(sock, sizeof(sock), "%s/control", tmpdir);
	start_with(&d, "hid.scheme", "mass_storage.scheme", sock);
	assert_int_equal(stat(sock, &st), 0);
	assert_true(S_ISSOCK(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0600);

	assert_int_equal(ctl_list(sock, false, out, sizeof(out)), 0);
	assert_non_null(strstr(out, "1-1    detached  -"));
	assert_non_null(strstr(out, "1-2    detached  -"));
	assert_non_null(strstr(out, "mass_storage.scheme"));

	assert_int_equal(uc_import(&c, d.port, "1-2", &info), 0);
	assert_int_equal(ctl_list(sock, false, out, sizeof(out)), 0);
	assert_non_null(strstr(out, "1-1    detached  -"));
	assert_non_null(strstr(out, "1-2    attached  127.0.0.1:"));
	assert_int_equal(ctl_list(sock, true, out, sizeof(out)), 0);
	assert_non_null(strstr(out, "{ \"busid\": \"1-2\", \"attached\": true, \"peer\": \"127.0.0.1:"));
	assert_non_null(strstr(out, "{ \"busid\": \"1-1\", \"attached\": false, \"peer\": null"));

	/* Garbage: error replies, and the daemon goes on answering. */
	raw_request(sock, "bogus\n", 6, out, sizeof(out));
	assert_non_null(strstr(out, "error unknown request 'bogus'"));
	memset(garbage, 'x', sizeof(garbage));
	raw_request(sock, garbage, sizeof(garbage), out, sizeof(out));
	assert_int_equal(strncmp(out, "error ", 6), 0);
	raw_request(sock, "\x01\xff\n", 3, out, sizeof(out));
	assert_int_equal(strncmp(out, "error ", 6), 0);
	raw_request(sock, "", 0, out, sizeof(out));
	assert_int_equal(strncmp(out, "error ", 6), 0);

	uc_close(&c);
	for (tries = 0; tries < 50; tries++) {
		assert_int_equal(ctl_list(sock, false, out, sizeof(out)), 0);
		if (strstr(out, "1-2    detached  -"))
			break;
		nanosleep(&(struct timespec){ 0, 100 * 1000 * 1000 }, NULL);
	}
	assert_true(tries < 50);
	stop(&d);
	assert_int_not_equal(stat(sock, &st), 0);	/* removed at exit */
	assert_int_equal(ctl_list(sock, false, out, sizeof(out)), 1);
}

/* A directory stands for its *.scheme files in name order (others and
 * hidden ones skipped); --capture DIR gets every gadget's URBs in a pcap
 * file of usbmon records. */
static void test_gadgetd_dir_and_capture(void **state)
{
	char dir[96], cap[96], pcap[160], line[512];
	const char *args[] = { dir, "--port", "0", "--capture", cap, NULL };
	bool first_a = false, second_b = false;
	struct usbip_device_info info;
	struct uc_devrec devs[4];
	struct host_view v;
	struct daemon d = { 0 };
	uint8_t hdr[24];
	struct uc c;
	FILE *f;
	int fd;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/schemes", tmpdir);
	snprintf(cap, sizeof(cap), "%s/cap", tmpdir);
	assert_int_equal(mkdir(dir, 0700), 0);
	assert_int_equal(mkdir(cap, 0700), 0);
	make_image("a.img");
	make_image("b.img");
	write_scheme_file("schemes/b.scheme", false, "b.img");
	write_scheme_file("schemes/a.scheme", false, "a.img");
	write_scheme_file("schemes/.hidden.scheme", false, "disk.img");
	write_scheme_file("schemes/notes.txt", false, "disk.img");
	d.pid = spawn(args, &fd, NULL);
	d.out = fdopen(fd, "r");
	assert_non_null(d.out);
	while (!d.port && fgets(line, sizeof(line), d.out)) {
		const char *p = strstr(line, "listening on 127.0.0.1:");

		first_a = first_a || strstr(line, "/a.scheme is busid 1-1");
		second_b = second_b || strstr(line, "/b.scheme is busid 1-2");
		if (p)
			d.port = (unsigned)atoi(p + strlen("listening on 127.0.0.1:"));
	}
	assert_true(d.port > 0);
	assert_true(first_a && second_b);
	assert_int_equal(uc_devlist(d.port, devs, 4), 2);
	assert_int_equal(uc_import(&c, d.port, "1-2", &info), 0);
	read_host_view(&c, &v);
	uc_close(&c);
	stop(&d);

	/* Each gadget's file: a pcap header of usbmon (mmapped) records; the
	 * attached one holds its enumeration. */
	for (int i = 1; i <= 2; i++) {
		snprintf(pcap, sizeof(pcap), "%s/usbip-1-%d.pcap", cap, i);
		f = fopen(pcap, "rb");
		assert_non_null(f);
		assert_int_equal(fread(hdr, 1, sizeof(hdr), f), sizeof(hdr));
		assert_int_equal(hdr[0] | hdr[1] << 8 | hdr[2] << 16 | (uint32_t)hdr[3] << 24,
				 0xa1b2c3d4);
		assert_int_equal(hdr[20] | hdr[21] << 8, 220);	/* LINKTYPE_USB_LINUX_MMAPPED */
		assert_int_equal(fseek(f, 0, SEEK_END), 0);
		if (i == 2)
			assert_true(ftell(f) > 24 + 16 + 64);	/* records after the header */
		fclose(f);
	}
}

/* ---- run-time control: add, remove, detach, capture, reload ------------- */

/* composite-gadgetctl --control @sock WORDS... (up to 4, NULL-ended):
 * its status, stdout into @out and stderr into @errs (both may be NULL). */
int ctl(const char *sock, const char *const *words, char *out, size_t size, char *errs,
	       size_t esize)
{
	char err_file[160], sink[1024];
	const char *args[8] = { "--control", sock };
	unsigned n = 2;
	int rc;

	while (*words && n < 7)
		args[n++] = *words++;
	args[n] = NULL;
	snprintf(err_file, sizeof(err_file), "%s/ctl.err", tmpdir);
	spawn_path = ctl_path;
	rc = run_to_end(args, err_file, out, size);
	spawn_path = NULL;
	read_text(err_file, errs ? errs : sink, errs ? esize : sizeof(sink));
	return rc;
}

/* Wait (bounded) until list shows @text. */
bool list_shows(const char *sock, const char *text)
{
	char out[4096];

	for (int tries = 0; tries < 50; tries++) {
		assert_int_equal(ctl_list(sock, false, out, sizeof(out)), 0);
		if (strstr(out, text))
			return true;
		nanosleep(&(struct timespec){ 0, 100 * 1000 * 1000 }, NULL);
	}
	fprintf(stderr, "list never showed '%s':\n%s", text, out);
	return false;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_gadgetd_two_schemes, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_gadgetd_check, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_gadgetd_export_served, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_gadgetd_control, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_gadgetd_shared_file, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_gadgetd_medium, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_gadgetd_dir_and_capture, make_dir, remove_dir),
	};
	int rc;

	if (argc != 4) {
		fprintf(stderr, "usage: %s COMPOSITE-GADGETD SCHEMES-DIR COMPOSITE-GADGETCTL\n",
			argv[0]);
		return 2;
	}
	/* Absolute: the daemon runs in a folder of its own. */
	daemon_path = realpath(argv[1], NULL);
	schemes_dir = realpath(argv[2], NULL);
	ctl_path = realpath(argv[3], NULL);
	if (!daemon_path || !schemes_dir || !ctl_path) {
		fprintf(stderr, "%s: %s, %s or %s not found\n", argv[0], argv[1], argv[2], argv[3]);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	rc |= gadgetd_control_tests();
	rc |= gadgetd_ends_tests();
	rc |= gadgetd_gadgetfs_tests();
	free((void *)daemon_path);
	free((void *)schemes_dir);
	free((void *)ctl_path);
	return rc;
}
