/*
 * usbip_bench.c - throughput of the USB/IP backend on 127.0.0.1 against a
 * plain TCP loopback transfer of the same bytes in the same run.
 *
 * USB/IP: the test gadget (tests/integration/usbip_test_gadget.c) on
 * busid 1-1; the test client imports it and moves 128 KiB URBs one at a
 * time, as usb-storage does: "write" = bulk OUT to the sink, "read" =
 * bulk IN from the source. Twice: with the sink and source queueing
 * 4 x 64 KiB requests (the MSF's default ring, which covers a URB: the
 * bytes move between socket and requests without a copy), and 2 x 16 KiB
 * (the test gadget's default; a URB then waits for requests, and IN
 * copies what it has so far to give them back).
 * Then the 4 x 64 KiB run with the capture on (usbip_server_set_capture():
 * every URB's usbmon record and data to a pcap file in $TMPDIR, default
 * /tmp, removed afterwards), all data and 4 KiB per URB, alternated with
 * runs without, seven rounds, the best of each compared (goal: capture at
 * most 10% slower, ratio >= 0.90), with the median of the rounds' ratios.
 * The process holds the CPUs' idle latency at 0 while it runs, when it
 * may (bench_hold_cpu_latency(): root).
 * Reference: a thread that speaks the same framing without any USB: for
 * "write" it reads a 48-byte header plus 128 KiB and answers 48 bytes;
 * for "read" it reads 48 bytes and answers 48 plus 128 KiB.
 *
 *   bench_usbip [MiB per direction, default 256]
 * Prints MB/s for each and the ratios usbip/tcp (goal >= 0.8), the best and
 * the worst of MAIN_ROUNDS alternated rounds.
 */
#define _POSIX_C_SOURCE 200809L

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "composite/usbip.h"
#include "bench_time.h"
#include "usbip_client.h"
#include "usbip_test_gadget.h"

#define XFER (128u * 1024u)
/* Transfers before the clock starts, each phase: buffers allocated, TCP
 * windows grown, so that the order of the runs does not count. */
#define WARMUP 256u

/* ---- reference: plain TCP with the same framing ------------------------- */

struct ref {
	int listen_fd;
	unsigned port;
	unsigned count;
};

static void *ref_server(void *arg)
{
	struct ref *r = arg;
	uint8_t *buf = malloc(USBIP_URB_HEADER_SIZE + XFER);
	int fd = accept(r->listen_fd, NULL, NULL);
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	memset(buf, 0x5a, USBIP_URB_HEADER_SIZE + XFER);
	/* write phase */
	for (unsigned i = 0; i < WARMUP + r->count; i++) {
		if (uc_read_all(fd, buf, USBIP_URB_HEADER_SIZE + XFER) < 0 ||
		    uc_write_all(fd, buf, USBIP_URB_HEADER_SIZE) < 0)
			break;
	}
	/* read phase */
	for (unsigned i = 0; i < WARMUP + r->count; i++) {
		if (uc_read_all(fd, buf, USBIP_URB_HEADER_SIZE) < 0 ||
		    uc_write_all(fd, buf, USBIP_URB_HEADER_SIZE + XFER) < 0)
			break;
	}
	close(fd);
	free(buf);
	return NULL;
}

static int ref_run(unsigned count, double *wr, double *rd)
{
	struct ref r = { -1, 0, count };
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);
	uint8_t *buf = malloc(USBIP_URB_HEADER_SIZE + XFER);
	pthread_t t;
	double t0;
	int fd;

	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	r.listen_fd = socket(AF_INET, SOCK_STREAM, 0);
	if (!buf || r.listen_fd < 0 || bind(r.listen_fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(r.listen_fd, 1) < 0 || getsockname(r.listen_fd, (struct sockaddr *)&sa, &len) < 0)
		return -1;
	r.port = ntohs(sa.sin_port);
	pthread_create(&t, NULL, ref_server, &r);
	fd = uc_connect(r.port);
	memset(buf, 0xa5, USBIP_URB_HEADER_SIZE + XFER);
	for (unsigned i = 0; i < WARMUP; i++)
		if (uc_write_all(fd, buf, USBIP_URB_HEADER_SIZE + XFER) < 0 ||
		    uc_read_all(fd, buf, USBIP_URB_HEADER_SIZE) < 0)
			return -1;
	t0 = bench_now();
	for (unsigned i = 0; i < count; i++)
		if (uc_write_all(fd, buf, USBIP_URB_HEADER_SIZE + XFER) < 0 ||
		    uc_read_all(fd, buf, USBIP_URB_HEADER_SIZE) < 0)
			return -1;
	*wr = (double)count * XFER / (bench_now() - t0) / 1e6;
	for (unsigned i = 0; i < WARMUP; i++)
		if (uc_write_all(fd, buf, USBIP_URB_HEADER_SIZE) < 0 ||
		    uc_read_all(fd, buf, USBIP_URB_HEADER_SIZE + XFER) < 0)
			return -1;
	t0 = bench_now();
	for (unsigned i = 0; i < count; i++)
		if (uc_write_all(fd, buf, USBIP_URB_HEADER_SIZE) < 0 ||
		    uc_read_all(fd, buf, USBIP_URB_HEADER_SIZE + XFER) < 0)
			return -1;
	*rd = (double)count * XFER / (bench_now() - t0) / 1e6;
	close(fd);
	pthread_join(t, NULL);
	close(r.listen_fd);
	free(buf);
	return 0;
}

/* ---- USB/IP ---------------------------------------------------------------- */

/* One USB/IP run; with @capture (a file name), device 1-1 captures.
 * *@cores (may be NULL): the process's CPU seconds per second of the
 * timed part (2.0: both cores of a 2-core machine busy). */
static int usbip_run(unsigned count, unsigned req_len, unsigned reqs, const char *capture,
		     size_t max_data, double *wr, double *rd, double *cores)
{
	struct usbip_server_config cfg;
	struct usbip_server *srv;
	struct usbip_device_info info;
	static struct tg g;
	uint8_t *buf = malloc(XFER);
	uint32_t actual;
	struct uc c;
	double t0 = 0;	/* set when the warm-up ends */
	double start = 0, cpu0 = 0;
	int rc = -1;

	usbip_server_config_init(&cfg);
	cfg.port = 0;
	cfg.capture_max_data = max_data;
	if (!buf || usbip_server_create(&cfg, &srv) != 0)
		return -1;
	if (capture && usbip_server_set_capture(srv, 0, capture) != 0) {
		fprintf(stderr, "bench_usbip: cannot capture to %s\n", capture);
		goto out;
	}
	if (tg_probe_bulk(&g, "1-1", 0x0104, req_len, reqs) != 0 || usbip_server_start(srv) != 0)
		goto out;
	g.no_refill = true;
	if (uc_import(&c, usbip_server_port(srv), "1-1", &info) != 0 ||
	    uc_control(&c, 0x00, USB_REQ_SET_CONFIGURATION, 1, 0, 0, NULL, NULL) != 0)
		goto out;
	memset(buf, 0xa5, XFER);
	for (unsigned i = 0; i < WARMUP + count; i++) {
		if (i == WARMUP) {
			t0 = start = bench_now();
			cpu0 = bench_process_cpu();
		}
		if (uc_transfer(&c, tg_addr(g.sink) & 0xf, false, buf, XFER, 0, &actual) != 0 ||
		    actual != XFER)
			goto out_close;
	}
	*wr = (double)count * XFER / (bench_now() - t0) / 1e6;
	for (unsigned i = 0; i < WARMUP + count; i++) {
		if (i == WARMUP)
			t0 = bench_now();
		if (uc_transfer(&c, tg_addr(g.source) & 0xf, true, buf, XFER, 0, &actual) != 0 ||
		    actual != XFER)
			goto out_close;
	}
	*rd = (double)count * XFER / (bench_now() - t0) / 1e6;
	if (cores)
		*cores = (bench_process_cpu() - cpu0) / (bench_now() - start);
	rc = 0;
out_close:
	uc_close(&c);
out:
	usbip_server_stop(srv);
	tg_remove(&g);
	usbip_server_destroy(srv);
	free(buf);
	return rc;
}

static double max2(double a, double b)
{
	return a > b ? a : b;
}

/* Capture data bytes kept per URB in the capped runs. */
#define CAPPED 4096u
/* Rounds of the three runs: the best of each is kept (a shared machine's
 * noise only ever slows a run down), and each round's ratio to the run
 * without the capture just before it, for their median. */
#define CAPTURE_ROUNDS 7

struct capture_figures {
	double w[3], r[3];		/* best MB/s: [0] off, [1] all, [2] capped */
	double cores[3];		/* mean CPU cores of each */
	double wq[3][CAPTURE_ROUNDS];	/* each round's ratio to [0], [1] and [2] */
	double rq[3][CAPTURE_ROUNDS];
	long long bytes[3];		/* the files' sizes */
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static long long file_size(const char *path)
{
	FILE *f = fopen(path, "rb");
	long long n = -1;

	if (f && fseek(f, 0, SEEK_END) == 0)
		n = ftell(f);
	if (f)
		fclose(f);
	return n;
}

/* The 4 x 64 KiB run without the capture, with it (all data), and with
 * it capped at CAPPED data bytes per URB, alternated, CAPTURE_ROUNDS
 * times. */
static int capture_runs(unsigned count, struct capture_figures *c)
{
	const char *tmp = getenv("TMPDIR");
	char path[512];

	snprintf(path, sizeof(path), "%s/bench_usbip_%ld.pcap", tmp && *tmp ? tmp : "/tmp",
		 (long)getpid());
	memset(c, 0, sizeof(*c));
	for (int i = 0; i < CAPTURE_ROUNDS; i++) {
		double a[3], b[3], u;

		for (int k = 0; k < 3; k++) {
			if (usbip_run(count, 64u * 1024u, 4, k ? path : NULL, k == 2 ? CAPPED : 0,
				      &a[k], &b[k], &u) != 0)
				return -1;
			c->w[k] = max2(c->w[k], a[k]);
			c->r[k] = max2(c->r[k], b[k]);
			c->cores[k] += u / CAPTURE_ROUNDS;
			c->wq[k][i] = a[k] / a[0];
			c->rq[k][i] = b[k] / b[0];
			if (!k)
				continue;
			c->bytes[k] = file_size(path);
			unlink(path);
		}
	}
	return 0;
}

/* Rounds of the main comparison, alternated like the capture's: the best
 * and the worst of each are printed. The write figure is bimodal on a
 * 2-core machine (where the scheduler puts the client and the
 * connection thread: docs/performance.md), so one run says little. */
#define MAIN_ROUNDS 5

struct spread {
	double best, worst;
};

static void spread_add(struct spread *s, double v)
{
	if (v > s->best)
		s->best = v;
	if (s->worst == 0 || v < s->worst)
		s->worst = v;
}

/* [0] usbip 4 x 64 KiB, [1] plain TCP, [2] usbip 2 x 16 KiB; the
 * reference between the two, so that a drift shows in both alike. */
static int main_runs(unsigned count, struct spread w[3], struct spread r[3])
{
	memset(w, 0, 3 * sizeof(*w));
	memset(r, 0, 3 * sizeof(*r));
	for (int i = 0; i < MAIN_ROUNDS; i++) {
		double a[3], b[3];

		if (usbip_run(count, 64u * 1024u, 4, NULL, 0, &a[0], &b[0], NULL) != 0 ||
		    ref_run(count, &a[1], &b[1]) != 0 ||
		    usbip_run(count, 16u * 1024u, 2, NULL, 0, &a[2], &b[2], NULL) != 0)
			return -1;
		for (int k = 0; k < 3; k++) {
			spread_add(&w[k], a[k]);
			spread_add(&r[k], b[k]);
		}
	}
	return 0;
}

static void print_ratio(const char *label, const struct spread *w, const struct spread *r,
			const struct spread *tw, const struct spread *tr)
{
	printf("  %-31s write %8.1f MB/s   read %8.1f MB/s   ratio %.2f / %.2f   (worst %.2f / %.2f)\n",
	       label, w->best, r->best, w->best / tw->best, r->best / tr->best,
	       w->worst / tw->worst, r->worst / tr->worst);
}

static void print_capture(const struct capture_figures *c)
{
	double w1[CAPTURE_ROUNDS], r1[CAPTURE_ROUNDS], w2[CAPTURE_ROUNDS], r2[CAPTURE_ROUNDS];

	memcpy(w1, c->wq[1], sizeof(w1));
	memcpy(r1, c->rq[1], sizeof(r1));
	memcpy(w2, c->wq[2], sizeof(w2));
	memcpy(r2, c->rq[2], sizeof(r2));
	printf("  capture off, 4 x 64 KiB (best of %d):   write %8.1f MB/s   read %8.1f MB/s   cores %.2f\n",
	       CAPTURE_ROUNDS, c->w[0], c->r[0], c->cores[0]);
	printf("  capture, all data:                     write %8.1f MB/s   read %8.1f MB/s   ratio %.2f / %.2f   (median round %.2f / %.2f)   cores %.2f   (%lld bytes)\n",
	       c->w[1], c->r[1], c->w[1] / c->w[0], c->r[1] / c->r[0],
	       median(w1, CAPTURE_ROUNDS), median(r1, CAPTURE_ROUNDS), c->cores[1], c->bytes[1]);
	printf("  capture, %u data bytes per URB:      write %8.1f MB/s   read %8.1f MB/s   ratio %.2f / %.2f   (median round %.2f / %.2f)   cores %.2f   (%lld bytes)\n",
	       CAPPED, c->w[2], c->r[2], c->w[2] / c->w[0], c->r[2] / c->r[0],
	       median(w2, CAPTURE_ROUNDS), median(r2, CAPTURE_ROUNDS), c->cores[2], c->bytes[2]);
	printf("  goal: capture ratio >= 0.90 (best): all data %s, %u bytes %s\n",
	       c->w[1] / c->w[0] >= 0.9 && c->r[1] / c->r[0] >= 0.9 ? "met" : "NOT met", CAPPED,
	       c->w[2] / c->w[0] >= 0.9 && c->r[2] / c->r[0] >= 0.9 ? "met" : "NOT met");
}

int main(int argc, char **argv)
{
	unsigned mib = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 256;
	unsigned count = mib * 1024u * 1024u / XFER;
	bool held = bench_hold_cpu_latency();
	struct spread w[3], r[3];
	struct capture_figures cap;

	if (count == 0)
		count = 1;
	if (main_runs(count, w, r) != 0 || capture_runs(count, &cap) != 0) {
		fprintf(stderr, "bench_usbip: a run failed\n");
		return 1;
	}
	printf("bench_usbip: %u x 128 KiB per direction, one URB at a time, best of %d rounds\n",
	       count, MAIN_ROUNDS);
	printf("  CPU idle latency: %s\n", held ? "held at 0 us (/dev/cpu_dma_latency)"
		: "not held (/dev/cpu_dma_latency needs root): wakeups add noise");
	printf("  tcp reference:                  write %8.1f MB/s   read %8.1f MB/s   (worst %.1f / %.1f)\n",
	       w[1].best, r[1].best, w[1].worst, r[1].worst);
	print_ratio("usbip, 4 x 64 KiB requests:", &w[0], &r[0], &w[1], &r[1]);
	print_ratio("usbip, 2 x 16 KiB requests:", &w[2], &r[2], &w[1], &r[1]);
	printf("  goal: ratio >= 0.80 (4 x 64 KiB, best): %s\n",
	       w[0].best / w[1].best >= 0.8 && r[0].best / r[1].best >= 0.8 ? "met" : "NOT met");
	print_capture(&cap);
	return 0;
}
