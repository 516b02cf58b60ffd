/*
 * lun.c - logical units: their configuration (INQUIRY identity, serial,
 * flags), attaching and closing a medium (block size, capacity, read-only
 * rules) and sense data.
 *
 * Portable C11. Callers hold the file lock, except msf__lun_init() (the
 * common object is not shared yet).
 */
#include <string.h>

#include "msf_internal.h"

/*
 * Number formatting without the printf family (newlib-nano's has no long
 * long and firmware may have none): @digits upper-case hex digits of @v,
 * and @v in decimal, each NUL-terminated.
 */
static void put_hex(char *dst, uint64_t v, unsigned digits)
{
	static const char hex[] = "0123456789ABCDEF";

	for (unsigned i = 0; i < digits; i++)
		dst[digits - 1u - i] = hex[(v >> (4u * i)) & 0xfu];
	dst[digits] = '\0';
}

static void put_decimal(char *dst, unsigned v)
{
	char tmp[10];
	unsigned n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10u);
		v /= 10u;
	} while (v);
	while (n)
		*dst++ = tmp[--n];
	*dst = '\0';
}

void msf__lun_set_sense(struct msf__lun *lun, uint32_t sense, uint64_t info,
			bool info_valid)
{
	lun->sense_data = sense;
	/* The fixed-format INFORMATION field has 32 bits. */
	if (info_valid && info > 0xffffffffu)
		info_valid = false;
	lun->sense_data_info = info_valid ? (uint32_t)info : 0;
	lun->info_valid = info_valid;
}

void msf__lun_close(struct msf__lun *lun)
{
	struct fsg_backend *be = lun->be;

	lun->be = NULL;
	lun->num_sectors = 0;
	lun->ro = lun->initially_ro || lun->cdrom;
	if (be && be->ops->release)
		be->ops->release(be);
}

static void release_backend(struct fsg_backend *be)
{
	if (be && be->ops && be->ops->release)
		be->ops->release(be);
}

int msf__lun_attach(struct msf__lun *lun, struct fsg_backend *be)
{
	uint32_t bs = 512;
	uint64_t size;
	unsigned bits;
	bool ro;

	if (!be || !be->ops || !be->ops->read || !be->ops->capacity) {
		release_backend(be);
		return -USB_EINVAL;
	}
	if (be->ops->block_size)
		bs = be->ops->block_size(be);
	if (lun->cdrom)
		bs = 2048;
	for (bits = 9; bits <= 12 && (1u << bits) != bs; bits++)
		;
	if (bits > 12) {
		release_backend(be);
		return -USB_EINVAL;
	}
	size = be->ops->capacity(be);
	if ((size >> bits) == 0) {		/* smaller than one block */
		release_backend(be);
		return -USB_EINVAL;
	}
	ro = lun->initially_ro || lun->cdrom || !be->ops->write ||
	     (be->ops->read_only && be->ops->read_only(be));

	if (lun->be)
		msf__lun_close(lun);
	lun->be = be;
	lun->blksize = bs;
	lun->blkbits = bits;
	lun->num_sectors = size >> bits;
	lun->ro = ro;
	return 0;
}

static bool printable(const char *s, size_t max)
{
	size_t n = strlen(s);

	if (n > max)
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e)
			return false;
	return true;
}

static void pad_field(char *dst, const char *src, size_t n)
{
	size_t len = strlen(src);

	memset(dst, ' ', n);
	memcpy(dst, src, len < n ? len : n);
}

int msf__lun_init(struct msf_common *common, unsigned idx,
		  const struct fsg_lun_config *lcfg, const struct fsg_config *cfg)
{
	struct msf__lun *lun = &common->luns[idx];
	const char *vendor = cfg->vendor_name ? cfg->vendor_name : "Linux";
	const char *product = cfg->product_name ? cfg->product_name :
			      lcfg->cdrom ? "File-CD Gadget" : "File-Stor Gadget";
	const char *rev = cfg->revision ? cfg->revision : "0100";
	struct fsg_backend *be = lcfg->backend;
	uint64_t hash = 14695981039346656037u;	/* FNV-1a */
	int rc;

#ifdef MSF_NO_CDROM
	if (lcfg->cdrom) {
		release_backend(be);
		return -USB_EOPNOTSUPP;	/* the minimal profile has no CD-ROM */
	}
#endif
	memset(lun, 0, sizeof(*lun));
	lun->initially_ro = lcfg->ro;
	lun->cdrom = lcfg->cdrom;
	lun->ro = lcfg->ro || lcfg->cdrom;
	lun->removable = lcfg->removable;
	lun->nofua = lcfg->nofua;
	lun->wce = true;

	if (!printable(vendor, FSG_VENDOR_LEN) || !printable(product, FSG_PRODUCT_LEN) ||
	    !printable(rev, FSG_REVISION_LEN) ||
	    (lcfg->inquiry_string && !printable(lcfg->inquiry_string, FSG_INQUIRY_STRING_LEN)) ||
	    (cfg->serial && (!printable(cfg->serial, 32) || !cfg->serial[0]))) {
		release_backend(be);
		return -USB_EINVAL;
	}
	if (lcfg->inquiry_string) {
		pad_field(lun->inquiry_string, lcfg->inquiry_string, FSG_INQUIRY_STRING_LEN);
	} else {
		pad_field(lun->inquiry_string, vendor, FSG_VENDOR_LEN);
		pad_field(lun->inquiry_string + FSG_VENDOR_LEN, product, FSG_PRODUCT_LEN);
		pad_field(lun->inquiry_string + FSG_VENDOR_LEN + FSG_PRODUCT_LEN, rev,
			  FSG_REVISION_LEN);
	}
	lun->inquiry_string[FSG_INQUIRY_STRING_LEN] = '\0';

	if (cfg->serial) {
		/* "<serial>-<lun>": the serial has at most 32 characters. */
		size_t n = strlen(cfg->serial);

		memcpy(lun->serial, cfg->serial, n);
		lun->serial[n++] = '-';
		put_decimal(lun->serial + n, idx);
	} else {
		for (const char *p = lun->inquiry_string; *p; p++) {
			hash ^= (unsigned char)*p;
			hash *= 1099511628211u;
		}
		/* 12 hex digits of the hash, then the LUN as two digits. */
		put_hex(lun->serial, hash & 0xffffffffffffu, 12);
		lun->serial[12] = (char)('0' + idx / 10u);
		lun->serial[13] = (char)('0' + idx % 10u);
		lun->serial[14] = '\0';
	}

	/* A power-on unit attention greets the host's first command. */
	lun->unit_attention_data = SS_RESET_OCCURRED;

	if (!be && lcfg->filename && lcfg->filename[0]) {
		rc = fsg_backend_file_open(&be, lcfg->filename, lcfg->ro || lcfg->cdrom, false);
		if (rc)
			return rc;
	}
	if (!be)
		return lun->removable ? 0 : -USB_EINVAL;	/* no medium: removable only */
	return msf__lun_attach(lun, be);
}
