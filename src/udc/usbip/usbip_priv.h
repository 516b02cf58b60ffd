/*
 * usbip_priv.h - private structures of the USB/IP backend, shared by its
 * files; prototypes grouped by the file that defines them.
 *
 * Objects and owners:
 * - struct usbip_server (usbip_server_posix.c) owns the listening socket,
 *   the devices and the connections.
 * - struct usbip__dev (usbip_udc_posix.c) is one exported device: the UDC (an
 *   embedded usb_gadget with ep0 and 30 data endpoints) and its lock.
 * - struct usbip__conn (usbip_conn_posix.c; its op phase in
 *   usbip_op_posix.c, its URB phase's receive side in usbip_rx_posix.c and
 *   transmit queue in usbip_tx_posix.c) is one TCP connection; once it imports a device its
 *   thread is that gadget's event context.
 * - struct usbip__urb (urb_posix.c) is one submitted URB, owned by the
 *   connection; while pending it is a host transfer of the transfer
 *   engine (src/udc/common/xfer.h) on its endpoint.
 *
 * Locking: dev->lock guards the endpoints' request and URB lists, the halt
 * state, ep0's control state and dev->conn. The core's entry points
 * (usb_gadget_setup, usb_gadget_event, usb_gadget_giveback_request) are
 * only ever called without it, from the connection thread (or from
 * ep ops disable/dequeue in their caller's thread, as udc.h allows).
 */
#ifndef USBIP_PRIV_H
#define USBIP_PRIV_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "composite/udc.h"
#include "composite/usbip.h"
#include "udc/common/xfer.h"
#include "usbip_codec.h"

struct usbip__capture;
struct usbip__conn;
struct usbip__dev;

/* Runs a bulk or interrupt IN reply may gather from request buffers. */
#define USBIP_URB_SEGS 16

/* One submitted URB; the engine's host transfer is embedded. */
struct usbip__urb {
	struct udcx_urb x;		/* x.context == this; x.node: engine/done */
	struct list_head conn_link;	/* in conn->urbs until answered or unlinked */
	uint32_t seqnum;
	uint32_t devid;
	unsigned epnum;
	bool dir_in;
	bool is_iso;
	uint8_t xfer;			/* the endpoint's USB_ENDPOINT_XFER_* at submit */
	bool captured;			/* capture was on at its CMD_SUBMIT: 'S' and 'C' */
	uint32_t interval;		/* CMD_SUBMIT's, for the capture */
	uint32_t xfer_flags;		/* CMD_SUBMIT's transfer_flags, for the capture */
	uint32_t length;		/* transfer_buffer_length */
	uint8_t *buf;			/* length bytes, owned */
	uint32_t start_frame;
	uint32_t number_of_packets;	/* ISO only, else 0 */
	struct usbip_iso_desc *iso;	/* number_of_packets entries, owned */
	struct udcx_iso_packet *pk;	/* the same packets for the engine, owned */
	/* Zero copy (urb_posix.c): an IN reply gathers from the requests'
	 * buffers (its bytes are sent under dev->lock, then it is released);
	 * an OUT URB is streamed: submitted at its header, its payload
	 * received straight into the requests (usbip__urb_rx_begin()). */
	bool gather;
	bool streaming;
	bool early_done;		/* finished while its payload still came */
	bool dropped;			/* unlinked before it came: read, then freed */
	struct udcx_seg segs[USBIP_URB_SEGS];
};

/*
 * A connection's unanswered URBs by seqnum (urb_posix.c): a chained hash table
 * whose multiplier is a per-connection secret, so that a client cannot
 * choose seqnums that pile into one bucket. Lookups are O(1) on average.
 */
struct usbip__urb_table {
	struct list_head *buckets;	/* mask + 1 of them, owned */
	uint32_t mask;
	uint32_t key;
	size_t count;
};

/* One endpoint of the device. */
struct usbip__ep {
	struct usb_ep ep;
	struct udcx_ep x;		/* the engine's state, under dev->lock */
	struct usbip__dev *dev;
	char name[16];
	unsigned num;
	bool dir_in;
	uint8_t type;			/* USB_ENDPOINT_XFER_*, set at enable */
	bool paced;			/* an interrupt endpoint: on dev->pacer */
};

struct usbip__dev {
	struct usb_gadget gadget;
	struct usbip_server *server;
	unsigned index;
	char busid[USBIP_BUSID_SIZE];
	pthread_mutex_t lock;
	pthread_cond_t cond;		/* signalled when conn goes NULL */
	bool registered;
	bool started;			/* between ops->start and ops->stop */
	bool stopping;			/* ops->stop is waiting for the connection */
	bool unplugging;		/* conn is in usbip__dev_detach(), or after */
	struct usbip__conn *conn;	/* the importing connection, or NULL */
	/* What the engine finished and the connection thread has yet to
	 * give back / answer (ops->queue may not complete anything itself). */
	struct udcx_done done;
	struct usbip__ep ep0;
	struct usbip__ep eps[2][USBIP_MAX_ENDPOINT];	/* [dir_in][num - 1] */
	/* The endpoint whose streamed URB waits for a request, or NULL. */
	struct usbip__ep *rx_starved;
	/* Interrupt endpoints keep their service interval (xfer.h,
	 * pacing): the connection thread sleeps until pace_armed (the
	 * clock's ns; UINT64_MAX: no slot awaited) and runs the pacer then;
	 * an ep op that holds an endpoint for an earlier slot wakes it.
	 * n_paced (also read without the lock) spares devices without
	 * interrupt endpoints any of it. */
	struct udcx_pacer pacer;
	uint64_t pace_armed;
	atomic_uint n_paced;
	unsigned last_state;		/* gadget->state last reported */
	unsigned last_config;
	/* Capture (capture_posix.c): cap_lock guards cap; capturing mirrors
	 * cap != NULL, read without the lock at each CMD_SUBMIT. dev->lock
	 * may be taken under cap_lock, never the reverse. */
	pthread_mutex_t cap_lock;
	struct usbip__capture *cap;
	atomic_bool capturing;
};

/* How long the accept loop waits when accept() is out of descriptors. */
#define USBIP_ACCEPT_BACKOFF_MS 100

struct usbip_server {
	struct usbip_server_config cfg;
	char address[64];
	int listen_fd;
	int stop_pipe[2];
	unsigned port;
	pthread_mutex_t lock;		/* conns list, running */
	struct list_head conns;
	bool running;
	bool thread_started;
	pthread_t thread;
	/* accept loop only: op-phase evictions, and when one was last logged */
	unsigned long evictions;
	bool evictions_logged;
	time_t eviction_log_time;
	/* accept loop only: accept() out of descriptors, last logged when */
	bool starved_logged;
	time_t starved_log_time;
	unsigned ndev;
	struct usbip__dev **devs;	/* cfg.num_devices of them, owned */
};

/* usbip_server_posix.c */
void usbip__log(struct usbip_server *srv, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
	__attribute__((format(printf, 2, 3)))
#endif
	;
void usbip__emit(struct usbip_server *srv, enum usbip_event_type type,
		 const struct usbip__dev *dev, const char *peer, unsigned config,
		 const char *message);
/* Fill the device record (and up to @max interface records) of @dev.
 * Return: the interface count, or USB_ENODEV when no driver is bound. */
int usbip__dev_describe(struct usbip__dev *dev, struct usbip_device_info *info,
			struct usbip_interface_info *intf, unsigned max);

/* usbip_udc_posix.c */
int usbip__dev_create(struct usbip_server *srv, unsigned index, struct usbip__dev **out);
void usbip__dev_destroy(struct usbip__dev *dev);
/* Claim @dev for @conn: 0, USB_ENODEV (not bound) or USB_EBUSY. Waits
 * (bounded, see usbip_udc_posix.c) for a previous connection still letting go. */
int usbip__dev_claim(struct usbip__dev *dev, struct usbip__conn *conn);
void usbip__dev_release(struct usbip__dev *dev);
struct usbip__ep *usbip__dev_ep(struct usbip__dev *dev, unsigned num, bool dir_in);
/* The speed @dev enumerates at: the server's, capped at the bound driver's
 * max_speed. */
enum usb_device_speed usbip__dev_speed(struct usbip__dev *dev);
/* Where @dev sits as the host sees it: a USB address is 1..127
 * (SET_ADDRESS), so device i is devnum i % 127 + 1 on bus busnum +
 * i / 127 (its busid stays "busnum-(i + 1)"). */
#define USBIP_DEVS_PER_BUS 127u
uint32_t usbip__dev_busnum(const struct usbip__dev *dev);
uint32_t usbip__dev_devnum(const struct usbip__dev *dev);
/* The devid the host names @dev by in its URB headers: busnum << 16 |
 * devnum, as OP_REP_IMPORT gave them. */
uint32_t usbip__dev_devid(const struct usbip__dev *dev);

/* usbip_udc_posix.c: the event side, in the connection thread. */
/* After an import: bus reset at the configured speed and the SET_ADDRESS
 * that vhci completes on the host. Return 0 or a negative error. */
int usbip__dev_attach(struct usbip__dev *dev, unsigned devnum);
/* The host went away: fail what is pending, tell the core (unless
 * ops->stop is waiting), forget the URBs. */
void usbip__dev_detach(struct usbip__dev *dev, struct list_head *done_urbs);

/* urb_posix.c: URBs against the engine, in the connection thread. */
/* A new URB for CMD_SUBMIT @h with a buffer of transfer_buffer_length
 * (already bounded by the caller). NULL when out of memory. */
struct usbip__urb *usbip__urb_new(const struct usbip_header *h, bool is_iso);
/* Free @urb (NULL is fine); a gathering one first gives up the requests
 * it held into dev->done (takes dev->lock). */
void usbip__urb_free(struct usbip__dev *dev, struct usbip__urb *urb);
/* Decode ISO URB @urb's number_of_packets descriptors from @wire into
 * urb->iso and the engine's packets. Return 0, or USB_EPROTO for a layout
 * no host sends (packets out of order, overlapping or outside the buffer:
 * udcx__iso_layout_valid()), a hostile PDU. */
int usbip__urb_take_iso(struct usbip__urb *urb, const uint8_t *wire);
/* Submit @urb to its endpoint; whatever finishes lands in dev->done.
 * ISO URBs need usbip__urb_take_iso() first. Return 0, or a negative
 * error: answer the URB with it at once. */
int usbip__urb_submit(struct usbip__dev *dev, struct usbip__urb *urb);
/* Submit bulk or interrupt OUT @urb before its payload has come (sets
 * urb->streaming on success). Errors as usbip__urb_submit(); on error
 * the URB is submitted the usual way once its payload is in. */
int usbip__urb_submit_stream(struct usbip__dev *dev, struct usbip__urb *urb);
/* Streamed @urb: take dev->lock and say where its next payload bytes go
 * (up to @max windows into @win, in order; the count is returned) and
 * whether it waits for a request (*@starved: then the next ops->queue on
 * its endpoint wakes the connection);
 * usbip__urb_rx_end() says how many were written there (0 is fine),
 * drops the lock and gives back the requests that filled (connection
 * thread only). */
size_t usbip__urb_rx_begin(struct usbip__dev *dev, struct usbip__urb *urb,
			   struct udcx_window *win, size_t max, bool *starved);
void usbip__urb_rx_end(struct usbip__dev *dev, struct usbip__urb *urb, size_t n);
/* After an ISO URB finished: per-packet results into urb->iso, and the IN
 * data packed as the wire wants it (each packet's actual bytes in order,
 * never more than the buffer holds, whatever the packets say). */
void usbip__urb_iso_finish(struct usbip__urb *urb);
/* The URB table: buckets for about @capacity URBs, hashed with @key.
 * Return 0 or USB_ENOMEM. */
int usbip__urb_table_init(struct usbip__urb_table *t, size_t capacity, uint32_t key);
void usbip__urb_table_fini(struct usbip__urb_table *t);
/* Add @urb (not in a table, its seqnum not in @t). */
void usbip__urb_table_add(struct usbip__urb_table *t, struct usbip__urb *urb);
/* The URB with @seqnum, or NULL. */
struct usbip__urb *usbip__urb_table_find(const struct usbip__urb_table *t, uint32_t seqnum);
/* Take @urb out; false if it was in no table. */
bool usbip__urb_table_remove(struct usbip__urb_table *t, struct usbip__urb *urb);
/* Empty @t without touching its URBs (they are freed elsewhere). */
void usbip__urb_table_forget(struct usbip__urb_table *t);
/* Unlink: true if @urb was pending (no RET_SUBMIT may follow for it). */
bool usbip__urb_unlink(struct usbip__dev *dev, struct usbip__urb *urb);
/* Run ep0 and give back what finished; finished URBs of the host are moved
 * to @done_urbs (struct usbip__urb through x.node). No lock held. */
void usbip__dev_process(struct usbip__dev *dev, struct list_head *done_urbs);
/* Pacing, in the connection thread: run the interrupt endpoints whose
 * service interval has come (what they finish lands in dev->done) and
 * return how long the thread may sleep before the next one (ns; 0: not
 * at all, there is something to answer or due; -1: no slot awaited).
 * One atomic load without interrupt endpoints. */
long long usbip__dev_pace(struct usbip__dev *dev);
/* The USB_ENDPOINT_XFER_* of @num/@dir_in right now (control for ep0),
 * or USBIP_EP_DISABLED when it is not enabled. */
#define USBIP_EP_DISABLED 0xffu
uint8_t usbip__dev_ep_type(struct usbip__dev *dev, unsigned num, bool dir_in);

/* capture_posix.c: the pcap capture of a device's URBs. */
/* Start capturing to @path (created or truncated; a directory:
 * @path/usbip-BUSID.pcap), switch to it, or stop (NULL). Return 0, or a
 * negative error of opening it (then the capture is as it was). Any
 * thread. */
int usbip__cap_set(struct usbip__dev *dev, const char *path);
/* The data bytes a capture record keeps per URB under
 * cfg->capture_max_data: 0 (all) also for a value past 32 bits. */
static inline uint32_t usbip__cap_max_data(const struct usbip_server_config *cfg)
{
	return cfg->capture_max_data > UINT32_MAX ? 0 : (uint32_t)cfg->capture_max_data;
}
/* Close the capture (device teardown). */
void usbip__cap_fini(struct usbip__dev *dev);
/* Push the buffered records to the file and wait until they are in (a
 * host went away). */
void usbip__cap_flush(struct usbip__dev *dev);
/* How long a record may wait in memory before the writer puts it in
 * the file (capture_file_posix.c). */
#define USBIP_CAP_FLUSH_NS 1000000000LL
/* The 'S' record of @urb (if urb->captured): its setup packet and, for
 * OUT, its urb->length bytes in urb->buf. Connection thread. */
void usbip__cap_submit(struct usbip__dev *dev, const struct usbip__urb *urb);
/* The 'C' record of @urb with @status and @actual bytes (IN: from
 * urb->buf, or from the request buffers a gathering URB still holds;
 * ISO: after usbip__urb_iso_finish()), once its reply is sent (or at its
 * unlink). Connection thread, dev->lock not held. */
void usbip__cap_complete(struct usbip__dev *dev, const struct usbip__urb *urb, int status,
			 size_t actual);

/* capture_file_posix.c: a pcap file written behind by a thread. */
struct usbip__cap_file;
/* The negative USB_E* error of errno @e, for a capture's file. */
int usbip__cap_map_errno(int e);
/* Create or truncate @path and write @header (@len bytes) to it at once;
 * @busid and @path (copied) name it in the log line of a later failure. Return 0 with *@out set, or the error of open() or of
 * that write (USB_ENOENT, USB_EACCES, USB_EROFS, USB_ENOSPC,
 * USB_ENAMETOOLONG, USB_ENOMEM, USB_EINVAL, USB_EIO). */
int usbip__cap_file_open(struct usbip_server *srv, const char *busid, const char *path,
			 const void *header, size_t len, struct usbip__cap_file **out);
/* Append a copy of @n bytes (@p borrowed for the call); the writer
 * thread puts them in the file later. Waits only while the ring is full.
 * Return 0, or the error of an earlier write (logged then; the bytes are
 * dropped). One caller at a time. */
int usbip__cap_file_put(struct usbip__cap_file *f, const void *p, size_t n);
/* Wait until every byte put so far is in the file. Return as _put(). */
int usbip__cap_file_flush(struct usbip__cap_file *f);
/* Write what is pending, stop the writer, close and free (NULL: no
 * effect). Return 0, or close()'s error. */
int usbip__cap_file_close(struct usbip__cap_file *f);

/* One connection (usbip_conn_posix.c owns it; usbip_op_posix.c,
 * usbip_rx_posix.c and usbip_tx_posix.c read and keep their parts). */
enum usbip__rx_stage { USBIP_RX_HEADER, USBIP_RX_DATA, USBIP_RX_ISO };

/*
 * Where a connection is in its op phase (conn->op_state). The accept loop
 * may evict a connection only while it is READING (CAS to EVICTED); the
 * connection leaves READING by CAS once its whole request is in, so a
 * request that was read is always answered.
 */
enum usbip__op_state {
	USBIP_OP_READING,	/* reading its op request: evictable */
	USBIP_OP_SERVING,	/* request in, being answered */
	USBIP_OP_IMPORTED,	/* the URB stream of a device: not an op slot */
	USBIP_OP_EVICTED	/* closed for a newer connection */
};

/* CMD_UNLINKs ahead of their CMD_SUBMIT remembered per connection. */
#define USBIP_EARLY_UNLINKS 64

struct usbip__conn {
	struct list_head srv_link;
	struct usbip_server *srv;
	int fd;
	int wake[2];
	char peer[64];
	/* Op-phase accounting, set by the accept loop before the thread
	 * starts: the peer's address without the port (the per-peer cap), the
	 * end of the op phase (CLOCK_MONOTONIC), and enum usbip__op_state. */
	char peer_addr[64];
	struct timespec op_deadline;
	atomic_int op_state;
	pthread_t thread;
	/* The thread's own id once it runs (running), and a wakeup it gave
	 * itself (usbip__conn_wake() from a completion in this thread). */
	pthread_t self;
	atomic_bool running;
	atomic_bool kicked;
	atomic_bool killed;
	atomic_bool finished;
	atomic_bool wake_pending;	/* a byte is in wake[] or on its way */
	struct usbip__dev *dev;		/* imported device, or NULL */
	uint32_t devid;			/* dev's, as the host must name it */
	struct usbip__urb_table urbs;	/* unanswered URBs, via conn_link */
	/* What the connection holds: URBs submitted and not yet answered or
	 * unlinked, counted until their reply is sent (every URB counts,
	 * whatever its length). */
	size_t pending_bytes;
	size_t pending_urbs;
	/* receive state */
	enum usbip__rx_stage stage;
	uint8_t hdr[USBIP_URB_HEADER_SIZE];
	size_t got;
	struct usbip_header h;
	struct usbip__urb *rx_urb;
	uint32_t rx_data, rx_iso;
	uint8_t *iso_buf;
	/* Received ahead of the stage that takes them: rxb[rxb_off, rxb_len). */
	uint8_t rxb[4096];
	size_t rxb_off, rxb_len;
	bool rx_empty;			/* the last recv found the socket empty */
	/* A streamed URB's payload held back until a request is queued for
	 * it (usbip_rx_posix.c, RX_WAIT_NS): since when, and whether this
	 * URB already waited its time out. */
	bool rx_waiting, rx_waited;
	struct timespec rx_wait_start;
	/*
	 * CMD_UNLINKs that came before their CMD_SUBMIT: vhci's tx thread can
	 * send a URB's unlink ahead of its submit when both are queued
	 * between two of its passes. The RET_UNLINK (-ECONNRESET) waits for
	 * that CMD_SUBMIT, which is dropped unanswered: only then does vhci
	 * hold the URB where a RET_UNLINK finds it (answered earlier, the URB
	 * is never given back; answered 0 and followed by a RET_SUBMIT, vhci
	 * may give it back twice and drops the connection).
	 */
	struct usbip__early_unlink {
		uint32_t target;	/* the URB's seqnum */
		uint32_t seqnum;	/* the CMD_UNLINK's, for its RET_UNLINK */
	} early_unlinks[USBIP_EARLY_UNLINKS];
	unsigned n_early_unlinks;
	bool any_submit;
	uint32_t last_submit;		/* seqnum of the newest CMD_SUBMIT */
	/* transmit queue */
	struct list_head txq;
	size_t tx_items;
};

/* usbip_op_posix.c */
/* Read exactly @len bytes (op phase). Return 0; USB_ENOTCONN on EOF;
 * USB_ETIMEDOUT (past conn->op_deadline), USB_ECONNABORTED (killed),
 * USB_ECONNRESET, USB_EIO. */
int usbip__op_read(struct usbip__conn *c, void *buf, size_t len);
/* Answer OP_REQ_DEVLIST. Return 0 or a negative error. */
int usbip__op_devlist(struct usbip__conn *c);
/* Answer OP_REQ_IMPORT (its body is read here). Return 0 with c->dev
 * claimed, 1 when refused (the reply was sent), or a negative error. */
int usbip__op_import(struct usbip__conn *c);
/* The whole op request is in: leave USBIP_OP_READING. Return 0, or
 * USB_ECONNABORTED when the accept loop evicted the connection first. */
int usbip__op_request_in(struct usbip__conn *c);
/* Empty the wake pipe. */
void usbip__conn_drain_wake(struct usbip__conn *c);

/* usbip_rx_posix.c: the receive side, in the connection thread. */
/* Read what the socket holds and act on each complete PDU (bounded work
 * per call). Return 0 to go on, 1 on EOF, or a negative error (end the
 * connection). */
int usbip__rx_some(struct usbip__conn *c);
/* While a starved streamed payload is held back (conn->rx_waiting): the
 * ms until the hold ends (at least 1), for poll()'s timeout. */
int usbip__rx_hold_ms(const struct usbip__conn *c);

/* usbip_tx_posix.c: the transmit queue, in the connection thread. */
/* Count @urb against the connection's caps (pending_bytes and
 * pending_urbs) from its CMD_SUBMIT until its reply is sent or it is
 * unlinked; usbip__tx_uncharge() takes it off. */
void usbip__tx_charge(struct usbip__conn *c, const struct usbip__urb *urb);
void usbip__tx_uncharge(struct usbip__conn *c, const struct usbip__urb *urb);
/* Queue a RET_UNLINK for CMD_UNLINK @seqnum with @status. Return 0,
 * USB_ENOMEM, or USB_EPROTO when the host does not read its replies. */
int usbip__tx_ret_unlink(struct usbip__conn *c, uint32_t seqnum, int status);
/* Queue @urb's RET_SUBMIT; @urb leaves conn->urbs and the queue owns it
 * (freed once sent, also on error). Errors as usbip__tx_ret_unlink(). */
int usbip__tx_ret_submit(struct usbip__conn *c, struct usbip__urb *urb);
/* Queue the RET_SUBMIT of every URB the engine finished. Return 0 or a
 * negative error. */
int usbip__tx_answer_done(struct usbip__conn *c);
/* Write what the socket takes now; *@released tells whether a sent reply
 * gave requests back to dev->done. Return 0, USB_ECONNRESET or USB_EIO. */
int usbip__tx_flush(struct usbip__conn *c, bool *released);
/* Unplug: free every queued reply unsent (their URBs too). */
void usbip__tx_drop_all(struct usbip__conn *c);

/* usbip_conn_posix.c */
/* A protocol violation: log, event, and USB_EPROTO to end the connection. */
int usbip__conn_hostile(struct usbip__conn *c, const char *what);
struct usbip__conn *usbip__conn_new(struct usbip_server *srv, int fd, const char *peer);
/* The connection's thread body, and starting it. */
void *usbip__conn_thread(void *arg);
int usbip__conn_start(struct usbip__conn *conn);
/* Free a connection whose thread could not be started (closes its fd). */
void usbip__conn_free_unstarted(struct usbip__conn *conn);
/* Make the connection end soon (any thread; no lock needed). */
void usbip__conn_kill(struct usbip__conn *conn);
/* Wake the connection thread (any thread, dev->lock held or not). */
void usbip__conn_wake(struct usbip__conn *conn);
bool usbip__conn_finished(struct usbip__conn *conn);
void usbip__conn_join_free(struct usbip__conn *conn);
struct list_head *usbip__conn_srv_link(struct usbip__conn *conn);
struct usbip__conn *usbip__conn_from_srv_link(struct list_head *link);

#endif /* USBIP_PRIV_H */
