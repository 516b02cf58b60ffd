/*
 * acm_internal.h - what f_acm.c (descriptors, requests, set_alt) and
 * acm_stream.c (the byte stream, notifications) share. Private to
 * src/functions/acm.
 *
 * The stream is used by the event context (completions, set_alt, disable)
 * and by the user's threads (acm_read, acm_write, acm_notify_serial_state)
 * without a lock: the buffers are single-producer single-consumer rings,
 * and each side's requests are filled by one runner at a time (a kick
 * counter: whoever raises it from 0 runs, the others only make it run
 * once more).
 */
#ifndef COMPOSITE_ACM_INTERNAL_H
#define COMPOSITE_ACM_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>

#include "composite/acm.h"
#include "functions/common/bulk_pair.h"
#include "functions/common/byte_ring.h"

#define ACM_REQS 4			/* IN requests in flight */
#define ACM_REQ_LEN 16384u		/* bytes each */
/*
 * OUT requests are one packet each, as Linux's u_serial: a host's write
 * that ends on a packet boundary (no short packet, no ZLP: cdc-acm sends
 * none) must reach the reader at once, not wait in a larger request.
 */
#define ACM_OUT_REQS 32
#define ACM_OUT_LEN_MAX 1024u		/* SuperSpeed bulk maxpacket */
#define ACM_NOTIFY_MAXPACKET 10		/* header 8 + SERIAL_STATE 2 */

struct f_acm {
	struct usb_function function;
	struct f_acm_opts opts;
	uint8_t ctrl_id, data_id;
	struct usb_ep *notify_ep;
	struct fn_bulk_pair pair;

	struct usb_interface_assoc_descriptor iad;
	struct usb_interface_descriptor ctrl_intf, data_intf;
	struct usb_cdc_header_desc header;
	struct usb_cdc_call_mgmt_descriptor call_mgmt;
	struct usb_cdc_acm_descriptor acm_desc;
	struct usb_cdc_union_desc union_desc;
	struct usb_endpoint_descriptor fs_notify, hs_notify;
	struct usb_ss_ep_comp_descriptor ss_notify_comp;
	struct usb_descriptor_header *fs_list[12], *hs_list[12], *ss_list[14];

	/* the stream (acm_stream.c) */
	struct fn_ring rx, tx;
	uint8_t *rx_buf, *tx_buf;
	struct usb_request *in_req[ACM_REQS], *out_req[ACM_OUT_REQS], *notify_req;
	atomic_bool in_busy[ACM_REQS], out_busy[ACM_OUT_REQS], notify_busy;
	unsigned out_len;		/* the OUT endpoint's maxpacket (set at connect) */
	atomic_uint tx_kicks, rx_kicks, notify_kicks;
	atomic_size_t rx_reserved;	/* room promised to OUT requests in flight */
	atomic_bool connected;		/* data interface enabled */
	atomic_bool notify_on;		/* notify endpoint enabled */
	atomic_bool want_writable;	/* an acm_write() took less than given */
	atomic_bool notify_pending;
	atomic_uint serial_state;
	atomic_uint lines;		/* ACM_CTRL_DTR | ACM_CTRL_RTS */
	atomic_uint_least64_t coding;	/* struct usb_cdc_line_coding, packed */
	atomic_uint_least64_t rx_bytes, tx_bytes, tx_discarded, notifications, line_codings;
};

static inline struct f_acm *func_to_acm(struct usb_function *f)
{
	return usb_container_of(f, struct f_acm, function);
}

/* The object with its rings (heap); acm__free() frees it. */
int acm__alloc(const struct f_acm_opts *opts, struct f_acm **out);
void acm__free(struct f_acm *acm);

/* The requests, at bind (endpoints claimed) and unbind (all given back). */
int acm__stream_alloc(struct f_acm *acm);
void acm__stream_free(struct f_acm *acm);

/* The data interface's endpoints were enabled / are to be disabled. */
void acm__data_connect(struct f_acm *acm);
void acm__data_disconnect(struct f_acm *acm);

/* The notify endpoint was enabled (sends DCD | DSR) / is to be disabled. */
void acm__notify_enable(struct f_acm *acm);
void acm__notify_disable(struct f_acm *acm);

/* The host's SET_CONTROL_LINE_STATE and SET_LINE_CODING (event context). */
void acm__set_lines(struct f_acm *acm, unsigned lines);
void acm__set_line_coding(struct f_acm *acm, const void *coding7);

#endif
