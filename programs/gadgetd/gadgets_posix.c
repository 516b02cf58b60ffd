/*
 * gadgets_posix.c - composite-gadgetd's served gadgets (gadgets.h): the
 * slots of the USB/IP server's devices, the schemes bound there and the
 * one-writer rule on their backing files; the control socket's requests
 * and SIGHUP's reload act here. Owns the schemes it was given and their
 * gadget-side ends (ends.h); touches the UDCs only through struct
 * gadgetd_udcs and composite/scheme.h. Status lines go to stdout,
 * refusals to stderr, each prefixed with the program's name.
 * POSIX: realpath, open_memstream, pthread mutexes.
 */
#define _XOPEN_SOURCE 700	/* realpath, open_memstream */

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "composite/errors.h"
#include "ends.h"
#include "gadgets.h"

static const char prog[] = "composite-gadgetd";

#define PEER_MAX 64

struct slot {
	struct gadget_scheme *scheme;	/* NULL: the busid is free */
	char *path;			/* the scheme file as given, owned */
	char *export;			/* its export when loaded (NULL: unknown), owned */
	bool given;			/* one of the command line's schemes */
	struct gadgetd_ends *ends;	/* while bound, owned */
	char peer[PEER_MAX];		/* under attach_lock; "" while detached */
};

struct gadgetd_gadgets {
	const struct gadgetd_udcs *udcs;
	char *run_dir;			/* where the ends' files go, owned */
	pthread_mutex_t lock;		/* the slots, their peer aside */
	pthread_mutex_t attach_lock;	/* every slot's peer */
	unsigned n;
	struct slot *slots;
};

/* ---- one file, one writer -------------------------------------------------- */

struct lun_use {
	char *path;		/* realpath of the file, or the file as given */
	bool ro, own;		/* own: a LUN of the scheme being checked */
	char *label;
	unsigned index;
	char *scheme_file;
	int line;
};

struct lun_uses {
	struct lun_use *v;
	unsigned n, cap;
	bool own;		/* what collect_lun() marks the next ones */
};

static char *resolved(const char *file)
{
	char *path = realpath(file, NULL);

	return path ? path : strdup(file);
}

static int collect_lun(void *ctx, const struct gadget_scheme_lun *lun)
{
	struct lun_uses *u = ctx;
	struct lun_use *e;

	if (u->n == u->cap) {
		unsigned cap = u->cap ? 2 * u->cap : 16;
		struct lun_use *v = realloc(u->v, cap * sizeof(*v));

		if (!v)
			return -USB_ENOMEM;
		u->v = v;
		u->cap = cap;
	}
	e = &u->v[u->n];
	*e = (struct lun_use){ .path = resolved(lun->file), .ro = lun->ro, .own = u->own,
			       .label = strdup(lun->label), .index = lun->index,
			       .scheme_file = strdup(lun->scheme_file), .line = lun->line };
	u->n++;
	return e->path && e->label && e->scheme_file ? 0 : -USB_ENOMEM;
}

static void free_uses(struct lun_uses *u)
{
	for (unsigned i = 0; i < u->n; i++) {
		free(u->v[i].path);
		free(u->v[i].label);
		free(u->v[i].scheme_file);
	}
	free(u->v);
}

static int report_clashes(const struct lun_uses *u, gadgetd_report_fn report, void *ctx)
{
	char line[1024];
	int clashes = 0;

	for (unsigned i = 0; i < u->n; i++)
		for (unsigned k = 0; k < u->n; k++) {
			const struct lun_use *a = &u->v[k], *b = &u->v[i];

			/* each pair once: b is own; a is another's, or own and earlier */
			if (!b->own || (a->own && k >= i) || strcmp(a->path, b->path) ||
			    (a->ro && b->ro))
				continue;
			snprintf(line, sizeof(line), "%s:%d: function %s LUN %u: %s is also served "
				 "by function %s LUN %u (%s:%d), not both read-only",
				 b->scheme_file, b->line, b->label, b->index, a->path, a->label,
				 a->index, a->scheme_file, a->line);
			report(ctx, line);
			clashes++;
		}
	return clashes;
}

int gadgetd_file_conflicts(struct gadget_scheme *s, struct gadget_scheme *const *others,
			   unsigned n, gadgetd_report_fn report, void *ctx)
{
	struct lun_uses u = { .own = true };
	int rc = gadget_scheme_for_each_lun(s, collect_lun, &u);

	u.own = false;
	for (unsigned i = 0; rc == 0 && i < n; i++)
		if (others[i] && others[i] != s)
			rc = gadget_scheme_for_each_lun(others[i], collect_lun, &u);
	if (rc == 0)
		rc = report_clashes(&u, report, ctx);
	free_uses(&u);
	return rc;
}

/* A medium going into LUN @lun of @label in @self: the file may not be
 * one another LUN serves unless both are read-only. */
struct medium_check {
	char *path;
	bool ro;
	struct gadget_scheme *self;
	const char *label;
	unsigned lun;
	struct gadget_scheme *current;
	char *msg;
	size_t size;
};

static int medium_conflict(void *ctx, const struct gadget_scheme_lun *lun)
{
	struct medium_check *m = ctx;
	char *path;
	int clash;

	if (m->current == m->self && !strcmp(lun->label, m->label) && lun->index == m->lun)
		return 0;	/* the medium it replaces */
	path = realpath(lun->file, NULL);
	clash = !strcmp(path ? path : lun->file, m->path) && !(m->ro && lun->ro);
	if (clash)
		snprintf(m->msg, m->size, "%s is served by function %s LUN %u of %s, not both "
			 "read-only", m->path, lun->label, lun->index, lun->scheme_file);
	free(path);
	return clash ? -USB_EBUSY : 0;
}

static int check_medium(struct gadgetd_gadgets *g, struct gadget_scheme *self,
			const char *function, const char *attr, const char *value, char *msg,
			size_t size)
{
	struct medium_check m = { .self = self, .label = function, .msg = msg, .size = size };
	char leaf[16], ro[16], ro_attr[32];
	int rc = 0;

	if (sscanf(attr, "lun.%u/%15s", &m.lun, leaf) != 2 || strcmp(leaf, "file") || !value[0])
		return 0;
	snprintf(ro_attr, sizeof(ro_attr), "lun.%u/ro", m.lun);
	m.ro = gadget_scheme_show_attr(self, function, ro_attr, ro, sizeof(ro)) > 0 && ro[0] == '1';
	m.path = resolved(value);
	if (!m.path)
		return -USB_ENOMEM;
	for (unsigned i = 0; rc == 0 && i < g->n; i++) {
		m.current = g->slots[i].scheme;
		if (m.current)
			rc = gadget_scheme_for_each_lun(m.current, medium_conflict, &m);
	}
	free(m.path);
	return rc;
}

/* ---- the slots ------------------------------------------------------------- */

int gadgetd_gadgets_create(const struct gadgetd_udcs *udcs, const char *run_dir,
			   struct gadgetd_gadgets **out)
{
	struct gadgetd_gadgets *g = calloc(1, sizeof(*g));

	if (!g)
		return -USB_ENOMEM;
	g->udcs = udcs;
	g->n = udcs->n;
	g->slots = calloc(g->n ? g->n : 1, sizeof(*g->slots));
	g->run_dir = strdup(run_dir);
	if (!g->slots || !g->run_dir) {
		free(g->slots);
		free(g->run_dir);
		free(g);
		return -USB_ENOMEM;
	}
	pthread_mutex_init(&g->lock, NULL);
	pthread_mutex_init(&g->attach_lock, NULL);
	*out = g;
	return 0;
}

static const char *busid(const struct gadgetd_gadgets *g, unsigned i)
{
	return g->udcs->name(g->udcs->ctx, i);
}

/* The served gadget at @id: its slot, or -1 with a message. */
static int find(struct gadgetd_gadgets *g, const char *id, char *msg, size_t size)
{
	for (unsigned i = 0; i < g->n; i++)
		if (g->slots[i].scheme && !strcmp(busid(g, i), id))
			return (int)i;
	snprintf(msg, size, "no gadget %.32s", id);
	return -1;
}

static void format_error(const struct gadget_scheme_error *err, char *msg, size_t size)
{
	if (err->line > 0)
		snprintf(msg, size, "%s:%d: %s", err->file, err->line, err->message);
	else
		snprintf(msg, size, "%s: %s", err->file, err->message);
}

/* What gadget_scheme_export() writes of @s (owned), or NULL. */
static char *export_text(struct gadget_scheme *s)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int rc;

	if (!f)
		return NULL;
	rc = gadget_scheme_export(s, f);
	if (fclose(f) != 0 || rc < 0) {
		free(text);
		return NULL;
	}
	return text;
}

struct first_line {
	char *msg;
	size_t size;
	bool taken;
};

static void keep_first(void *ctx, const char *line)
{
	struct first_line *f = ctx;

	if (!f->taken)
		snprintf(f->msg, f->size, "%s", line);
	f->taken = true;
}

/* Make @s's gadget-side ends, bind it at slot @i's busid and start them.
 * Return 0 and *@ends, or the error with its message in @err. */
static int bind_with_ends(struct gadgetd_gadgets *g, unsigned i, struct gadget_scheme *s,
			  struct gadgetd_ends **ends, struct gadget_scheme_error *err)
{
	int rc = gadgetd_ends_create(s, g->run_dir, busid(g, i), ends);

	if (rc < 0) {
		*err = (struct gadget_scheme_error){ .line = 0 };
		snprintf(err->file, sizeof(err->file), "%s", gadget_scheme_name(s));
		snprintf(err->message, sizeof(err->message), "out of memory");
		return rc;
	}
	rc = gadget_scheme_bind(s, busid(g, i), err);
	if (rc < 0) {
		gadgetd_ends_destroy(*ends);
		*ends = NULL;
		return rc;
	}
	gadgetd_ends_start(*ends, s);
	return 0;
}

/* Unbind @s and close its ends (*@ends cleared). */
static void unbind_with_ends(struct gadget_scheme *s, struct gadgetd_ends **ends)
{
	gadget_scheme_unbind(s);	/* a host sees an unplug; the adapters stop */
	gadgetd_ends_destroy(*ends);
	*ends = NULL;
}

/* @s's files against every served gadget's but slot @skip's. */
static int clash(struct gadgetd_gadgets *g, struct gadget_scheme *s, unsigned skip, char *msg,
		 size_t size)
{
	struct gadget_scheme **others = calloc(g->n ? g->n : 1, sizeof(*others));
	struct first_line f = { msg, size, false };
	int rc;

	if (!others) {
		snprintf(msg, size, "out of memory");
		return -USB_ENOMEM;
	}
	for (unsigned i = 0; i < g->n; i++)
		others[i] = i == skip ? NULL : g->slots[i].scheme;
	rc = gadgetd_file_conflicts(s, others, g->n, keep_first, &f);
	free(others);
	if (rc == -USB_ENOMEM)
		snprintf(msg, size, "out of memory");
	return rc > 0 ? -USB_EBUSY : rc;
}

static int adopt_locked(struct gadgetd_gadgets *g, struct gadget_scheme *s, const char *path,
			bool given, char *msg, size_t size)
{
	struct gadget_scheme_error err;
	struct slot *slot;
	unsigned i = 0;
	int rc;

	while (i < g->n && g->slots[i].scheme)
		i++;
	if (i == g->n) {
		snprintf(msg, size, "%s: no free %s (%s)", path, g->udcs->kind, g->udcs->full);
		gadget_scheme_free(s);
		return -USB_ENOSPC;
	}
	slot = &g->slots[i];
	rc = clash(g, s, g->n, msg, size);
	if (rc == 0) {
		slot->path = strdup(path);
		slot->export = export_text(s);
		rc = slot->path ? 0 : -USB_ENOMEM;
		if (rc < 0)
			snprintf(msg, size, "out of memory");
	}
	if (rc == 0) {
		rc = bind_with_ends(g, i, s, &slot->ends, &err);
		if (rc < 0)
			format_error(&err, msg, size);
	}
	if (rc < 0) {
		free(slot->path);
		free(slot->export);
		*slot = (struct slot){ 0 };
		gadget_scheme_free(s);
		return rc;
	}
	slot->scheme = s;
	slot->given = given;
	printf("%s: %s is %s %s\n", prog, path, g->udcs->kind, busid(g, i));
	fflush(stdout);
	return (int)i;
}

int gadgetd_gadgets_adopt(struct gadgetd_gadgets *g, struct gadget_scheme *s, const char *path,
			  bool given, char *msg, size_t size)
{
	int rc;

	pthread_mutex_lock(&g->lock);
	rc = adopt_locked(g, s, path, given, msg, size);
	pthread_mutex_unlock(&g->lock);
	return rc;
}

/* Load @path and serve it; the busid's slot, or a negative error with
 * the message (FILE:LINE: MESSAGE for the scheme's faults). */
static int add_locked(struct gadgetd_gadgets *g, const char *path, bool given, char *msg,
		      size_t size)
{
	struct gadget_scheme_error err;
	struct gadget_scheme *s;
	int rc = gadget_scheme_load_file(path, &s, &err);

	if (rc < 0) {
		format_error(&err, msg, size);
		return rc;
	}
	return adopt_locked(g, s, path, given, msg, size);
}

/* Unbind slot @i (a host sees an unplug), close its files, free it. */
static void remove_locked(struct gadgetd_gadgets *g, unsigned i)
{
	struct slot *slot = &g->slots[i];

	unbind_with_ends(slot->scheme, &slot->ends);
	gadget_scheme_free(slot->scheme);
	free(slot->path);
	free(slot->export);
	pthread_mutex_lock(&g->attach_lock);
	*slot = (struct slot){ 0 };
	pthread_mutex_unlock(&g->attach_lock);
}

/* ---- reload ---------------------------------------------------------------- */

/* Slot @i's file again: the same export leaves it alone; a change is
 * rebound at its busid unless it fails to load, clashes or bind. */
static void reload_one(struct gadgetd_gadgets *g, unsigned i)
{
	struct slot *slot = &g->slots[i];
	char msg[GADGETD_CONTROL_MSG_MAX];
	struct gadget_scheme_error err;
	struct gadget_scheme *fresh;
	char *text;
	int rc = gadget_scheme_load_file(slot->path, &fresh, &err);

	if (rc < 0) {
		format_error(&err, msg, sizeof(msg));
		fprintf(stderr, "%s: %s (%s %s keeps the gadget loaded before)\n", prog, msg,
			g->udcs->kind, busid(g, i));
		return;
	}
	text = export_text(fresh);
	if (text && slot->export && !strcmp(text, slot->export)) {
		free(text);
		gadget_scheme_free(fresh);
		return;		/* unchanged: the gadget and its host untouched */
	}
	rc = clash(g, fresh, i, msg, sizeof(msg));
	if (rc == 0) {
		struct gadgetd_ends *ends = NULL;

		/* The old ends go first: the new ones take their names. */
		unbind_with_ends(slot->scheme, &slot->ends);
		rc = bind_with_ends(g, i, fresh, &ends, &err);
		if (rc < 0) {
			format_error(&err, msg, sizeof(msg));
			if (bind_with_ends(g, i, slot->scheme, &slot->ends, &err) < 0)
				fprintf(stderr, "%s: %s: cannot bind the old gadget again\n", prog,
					busid(g, i));
		} else {
			slot->ends = ends;
		}
	}
	if (rc < 0) {
		fprintf(stderr, "%s: %s (%s %s keeps the gadget loaded before)\n", prog, msg,
			g->udcs->kind, busid(g, i));
		free(text);
		gadget_scheme_free(fresh);
		return;
	}
	gadget_scheme_free(slot->scheme);
	free(slot->export);
	slot->scheme = fresh;
	slot->export = text;
	printf("%s: %s changed: %s %s rebound\n", prog, slot->path, g->udcs->kind, busid(g, i));
}

static bool listed(const char *path, const char *const *paths, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (!strcmp(paths[i], path))
			return true;
	return false;
}

void gadgetd_gadgets_reload(struct gadgetd_gadgets *g, const char *const *paths, unsigned n)
{
	char msg[GADGETD_CONTROL_MSG_MAX];

	pthread_mutex_lock(&g->lock);
	for (unsigned i = 0; i < g->n; i++)
		if (g->slots[i].scheme && g->slots[i].given && !listed(g->slots[i].path, paths, n)) {
			printf("%s: %s is gone: %s %s removed\n", prog, g->slots[i].path,
			       g->udcs->kind, busid(g, i));
			remove_locked(g, i);
		}
	for (unsigned k = 0; k < n; k++) {
		unsigned i;

		for (i = 0; i < g->n; i++)
			if (g->slots[i].scheme && g->slots[i].given &&
			    !strcmp(g->slots[i].path, paths[k]))
				break;
		if (i < g->n)
			reload_one(g, i);
		else if (add_locked(g, paths[k], true, msg, sizeof(msg)) < 0)
			fprintf(stderr, "%s: %s\n", prog, msg);
	}
	pthread_mutex_unlock(&g->lock);
	printf("%s: reloaded\n", prog);
	fflush(stdout);
	fflush(stderr);
}

void gadgetd_gadgets_event(struct gadgetd_gadgets *g, const struct usbip_event *ev)
{
	if (!g || ev->device < 0 || (unsigned)ev->device >= g->n)
		return;
	pthread_mutex_lock(&g->attach_lock);
	if (ev->type == USBIP_EVENT_HOST_CONNECTED)
		snprintf(g->slots[ev->device].peer, PEER_MAX, "%s", ev->peer);
	else if (ev->type == USBIP_EVENT_HOST_DISCONNECTED)
		g->slots[ev->device].peer[0] = '\0';
	pthread_mutex_unlock(&g->attach_lock);
}

void gadgetd_gadgets_destroy(struct gadgetd_gadgets *g)
{
	if (!g)
		return;
	for (unsigned i = 0; i < g->n; i++)
		if (g->slots[i].scheme)
			remove_locked(g, i);
	pthread_mutex_destroy(&g->attach_lock);
	pthread_mutex_destroy(&g->lock);
	free(g->run_dir);
	free(g->slots);
	free(g);
}

/* ---- the control socket's requests ----------------------------------------- */

static int op_list(void *ctx, gadgetd_control_row_fn row, void *row_ctx)
{
	struct gadgetd_gadgets *g = ctx;
	int rc = 0;

	pthread_mutex_lock(&g->lock);
	for (unsigned i = 0; rc == 0 && i < g->n; i++) {
		char peer[PEER_MAX], ends[GADGETD_CONTROL_ENDS_MAX];

		if (!g->slots[i].scheme)
			continue;
		pthread_mutex_lock(&g->attach_lock);
		memcpy(peer, g->slots[i].peer, sizeof(peer));
		pthread_mutex_unlock(&g->attach_lock);
		if (g->udcs->host && !g->udcs->host(g->udcs->ctx, i, peer, sizeof(peer)))
			peer[0] = '\0';
		(void)gadgetd_ends_describe(g->slots[i].ends, ends, sizeof(ends));
		rc = row(row_ctx, busid(g, i), peer[0] ? peer : NULL, g->slots[i].path, ends);
	}
	pthread_mutex_unlock(&g->lock);
	return rc;
}

static int op_set(void *ctx, const char *id, const char *function, const char *attr,
		  const char *value, char *msg, size_t size)
{
	struct gadgetd_gadgets *g = ctx;
	int i, rc = -USB_ENOENT;

	pthread_mutex_lock(&g->lock);
	i = find(g, id, msg, size);
	if (i >= 0)
		rc = check_medium(g, g->slots[i].scheme, function, attr, value, msg, size);
	if (i >= 0 && rc == 0) {
		rc = gadget_scheme_set_attr(g->slots[i].scheme, function, attr, value);
		if (rc == -USB_ENOENT)
			snprintf(msg, size, "no function %s or no attribute %s", function, attr);
		else if (rc < 0)
			snprintf(msg, size, "%s %s: %s", function, attr, usb_strerror(rc));
	}
	pthread_mutex_unlock(&g->lock);
	return rc;
}

static int op_add(void *ctx, const char *path, char *msg, size_t size)
{
	struct gadgetd_gadgets *g = ctx;
	int rc;

	pthread_mutex_lock(&g->lock);
	rc = add_locked(g, path, false, msg, size);
	if (rc >= 0)
		snprintf(msg, size, "%s", busid(g, (unsigned)rc));
	pthread_mutex_unlock(&g->lock);
	return rc < 0 ? rc : 0;
}

static int op_remove(void *ctx, const char *id, char *msg, size_t size)
{
	struct gadgetd_gadgets *g = ctx;
	int i;

	pthread_mutex_lock(&g->lock);
	i = find(g, id, msg, size);
	if (i >= 0) {
		printf("%s: %s removed from %s %s\n", prog, g->slots[i].path, g->udcs->kind, id);
		fflush(stdout);
		remove_locked(g, (unsigned)i);
	}
	pthread_mutex_unlock(&g->lock);
	return i < 0 ? -USB_ENOENT : 0;
}

static int op_detach(void *ctx, const char *id, char *msg, size_t size)
{
	struct gadgetd_gadgets *g = ctx;
	int i, rc = -USB_ENOENT;

	pthread_mutex_lock(&g->lock);
	i = find(g, id, msg, size);
	if (i >= 0 && !g->udcs->detach) {
		rc = -USB_EOPNOTSUPP;
		snprintf(msg, size, "%s: cannot detach: %s", id, g->udcs->why_not);
	} else if (i >= 0) {
		rc = g->udcs->detach(g->udcs->ctx, (unsigned)i);
	}
	if (rc == -USB_ENOTCONN)
		snprintf(msg, size, "%s has no host attached", id);
	pthread_mutex_unlock(&g->lock);
	return rc;
}

static int op_capture(void *ctx, const char *id, const char *path, char *msg, size_t size)
{
	struct gadgetd_gadgets *g = ctx;
	int i, rc = -USB_ENOENT;

	pthread_mutex_lock(&g->lock);
	i = find(g, id, msg, size);
	if (i >= 0 && !g->udcs->capture) {
		rc = -USB_EOPNOTSUPP;
		snprintf(msg, size, "%s: cannot capture: %s", id, g->udcs->why_not);
	} else if (i >= 0) {
		rc = g->udcs->capture(g->udcs->ctx, (unsigned)i, path);
		if (rc < 0)
			snprintf(msg, size, "capture to %s: %s", path ? path : "off", usb_strerror(rc));
	}
	pthread_mutex_unlock(&g->lock);
	return rc;
}

const struct gadgetd_control_ops gadgetd_gadgets_control_ops = {
	.list = op_list,
	.set = op_set,
	.add = op_add,
	.remove = op_remove,
	.detach = op_detach,
	.capture = op_capture,
};
