/*
 * msf_internal.h - private to src/functions/msf: the common object, the
 * per-configuration function instance, logical units, the buffer ring, and
 * the prototypes shared between the MSF's files, grouped by defining file.
 *
 * Locking (two locks, both from the OS seam in msf_os.h)
 * - common->os "lock": buffer states, request busy flags, the exception
 *   state. Taken briefly by USB completions (event context) and by the
 *   worker; never held across a call into the backend or a file.
 * - common->os "file lock": the LUNs (medium, sense, unit attention,
 *   prevent flag). Held by the worker while it carries out a command and
 *   by fsg_common_set_lun_*() from other threads.
 * Lock order: file lock before lock.
 */
#ifndef MSF_INTERNAL_H
#define MSF_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "functions/common/bulk_pair.h"
#include "composite/function.h"
#include "composite/kref.h"
#include "composite/mass_storage.h"

struct msf__os;

/* ---- wire formats (BOT 1.0 section 5) ---------------------------------- */

#define MSF_CBW_LEN 31
#define MSF_CSW_LEN 13
#define MSF_CBW_SIGNATURE 0x43425355u	/* "USBC" */
#define MSF_CSW_SIGNATURE 0x53425355u	/* "USBS" */
#define MSF_CBW_FLAG_IN 0x80u
#define MSF_MAX_CDB 16

#define MSF_CSW_PASSED 0
#define MSF_CSW_FAILED 1
#define MSF_CSW_PHASE_ERROR 2

/* Class requests (BOT 1.0 section 3). */
#define MSF_REQ_RESET 0xff
#define MSF_REQ_GET_MAX_LUN 0xfe

/* ---- sense data: key << 16 | ASC << 8 | ASCQ --------------------------- */

#define MSF_SENSE(key, asc, ascq) (((uint32_t)(key) << 16) | ((uint32_t)(asc) << 8) | (uint32_t)(ascq))
#define SS_NO_SENSE 0u
#define SS_COMMUNICATION_FAILURE MSF_SENSE(0x04, 0x08, 0x00)
#define SS_INVALID_COMMAND MSF_SENSE(0x05, 0x20, 0x00)
#define SS_INVALID_FIELD_IN_CDB MSF_SENSE(0x05, 0x24, 0x00)
#define SS_INVALID_FIELD_IN_PARAMETER_LIST MSF_SENSE(0x05, 0x26, 0x00)
#define SS_PARAMETER_LIST_LENGTH_ERROR MSF_SENSE(0x05, 0x1a, 0x00)
#define SS_LOGICAL_BLOCK_ADDRESS_OUT_OF_RANGE MSF_SENSE(0x05, 0x21, 0x00)
#define SS_LOGICAL_UNIT_NOT_SUPPORTED MSF_SENSE(0x05, 0x25, 0x00)
#define SS_SAVING_PARAMETERS_NOT_SUPPORTED MSF_SENSE(0x05, 0x39, 0x00)
#define SS_MEDIUM_REMOVAL_PREVENTED MSF_SENSE(0x05, 0x53, 0x02)
#define SS_MEDIUM_NOT_PRESENT MSF_SENSE(0x02, 0x3a, 0x00)
#define SS_NOT_READY_TO_READY_TRANSITION MSF_SENSE(0x06, 0x28, 0x00)
#define SS_RESET_OCCURRED MSF_SENSE(0x06, 0x29, 0x00)
#define SS_UNRECOVERED_READ_ERROR MSF_SENSE(0x03, 0x11, 0x00)
#define SS_WRITE_ERROR MSF_SENSE(0x03, 0x0c, 0x02)
#define SS_WRITE_PROTECTED MSF_SENSE(0x07, 0x27, 0x00)

#define MSF_SK(s) ((uint8_t)((s) >> 16))
#define MSF_ASC(s) ((uint8_t)((s) >> 8))
#define MSF_ASCQ(s) ((uint8_t)(s))

/* ---- objects ------------------------------------------------------------ */

struct msf__lun {
	struct fsg_backend *be;		/* NULL: no medium */
	uint64_t num_sectors;
	uint32_t blksize;
	unsigned blkbits;
	bool ro;			/* effective: config, medium or cdrom */
	bool initially_ro;		/* from the configuration */
	bool removable;
	bool cdrom;
	bool nofua;
	bool prevent_medium_removal;
	bool wce;			/* write cache on (MODE SELECT may clear) */
	uint32_t sense_data;
	uint32_t sense_data_info;
	bool info_valid;
	uint32_t unit_attention_data;
	char inquiry_string[FSG_INQUIRY_STRING_LEN + 1];	/* padded */
	char serial[40];
};

enum msf__buf_state { MSF_BUF_EMPTY, MSF_BUF_FULL, MSF_BUF_BUSY };

struct msf__buffhd {
	struct msf_common *common;
	void *buf;
	/* Atomic: the worker polls it briefly before sleeping (bot.c). */
	_Atomic(enum msf__buf_state) state;
	struct msf__buffhd *next;
	struct usb_request *inreq;
	struct usb_request *outreq;
	bool inreq_busy;
	bool outreq_busy;
	uint32_t bulk_out_intended_length;
};

/*
 * Exceptions, in rising priority: raising one only replaces a pending one
 * of lower priority (a reset does not hide a configuration change).
 */
enum msf__state {
	MSF_STATE_NORMAL,
	MSF_STATE_ABORT_BULK_OUT,
	MSF_STATE_PROTOCOL_RESET,
	MSF_STATE_CONFIG_CHANGE,
	MSF_STATE_EXIT,
	MSF_STATE_TERMINATED
};

/* Where a polled worker resumes (msf__worker_step()); a thread goes
 * through them in order without ever stopping between. */
enum msf__phase {
	MSF_PHASE_COMMAND,	/* wait for and check a CBW */
	MSF_PHASE_DATA,		/* carry out the SCSI command */
	MSF_PHASE_FINISH,	/* end the data phase */
	MSF_PHASE_STATUS	/* send the CSW */
};

/* msf__worker_step(): what happened. */
#define MSF_STEP_WAIT 0		/* would wait for a completion or request */
#define MSF_STEP_PROGRESS 1	/* did something: call again */
#define MSF_STEP_DONE 2		/* terminated: the LUNs are closed */

enum msf__data_dir {
	MSF_DIR_NONE,
	MSF_DIR_TO_HOST,
	MSF_DIR_FROM_HOST
};

/* The function instance of one configuration (Linux's fsg_dev). */
struct fsg_dev {
	struct usb_function function;
	struct msf_common *common;
	uint8_t interface_number;
	struct usb_ep *bulk_in;
	struct usb_ep *bulk_out;
	/* Enabled by the worker, disabled by whoever comes first: fsg_disable()
	 * (event context, as Linux's, so that the next configuration may take
	 * the endpoints at once) or the worker's teardown. */
	atomic_bool bulk_in_enabled;
	atomic_bool bulk_out_enabled;
	/* The descriptor templates live in fsg_bind() only: the core keeps
	 * the copies usb_assign_descriptors() makes. */
	struct usb_string strings[2];
	struct usb_gadget_strings stringtab;
	struct usb_gadget_strings *stringtabs[2];
	/* One IN and one OUT request per ring buffer, allocated at bind and
	 * freed at unbind: nothing is allocated when the host configures.
	 * Sized for the common's ring when the instance is allocated (a
	 * static-RAM build pays for the buffers it has, not for 32). */
	unsigned nreqs;			/* the ring's buffers: entries of each array */
	struct usb_request **inreqs;	/* reqs[0 .. nreqs - 1] */
	struct usb_request **outreqs;	/* reqs[nreqs .. 2 nreqs - 1] */
	struct usb_request *reqs[];
};

struct msf_common {
	struct kref ref;
	struct fsg_common *handle;	/* the public one; NULL-ed or freed at the end */
	int (*thread_exits)(struct fsg_common *common);	/* from fsg_config */
	struct usb_composite_dev *cdev;
	struct msf__os *os;
	const struct fsg_operations *ops;
	void *private_data;
	bool can_stall;
	bool polled;			/* no thread: fsg_common_poll() drives it */
	bool ring_borrowed;		/* the buffers are fsg_config.ring's */
	bool exit_on_signal;
	bool signal_watched;

	/* Active function instance (worker only writes it, under the lock). */
	struct fsg_dev *fsg;
	struct fsg_dev *new_fsg;
	bool running;
	unsigned bulk_out_maxpacket;
	uint32_t xfer_buflen;		/* buflen cut to whole packets (both directions) */

	/* Exceptions (under the lock). */
	enum msf__state state;
	bool ep0_delayed;		/* a status stage waits for the worker */
	bool thread_started;
	bool worker_done;		/* the worker left its loop */
	bool free_by_worker;		/* released from the worker: it frees */
	bool releasing;			/* the last reference is gone */
	/* What the worker sleeps on (under the lock): one buffer, or anything. */
	struct msf__buffhd *wait_bh;
	bool wait_any;
	unsigned spin_budget;		/* polls before sleeping (worker only) */

	/* Buffer ring. */
	unsigned fsg_num_buffers;
	uint32_t buflen;
	struct msf__buffhd *buffhds;
	struct msf__buffhd *next_buffhd_to_fill;
	struct msf__buffhd *next_buffhd_to_drain;
	struct msf__buffhd *cbw_bh;	/* next CBW's request queued ahead, or NULL */

	/* Where a polled worker resumes (worker only): the phase, and what
	 * the phase had done when it returned -USB_EAGAIN. */
	enum msf__phase phase;
	bool cmd_resume;		/* the SCSI command is under way */
	bool reply_queued;		/* finish_reply queued the last IN buffer */
	bool recv_queued;		/* MODE SELECT's OUT request is queued */
	bool wedge_pending;		/* bulk-IN still to be wedged */
	unsigned status_step;		/* send_status: 0, 1 CSW built, 2 CBW queued */
	struct msf__buffhd *reply_bh;	/* the command's first buffer */
	/* READ / WRITE in progress (scsi_rw.c). */
	struct {
		uint64_t lba, offset;
		/* At most the host's 32-bit dCBWDataTransferLength (the command
		 * was cut to it by msf__check_command): 32-bit arithmetic. */
		uint32_t left_to_req, left_to_write;
		bool write, fua, get_some_more, failed, loop_done;
	} rw;

	/* The command in progress (worker only). */
	uint8_t cmnd[MSF_MAX_CDB];
	unsigned cmnd_size;
	unsigned lun;
	struct msf__lun *curlun;
	enum msf__data_dir data_dir;
	uint32_t data_size;		/* host's dCBWDataTransferLength */
	/* What the command wants, at most 2^32 - 1 (more than any host's
	 * dCBWDataTransferLength: msf__rw_command() saturates it and marks
	 * the phase error a 64-bit count would have given). */
	uint32_t data_size_from_cmnd;
	uint32_t reply_limit;		/* allocation length of a small IN reply */
	bool reply_limited;		/* reply_limit applies */
	uint32_t tag;
	uint32_t residue;
	uint32_t usb_amount_left;	/* OUT bytes not yet requested */
	bool phase_error;
	bool short_packet_received;
	bool bad_lun_okay;

	unsigned nluns;
	struct msf__lun luns[FSG_MAX_LUNS];
};

/* ---- bot.c: the worker loop, transport and exceptions ------------------- */

/* The worker thread's body (called by the OS adapter in the new thread). */
void msf__worker_main(struct msf_common *common);
/*
 * One step of the worker: as far as it goes without waiting (polled) or
 * one command or exception (thread). MSF_STEP_WAIT, _PROGRESS or _DONE.
 */
int msf__worker_step(struct msf_common *common);
/* Polled: step until @until(common) holds or the worker is done (the
 * teardown and fsg_unbind(): the UDC gives requests back on dequeue). */
void msf__worker_run_until(struct msf_common *common,
			   bool (*until)(struct msf_common *common));
/* Raise @state for the worker (any thread; takes the lock). */
void msf__raise_exception(struct msf_common *common, enum msf__state state);
/* Wait (lock held by caller) for a state change. USB_EINTR on exception. */
int msf__sleep_locked(struct msf_common *common, bool can_freeze);
/* Wait until @bh is in @state; USB_EINTR if an exception came first. */
int msf__wait_buf(struct msf_common *common, struct msf__buffhd *bh,
		  enum msf__buf_state state);
/* Queue @bh's IN / OUT request. Return false if the queue failed. */
bool msf__start_in_transfer(struct msf_common *common, struct msf__buffhd *bh);
bool msf__start_out_transfer(struct msf_common *common, struct msf__buffhd *bh);
/* Set @bh's OUT length: @length rounded up to maxpacket. */
void msf__set_bulk_out_req_length(struct msf_common *common,
				  struct msf__buffhd *bh, uint32_t length);
bool msf__exception_pending(struct msf_common *common);
/* @bh's state, read under the lock. */
enum msf__buf_state msf__buf_state(struct msf_common *common, struct msf__buffhd *bh);
/* Completion of @bh (lock held): wake the worker if it waits for it. */
void msf__wake_for(struct msf_common *common, struct msf__buffhd *bh);
/* Stall bulk-IN once its queued data went out. */
int msf__halt_bulk_in(struct msf_common *common);
int msf__halt_bulk_out(struct msf_common *common);

/* ---- scsi.c, scsi_rw.c, scsi_cdrom.c: commands ---------------------------------------- */

/* Carry out common->cmnd. Return as Linux's do_scsi_command: 0, or USB_EINTR. */
int msf__do_scsi_command(struct msf_common *common);
/*
 * The 13-case reconciliation of the host's expectation with the command's
 * needs, LUN, unit attention and CDB checks. 0 ok, USB_EINVAL: fail it.
 */
int msf__check_command(struct msf_common *common, unsigned cmnd_size,
		       enum msf__data_dir data_dir, uint32_t mask,
		       bool needs_medium);
/*
 * READ and WRITE: each sets up the ring itself and then sets *@done
 * (return 0); otherwise a reply length (0: an empty reply), -USB_EINVAL
 * with the sense set, or -USB_EINTR (disconnected).
 */
int msf__do_read(struct msf_common *common, uint64_t lba, uint64_t blocks, bool *done);
/* Go on with the READ or WRITE that returned -USB_EAGAIN (polled). */
int msf__rw_resume(struct msf_common *common, bool *done);
/* READ or WRITE (6/10/12/16; 6 and 10 only with MSF_NO_LONG_CDB): the CDB
 * length of @op, @write set for a WRITE; 0 for another command. */
unsigned msf__rw_size(uint8_t op, bool *write);
/* Check and start the READ or WRITE in common->cmnd (@size, @write from
 * msf__rw_size()): as msf__do_read()/msf__do_write(), or REPLY_FAILED's
 * -USB_EINVAL with the sense set. */
int msf__rw_command(struct msf_common *common, unsigned size, bool write, bool *done);
/* scsi_cdrom.c: reply length, or -USB_EINVAL with the sense set. */
int msf__do_read_toc(struct msf_common *common, uint8_t *buf);
int msf__do_read_header(struct msf_common *common, uint8_t *buf);
int msf__do_write(struct msf_common *common, uint64_t lba, uint64_t blocks, bool fua,
		  bool *done);
int msf__do_verify(struct msf_common *common);
int msf__do_synchronize_cache(struct msf_common *common);
/* Receive up to data_size_from_cmnd OUT bytes into @bh (MODE SELECT). */
int msf__receive_data(struct msf_common *common, struct msf__buffhd *bh,
		      uint32_t *got);

/* ---- lun.c: logical units ------------------------------------------------ */

int msf__lun_init(struct msf_common *common, unsigned idx,
		  const struct fsg_lun_config *lcfg, const struct fsg_config *cfg);
/* Attach @be (ownership passes, released on error). 0 or an error. */
int msf__lun_attach(struct msf__lun *lun, struct fsg_backend *be);
void msf__lun_close(struct msf__lun *lun);
static inline bool msf__lun_is_open(const struct msf__lun *lun)
{
	return lun->be != NULL;
}
/* Set the sense of @lun with an INFORMATION field (@info = LBA). */
void msf__lun_set_sense(struct msf__lun *lun, uint32_t sense, uint64_t info,
			bool info_valid);

/* ---- common.c: the common object ------------------------------------------ */

/* Worker: switch to @new_fsg (or none): endpoints and requests. */
int msf__do_set_interface(struct msf_common *common, struct fsg_dev *new_fsg);
/* From the worker when the common object has gone away under it. */
void msf__common_free(struct msf_common *common);

/* The calls behind the public fsg_* ones of mass_storage.h (handle.c maps
 * a struct fsg_common handle to its struct msf_common). */
int msf__common_create(struct msf_common **out, struct usb_composite_dev *cdev,
		       const struct fsg_config *cfg, struct fsg_common *handle);
void msf__common_get(struct msf_common *common);
void msf__common_put(struct msf_common *common);
void *msf__common_private_data(const struct msf_common *common);
/* fsg_common_poll(): 1, 0, -USB_EINVAL, -USB_ESHUTDOWN. */
int msf__common_poll(struct msf_common *common);
unsigned msf__common_nluns(const struct msf_common *common);
int msf__common_set_lun_backend(struct msf_common *common, unsigned lun,
				struct fsg_backend *be);
int msf__common_set_lun_file(struct msf_common *common, unsigned lun, const char *path);
int msf__common_forced_eject(struct msf_common *common, unsigned lun);
bool msf__common_lun_is_open(struct msf_common *common, unsigned lun);
/* A new mass storage function of @common (taking a reference), not yet
 * added; NULL without memory. Its free_func drops the reference. */
struct usb_function *msf__alloc_function(struct msf_common *common);

int msf__add(struct usb_composite_dev *cdev, struct usb_configuration *c,
	     struct msf_common *common);
/* Raise EXIT (the signal watcher). */
void msf__common_signal(struct msf_common *common);

/* ---- msf.c: the usb_function glue ----------------------------------------- */

void msf__bulk_in_complete(struct usb_ep *ep, struct usb_request *req);
void msf__bulk_out_complete(struct usb_ep *ep, struct usb_request *req);

/* ---- byte helpers ----------------------------------------------------------- */

static inline uint16_t msf__get_be16(const uint8_t *p)
{
	return (uint16_t)((p[0] << 8) | p[1]);
}

static inline uint32_t msf__get_be32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) |
	       ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

static inline uint64_t msf__get_be64(const uint8_t *p)
{
	return ((uint64_t)msf__get_be32(p) << 32) | msf__get_be32(p + 4);
}

static inline void msf__put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void msf__put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static inline void msf__put_be64(uint8_t *p, uint64_t v)
{
	msf__put_be32(p, (uint32_t)(v >> 32));
	msf__put_be32(p + 4, (uint32_t)v);
}

/* Disable @fsg's endpoints if enabled (any context but a completion). */
void msf__disable_eps(struct fsg_dev *fsg);

#endif /* MSF_INTERNAL_H */
