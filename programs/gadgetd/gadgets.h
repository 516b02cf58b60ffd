/*
 * gadgets.h - composite-gadgetd's served gadgets (gadgets_posix.c): one
 * slot per UDC the daemon serves on (struct gadgetd_udcs: the USB/IP
 * server's, slot i busid 1-(i+1); or the one gadgetfs controller), each
 * free or holding a scheme bound there with its gadget-side ends (ends.h: a
 * pty per acm, FIFOs per hid, a TAP interface per ecm or ncm, under the
 * run folder). Adds, removes, rebinds on a reload, writes attributes,
 * detaches hosts and switches captures, and keeps every backing file with
 * one writer at most.
 *
 * Threads: every call but gadgetd_gadgets_event() takes the table's
 * lock and may run in any thread but a USB/IP server thread (the
 * control thread, the signal thread); gadgetd_gadgets_event() runs in
 * the server's connection threads and takes only the attach state's
 * lock, so unbinding under the table's lock (which waits for the
 * connection to end) cannot deadlock with it.
 */
#ifndef GADGETD_GADGETS_H
#define GADGETD_GADGETS_H

#include <stdbool.h>
#include <stddef.h>

#include "composite/scheme.h"
#include "composite/usbip.h"
#include "control.h"

struct gadgetd_gadgets;

/* One line (no newline) about a refusal; borrowed for the call. */
typedef void (*gadgetd_report_fn)(void *ctx, const char *line);

/**
 * gadgetd_file_conflicts() - the LUNs of @s that share a backing file
 * (after resolving links and relative paths) with another LUN of @s or of
 * @others[0..@n) (NULL entries skipped), not both read-only: two writers
 * would corrupt it. Each clash is reported once through @report as
 * "FILE:LINE: function L LUN i: PATH is also served by ...".
 * Context: any thread, the schemes not changing meanwhile.
 * Return: the number of clashes (0: none), or -USB_ENOMEM.
 */
int gadgetd_file_conflicts(struct gadget_scheme *s, struct gadget_scheme *const *others,
			   unsigned n, gadgetd_report_fn report, void *ctx);

/**
 * struct gadgetd_udcs - the UDCs a table binds its gadgets to, slot i to
 * the UDC @name(i), which is also the gadget's id in the control socket's
 * requests and the name of its ends' folder. Borrowed by the table.
 * @n: the slots.
 * @kind: what an id is, for messages ("busid", "controller").
 * @full: why there is no free slot, for the refusal of one more gadget.
 * @detach: the host of slot i let go (the gadget stays): 0,
 *	-USB_ENOTCONN (none attached), or another error. NULL: refused.
 * @capture: slot i's URBs to the pcap file @path (NULL: stop). NULL: refused.
 * @why_not: the reason given when @detach or @capture is NULL.
 * @host: the host slot i is connected to, in @peer (@size bytes): true,
 *	or false when none is. NULL: the table follows the host through
 *	gadgetd_gadgets_event().
 * Each callback runs under the table's lock, in the caller's thread.
 */
struct gadgetd_udcs {
	unsigned n;
	const char *kind;
	const char *full;
	const char *(*name)(void *ctx, unsigned i);
	int (*detach)(void *ctx, unsigned i);
	int (*capture)(void *ctx, unsigned i, const char *path);
	const char *why_not;
	bool (*host)(void *ctx, unsigned i, char *peer, size_t size);
	void *ctx;
};

/* A table of free slots, one per UDC of @udcs (borrowed until
 * gadgetd_gadgets_destroy()); the gadgets' ends go under @run_dir/ID
 * (copied). Return 0 or -USB_ENOMEM. */
int gadgetd_gadgets_create(const struct gadgetd_udcs *udcs, const char *run_dir,
			   struct gadgetd_gadgets **out);

/**
 * gadgetd_gadgets_adopt() - serve @s, loaded from @path (copied), at the
 * first free busid, unless its files clash with a served gadget's, with
 * its gadget-side ends (made before the bind, started after it).
 * @s is owned by the table from now on, also on error (then freed).
 * @given: one of the command line's schemes (reload rereads those).
 * Return: the slot's index; -USB_ENOSPC (no free busid); -USB_EBUSY (a
 * file clash); -USB_ENOMEM; the error of gadget_scheme_bind(). On error
 * one line saying why is in @msg (@size bytes).
 */
int gadgetd_gadgets_adopt(struct gadgetd_gadgets *g, struct gadget_scheme *s, const char *path,
			  bool given, char *msg, size_t size);

/**
 * gadgetd_gadgets_reload() - SIGHUP: @paths (@n, the command line's
 * schemes with directories expanded, borrowed) are what is given now.
 * A given gadget whose path is no longer among them is removed; one whose
 * scheme loads the same (compared as gadget_scheme_export() writes it)
 * is left alone, its host attached; a changed one is rebound at its busid
 * (its host sees an unplug; its ends are made anew, at the same places);
 * one that fails to load or clashes keeps its old gadget; a new path is added. Gadgets added from the control socket
 * are left alone. Each step is logged (errors as FILE:LINE: MESSAGE on
 * stderr).
 */
void gadgetd_gadgets_reload(struct gadgetd_gadgets *g, const char *const *paths, unsigned n);

/* The server's event callback's part: attach state. Server thread. */
void gadgetd_gadgets_event(struct gadgetd_gadgets *g, const struct usbip_event *ev);

/* The control socket's requests, on a table (ctx: the table). */
extern const struct gadgetd_control_ops gadgetd_gadgets_control_ops;

/* Unbind every gadget (hosts see an unplug), close its files and its
 * ends (their files removed), free the table. NULL is ignored. */
void gadgetd_gadgets_destroy(struct gadgetd_gadgets *g);

#endif /* GADGETD_GADGETS_H */
