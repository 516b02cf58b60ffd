/*
 * scale_bench.c - bench_scale: many mass-storage gadgets in one
 * composite-gadgetd, each imported by the project's USB/IP client
 * (tests/integration/usbip_client.c) over 127.0.0.1, all reading at once.
 *
 * The bench writes N schemes (one mass_storage function, its own 1 MiB
 * backing file each, written in full so that reads come from the page
 * cache, not from zeroed holes) into a temporary directory, starts the daemon
 * on that directory (busids 1-1 .. 1-N), imports every gadget,
 * configures it and clears its unit attention, then measures from
 * /proc/PID of the daemon:
 *   - threads, file descriptors and RSS before and after the imports
 *     (per gadget: the difference over N; and the daemon's whole RSS
 *     over N, the goal's figure: at most 512 KiB);
 *   - CPU time (utime + stime) over IDLE seconds with all N imported
 *     and nothing moving (goal: about none);
 *   - READ(10) of 128 KiB, one command at a time per gadget as
 *     usb-storage does: gadget 1-1 alone for SECONDS, then all N at once
 *     (a client thread each) for SECONDS: aggregate MB/s and its ratio
 *     to the single gadget (goal >= 1.0, both cores used), and the
 *     daemon's CPU time in each;
 *   - RSS again once the data moved (the MSF rings are touched then);
 *   - CPU seconds per GB moved, of the daemon and of the clients (this
 *     process), in each run: what a byte costs, whatever share of the
 *     cores the runs got on a shared machine (the MB/s ratio depends on
 *     that share: 512 runnable threads take more of it from other jobs
 *     than 3 do).
 * The client runs in this process on the same cores: its CPU counts
 * against the daemon's, as a real host's would not.
 *
 *   bench_scale DAEMON [gadgets=256] [seconds=5] [idle=10] [disk of 1-1 in MiB=1]
 * With the last one at N, gadget 1-1 alone reads as much distinct data as
 * all N do at once (from memory, not the caches, in both runs).
 * Not a test: run by hand or with `ctest -L bench`.
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "composite/usbip.h"
#include "bench_time.h"
#include "usbip_client.h"

#define XFER (128u * 1024u)
/* Small enough for every disk to stay in the page cache (256 MiB for 256),
 * and written, not sparse: reading holes of files larger than the cache
 * has the kernel zero fresh pages for every read (it was 78% of the
 * daemon's CPU with 256 sparse 16 MiB disks). */
#define DISK_BYTES (1u << 20)
#define BLOCK 512u

struct gadget {
	struct uc c;
	unsigned in, out;	/* bulk endpoint numbers */
	uint32_t tag;
	uint8_t *buf;
	unsigned long long bytes;	/* read in the timed run */
	int failed;
};

static char dir[64];
static unsigned n_gadgets = 256;
/* Gadget 1-1's disk, in MiB (the 5th argument; the others have 1 MiB):
 * as large as all N disks together, its lone run reads as much distinct
 * data as the N gadgets do at once, from memory rather than the caches. */
static unsigned first_disk_mib = 1;

static size_t disk_bytes(unsigned i)
{
	return i == 0 ? (size_t)first_disk_mib * DISK_BYTES : DISK_BYTES;
}
static struct gadget *gadgets;
static atomic_bool go, stop;

/* CPU seconds the whole machine spent busy so far (/proc/stat), for the
 * share other jobs took during a run: that minus the daemon's and the
 * clients' own. */
static double machine_busy_seconds(void)
{
	unsigned long long v[8] = { 0 };
	long hz = sysconf(_SC_CLK_TCK);
	FILE *f = fopen("/proc/stat", "r");
	int n = 0;

	if (f) {
		n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
			   &v[4], &v[5], &v[6], &v[7]);
		fclose(f);
	}
	if (n < 4 || hz <= 0)
		return 0;
	/* user nice system idle iowait irq softirq steal: all but idle, iowait */
	return (double)(v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / (double)hz;
}

/* ---- the daemon's figures from /proc ------------------------------------ */

struct figures {
	long threads, fds, rss_kib;
	double cpu_s;
};

static long status_field(pid_t pid, const char *name)
{
	char path[64], line[256];
	size_t n = strlen(name);
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/status", (long)pid);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, name, n) == 0 && line[n] == ':')
			v = strtol(line + n + 1, NULL, 10);
	if (f)
		fclose(f);
	return v;
}

static double cpu_seconds(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long ut = 0, st = 0;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	/* Fields after the command name (which may hold spaces): state is
	 * field 3, utime 14 and stime 15. */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut,
			 &st) != 2)
		return -1;
	return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

static void measure(pid_t pid, struct figures *f)
{
	char path[64];
	struct dirent *e;
	DIR *d;

	f->threads = status_field(pid, "Threads");
	f->rss_kib = status_field(pid, "VmRSS");
	f->cpu_s = cpu_seconds(pid);
	f->fds = 0;
	snprintf(path, sizeof(path), "/proc/%ld/fd", (long)pid);
	d = opendir(path);
	while (d && (e = readdir(d)) != NULL)
		f->fds += e->d_name[0] != '.';
	if (d)
		closedir(d);
}

/* ---- schemes and the daemon ----------------------------------------------- */

static int write_files(void)
{
	static uint8_t block[64 * 1024];
	char path[128];
	FILE *f;

	memset(block, 0x6b, sizeof(block));
	snprintf(dir, sizeof(dir), "%s/bench_scale_XXXXXX",
		 getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(dir))
		return -1;
	for (unsigned i = 0; i < n_gadgets; i++) {
		snprintf(path, sizeof(path), "%s/disk-%03u.img", dir, i);
		f = fopen(path, "w");
		if (!f)
			return -1;
		for (size_t k = 0; k < disk_bytes(i) / sizeof(block); k++)
			if (fwrite(block, sizeof(block), 1, f) != 1)
				return -1;
		if (fclose(f) != 0)
			return -1;
		snprintf(path, sizeof(path), "%s/ms-%03u.scheme", dir, i);
		f = fopen(path, "w");
		if (!f)
			return -1;
		fprintf(f, "attrs = { idVendor = 0x1d6b; idProduct = 0x0104; };\n"
			"functions = { ms = { instance = \"0\"; type = \"mass_storage\";\n"
			"  attrs = { luns = ( { filename = \"%s/disk-%03u.img\"; } ); }; }; };\n"
			"configs = ( { id = 1; name = \"c\"; functions = ( \"ms\" ); } );\n",
			dir, i);
		fclose(f);
	}
	return 0;
}

static void remove_files(void)
{
	char path[128];

	for (unsigned i = 0; i < n_gadgets; i++) {
		snprintf(path, sizeof(path), "%s/disk-%03u.img", dir, i);
		unlink(path);
		snprintf(path, sizeof(path), "%s/ms-%03u.scheme", dir, i);
		unlink(path);
	}
	rmdir(dir);
}

/* Start the daemon on the directory; its port from its stdout. */
static pid_t start_daemon(const char *daemon, FILE **out, unsigned *port)
{
	static const char key[] = "listening on 127.0.0.1:";
	char line[512];
	int p[2];
	pid_t pid;

	if (pipe(p) != 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		/* One log line per import: not the bench's output. */
		if (!freopen("/dev/null", "w", stderr))
			_exit(126);
		execl(daemon, daemon, dir, "--port", "0", (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	*out = fdopen(p[0], "r");
	*port = 0;
	while (*out && !*port && fgets(line, sizeof(line), *out)) {
		const char *k = strstr(line, key);

		if (k)
			*port = (unsigned)atoi(k + strlen(key));
	}
	return *port ? pid : -1;
}

/* ---- the host side: BOT over the client ------------------------------- */

/* One command: CBW, the data stage (IN only here), CSW. Return its status
 * (0 passed, 1 failed), or -1 on a transport error. */
static int bot(struct gadget *g, const uint8_t *cb, unsigned cblen, void *data, uint32_t len)
{
	uint8_t cbw[31] = { 'U', 'S', 'B', 'C' };
	uint8_t csw[13];
	uint32_t actual, tag = ++g->tag;

	memcpy(cbw + 4, &tag, 4);
	cbw[8] = (uint8_t)len;
	cbw[9] = (uint8_t)(len >> 8);
	cbw[10] = (uint8_t)(len >> 16);
	cbw[11] = (uint8_t)(len >> 24);
	cbw[12] = len ? 0x80 : 0;
	cbw[14] = (uint8_t)cblen;
	memcpy(cbw + 15, cb, cblen);
	if (uc_transfer(&g->c, g->out, false, cbw, sizeof(cbw), 0, &actual) != 0)
		return -1;
	if (len && (uc_transfer(&g->c, g->in, true, data, len, 0, &actual) != 0 || actual != len))
		return -1;
	if (uc_transfer(&g->c, g->in, true, csw, sizeof(csw), 0, &actual) != 0 || actual != 13 ||
	    memcmp(csw, "USBS", 4) != 0 || memcmp(csw + 4, &tag, 4) != 0)
		return -1;
	return csw[12];
}

/* Import busid 1-(@i + 1), find its bulk endpoints, configure it and
 * clear the power-on unit attention. */
static int attach(struct gadget *g, unsigned port, unsigned i)
{
	static const uint8_t tur[6] = { 0 };
	static const uint8_t sense[6] = { 0x03, 0, 0, 0, 18, 0 };
	struct usbip_device_info info;
	uint8_t cfg[64], s[18];
	char busid[16];
	uint32_t actual;

	snprintf(busid, sizeof(busid), "1-%u", i + 1);
	if (uc_import(&g->c, port, busid, &info) != 0 ||
	    uc_control(&g->c, 0x80, USB_REQ_GET_DESCRIPTOR, USB_DT_CONFIG << 8, 0, sizeof(cfg), cfg,
		       &actual) != 0)
		return -1;
	g->in = g->out = 0;
	for (unsigned off = 0; off + 3 <= actual && cfg[off] >= 2; off += cfg[off])
		if (cfg[off + 1] == USB_DT_ENDPOINT && (cfg[off + 3] & 3) == USB_ENDPOINT_XFER_BULK) {
			if (cfg[off + 2] & 0x80)
				g->in = cfg[off + 2] & 0x0f;
			else
				g->out = cfg[off + 2] & 0x0f;
		}
	if (!g->in || !g->out ||
	    uc_control(&g->c, 0x00, USB_REQ_SET_CONFIGURATION, 1, 0, 0, NULL, NULL) != 0)
		return -1;
	if (bot(g, tur, 6, NULL, 0) != 0 &&
	    (bot(g, sense, 6, s, sizeof(s)) != 0 || bot(g, tur, 6, NULL, 0) != 0))
		return -1;
	g->buf = malloc(XFER);
	return g->buf ? 0 : -1;
}

/* READ(10) of XFER bytes, sequential over the disk, until stop. */
static void *reader(void *arg)
{
	struct gadget *g = arg;
	uint32_t lba = 0;

	while (!atomic_load(&go))
		sched_yield();
	while (!atomic_load(&stop)) {
		uint8_t cb[10] = { 0x28 };
		uint16_t blocks = XFER / BLOCK;

		cb[2] = (uint8_t)(lba >> 24);
		cb[3] = (uint8_t)(lba >> 16);
		cb[4] = (uint8_t)(lba >> 8);
		cb[5] = (uint8_t)lba;
		cb[7] = (uint8_t)(blocks >> 8);
		cb[8] = (uint8_t)blocks;
		if (bot(g, cb, 10, g->buf, XFER) != 0) {
			g->failed = 1;
			break;
		}
		g->bytes += XFER;
		lba = (lba + blocks) % (uint32_t)(disk_bytes((unsigned)(g - gadgets)) / BLOCK);
	}
	return NULL;
}

/* @n gadgets from the first read at once for @seconds: MB/s in all. */
static double read_run(unsigned n, double seconds)
{
	pthread_t *t = calloc(n, sizeof(*t));
	pthread_attr_t attr;
	unsigned long long bytes = 0;
	double t0, t1;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64u * 1024u);
	atomic_store(&go, false);
	atomic_store(&stop, false);
	for (unsigned i = 0; i < n; i++) {
		gadgets[i].bytes = 0;
		if (pthread_create(&t[i], &attr, reader, &gadgets[i]) != 0)
			return -1;
	}
	t0 = bench_now();
	atomic_store(&go, true);
	while (bench_now() - t0 < seconds) {
		struct timespec ts = { 0, 50 * 1000000L };

		nanosleep(&ts, NULL);
	}
	atomic_store(&stop, true);
	for (unsigned i = 0; i < n; i++) {
		pthread_join(t[i], NULL);
		bytes += gadgets[i].bytes;
		if (gadgets[i].failed)
			bytes = 0, i = n;	/* a failed gadget fails the run */
	}
	t1 = bench_now();
	pthread_attr_destroy(&attr);
	free(t);
	return bytes ? (double)bytes / (t1 - t0) / 1e6 : -1;
}

static void print_figures(const char *what, const struct figures *f)
{
	printf("  %-34s threads %5ld   fds %5ld   RSS %8ld KiB\n", what, f->threads, f->fds,
	       f->rss_kib);
}

/* One read run's line: @mbs over @seconds, the daemon's and the
 * clients' CPU seconds, and the machine's busy seconds meanwhile. */
static void phase(const char *label, double mbs, double seconds, double daemon_s, double clients_s,
		  double machine_s)
{
	double gb = mbs * seconds / 1000;
	double others = (machine_s - daemon_s - clients_s) / seconds;

	printf("    %-13s %8.1f MB/s   daemon %.2f cores, clients %.2f, others %.2f   CPU per GB: daemon %.2f s, clients %.2f s\n",
	       label, mbs, daemon_s / seconds, clients_s / seconds, others < 0 ? 0 : others,
	       daemon_s / gb, clients_s / gb);
}

int main(int argc, char **argv)
{
	const char *daemon = argc > 1 ? argv[1] : NULL;
	double seconds = argc > 3 ? atof(argv[3]) : 5, idle = argc > 4 ? atof(argv[4]) : 10;
	struct figures loaded, attached, after_idle, after_one, after_data;
	double one, all, c0, c1, c2, m0, m1, m2;
	unsigned port;
	FILE *out = NULL;
	pid_t pid;
	int status, rc = 1;

	if (argc > 2)
		n_gadgets = (unsigned)strtoul(argv[2], NULL, 10);
	if (argc > 5)
		first_disk_mib = (unsigned)strtoul(argv[5], NULL, 10);
	if (!daemon || n_gadgets < 1 || n_gadgets > USBIP_MAX_DEVICES || seconds <= 0 || idle <= 0 ||
	    first_disk_mib < 1 || first_disk_mib > 4096) {
		fprintf(stderr, "usage: bench_scale DAEMON [gadgets=256 (1..%d)] [seconds=5] [idle=10] "
			"[disk of 1-1 in MiB=1 (1..4096)]\n", USBIP_MAX_DEVICES);
		return 2;
	}
	gadgets = calloc(n_gadgets, sizeof(*gadgets));
	if (!gadgets || write_files() != 0) {
		fprintf(stderr, "bench_scale: cannot write the schemes in %s\n", dir);
		return 1;
	}
	pid = start_daemon(daemon, &out, &port);
	if (pid < 0) {
		fprintf(stderr, "bench_scale: %s did not start\n", daemon);
		goto out;
	}
	{
		struct timespec ts = { 0, 300 * 1000000L };	/* the workers settle */

		nanosleep(&ts, NULL);
	}
	measure(pid, &loaded);
	for (unsigned i = 0; i < n_gadgets; i++)
		if (attach(&gadgets[i], port, i) != 0) {
			fprintf(stderr, "bench_scale: gadget 1-%u did not attach\n", i + 1);
			goto out_stop;
		}
	measure(pid, &attached);
	{
		struct timespec ts = { (time_t)idle, (long)((idle - (double)(time_t)idle) * 1e9) };

		nanosleep(&ts, NULL);
	}
	measure(pid, &after_idle);
	c0 = bench_process_cpu();
	m0 = machine_busy_seconds();
	one = read_run(1, seconds);
	measure(pid, &after_one);
	c1 = bench_process_cpu();
	m1 = machine_busy_seconds();
	all = read_run(n_gadgets, seconds);
	measure(pid, &after_data);
	c2 = bench_process_cpu();
	m2 = machine_busy_seconds();
	if (one <= 0 || all <= 0) {
		fprintf(stderr, "bench_scale: a read run failed\n");
		goto out_stop;
	}
	printf("bench_scale: %u mass-storage gadgets in composite-gadgetd, imported over 127.0.0.1 (disk of 1-1: %u MiB, the others 1 MiB)\n",
	       n_gadgets, first_disk_mib);
	print_figures("loaded, none imported:", &loaded);
	print_figures("all imported, idle:", &attached);
	print_figures("after the reads, idle:", &after_data);
	printf("  per imported gadget:       threads %.2f   fds %.2f   RSS %.1f KiB (daemon RSS / N: %.1f KiB; after the reads %.1f KiB)\n",
	       (double)(attached.threads - loaded.threads) / n_gadgets,
	       (double)(attached.fds - loaded.fds) / n_gadgets,
	       (double)(attached.rss_kib - loaded.rss_kib) / n_gadgets,
	       (double)attached.rss_kib / n_gadgets, (double)after_data.rss_kib / n_gadgets);
	printf("  per gadget, none imported: threads %.2f   fds %.2f   (daemon RSS / N: %.1f KiB)\n",
	       (double)loaded.threads / n_gadgets, (double)loaded.fds / n_gadgets,
	       (double)loaded.rss_kib / n_gadgets);
	printf("  idle CPU of the daemon, %u imported: %.3f s over %.1f s\n", n_gadgets,
	       after_idle.cpu_s - attached.cpu_s, idle);
	printf("  READ(10) 128 KiB, one at a time per gadget, %.1f s each (others: the cores other jobs\n"
	       "  on the machine kept busy meanwhile; CPU per GB: what a GB cost the daemon and the clients):\n",
	       seconds);
	phase("1-1 alone:", one, seconds, after_one.cpu_s - after_idle.cpu_s, c1 - c0, m1 - m0);
	phase("all at once:", all, seconds, after_data.cpu_s - after_one.cpu_s, c2 - c1, m2 - m1);
	printf("    ratio all / alone: %.2f MB/s, %.2f CPU per GB (daemon)\n", all / one,
	       ((after_data.cpu_s - after_one.cpu_s) / all) / ((after_one.cpu_s - after_idle.cpu_s) / one));
	printf("  goals: aggregate >= single: %s; daemon RSS / N <= 512 KiB idle: %s\n",
	       all >= one ? "met" : "NOT met",
	       attached.rss_kib <= 512L * n_gadgets ? "met" : "NOT met");
	rc = 0;
out_stop:
	for (unsigned i = 0; i < n_gadgets; i++) {
		if (gadgets[i].c.fd > 0)
			uc_close(&gadgets[i].c);
		free(gadgets[i].buf);
	}
	kill(pid, SIGTERM);
	if (out) {
		char line[512];

		while (fgets(line, sizeof(line), out))
			;
		fclose(out);
	}
	waitpid(pid, &status, 0);
out:
	remove_files();
	free(gadgets);
	return rc;
}
