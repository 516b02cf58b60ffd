/*
 * scsi_rw.c - the commands that move medium data: READ and WRITE (all
 * sizes go through here), VERIFY(10), SYNCHRONIZE CACHE(10), and the small
 * OUT data phase of MODE SELECT.
 *
 * The buffer ring makes backing-store I/O overlap the USB transfer: READ
 * fills buffer N+1 from the medium while buffer N is on the wire; WRITE
 * keeps OUT requests queued on free buffers while it writes the full ones.
 * Where the backend offers a window into the host's transfer
 * (usb_ep_get_window()), READ reads the medium straight into it and WRITE
 * writes straight from it instead: one copy of the data, not two.
 * Medium errors become MEDIUM ERROR sense with the failing LBA; FUA and
 * SYNCHRONIZE CACHE flush before the CSW.
 *
 * Portable C11; runs in the worker with the file lock held.
 */
#include <string.h>

#include "msf_internal.h"
#include "msf_os.h"

#define REPLY_FAILED (-USB_EINVAL)
#define REPLY_DONE (-USB_EIO)

static uint32_t min_u32_u64(uint32_t a, uint64_t b)
{
	return b < a ? (uint32_t)b : a;
}

int msf__do_read(struct msf_common *common, uint64_t lba, uint64_t blocks)
{
	struct msf__lun *curlun = common->curlun;
	struct fsg_backend *be = curlun->be;
	uint64_t offset = lba << curlun->blkbits;
	uint64_t amount_left = common->data_size_from_cmnd;
	struct msf__buffhd *bh;
	int rc;

	(void)blocks;	/* data_size_from_cmnd holds it, cut to the host's length */
	if (amount_left == 0)
		return 0;	/* an empty reply: finish_reply stalls if the host wanted data */

	for (;;) {
		uint32_t amount = min_u32_u64(common->xfer_buflen, amount_left);
		int nread;
		bool failed = false;
		void *dst;

		bh = common->next_buffhd_to_fill;
		rc = msf__wait_buf(common, bh, MSF_BUF_EMPTY);
		if (rc)
			return rc;

		/* Straight into the host's transfer where the backend allows. */
		dst = msf__get_window(common, bh, true, &amount, amount_left);
		nread = be->ops->read(be, offset, dst, amount);
		if (nread < 0 || (uint32_t)nread < amount) {
			uint32_t good = nread < 0 ? 0 : (uint32_t)nread;

			/* Send the whole blocks that were read, report the next. */
			good &= ~(curlun->blksize - 1);
			failed = true;
			nread = (int)good;
			msf__lun_set_sense(curlun, SS_UNRECOVERED_READ_ERROR,
					   (offset + good) >> curlun->blkbits, true);
		}
		amount_left -= (uint32_t)nread;
		offset += (uint32_t)nread;
		common->residue -= (uint32_t)nread;

		msf__os_lock(common->os);
		bh->inreq->length = (unsigned)nread;
		bh->state = MSF_BUF_FULL;
		msf__os_unlock(common->os);

		/* The last buffer is sent by finish_reply (it knows about stalls). */
		if (failed || amount_left == 0)
			break;
		bh->inreq->zero = 0;
		if (!msf__start_in_transfer(common, bh)) {
			return -USB_EINTR;	/* disconnected */
		}
		common->next_buffhd_to_fill = bh->next;
	}
	return REPLY_DONE;
}

static int flush_lun(struct msf__lun *curlun)
{
	struct fsg_backend *be = curlun->be;

	if (!be || !be->ops->flush)
		return 0;
	return be->ops->flush(be);
}

/*
 * Write the @amount bytes of the window @bh's request points at (whole
 * blocks of them, as ever) to the medium at *@offset, then queue the
 * request to take them from the host. Return 0, -USB_EINTR
 * (disconnected), or -USB_EIO after a medium error (sense set).
 */
static int write_window(struct msf_common *common, struct msf__buffhd *bh, uint32_t amount,
			uint64_t *offset, uint64_t *amount_left_to_write)
{
	struct msf__lun *curlun = common->curlun;
	struct fsg_backend *be = curlun->be;
	uint32_t whole = min_u32_u64(amount, *amount_left_to_write) & ~(curlun->blksize - 1);
	int nwritten = whole ? be->ops->write(be, *offset, bh->outreq->buf, whole) : 0;

	common->usb_amount_left -= amount;
	bh->bulk_out_intended_length = amount;
	bh->outreq->length = amount;
	bh->outreq->short_not_ok = 0;
	msf__os_lock(common->os);
	bh->out_written = true;
	msf__os_unlock(common->os);
	if (!msf__start_out_transfer(common, bh))
		return -USB_EINTR;
	common->next_buffhd_to_fill = bh->next;
	common->next_buffhd_to_drain = bh->next;
	if (nwritten < 0 || (uint32_t)nwritten < whole) {
		uint32_t good = nwritten < 0 ? 0 : (uint32_t)nwritten & ~(curlun->blksize - 1);

		msf__lun_set_sense(curlun, SS_WRITE_ERROR, (*offset + good) >> curlun->blkbits, true);
		common->residue -= good;
		return -USB_EIO;
	}
	*offset += whole;
	*amount_left_to_write -= whole;
	common->residue -= whole;
	return 0;
}

int msf__do_write(struct msf_common *common, uint64_t lba, uint64_t blocks, bool fua)
{
	struct msf__lun *curlun = common->curlun;
	struct fsg_backend *be = curlun->be;
	uint64_t offset = lba << curlun->blkbits;
	uint64_t amount_left_to_req, amount_left_to_write;
	struct msf__buffhd *bh;
	bool get_some_more = true;
	bool failed = false;
	int rc;

	(void)blocks;
	if (curlun->ro) {
		msf__lun_set_sense(curlun, SS_WRITE_PROTECTED, 0, false);
		return REPLY_FAILED;
	}
	if (curlun->nofua)
		fua = false;
	if (!curlun->wce)
		fua = true;	/* write-through when the host turned the cache off */

	amount_left_to_req = amount_left_to_write = common->data_size_from_cmnd;
	if (amount_left_to_req == 0)
		get_some_more = false;

	while (amount_left_to_write > 0) {
		uint32_t amount;
		int nwritten;

		/* Queue OUT requests on every free buffer while data is due. */
		bh = common->next_buffhd_to_fill;
		if (get_some_more && msf__buf_state(common, bh) == MSF_BUF_EMPTY) {
			bool windowed;

			amount = min_u32_u64(common->xfer_buflen, amount_left_to_req);
			/* Nothing in flight: write straight from the host's transfer. */
			windowed = bh == common->next_buffhd_to_drain &&
				   msf__get_window(common, bh, false, &amount, amount_left_to_req) != bh->buf;
			amount_left_to_req -= amount;
			if (amount_left_to_req == 0)
				get_some_more = false;
			if (windowed) {
				rc = write_window(common, bh, amount, &offset, &amount_left_to_write);
				if (rc == -USB_EINTR)
					return rc;
				if (rc) {
					failed = true;
					break;
				}
				continue;
			}
			common->usb_amount_left -= amount;
			msf__set_bulk_out_req_length(common, bh, amount);
			if (!msf__start_out_transfer(common, bh))
				return -USB_EINTR;	/* disconnected */
			common->next_buffhd_to_fill = bh->next;
			continue;
		}

		/* Write the oldest full buffer. */
		bh = common->next_buffhd_to_drain;
		if (!get_some_more && msf__buf_state(common, bh) == MSF_BUF_EMPTY)
			break;		/* nothing queued any more */
		rc = msf__wait_buf(common, bh, MSF_BUF_FULL);
		if (rc)
			return rc;
		common->next_buffhd_to_drain = bh->next;
		msf__os_lock(common->os);
		bh->state = MSF_BUF_EMPTY;
		msf__os_unlock(common->os);

		if (bh->outreq->status) {
			msf__lun_set_sense(curlun, SS_COMMUNICATION_FAILURE, 0, false);
			failed = true;
			break;
		}
		amount = bh->outreq->actual;
		if (amount > bh->bulk_out_intended_length)
			amount = bh->bulk_out_intended_length;
		if (amount > amount_left_to_write)
			amount = (uint32_t)amount_left_to_write;
		/* Only whole blocks reach the medium. */
		amount &= ~(curlun->blksize - 1);
		if (amount) {
			nwritten = be->ops->write(be, offset, bh->buf, amount);
			if (nwritten < 0 || (uint32_t)nwritten < amount) {
				uint32_t good = nwritten < 0 ? 0 : (uint32_t)nwritten;

				good &= ~(curlun->blksize - 1);
				msf__lun_set_sense(curlun, SS_WRITE_ERROR,
						   (offset + good) >> curlun->blkbits, true);
				common->residue -= good;
				failed = true;
				break;
			}
			offset += amount;
			amount_left_to_write -= amount;
			common->residue -= amount;
		}
		if (bh->outreq->actual < bh->bulk_out_intended_length) {
			common->short_packet_received = true;
			break;
		}
	}

	/* Durable before the CSW when the host asked (FUA). */
	if (!failed && fua && flush_lun(curlun) < 0)
		msf__lun_set_sense(curlun, SS_WRITE_ERROR, lba, true);
	return REPLY_DONE;
}

int msf__do_synchronize_cache(struct msf_common *common)
{
	struct msf__lun *curlun = common->curlun;

	if (flush_lun(curlun) < 0) {
		msf__lun_set_sense(curlun, SS_WRITE_ERROR, 0, false);
		return REPLY_FAILED;
	}
	return 0;
}

/*
 * VERIFY(10) without BYTCHK: read the range back from the medium (after a
 * flush, so the blocks on the medium are what is checked).
 */
int msf__do_verify(struct msf_common *common)
{
	struct msf__lun *curlun = common->curlun;
	struct fsg_backend *be = curlun->be;
	uint64_t lba = msf__get_be32(common->cmnd + 2);
	uint64_t blocks = msf__get_be16(common->cmnd + 7);
	uint64_t offset, amount_left;
	struct msf__buffhd *bh = common->next_buffhd_to_fill;

	/* DPO is allowed and ignored; BYTCHK (compare) is not supported. */
	if (common->cmnd[1] & ~0x10u) {
		msf__lun_set_sense(curlun, SS_INVALID_FIELD_IN_CDB, 0, false);
		return REPLY_FAILED;
	}
	if (lba >= curlun->num_sectors || blocks > curlun->num_sectors - lba) {
		msf__lun_set_sense(curlun, SS_LOGICAL_BLOCK_ADDRESS_OUT_OF_RANGE, lba, true);
		return REPLY_FAILED;
	}
	(void)flush_lun(curlun);

	offset = lba << curlun->blkbits;
	amount_left = blocks << curlun->blkbits;
	while (amount_left > 0) {
		uint32_t amount = min_u32_u64(common->buflen, amount_left);
		int nread;

		if (msf__exception_pending(common))
			return -USB_EINTR;
		nread = be->ops->read(be, offset, bh->buf, amount);
		if (nread < 0 || (uint32_t)nread < amount) {
			uint32_t good = nread < 0 ? 0 : (uint32_t)nread;

			msf__lun_set_sense(curlun, SS_UNRECOVERED_READ_ERROR,
					   (offset + good) >> curlun->blkbits, true);
			return REPLY_FAILED;
		}
		offset += amount;
		amount_left -= amount;
	}
	return 0;
}

int msf__receive_data(struct msf_common *common, struct msf__buffhd *bh,
		      uint32_t *got)
{
	uint32_t amount = (uint32_t)common->data_size_from_cmnd;
	int rc;

	*got = 0;
	if (amount > common->xfer_buflen)
		amount = common->xfer_buflen;
	if (amount == 0)
		return 0;
	msf__set_bulk_out_req_length(common, bh, amount);
	common->usb_amount_left -= amount;
	if (!msf__start_out_transfer(common, bh))
		return -USB_EINTR;
	rc = msf__wait_buf(common, bh, MSF_BUF_FULL);
	if (rc)
		return rc;
	msf__os_lock(common->os);
	bh->state = MSF_BUF_EMPTY;
	msf__os_unlock(common->os);
	if (bh->outreq->status)
		return -USB_EINTR;
	*got = bh->outreq->actual < amount ? bh->outreq->actual : amount;
	common->residue -= *got;
	if (bh->outreq->actual < bh->bulk_out_intended_length)
		common->short_packet_received = true;
	return 0;
}
