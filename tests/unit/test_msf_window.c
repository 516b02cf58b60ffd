/*
 * test_msf_window.c - the MSF's zero-copy path: READ(10) read straight
 * into the host's transfer and WRITE(10) written straight from it, through
 * the loopback host's windows (usb_ep_get_window()); medium errors on that
 * path; a disconnect while the worker holds a window; and the copy path of
 * a host without windows. Each case orders the host's transfers so that
 * the path is certain (a gate in the backend holds the worker where
 * needed), and checks it through usb_loopback_host_info().window_bytes.
 */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "test_msf_fixture.h"

#define BLOCKS 1024u
#define XFER (64u * 1024u)

/* ---- a memory medium whose calls can be held at a gate ------------------- */

struct gate {
	struct fsg_backend be;
	uint8_t mem[BLOCKS * 512];
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool closed;
	int waiting;		/* calls held at the gate now */
	bool half;		/* reads and writes stop halfway (a medium error) */
};

static void gate_pass(struct gate *g)
{
	pthread_mutex_lock(&g->mu);
	g->waiting++;
	pthread_cond_broadcast(&g->cv);
	while (g->closed)
		pthread_cond_wait(&g->cv, &g->mu);
	g->waiting--;
	pthread_mutex_unlock(&g->mu);
}

static uint32_t gate_len(struct gate *g, uint32_t len)
{
	return g->half ? len / 2 / 512 * 512 : len;
}

static int gate_read(struct fsg_backend *be, uint64_t off, void *buf, uint32_t len)
{
	struct gate *g = be->priv;

	gate_pass(g);
	len = gate_len(g, len);
	memcpy(buf, g->mem + off, len);
	return (int)len;
}

static int gate_write(struct fsg_backend *be, uint64_t off, const void *buf, uint32_t len)
{
	struct gate *g = be->priv;

	gate_pass(g);
	len = gate_len(g, len);
	memcpy(g->mem + off, buf, len);
	return (int)len;
}

static int gate_flush(struct fsg_backend *be)
{
	gate_pass(be->priv);
	return 0;
}

static uint64_t gate_capacity(struct fsg_backend *be)
{
	(void)be;
	return BLOCKS * 512u;
}

static const struct fsg_backend_ops gate_ops = {
	.read = gate_read, .write = gate_write, .flush = gate_flush, .capacity = gate_capacity,
};

static void gate_set(struct gate *g, bool closed)
{
	pthread_mutex_lock(&g->mu);
	g->closed = closed;
	pthread_cond_broadcast(&g->cv);
	pthread_mutex_unlock(&g->mu);
}

/* Wait until the worker is held at the gate. */
static void gate_await_worker(struct gate *g)
{
	pthread_mutex_lock(&g->mu);
	while (g->waiting == 0)
		pthread_cond_wait(&g->cv, &g->mu);
	pthread_mutex_unlock(&g->mu);
}

static struct gate *gate;

static struct msf_fx *up(void)
{
	struct msf_fx *fx = msf_fx_new();

	if (!gate) {
		gate = calloc(1, sizeof(*gate));
		assert_non_null(gate);
		pthread_mutex_init(&gate->mu, NULL);
		pthread_cond_init(&gate->cv, NULL);
		gate->be.ops = &gate_ops;
		gate->be.priv = gate;
	}
	gate->closed = false;
	gate->half = false;
	for (size_t i = 0; i < sizeof(gate->mem); i++)
		gate->mem[i] = msf_fx_pat(i);
	fx->cfg.luns[0].backend = &gate->be;	/* no release op: stays ours */
	msf_fx_up(fx, USB_SPEED_HIGH);
	assert_int_equal(msf_fx_clear_ua(fx, 0), 0);
	return fx;
}

static unsigned long long window_bytes(struct msf_fx *fx)
{
	struct usb_loopback_host_info info;

	usb_loopback_host_info(fx->h, &info);
	return info.window_bytes;
}

/*
 * READ(10) with the host's data transfer submitted before the CBW, so the
 * worker finds it waiting: the medium is read into it in place.
 */
static int read_in_place(struct msf_fx *fx, uint32_t lba, uint8_t *buf, int *got,
			 uint8_t *status, uint32_t *residue)
{
	struct usb_loopback_xfer *data = NULL;
	uint8_t cdb[10];

	msf_fx_rw10_cdb(cdb, false, lba, XFER / 512, 0);
	assert_int_equal(usb_loopback_host_submit(fx->h, fx->ep_in, buf, XFER, 0, &data), 0);
	assert_int_equal(msf_fx_cbw(fx, 0, cdb, 10, true, XFER), 31);
	*got = usb_loopback_host_wait(fx->h, data, MSF_TMO);
	usb_loopback_host_free(fx->h, data);
	return msf_fx_csw(fx, status, residue);
}

/*
 * WRITE(10) whose CBW and data wait at the device before the worker takes
 * the CBW: the worker is held in the flush of a SYNCHRONIZE CACHE first.
 */
static int write_in_place(struct msf_fx *fx, uint32_t lba, uint8_t *buf, uint8_t *status,
			  uint32_t *residue)
{
	const uint8_t sync[10] = { 0x35 };
	struct usb_loopback_xfer *csw = NULL, *cbw = NULL, *data = NULL;
	uint8_t cbw_bytes[31], csw_bytes[13], cdb[10];

	gate_set(gate, true);
	assert_int_equal(msf_fx_cbw(fx, 0, sync, 10, false, 0), 31);
	gate_await_worker(gate);
	msf_fx_rw10_cdb(cdb, true, lba, XFER / 512, 0);
	msf_fx_fill_cbw(fx, cbw_bytes, 0, cdb, 10, false, XFER);
	assert_int_equal(usb_loopback_host_submit(fx->h, fx->ep_in, csw_bytes, 13, 0, &csw), 0);
	assert_int_equal(usb_loopback_host_submit(fx->h, fx->ep_out, cbw_bytes, 31, 0, &cbw), 0);
	assert_int_equal(usb_loopback_host_submit(fx->h, fx->ep_out, buf, XFER, 0, &data), 0);
	gate_set(gate, false);
	assert_int_equal(usb_loopback_host_wait(fx->h, csw, MSF_TMO), 13);
	assert_int_equal(csw_bytes[12], 0);	/* SYNCHRONIZE CACHE passed */
	assert_int_equal(usb_loopback_host_wait(fx->h, cbw, MSF_TMO), 31);
	assert_int_equal(usb_loopback_host_wait(fx->h, data, MSF_TMO), (int)XFER);
	usb_loopback_host_free(fx->h, csw);
	usb_loopback_host_free(fx->h, cbw);
	usb_loopback_host_free(fx->h, data);
	return msf_fx_csw(fx, status, residue);
}

static void test_msf_window_read_in_place(void **state)
{
	struct msf_fx *fx = up();
	uint8_t *buf = malloc(XFER);
	unsigned long long before = window_bytes(fx);
	uint32_t residue = 1;
	uint8_t status = 0xff;
	int got = 0;

	(void)state;
	assert_non_null(buf);
	assert_int_equal(read_in_place(fx, 100, buf, &got, &status, &residue), 0);
	assert_int_equal(got, (int)XFER);
	assert_int_equal(status, 0);
	assert_int_equal(residue, 0);
	assert_memory_equal(buf, gate->mem + 100 * 512, XFER);
	assert_int_equal(window_bytes(fx) - before, XFER);
	free(buf);
	msf_fx_free(fx);
}

static void test_msf_window_write_in_place(void **state)
{
	struct msf_fx *fx = up();
	uint8_t *buf = malloc(XFER);
	unsigned long long before = window_bytes(fx);
	uint32_t residue = 1;
	uint8_t status = 0xff;

	(void)state;
	assert_non_null(buf);
	for (uint32_t i = 0; i < XFER; i++)
		buf[i] = (uint8_t)(i * 7u + 1u);
	assert_int_equal(write_in_place(fx, 200, buf, &status, &residue), 0);
	assert_int_equal(status, 0);
	assert_int_equal(residue, 0);
	assert_memory_equal(gate->mem + 200 * 512, buf, XFER);
	assert_int_equal(window_bytes(fx) - before, XFER);
	/* The blocks around it are untouched. */
	assert_int_equal(gate->mem[200 * 512 - 1], msf_fx_pat(200 * 512 - 1));
	assert_int_equal(gate->mem[200 * 512 + XFER], msf_fx_pat(200 * 512 + XFER));
	free(buf);
	msf_fx_free(fx);
}

/* A medium error halfway: the good half goes out, then MEDIUM ERROR with
 * the LBA of the first bad block, as on the copy path. */
static void test_msf_window_read_error(void **state)
{
	struct msf_fx *fx = up();
	uint8_t *buf = malloc(XFER);
	unsigned long long before = window_bytes(fx);
	uint32_t residue = 0, info = 0;
	uint8_t status = 0xff;
	bool valid = false;
	int got = 0;

	(void)state;
	assert_non_null(buf);
	gate->half = true;
	assert_int_equal(read_in_place(fx, 100, buf, &got, &status, &residue), 0);
	gate->half = false;
	assert_int_equal(got, (int)XFER / 2);
	assert_memory_equal(buf, gate->mem + 100 * 512, XFER / 2);
	assert_int_equal(status, 1);
	assert_int_equal(residue, XFER / 2);
	assert_true(fx->csw_stalled);
	assert_int_equal(msf_fx_sense(fx, 0, &info, &valid), 0x031100);
	assert_true(valid);
	assert_int_equal(info, 100 + XFER / 2 / 512);
	assert_int_equal(window_bytes(fx) - before, XFER / 2);
	free(buf);
	msf_fx_free(fx);
}

static void test_msf_window_write_error(void **state)
{
	struct msf_fx *fx = up();
	uint8_t *buf = malloc(XFER);
	uint32_t residue = 0, info = 0;
	uint8_t status = 0xff;
	bool valid = false;

	(void)state;
	assert_non_null(buf);
	memset(buf, 0x3c, XFER);
	gate->half = true;
	assert_int_equal(write_in_place(fx, 300, buf, &status, &residue), 0);
	gate->half = false;
	assert_int_equal(status, 1);
	assert_int_equal(residue, XFER / 2);
	assert_int_equal(msf_fx_sense(fx, 0, &info, &valid), 0x030c02);
	assert_true(valid);
	assert_int_equal(info, 300 + XFER / 2 / 512);
	assert_memory_equal(gate->mem + 300 * 512, buf, XFER / 2);
	assert_int_equal(gate->mem[300 * 512 + XFER / 2], msf_fx_pat(300 * 512 + XFER / 2));
	free(buf);
	msf_fx_free(fx);
}

struct waiter {
	struct msf_fx *fx;
	struct usb_loopback_xfer *x;
	atomic_bool returned;
	int rc;
};

static void *wait_thread(void *p)
{
	struct waiter *w = p;

	w->rc = usb_loopback_host_wait(w->fx->h, w->x, MSF_TMO);
	atomic_store(&w->returned, true);
	return NULL;
}

/*
 * Unplugged while the worker reads into the host's buffer: the host's
 * transfer fails, but its call does not return (and let the buffer go)
 * before the worker is out of it. Then the device works again.
 */
static void test_msf_window_disconnect_while_held(void **state)
{
	struct msf_fx *fx = up();
	uint8_t *buf = malloc(XFER);
	const struct timespec ms50 = { 0, 50 * 1000000L };
	struct waiter w = { fx, NULL, false, 0 };
	uint8_t cdb[10];
	pthread_t th;

	(void)state;
	assert_non_null(buf);
	msf_fx_rw10_cdb(cdb, false, 10, XFER / 512, 0);
	gate_set(gate, true);
	assert_int_equal(usb_loopback_host_submit(fx->h, fx->ep_in, buf, XFER, 0, &w.x), 0);
	assert_int_equal(msf_fx_cbw(fx, 0, cdb, 10, true, XFER), 31);
	gate_await_worker(gate);	/* in the medium read, into buf */
	assert_int_equal(usb_loopback_host_disconnect(fx->h), 0);
	assert_int_equal(pthread_create(&th, NULL, wait_thread, &w), 0);
	nanosleep(&ms50, NULL);
	assert_false(atomic_load(&w.returned));
	gate_set(gate, false);
	pthread_join(th, NULL);
	assert_int_equal(w.rc, -USB_ESHUTDOWN);
	usb_loopback_host_free(fx->h, w.x);
	/* Plugged in again: a unit attention, then reads work. */
	assert_true(usb_loopback_host_enumerate(fx->h, USB_SPEED_HIGH, 1, NULL, NULL, 0,
						 MSF_TMO) > 0);
	assert_int_equal(msf_fx_clear_ua(fx, 0), 0);
	assert_int_equal(msf_fx_read10(fx, 0, 10, 8, buf, 4096, 0), 0);
	assert_memory_equal(buf, gate->mem + 10 * 512, 4096);
	free(buf);
	msf_fx_free(fx);
}

/* A controller without windows: the same commands, copied, no window. */
static void test_msf_window_copy_path(void **state)
{
	struct msf_fx *fx;
	uint8_t *buf = malloc(XFER);
	uint32_t residue = 1;
	uint8_t status = 0xff;
	int got = 0;

	(void)state;
	assert_non_null(buf);
	msf_fx_no_windows = true;
	fx = up();
	msf_fx_no_windows = false;
	assert_int_equal(read_in_place(fx, 100, buf, &got, &status, &residue), 0);
	assert_int_equal(got, (int)XFER);
	assert_int_equal(status, 0);
	assert_memory_equal(buf, gate->mem + 100 * 512, XFER);
	for (uint32_t i = 0; i < XFER; i++)
		buf[i] = (uint8_t)(i * 5u);
	assert_int_equal(write_in_place(fx, 200, buf, &status, &residue), 0);
	assert_int_equal(status, 0);
	assert_int_equal(residue, 0);
	assert_memory_equal(gate->mem + 200 * 512, buf, XFER);
	assert_int_equal(window_bytes(fx), 0);
	free(buf);
	msf_fx_free(fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_msf_window_read_in_place),
		cmocka_unit_test(test_msf_window_write_in_place),
		cmocka_unit_test(test_msf_window_read_error),
		cmocka_unit_test(test_msf_window_write_error),
		cmocka_unit_test(test_msf_window_disconnect_while_held),
		cmocka_unit_test(test_msf_window_copy_path),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);

	if (gate) {
		pthread_cond_destroy(&gate->cv);
		pthread_mutex_destroy(&gate->mu);
		free(gate);
	}
	return rc;
}
