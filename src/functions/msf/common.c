/*
 * common.c - the fsg_common object: creation from a configuration, the
 * reference count and destruction (stopping the worker, which may be the
 * caller itself), switching the active function instance (endpoints and
 * requests, done by the worker), and the run-time medium calls.
 *
 * Portable C11; threads only through msf_os.h.
 */
#include <string.h>

#include "msf_internal.h"
#include "msf_os.h"
#include "port/alloc.h"

#ifdef MSF_THREADS
static void worker_entry(void *arg)
{
	msf__worker_main(arg);
}
#endif

/* Free everything; the worker is gone (joined, or it is the caller). */
void msf__common_free(struct msf_common *common)
{
	for (unsigned i = 0; i < common->nluns; i++)
		msf__lun_close(&common->luns[i]);
	if (common->buffhds) {
		for (unsigned i = 0; i < common->fsg_num_buffers && !common->ring_borrowed; i++)
			composite__free(common->buffhds[i].buf);
		composite__free(common->buffhds);
	}
	if (common->os)
		msf__os_destroy(common->os);
	if (common->handle && common->handle->allocated)
		composite__free(common->handle);
	else if (common->handle)
		common->handle->priv = NULL;	/* caller storage: reusable */
	composite__free(common);
}

static bool worker_done(struct msf_common *common)
{
	return common->worker_done;
}

/* Stop the worker and free, or leave the freeing to the worker itself. */
static void common_teardown(struct msf_common *common)
{
#ifdef MSF_THREADS
	bool in_worker = false;
#endif

	if (common->signal_watched) {
		msf__os_signal_unwatch(common);
		common->signal_watched = false;
	}
	if (common->polled) {
		/* The worker's exit runs here: endpoints, requests, media. */
		msf__os_lock(common->os);
		common->releasing = true;
		if (common->state < MSF_STATE_EXIT)
			common->state = MSF_STATE_EXIT;
		msf__os_unlock(common->os);
		msf__worker_run_until(common, worker_done);
		if (!common->worker_done) {
			/* A UDC that never gave its requests back: freeing them
			 * would be a use after free; leak instead. */
			return;
		}
	}
#ifdef MSF_THREADS
	else if (common->thread_started) {
		msf__os_lock(common->os);
		common->releasing = true;
		in_worker = msf__os_in_thread(common->os);
		if (common->state < MSF_STATE_EXIT)
			common->state = MSF_STATE_EXIT;
		if (in_worker)
			common->free_by_worker = true;
		msf__os_wake(common->os);
		msf__os_unlock(common->os);
		if (in_worker)
			return;	/* msf__worker_main() frees after thread_exits */
		msf__os_thread_join(common->os);
	}
#endif
	msf__common_free(common);
}

static void common_release(struct kref *ref)
{
	common_teardown(usb_container_of(ref, struct msf_common, ref));
}

void msf__common_get(struct msf_common *common)
{
	kref_get(&common->ref);
}

void msf__common_put(struct msf_common *common)
{
	if (common)
		kref_put(&common->ref, common_release);
}

int msf__common_poll(struct msf_common *common)
{
	if (!common->polled)
		return -USB_EINVAL;
	switch (msf__worker_step(common)) {
	case MSF_STEP_PROGRESS:
		return 1;
	case MSF_STEP_WAIT:
		return 0;
	default:
		return -USB_ESHUTDOWN;
	}
}

void *msf__common_private_data(const struct msf_common *common)
{
	return common->private_data;
}

unsigned msf__common_nluns(const struct msf_common *common)
{
	return common->nluns;
}

static void release_cfg_backends(const struct fsg_config *cfg, unsigned from)
{
	for (unsigned i = from; i < FSG_MAX_LUNS && i < cfg->nluns; i++) {
		struct fsg_backend *be = cfg->luns[i].backend;

		if (be && be->ops && be->ops->release)
			be->ops->release(be);
	}
}

int msf__common_create(struct msf_common **out, struct usb_composite_dev *cdev,
		       const struct fsg_config *cfg, struct fsg_common *handle)
{
	struct msf_common *common;
	unsigned nbuf, i, luns_taken = 0;
	uint32_t buflen;
	int rc;

	if (!out || !cfg)
		return -USB_EINVAL;
	*out = NULL;
	nbuf = cfg->fsg_num_buffers ? cfg->fsg_num_buffers : FSG_NUM_BUFFERS_DEFAULT;
	buflen = cfg->buflen ? cfg->buflen : FSG_BUFLEN_DEFAULT;
	if (cfg->nluns < 1 || cfg->nluns > FSG_MAX_LUNS || nbuf < FSG_NUM_BUFFERS_MIN ||
	    nbuf > FSG_NUM_BUFFERS_MAX || buflen < FSG_BUFLEN_MIN ||
	    buflen > FSG_BUFLEN_MAX || buflen % 512 || (cfg->polled && cfg->exit_on_signal)) {
		rc = -USB_EINVAL;
		goto fail_backends;
	}

	common = composite__calloc(1, sizeof(*common));
	if (!common) {
		rc = -USB_ENOMEM;
		goto fail_backends;
	}
	kref_init(&common->ref);
	common->cdev = cdev;
	common->ops = cfg->ops;
	common->handle = handle;
	/* Linux 2.6.35 put the callback in fsg_config; later ones in ops. */
	common->thread_exits = cfg->thread_exits ? cfg->thread_exits :
			       cfg->ops ? cfg->ops->thread_exits : NULL;
	common->private_data = cfg->private_data;
	common->can_stall = cfg->can_stall;
	common->polled = cfg->polled;
	common->ring_borrowed = cfg->ring != NULL;
	common->exit_on_signal = cfg->exit_on_signal;
	common->state = MSF_STATE_NORMAL;
	common->fsg_num_buffers = nbuf;
	common->buflen = buflen;
	common->xfer_buflen = buflen;

	rc = msf__os_create(&common->os);
	if (rc)
		goto fail_free;

	common->buffhds = composite__calloc(nbuf, sizeof(*common->buffhds));
	if (!common->buffhds) {
		rc = -USB_ENOMEM;
		goto fail_free;
	}
	for (i = 0; i < nbuf; i++) {
		struct msf__buffhd *bh = &common->buffhds[i];

		bh->common = common;
		bh->next = &common->buffhds[(i + 1) % nbuf];
		/* The caller's ring (fsg_config.ring), or one buffer each. */
		bh->buf = cfg->ring ? (uint8_t *)cfg->ring + (size_t)i * buflen : composite__malloc(buflen);
		if (!bh->buf) {
			rc = -USB_ENOMEM;
			goto fail_free;
		}
	}
	common->next_buffhd_to_fill = common->next_buffhd_to_drain = &common->buffhds[0];

	for (i = 0; i < cfg->nluns; i++) {
		common->nluns = i + 1;	/* so a failure closes what is open */
		luns_taken = i + 1;	/* lun_init owns this LUN's backend now */
		rc = msf__lun_init(common, i, &cfg->luns[i], cfg);
		if (rc)
			goto fail_free;
	}

	if (cfg->polled) {
		*out = common;	/* fsg_common_poll() is the worker */
		return 0;
	}
#ifdef MSF_THREADS
	rc = msf__os_thread_start(common->os, worker_entry, common);
	if (rc)
		goto fail_free;
	common->thread_started = true;

	if (cfg->exit_on_signal) {
		rc = msf__os_signal_watch(common);
		if (rc)
			goto fail_thread;
		common->signal_watched = true;
	}
	*out = common;
	return 0;

fail_thread:
	common->handle = NULL;	/* the caller still owns it */
	common_teardown(common);
	return rc;
#else
	rc = -USB_EOPNOTSUPP;	/* no thread adapter in this build: polled only */
#endif
fail_free:
	common->handle = NULL;
	msf__common_free(common);
	release_cfg_backends(cfg, luns_taken);
	return rc;
fail_backends:
	release_cfg_backends(cfg, 0);
	return rc;
}

void msf__common_signal(struct msf_common *common)
{
	msf__raise_exception(common, MSF_STATE_EXIT);
}

/* ---- the active function instance (worker only) -------------------------- */

static void teardown_interface(struct msf_common *common)
{
	struct fsg_dev *fsg = common->fsg;

	if (!fsg)
		return;
	/* The requests are the instance's (freed at its unbind): let go. */
	for (unsigned i = 0; i < common->fsg_num_buffers; i++) {
		struct msf__buffhd *bh = &common->buffhds[i];

		bh->inreq = NULL;
		bh->outreq = NULL;
	}
	msf__disable_eps(fsg);
	msf__os_lock(common->os);
	common->fsg = NULL;
	common->running = false;
	msf__os_wake(common->os);	/* fsg_unbind() may wait for this */
	msf__os_unlock(common->os);
}

void msf__disable_eps(struct fsg_dev *fsg)
{
	if (atomic_exchange(&fsg->bulk_in_enabled, false))
		(void)usb_ep_disable(fsg->bulk_in);
	if (atomic_exchange(&fsg->bulk_out_enabled, false))
		(void)usb_ep_disable(fsg->bulk_out);
}

int msf__do_set_interface(struct msf_common *common, struct fsg_dev *new_fsg)
{
	struct usb_gadget *gadget;
	struct fsg_dev *fsg = new_fsg;
	int rc;

	teardown_interface(common);
	if (!new_fsg)
		return 0;

	msf__os_lock(common->os);
	common->fsg = new_fsg;
	msf__os_unlock(common->os);
	gadget = common->cdev->gadget;

	rc = config_ep_by_speed(gadget, &fsg->function, fsg->bulk_in);
	if (rc)
		goto reset;
	rc = usb_ep_enable(fsg->bulk_in);
	if (rc)
		goto reset;
	fsg->bulk_in_enabled = true;
	rc = config_ep_by_speed(gadget, &fsg->function, fsg->bulk_out);
	if (rc)
		goto reset;
	rc = usb_ep_enable(fsg->bulk_out);
	if (rc)
		goto reset;
	fsg->bulk_out_enabled = true;
	common->bulk_out_maxpacket = fsg->bulk_out->desc ?
		(unsigned)usb_endpoint_maxp(fsg->bulk_out->desc) : fsg->bulk_out->maxpacket;
	if (common->bulk_out_maxpacket == 0)
		common->bulk_out_maxpacket = 512;
	/*
	 * Every request but a transfer's last must be whole packets (an IN
	 * one ending short would end the host's transfer): 1024-byte
	 * SuperSpeed packets need buflen cut when it is an odd multiple of 512,
	 * and a buffer smaller than one packet (buflen 512 at SuperSpeed)
	 * cannot carry a transfer at all: that configuration is refused.
	 */
	{
		unsigned mp = common->bulk_out_maxpacket;
		unsigned in_mp = fsg->bulk_in->desc ?
			(unsigned)usb_endpoint_maxp(fsg->bulk_in->desc) : fsg->bulk_in->maxpacket;

		if (in_mp > mp)
			mp = in_mp;
		if (mp > common->buflen) {
			rc = -USB_EINVAL;
			goto reset;
		}
		common->xfer_buflen = common->buflen - common->buflen % mp;
	}

	for (unsigned i = 0; i < common->fsg_num_buffers; i++) {
		struct msf__buffhd *bh = &common->buffhds[i];

		/* Allocated at fsg_bind(): nothing is allocated after bind. */
		bh->inreq = fsg->inreqs[i];
		bh->outreq = fsg->outreqs[i];
		if (!bh->inreq || !bh->outreq) {
			rc = -USB_ENOMEM;
			goto reset;
		}
		bh->inreq->zero = bh->outreq->zero = 0;
		bh->inreq->length = bh->outreq->length = 0;
		bh->inreq->buf = bh->outreq->buf = bh->buf;
		bh->inreq->context = bh->outreq->context = bh;
		bh->inreq->complete = msf__bulk_in_complete;
		bh->outreq->complete = msf__bulk_out_complete;
		bh->inreq_busy = bh->outreq_busy = false;
		bh->state = MSF_BUF_EMPTY;
	}

	/* A new configuration is a power-on/reset for every LUN. */
	msf__os_file_lock(common->os);
	for (unsigned i = 0; i < common->nluns; i++)
		common->luns[i].unit_attention_data = SS_RESET_OCCURRED;
	msf__os_file_unlock(common->os);

	msf__os_lock(common->os);
	common->running = true;
	msf__os_unlock(common->os);
	return 0;

reset:
	teardown_interface(common);
	return rc;
}

/* ---- run-time medium changes ---------------------------------------------- */

int msf__common_set_lun_backend(struct msf_common *common, unsigned lun,
			       struct fsg_backend *be)
{
	struct msf__lun *l;
	int rc = 0;

	if (!common || lun >= common->nluns) {
		if (be && be->ops && be->ops->release)
			be->ops->release(be);
		return -USB_EINVAL;
	}
	l = &common->luns[lun];
	msf__os_file_lock(common->os);
	if (!be) {
		if (!l->removable)
			rc = -USB_EPERM;
		else if (l->prevent_medium_removal && msf__lun_is_open(l))
			rc = -USB_EBUSY;
		else
			msf__lun_close(l);
	} else if (l->prevent_medium_removal && msf__lun_is_open(l)) {
		rc = -USB_EBUSY;
		if (be->ops && be->ops->release)
			be->ops->release(be);
	} else {
		rc = msf__lun_attach(l, be);
		if (rc == 0)
			l->unit_attention_data = SS_NOT_READY_TO_READY_TRANSITION;
	}
	msf__os_file_unlock(common->os);
	return rc;
}

int msf__common_set_lun_file(struct msf_common *common, unsigned lun, const char *path)
{
	struct fsg_backend *be = NULL;
	int rc;

	if (!common || lun >= common->nluns)
		return -USB_EINVAL;
	if (path && path[0]) {
		/* Open before touching the LUN: the host keeps its medium on error. */
		bool ro = common->luns[lun].initially_ro || common->luns[lun].cdrom;

		rc = fsg_backend_file_open(&be, path, ro, false);
		if (rc)
			return rc;
	}
	return msf__common_set_lun_backend(common, lun, be);
}

int msf__common_forced_eject(struct msf_common *common, unsigned lun)
{
	if (!common || lun >= common->nluns)
		return -USB_EINVAL;
	msf__os_file_lock(common->os);
	common->luns[lun].prevent_medium_removal = false;
	msf__lun_close(&common->luns[lun]);
	msf__os_file_unlock(common->os);
	return 0;
}

bool msf__common_lun_is_open(struct msf_common *common, unsigned lun)
{
	bool open;

	if (!common || lun >= common->nluns)
		return false;
	msf__os_file_lock(common->os);
	open = msf__lun_is_open(&common->luns[lun]);
	msf__os_file_unlock(common->os);
	return open;
}
