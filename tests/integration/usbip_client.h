/*
 * usbip_client.h - a small userspace USB/IP client for tests and benches:
 * it speaks to the server exactly as vhci-hcd and the usbip tool do (op
 * phase, then CMD_SUBMIT/CMD_UNLINK), over blocking sockets with a
 * receive timeout so a test never hangs. Not part of the library; it
 * reuses the library's codec (src/udc/usbip/usbip_codec.h).
 */
#ifndef USBIP_CLIENT_H
#define USBIP_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "udc/usbip/usbip_codec.h"

#define UC_MAX_INTF 16
#define UC_MAX_OUTSTANDING 256

struct uc_devrec {
	struct usbip_device_info info;
	struct usbip_interface_info intf[UC_MAX_INTF];
};

struct uc {
	int fd;
	uint32_t devid;
	uint32_t next_seq;
	/* direction of each outstanding CMD_SUBMIT, to know if a RET_SUBMIT
	 * carries data */
	struct { uint32_t seq; bool in; bool used; uint32_t npackets; } out[UC_MAX_OUTSTANDING];
};

#define UC_MAX_ISO 32

/* One reply as received. */
struct uc_reply {
	struct usbip_header h;
	size_t data_len;	/* IN data bytes stored in the caller's buffer */
	uint32_t npackets;	/* ISO descriptors that followed */
	struct usbip_iso_desc iso[UC_MAX_ISO];
};

/* TCP connect to 127.0.0.1:@port (TCP_NODELAY, 10 s receive timeout).
 * Return the fd, or -1. */
int uc_connect(unsigned port);

/* Exact I/O on a blocking socket. Return 0, or -1 (EOF or error). */
int uc_write_all(int fd, const void *buf, size_t len);
int uc_read_all(int fd, void *buf, size_t len);

/* True when the peer has closed: the next read gives EOF (or a reset). */
bool uc_peer_closed(int fd);

/* OP_REQ_DEVLIST on a fresh connection (closed afterwards).
 * Return the device count, or -1. */
int uc_devlist(unsigned port, struct uc_devrec *devs, unsigned max);

/* OP_REQ_IMPORT of @busid on a fresh connection. Return the reply status
 * (0 OK, 2 busy, 4 not found...) with @c ready for URBs on 0, or -1 on a
 * transport error. On a non-zero status the connection is closed. */
int uc_import(struct uc *c, unsigned port, const char *busid,
	      struct usbip_device_info *info);

void uc_close(struct uc *c);

/* Send CMD_SUBMIT. @setup: 8 bytes for ep 0, else NULL. OUT: @len bytes
 * of @data follow. Return the seqnum used, or 0 on error. */
uint32_t uc_submit(struct uc *c, unsigned ep, bool in, const uint8_t *setup,
		   const void *data, uint32_t len, uint32_t flags);

/* Send an isochronous CMD_SUBMIT: @n packet descriptors (offset, length)
 * follow the OUT data. Return the seqnum, or 0. */
uint32_t uc_submit_iso(struct uc *c, unsigned ep, bool in, const void *data, uint32_t len,
		       const struct usbip_iso_desc *iso, uint32_t n);

/* Send CMD_UNLINK of @target. Return the seqnum used, or 0. */
uint32_t uc_unlink(struct uc *c, uint32_t target);

/* Receive one RET_SUBMIT / RET_UNLINK; IN data (up to @cap, the rest is
 * an error) goes to @buf. Return 0, or -1 (EOF, timeout, bad PDU). */
int uc_recv(struct uc *c, struct uc_reply *r, void *buf, size_t cap);

/* A whole control transfer, nothing else outstanding. Return the URB
 * status (0, -32...) with *actual, or -1000 on a transport error. */
int uc_control(struct uc *c, uint8_t bRequestType, uint8_t bRequest, uint16_t wValue,
	       uint16_t wIndex, uint16_t wLength, void *data, uint32_t *actual);

/* A whole bulk/interrupt transfer on @ep, nothing else outstanding.
 * Return as uc_control(). */
int uc_transfer(struct uc *c, unsigned ep, bool in, void *data, uint32_t len,
		uint32_t flags, uint32_t *actual);

#endif /* USBIP_CLIENT_H */
