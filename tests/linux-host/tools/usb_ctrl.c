/*
 * usb_ctrl.c - one control transfer from the guest's real USB host stack
 * (usbfs), for the linux-host cases to ask what no host tool asks:
 *
 *	usb_ctrl DEVNODE bmRequestType bRequest wValue wIndex wLength
 *	usb_ctrl DEVNODE reset
 *
 * DEVNODE is /dev/bus/usb/BBB/DDD; numbers in C notation. An IN reply is
 * printed as hex bytes on one line. "reset" resets the device's port
 * (USBDEVFS_RESET: the hub drives a bus reset, the host enumerates the
 * device again). Exit 0 on success, 2 when the device stalled (EPIPE), 1
 * on any other error (with the reason on stderr).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/usbdevice_fs.h>

static int number(const char *s, unsigned long max, unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(s, &end, 0);
	return errno || end == s || *end || *out > max ? -1 : 0;
}

/* A bus reset of the device's port, as usbreset does. */
static int port_reset(const char *node)
{
	int fd = open(node, O_RDWR);

	if (fd < 0) {
		fprintf(stderr, "usb_ctrl: %s: %s\n", node, strerror(errno));
		return 1;
	}
	if (ioctl(fd, USBDEVFS_RESET, 0) < 0) {
		fprintf(stderr, "usb_ctrl: reset %s: %s\n", node, strerror(errno));
		close(fd);
		return 1;
	}
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long v[5];
	unsigned char data[65535];
	struct usbdevfs_ctrltransfer ct;
	int fd, n, i;

	if (argc == 3 && !strcmp(argv[2], "reset"))
		return port_reset(argv[1]);
	if (argc != 7) {
		fprintf(stderr, "usage: usb_ctrl DEVNODE bmRequestType bRequest wValue wIndex wLength\n"
				"       usb_ctrl DEVNODE reset\n");
		return 1;
	}
	for (i = 0; i < 5; i++)
		if (number(argv[i + 2], i < 2 ? 0xff : 0xffff, &v[i])) {
			fprintf(stderr, "usb_ctrl: %s: not a number in range\n", argv[i + 2]);
			return 1;
		}
	fd = open(argv[1], O_RDWR);
	if (fd < 0) {
		fprintf(stderr, "usb_ctrl: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	memset(&ct, 0, sizeof(ct));
	memset(data, 0, sizeof(data));
	ct.bRequestType = (unsigned char)v[0];
	ct.bRequest = (unsigned char)v[1];
	ct.wValue = (unsigned short)v[2];
	ct.wIndex = (unsigned short)v[3];
	ct.wLength = (unsigned short)v[4];
	ct.timeout = 5000;
	ct.data = data;
	n = ioctl(fd, USBDEVFS_CONTROL, &ct);
	if (n < 0) {
		int e = errno;

		fprintf(stderr, "usb_ctrl: control transfer: %s\n", strerror(e));
		close(fd);
		return e == EPIPE ? 2 : 1;
	}
	close(fd);
	if (ct.bRequestType & 0x80) {
		for (i = 0; i < n; i++)
			printf("%s%02x", i ? " " : "", data[i]);
		printf("\n");
	}
	return 0;
}
