/*
 * test_msf_lun.c - logical units through the in-process host: read-only
 * (configured, and a backend that is read-only), removable media (no
 * medium, insert and eject at run time with unit attentions, PREVENT,
 * START STOP UNIT, forced eject, from another thread during I/O), CD-ROM
 * (2048-byte blocks, READ TOC formats 0/1/2, READ HEADER, read-only),
 * file-backed LUNs (FUA data readable through another descriptor at CSW
 * time, the read-only fallback), flush calls for FUA / nofua /
 * SYNCHRONIZE CACHE / write cache off, and medium errors from a failing
 * backend (MEDIUM ERROR with the LBA, never a silent success).
 */
#define _POSIX_C_SOURCE 200809L

#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_msf_fixture.h"

#define BLOCKS 2048u

static const uint8_t tur[6] = { 0 };

static void expect_sense(struct msf_fx *fx, uint8_t lun, uint32_t sense)
{
	assert_int_equal(msf_fx_sense(fx, lun, NULL, NULL), sense);
}

/* ---- a backend that counts flushes and fails where told -------------- */

struct test_be {
	struct fsg_backend be;
	struct fsg_backend *mem;
	uint64_t fail_from, fail_to;	/* byte range that fails */
	bool fail_flush;
	atomic_int flushes;
	atomic_int writes_since_flush;
	atomic_int busy;		/* calls still answered -USB_EAGAIN */
	atomic_int busy_answers;
};

static struct test_be *tb_of(struct fsg_backend *be)
{
	return be->priv;
}

static bool overlaps(struct test_be *t, uint64_t off, uint32_t len)
{
	return off < t->fail_to && off + len > t->fail_from;
}

/* The non-blocking form: "busy, ask again" while t->busy lasts. */
static bool tb_busy(struct test_be *t)
{
	if (atomic_load(&t->busy) <= 0)
		return false;
	atomic_fetch_sub(&t->busy, 1);
	atomic_fetch_add(&t->busy_answers, 1);
	return true;
}

static int tb_read(struct fsg_backend *be, uint64_t off, void *buf, uint32_t len)
{
	struct test_be *t = tb_of(be);
	int rc;

	if (tb_busy(t))
		return -USB_EAGAIN;
	if (overlaps(t, off, len)) {
		/* Deliver what comes before the bad range, then fail. */
		uint32_t good = off < t->fail_from ? (uint32_t)(t->fail_from - off) : 0;

		if (good == 0)
			return -USB_EIO;
		rc = t->mem->ops->read(t->mem, off, buf, good);
		return rc;
	}
	return t->mem->ops->read(t->mem, off, buf, len);
}

static int tb_write(struct fsg_backend *be, uint64_t off, const void *buf, uint32_t len)
{
	struct test_be *t = tb_of(be);

	if (tb_busy(t))
		return -USB_EAGAIN;
	atomic_fetch_add(&t->writes_since_flush, 1);
	if (overlaps(t, off, len)) {
		uint32_t good = off < t->fail_from ? (uint32_t)(t->fail_from - off) : 0;

		if (good == 0)
			return -USB_EIO;
		return t->mem->ops->write(t->mem, off, buf, good);
	}
	return t->mem->ops->write(t->mem, off, buf, len);
}

static int tb_flush(struct fsg_backend *be)
{
	struct test_be *t = tb_of(be);

	if (tb_busy(t))
		return -USB_EAGAIN;
	atomic_fetch_add(&t->flushes, 1);
	atomic_store(&t->writes_since_flush, 0);
	return t->fail_flush ? -USB_EIO : 0;
}

static uint64_t tb_capacity(struct fsg_backend *be)
{
	struct test_be *t = tb_of(be);

	return t->mem->ops->capacity(t->mem);
}

static void tb_release(struct fsg_backend *be)
{
	(void)be;	/* the test owns it: freed by tb_free() */
}

static const struct fsg_backend_ops tb_ops = {
	.read = tb_read,
	.write = tb_write,
	.flush = tb_flush,
	.capacity = tb_capacity,
	.release = tb_release,
};

static struct test_be *tb_new(void)
{
	struct test_be *t = calloc(1, sizeof(*t));

	assert_non_null(t);
	t->mem = msf_fx_mem(BLOCKS, 512);
	t->be.ops = &tb_ops;
	t->be.priv = t;
	t->fail_from = t->fail_to = UINT64_MAX;
	return t;
}

static void tb_free(struct test_be *t)
{
	t->mem->ops->release(t->mem);
	free(t);
}

/* ---- tests ---------------------------------------------------------- */

static void test_msf_lun_read_only(void **state)
{
	static bool rom_ro_flag;
	uint8_t ms6[6] = { 0x1a, 0, 0x3f, 0, 255, 0 };
	uint8_t buf[512];
	static uint8_t rom[BLOCKS * 512];
	struct fsg_backend *rom_be;
	struct msf_fx *fx = msf_fx_new();

	(void)state;
	(void)rom_ro_flag;
	fx->cfg.nluns = 2;
	fx->cfg.luns[0].backend = msf_fx_mem(BLOCKS, 512);
	fx->cfg.luns[0].ro = 1;
	/* A backend that is read-only by itself (a ROM). */
	memset(rom, 0xab, sizeof(rom));
	assert_int_equal(fsg_backend_mem_create(&rom_be, rom, sizeof(rom), 512, true), 0);
	fx->cfg.luns[1].backend = rom_be;
	msf_fx_up(fx, USB_SPEED_HIGH);

	for (uint8_t lun = 0; lun < 2; lun++) {
		assert_int_equal(msf_fx_clear_ua(fx, lun), 0);
		memset(buf, 0x99, sizeof(buf));
		assert_int_equal(msf_fx_write10(fx, lun, 4, 1, buf, 512, 0), 1);
		expect_sense(fx, lun, 0x072700);
		assert_int_equal(msf_fx_cmd(fx, lun, ms6, 6, true, buf, 255, NULL, NULL), 0);
		assert_int_equal(buf[2], 0x80);	/* WP */
		assert_int_equal(msf_fx_read10(fx, lun, 4, 1, buf, 512, 0), 0);
	}
	assert_int_equal(buf[0], 0xab);
	assert_int_equal(rom[4 * 512], 0xab);
	msf_fx_free(fx);
}

static void test_msf_lun_removable_insert_eject(void **state)
{
	uint8_t start_stop[6] = { 0x1b, 0, 0, 0, 0x02, 0 };	/* LoEj, stop: eject */
	uint8_t prevent[6] = { 0x1e, 0, 0, 0, 1, 0 };
	uint8_t allow[6] = { 0x1e, 0, 0, 0, 0, 0 };
	uint8_t rc10[10] = { 0x25 };
	uint8_t buf[512];
	struct msf_fx *fx = msf_fx_new();

	(void)state;
	fx->cfg.luns[0].removable = 1;	/* and no medium */
	msf_fx_up(fx, USB_SPEED_HIGH);
	assert_false(fsg_common_lun_is_open(fx->common, 0));
	assert_int_equal(msf_fx_cmd(fx, 0, tur, 6, false, NULL, 0, NULL, NULL), 1);
	expect_sense(fx, 0, 0x062900);
	assert_int_equal(msf_fx_cmd(fx, 0, tur, 6, false, NULL, 0, NULL, NULL), 1);
	expect_sense(fx, 0, 0x023a00);	/* MEDIUM NOT PRESENT */
	assert_int_equal(msf_fx_cmd(fx, 0, rc10, 10, true, buf, 8, NULL, NULL), 1);
	expect_sense(fx, 0, 0x023a00);

	/* Insert: NOT READY TO READY CHANGE, MEDIUM MAY HAVE CHANGED. */
	assert_int_equal(fsg_common_set_lun_backend(fx->common, 0, msf_fx_mem(BLOCKS, 512)), 0);
	assert_true(fsg_common_lun_is_open(fx->common, 0));
	assert_int_equal(msf_fx_cmd(fx, 0, tur, 6, false, NULL, 0, NULL, NULL), 1);
	expect_sense(fx, 0, 0x062800);
	assert_int_equal(msf_fx_cmd(fx, 0, tur, 6, false, NULL, 0, NULL, NULL), 0);
	assert_int_equal(msf_fx_read10(fx, 0, 1, 1, buf, 512, 0), 0);
	assert_int_equal(buf[0], msf_fx_pat(512));

	/* Prevented: neither the host nor the API may eject. */
	assert_int_equal(msf_fx_cmd(fx, 0, prevent, 6, false, NULL, 0, NULL, NULL), 0);
	assert_int_equal(msf_fx_cmd(fx, 0, start_stop, 6, false, NULL, 0, NULL, NULL), 1);
	expect_sense(fx, 0, 0x055302);
	assert_int_equal(fsg_common_set_lun_file(fx->common, 0, NULL), -USB_EBUSY);
	assert_int_equal(fsg_common_set_lun_backend(fx->common, 0, msf_fx_mem(8, 512)),
			 -USB_EBUSY);
	assert_true(fsg_common_lun_is_open(fx->common, 0));

	/* Allowed: START STOP UNIT with LoEj ejects. */
	assert_int_equal(msf_fx_cmd(fx, 0, allow, 6, false, NULL, 0, NULL, NULL), 0);
	assert_int_equal(msf_fx_cmd(fx, 0, start_stop, 6, false, NULL, 0, NULL, NULL), 0);
	assert_false(fsg_common_lun_is_open(fx->common, 0));
	assert_int_equal(msf_fx_cmd(fx, 0, tur, 6, false, NULL, 0, NULL, NULL), 1);
	expect_sense(fx, 0, 0x023a00);
	/* START (load) without a medium: still not present. */
	start_stop[4] = 0x03;
	assert_int_equal(msf_fx_cmd(fx, 0, start_stop, 6, false, NULL, 0, NULL, NULL), 1);
	expect_sense(fx, 0, 0x023a00);

	/* Forced eject works even when prevented. */
	assert_int_equal(fsg_common_set_lun_backend(fx->common, 0, msf_fx_mem(BLOCKS, 512)), 0);
	assert_int_equal(msf_fx_clear_ua(fx, 0), 0);
	assert_int_equal(msf_fx_cmd(fx, 0, prevent, 6, false, NULL, 0, NULL, NULL), 0);
	assert_int_equal(fsg_common_forced_eject(fx->common, 0), 0);
	assert_false(fsg_common_lun_is_open(fx->common, 0));
	assert_int_equal(msf_fx_cmd(fx, 0, tur, 6, false, NULL, 0, NULL, NULL), 1);
	expect_sense(fx, 0, 0x023a00);

	/* Bad arguments. */
	assert_int_equal(fsg_common_set_lun_file(fx->common, 1, NULL), -USB_EINVAL);
	assert_int_equal(fsg_common_set_lun_file(fx->common, 0, "/nonexistent/disk.img"),
			 -USB_ENOENT);
	msf_fx_free(fx);
}

static void test_msf_lun_not_removable_cannot_eject(void **state)
{
	struct msf_fx *fx = msf_fx_new();

	(void)state;
	fx->cfg.luns[0].backend = msf_fx_mem(BLOCKS, 512);
	msf_fx_up(fx, USB_SPEED_HIGH);
	assert_int_equal(fsg_common_set_lun_file(fx->common, 0, NULL), -USB_EPERM);
	assert_true(fsg_common_lun_is_open(fx->common, 0));
	msf_fx_free(fx);
}

struct swapper {
	struct fsg_common *common;
	atomic_bool stop;
	atomic_int swaps;
};

static void *swap_main(void *arg)
{
	struct swapper *s = arg;

	while (!atomic_load(&s->stop)) {
		struct timespec in = { 0, 3000000 }, out = { 0, 300000 };

		if (fsg_common_set_lun_backend(s->common, 0, msf_fx_mem(64, 512)) == 0)
			s->swaps++;
		nanosleep(&in, NULL);
		(void)fsg_common_set_lun_file(s->common, 0, NULL);
		nanosleep(&out, NULL);
	}
	return NULL;
}

static void test_msf_lun_medium_change_from_another_thread(void **state)
{
	uint8_t buf[4096];
	struct swapper s = { 0 };	/* swaps: written by the thread, read racily as a hint */
	pthread_t t;
	int passed = 0, failed = 0;
	struct msf_fx *fx = msf_fx_new();

	(void)state;
	fx->cfg.luns[0].removable = 1;
	msf_fx_up(fx, USB_SPEED_HIGH);
	s.common = fx->common;
	assert_int_equal(pthread_create(&t, NULL, swap_main, &s), 0);
	/* Every command ends with a proper CSW while the medium comes and goes. */
	for (int i = 0; i < 100000 && (i < 200 || s.swaps < 5 || !passed || !failed); i++) {
		int st = msf_fx_read10(fx, 0, 0, 8, buf, sizeof(buf), 0);

		assert_true(st == 0 || st == 1);
		if (st == 0) {
			assert_int_equal(buf[1000], msf_fx_pat(1000));
			passed++;
		} else {
			uint32_t sense = msf_fx_sense(fx, 0, NULL, NULL);

			assert_true(sense == 0x023a00 || sense == 0x062800 || sense == 0x062900 ||
				    sense == 0);
			failed++;
		}
	}
	atomic_store(&s.stop, true);
	pthread_join(t, NULL);
	print_message("passed %d failed %d swaps %d\n", passed, failed, s.swaps);
	assert_true(s.swaps > 0);
	assert_true(passed > 0);
	assert_true(failed > 0);
	msf_fx_free(fx);
}

static void test_msf_lun_cdrom(void **state)
{
	static const uint8_t toc0[20] = {
		0x00, 0x12, 0x01, 0x01,
		0x00, 0x14, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x14, 0xaa, 0x00, 0x00, 0x00, 0x02, 0x00,	/* lead-out: LBA 512 */
	};
	static const uint8_t toc0_msf[20] = {
		0x00, 0x12, 0x01, 0x01,
		0x00, 0x14, 0x01, 0x00, 0x00, 0x00, 0x02, 0x00,	/* 00:02:00 */
		0x00, 0x14, 0xaa, 0x00, 0x00, 0x00, 0x08, 0x3e,	/* 512+150 = 00:08:62 */
	};
	static const uint8_t toc1[12] = {
		0x00, 0x0a, 0x01, 0x01, 0x00, 0x14, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
	};
	static const uint8_t toc2[48] = {
		0x00, 0x2e, 0x01, 0x01,
		0x01, 0x14, 0x00, 0xa0, 0, 0, 0, 0, 0x01, 0x00, 0x00,
		0x01, 0x14, 0x00, 0xa1, 0, 0, 0, 0, 0x01, 0x00, 0x00,
		0x01, 0x14, 0x00, 0xa2, 0, 0, 0, 0, 0x00, 0x08, 0x3e,
		0x01, 0x14, 0x00, 0x01, 0, 0, 0, 0, 0x00, 0x02, 0x00,
	};
	uint8_t toc[10] = { 0x43, 0, 0, 0, 0, 0, 0, 0, 255, 0 };
	uint8_t hdr[10] = { 0x44, 0x02, 0, 0, 0, 10, 0, 0, 8, 0 };
	uint8_t rc10[10] = { 0x25 };
	uint8_t buf[2048 * 2];
	int x;
	struct msf_fx *fx = msf_fx_new();

	(void)state;
	fx->cfg.luns[0].cdrom = 1;
	fx->cfg.luns[0].removable = 1;
	fx->cfg.luns[0].backend = msf_fx_mem(BLOCKS, 512);	/* 1 MiB = 512 CD blocks */
	msf_fx_up(fx, USB_SPEED_HIGH);
	assert_int_equal(msf_fx_clear_ua(fx, 0), 0);

	assert_int_equal(msf_fx_cmd(fx, 0, rc10, 10, true, buf, 8, NULL, NULL), 0);
	assert_memory_equal(buf, "\x00\x00\x01\xff\x00\x00\x08\x00", 8);
	assert_int_equal(msf_fx_read10(fx, 0, 1, 2, buf, 4096, 0), 0);
	for (unsigned i = 0; i < 4096; i++)
		assert_int_equal(buf[i], msf_fx_pat(2048 + i));
	assert_int_equal(msf_fx_write10(fx, 0, 1, 1, buf, 2048, 0), 1);
	expect_sense(fx, 0, 0x072700);

	assert_int_equal(msf_fx_cmd(fx, 0, toc, 10, true, buf, 255, &x, NULL), 0);
	assert_int_equal(x, 20);
	assert_memory_equal(buf, toc0, 20);
	toc[1] = 0x02;	/* MSF */
	assert_int_equal(msf_fx_cmd(fx, 0, toc, 10, true, buf, 255, &x, NULL), 0);
	assert_memory_equal(buf, toc0_msf, 20);
	toc[1] = 0;
	toc[2] = 1;
	assert_int_equal(msf_fx_cmd(fx, 0, toc, 10, true, buf, 255, &x, NULL), 0);
	assert_int_equal(x, 12);
	assert_memory_equal(buf, toc1, 12);
	toc[2] = 2;
	assert_int_equal(msf_fx_cmd(fx, 0, toc, 10, true, buf, 255, &x, NULL), 0);
	assert_int_equal(x, 48);
	assert_memory_equal(buf, toc2, 48);
	toc[2] = 5;
	assert_int_equal(msf_fx_cmd(fx, 0, toc, 10, true, buf, 255, &x, NULL), 1);
	expect_sense(fx, 0, 0x052400);

	assert_int_equal(msf_fx_cmd(fx, 0, hdr, 10, true, buf, 8, &x, NULL), 0);
	assert_memory_equal(buf, "\x01\x00\x00\x00\x00\x00\x02\x0a", 8);	/* 10+150 */
	hdr[1] = 0;
	hdr[4] = 0x10;	/* LBA 4106: beyond the disc */
	assert_int_equal(msf_fx_cmd(fx, 0, hdr, 10, true, buf, 8, &x, NULL), 1);
	expect_sense(fx, 0, 0x052100);
	msf_fx_free(fx);
}

static char *make_file(uint64_t size)
{
	char *path = strdup("/tmp/msf-test-XXXXXX");
	int fd;

	assert_non_null(path);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)size), 0);
	close(fd);
	return path;
}

static void test_msf_lun_file_fua_visible_at_csw(void **state)
{
	uint8_t *buf = malloc(64 * 1024), *back = malloc(64 * 1024);
	char *path = make_file(4u << 20);
	int fd;
	struct msf_fx *fx = msf_fx_new();

	(void)state;
	assert_non_null(buf);
	assert_non_null(back);
	fx->cfg.luns[0].filename = path;
	msf_fx_up(fx, USB_SPEED_HIGH);
	assert_int_equal(msf_fx_clear_ua(fx, 0), 0);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	for (int round = 0; round < 4; round++) {
		for (unsigned i = 0; i < 64 * 1024; i++)
			buf[i] = (uint8_t)(i * 3u + (unsigned)round);
		/* WRITE(10) FUA of 128 blocks: on the file when the CSW comes. */
		assert_int_equal(msf_fx_write10(fx, 0, 100u + 128u * (unsigned)round, 128, buf,
						64 * 1024, 0x08), 0);
		assert_int_equal(pread(fd, back, 64 * 1024,
				       (off_t)(100 + 128 * round) * 512), 64 * 1024);
		assert_memory_equal(back, buf, 64 * 1024);
	}
	close(fd);
	msf_fx_free(fx);
	/* After destruction the file is closed and complete. */
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, back, 512, 100 * 512), 512);
	assert_int_equal(back[1], 3);
	close(fd);
	unlink(path);
	free(path);
	free(buf);
	free(back);
}

static void test_msf_lun_file_read_only_fallback(void **state)
{
	char *path = make_file(1u << 20);
	struct fsg_backend *be;
	uint8_t buf[512];
	struct msf_fx *fx;

	(void)state;
	assert_int_equal(fsg_backend_file_open(&be, "/nonexistent/x.img", false, false),
			 -USB_ENOENT);
	assert_int_equal(fsg_backend_file_open(&be, "/tmp", false, false), -USB_EINVAL);
	assert_int_equal(chmod(path, 0444), 0);
	/* Also as root: a mode without write bits means read-only. */
	assert_int_equal(fsg_backend_file_open(&be, path, false, false), 0);
	assert_true(be->ops->read_only(be));
	assert_int_equal(be->ops->write(be, 0, buf, 512), -USB_EROFS);
	be->ops->release(be);

	fx = msf_fx_new();
	fx->cfg.luns[0].filename = path;
	msf_fx_up(fx, USB_SPEED_HIGH);
	assert_int_equal(msf_fx_clear_ua(fx, 0), 0);
	assert_int_equal(msf_fx_write10(fx, 0, 0, 1, buf, 512, 0), 1);
	expect_sense(fx, 0, 0x072700);
	msf_fx_free(fx);
	unlink(path);
	free(path);
}

/*
 * The file status flags of the descriptor this process holds on @path
 * (found through /proc/self/fd), or -1 where there is no /proc.
 */
static int open_flags_of(const char *path)
{
	char link[64], target[4096];

	for (int fd = 3; fd < 1024; fd++) {
		ssize_t n;

		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		n = readlink(link, target, sizeof(target) - 1);
		if (n < 0)
			continue;
		target[n] = '\0';
		if (strcmp(target, path) == 0)
			return fcntl(fd, F_GETFL);
	}
	return -1;
}

/* sync_fua: write-through (O_DSYNC); without it, plain buffered writes. */
static void test_msf_lun_file_sync_fua(void **state)
{
	char *path = make_file(1u << 20);
	uint8_t buf[4096], back[4096];
	struct fsg_backend *be;
	int flags;

	(void)state;
	for (int sync = 0; sync <= 1; sync++) {
		assert_int_equal(fsg_backend_file_open(&be, path, false, sync), 0);
		assert_false(be->ops->read_only(be));
		flags = open_flags_of(path);
		if (flags != -1 || access("/proc/self/fd", F_OK) == 0) {
			assert_true(flags >= 0);
			assert_int_equal((flags & O_DSYNC) == O_DSYNC, sync);
		}
		memset(buf, 0x30 + sync, sizeof(buf));
		assert_int_equal(be->ops->write(be, 8192, buf, sizeof(buf)), (int)sizeof(buf));
		assert_int_equal(be->ops->flush(be), 0);
		assert_int_equal(be->ops->read(be, 8192, back, sizeof(back)), (int)sizeof(back));
		assert_memory_equal(back, buf, sizeof(buf));
		be->ops->release(be);
	}
	/* Read-only: nothing to write through; the open still works. */
	assert_int_equal(fsg_backend_file_open(&be, path, true, true), 0);
	assert_true(be->ops->read_only(be));
	be->ops->release(be);
	unlink(path);
	free(path);
}

/* A loop device with 4096-byte logical blocks (root and losetup only). */
static void test_msf_lun_block_device(void **state)
{
	uint8_t rc10[10] = { 0x25 };
	char cmd[256], dev[64] = "";
	char *path = make_file(4u << 20);
	uint8_t *buf = malloc(8192);
	FILE *p;
	struct msf_fx *fx;

	(void)state;
	assert_non_null(buf);
	snprintf(cmd, sizeof(cmd), "losetup --sector-size 4096 -f --show %s 2>/dev/null", path);
	p = geteuid() == 0 ? popen(cmd, "r") : NULL;
	if (!p || !fgets(dev, sizeof(dev), p) || strncmp(dev, "/dev/loop", 9)) {
		if (p)
			pclose(p);
		unlink(path);
		free(path);
		free(buf);
		skip();
	}
	pclose(p);
	dev[strcspn(dev, "\n")] = '\0';

	fx = msf_fx_new();
	fx->cfg.luns[0].filename = dev;
	msf_fx_up(fx, USB_SPEED_HIGH);
	assert_int_equal(msf_fx_clear_ua(fx, 0), 0);
	/* The device's own size and logical block size. */
	assert_int_equal(msf_fx_cmd(fx, 0, rc10, 10, true, buf, 8, NULL, NULL), 0);
	assert_memory_equal(buf, "\x00\x00\x03\xff\x00\x00\x10\x00", 8);
	for (unsigned i = 0; i < 8192; i++)
		buf[i] = (uint8_t)(i * 5u);
	assert_int_equal(msf_fx_cmd(fx, 0, (const uint8_t *)"\x2a\x08\x00\x00\x00\x03\x00\x00\x02\x00",
				    10, false, buf, 8192, NULL, NULL), 0);
	memset(buf, 0, 8192);
	assert_int_equal(msf_fx_read10(fx, 0, 3, 2, buf, 8192, 0), 0);
	for (unsigned i = 0; i < 8192; i++)
		assert_int_equal(buf[i], (uint8_t)(i * 5u));
	msf_fx_free(fx);

	snprintf(cmd, sizeof(cmd), "losetup -d %s", dev);
	assert_int_equal(system(cmd), 0);
	unlink(path);
	free(path);
	free(buf);
}

/* The worker thread meets a busy medium (-USB_EAGAIN): it yields and asks
 * again; READ, WRITE, FUA and SYNCHRONIZE CACHE all complete with the
 * right data (the polled form is tests/firmware's). */
static void test_msf_lun_busy_medium_thread(void **state)
{
	uint8_t sync[10] = { 0x35 };
	uint8_t buf[4096], back[4096];
	struct test_be *t = tb_new();
	struct msf_fx *fx = msf_fx_new();

	(void)state;
	fx->cfg.luns[0].backend = &t->be;
	msf_fx_up(fx, USB_SPEED_HIGH);
	assert_int_equal(msf_fx_clear_ua(fx, 0), 0);
	for (unsigned i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i * 5u + 1u);
	atomic_store(&t->busy, 3);
	assert_int_equal(msf_fx_write10(fx, 0, 16, 8, buf, 4096, 0x08), 0);	/* FUA */
	assert_int_equal(atomic_load(&t->busy_answers), 3);
	assert_int_equal(atomic_load(&t->flushes), 1);
	atomic_store(&t->busy, 3);
	assert_int_equal(msf_fx_read10(fx, 0, 16, 8, back, 4096, 0), 0);
	assert_memory_equal(back, buf, sizeof(buf));
	atomic_store(&t->busy, 2);
	assert_int_equal(msf_fx_cmd(fx, 0, sync, 10, false, NULL, 0, NULL, NULL), 0);
	assert_int_equal(atomic_load(&t->flushes), 2);
	assert_int_equal(atomic_load(&t->busy_answers), 8);
	msf_fx_free(fx);
	tb_free(t);
}

static void test_msf_lun_flush_on_fua_sync_and_nofua(void **state)
{
	uint8_t sync[10] = { 0x35 };
	uint8_t buf[4096];
	struct test_be *t0 = tb_new(), *t1 = tb_new();
	struct msf_fx *fx = msf_fx_new();

	(void)state;
	fx->cfg.nluns = 2;
	fx->cfg.luns[0].backend = &t0->be;
	fx->cfg.luns[1].backend = &t1->be;
	fx->cfg.luns[1].nofua = 1;
	msf_fx_up(fx, USB_SPEED_HIGH);
	assert_int_equal(msf_fx_clear_ua(fx, 0), 0);
	assert_int_equal(msf_fx_clear_ua(fx, 1), 0);
	memset(buf, 1, sizeof(buf));

	assert_int_equal(msf_fx_write10(fx, 0, 0, 8, buf, 4096, 0), 0);
	assert_int_equal(atomic_load(&t0->flushes), 0);
	assert_true(atomic_load(&t0->writes_since_flush) > 0);
	/* FUA: flushed before the CSW, nothing written after the flush. */
	assert_int_equal(msf_fx_write10(fx, 0, 0, 8, buf, 4096, 0x08), 0);
	assert_int_equal(atomic_load(&t0->flushes), 1);
	assert_int_equal(atomic_load(&t0->writes_since_flush), 0);
	/* nofua: the FUA bit is ignored. */
	assert_int_equal(msf_fx_write10(fx, 1, 0, 8, buf, 4096, 0x08), 0);
	assert_int_equal(atomic_load(&t1->flushes), 0);
	/* SYNCHRONIZE CACHE flushes (nofua or not). */
	assert_int_equal(msf_fx_cmd(fx, 1, sync, 10, false, NULL, 0, NULL, NULL), 0);
	assert_int_equal(atomic_load(&t1->flushes), 1);
	/* A failing flush is a WRITE ERROR, for FUA and for SYNCHRONIZE CACHE. */
	t0->fail_flush = true;
	assert_int_equal(msf_fx_write10(fx, 0, 0, 8, buf, 4096, 0x08), 1);
	expect_sense(fx, 0, 0x030c02);
	assert_int_equal(msf_fx_cmd(fx, 0, sync, 10, false, NULL, 0, NULL, NULL), 1);
	expect_sense(fx, 0, 0x030c02);
	msf_fx_free(fx);
	tb_free(t0);
	tb_free(t1);
}

static void test_msf_lun_write_cache_off_flushes_every_write(void **state)
{
	uint8_t ms6[6] = { 0x1a, 0, 0x08, 0, 255, 0 };
	uint8_t sel[6] = { 0x15, 0x10, 0, 0, 24, 0 };
	uint8_t page[255], buf[512];
	struct test_be *t = tb_new();
	struct msf_fx *fx = msf_fx_new();

	(void)state;
	fx->cfg.luns[0].backend = &t->be;
	msf_fx_up(fx, USB_SPEED_HIGH);
	assert_int_equal(msf_fx_clear_ua(fx, 0), 0);
	assert_int_equal(msf_fx_cmd(fx, 0, ms6, 6, true, page, 255, NULL, NULL), 0);
	page[0] = 0;
	page[6] &= (uint8_t)~0x04;
	assert_int_equal(msf_fx_cmd(fx, 0, sel, 6, false, page, 24, NULL, NULL), 0);
	memset(buf, 2, sizeof(buf));
	assert_int_equal(msf_fx_write10(fx, 0, 3, 1, buf, 512, 0), 0);
	assert_int_equal(atomic_load(&t->flushes), 1);
	msf_fx_free(fx);
	tb_free(t);
}

static void test_msf_lun_medium_errors_carry_the_lba(void **state)
{
	uint8_t *buf = malloc(64 * 1024);
	uint8_t verify[10] = { 0x2f, 0, 0, 0, 0, 0, 0, 0, 200, 0 };
	uint32_t info, residue;
	bool valid;
	int x;
	uint8_t cdb[10] = { 0x28, 0, 0, 0, 0, 90, 0, 0, 64, 0 };	/* LBA 90, 64 blocks */
	struct test_be *t = tb_new();
	struct msf_fx *fx = msf_fx_new();

	(void)state;
	assert_non_null(buf);
	t->fail_from = 100 * 512;
	t->fail_to = 101 * 512;
	fx->cfg.luns[0].backend = &t->be;
	msf_fx_up(fx, USB_SPEED_HIGH);
	assert_int_equal(msf_fx_clear_ua(fx, 0), 0);

	/* READ across LBA 100: the 10 good blocks come, then the error. */
	assert_int_equal(msf_fx_cmd(fx, 0, cdb, 10, true, buf, 64 * 512, &x, &residue), 1);
	assert_int_equal(x, 10 * 512);
	assert_int_equal(residue, 54 * 512);
	assert_true(fx->csw_stalled);
	for (unsigned i = 0; i < 10 * 512; i++)
		assert_int_equal(buf[i], msf_fx_pat(90 * 512 + i));
	assert_int_equal(msf_fx_sense(fx, 0, &info, &valid), 0x031100);
	assert_true(valid);
	assert_int_equal(info, 100);

	/* A failing first block: no data at all. */
	cdb[5] = 100;
	assert_int_equal(msf_fx_cmd(fx, 0, cdb, 10, true, buf, 64 * 512, &x, &residue), 1);
	assert_int_equal(x, 0);
	assert_int_equal(residue, 64 * 512);
	assert_int_equal(msf_fx_sense(fx, 0, &info, &valid), 0x031100);
	assert_int_equal(info, 100);

	/* WRITE across it: WRITE ERROR at LBA 100, the rest is taken and dropped. */
	memset(buf, 0x3c, 64 * 1024);
	assert_int_equal(msf_fx_write10(fx, 0, 96, 16, buf, 16 * 512, 0), 1);
	assert_int_equal(msf_fx_sense(fx, 0, &info, &valid), 0x030c02);
	assert_true(valid);
	assert_int_equal(info, 100);
	/* VERIFY reads the range back and finds it too. */
	assert_int_equal(msf_fx_cmd(fx, 0, verify, 10, false, NULL, 0, NULL, NULL), 1);
	assert_int_equal(msf_fx_sense(fx, 0, &info, &valid), 0x031100);
	assert_int_equal(info, 100);
	/* Elsewhere everything works. */
	assert_int_equal(msf_fx_read10(fx, 0, 200, 8, buf, 4096, 0), 0);
	msf_fx_free(fx);
	tb_free(t);
	free(buf);
}

static void test_msf_lun_init_errors(void **state)
{
	struct fsg_common *common = NULL;
	struct fsg_config cfg;
	struct msf_fx *fx;

	(void)state;
	memset(&cfg, 0, sizeof(cfg));
	assert_int_equal(fsg_common_create(&common, NULL, &cfg), -USB_EINVAL);	/* 0 LUNs */
	cfg.nluns = 17;
	assert_int_equal(fsg_common_create(&common, NULL, &cfg), -USB_EINVAL);
	cfg.nluns = 1;
	/* Not removable and no medium. */
	assert_int_equal(fsg_common_create(&common, NULL, &cfg), -USB_EINVAL);
	cfg.luns[0].filename = "/nonexistent/disk.img";
	assert_int_equal(fsg_common_create(&common, NULL, &cfg), -USB_ENOENT);
	cfg.luns[0].filename = NULL;
	cfg.luns[0].backend = msf_fx_mem(8, 512);
	cfg.buflen = 1000;	/* not a multiple of 512: the backend is released */
	assert_int_equal(fsg_common_create(&common, NULL, &cfg), -USB_EINVAL);
	cfg.buflen = 0;
	cfg.luns[0].backend = msf_fx_mem(8, 512);
	cfg.vendor_name = "much too long vendor";
	assert_int_equal(fsg_common_create(&common, NULL, &cfg), -USB_EINVAL);
	cfg.vendor_name = NULL;
	cfg.luns[0].backend = msf_fx_mem(8, 512);
	cfg.fsg_num_buffers = 1;
	assert_int_equal(fsg_common_create(&common, NULL, &cfg), -USB_EINVAL);
	assert_null(common);
	assert_int_equal(fsg_backend_mem_create(&cfg.luns[0].backend, NULL, 1000, 512, false),
			 -USB_EINVAL);

	/* A bind that fails (bad config) fails the probe cleanly. */
	fx = msf_fx_new();
	assert_int_not_equal(msf_fx_probe(fx), 0);
	assert_int_equal(fx->init_rc, -USB_EINVAL);
	msf_fx_free(fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_msf_lun_read_only),
		cmocka_unit_test(test_msf_lun_removable_insert_eject),
		cmocka_unit_test(test_msf_lun_not_removable_cannot_eject),
		cmocka_unit_test(test_msf_lun_medium_change_from_another_thread),
		cmocka_unit_test(test_msf_lun_cdrom),
		cmocka_unit_test(test_msf_lun_file_fua_visible_at_csw),
		cmocka_unit_test(test_msf_lun_file_read_only_fallback),
		cmocka_unit_test(test_msf_lun_file_sync_fua),
		cmocka_unit_test(test_msf_lun_block_device),
		cmocka_unit_test(test_msf_lun_flush_on_fua_sync_and_nofua),
		cmocka_unit_test(test_msf_lun_busy_medium_thread),
		cmocka_unit_test(test_msf_lun_write_cache_off_flushes_every_write),
		cmocka_unit_test(test_msf_lun_medium_errors_carry_the_lba),
		cmocka_unit_test(test_msf_lun_init_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
