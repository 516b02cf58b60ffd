/*
 * gadgetfs_udc_posix.c - the gadgetfs backend (composite/gadgetfs_udc.h):
 * finds or mounts gadgetfs, finds the controller's ep0 file, learns the
 * controller's endpoints, registers the UDC, writes the bound device's
 * descriptors at start and starts the event thread (gadgetfs_ep0_posix.c),
 * stops it and unbinds at stop. Owns the ep0 file, the wake pipe and the
 * thread's lifetime; the endpoint files are gadgetfs_ep_posix.c's. Linux
 * only.
 */
#define _GNU_SOURCE

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <mntent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gadgetfs_priv.h"

/* ---- messages ---------------------------------------------------------- */

void gfs__log(struct usb_gadgetfs_udc *udc, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	if (!udc->cfg.log)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	udc->cfg.log(udc->cfg.log_ctx, line);
}

static int fail(struct usb_gadgetfs_udc *udc, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct usb_gadgetfs_udc *udc, int rc, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	gfs__log(udc, "gadgetfs: %s", line);
	return rc;
}

/* ---- finding gadgetfs and the controller --------------------------------- */

/* The first gadgetfs mount, or "" (getmntent parses /proc/mounts). */
static void mounted_at(char *out, size_t cap, const char *want)
{
	FILE *f = setmntent("/proc/mounts", "r");
	struct mntent *m;

	out[0] = '\0';
	if (!f)
		return;
	while ((m = getmntent(f)))
		if (!strcmp(m->mnt_type, "gadgetfs") && (!want || !strcmp(m->mnt_dir, want))) {
			snprintf(out, cap, "%s", m->mnt_dir);
			break;
		}
	endmntent(f);
}

/* gadgetfs is registered (its module loaded): /proc/filesystems names it. */
static bool gadgetfs_registered(void)
{
	FILE *f = fopen("/proc/filesystems", "r");
	char line[128];
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, "\tgadgetfs\n") != NULL;
	fclose(f);
	return found;
}

static int find_mount(struct usb_gadgetfs_udc *udc)
{
	const char *want = udc->cfg.mount_point;
	const char *dir = want ? want : USB_GADGETFS_MOUNT_DEFAULT;

	mounted_at(udc->mount, sizeof(udc->mount), want);
	if (udc->mount[0])
		return 0;
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return fail(udc, -errno, "cannot create mount point %s: %s", dir, strerror(errno));
	if (mount("gadgetfs", dir, "gadgetfs", 0, NULL) < 0) {
		int e = errno;

		if (e == ENODEV && !gadgetfs_registered())
			return fail(udc, -USB_ENODEV, "the kernel has no gadgetfs (modprobe gadgetfs)");
		if (e == ENODEV)
			return fail(udc, -USB_ENODEV,
				    "gadgetfs found no free controller to mount for (load the UDC "
				    "driver, e.g. modprobe dummy_hcd; unbind configfs gadgets)");
		if (e == EPERM || e == EACCES)
			return fail(udc, -e, "mounting gadgetfs on %s: %s (run as root, or mount it first)",
				    dir, strerror(e));
		return fail(udc, -e, "mounting gadgetfs on %s: %s%s", dir, strerror(e),
			    e == EBUSY ? " (mounted elsewhere already?)" : "");
	}
	snprintf(udc->mount, sizeof(udc->mount), "%s", dir);
	gfs__log(udc, "gadgetfs: mounted gadgetfs on %s", dir);
	return 0;
}

/* An endpoint file ("ep1in-bulk", dwc2's "ep1in", dummy_hcd's "ep-aout"). */
static bool is_ep_file(const char *n)
{
	return n[0] == 'e' && n[1] == 'p' && ((n[2] >= '0' && n[2] <= '9') || n[2] == '-');
}



/* @want names the controller by its gadgetfs file ("dummy_udc") or by
 * its UDC name ("dummy_udc.0", the file's name plus ".N"). */
static bool name_matches(const char *file, const char *want)
{
	size_t n = strlen(file);

	if (!strcmp(file, want))
		return true;
	if (strncmp(file, want, n) || want[n] != '.' || !want[n + 1])
		return false;
	for (const char *p = want + n + 1; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	return true;
}

/* The ep0 file (the controller gadgetfs took when it was mounted). */
static int find_ep0(struct usb_gadgetfs_udc *udc)
{
	const char *want = udc->cfg.udc && udc->cfg.udc[0] ? udc->cfg.udc : NULL;
	DIR *d = opendir(udc->mount);
	struct dirent *de;
	bool busy = false;

	if (!d)
		return fail(udc, -errno, "cannot list %s: %s", udc->mount, strerror(errno));
	udc->name[0] = '\0';
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (is_ep_file(de->d_name))
			busy = true;	/* endpoint files: a program has it bound */
		else if (!udc->name[0] && strlen(de->d_name) < sizeof(udc->name))
			memcpy(udc->name, de->d_name, strlen(de->d_name) + 1);
	}
	closedir(d);
	if (!udc->name[0])
		return fail(udc, -USB_ENODEV,
			    "%s has no controller file: no free UDC when gadgetfs was mounted "
			    "(load the controller driver, e.g. modprobe dummy_hcd, then remount)",
			    udc->mount);
	if (want && !name_matches(udc->name, want))
		return fail(udc, -USB_ENODEV,
			    "gadgetfs on %s serves controller %s, not %s (gadgetfs takes the first "
			    "free UDC when it is mounted; free %s and remount)",
			    udc->mount, udc->name, want, want);
	if (busy)
		return fail(udc, -USB_EBUSY, "controller %s is in use: another program has %s/%s open",
			    udc->name, udc->mount, udc->name);
	snprintf(udc->ep0_path, sizeof(udc->ep0_path), "%s/%s", udc->mount, udc->name);
	return 0;
}

static int open_ep0(struct usb_gadgetfs_udc *udc)
{
	/* Non-blocking: an OUT request's data is polled for
	 * (gadgetfs_ep0_posix.c, ep0_read_data()); events are read after
	 * poll() says there are some. */
	int fd = open(udc->ep0_path, O_RDWR | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return fail(udc, -errno, "cannot open %s: %s%s", udc->ep0_path, strerror(errno),
			    errno == EBUSY ? " (another program has the controller)" : "");
	return fd;
}

static int write_ep0_config(struct usb_gadgetfs_udc *udc, int fd, const void *buf, size_t len)
{
	ssize_t n = write(fd, buf, len);

	if (n == (ssize_t)len)
		return 0;
	if (n >= 0)
		return fail(udc, -USB_EIO, "short write of the descriptors to %s", udc->ep0_path);
	return fail(udc, -errno, "%s refused the descriptors: %s%s", udc->ep0_path, strerror(errno),
		    errno == EBUSY || errno == ENODEV
			    ? " (is the controller bound to another gadget driver?)" : "");
}

/* ---- learning the endpoints ------------------------------------------------ */

/* One endpoint from its file name "ep<n>[in|out][-bulk|-iso|-int]", or
 * dummy_hcd's "ep-<letter>in|out" (any number and type: the core picks the
 * number, which dummy_hcd takes from the descriptor). */
static void ep_from_name(struct gfs_ep *e, const char *name)
{
	const char *p = name + 2, *dash;
	struct usb_ep_caps caps = { 0 };

	snprintf(e->name, sizeof(e->name), "%s", name);
	if (*p == '-' && p[1])
		p += 2;
	while (*p >= '0' && *p <= '9')
		p++;
	caps.dir_in = strncmp(p, "out", 3) != 0;
	caps.dir_out = strncmp(p, "in", 2) != 0;
	dash = strchr(p, '-');
	if (!dash) {
		caps.type_bulk = caps.type_int = caps.type_iso = 1;
	} else {
		caps.type_bulk = !strcmp(dash, "-bulk");
		caps.type_int = !strcmp(dash, "-int");
		caps.type_iso = !strcmp(dash, "-iso");
	}
	usb_ep_init(&e->ep);
	e->ep.name = e->name;
	e->ep.caps = caps;
	e->ep.ops = &gfs__ep_ops;
	usb_ep_set_maxpacket_limit(&e->ep, caps.type_bulk && !caps.type_int && !caps.type_iso
					   ? 512 : 1024);
	e->fd = -1;
	e->parked_fd = -1;
	INIT_LIST_HEAD(&e->inflight);
	INIT_LIST_HEAD(&e->orphaned);
	pthread_mutex_init(&e->submit, NULL);
	pthread_cond_init(&e->writer_cond, NULL);
}

/* gadgetfs makes the endpoint files only while bound: bind once with an
 * empty configuration, list them, and close (the host may see a device
 * come and go). */
static int probe_eps(struct usb_gadgetfs_udc *udc)
{
	static const uint8_t config[9] = { 9, USB_DT_CONFIG, 9, 0, 0, 1, 0, 0x80, 1 };
	static const uint8_t device[18] = { 18, USB_DT_DEVICE, 0x00, 0x02, 0, 0, 0, 64,
					    0x6b, 0x1d, 0x00, 0x01, 0, 0, 0, 0, 0, 1 };
	uint8_t buf[4 + 9 + 9 + 18] = { 0 };
	struct dirent *de;
	DIR *d;
	int fd, rc;

	memcpy(buf + 4, config, 9);
	memcpy(buf + 13, config, 9);
	memcpy(buf + 22, device, 18);
	fd = open_ep0(udc);
	if (fd < 0)
		return fd;
	rc = write_ep0_config(udc, fd, buf, sizeof(buf));
	if (rc < 0) {
		close(fd);
		return rc;
	}
	d = opendir(udc->mount);
	if (!d) {
		rc = fail(udc, -errno, "cannot list %s: %s", udc->mount, strerror(errno));
		close(fd);
		return rc;
	}
	while ((de = readdir(d)) && udc->neps < GFS_MAX_EPS)
		if (is_ep_file(de->d_name) && strlen(de->d_name) < sizeof(udc->eps[0].name))
			ep_from_name(&udc->eps[udc->neps++], de->d_name);
	closedir(d);
	close(fd);
	if (!udc->neps)
		return fail(udc, -USB_ENODEV, "controller %s shows no endpoint files", udc->name);
	snprintf(udc->probe_ep, sizeof(udc->probe_ep), "%s", udc->eps[0].name);
	udc->small_in_sync = !strcmp(udc->name, "dummy_udc");
	/* dummy_hcd moves no isochronous data: offer no endpoint for it
	 * (functions then leave their isochronous settings out). */
	for (unsigned i = 0; udc->small_in_sync && i < udc->neps; i++)
		udc->eps[i].ep.caps.type_iso = 0;
	return 0;
}

/* ---- gadget ops -------------------------------------------------------- */

/* tag 0, full speed and high speed configurations, device descriptor. */
static int build_descriptors(struct usb_gadgetfs_udc *udc, uint8_t *buf, size_t cap)
{
	struct usb_gadget *g = &udc->gadget;
	struct usb_device_descriptor dd;
	size_t off = 4;
	int n;

	memset(buf, 0, 4);
	n = usb_gadget_config_count(g);
	if (n < 0)
		return n;
	if (n != 1)
		return fail(udc, -USB_EOPNOTSUPP,
			    "the device has %d configurations; gadgetfs serves exactly one", n);
	/* Full speed only (max_speed lowered by the program): no high speed
	 * configuration, so gadgetfs binds as a full-speed driver. */
	for (int hs = 0; hs < (g->max_speed >= USB_SPEED_HIGH ? 2 : 1); hs++) {
		struct usb_config_descriptor *c = (void *)(buf + off);

		n = usb_gadget_config_descriptor(g, 0, hs ? USB_SPEED_HIGH : USB_SPEED_FULL,
						 buf + off, cap - off - sizeof(dd));
		if (n < 0)
			return fail(udc, n, "the %s speed configuration: %s", hs ? "high" : "full",
				    usb_strerror(n));
		if (c->bmAttributes & USB_CONFIG_ATT_WAKEUP)
			return fail(udc, -USB_EOPNOTSUPP,
				    "the configuration asks for remote wakeup, which gadgetfs refuses");
		off += (size_t)n;
	}
	n = usb_gadget_device_descriptor(g, &dd);
	if (n < 0)
		return n;
	memcpy(buf + off, &dd, sizeof(dd));
	return (int)(off + sizeof(dd));
}

static int gfs_start(struct usb_gadget *g)
{
	struct usb_gadgetfs_udc *udc = gfs_udc_of(g);
	uint8_t buf[4 * 4096];
	int len, rc;

	len = build_descriptors(udc, buf, sizeof(buf));
	if (len < 0)
		return len;
	udc->ep0_fd = open_ep0(udc);
	if (udc->ep0_fd < 0)
		return udc->ep0_fd;
	rc = write_ep0_config(udc, udc->ep0_fd, buf, (size_t)len);
	if (rc < 0)
		goto fail;
	udc->stopping = false;
	udc->error = 0;
	udc->connected = false;
	udc->ep0_state = GFS_EP0_IDLE;
	rc = -pthread_create(&udc->thread, NULL, gfs__event_thread, udc);
	if (rc < 0) {
		fail(udc, rc, "cannot start the event thread");
		goto fail;
	}
	udc->thread_running = true;
	return 0;
fail:
	close(udc->ep0_fd);	/* unbinds: the host sees the device go */
	udc->ep0_fd = -1;
	return rc;
}

static void gfs_stop(struct usb_gadget *g)
{
	struct usb_gadgetfs_udc *udc = gfs_udc_of(g);

	pthread_mutex_lock(&udc->lock);
	udc->stopping = true;
	pthread_mutex_unlock(&udc->lock);
	if (udc->thread_running) {
		gfs__kick(udc);
		pthread_join(udc->thread, NULL);
		udc->thread_running = false;
	}
	gfs__ep0_abort(udc, -USB_ESHUTDOWN);
	/* Closing ep0 unbinds gadgetfs: the controller disconnects and
	 * finishes every transfer, which disable() then reaps. */
	if (udc->ep0_fd >= 0)
		close(udc->ep0_fd);
	udc->ep0_fd = -1;
	udc->connected = false;
	udc->gadget.speed = USB_SPEED_UNKNOWN;
}

static const struct usb_gadget_ops gfs_gadget_ops = {
	.start = gfs_start,
	.stop = gfs_stop,
};

/* ---- create / destroy -------------------------------------------------- */

static int setup_gadget(struct usb_gadgetfs_udc *udc)
{
	usb_gadget_init(&udc->gadget);
	udc->gadget.ops = &gfs_gadget_ops;
	udc->gadget.name = udc->name;
	udc->gadget.max_speed = USB_SPEED_HIGH;	/* gadgetfs's most */
	usb_ep_init(&udc->ep0.ep);
	udc->ep0.udc = udc;
	snprintf(udc->ep0.name, sizeof(udc->ep0.name), "ep0");
	udc->ep0.ep.name = udc->ep0.name;
	udc->ep0.ep.ops = &gfs__ep0_ops;
	udc->ep0.ep.caps.type_control = 1;
	udc->ep0.ep.caps.dir_in = udc->ep0.ep.caps.dir_out = 1;
	udc->ep0.fd = -1;
	udc->ep0.parked_fd = -1;
	INIT_LIST_HEAD(&udc->ep0.inflight);
	INIT_LIST_HEAD(&udc->ep0.orphaned);
	pthread_mutex_init(&udc->ep0.submit, NULL);
	usb_ep_set_maxpacket_limit(&udc->ep0.ep, 64);
	udc->gadget.ep0 = &udc->ep0.ep;
	for (unsigned i = 0; i < udc->neps; i++) {
		udc->eps[i].udc = udc;
		list_add_tail(&udc->eps[i].ep.ep_list, &udc->gadget.ep_list);
	}
	return usb_udc_register(&udc->gadget);
}

int usb_gadgetfs_udc_create(const struct usb_gadgetfs_udc_config *config,
			    struct usb_gadgetfs_udc **out)
{
	struct usb_gadgetfs_udc *udc;
	int rc;

	if (!out)
		return -USB_EINVAL;
	*out = NULL;
	udc = calloc(1, sizeof(*udc));
	if (!udc)
		return -USB_ENOMEM;
	if (config)
		udc->cfg = *config;
	udc->ep0_fd = udc->aio_efd = udc->wake[0] = udc->wake[1] = -1;
	pthread_mutex_init(&udc->lock, NULL);
	pthread_cond_init(&udc->reaped, NULL);
	if (pipe2(udc->wake, O_CLOEXEC | O_NONBLOCK) < 0) {
		rc = -errno;
		goto fail;
	}
	rc = find_mount(udc);
	if (rc == 0)
		rc = find_ep0(udc);
	if (rc == 0)
		rc = probe_eps(udc);
	if (rc == 0) {
		rc = gfs__aio_init(udc);
		if (rc < 0)
			fail(udc, rc, "Linux AIO unavailable: %s", usb_strerror(rc));
	}
	if (rc == 0) {
		rc = setup_gadget(udc);
		if (rc < 0)
			fail(udc, rc, "cannot register UDC %s: %s", udc->name, usb_strerror(rc));
	}
	if (rc < 0)
		goto fail;
	udc->registered = true;
	*out = udc;
	return 0;
fail:
	usb_gadgetfs_udc_destroy(udc);
	return rc;
}

void usb_gadgetfs_udc_destroy(struct usb_gadgetfs_udc *udc)
{
	if (!udc)
		return;
	if (udc->registered)
		usb_udc_unregister(&udc->gadget);
	for (unsigned i = 0; i < udc->neps; i++)
		gfs__stop_writer(&udc->eps[i]);
	for (unsigned i = 0; i < udc->neps; i++) {
		if (udc->eps[i].fd >= 0)
			close(udc->eps[i].fd);
		if (udc->eps[i].parked_fd >= 0)
			close(udc->eps[i].parked_fd);
	}
	if (udc->ep0_fd >= 0)
		close(udc->ep0_fd);
	gfs__aio_exit(udc);	/* the kernel holds no transfer now */
	for (unsigned i = 0; i < udc->neps; i++)
		gfs__free_orphans(&udc->eps[i]);
	if (udc->wake[0] >= 0)
		close(udc->wake[0]);
	if (udc->wake[1] >= 0)
		close(udc->wake[1]);
	for (unsigned i = 0; i < udc->neps; i++)
	{
		pthread_mutex_destroy(&udc->eps[i].submit);
		pthread_cond_destroy(&udc->eps[i].writer_cond);
	}
	pthread_mutex_destroy(&udc->ep0.submit);
	pthread_cond_destroy(&udc->reaped);
	pthread_mutex_destroy(&udc->lock);
	free(udc);
}

struct usb_gadget *usb_gadgetfs_udc_gadget(struct usb_gadgetfs_udc *udc)
{
	return udc ? &udc->gadget : NULL;
}

const char *usb_gadgetfs_udc_mount_point(struct usb_gadgetfs_udc *udc)
{
	return udc ? udc->mount : NULL;
}

int usb_gadgetfs_udc_error(struct usb_gadgetfs_udc *udc)
{
	return udc ? __atomic_load_n(&udc->error, __ATOMIC_ACQUIRE) : -USB_EINVAL;
}
