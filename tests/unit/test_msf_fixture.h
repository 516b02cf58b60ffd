/*
 * test_msf_fixture.h - shared fixture of the MSF tests: a composite driver
 * with one mass storage function bound to the in-process host, and a small
 * Bulk-Only host (CBW, data phase, CSW with the stall handling a real host
 * does, Reset Recovery) to drive it.
 */
#ifndef TEST_MSF_FIXTURE_H
#define TEST_MSF_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "composite/composite.h"
#include "composite/inproc_host.h"
#include "composite/mass_storage.h"

#define MSF_TMO 3000u	/* generous: only reached when something is broken */

struct msf_fx {
	struct usb_inproc_host *h;
	struct usb_composite_driver driver;
	struct usb_device_descriptor dd;
	struct usb_configuration config;
	struct usb_configuration config2;	/* used when two_configs */
	bool two_configs;
	struct fsg_config cfg;		/* filled by the test before msf_fx_up() */
	struct fsg_common *common;	/* the fixture's own reference */
	int init_rc;
	uint8_t ep_in, ep_out, intf;
	uint16_t maxpacket;
	uint32_t tag;
	bool csw_stalled;		/* the last CSW read met a bulk-IN stall */
	uint8_t config_desc[256];
	int config_len;
};

/* Defaults in fx->cfg: one LUN, can_stall; nothing is bound yet. */
struct msf_fx *msf_fx_new(void);
/* As msf_fx_new() with a controller (and driver) of speed @max. */
struct msf_fx *msf_fx_new_max(enum usb_device_speed max);
/* Probe, enumerate at @speed and configure. Asserts success. */
void msf_fx_up(struct msf_fx *fx, enum usb_device_speed speed);
/* Probe only; returns the probe result (bind errors). */
int msf_fx_probe(struct msf_fx *fx);
void msf_fx_free(struct msf_fx *fx);

/* SET_CONFIGURATION(@value) (delayed status: the worker finishes it). */
int msf_fx_set_config(struct msf_fx *fx, uint8_t value);

/* A memory backend of @blocks blocks with a pattern (lba-dependent). */
struct fsg_backend *msf_fx_mem(uint64_t blocks, uint32_t bs);
uint8_t msf_fx_pat(uint64_t byte_offset);

/* The 31 bytes of a CBW with the next tag (fx->tag), for sending later. */
void msf_fx_fill_cbw(struct msf_fx *fx, uint8_t cbw[31], uint8_t lun, const uint8_t *cdb,
		     uint8_t cblen, bool in, uint32_t len);
/* Send a CBW. @cblen is bCBWCBLength; the CDB bytes come from @cdb. */
int msf_fx_cbw(struct msf_fx *fx, uint8_t lun, const uint8_t *cdb, uint8_t cblen,
	       bool in, uint32_t len);
/* Read the CSW (clearing a bulk-IN stall first, as BOT 5.3.3 says). */
int msf_fx_csw(struct msf_fx *fx, uint8_t *status, uint32_t *residue);

/*
 * One command: CBW, data phase (@in: read up to @len into @buf; else send
 * @len bytes of @buf), CSW. *@xfer: the data phase result (byte count or
 * -USB_EPIPE: stalled and cleared). Return: the CSW status (0/1/2) or a
 * negative error. *@residue: dCSWDataResidue.
 */
int msf_fx_cmd(struct msf_fx *fx, uint8_t lun, const uint8_t *cdb, uint8_t cblen,
	       bool in, void *buf, uint32_t len, int *xfer, uint32_t *residue);
/* REQUEST SENSE: key << 16 | asc << 8 | ascq; *@info with the valid bit. */
uint32_t msf_fx_sense(struct msf_fx *fx, uint8_t lun, uint32_t *info, bool *valid);
/* TEST UNIT READY until no unit attention is left; the last CSW status. */
int msf_fx_clear_ua(struct msf_fx *fx, uint8_t lun);
/* Bulk-Only Mass Storage Reset then CLEAR_FEATURE(HALT) on both endpoints. */
int msf_fx_reset_recovery(struct msf_fx *fx);
/* Class request on the interface. */
int msf_fx_class(struct msf_fx *fx, bool in, uint8_t req, uint16_t value,
		 uint16_t length, void *data);

/* The CDB of a READ(10) or WRITE(10); @flags is byte 1 (FUA 0x08). */
void msf_fx_rw10_cdb(uint8_t cdb[10], bool write, uint32_t lba, uint16_t blocks, uint8_t flags);
/* READ(10)/WRITE(10) helpers: the CSW status. */
int msf_fx_read10(struct msf_fx *fx, uint8_t lun, uint32_t lba, uint16_t blocks,
		  void *buf, uint32_t len, uint8_t flags);
int msf_fx_write10(struct msf_fx *fx, uint8_t lun, uint32_t lba, uint16_t blocks,
		   const void *buf, uint32_t len, uint8_t flags);

#endif
