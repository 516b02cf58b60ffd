/*
 * mass_storage.h - the Mass Storage Function (MSF): a USB Mass Storage
 * Class, Bulk-Only Transport, SCSI transparent command set function, in the
 * shape of Linux's f_mass_storage (fsg_common, fsg_config, fsg_add and the
 * module parameters), so the seed article's gadget driver ports as is.
 *
 * Objects
 * - struct fsg_common: the state every configuration the function is added
 *   to shares: logical units (LUNs), buffers and one worker thread that
 *   answers every host request (BOT, SCSI, backing-store I/O). Refcounted:
 *   fsg_common_init() gives the caller one reference, fsg_add() takes one
 *   per configuration, the last fsg_common_put() destroys it.
 * - struct fsg_backend: the block-backend seam a LUN reads and writes.
 *   Built-in: files and block devices (POSIX), memory; firmware supplies
 *   its own callbacks.
 *
 * Threads (docs/mass-storage.md has the details)
 * - The function's USB callbacks run in the backend's event context and
 *   never block: SET_CONFIGURATION, SET_INTERFACE, disconnect and the
 *   Bulk-Only Mass Storage Reset are handed to the worker as "exceptions"
 *   (the control status stage is delayed until the worker is done, then
 *   finished with usb_composite_setup_continue()).
 * - The worker ends when the fsg_common is destroyed, or - with
 *   fsg_config.exit_on_signal - when the process gets SIGINT or SIGTERM:
 *   it then closes every backing file and calls ops->thread_exits.
 * - fsg_common_get/put and fsg_common_set_lun_*() are safe from any thread
 *   except the backend's event context.
 */
#ifndef COMPOSITE_MASS_STORAGE_H
#define COMPOSITE_MASS_STORAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "composite/composite.h"
#include "composite/registry.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Logical units per function (Linux's FSG_MAX_LUNS). The minimal build
 * profile (COMPOSITE_PROFILE=minimal) makes it 1, for the library and
 * for its users alike (a public compile definition of the target). */
#ifndef FSG_MAX_LUNS
#define FSG_MAX_LUNS 16
#endif

/*
 * The buffer ring: NUM buffers of BUFLEN bytes each. Backing-store I/O of
 * one buffer overlaps the USB transfer of the previous one. The defaults
 * were picked with bench_msf (docs/mass-storage.md, "Performance").
 */
#define FSG_NUM_BUFFERS_DEFAULT 4u
#define FSG_NUM_BUFFERS_MIN 2u
#define FSG_NUM_BUFFERS_MAX 32u
#define FSG_BUFLEN_DEFAULT (64u * 1024u)
/* 512: one high-speed packet (firmware's transfer buffer); a device that
 * can run at SuperSpeed needs at least 1024 (fsg_bind() refuses less). */
#define FSG_BUFLEN_MIN 512u		/* and a multiple of 512 */
#define FSG_BUFLEN_MIN_SUPER 1024u	/* a device that can run at SuperSpeed */
#define FSG_BUFLEN_MAX (1024u * 1024u)

/* Lengths of the INQUIRY identification fields (space padded on the wire). */
#define FSG_VENDOR_LEN 8
#define FSG_PRODUCT_LEN 16
#define FSG_REVISION_LEN 4
#define FSG_INQUIRY_STRING_LEN (FSG_VENDOR_LEN + FSG_PRODUCT_LEN + FSG_REVISION_LEN)

/* Longest path a module parameter file= value may have (bytes, without NUL). */
#define FSG_PARAM_PATH_MAX 1023

/* The IDs Linux's mass storage gadget uses (NetChip's vendor ID, the
 * "Linux-USB File-backed Storage Gadget" product). */
#define FSG_VENDOR_ID	0x0525
#define FSG_PRODUCT_ID	0xa4a5

struct msf_common;
struct fsg_backend;

/**
 * struct fsg_common - a handle on the function's shared state (LUNs, the
 * buffer ring, the worker). Complete so a driver can keep it in its own
 * storage, as Linux drivers do (static struct fsg_common common;); all
 * state lives behind @priv, allocated by fsg_common_init(). A handle of
 * the caller's is detached (@priv NULL again) when the last reference
 * goes, and may be initialised anew; the library never frees it. One the
 * library allocated (fsg_common_init(NULL, ...), fsg_common_create()) is
 * freed with the last reference.
 * @priv: private to the library.
 * @allocated: private: the library allocated this handle.
 */
struct fsg_common {
	struct msf_common *priv;
	bool allocated;
};

/* ---- block backends ---------------------------------------------------- */

/**
 * struct fsg_backend_ops - what a LUN needs from its medium. All offsets
 * and lengths are bytes; the LUN only asks for whole blocks inside
 * [0, capacity). Called from the worker thread only, one call at a time.
 * @read: mandatory. Read @len bytes at @offset into @buf. Return the bytes
 *	read (a short count means an error at offset + count), or a
 *	negative USB_E* error (-USB_EIO for a medium error).
 * @write: mandatory unless the backend is read-only. As @read.
 * @flush: optional. Make everything written durable (fdatasync). Return 0
 *	or a negative error. Without it writes count as durable on return.
 * @capacity: mandatory. Size of the medium in bytes.
 * @block_size: optional. Logical block size (512, 1024, 2048 or 4096);
 *	without it 512. A CD-ROM LUN always uses 2048.
 * @read_only: optional. True if the medium cannot be written (a file that
 *	was opened read-only, a ROM). Without it: writable.
 * @release: optional. The LUN is done with the backend (eject, close,
 *	destruction of the common object): free it. Context: any thread.
 */
struct fsg_backend_ops {
	int (*read)(struct fsg_backend *be, uint64_t offset, void *buf, uint32_t len);
	int (*write)(struct fsg_backend *be, uint64_t offset, const void *buf, uint32_t len);
	int (*flush)(struct fsg_backend *be);
	uint64_t (*capacity)(struct fsg_backend *be);
	uint32_t (*block_size)(struct fsg_backend *be);
	bool (*read_only)(struct fsg_backend *be);
	void (*release)(struct fsg_backend *be);
};

/**
 * struct fsg_backend - one medium. Firmware fills @ops (usually static
 * const) and @priv itself; the built-in constructors below allocate one.
 * Handing a backend to a LUN (fsg_lun_config.backend,
 * fsg_common_set_lun_backend()) passes ownership: the LUN calls
 * @ops->release when it lets go of it, also when the call fails.
 */
struct fsg_backend {
	const struct fsg_backend_ops *ops;
	void *priv;
};

/**
 * fsg_backend_file_open() - a backend on a regular file or block device
 * (POSIX builds only). Anything else (a FIFO, a directory, a character
 * device) is refused without blocking in open(), with a line naming the
 * file in the library's log (usb_composite_set_log_handler()). Opened
 * read-write unless @ro or the file's mode has no write bit for anyone
 * (also for root, whom open() would let write it); a read-write open that
 * fails with EROFS or EACCES falls back to read-only (see ops->read_only).
 * Either fallback is logged.
 * A block device reports its logical block size. @sync_fua: write
 * through: the file is opened O_DSYNC, so every write is durable when it
 * returns, not only FUA writes and SYNCHRONIZE CACHE (which flush either
 * way); slower, for media that must survive a power cut at any time.
 * Return: 0 and *@out (owned by the caller until handed to a LUN);
 * -USB_ENOENT, -USB_EACCES, -USB_EINVAL (not a file or device, or empty),
 * -USB_EAGAIN (@path was replaced while it was being opened),
 * -USB_ENOMEM, -USB_EIO; -USB_EOPNOTSUPP in builds without POSIX files.
 */
int fsg_backend_file_open(struct fsg_backend **out, const char *path, bool ro,
			  bool sync_fua);

/**
 * fsg_backend_mem_create() - a backend on @size bytes of memory.
 * @mem: the memory (borrowed; must outlive the backend), or NULL to
 *	allocate @size zeroed bytes owned by the backend.
 * @block_size: 512, 1024, 2048 or 4096; @size must be a multiple of it.
 * Return: 0 and *@out; -USB_EINVAL; -USB_ENOMEM.
 */
int fsg_backend_mem_create(struct fsg_backend **out, void *mem, uint64_t size,
			   uint32_t block_size, bool ro);

/* ---- configuration ----------------------------------------------------- */

/**
 * struct fsg_operations - callbacks to the gadget driver.
 * @thread_exits: optional. The worker stopped on its own (SIGINT/SIGTERM
 *	with exit_on_signal) after closing every backing file. Context: the
 *	worker thread. It may call usb_composite_unregister(), even if that
 *	drops the last reference to @common (the worker then frees it after
 *	the callback returns; @common must not be used after the callback
 *	drops its last reference). Not called when the worker stops because
 *	the common object is destroyed (Linux calls it then too; here that
 *	would re-enter a usb_composite_unregister() already in progress).
 *	The return value is ignored (Linux's signature).
 */
struct fsg_operations {
	int (*thread_exits)(struct fsg_common *common);
};

/**
 * struct fsg_lun_config - one logical unit.
 * @filename: backing file or block device, or NULL (no medium: only
 *	allowed for a removable LUN). Borrowed during fsg_common_init().
 * @backend: instead of @filename: a backend handed over to the LUN (see
 *	struct fsg_backend). Takes precedence over @filename.
 * @ro: read-only (also when the file cannot be opened for writing).
 * @removable: removable medium: RMB in INQUIRY, START STOP UNIT may eject,
 *	fsg_common_set_lun_file() may change the medium.
 * @cdrom: a CD-ROM: peripheral type 5, 2048-byte blocks, read-only,
 *	READ TOC and READ HEADER.
 * @nofua: ignore the FUA bit of WRITE commands (faster, less safe).
 * @inquiry_string: optional: the 28 INQUIRY identification bytes (vendor 8,
 *	product 16, revision 4), space padded; overrides fsg_config's.
 */
struct fsg_lun_config {
	const char *filename;
	struct fsg_backend *backend;
	bool ro;
	bool removable;
	bool cdrom;
	bool nofua;
	const char *inquiry_string;
};

/**
 * struct fsg_config - everything fsg_common_init() needs.
 * @nluns: 1..FSG_MAX_LUNS.
 * @luns: the logical units.
 * @ops: optional callbacks (borrowed; must outlive the common object).
 * @private_data: for the driver: fsg_common_private_data().
 * @vendor_name, @product_name, @revision: INQUIRY fields (at most 8, 16
 *	and 4 characters); NULL gives "Linux", "File-Stor Gadget" /
 *	"File-CD Gadget" and "0100" as Linux does. Copied.
 * @serial: optional unit serial number (VPD page 80, page 83), up to 32
 *	printable characters; LUN n reports it with "-n" appended. NULL: a
 *	serial made of the INQUIRY strings' hash. Copied.
 * @can_stall: the transport may halt bulk endpoints (Linux's stall=). BOT
 *	hosts need it: without it invalid CBWs and short replies are
 *	answered without stalls.
 * @fsg_num_buffers: buffers in the ring (FSG_NUM_BUFFERS_MIN..MAX), 0 for
 *	FSG_NUM_BUFFERS_DEFAULT.
 * @buflen: bytes per buffer (FSG_BUFLEN_MIN..MAX, multiple of 512), 0 for
 *	FSG_BUFLEN_DEFAULT. READ and WRITE move through the ring one buffer
 *	at a time, so any length a host asks for works with any buflen;
 *	at least one bulk packet: 512 for a full/high-speed device, 1024
 *	when the UDC and the driver can run at SuperSpeed (fsg_bind() fails
 *	with -USB_EINVAL otherwise).
 * @exit_on_signal: the worker stops when the process gets SIGINT or
 *	SIGTERM (POSIX builds): it closes the backing files and calls
 *	ops->thread_exits. This installs handlers for both signals while
 *	such a common object exists (the previous handlers come back when
 *	the last one is destroyed), so the signals no longer end the
 *	process by themselves.
 * @thread_exits: optional: as @ops->thread_exits (Linux 2.6.35 had it
 *	here; later kernels in ops); this one wins when both are set.
 * @ring: optional caller storage for the buffer ring: FSG_RING_BYTES(
 *	fsg_num_buffers, buflen) bytes (both after their defaults are
 *	applied), 4-byte aligned (DMA may want more), borrowed until the
 *	common object is freed. NULL: the ring comes from the heap.
 * @polled: no worker thread (firmware, or an event loop): the protocol
 *	runs in fsg_common_poll(), which the firmware's main loop or an RTOS
 *	task calls after USB events; completions and control requests only
 *	record what happened. Not with @exit_on_signal (-USB_EINVAL);
 *	thread_exits is never called (there is no thread to exit). The
 *	only form in builds without POSIX (no thread adapter there).
 */
struct fsg_config {
	unsigned nluns;
	struct fsg_lun_config luns[FSG_MAX_LUNS];
	const struct fsg_operations *ops;
	void *private_data;
	const char *vendor_name;
	const char *product_name;
	const char *revision;
	const char *serial;
	char can_stall;
	unsigned fsg_num_buffers;
	unsigned buflen;
	bool exit_on_signal;
	int (*thread_exits)(struct fsg_common *common);
	void *ring;
	bool polled;
};

/* Bytes of fsg_config.ring for @nbuf buffers of @buflen bytes. */
#define FSG_RING_BYTES(nbuf, buflen) ((size_t)(nbuf) * (size_t)(buflen))

/**
 * struct fsg_module_parameters - the kernel module's parameters, filled
 * by fsg_module_parameters_parse(). Per-LUN arrays are comma-separated
 * lists ("file=a.img,b.img ro=0,1"); *_count says how many values were
 * given. Zero-initialised means "no parameters" (stall=0); the usual
 * start is fsg_module_parameters_init() (stall=1, as Linux's mass_storage
 * module) or { .stall = 1 }. file[] and inquiry_string[] point into the
 * parsed argument strings (or anywhere the program sets them), so the
 * structure is small enough for a firmware stack; those strings must
 * outlive its use.
 */
struct fsg_module_parameters {
	const char *file[FSG_MAX_LUNS];
	bool ro[FSG_MAX_LUNS];
	bool removable[FSG_MAX_LUNS];
	bool cdrom[FSG_MAX_LUNS];
	bool nofua[FSG_MAX_LUNS];
	const char *inquiry_string[FSG_MAX_LUNS];

	unsigned file_count, ro_count, removable_count;
	unsigned cdrom_count, nofua_count, inquiry_string_count;

	unsigned luns;		/* 0: as many as file= values (at least 1) */
	bool stall;
	unsigned num_buffers;	/* 0: default */
	unsigned buflen;	/* 0: default */
	/* Not a key: set by the program; copied to fsg_config.exit_on_signal. */
	bool exit_on_signal;
};

/* Defaults: no LUN values, stall=1. */
void fsg_module_parameters_init(struct fsg_module_parameters *params);

/**
 * fsg_module_parameters_parse() - take the module parameters out of an
 * argument vector: file=, ro=, removable=, cdrom=, nofua=, inquiry_string=
 * (comma-separated, one value per LUN), luns= (1..16), stall=, and this
 * port's num_buffers= and buflen=. Booleans are 1/0, y/n, yes/no, on/off,
 * true/false (any case). A key given twice: the last one counts.
 * @argv: the arguments (argv[0] may be the program name: an argument
 *	without a known key is left alone). A file= or inquiry_string=
 *	value is split at its commas in place (they become NULs) and
 *	@params points into it. Reordered in place: the
 *	arguments that were not taken keep their order and move to the
 *	front, so a caller can parse its own keys (address=, port=) next.
 * @errbuf, @errlen: on error, a message naming the parameter
 *	("ro: value 2 of LUN 1 is not a boolean"); may be NULL/0.
 * Return: the number of arguments left in @argv (>= 0), or -USB_EINVAL
 * (@params may then be partly filled).
 */
int fsg_module_parameters_parse(struct fsg_module_parameters *params,
				int argc, char **argv, char *errbuf, size_t errlen);

/**
 * fsg_config_from_params() - the fsg_config the parameters describe, as
 * Linux's: nluns = luns= or the number of file= values (at least 1); empty
 * file values mean no medium; ops, private data, names NULL;
 * exit_on_signal as in @params. @cfg borrows
 * strings from @params: keep @params alive until fsg_common_init().
 */
void fsg_config_from_params(struct fsg_config *cfg,
			    const struct fsg_module_parameters *params);

/* ---- the common object ------------------------------------------------- */

/**
 * fsg_common_init() - create the common object: open every LUN's medium,
 * allocate the buffer ring, start the worker thread. Linux's form.
 * @common: the handle to fill (caller storage, its @priv NULL), or NULL
 *	to have the library allocate one.
 * @cdev: the composite device the function will be added to (borrowed).
 * @cfg: the configuration (read during the call only, except @cfg->ops).
 * Context: a driver's bind (or any thread that is not the event context).
 * Return: the handle, holding one reference owned by the caller, or an
 * error pointer (usb_is_err(); IS_ERR() in composite/linux.h) carrying
 * -USB_EINVAL for a bad configuration (nluns, buffer sizes, a
 * non-removable LUN without medium, inquiry strings too long); the error
 * opening a backing file (-USB_ENOENT...); -USB_ENOMEM; -USB_EAGAIN when
 * no thread could be started; -USB_EBUSY if @common is in use. On error
 * nothing is left and every backend handed in through @cfg has been
 * released.
 */
struct fsg_common *fsg_common_init(struct fsg_common *common,
				   struct usb_composite_dev *cdev,
				   const struct fsg_config *cfg);

/**
 * fsg_common_create() - fsg_common_init(NULL, ...) with an int result.
 * Return: 0 and *@out (a library-allocated handle, one reference owned by
 * the caller), or the error fsg_common_init() would carry (*@out NULL);
 * -USB_EINVAL for a NULL @out.
 */
int fsg_common_create(struct fsg_common **out, struct usb_composite_dev *cdev,
		      const struct fsg_config *cfg);

/* fsg_config_from_params() followed by fsg_common_create(). */
int fsg_common_from_params(struct fsg_common **out, struct usb_composite_dev *cdev,
			   const struct fsg_module_parameters *params);

/* Take another reference. Safe from any thread. */
void fsg_common_get(struct fsg_common *common);

/*
 * Drop a reference; the last one stops the worker (joining it, or
 * detaching when called from the worker itself, e.g. from thread_exits),
 * closes the backing files and frees everything but a handle in caller
 * storage (which is detached instead). NULL is ignored.
 */
void fsg_common_put(struct fsg_common *common);

/**
 * fsg_add() - add the mass storage function to configuration @c.
 * Takes its own reference on @common, dropped when the function is freed
 * (usb_composite_unregister(), usb_remove_function()).
 * Context: a configuration's bind.
 * Return: 0, -USB_EINVAL (NULL arguments, @cdev not @c's), -USB_ENOMEM, or
 * the error of usb_add_function() (no interface or endpoint left...).
 */
int fsg_add(struct usb_composite_dev *cdev, struct usb_configuration *c,
	    struct fsg_common *common);

/* The private data from fsg_config; the number of LUNs. */
void *fsg_common_private_data(const struct fsg_common *common);
unsigned fsg_common_nluns(const struct fsg_common *common);

/**
 * fsg_common_set_lun_file() - change the medium of LUN @lun at run time:
 * eject it (@path NULL) or insert the file @path (replacing the medium).
 * The host sees MEDIUM NOT PRESENT after an eject and UNIT ATTENTION /
 * MEDIUM CHANGED (06/28/00) after an insert. The file is opened before
 * the LUN is touched; the call waits for a command in progress to end.
 * Context: any thread but the event context.
 * Return: 0; -USB_EINVAL (no such LUN); -USB_EPERM (LUN not removable and
 * @path NULL); -USB_EBUSY (the host prevented medium removal); the error
 * of opening the file.
 */
int fsg_common_set_lun_file(struct fsg_common *common, unsigned lun, const char *path);

/**
 * fsg_common_poll() - run a polled common object's protocol (fsg_config
 * .polled) as far as it goes without waiting: CBWs, SCSI commands, medium
 * access, CSWs, Reset Recovery and configuration changes. Call it from the
 * firmware's main loop or one RTOS task, never from an interrupt or a
 * completion, after USB events (and while it returns 1). A backend may
 * answer -USB_EAGAIN (medium busy): the command then goes on at a later
 * call, and EP0 is never held up by the medium.
 * Return: 1 it did something (call again), 0 it waits for a completion,
 * a control request or the medium; -USB_EINVAL (NULL or not polled);
 * -USB_ESHUTDOWN (it has stopped).
 */
int fsg_common_poll(struct fsg_common *common);

/* As fsg_common_set_lun_file() with a backend (ownership passes, NULL ejects). */
int fsg_common_set_lun_backend(struct fsg_common *common, unsigned lun,
			       struct fsg_backend *be);

/* Eject even when the host prevented medium removal (Linux's forced_eject). */
int fsg_common_forced_eject(struct fsg_common *common, unsigned lun);

/* True when LUN @lun has a medium. */
bool fsg_common_lun_is_open(struct fsg_common *common, unsigned lun);

/* ---- the registry's "mass_storage" (composite/registry.h) ------------- */

struct msf_opts;

/**
 * struct fsg_opts - a "mass_storage" instance, as Linux's: what
 * usb_get_function_instance("mass_storage") makes. Its attributes have
 * Linux's configfs names: stall, num_buffers, and per LUN lun.N/file,
 * lun.N/ro, lun.N/removable, lun.N/cdrom, lun.N/nofua,
 * lun.N/inquiry_string, lun.N/forced_eject (write-only). A LUN's
 * attribute makes LUNs 0..N exist; each starts removable with no medium,
 * as Linux's lun.0 does; stall starts at 1.
 * @common: NULL until the first usb_get_function() creates it of the
 *	attributes (or fsg_opts_set_config() of a struct fsg_config); then
 *	shared by every function made of the instance (one per
 *	configuration) and usable with the fsg_common_*() calls. From then
 *	on lun.N/file and forced_eject act at once (a medium change the host
 *	sees); the other attributes answer -USB_EBUSY.
 * @func_inst: the registry's instance.
 * @priv: private to the library.
 */
struct fsg_opts {
	struct fsg_common *common;
	struct usb_function_instance func_inst;
	struct msf_opts *priv;
};

/* The fsg_opts of a "mass_storage" instance, or NULL for any other. */
struct fsg_opts *fsg_opts_from_func_inst(struct usb_function_instance *fi);

/**
 * fsg_opts_set_config() - create @opts->common now of @cfg (the typed
 * form of the attributes, all of fsg_config at once), as
 * fsg_common_init(NULL, NULL, cfg) would; the attributes set before are
 * not used then.
 * Return: 0; -USB_EBUSY when @opts->common exists already; the errors of
 * fsg_common_init().
 */
int fsg_opts_set_config(struct fsg_opts *opts, const struct fsg_config *cfg);

#ifdef __cplusplus
}
#endif

#endif /* COMPOSITE_MASS_STORAGE_H */
