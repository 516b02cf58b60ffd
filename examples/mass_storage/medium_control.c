/*
 * medium_control.c - the FIFO of medium_control.h: its creation or the
 * checks of one reused (the trust model is in the header), and its reader.
 * One thread polls the FIFO and a stop pipe; a mutex keeps a command from
 * using an fsg_common that msg_exit() is about to release.
 */
#define _POSIX_C_SOURCE 200809L

#include "medium_control.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static pthread_mutex_t control_lock = PTHREAD_MUTEX_INITIALIZER;
static struct fsg_common *control_common;	/* under control_lock */
static pthread_t control_thread;
static int fifo_fd = -1, stop_pipe[2] = { -1, -1 };
static char *fifo_path;
static bool fifo_created;		/* made by us: removed at the end */
static bool fifo_checked;		/* fifo_dev/ino: what fifo_fd is */
static dev_t fifo_dev;
static ino_t fifo_ino;

/* Remove the FIFO at @path if we created it and @path still names the
 * FIFO we opened and checked (never anything else). */
static void remove_fifo(const char *path)
{
	struct stat st;

	if (fifo_created && fifo_checked && lstat(path, &st) == 0 && S_ISFIFO(st.st_mode) &&
	    st.st_dev == fifo_dev && st.st_ino == fifo_ino)
		unlink(path);
	fifo_created = fifo_checked = false;
}

void medium_control_attach(struct fsg_common *common)
{
	pthread_mutex_lock(&control_lock);
	control_common = common;
	pthread_mutex_unlock(&control_lock);
}

/* Run one command line ("lun0.file=/x.img"); print what happened. */
static void run_command(char *line)
{
	char *eq = strchr(line, '='), *dot, *end;
	unsigned long lun;
	int rc;

	if (strncmp(line, "lun", 3) != 0 || !eq || !(dot = strchr(line, '.')) || dot > eq)
		goto bad;
	lun = strtoul(line + 3, &end, 10);
	if (end != dot || end == line + 3)
		goto bad;
	*eq = '\0';
	pthread_mutex_lock(&control_lock);
	if (!control_common) {
		rc = -USB_ENODEV;
	} else if (strcmp(dot + 1, "file") == 0) {
		rc = fsg_common_set_lun_file(control_common, (unsigned)lun,
					     eq[1] ? eq + 1 : NULL);
	} else if (strcmp(dot + 1, "forced_eject") == 0 && strcmp(eq + 1, "1") == 0) {
		rc = fsg_common_forced_eject(control_common, (unsigned)lun);
	} else {
		pthread_mutex_unlock(&control_lock);
		*eq = '=';
		goto bad;
	}
	pthread_mutex_unlock(&control_lock);
	if (rc == 0 && strcmp(dot + 1, "file") == 0 && eq[1])
		printf("mass_storage: lun%lu: medium %s inserted\n", lun, eq + 1);
	else if (rc == 0)
		printf("mass_storage: lun%lu: medium ejected\n", lun);
	else
		printf("mass_storage: lun%lu: %s failed: %s\n", lun, dot + 1, usb_strerror(rc));
	fflush(stdout);
	return;
bad:
	printf("mass_storage: control: not understood: \"%s\" "
	       "(lunN.file=PATH, lunN.file=, lunN.forced_eject=1)\n", line);
	fflush(stdout);
}

static void *control_main(void *arg)
{
	char buf[4096];
	size_t used = 0;

	(void)arg;
	for (;;) {
		struct pollfd p[2] = { { fifo_fd, POLLIN, 0 }, { stop_pipe[0], POLLIN, 0 } };
		ssize_t n;
		char *nl;

		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[1].revents)
			break;
		n = read(fifo_fd, buf + used, sizeof(buf) - 1 - used);
		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			break;
		}
		used += (size_t)n;
		buf[used] = '\0';
		while ((nl = strchr(buf, '\n'))) {
			*nl = '\0';
			if (nl > buf && nl[-1] == '\r')
				nl[-1] = '\0';
			if (buf[0])
				run_command(buf);
			used -= (size_t)(nl + 1 - buf);
			memmove(buf, nl + 1, used + 1);
		}
		if (used == sizeof(buf) - 1) {
			printf("mass_storage: control: line too long, dropped\n");
			used = 0;
		}
	}
	return NULL;
}

int medium_control_start(const char *path, bool reuse)
{
	struct stat st;
	int rc = -USB_EIO;

	if (mkfifo(path, 0600) == 0) {
		fifo_created = true;
	} else if (errno != EEXIST) {
		fprintf(stderr, "mass_storage: control=%s: cannot create the FIFO: %s\n", path,
			strerror(errno));
		return -USB_EIO;
	} else if (!reuse) {
		fprintf(stderr, "mass_storage: control=%s: the path exists; refused (give a new "
			"path, or control_reuse=1 for a FIFO of your own)\n", path);
		return -USB_EEXIST;
	} else if (lstat(path, &st) == 0 && !S_ISFIFO(st.st_mode)) {
		/* Not even opened: opening a device node may do something. */
		fprintf(stderr, "mass_storage: control=%s: %s; refused\n", path,
			S_ISLNK(st.st_mode) ? "a symbolic link" : "not a FIFO");
		return -USB_EPERM;
	}
	/*
	 * O_RDWR: the FIFO never reports EOF when a writer closes it, and
	 * the open does not wait for one. O_NOFOLLOW: not through a symlink.
	 * What was opened is checked on the descriptor, not the path.
	 */
	fifo_fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
	if (fifo_fd < 0) {
		fprintf(stderr, "mass_storage: control=%s: %s\n", path,
			errno == ELOOP ? "a symbolic link; refused" : strerror(errno));
		goto fail;
	}
	if (fstat(fifo_fd, &st) < 0)
		goto fail_fd;
	if (!S_ISFIFO(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & (S_IWGRP | S_IWOTH))) {
		fprintf(stderr, "mass_storage: control=%s: %s; refused\n", path,
			!S_ISFIFO(st.st_mode) ? "not a FIFO" :
			st.st_uid != geteuid() ? "a FIFO owned by another user" :
			"a FIFO that group or others may write");
		rc = -USB_EPERM;
		goto fail_fd;
	}
	fifo_dev = st.st_dev;
	fifo_ino = st.st_ino;
	fifo_checked = true;
	if (pipe(stop_pipe) < 0)
		goto fail_fd;
	fifo_path = strdup(path);
	if (!fifo_path || pthread_create(&control_thread, NULL, control_main, NULL) != 0)
		goto fail_pipe;
	return 0;

fail_pipe:
	free(fifo_path);
	fifo_path = NULL;
	close(stop_pipe[0]);
	close(stop_pipe[1]);
	stop_pipe[0] = stop_pipe[1] = -1;
fail_fd:
	close(fifo_fd);
	fifo_fd = -1;
fail:
	remove_fifo(path);	/* only what we made, if it still is */
	return rc;
}

void medium_control_stop(void)
{
	if (!fifo_path)
		return;
	medium_control_attach(NULL);
	if (write(stop_pipe[1], "x", 1) < 0)
		perror("mass_storage: control stop");
	pthread_join(control_thread, NULL);
	close(stop_pipe[0]);
	close(stop_pipe[1]);
	close(fifo_fd);
	remove_fifo(fifo_path);
	free(fifo_path);
	fifo_path = NULL;
}
