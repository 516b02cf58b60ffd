/*
 * medium_control.c - the FIFO reader of medium_control.h. One thread polls
 * the FIFO and a stop pipe; a mutex keeps a command from using an
 * fsg_common that msg_exit() is about to release.
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

int medium_control_start(const char *path)
{
	if (mkfifo(path, 0600) < 0 && errno != EEXIST)
		return -USB_EIO;
	/* O_RDWR: the FIFO never reports EOF when a writer closes it. */
	fifo_fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fifo_fd < 0)
		goto fail;
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
	return -USB_EIO;
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
	unlink(fifo_path);
	free(fifo_path);
	fifo_path = NULL;
}
