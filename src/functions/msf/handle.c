/*
 * handle.c - the public struct fsg_common handle of mass_storage.h: the
 * Linux-shaped fsg_common_init() (caller storage or the library's, an
 * ERR_PTR on failure) and the fsg_* calls that take the handle, each
 * passed on to its msf__ counterpart on the private struct msf_common.
 * The handle's storage is the caller's unless the library allocated it
 * (then the last reference frees it); msf__common_free() detaches it.
 */

#include "msf_internal.h"
#include "port/alloc.h"

static void release_backends(const struct fsg_config *cfg)
{
	for (unsigned i = 0; cfg && i < FSG_MAX_LUNS && i < cfg->nluns; i++) {
		struct fsg_backend *be = cfg->luns[i].backend;

		if (be && be->ops && be->ops->release)
			be->ops->release(be);
	}
}

struct fsg_common *fsg_common_init(struct fsg_common *common,
				   struct usb_composite_dev *cdev,
				   const struct fsg_config *cfg)
{
	bool allocated = !common;
	struct msf_common *priv;
	int rc;

	if (common && common->priv) {
		release_backends(cfg);	/* as every failure does */
		return usb_err_ptr(-USB_EBUSY);
	}
	if (!common) {
		common = composite__calloc(1, sizeof(*common));
		if (!common) {
			release_backends(cfg);
			return usb_err_ptr(-USB_ENOMEM);
		}
	}
	common->allocated = allocated;
	rc = msf__common_create(&priv, cdev, cfg, common);
	if (rc) {
		if (allocated)
			composite__free(common);
		return usb_err_ptr(rc);
	}
	common->priv = priv;
	return common;
}

int fsg_common_create(struct fsg_common **out, struct usb_composite_dev *cdev,
		      const struct fsg_config *cfg)
{
	struct fsg_common *common;

	if (!out)
		return -USB_EINVAL;
	common = fsg_common_init(NULL, cdev, cfg);
	if (usb_is_err(common)) {
		*out = NULL;
		return (int)usb_ptr_err(common);
	}
	*out = common;
	return 0;
}

void fsg_common_get(struct fsg_common *common)
{
	msf__common_get(common->priv);
}

void fsg_common_put(struct fsg_common *common)
{
	if (common && common->priv)
		msf__common_put(common->priv);
}

void *fsg_common_private_data(const struct fsg_common *common)
{
	return msf__common_private_data(common->priv);
}

int fsg_common_poll(struct fsg_common *common)
{
	if (!common || !common->priv)
		return -USB_EINVAL;
	return msf__common_poll(common->priv);
}

unsigned fsg_common_nluns(const struct fsg_common *common)
{
	return msf__common_nluns(common->priv);
}

int fsg_add(struct usb_composite_dev *cdev, struct usb_configuration *c,
	    struct fsg_common *common)
{
	if (!common || !common->priv)
		return -USB_EINVAL;
	return msf__add(cdev, c, common->priv);
}

int fsg_common_set_lun_backend(struct fsg_common *common, unsigned lun,
			       struct fsg_backend *be)
{
	if (!common || !common->priv) {
		if (be && be->ops && be->ops->release)
			be->ops->release(be);
		return -USB_EINVAL;
	}
	return msf__common_set_lun_backend(common->priv, lun, be);
}

int fsg_common_set_lun_file(struct fsg_common *common, unsigned lun, const char *path)
{
	if (!common || !common->priv)
		return -USB_EINVAL;
	return msf__common_set_lun_file(common->priv, lun, path);
}

int fsg_common_forced_eject(struct fsg_common *common, unsigned lun)
{
	if (!common || !common->priv)
		return -USB_EINVAL;
	return msf__common_forced_eject(common->priv, lun);
}

bool fsg_common_lun_is_open(struct fsg_common *common, unsigned lun)
{
	return common && common->priv && msf__common_lun_is_open(common->priv, lun);
}
