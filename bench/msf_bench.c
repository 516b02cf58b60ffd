/*
 * msf_bench.c - bench_msf: sequential READ(10) and WRITE(10) of 128 KiB
 * through the mass storage function and the in-process host, on a
 * file-backed LUN, against plain pread()/pwrite() of the same bytes on the
 * same file in the same run. Prints MB/s and the ratio MSF / plain (goal:
 * >= 0.8). Not a test: run by hand or with `ctest -L bench`.
 *
 * Usage: bench_msf [size_mib=256] [rounds=3] [num_buffers=N] [buflen=N]
 *        [xfer_kib=128] [file=PATH] [host=sync|queued]
 * host=sync waits for each of CBW, data and CSW in turn; queued submits
 * the three together (command_queued()).
 */
#define _POSIX_C_SOURCE 200809L

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "composite/composite.h"
#include "composite/inproc_host.h"
#include "composite/mass_storage.h"

#define TMO 10000u

static struct fsg_config cfg;
static struct usb_configuration config = {
	.label = "bench", .bConfigurationValue = 1, .MaxPower = 100,
};
static uint8_t ep_in, ep_out;
static uint32_t tag;

static int do_config(struct usb_configuration *c)
{
	struct fsg_common *common;
	int rc = fsg_common_create(&common, c->cdev, &cfg);

	if (rc)
		return rc;
	rc = fsg_add(c->cdev, c, common);
	fsg_common_put(common);
	return rc;
}

static int bind(struct usb_composite_dev *cdev)
{
	return usb_add_config(cdev, &config, do_config);
}

static const struct usb_device_descriptor dd = {
	.bLength = USB_DT_DEVICE_SIZE,
	.bDescriptorType = USB_DT_DEVICE,
	.bcdUSB = USB_CPU_TO_LE16(0x0200),
	.idVendor = USB_CPU_TO_LE16(0x0525),
	.idProduct = USB_CPU_TO_LE16(0xa4a5),
};

static struct usb_composite_driver driver = {
	.name = "bench_msf", .dev = &dd, .max_speed = USB_SPEED_HIGH, .bind = bind,
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A CBW for the 10-byte @cdb, with the next tag. */
static void fill_cbw(uint8_t cbw[31], const uint8_t *cdb, int in, uint32_t len)
{
	memset(cbw, 0, 31);
	usb_put_le32(cbw, 0x43425355u);
	usb_put_le32(cbw + 4, ++tag);
	usb_put_le32(cbw + 8, len);
	cbw[12] = in ? 0x80 : 0;
	cbw[14] = 10;
	memcpy(cbw + 15, cdb, 10);
}

/* One BOT command; the CSW status, or a negative error. */
static int command(struct usb_inproc_host *h, const uint8_t *cdb, int in, void *buf,
		   uint32_t len)
{
	uint8_t cbw[31], csw[13];
	int rc;

	fill_cbw(cbw, cdb, in, len);
	rc = usb_inproc_host_transfer(h, ep_out, cbw, 31, 0, TMO);
	if (rc != 31)
		return rc < 0 ? rc : -1;
	if (len) {
		rc = usb_inproc_host_transfer(h, in ? ep_in : ep_out, buf, len, 0, TMO);
		if (rc != (int)len)
			return rc < 0 ? rc : -2;
	}
	rc = usb_inproc_host_transfer(h, ep_in, csw, 13, 0, TMO);
	if (rc != 13 || usb_get_le32(csw + 4) != tag)
		return rc < 0 ? rc : -3;
	return csw[12];
}

/*
 * The same command as a host controller with a transfer ring runs it: CBW,
 * data and CSW submitted together (served in order on each endpoint), one
 * wait for the CSW. Still one command at a time, as BOT wants.
 */
static int command_queued(struct usb_inproc_host *h, const uint8_t *cdb, int in, void *buf,
			  uint32_t len)
{
	uint8_t cbw[31], csw[13];
	struct usb_inproc_xfer *x[3] = { NULL, NULL, NULL };
	int rc = -1;

	fill_cbw(cbw, cdb, in, len);
	if (usb_inproc_host_submit(h, ep_out, cbw, 31, 0, &x[0]) ||
	    usb_inproc_host_submit(h, in ? ep_in : ep_out, buf, len, 0, &x[1]) ||
	    usb_inproc_host_submit(h, ep_in, csw, 13, 0, &x[2]))
		goto out;
	if (usb_inproc_host_wait(h, x[2], TMO) != 13 || usb_get_le32(csw + 4) != tag ||
	    usb_inproc_host_wait(h, x[0], TMO) != 31 ||
	    usb_inproc_host_wait(h, x[1], TMO) != (int)len)
		goto out;
	rc = csw[12];
out:
	for (int i = 0; i < 3; i++)
		usb_inproc_host_free(h, x[i]);
	return rc;
}

static int queued_host;

static int rw10(struct usb_inproc_host *h, int write, uint32_t lba, uint16_t blocks,
		void *buf)
{
	uint8_t cdb[10] = { write ? 0x2a : 0x28, 0, (uint8_t)(lba >> 24), (uint8_t)(lba >> 16),
			    (uint8_t)(lba >> 8), (uint8_t)lba, 0, (uint8_t)(blocks >> 8),
			    (uint8_t)blocks, 0 };

	return (queued_host ? command_queued : command)(h, cdb, !write, buf,
						       (uint32_t)blocks * 512u);
}

static unsigned long arg_ul(int argc, char **argv, const char *key, unsigned long dflt)
{
	size_t n = strlen(key);

	for (int i = 1; i < argc; i++)
		if (!strncmp(argv[i], key, n) && argv[i][n] == '=')
			return strtoul(argv[i] + n + 1, NULL, 0);
	return dflt;
}

static const char *arg_s(int argc, char **argv, const char *key, const char *dflt)
{
	size_t n = strlen(key);

	for (int i = 1; i < argc; i++)
		if (!strncmp(argv[i], key, n) && argv[i][n] == '=')
			return argv[i] + n + 1;
	return dflt;
}

int main(int argc, char **argv)
{
	unsigned long size_mib = arg_ul(argc, argv, "size_mib", 256);
	unsigned long rounds = arg_ul(argc, argv, "rounds", 3);
	unsigned long xfer = arg_ul(argc, argv, "xfer_kib", 128) * 1024u;
	const char *path = arg_s(argc, argv, "file", "/tmp/bench_msf.img");
	const char *host = arg_s(argc, argv, "host", "sync");
	uint64_t size = (uint64_t)size_mib << 20;
	/* plain write, msf write, plain read, msf read */
	double best[4] = { 0, 0, 0, 0 };
	struct usb_inproc_host_config hc = { .max_speed = USB_SPEED_HIGH };
	struct usb_inproc_host *h;
	uint8_t desc[256], *buf;
	int fd, len, rc = 1;

	if (strcmp(host, "sync") != 0 && strcmp(host, "queued") != 0) {
		fprintf(stderr, "bench_msf: host=%s: expected sync or queued\n", host);
		return 2;
	}
	if (xfer == 0 || xfer > 65535u * 512u || xfer % 512 || size % xfer) {
		fprintf(stderr, "bench_msf: bad sizes\n");
		return 2;
	}
	queued_host = strcmp(host, "queued") == 0;
	buf = malloc(xfer);
	if (!buf)
		return 2;
	for (size_t i = 0; i < xfer; i++)
		buf[i] = (uint8_t)(i * 7u);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || ftruncate(fd, (off_t)size) < 0) {
		perror(path);
		return 2;
	}

	cfg.nluns = 1;
	cfg.can_stall = 1;
	cfg.luns[0].filename = path;
	cfg.fsg_num_buffers = (unsigned)arg_ul(argc, argv, "num_buffers", 0);
	cfg.buflen = (unsigned)arg_ul(argc, argv, "buflen", 0);
	if (usb_inproc_host_create(&hc, &h) || usb_composite_probe(&driver)) {
		fprintf(stderr, "bench_msf: gadget setup failed\n");
		return 2;
	}
	len = usb_inproc_host_enumerate(h, USB_SPEED_HIGH, 1, NULL, desc, sizeof(desc), TMO);
	for (int off = 0; off + 2 <= len && desc[off] >= 2; off += desc[off])
		if (desc[off + 1] == USB_DT_ENDPOINT)
			*(desc[off + 2] & USB_DIR_IN ? &ep_in : &ep_out) = desc[off + 2];
	{
		uint8_t tur[10] = { 0 };

		/* Clear the power-on unit attention. */
		(void)command(h, tur, 0, NULL, 0);
		if (command(h, tur, 0, NULL, 0) != 0) {
			fprintf(stderr, "bench_msf: device not ready\n");
			goto out;
		}
	}

	for (unsigned long r = 0; r < rounds; r++) {
		double t, dt[4];

		t = now();
		for (uint64_t off = 0; off < size; off += xfer)
			if (pwrite(fd, buf, xfer, (off_t)off) != (ssize_t)xfer)
				goto out;
		dt[0] = now() - t;

		t = now();
		for (uint64_t off = 0; off < size; off += xfer)
			if (rw10(h, 1, (uint32_t)(off / 512), (uint16_t)(xfer / 512), buf) != 0)
				goto out;
		dt[1] = now() - t;

		t = now();
		for (uint64_t off = 0; off < size; off += xfer)
			if (pread(fd, buf, xfer, (off_t)off) != (ssize_t)xfer)
				goto out;
		dt[2] = now() - t;

		t = now();
		for (uint64_t off = 0; off < size; off += xfer)
			if (rw10(h, 0, (uint32_t)(off / 512), (uint16_t)(xfer / 512), buf) != 0)
				goto out;
		dt[3] = now() - t;

		for (int k = 0; k < 4; k++) {
			double mbs = (double)size / 1e6 / dt[k];

			if (mbs > best[k])
				best[k] = mbs;
		}
		printf("round %lu: write plain %.0f msf %.0f MB/s, read plain %.0f msf %.0f MB/s\n",
		       r + 1, (double)size / 1e6 / dt[0], (double)size / 1e6 / dt[1],
		       (double)size / 1e6 / dt[2], (double)size / 1e6 / dt[3]);
	}
	printf("bench_msf: %lu MiB file, %lu KiB transfers, buffers %u x %u KiB (best of %lu)\n",
	       size_mib, xfer / 1024, cfg.fsg_num_buffers ? cfg.fsg_num_buffers : FSG_NUM_BUFFERS_DEFAULT,
	       (cfg.buflen ? cfg.buflen : FSG_BUFLEN_DEFAULT) / 1024, rounds);
	printf("WRITE(10): msf %.1f MB/s, pwrite %.1f MB/s, ratio %.2f\n", best[1], best[0],
	       best[1] / best[0]);
	printf("READ(10):  msf %.1f MB/s, pread  %.1f MB/s, ratio %.2f\n", best[3], best[2],
	       best[3] / best[2]);
	rc = 0;
out:
	if (rc)
		fprintf(stderr, "bench_msf: a transfer failed\n");
	usb_composite_unregister(&driver);
	usb_inproc_host_destroy(h);
	close(fd);
	unlink(path);
	free(buf);
	return rc;
}
