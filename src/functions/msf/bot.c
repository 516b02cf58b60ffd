/*
 * bot.c - Bulk-Only Transport and the worker loop: receiving and checking
 * CBWs, the end of the data phase for the 13 host/device cases
 * (finish_reply), the CSW, stalls and wedges, and exceptions (reset,
 * configuration change, exit) that interrupt all of it.
 *
 * Portable C11: threads and locks only through msf_os.h. Touches the
 * common object's transport state and its buffer ring; SCSI commands are
 * scsi.c's, LUN state lun.c's.
 *
 * One protocol core, two drivers: a worker thread (worker_posix.c), whose
 * waits sleep, or none (fsg_config.polled): every wait then returns
 * -USB_EAGAIN instead, the phase in common->phase and the progress kept
 * in the common object let fsg_common_poll() resume where it stopped.
 */
#include <string.h>

#include "msf_internal.h"
#include "msf_os.h"

/* ---- sleeping and exceptions --------------------------------------------- */

bool msf__exception_pending(struct msf_common *common)
{
	return common->state > MSF_STATE_NORMAL;
}

int msf__sleep_locked(struct msf_common *common, bool can_freeze)
{
	(void)can_freeze;
	if (msf__exception_pending(common))
		return -USB_EINTR;
	if (common->polled)
		return -USB_EAGAIN;	/* a completion or request will poll again */
	common->wait_any = true;
	msf__os_wait(common->os);
	common->wait_any = false;
	return msf__exception_pending(common) ? -USB_EINTR : 0;
}

/*
 * Adaptive polling before sleeping on a buffer: with a host that answers
 * within microseconds (the in-process host), waking a sleeping
 * thread on another CPU costs more than the wait itself (a third of the
 * throughput on an idle machine). The budget is full again when polling
 * succeeds and shrinks by an eighth each time it does not, so a slow host
 * (USB/IP over a network) soon costs only MSF_SPIN_MIN polls per wait.
 */
#define MSF_SPIN_MIN 64u
#define MSF_SPIN_MAX 200000u
/* Polls between two msf__os_relax(): the thread we wait for may share our
 * CPU (the scheduler puts a woken thread beside its waker). */
#define MSF_SPIN_RELAX 64u

static bool spin_for(struct msf_common *common, struct msf__buffhd *bh,
		     enum msf__buf_state state)
{
	unsigned budget = common->spin_budget;

	if (!msf__os_poll_begin(common->os))
		return false;
	if (budget < MSF_SPIN_MIN)
		budget = MSF_SPIN_MIN;
	for (unsigned i = 0; i < budget; i++) {
		if (atomic_load_explicit(&bh->state, memory_order_acquire) == state) {
			common->spin_budget = MSF_SPIN_MAX;
			msf__os_poll_end(common->os);
			return true;
		}
		if (i % MSF_SPIN_RELAX == MSF_SPIN_RELAX - 1)
			msf__os_relax(common->os);
	}
	common->spin_budget = budget - budget / 8;
	msf__os_poll_end(common->os);
	return false;
}

int msf__wait_buf(struct msf_common *common, struct msf__buffhd *bh,
		  enum msf__buf_state state)
{
	int rc = 0;

	if (!common->polled && spin_for(common, bh, state))
		return 0;
	msf__os_lock(common->os);
	while (bh->state != state) {
		if (msf__exception_pending(common)) {
			rc = -USB_EINTR;
			break;
		}
		if (common->polled) {
			rc = -USB_EAGAIN;
			break;
		}
		/* Completions of other buffers need not wake us (see msf.c). */
		common->wait_bh = bh;
		msf__os_wait(common->os);
		common->wait_bh = NULL;
	}
	msf__os_unlock(common->os);
	return rc;
}

enum msf__buf_state msf__buf_state(struct msf_common *common, struct msf__buffhd *bh)
{
	enum msf__buf_state st;

	msf__os_lock(common->os);
	st = bh->state;
	msf__os_unlock(common->os);
	return st;
}

void msf__wake_for(struct msf_common *common, struct msf__buffhd *bh)
{
	if (common->wait_any || common->wait_bh == bh || common->wait_bh == NULL)
		msf__os_wake(common->os);
}

void msf__raise_exception(struct msf_common *common, enum msf__state state)
{
	msf__os_lock(common->os);
	if (common->state < state) {
		common->state = state;
		msf__os_wake(common->os);
	}
	msf__os_unlock(common->os);
}

/* ---- requests ------------------------------------------------------------ */

bool msf__start_in_transfer(struct msf_common *common, struct msf__buffhd *bh)
{
	struct fsg_dev *fsg = common->fsg;
	int rc;

	if (!fsg)
		return false;
	msf__os_lock(common->os);
	bh->inreq_busy = true;
	bh->state = MSF_BUF_BUSY;
	msf__os_unlock(common->os);
	rc = usb_ep_queue(fsg->bulk_in, bh->inreq, USB_GFP_ATOMIC);
	if (rc) {
		/* Not queued, so no completion: undo as if it had completed. */
		msf__os_lock(common->os);
		bh->inreq_busy = false;
		bh->state = MSF_BUF_EMPTY;
		msf__os_unlock(common->os);
		return false;
	}
	return true;
}

bool msf__start_out_transfer(struct msf_common *common, struct msf__buffhd *bh)
{
	struct fsg_dev *fsg = common->fsg;
	int rc;

	if (!fsg)
		return false;
	msf__os_lock(common->os);
	bh->outreq_busy = true;
	bh->state = MSF_BUF_BUSY;
	msf__os_unlock(common->os);
	rc = usb_ep_queue(fsg->bulk_out, bh->outreq, USB_GFP_ATOMIC);
	if (rc) {
		msf__os_lock(common->os);
		bh->outreq_busy = false;
		bh->state = MSF_BUF_EMPTY;
		msf__os_unlock(common->os);
		return false;
	}
	return true;
}

void msf__set_bulk_out_req_length(struct msf_common *common,
				  struct msf__buffhd *bh, uint32_t length)
{
	uint32_t mp = common->bulk_out_maxpacket ? common->bulk_out_maxpacket : 512u;
	uint32_t rem = length % mp;

	bh->bulk_out_intended_length = length;
	/* OUT requests are whole packets; buflen is a multiple of 512. */
	if (rem)
		length += mp - rem;
	if (length > common->xfer_buflen)
		length = common->xfer_buflen;
	bh->outreq->length = length;
	bh->outreq->short_not_ok = 0;
}

/*
 * Halt bulk-IN after the data queued on it went out: the backend refuses
 * (USB_EAGAIN) while IN requests are queued, so wait for them.
 */
int msf__halt_bulk_in(struct msf_common *common)
{
	struct fsg_dev *fsg = common->fsg;
	int rc;

	if (!fsg)
		return -USB_ESHUTDOWN;
	for (;;) {
		bool busy = false;

		msf__os_lock(common->os);
		for (unsigned i = 0; i < common->fsg_num_buffers; i++)
			busy |= common->buffhds[i].inreq_busy;
		while (busy) {
			rc = msf__sleep_locked(common, true);
			if (rc) {
				msf__os_unlock(common->os);
				return rc;
			}
			busy = false;
			for (unsigned i = 0; i < common->fsg_num_buffers; i++)
				busy |= common->buffhds[i].inreq_busy;
		}
		msf__os_unlock(common->os);
		rc = usb_ep_set_halt(fsg->bulk_in);
		if (rc != -USB_EAGAIN)
			return rc;
	}
}

int msf__halt_bulk_out(struct msf_common *common)
{
	if (!common->fsg)
		return -USB_ESHUTDOWN;
	return usb_ep_set_halt(common->fsg->bulk_out);
}

/* An invalid CBW: both bulk endpoints stay halted until Reset Recovery. */
static void wedge_bulk_endpoints(struct msf_common *common)
{
	struct fsg_dev *fsg = common->fsg;
	int rc;

	if (!fsg)
		return;
	(void)usb_ep_set_wedge(fsg->bulk_out);
	do {
		/* No IN request is queued between commands; retry if racing. */
		rc = usb_ep_set_wedge(fsg->bulk_in);
		if (rc == -USB_EAGAIN && common->polled) {
			/* The last CSW is still queued: the next poll retries. */
			common->wedge_pending = true;
			return;
		}
		if (rc == -USB_EAGAIN && msf__halt_bulk_in(common) == -USB_EINTR)
			return;
	} while (rc == -USB_EAGAIN);
}

/* Polled: wedge bulk-IN once the CSW queued on it went out. */
static int finish_wedge(struct msf_common *common)
{
	int rc;

	if (!common->fsg) {
		common->wedge_pending = false;
		return 0;
	}
	rc = usb_ep_set_wedge(common->fsg->bulk_in);
	if (rc == -USB_EAGAIN)
		return rc;
	common->wedge_pending = false;
	return 0;
}

/* ---- command phase -------------------------------------------------------- */

/* Check a received CBW and take the command out of it. */
static int received_cbw(struct msf_common *common, struct msf__buffhd *bh)
{
	struct usb_request *req = bh->outreq;
	const uint8_t *cbw = req->buf;
	uint8_t flags, lun, cblen;

	/* Was this a real packet? Should it be ignored? */
	if (req->status || !common->fsg)
		return -USB_EINVAL;

	/* Valid: exactly 31 bytes with the signature (BOT 6.2.1). */
	if (req->actual != MSF_CBW_LEN || usb_get_le32(cbw) != MSF_CBW_SIGNATURE) {
		wedge_bulk_endpoints(common);
		return -USB_EINVAL;
	}

	/* Meaningful: no reserved bits, a LUN, a CDB of 1..16 bytes (6.2.2). */
	flags = cbw[12];
	lun = cbw[13];
	cblen = cbw[14];
	if ((lun & 0xf0u) || (flags & ~MSF_CBW_FLAG_IN) || (cblen & 0xe0u) ||
	    cblen < 1 || cblen > MSF_MAX_CDB) {
		if (common->can_stall)
			wedge_bulk_endpoints(common);
		return -USB_EINVAL;
	}

	common->cmnd_size = cblen;
	memcpy(common->cmnd, cbw + 15, MSF_MAX_CDB);
	common->data_size = usb_get_le32(cbw + 8);
	if (common->data_size == 0)
		common->data_dir = MSF_DIR_NONE;
	else if (flags & MSF_CBW_FLAG_IN)
		common->data_dir = MSF_DIR_TO_HOST;
	else
		common->data_dir = MSF_DIR_FROM_HOST;
	common->tag = usb_get_le32(cbw + 4);
	common->lun = lun;
	common->curlun = lun < common->nluns ? &common->luns[lun] : NULL;
	return 0;
}

/* Queue the OUT request for the next CBW on @bh (a whole packet: BOT 6.2). */
static bool queue_cbw(struct msf_common *common, struct msf__buffhd *bh)
{
	msf__set_bulk_out_req_length(common, bh, MSF_CBW_LEN);
	if (!msf__start_out_transfer(common, bh))
		return false;
	common->cbw_bh = bh;
	return true;
}

static int get_next_command(struct msf_common *common)
{
	struct msf__buffhd *bh = common->cbw_bh;
	int rc;

	if (!bh) {
		/* Not queued ahead by send_status() (first command, after an exception). */
		bh = common->next_buffhd_to_fill;
		rc = msf__wait_buf(common, bh, MSF_BUF_EMPTY);
		if (rc)
			return rc;
		if (!queue_cbw(common, bh)) {
			/* Disconnected: an exception is on its way; do not spin. */
			msf__os_lock(common->os);
			rc = msf__sleep_locked(common, true);
			msf__os_unlock(common->os);
			return rc == -USB_EAGAIN ? rc : -USB_EIO;
		}
	}

	rc = msf__wait_buf(common, bh, MSF_BUF_FULL);
	if (rc == -USB_EAGAIN)
		return rc;	/* cbw_bh stays: the next poll waits again */
	common->cbw_bh = NULL;
	if (rc)
		return rc;
	rc = received_cbw(common, bh);
	msf__os_lock(common->os);
	bh->state = MSF_BUF_EMPTY;
	msf__os_unlock(common->os);
	return rc;
}

/* ---- data phase end and status ------------------------------------------- */

/* Read and drop the OUT data the host still sends (cases 9, 11). */
static int throw_away_data(struct msf_common *common)
{
	struct msf__buffhd *bh, *bh2;
	uint32_t amount;
	int rc;

	for (;;) {
		bh = common->next_buffhd_to_drain;
		if (msf__buf_state(common, bh) == MSF_BUF_EMPTY && common->usb_amount_left == 0)
			return 0;

		/* Keep requests queued while there is more to come. */
		bh2 = common->next_buffhd_to_fill;
		if (common->usb_amount_left > 0 && msf__buf_state(common, bh2) == MSF_BUF_EMPTY) {
			amount = common->usb_amount_left < common->xfer_buflen ?
				 common->usb_amount_left : common->xfer_buflen;
			msf__set_bulk_out_req_length(common, bh2, amount);
			if (!msf__start_out_transfer(common, bh2))
				return -USB_EIO;
			common->next_buffhd_to_fill = bh2->next;
			common->usb_amount_left -= amount;
			continue;
		}

		rc = msf__wait_buf(common, bh, MSF_BUF_FULL);
		if (rc)
			return rc;
		msf__os_lock(common->os);
		bh->state = MSF_BUF_EMPTY;
		msf__os_unlock(common->os);
		common->next_buffhd_to_drain = bh->next;

		/* A short packet or an error ends the data phase. */
		if (bh->outreq->actual < bh->bulk_out_intended_length ||
		    bh->outreq->status) {
			msf__raise_exception(common, MSF_STATE_ABORT_BULK_OUT);
			return -USB_EINTR;
		}
	}
}

/*
 * End the data phase (Linux's finish_reply): send the last IN buffer and
 * stall if the host wanted more (cases 4, 5, 8), or take the OUT data the
 * command did not use (9, 11) or stall bulk-OUT for a direction
 * conflict (10).
 */
static int finish_reply(struct msf_common *common)
{
	struct msf__buffhd *bh = common->next_buffhd_to_fill;
	int rc = 0;

	switch (common->data_dir) {
	case MSF_DIR_NONE:
		break;

	case MSF_DIR_TO_HOST:
		if (common->data_size == 0)
			break;
		if (!common->fsg)
			return -USB_EIO;
		if (common->residue == 0) {
			if (common->reply_queued)
				break;
			bh->inreq->zero = 0;
			if (!msf__start_in_transfer(common, bh))
				return -USB_EIO;
			common->next_buffhd_to_fill = bh->next;
			common->reply_queued = true;
			break;
		}
		/*
		 * Short reply: end the data with a short packet, then stall
		 * so the host does not wait for the rest (BOT 6.7.2). A polled
		 * worker comes back here (reply_queued) until the halt is set.
		 */
		if (!common->reply_queued) {
			bh->inreq->zero = 1;
			if (!msf__start_in_transfer(common, bh))
				rc = -USB_EIO;
			common->next_buffhd_to_fill = bh->next;
			common->reply_queued = true;
		}
		if (common->can_stall)
			rc = msf__halt_bulk_in(common);
		break;

	case MSF_DIR_FROM_HOST:
		if (common->residue == 0)
			break;
		if (common->short_packet_received) {
			/* The host ended early: cancel what is still queued. */
			msf__raise_exception(common, MSF_STATE_ABORT_BULK_OUT);
			return -USB_EINTR;
		}
		if (common->phase_error && common->can_stall &&
		    common->usb_amount_left == common->data_size) {
			/*
			 * Case 10 (host sends, device wanted to send) or 13's
			 * cousin: nothing was taken; stall bulk-OUT as BOT
			 * 6.7.3 says. The host recovers with Reset Recovery.
			 */
			rc = msf__halt_bulk_out(common);
			break;
		}
		/*
		 * Excess data (cases 9, 11): read and drop it instead of
		 * stalling - a stall could race with packets the controller
		 * already acknowledged (as Linux does).
		 */
		rc = throw_away_data(common);
		break;
	}
	return rc;
}

/*
 * Send the CSW. A polled worker resumes at common->status_step: 1 once
 * the CSW is in its buffer, 2 once the next CBW's request is queued.
 * Return 0, or -USB_EAGAIN (polled: call again).
 */
static int send_status(struct msf_common *common)
{
	struct msf__buffhd *bh = common->next_buffhd_to_fill;
	struct msf__lun *curlun = common->curlun;
	uint8_t *csw;
	uint8_t status = MSF_CSW_PASSED;
	uint32_t sd;
	int rc;

	if (common->status_step >= 1)
		goto queue_cbw_ahead;
	rc = msf__wait_buf(common, bh, MSF_BUF_EMPTY);
	if (rc)
		return rc == -USB_EAGAIN ? rc : 0;

	msf__os_file_lock(common->os);
	if (curlun)
		sd = curlun->sense_data;
	else if (common->bad_lun_okay)
		sd = SS_NO_SENSE;
	else
		sd = SS_LOGICAL_UNIT_NOT_SUPPORTED;
	msf__os_file_unlock(common->os);

	if (common->phase_error)
		status = MSF_CSW_PHASE_ERROR;
	else if (sd != SS_NO_SENSE)
		status = MSF_CSW_FAILED;

	csw = bh->buf;
	usb_put_le32(csw, MSF_CSW_SIGNATURE);
	usb_put_le32(csw + 4, common->tag);
	usb_put_le32(csw + 8, common->residue);
	csw[12] = status;

	bh->inreq->length = MSF_CSW_LEN;
	bh->inreq->zero = 0;
	common->status_step = 1;

queue_cbw_ahead:
	/*
	 * Queue the next CBW's request before the CSW: the host sends the CBW
	 * right after reading the CSW and then finds it waiting, and the
	 * worker does not queue while the host is busy with the CSW.
	 */
	if (common->status_step == 1) {
		rc = msf__wait_buf(common, bh->next, MSF_BUF_EMPTY);
		if (rc == -USB_EAGAIN)
			return rc;
		if (rc == 0)
			(void)queue_cbw(common, bh->next);
		common->status_step = 2;
	}
	common->status_step = 0;
	if (msf__start_in_transfer(common, bh))
		common->next_buffhd_to_fill = bh->next;
	return 0;
}

/* ---- exceptions ------------------------------------------------------------ */

/*
 * Cancel every transfer in flight and wait until they are back. 0, or
 * -USB_EAGAIN (polled: some are not given back yet; call again).
 */
static int cancel_transfers(struct msf_common *common)
{
	struct fsg_dev *fsg = common->fsg;
	unsigned i;

	if (fsg) {
		for (i = 0; i < common->fsg_num_buffers; i++) {
			struct msf__buffhd *bh = &common->buffhds[i];
			bool in_busy, out_busy;

			msf__os_lock(common->os);
			in_busy = bh->inreq_busy;
			out_busy = bh->outreq_busy;
			msf__os_unlock(common->os);
			if (in_busy)
				(void)usb_ep_dequeue(fsg->bulk_in, bh->inreq);
			if (out_busy)
				(void)usb_ep_dequeue(fsg->bulk_out, bh->outreq);
		}
		msf__os_lock(common->os);
		for (;;) {
			bool busy = false;

			for (i = 0; i < common->fsg_num_buffers; i++)
				busy |= common->buffhds[i].inreq_busy ||
					common->buffhds[i].outreq_busy;
			if (!busy)
				break;
			if (common->polled) {
				msf__os_unlock(common->os);
				return -USB_EAGAIN;
			}
			common->wait_any = true;
			msf__os_wait(common->os);
			common->wait_any = false;
		}
		msf__os_unlock(common->os);
		if (fsg->bulk_in_enabled)
			usb_ep_fifo_flush(fsg->bulk_in);
		if (fsg->bulk_out_enabled)
			usb_ep_fifo_flush(fsg->bulk_out);
	}
	return 0;
}

/* Reset Recovery, configuration change, exit. 0, or -USB_EAGAIN (polled). */
static int handle_exception(struct msf_common *common)
{
	enum msf__state old_state;
	struct fsg_dev *new_fsg;
	bool continue_ep0;
	unsigned i;

	if (cancel_transfers(common))
		return -USB_EAGAIN;

	/* Reset the ring, the command state and the exception. */
	msf__os_file_lock(common->os);
	msf__os_lock(common->os);
	for (i = 0; i < common->fsg_num_buffers; i++)
		common->buffhds[i].state = MSF_BUF_EMPTY;
	common->next_buffhd_to_fill = &common->buffhds[0];
	common->next_buffhd_to_drain = &common->buffhds[0];
	common->cbw_bh = NULL;	/* its request was cancelled above */
	common->phase = MSF_PHASE_COMMAND;
	common->cmd_resume = false;
	common->reply_queued = false;
	common->recv_queued = false;
	common->wedge_pending = false;
	common->status_step = 0;
	new_fsg = common->new_fsg;
	old_state = common->state;
	if (old_state != MSF_STATE_EXIT && old_state != MSF_STATE_TERMINATED)
		common->state = MSF_STATE_NORMAL;
	continue_ep0 = common->ep0_delayed &&
		       (old_state == MSF_STATE_PROTOCOL_RESET ||
			(old_state == MSF_STATE_CONFIG_CHANGE && new_fsg));
	if (continue_ep0)
		common->ep0_delayed = false;
	msf__os_unlock(common->os);

	if (old_state != MSF_STATE_ABORT_BULK_OUT) {
		for (i = 0; i < common->nluns; i++) {
			struct msf__lun *lun = &common->luns[i];

			lun->prevent_medium_removal = false;
			lun->sense_data = SS_NO_SENSE;
			lun->sense_data_info = 0;
			lun->info_valid = false;
			/* A pending MEDIUM CHANGED survives a BOT reset. */
		}
	}
	msf__os_file_unlock(common->os);

	switch (old_state) {
	case MSF_STATE_NORMAL:
		break;
	case MSF_STATE_ABORT_BULK_OUT:
		/* The host ended the data early: the CSW is still owed. */
		common->phase = MSF_PHASE_STATUS;
		break;
	case MSF_STATE_PROTOCOL_RESET:
		/*
		 * Bulk-Only Mass Storage Reset: the next CBW may come. The
		 * wedge from an invalid CBW ends here; the host's
		 * CLEAR_FEATURE(HALT) that follows finds the endpoints clear.
		 */
		if (common->fsg) {
			(void)usb_ep_clear_halt(common->fsg->bulk_in);
			(void)usb_ep_clear_halt(common->fsg->bulk_out);
		}
		break;
	case MSF_STATE_CONFIG_CHANGE:
		(void)msf__do_set_interface(common, new_fsg);
		break;
	case MSF_STATE_EXIT:
	case MSF_STATE_TERMINATED:
		(void)msf__do_set_interface(common, NULL);
		msf__os_lock(common->os);
		common->state = MSF_STATE_TERMINATED;
		msf__os_unlock(common->os);
		break;
	}
	if (continue_ep0)
		usb_composite_setup_continue(common->cdev);
	return 0;
}

/* ---- the worker ------------------------------------------------------------ */

/* The end of a phase: the next one, or back to the next command when it
 * failed or an exception came. -USB_EAGAIN leaves the phase as it is. */
static int next_phase(struct msf_common *common, int rc, enum msf__phase next)
{
	if (rc == -USB_EAGAIN)
		return rc;
	if (rc || msf__exception_pending(common))
		next = MSF_PHASE_COMMAND;
	common->phase = next;
	return 0;
}

/* One command, from where the last call stopped. 0 or -USB_EAGAIN. */
static int run_command(struct msf_common *common)
{
	int rc;

	if (common->wedge_pending && finish_wedge(common))
		return -USB_EAGAIN;
	switch (common->phase) {
	case MSF_PHASE_COMMAND:
		rc = get_next_command(common);
		if (next_phase(common, rc, MSF_PHASE_DATA) || common->phase != MSF_PHASE_DATA)
			return rc == -USB_EAGAIN ? rc : 0;
		common->cmd_resume = false;
		common->reply_queued = false;
		common->recv_queued = false;
		/* fall through */
	case MSF_PHASE_DATA:
		rc = msf__do_scsi_command(common);
		if (next_phase(common, rc, MSF_PHASE_FINISH) || common->phase != MSF_PHASE_FINISH)
			return rc == -USB_EAGAIN ? rc : 0;
		/* fall through */
	case MSF_PHASE_FINISH:
		rc = finish_reply(common);
		if (next_phase(common, rc, MSF_PHASE_STATUS) || common->phase != MSF_PHASE_STATUS)
			return rc == -USB_EAGAIN ? rc : 0;
		/* fall through */
	case MSF_PHASE_STATUS:
		rc = send_status(common);
		return next_phase(common, rc, MSF_PHASE_COMMAND);
	}
	return 0;
}

/* The worker has left its loop: close the media, tell who waits. */
static void worker_finish(struct msf_common *common)
{
	/* Close every medium so its filesystem can be unmounted. */
	msf__os_file_lock(common->os);
	for (unsigned i = 0; i < common->nluns; i++)
		msf__lun_close(&common->luns[i]);
	msf__os_file_unlock(common->os);

	msf__os_lock(common->os);
	common->worker_done = true;
	msf__os_wake(common->os);
	msf__os_unlock(common->os);
}

int msf__worker_step(struct msf_common *common)
{
	bool terminated, running, pending;

	msf__os_lock(common->os);
	terminated = common->state == MSF_STATE_TERMINATED;
	pending = msf__exception_pending(common);
	running = common->running;
	if (!terminated && !pending && !running && !common->polled)
		msf__os_wait(common->os);
	msf__os_unlock(common->os);
	if (terminated) {
		if (!common->worker_done)
			worker_finish(common);
		return MSF_STEP_DONE;
	}
	if (pending)
		return handle_exception(common) ? MSF_STEP_WAIT : MSF_STEP_PROGRESS;
	if (!running)
		return common->polled ? MSF_STEP_WAIT : MSF_STEP_PROGRESS;
	return run_command(common) ? MSF_STEP_WAIT : MSF_STEP_PROGRESS;
}

void msf__worker_run_until(struct msf_common *common,
			   bool (*until)(struct msf_common *common))
{
	/* Each round either progresses or waits for a give-back that
	 * usb_ep_dequeue() and usb_ep_disable() do before they return; the
	 * bound only keeps a broken UDC from hanging the caller. */
	for (unsigned idle = 0; idle < 64 && !until(common);) {
		int st = msf__worker_step(common);

		if (st == MSF_STEP_DONE)
			break;
		idle = st == MSF_STEP_WAIT ? idle + 1 : 0;
	}
}

void msf__worker_main(struct msf_common *common)
{
	bool free_it;

	while (msf__worker_step(common) != MSF_STEP_DONE)
		;

	/* Stopped on its own (a signal): tell the driver. */
	msf__os_lock(common->os);
	free_it = common->releasing;
	msf__os_unlock(common->os);
	if (!free_it && common->thread_exits)
		(void)common->thread_exits(common->handle);

	/*
	 * thread_exits may have dropped the last reference (through
	 * usb_composite_unregister()): the release then left the freeing to
	 * this thread, which must not be joined by itself.
	 */
	msf__os_lock(common->os);
	free_it = common->free_by_worker;
	msf__os_unlock(common->os);
	if (free_it) {
		msf__os_thread_detach(common->os);
		msf__common_free(common);
	}
}
