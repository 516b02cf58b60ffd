/*
 * scsi_rw.c - the commands that move medium data: READ and WRITE (all
 * sizes: their CDBs are decoded and checked here), VERIFY(10),
 * SYNCHRONIZE CACHE(10), and the small OUT data phase of MODE SELECT.
 *
 * The buffer ring makes backing-store I/O overlap the USB transfer: READ
 * fills buffer N+1 from the medium while buffer N is on the wire; WRITE
 * keeps OUT requests queued on free buffers while it writes the full ones.
 * Medium errors become MEDIUM ERROR sense with the failing LBA; FUA and
 * SYNCHRONIZE CACHE flush before the CSW.
 *
 * Portable C11; runs in the worker with the file lock held.
 */
#include <string.h>

#include "msf_internal.h"
#include "msf_os.h"

#define REPLY_FAILED (-USB_EINVAL)

/* Operation codes. */
#define SC_READ_6 0x08
#define SC_WRITE_6 0x0a
#define SC_READ_10 0x28
#define SC_WRITE_10 0x2a
#define SC_READ_16 0x88
#define SC_WRITE_16 0x8a
#define SC_READ_12 0xa8
#define SC_WRITE_12 0xaa

static uint32_t min_u32_u64(uint32_t a, uint64_t b)
{
	return b < a ? (uint32_t)b : a;
}

/*
 * A backend call that answered -USB_EAGAIN (the non-blocking form: a slow
 * flash still busy). Polled: give the CPU back (the next poll calls
 * again). Thread: relax and retry, unless an exception came.
 * Return -USB_EAGAIN, or 0 to retry at once, or -USB_EINTR.
 */
static int medium_busy(struct msf_common *common)
{
	if (common->polled)
		return -USB_EAGAIN;
	if (msf__exception_pending(common))
		return -USB_EINTR;
	msf__os_relax(common->os);
	return 0;
}

static int read_continue(struct msf_common *common, bool *done)
{
	struct msf__lun *curlun = common->curlun;
	struct fsg_backend *be = curlun->be;
	struct msf__buffhd *bh;
	int rc;

	for (;;) {
		uint32_t amount = common->rw.left_to_write < common->xfer_buflen ?
				  common->rw.left_to_write : common->xfer_buflen;
		int nread;
		bool failed = false;

		bh = common->next_buffhd_to_fill;
		rc = msf__wait_buf(common, bh, MSF_BUF_EMPTY);
		if (rc)
			return rc;

		nread = be->ops->read(be, common->rw.offset, bh->buf, amount);
		if (nread == -USB_EAGAIN) {
			rc = medium_busy(common);
			if (rc)
				return rc;
			continue;
		}
		if (nread < 0 || (uint32_t)nread < amount) {
			uint32_t good = nread < 0 ? 0 : (uint32_t)nread;

			/* Send the whole blocks that were read, report the next. */
			good &= ~(curlun->blksize - 1);
			failed = true;
			nread = (int)good;
			msf__lun_set_sense(curlun, SS_UNRECOVERED_READ_ERROR,
					   (common->rw.offset + good) >> curlun->blkbits, true);
		}
		common->rw.left_to_write -= (uint32_t)nread;
		common->rw.offset += (uint32_t)nread;
		common->residue -= (uint32_t)nread;

		msf__os_lock(common->os);
		bh->inreq->length = (unsigned)nread;
		bh->state = MSF_BUF_FULL;
		msf__os_unlock(common->os);

		/* The last buffer is sent by finish_reply (it knows about stalls). */
		if (failed || common->rw.left_to_write == 0)
			break;
		bh->inreq->zero = 0;
		if (!msf__start_in_transfer(common, bh)) {
			return -USB_EINTR;	/* disconnected */
		}
		common->next_buffhd_to_fill = bh->next;
	}
	*done = true;
	return 0;
}

int msf__do_read(struct msf_common *common, uint64_t lba, uint64_t blocks, bool *done)
{
	(void)blocks;	/* data_size_from_cmnd holds it, cut to the host's length */
	if (common->data_size_from_cmnd == 0)
		return 0;	/* an empty reply: finish_reply stalls if the host wanted data */
	common->rw.write = false;
	common->rw.lba = lba;
	common->rw.offset = lba << common->curlun->blkbits;
	common->rw.left_to_write = common->data_size_from_cmnd;
	return read_continue(common, done);
}

static int flush_lun(struct msf__lun *curlun)
{
	struct fsg_backend *be = curlun->be;

	if (!be || !be->ops->flush)
		return 0;
	return be->ops->flush(be);
}

/* Flush for FUA / SYNCHRONIZE CACHE: 0, -USB_EAGAIN (polled), or < 0. */
static int flush_wait(struct msf_common *common)
{
	int rc;

	while ((rc = flush_lun(common->curlun)) == -USB_EAGAIN) {
		rc = medium_busy(common);
		if (rc)
			return rc;
	}
	return rc;
}

/* Queue an OUT request on the next free buffer. 1 queued, 0 none free. */
static int write_queue_more(struct msf_common *common)
{
	struct msf__buffhd *bh = common->next_buffhd_to_fill;
	uint32_t amount;

	if (!common->rw.get_some_more || msf__buf_state(common, bh) != MSF_BUF_EMPTY)
		return 0;
	amount = common->rw.left_to_req < common->xfer_buflen ? common->rw.left_to_req
							      : common->xfer_buflen;
	common->rw.left_to_req -= amount;
	if (common->rw.left_to_req == 0)
		common->rw.get_some_more = false;
	common->usb_amount_left -= amount;
	msf__set_bulk_out_req_length(common, bh, amount);
	if (!msf__start_out_transfer(common, bh))
		return -USB_EINTR;	/* disconnected */
	common->next_buffhd_to_fill = bh->next;
	return 1;
}

static int write_continue(struct msf_common *common, bool *done)
{
	struct msf__lun *curlun = common->curlun;
	struct fsg_backend *be = curlun->be;
	struct msf__buffhd *bh;
	int rc;

	while (!common->rw.loop_done && common->rw.left_to_write > 0) {
		uint32_t amount;
		int nwritten;

		/* Queue OUT requests on every free buffer while data is due. */
		rc = write_queue_more(common);
		if (rc < 0)
			return rc;
		if (rc)
			continue;

		/* Write the oldest full buffer. */
		bh = common->next_buffhd_to_drain;
		if (!common->rw.get_some_more && msf__buf_state(common, bh) == MSF_BUF_EMPTY)
			break;		/* nothing queued any more */
		rc = msf__wait_buf(common, bh, MSF_BUF_FULL);
		if (rc)
			return rc;

		if (bh->outreq->status) {
			msf__lun_set_sense(curlun, SS_COMMUNICATION_FAILURE, 0, false);
			common->rw.failed = true;
			goto drained;
		}
		amount = bh->outreq->actual;
		if (amount > bh->bulk_out_intended_length)
			amount = bh->bulk_out_intended_length;
		if (amount > common->rw.left_to_write)
			amount = common->rw.left_to_write;
		/* Only whole blocks reach the medium. */
		amount &= ~(curlun->blksize - 1);
		if (amount) {
			/* The buffer stays FULL until the medium took it, so a
			 * busy medium (-USB_EAGAIN) finds it again. */
			nwritten = be->ops->write(be, common->rw.offset, bh->buf, amount);
			if (nwritten == -USB_EAGAIN) {
				rc = medium_busy(common);
				if (rc)
					return rc;
				continue;
			}
			if (nwritten < 0 || (uint32_t)nwritten < amount) {
				uint32_t good = nwritten < 0 ? 0 : (uint32_t)nwritten;

				good &= ~(curlun->blksize - 1);
				msf__lun_set_sense(curlun, SS_WRITE_ERROR,
						   (common->rw.offset + good) >> curlun->blkbits,
						   true);
				common->residue -= good;
				common->rw.failed = true;
				goto drained;
			}
			common->rw.offset += amount;
			common->rw.left_to_write -= amount;
			common->residue -= amount;
		}
		if (bh->outreq->actual < bh->bulk_out_intended_length)
			common->short_packet_received = true;
drained:
		common->next_buffhd_to_drain = bh->next;
		msf__os_lock(common->os);
		bh->state = MSF_BUF_EMPTY;
		msf__os_unlock(common->os);
		if (common->rw.failed || common->short_packet_received)
			break;
	}
	common->rw.loop_done = true;

	/* Durable before the CSW when the host asked (FUA). */
	if (!common->rw.failed && common->rw.fua) {
		rc = flush_wait(common);
		if (rc == -USB_EAGAIN || rc == -USB_EINTR)
			return rc;
		if (rc < 0)
			msf__lun_set_sense(curlun, SS_WRITE_ERROR, common->rw.lba, true);
	}
	*done = true;
	return 0;
}

int msf__do_write(struct msf_common *common, uint64_t lba, uint64_t blocks, bool fua,
		  bool *done)
{
	struct msf__lun *curlun = common->curlun;

	(void)blocks;
	if (curlun->ro) {
		msf__lun_set_sense(curlun, SS_WRITE_PROTECTED, 0, false);
		return REPLY_FAILED;
	}
	if (curlun->nofua)
		fua = false;
	if (!curlun->wce)
		fua = true;	/* write-through when the host turned the cache off */

	common->rw.write = true;
	common->rw.lba = lba;
	common->rw.fua = fua;
	common->rw.failed = false;
	common->rw.loop_done = false;
	common->rw.offset = lba << curlun->blkbits;
	common->rw.left_to_req = common->rw.left_to_write =
		common->data_size_from_cmnd;
	common->rw.get_some_more = common->rw.left_to_req != 0;
	return write_continue(common, done);
}

int msf__rw_resume(struct msf_common *common, bool *done)
{
	return common->rw.write ? write_continue(common, done) : read_continue(common, done);
}

/* ---- READ and WRITE CDBs ------------------------------------------------ */

unsigned msf__rw_size(uint8_t op, bool *write)
{
	*write = false;
	switch (op) {
	case SC_WRITE_6:
		*write = true;
		/* fall through */
	case SC_READ_6:
		return 6;
	case SC_WRITE_10:
		*write = true;
		/* fall through */
	case SC_READ_10:
		return 10;
#ifndef MSF_NO_LONG_CDB
	case SC_WRITE_12:
		*write = true;
		/* fall through */
	case SC_READ_12:
		return 12;
	case SC_WRITE_16:
		*write = true;
		/* fall through */
	case SC_READ_16:
		return 16;
#endif
	default:
		return 0;
	}
}

static uint64_t blocks_bytes(struct msf_common *common, uint64_t blocks)
{
	unsigned bits = common->curlun ? common->curlun->blkbits : 9;

	/* At most 2^32 blocks of 2^12 bytes: no overflow. */
	return blocks << bits;
}

int msf__rw_command(struct msf_common *common, unsigned size, bool write, bool *done)
{
	const uint8_t *c = common->cmnd;
	uint64_t lba, blocks, bytes;
	uint32_t mask;
	bool fua = false;
	int rc;

	switch (size) {
	case 6:
		lba = ((uint64_t)(c[1] & 0x1f) << 16) | msf__get_be16(c + 2);
		blocks = c[4] ? c[4] : 256;	/* 0 means 256 (SBC-3 5.7) */
		mask = (1u << 1) | (1u << 2) | (1u << 3) | (1u << 4);
		break;
#ifndef MSF_NO_LONG_CDB
	case 10:
		lba = msf__get_be32(c + 2);
		blocks = msf__get_be16(c + 7);
		mask = (1u << 1) | (0xfu << 2) | (3u << 7);
		break;
	case 12:
		lba = msf__get_be32(c + 2);
		blocks = msf__get_be32(c + 6);
		mask = (1u << 1) | (0xfu << 2) | (0xfu << 6);
		break;
	default:
		lba = msf__get_be64(c + 2);
		blocks = msf__get_be32(c + 10);
		mask = (1u << 1) | (0xffu << 2) | (0xfu << 10);
		break;
#else
	default:	/* 10: the only other form dispatched */
		lba = msf__get_be32(c + 2);
		blocks = msf__get_be16(c + 7);
		mask = (1u << 1) | (0xfu << 2) | (3u << 7);
		break;
#endif
	}
	bytes = blocks_bytes(common, blocks);
	if (bytes > UINT32_MAX) {
		/* More than dCBWDataTransferLength can say: the host expects
		 * less (case 2, 3, 7 or 13), as msf__check_command() finds. */
		common->phase_error = true;
		bytes = UINT32_MAX;
	}
	common->data_size_from_cmnd = (uint32_t)bytes;
	rc = msf__check_command(common, size,
				write ? MSF_DIR_FROM_HOST : MSF_DIR_TO_HOST, mask, true);
	if (rc)
		return rc;
	if (size != 6) {
		/* Only DPO and FUA in the rest of byte 1 (no RARC, no FUA_NV). */
		if (common->cmnd[1] & ~0x18u) {
			msf__lun_set_sense(common->curlun, SS_INVALID_FIELD_IN_CDB, 0, false);
			return REPLY_FAILED;
		}
		fua = common->cmnd[1] & 0x08;
	}
	/* The whole range must be on the medium; no overflow possible. */
	if (lba >= common->curlun->num_sectors ||
	    blocks > common->curlun->num_sectors - lba) {
		msf__lun_set_sense(common->curlun, SS_LOGICAL_BLOCK_ADDRESS_OUT_OF_RANGE,
				   lba, true);
		return REPLY_FAILED;
	}
	if (write)
		return msf__do_write(common, lba, blocks, fua, done);
	return msf__do_read(common, lba, blocks, done);
}

int msf__do_synchronize_cache(struct msf_common *common)
{
	struct msf__lun *curlun = common->curlun;

	int rc = flush_wait(common);

	if (rc == -USB_EAGAIN || rc == -USB_EINTR)
		return rc;
	if (rc < 0) {
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
	int rc;

	/* DPO is allowed and ignored; BYTCHK (compare) is not supported. */
	if (common->cmnd[1] & ~0x10u) {
		msf__lun_set_sense(curlun, SS_INVALID_FIELD_IN_CDB, 0, false);
		return REPLY_FAILED;
	}
	if (lba >= curlun->num_sectors || blocks > curlun->num_sectors - lba) {
		msf__lun_set_sense(curlun, SS_LOGICAL_BLOCK_ADDRESS_OUT_OF_RANGE, lba, true);
		return REPLY_FAILED;
	}
	rc = flush_wait(common);
	if (rc == -USB_EAGAIN || rc == -USB_EINTR)
		return rc;

	offset = lba << curlun->blkbits;
	amount_left = blocks << curlun->blkbits;
	while (amount_left > 0) {
		uint32_t amount = min_u32_u64(common->buflen, amount_left);
		int nread;

		if (msf__exception_pending(common))
			return -USB_EINTR;
		nread = be->ops->read(be, offset, bh->buf, amount);
		if (nread == -USB_EAGAIN) {
			/* Polled: VERIFY starts over at the next poll (reads only). */
			rc = medium_busy(common);
			if (rc)
				return rc;
			continue;
		}
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
	uint32_t amount = common->data_size_from_cmnd;
	int rc;

	*got = 0;
	if (amount > common->xfer_buflen)
		amount = common->xfer_buflen;
	if (amount == 0)
		return 0;
	if (!common->recv_queued) {
		msf__set_bulk_out_req_length(common, bh, amount);
		common->usb_amount_left -= amount;
		if (!msf__start_out_transfer(common, bh))
			return -USB_EINTR;
		common->recv_queued = true;	/* a polled worker resumes below */
	}
	rc = msf__wait_buf(common, bh, MSF_BUF_FULL);
	if (rc)
		return rc;
	common->recv_queued = false;
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
