/*
 * usbtest_run.c - start Linux usbtest cases on a Gadget Zero device and
 * report each one (the job of the kernel tree's tools/usb/testusb.c, which
 * Debian does not package). Runs in the qemu guest of tests/usbtest.
 *
 *	usbtest_run [-d VID:PID] [-i IFNO] [-n ITER] [-l LEN] [-v VARY]
 *		    [-g SGLEN] [-t SECS] CASE...
 *
 * Finds the device bound to usbtest by VID:PID (default 0525:a4a0) in
 * /sys/bus/usb/devices, opens its usbfs node (making one from the sysfs
 * dev numbers when /dev/bus/usb lacks it), and for each CASE issues
 * USBDEVFS_IOCTL(USBTEST_REQUEST) in a child process, so that a case stuck
 * in the kernel is reported (after -t seconds, default 120) instead of
 * hanging the run. One line per case on stdout:
 *	usbtest case N: pass|fail|n/a|stuck (status S, T s)
 * Exit status: 0 if every case passed or was n/a (EOPNOTSUPP), 1 if one
 * failed or got stuck, 2 on a usage or setup error.
 *
 * A POSIX (Linux) test program; touches only the device it tests.
 */
#define _GNU_SOURCE

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/usbdevice_fs.h>

/* usbtest's parameter block on 64-bit kernels (drivers/usb/misc/usbtest.c). */
struct usbtest_param_64 {
	uint32_t test_num;
	uint32_t iterations;
	uint32_t length;
	uint32_t vary;
	uint32_t sglen;
	int64_t duration_sec;
	int64_t duration_usec;
};

#define USBTEST_REQUEST_64 _IOWR('U', 100, struct usbtest_param_64)

static int read_hex(const char *dir, const char *file, unsigned *out)
{
	char path[512], buf[32];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "r");
	if (!f)
		return -1;
	ok = fgets(buf, sizeof(buf), f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	*out = (unsigned)strtoul(buf, NULL, 16);
	return 0;
}

static int read_dec(const char *dir, const char *file, unsigned *out)
{
	char path[512], buf[32];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "r");
	if (!f)
		return -1;
	ok = fgets(buf, sizeof(buf), f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	*out = (unsigned)strtoul(buf, NULL, 10);
	return 0;
}

/* The usbfs node of the first device with @vid:@pid, opened read-write. */
static int open_device(unsigned vid, unsigned pid, char *name, size_t name_len)
{
	const char *base = "/sys/bus/usb/devices";
	DIR *d = opendir(base);
	struct dirent *e;
	int fd = -1;

	if (!d) {
		perror("usbtest_run: /sys/bus/usb/devices");
		return -1;
	}
	while ((e = readdir(d)) != NULL) {
		char dir[512], node[64];
		unsigned v, p, bus, dev, maj, min;
		FILE *f;

		if (e->d_name[0] == '.' || strchr(e->d_name, ':'))
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", base, e->d_name);
		if (read_hex(dir, "idVendor", &v) || read_hex(dir, "idProduct", &p) ||
		    v != vid || p != pid)
			continue;
		if (read_dec(dir, "busnum", &bus) || read_dec(dir, "devnum", &dev))
			continue;
		snprintf(node, sizeof(node), "/dev/bus/usb/%03u/%03u", bus, dev);
		fd = open(node, O_RDWR);
		if (fd < 0) {
			/* No devtmpfs node: make one from the sysfs numbers. */
			char devfile[600], buf[32];

			snprintf(devfile, sizeof(devfile), "%s/dev", dir);
			f = fopen(devfile, "r");
			if (f && fgets(buf, sizeof(buf), f) &&
			    sscanf(buf, "%u:%u", &maj, &min) == 2) {
				snprintf(node, sizeof(node), "/tmp/usbtest-%03u-%03u", bus, dev);
				unlink(node);
				if (mknod(node, S_IFCHR | 0600, makedev(maj, min)) == 0)
					fd = open(node, O_RDWR);
			}
			if (f)
				fclose(f);
		}
		if (fd >= 0) {
			/* A cut name is only a label in the report. */
			if (snprintf(name, name_len, "%s (%s)", e->d_name, node) >= (int)name_len)
				name[name_len - 1] = '\0';
			break;
		}
		fprintf(stderr, "usbtest_run: cannot open %s: %s\n", node, strerror(errno));
	}
	closedir(d);
	return fd;
}

/* Run one case in a child; Return: 0 pass, 1 fail, 2 n/a, 3 stuck. */
static int run_case(int fd, int ifno, const struct usbtest_param_64 *tmpl,
		    unsigned timeout_s, int *status, double *secs)
{
	struct timespec t0, t1;
	int pipefd[2], wstatus;
	pid_t pid;
	int32_t child_rc = 0;
	unsigned waited_ms = 0;

	if (pipe(pipefd))
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		struct usbtest_param_64 param = *tmpl;
		struct usbdevfs_ioctl req = {
			.ifno = ifno,
			.ioctl_code = (int)USBTEST_REQUEST_64,
			.data = &param,
		};
		int32_t rc = 0;

		close(pipefd[0]);
		if (ioctl(fd, USBDEVFS_IOCTL, &req) < 0)
			rc = errno;
		if (write(pipefd[1], &rc, sizeof(rc)) != (ssize_t)sizeof(rc))
			_exit(3);
		_exit(0);
	}
	close(pipefd[1]);
	for (;;) {
		pid_t w = waitpid(pid, &wstatus, WNOHANG);

		if (w == pid)
			break;
		if (waited_ms >= timeout_s * 1000u) {
			kill(pid, SIGKILL);
			close(pipefd[0]);
			*status = -ETIMEDOUT;
			*secs = timeout_s;
			/* Do not wait: a child stuck in the kernel stays D. */
			return 3;
		}
		usleep(50 * 1000);
		waited_ms += 50;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	*secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	if (read(pipefd[0], &child_rc, sizeof(child_rc)) != (ssize_t)sizeof(child_rc))
		child_rc = EIO;
	close(pipefd[0]);
	*status = -child_rc;
	if (child_rc == 0)
		return 0;
	if (child_rc == EOPNOTSUPP)
		return 2;
	return 1;
}

int main(int argc, char **argv)
{
	struct usbtest_param_64 tmpl = { .iterations = 100, .length = 1024, .vary = 512,
					 .sglen = 32 };
	unsigned vid = 0x0525, pid = 0xa4a0, timeout_s = 120;
	static const char *const names[] = { "pass", "fail", "n/a", "stuck" };
	int ifno = 0, opt, fd, failed = 0;
	char devname[128];

	while ((opt = getopt(argc, argv, "d:i:n:l:v:g:t:")) != -1) {
		switch (opt) {
		case 'd':
			if (sscanf(optarg, "%x:%x", &vid, &pid) != 2)
				goto usage;
			break;
		case 'i': ifno = atoi(optarg); break;
		case 'n': tmpl.iterations = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'l': tmpl.length = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'v': tmpl.vary = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'g': tmpl.sglen = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 't': timeout_s = (unsigned)strtoul(optarg, NULL, 0); break;
		default: goto usage;
		}
	}
	if (optind >= argc)
		goto usage;
	fd = open_device(vid, pid, devname, sizeof(devname));
	if (fd < 0) {
		fprintf(stderr, "usbtest_run: no device %04x:%04x\n", vid, pid);
		return 2;
	}
	printf("usbtest_run: %s, iterations %u, length %u, vary %u, sglen %u\n", devname,
	       tmpl.iterations, tmpl.length, tmpl.vary, tmpl.sglen);
	fflush(stdout);
	for (int i = optind; i < argc; i++) {
		struct usbtest_param_64 p = tmpl;
		int status = 0, r;
		double secs = 0;

		p.test_num = (uint32_t)strtoul(argv[i], NULL, 10);
		r = run_case(fd, ifno, &p, timeout_s, &status, &secs);
		printf("usbtest case %u: %s (status %d, %.2f s)\n", p.test_num, names[r],
		       status, secs);
		fflush(stdout);
		if (r == 1 || r == 3)
			failed = 1;
		if (r == 3)
			break;	/* the device is wedged: later cases would hang too */
	}
	close(fd);
	return failed;

usage:
	fprintf(stderr, "usage: usbtest_run [-d VID:PID] [-i IFNO] [-n ITER] [-l LEN] "
		"[-v VARY] [-g SGLEN] [-t SECS] CASE...\n");
	return 2;
}
