/*
 * fuzz_usbip_server.c - libFuzzer target for the USB/IP server as a hostile
 * host meets it over TCP: the op phase, then streams of CMD_SUBMIT and
 * CMD_UNLINK (well-formed ones with fuzzed fields, duplicated sequence
 * numbers, unlinks of anything, raw headers) against the test gadget of
 * tests/integration (bulk loop, source and sink, interrupt, isochronous
 * in and out, vendor requests on ep0).
 *
 * Most inputs configure the device first (SET_CONFIGURATION 1, as a host
 * does): the data endpoints, the isochronous ones among them, exist only
 * then. ISO packet descriptors are laid out as a driver lays them out, or
 * overlapping, out of order or anywhere in a small range of the buffer,
 * so that a layout check has something to refuse.
 *
 * One server serves the whole run, as a daemon serves host after host,
 * capturing every URB (to /dev/null: the records are built and written).
 * Each input is one connection; a reader thread takes the replies apart
 * while the input is written. What must hold, besides ASan/UBSan/LSan:
 * - Every reply is a RET_SUBMIT or RET_UNLINK that decodes; a RET_SUBMIT
 *   answers a CMD_SUBMIT that was sent and not yet answered, with no more
 *   IN data than its transfer_buffer_length and, for an isochronous URB,
 *   as many packet descriptors as it had (checked while the script's
 *   sequence numbers are unique and its headers its own).
 * - The server ends the connection once the host has closed its side
 *   (no hang), and then serves the next: the device lists, and imports
 *   again.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <unistd.h>

#include "composite/usbip.h"
#include "udc/usbip/usbip_codec.h"
#include "usbip_client.h"
#include "usbip_test_gadget.h"
#include "fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define HANG_MS 5000
#define MAX_URB (64u * 1024u)	/* the server's max_urb_bytes */
#define MAX_PDUS 48u
#define MAX_SEQ 256u

/* ---- the server, once ---------------------------------------------------- */

static struct usbip_server *srv;
static unsigned port;
static struct tg gadget;

static void quiet(void *ctx, const char *line)
{
	(void)ctx;
	(void)line;
}

static void server_once(void)
{
	struct usbip_server_config cfg;

	if (srv)
		return;
	usbip_server_config_init(&cfg);
	cfg.port = 0;
	cfg.max_urb_bytes = MAX_URB;
	cfg.max_pending_bytes = 1u << 20;
	cfg.log = quiet;
	CHECK(usbip_server_create(&cfg, &srv) == 0);
	/* Every URB through the capture's records too (to nowhere). */
	CHECK(usbip_server_set_capture(srv, 0, "/dev/null") == 0);
	port = usbip_server_port(srv);
	CHECK(tg_probe(&gadget, "1-1", 0x0104) == 0);
	CHECK(usbip_server_start(srv) == 0);
}

/* ---- what was sent, for the reader ---------------------------------------- */

struct sent {
	bool used, answered, in;
	uint32_t len, npackets;
};

struct conn {
	int fd;
	uint32_t devid;
	pthread_mutex_t lock;
	struct sent seq[MAX_SEQ];	/* by sequence number */
	bool lenient;			/* headers not our own: framing unknown */
};

/* Before a PDU goes out: what its RET_SUBMIT may look like. An unlink's
 * sequence number gets none (@answered from the start). */
static void remember(struct conn *c, uint32_t seq, bool answered, bool in, uint32_t len,
		     uint32_t npackets)
{
	pthread_mutex_lock(&c->lock);
	if (seq >= MAX_SEQ || c->seq[seq].used)
		c->lenient = true;	/* duplicate: replies are ambiguous */
	else
		c->seq[seq] = (struct sent){ true, answered, in, len, npackets };
	pthread_mutex_unlock(&c->lock);
}

/* Before a PDU the server may close for goes out: stop checking replies. */
static void set_lenient(struct conn *c)
{
	pthread_mutex_lock(&c->lock);
	c->lenient = true;
	pthread_mutex_unlock(&c->lock);
}

/* Up to @cap bytes: how many, or 0 once the server has closed; traps when
 * the server goes silent for HANG_MS. */
static size_t read_some(int fd, uint8_t *buf, size_t cap)
{
	for (;;) {
		struct pollfd pfd = { fd, POLLIN, 0 };
		ssize_t n;

		CHECK(poll(&pfd, 1, HANG_MS) == 1);
		n = recv(fd, buf, cap, 0);
		if (n == 0 || (n < 0 && errno == ECONNRESET))
			return 0;
		if (n < 0 && errno == EINTR)
			continue;
		CHECK(n > 0);
		return (size_t)n;
	}
}

/* Exactly @len bytes. 1: done; 0: the server closed first. */
static int read_exact(int fd, void *buf, size_t len)
{
	uint8_t *p = buf;

	while (len) {
		size_t n = read_some(fd, p, len);

		if (!n)
			return 0;
		p += n;
		len -= n;
	}
	return 1;
}

static void *reader(void *arg)
{
	struct conn *c = arg;
	static uint8_t data[MAX_URB];
	uint8_t b[USBIP_URB_HEADER_SIZE];
	struct usbip_header h;

	for (;;) {
		bool lenient;
		struct sent s = { 0 };

		if (!read_exact(c->fd, b, sizeof(b)))
			break;
		pthread_mutex_lock(&c->lock);
		lenient = c->lenient;
		if (!lenient) {
			CHECK(usbip__decode_header(b, sizeof(b), &h) == 0);
			CHECK(h.command == USBIP_RET_SUBMIT || h.command == USBIP_RET_UNLINK);
			if (h.command == USBIP_RET_SUBMIT) {
				CHECK(h.seqnum < MAX_SEQ && c->seq[h.seqnum].used &&
				      !c->seq[h.seqnum].answered);
				c->seq[h.seqnum].answered = true;
				s = c->seq[h.seqnum];
			}
		}
		pthread_mutex_unlock(&c->lock);
		if (lenient) {
			/* Drain whatever comes until the server closes. */
			while (read_some(c->fd, data, sizeof(data)))
				;
			break;
		}
		if (h.command != USBIP_RET_SUBMIT)
			continue;
		CHECK(h.u.ret_submit.actual_length <= s.len);
		if (s.in && h.u.ret_submit.actual_length &&
		    !read_exact(c->fd, data, h.u.ret_submit.actual_length))
			break;
		if (s.npackets) {
			CHECK(h.u.ret_submit.number_of_packets == s.npackets);
			for (uint32_t i = 0; i < s.npackets; i++)
				if (!read_exact(c->fd, data, USBIP_ISO_DESC_SIZE))
					goto out;
		}
	}
out:
	return NULL;
}

/* Blocking send of all of @buf; false once the server has closed. */
static bool send_all(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len) {
		struct pollfd pfd = { fd, POLLOUT, 0 };
		ssize_t n;

		CHECK(poll(&pfd, 1, HANG_MS) == 1);	/* the server stopped reading */
		if (pfd.revents & (POLLERR | POLLHUP))
			return false;
		n = send(fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n < 0)
			return false;
		p += n;
		len -= (size_t)n;
	}
	return true;
}

/* ---- the script ------------------------------------------------------------ */

/* SETUP packets a host sends, with fuzzed fields after the first two. */
static const uint8_t setups[][2] = {
	{ 0x80, 0x06 }, { 0x00, 0x09 }, { 0x80, 0x08 }, { 0x01, 0x0b }, { 0x81, 0x0a },
	{ 0x02, 0x01 }, { 0x02, 0x03 }, { 0x82, 0x00 }, { 0x41, 0x5b }, { 0xc1, 0x5c },
	{ 0x41, 0x01 }, { 0x41, 0x02 }, { 0x00, 0x05 }, { 0x80, 0x00 }, { 0x00, 0x03 },
	{ 0x21, 0xff },
};

struct script {
	struct conn *c;
	struct input *in;
	uint32_t next_seq;
	uint8_t eps[8];		/* 0, loop out, loop in, sink, source, intr, isrc, isink */
	uint8_t pdu[USBIP_URB_HEADER_SIZE + MAX_URB + 9 * USBIP_ISO_DESC_SIZE];
};

/*
 * Packet @i of @n in a @len-byte ISO transfer: @layout 0 as drivers lay
 * packets out (contiguous, equal); 1 each over the whole buffer (they
 * overlap); 2 anywhere within the buffer or just past it; 3 raw.
 */
static void iso_layout(struct input *in, uint8_t layout, uint32_t i, uint32_t n, uint32_t len,
		       struct usbip_iso_desc *d)
{
	switch (layout % 4) {
	case 0:
		d->offset = i * (len / n);
		d->length = len / n;
		break;
	case 1:
		d->offset = 0;
		d->length = len;
		break;
	case 2:
		d->offset = in_le(in, 2) % (len + 2);
		d->length = in_le(in, 2) % (len + 2);
		break;
	default:
		d->offset = in_le(in, 4);
		d->length = in_le(in, 2);
		break;
	}
}

static bool submit(struct script *s)
{
	struct input *in = s->in;
	uint8_t sel = in_u8(in), how = in_u8(in);
	unsigned idx = sel % 8u;
	uint8_t addr = s->eps[idx];
	struct usbip_header h;
	uint32_t len, npackets = 0, off;
	bool in_dir, iso = idx >= 6;

	memset(&h, 0, sizeof(h));
	h.command = USBIP_CMD_SUBMIT;
	h.seqnum = (how & 0x80) && s->next_seq ? s->next_seq : ++s->next_seq;
	h.devid = (how & 0x40) ? in_le(in, 4) : s->c->devid;
	if (sel & 0x80)
		addr = (uint8_t)((sel & 0x10 ? USB_DIR_IN : 0) | (in_u8(in) & 0x0f));
	h.ep = addr & 0x0f;
	in_dir = (addr & USB_DIR_IN) != 0;
	len = in_le(in, 2) % (in_dir ? 20000u : 4097u);
	if (h.ep == 0) {
		uint8_t t = in_u8(in);

		in_fill(in, h.u.cmd_submit.setup, 8);
		if (t & 1) {
			h.u.cmd_submit.setup[0] = setups[(t >> 1) % 16][0];
			h.u.cmd_submit.setup[1] = setups[(t >> 1) % 16][1];
		}
		in_dir = (h.u.cmd_submit.setup[0] & USB_DIR_IN) != 0;
		if (!(t & 0x80)) {	/* transfer length as wLength says */
			h.u.cmd_submit.setup[6] = (uint8_t)(len % 4097u);
			h.u.cmd_submit.setup[7] = (uint8_t)((len % 4097u) >> 8);
			len %= 4097u;
		}
	}
	if (how & 0x20)
		in_dir = !in_dir;	/* a direction the endpoint does not have */
	h.direction = in_dir ? USBIP_DIR_IN : USBIP_DIR_OUT;
	h.u.cmd_submit.transfer_flags = (in_le(in, 2) & 0x0247u) | (in_dir ? USBIP_URB_DIR_IN : 0);
	h.u.cmd_submit.transfer_buffer_length = len;
	h.u.cmd_submit.interval = in_u8(in) % 17u;
	if (iso || (how & 0x10)) {
		npackets = in_u8(in) % 9u;
		h.u.cmd_submit.number_of_packets = npackets;
		h.u.cmd_submit.start_frame = (how & 0x08) ? in_le(in, 4) : 0;
		h.u.cmd_submit.transfer_flags |= USBIP_URB_ISO_ASAP;
	}
	CHECK(usbip__encode_header(s->pdu, USBIP_URB_HEADER_SIZE, &h) == (int)USBIP_URB_HEADER_SIZE);
	off = USBIP_URB_HEADER_SIZE;
	if (!in_dir) {
		in_fill(in, s->pdu + off, len < 64 ? len : 64);
		memset(s->pdu + off + (len < 64 ? len : 64), 0xa5, len > 64 ? len - 64 : 0);
		off += len;
	}
	for (uint32_t i = 0; i < npackets; i++) {
		struct usbip_iso_desc d = { 0 };

		iso_layout(in, (how & 0x04) ? in_u8(in) : 0, i, npackets, len, &d);
		CHECK(usbip__encode_iso_desc(s->pdu + off, USBIP_ISO_DESC_SIZE, &d) ==
		      (int)USBIP_ISO_DESC_SIZE);
		off += USBIP_ISO_DESC_SIZE;
	}
	/* Only an ISO endpoint gets descriptors back; elsewhere the server
	 * refuses them (and closes) or they are the 0 Linux sends. */
	remember(s->c, h.seqnum, false, in_dir, len, iso ? npackets : 0);
	if (h.devid != s->c->devid || (how & 0x20) || (sel & 0x80) || (how & 0x10) ||
	    (iso && (how & 0x04)))
		set_lenient(s->c);	/* the server may close: replies unknown */
	return send_all(s->c->fd, s->pdu, off);
}

static bool unlink_one(struct script *s)
{
	struct input *in = s->in;
	uint8_t how = in_u8(in);
	struct usbip_header h;

	memset(&h, 0, sizeof(h));
	h.command = USBIP_CMD_UNLINK;
	h.seqnum = ++s->next_seq;
	h.devid = s->c->devid;
	h.u.cmd_unlink.unlink_seqnum = (how & 0x80) ? in_le(in, 4)
				       : s->next_seq > (how & 0x0fu) ? s->next_seq - (how & 0x0fu)
								      : 0;
	remember(s->c, h.seqnum, true, false, 0, 0);
	CHECK(usbip__encode_header(s->pdu, USBIP_URB_HEADER_SIZE, &h) == (int)USBIP_URB_HEADER_SIZE);
	return send_all(s->c->fd, s->pdu, USBIP_URB_HEADER_SIZE);
}

static bool raw(struct script *s)
{
	size_t len = USBIP_URB_HEADER_SIZE + in_u8(s->in);

	in_fill(s->in, s->pdu, len);
	set_lenient(s->c);
	return send_all(s->c->fd, s->pdu, len);
}

/* SET_CONFIGURATION(1), as the first thing a host does. */
static bool configure(struct script *s)
{
	struct usbip_header h;

	memset(&h, 0, sizeof(h));
	h.command = USBIP_CMD_SUBMIT;
	h.seqnum = ++s->next_seq;
	h.devid = s->c->devid;
	h.direction = USBIP_DIR_OUT;
	h.u.cmd_submit.setup[1] = USB_REQ_SET_CONFIGURATION;
	h.u.cmd_submit.setup[2] = 1;
	remember(s->c, h.seqnum, false, false, 0, 0);
	CHECK(usbip__encode_header(s->pdu, USBIP_URB_HEADER_SIZE, &h) == (int)USBIP_URB_HEADER_SIZE);
	return send_all(s->c->fd, s->pdu, USBIP_URB_HEADER_SIZE);
}

static void run_script(struct conn *c, struct input *in, bool configured)
{
	static struct script s;

	memset(&s, 0, sizeof(s));
	s.c = c;
	s.in = in;
	s.eps[1] = tg_addr(gadget.loop_out);
	s.eps[2] = tg_addr(gadget.loop_in);
	s.eps[3] = tg_addr(gadget.sink);
	s.eps[4] = tg_addr(gadget.source);
	s.eps[5] = tg_addr(gadget.intr);
	s.eps[6] = tg_addr(gadget.isrc);
	s.eps[7] = tg_addr(gadget.isink);
	if (configured && !configure(&s))
		return;
	for (unsigned n = 0; in->left && n < MAX_PDUS; n++) {
		uint8_t op = in_u8(in);
		bool ok;

		switch (op % 8) {
		case 4:
		case 5:
			ok = unlink_one(&s);
			break;
		case 6:
			ok = raw(&s);
			break;
		case 7: {
			struct timespec ts = { 0, (long)in_u8(in) * 20000L };

			nanosleep(&ts, NULL);	/* let replies interleave */
			ok = true;
			break;
		}
		default:
			ok = submit(&s);
			break;
		}
		if (!ok)
			break;
	}
}

/* Import "1-1"; the previous connection's release may still be running. */
static int import(struct uc *u)
{
	struct usbip_device_info info;

	for (int i = 0; i < 300; i++) {
		int st = uc_import(u, port, "1-1", &info);

		CHECK(st >= 0);
		if (st == 0)
			return 0;
		struct timespec ts = { 0, 10 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	__builtin_trap();	/* the device stays busy after its host left */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { data, size };
	static struct conn c;
	struct uc u;
	struct uc_devrec devs[2];
	pthread_t t;
	uint8_t mode = in_u8(&in);

	server_once();
	memset(&c, 0, sizeof(c));
	pthread_mutex_init(&c.lock, NULL);
	if (mode % 4 == 0) {
		/* Raw bytes from the first byte on: the op phase. */
		c.fd = uc_connect(port);
		CHECK(c.fd >= 0);
		c.lenient = true;
	} else {
		CHECK(import(&u) == 0);
		c.fd = u.fd;
		c.devid = u.devid;
	}
	CHECK(pthread_create(&t, NULL, reader, &c) == 0);
	if (mode % 4 == 0)
		(void)send_all(c.fd, in.p, in.left);
	else
		run_script(&c, &in, !(mode & 0x80));
	shutdown(c.fd, SHUT_WR);
	pthread_join(t, NULL);	/* the reader traps if the server never closes */
	close(c.fd);
	pthread_mutex_destroy(&c.lock);

	/* The server goes on serving. */
	CHECK(uc_devlist(port, devs, 2) == 1);
	return 0;
}
