/*
 * tcp_xfer.c - one TCP transfer of a file, for the network cases (the
 * guest's busybox nc gives no end-of-file handling to rely on):
 *
 *	tcp_xfer recv PORT FILE        accept one connection on PORT, write
 *	                               what arrives to FILE until the peer
 *	                               closes
 *	tcp_xfer send ADDR PORT FILE   connect (retrying for 20 s), send FILE,
 *	                               close the sending half, wait for the
 *	                               receiver to close
 *
 * Prints the byte count. Exit 0 on success, 1 with the reason otherwise.
 */
#define _POSIX_C_SOURCE 200809L
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int fail(const char *what)
{
	fprintf(stderr, "tcp_xfer: %s: %s\n", what, strerror(errno));
	return 1;
}

/* Copy @in to @out until end of file. Return: bytes, or -1. */
static long long copy(int in, int out)
{
	static char buf[65536];
	long long total = 0;
	ssize_t n;

	while ((n = read(in, buf, sizeof(buf))) > 0) {
		for (ssize_t off = 0; off < n;) {
			ssize_t w = write(out, buf + off, (size_t)(n - off));

			if (w < 0)
				return -1;
			off += w;
		}
		total += n;
	}
	return n < 0 ? -1 : total;
}

static int do_recv(int port, const char *path)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	int one = 1, s = socket(AF_INET, SOCK_STREAM, 0), c, fd;
	long long n;

	if (s < 0)
		return fail("socket");
	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(s, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(s, 1) < 0)
		return fail("bind/listen");
	c = accept(s, NULL, NULL);
	if (c < 0)
		return fail("accept");
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return fail(path);
	n = copy(c, fd);
	if (n < 0 || close(fd) < 0)
		return fail("receive");
	close(c);
	printf("%lld\n", n);
	return 0;
}

static int do_send(const char *addr, int port, const char *path)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	int fd = open(path, O_RDONLY), s = -1, tries;
	char b;
	long long n;

	if (fd < 0)
		return fail(path);
	if (inet_pton(AF_INET, addr, &a.sin_addr) != 1) {
		fprintf(stderr, "tcp_xfer: %s: not an IPv4 address\n", addr);
		return 1;
	}
	for (tries = 0; tries < 200; tries++) {
		struct timespec ts = { 0, 100000000 };

		s = socket(AF_INET, SOCK_STREAM, 0);
		if (s < 0)
			return fail("socket");
		if (connect(s, (struct sockaddr *)&a, sizeof(a)) == 0)
			break;
		close(s);
		s = -1;
		nanosleep(&ts, NULL);
	}
	if (s < 0)
		return fail("connect");
	n = copy(fd, s);
	if (n < 0)
		return fail("send");
	shutdown(s, SHUT_WR);
	while (read(s, &b, 1) > 0)
		;
	close(s);
	printf("%lld\n", n);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "recv") == 0)
		return do_recv(atoi(argv[2]), argv[3]);
	if (argc == 5 && strcmp(argv[1], "send") == 0)
		return do_send(argv[2], atoi(argv[3]), argv[4]);
	fprintf(stderr, "usage: tcp_xfer recv PORT FILE | send ADDR PORT FILE\n");
	return 1;
}
