/*
 * ends_posix.c - composite-gadgetd's gadget-side ends (ends.h): a pty per
 * acm function, FIFOs per hid function, a TAP interface per ecm or ncm
 * function, made from a scheme's instances before it is bound and started
 * on its functions after. Owns the adapters and the busid's run folder;
 * touches the scheme only through composite/scheme.h and the instances'
 * options (their ops and ctx). Status lines go to stdout, failures to
 * stderr, each prefixed with the program's name.
 * POSIX: mkdir, lstat, unlink, rmdir; TAP interfaces where
 * GADGETD_HAVE_TAP (Linux).
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "composite/acm_pty.h"
#include "composite/errors.h"
#include "composite/ether.h"
#include "composite/hidg.h"
#include "composite/net_tap.h"
#include "ends.h"

static const char prog[] = "composite-gadgetd";

enum end_kind { END_ACM, END_HID, END_NET };

struct end {
	enum end_kind kind;
	char *name;		/* TYPE.INSTANCE */
	char *label;		/* the function's label in the scheme */
	char *place;		/* what the user opens; NULL: not made */
	struct acm_pty *pty;
	struct hidg *hid;
	struct net_tap *tap;
};

struct gadgetd_ends {
	char *busid;
	char *dir;		/* RUN_DIR/BUSID; NULL until made */
	struct end *v;
	unsigned n, cap;
};

static int kind_of(const char *type, enum end_kind *kind)
{
	if (!strcmp(type, "acm"))
		*kind = END_ACM;
	else if (!strcmp(type, "hid"))
		*kind = END_HID;
	else if (!strcmp(type, "ecm") || !strcmp(type, "ncm"))
		*kind = END_NET;
	else
		return -1;
	return 0;
}

static char *joined(const char *a, const char *sep, const char *b)
{
	size_t n = strlen(a) + strlen(sep) + strlen(b) + 1;
	char *s = malloc(n);

	if (s)
		snprintf(s, n, "%s%s%s", a, sep, b);
	return s;
}

/* mkdir @path unless it is a folder already. Return 0 or -errno. */
static int make_dir(const char *path)
{
	struct stat st;

	if (mkdir(path, 0755) == 0 || (errno == EEXIST && stat(path, &st) == 0 &&
					S_ISDIR(st.st_mode)))
		return 0;
	return errno == EEXIST ? -USB_EEXIST : -errno;	/* EEXIST: no folder */
}

/* The busid's folder under @run_dir, made once for the first file end. */
static int busid_dir(struct gadgetd_ends *e, const char *run_dir)
{
	int rc;

	if (e->dir)
		return 0;
	rc = make_dir(run_dir);
	if (rc == 0) {
		e->dir = joined(run_dir, "/", e->busid);
		rc = e->dir ? make_dir(e->dir) : -USB_ENOMEM;
	}
	if (rc < 0) {
		free(e->dir);
		e->dir = NULL;
	}
	return rc;
}

/* A FIFO a daemon that died left at @path: hidg would use it and, as it
 * did not make it, leave it behind at removal. */
static void remove_stale_fifo(const char *path)
{
	struct stat st;

	if (lstat(path, &st) == 0 && S_ISFIFO(st.st_mode))
		(void)unlink(path);
}

static int make_acm(struct end *x, struct usb_function_instance *fi, const char *path)
{
	struct f_acm_opts *o = f_acm_opts_from_instance(fi);
	int rc;

	o->ops = NULL;
	o->ctx = NULL;
	rc = acm_pty_create(&x->pty, o, path);
	if (rc == 0)
		x->place = strdup(path);
	return rc;
}

static int make_hid(struct end *x, struct usb_function_instance *fi, const char *path)
{
	struct f_hid_opts *o = f_hid_opts_from_instance(fi);
	char *out = joined(path, "", ".out");
	int rc = out ? 0 : -USB_ENOMEM;

	o->ops = NULL;
	o->ctx = NULL;
	if (rc == 0) {
		remove_stale_fifo(path);
		remove_stale_fifo(out);
		rc = hidg_create(&x->hid, o, path, out);
	}
	if (rc == 0)
		x->place = strdup(path);
	free(out);
	return rc;
}

static int make_net(struct end *x, struct usb_function_instance *fi)
{
	struct usb_net_opts *o = usb_net_opts_from_instance(fi);

	o->ops = NULL;
	o->ctx = NULL;
#ifdef GADGETD_HAVE_TAP
	int rc = net_tap_create(&x->tap, o->ifname, o->dev_addr, &o->ops, &o->ctx);

	if (rc == 0)
		x->place = strdup(net_tap_name(x->tap));
	return rc;
#else
	(void)x;
	return -USB_EOPNOTSUPP;	/* no TAP interfaces on this system */
#endif
}

/* The log line of an end made. */
static void announce(const struct gadgetd_ends *e, const struct end *x)
{
	printf("%s: %s: %s: ", prog, e->busid, x->name);
	if (x->kind == END_ACM)
		printf("%s -> %s\n", x->place, acm_pty_path(x->pty));
	else if (x->kind == END_HID)
		printf("input reports to %s, output reports from %s.out\n", x->place, x->place);
	else
		printf("TAP interface %s (down: ip link set %s up)\n", x->place, x->place);
	fflush(stdout);
}

static void report_failure(const struct gadgetd_ends *e, const struct end *x,
			   const char *what, int rc)
{
	const char *hint = "";

	if (x->kind == END_NET && (rc == -USB_EPERM || rc == -USB_ENOENT))
		hint = " (a TAP interface needs /dev/net/tun and CAP_NET_ADMIN)";
	else if (x->kind != END_NET)
		hint = " (see --run-dir)";
	fprintf(stderr, "%s: %s: function %s (%s): no %s: %s%s; the host sees the function, "
		"its data goes nowhere\n", prog, e->busid, x->label, x->name, what,
		usb_strerror(rc), hint);
}

/* Make the end of one function; a failure is reported, not returned. */
static int make_end(struct gadgetd_ends *e, const char *run_dir, struct end *x,
		    struct usb_function_instance *fi, const char *instance)
{
	static const char *const what[] = { "pseudo-terminal", "report FIFOs", "TAP interface" };
	char *path = NULL;
	int rc = 0;

	if (x->kind != END_NET) {
		if (!instance[0] || instance[0] == '.' || strchr(instance, '/'))
			rc = -USB_EINVAL;	/* not a file name of its own */
		if (rc == 0)
			rc = busid_dir(e, run_dir);
		if (rc == 0)
			path = joined(e->dir, "/", x->name);
		if (rc == 0 && !path)
			rc = -USB_ENOMEM;
	}
	if (rc == 0)
		rc = x->kind == END_ACM ? make_acm(x, fi, path)
		   : x->kind == END_HID ? make_hid(x, fi, path) : make_net(x, fi);
	if (rc == 0 && !x->place)
		rc = -USB_ENOMEM;
	if (rc == 0)
		announce(e, x);
	else
		report_failure(e, x, what[x->kind], rc);
	free(path);
	return rc == -USB_ENOMEM ? rc : 0;
}

struct create_ctx {
	struct gadgetd_ends *e;
	const char *run_dir;
};

static int add_end(void *ctx, const struct gadget_scheme_function *f)
{
	struct create_ctx *c = ctx;
	struct gadgetd_ends *e = c->e;
	enum end_kind kind;
	struct end *x;

	if (!f->links || kind_of(f->type, &kind) < 0)
		return 0;
	if (e->n == e->cap) {
		unsigned cap = e->cap ? 2 * e->cap : 4;
		struct end *v = realloc(e->v, cap * sizeof(*v));

		if (!v)
			return -USB_ENOMEM;
		e->v = v;
		e->cap = cap;
	}
	x = &e->v[e->n];
	*x = (struct end){ .kind = kind, .name = joined(f->type, ".", f->instance),
			   .label = strdup(f->label) };
	e->n++;
	if (!x->name || !x->label)
		return -USB_ENOMEM;
	return make_end(e, c->run_dir, x, f->fi, f->instance);
}

int gadgetd_ends_create(struct gadget_scheme *s, const char *run_dir, const char *busid,
			struct gadgetd_ends **out)
{
	struct gadgetd_ends *e = calloc(1, sizeof(*e));
	struct create_ctx c = { e, run_dir };
	int rc = -USB_ENOMEM;

	*out = NULL;
	if (e)
		e->busid = strdup(busid);
	if (e && e->busid)
		rc = gadget_scheme_for_each_function(s, add_end, &c);
	if (rc < 0) {
		fprintf(stderr, "%s: %s: out of memory\n", prog, busid);
		gadgetd_ends_destroy(e);
		return rc;
	}
	*out = e;
	return 0;
}

static struct end *by_label(struct gadgetd_ends *e, const char *label)
{
	for (unsigned i = 0; i < e->n; i++)
		if (!strcmp(e->v[i].label, label))
			return &e->v[i];
	return NULL;
}

/* Start @x on @f, one of the functions made of its instance. */
static int start_on(struct end *x, struct usb_function *f)
{
	if (x->pty)
		return acm_pty_start(x->pty, f);
	if (x->hid)
		return hidg_start(x->hid, f);
#ifdef GADGETD_HAVE_TAP
	if (x->tap)
		return net_tap_start(x->tap, f);
#endif
	return 0;
}

/* An end follows its function into every configuration linking it: the
 * host, not the scheme, picks the configuration. */
static int start_end(void *ctx, const struct gadget_scheme_function *f)
{
	struct gadgetd_ends *e = ctx;
	struct end *x = by_label(e, f->label);
	int rc = 0;

	if (!x || !x->place)
		return 0;
	for (unsigned i = 0; rc == 0 && i < f->n_made; i++)
		rc = start_on(x, f->made[i]);
	if (rc < 0)
		fprintf(stderr, "%s: %s: function %s (%s): cannot start moving data: %s\n", prog,
			e->busid, x->label, x->name, usb_strerror(rc));
	return 0;
}

void gadgetd_ends_start(struct gadgetd_ends *e, struct gadget_scheme *s)
{
	if (e)
		(void)gadget_scheme_for_each_function(s, start_end, e);
	fflush(stderr);
}

int gadgetd_ends_describe(const struct gadgetd_ends *e, char *buf, size_t size)
{
	size_t len = 0;

	if (!size)
		return -USB_ENOSPC;
	buf[0] = '\0';
	for (unsigned i = 0; e && i < e->n; i++) {
		const struct end *x = &e->v[i];
		int n = snprintf(buf + len, size - len, "\t%s=%s", x->name,
				 x->place ? x->place : "-");

		if (n < 0 || (size_t)n >= size - len) {
			buf[len] = '\0';
			return -USB_ENOSPC;
		}
		len += (size_t)n;
	}
	return (int)len;
}

void gadgetd_ends_destroy(struct gadgetd_ends *e)
{
	if (!e)
		return;
	for (unsigned i = 0; i < e->n; i++) {
		struct end *x = &e->v[i];

		acm_pty_destroy(x->pty);
		hidg_destroy(x->hid);
#ifdef GADGETD_HAVE_TAP
		net_tap_destroy(x->tap);
#endif
		free(x->name);
		free(x->label);
		free(x->place);
	}
	if (e->dir)
		(void)rmdir(e->dir);	/* fails, as it should, if a user put files there */
	free(e->dir);
	free(e->v);
	free(e->busid);
	free(e);
}
