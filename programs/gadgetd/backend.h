/*
 * backend.h - where composite-gadgetd serves its gadgets: the USB/IP
 * server (backend_usbip_posix.c, the default: one busid per gadget) or
 * the machine's own device controller through Linux's gadgetfs
 * (backend_gadgetfs_posix.c: one gadget of one configuration). The
 * daemon's main (gadgetd_posix.c) opens one, builds the gadget table on
 * the UDCs it offers (gadgets.h), runs it until a signal, closes it.
 * One backend per process: each keeps its state in its file.
 */
#ifndef GADGETD_BACKEND_H
#define GADGETD_BACKEND_H

#include <stdbool.h>

#include "gadgets.h"

/* What the command line says about the backend. */
struct gadgetd_backend_options {
	const char *udc;		/* --udc: NULL for USB/IP, else gadgetfs's NAME ("" any) */
	const char *address;		/* USB/IP */
	unsigned port;			/* USB/IP */
	const char *capture;		/* USB/IP: --capture DIR */
	unsigned max_gadgets;		/* USB/IP: busids (0: the default) */
	const char *usbip_only;		/* a USB/IP option given (the last), or NULL */
	unsigned n_schemes;
};

/*
 * struct gadgetd_backend - a backend's life, called from main's thread
 * but @stop (the signal thread). Errors are said on stderr.
 * @check: the options and @n_schemes fit this backend: 0, or 2 with the
 *	reason said (before anything is loaded).
 * @check_device: NULL, or whether a gadget whose host reads @n_configs
 *	configurations, the first with bmAttributes @attributes, is one this
 *	backend can serve: 0, or 2 with the limit said on stderr as
 *	"NAME: ..." (--check).
 * @open: start serving nothing yet; fill @udcs (valid until @close).
 *	@gadgets: where the table will be (read by the backend's event
 *	callbacks once set). Return 0 or the exit status (1: cannot start).
 * @export_heading: the comment line --export writes before the scheme of
 *	gadget @index (0 for the first), named @name: where a host finds it.
 * @announce: the lines saying how a host reaches the gadgets (@n of them).
 * @run: until @stop or a failure: 0, or 1 with the reason said.
 * @stop: end @run (any thread, also before @run starts).
 * @close: after the table is gone; also after a failed @open.
 */
struct gadgetd_backend {
	int (*check)(const struct gadgetd_backend_options *o);
	int (*check_device)(const char *name, unsigned n_configs, unsigned attributes);
	int (*open)(const struct gadgetd_backend_options *o, struct gadgetd_gadgets *const *gadgets,
		    struct gadgetd_udcs *udcs);
	void (*export_heading)(unsigned index, const char *name);
	void (*announce)(unsigned n);
	int (*run)(void);
	void (*stop)(void);
	void (*close)(void);
};

extern const struct gadgetd_backend gadgetd_backend_usbip;
extern const struct gadgetd_backend gadgetd_backend_gadgetfs;

#endif /* GADGETD_BACKEND_H */
