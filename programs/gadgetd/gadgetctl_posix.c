/*
 * gadgetctl_posix.c - composite-gadgetctl: asks a composite-gadgetd
 * through its control socket (control.h) and prints the answer.
 *
 *   composite-gadgetctl --control PATH [--json] list
 *   composite-gadgetctl --control PATH [--json] set BUSID FUNCTION ATTR [VALUE]
 *   composite-gadgetctl --control PATH [--json] add SCHEME
 *   composite-gadgetctl --control PATH [--json] remove BUSID
 *   composite-gadgetctl --control PATH [--json] detach BUSID
 *   composite-gadgetctl --control PATH [--json] capture BUSID FILE|DIR|off
 *
 * list: one line per gadget, BUSID STATE PEER SCHEME and its gadget-side
 * ends as TYPE.INSTANCE=PLACE (a table), or with --json an array of
 * { "busid", "attached", "peer", "scheme", "ends": { NAME: PLACE or null } }
 * objects.
 * set: write a function's attribute in the running gadget, e.g.
 * `set 1-1 mass_storage_0 lun.0/file /srv/other.img` (a medium change;
 * no VALUE ejects) or `set 1-1 mass_storage_0 lun.0/forced_eject 1`.
 * add: serve SCHEME at a free busid, printed; remove: unbind a gadget;
 * detach: unplug its host; capture: its URBs to a pcap file (or
 * DIR/usbip-BUSID.pcap), or off. Relative paths of add and capture are
 * made absolute here (the daemon's folder is another). With --json these
 * print { "ok": true } (add: with "busid") or { "ok": false, "error" }.
 * Exit 0; 1 when the daemon cannot be reached or answers an error (its
 * message on stderr); 2 for bad arguments. POSIX: one socket, stdio.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "control.h"

static const char prog[] = "composite-gadgetctl";

/* A list reply's line: 4 fields of a request line at most, and the ends. */
#define GADGETD_LIST_LINE_MAX (4 * GADGETD_CONTROL_LINE_MAX + GADGETD_CONTROL_ENDS_MAX)

static int usage(void)
{
	fprintf(stderr, "usage: %s --control PATH [--json] REQUEST\n"
		"  list                             the gadgets, their busids and hosts\n"
		"  set BUSID FUNCTION ATTR [VALUE]  write an attribute (lun.0/file: the medium)\n"
		"  add SCHEME                       serve SCHEME at a free busid\n"
		"  remove BUSID                     unbind the gadget (its host sees an unplug)\n"
		"  detach BUSID                     unplug its host; the gadget stays served\n"
		"  capture BUSID FILE|DIR|off       its URBs to a usbmon pcap file, or not\n",
		prog);
	return 2;
}

static int connect_to(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = 5 };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "%s: %s: path too long\n", prog, path);
		return -1;
	}
	memcpy(sa.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		fprintf(stderr, "%s: %s: %s (is composite-gadgetd running with --control?)\n",
			prog, path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return fd;
}

/* @s as a JSON string. */
static void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			printf("\\%c", ch);
		else if (ch < 0x20)
			printf("\\u%04x", ch);
		else
			putchar(ch);
	}
	putchar('"');
}

/* The ends after SCHEME (TAB TYPE.INSTANCE=PLACE each), from @p on. */
static void print_ends(char *p, bool json)
{
	bool first = true;

	if (json)
		printf(", \"ends\": {");
	while (p) {
		char *end = p, *next = strchr(p, '\t'), *eq;

		if (next)
			*next++ = '\0';
		p = next;
		eq = strchr(end, '=');
		if (!eq)
			continue;
		*eq++ = '\0';
		if (!json) {
			printf(" %s=%s", end, eq);
			continue;
		}
		printf("%s ", first ? "" : ",");
		json_string(end);
		printf(": ");
		if (strcmp(eq, "-"))
			json_string(eq);
		else
			printf("null");
		first = false;
	}
	if (json)
		printf("%s}", first ? "" : " ");
}

/* One "BUSID\tSTATE\tPEER\tSCHEME[\tEND...]" line, printed as asked. */
static int print_gadget(char *line, bool json, bool first)
{
	char *f[4], *ends = NULL;
	unsigned n = 0;

	line[strcspn(line, "\n")] = '\0';
	for (char *p = line; n < 4; n++) {
		f[n] = p;
		p = strchr(p, '\t');
		if (!p && n < 3)
			return -1;
		if (p)
			*p++ = '\0';
		ends = p;
	}
	if (!json) {
		printf("%-6s %-9s %-22s %s", f[0], f[1], f[2], f[3]);
		print_ends(ends, false);
		printf("\n");
		return 0;
	}
	printf("%s\n  { \"busid\": ", first ? "" : ",");
	json_string(f[0]);
	printf(", \"attached\": %s, \"peer\": ", strcmp(f[1], "attached") ? "false" : "true");
	if (strcmp(f[2], "-"))
		json_string(f[2]);
	else
		printf("null");
	printf(", \"scheme\": ");
	json_string(f[3]);
	print_ends(ends, true);
	printf(" }");
	return 0;
}

static int list(int fd, bool json)
{
	FILE *in = fdopen(fd, "r");
	char line[GADGETD_LIST_LINE_MAX];
	unsigned n, i = 0;

	if (!in) {
		close(fd);
		return 1;
	}
	if (!fgets(line, sizeof(line), in)) {
		fprintf(stderr, "%s: no answer\n", prog);
		fclose(in);
		return 1;
	}
	if (sscanf(line, "ok %u", &n) != 1) {
		fprintf(stderr, "%s: %s", prog, line);
		fclose(in);
		return 1;
	}
	if (json)
		printf("[");
	else
		printf("%-6s %-9s %-22s %s\n", "BUSID", "STATE", "PEER", "SCHEME ENDS");
	for (; i < n && fgets(line, sizeof(line), in); i++)
		if (print_gadget(line, json, i == 0) < 0)
			break;
	if (json)
		printf("%s]\n", n ? "\n" : "");
	fclose(in);
	if (i != n) {
		fprintf(stderr, "%s: the answer ended after %u of %u gadgets\n", prog, i, n);
		return 1;
	}
	return 0;
}

/* The one-line answer to a request: "ok [BUSID]", or the daemon's error. */
static int answer(int fd, bool json)
{
	FILE *in = fdopen(fd, "r");
	char line[2048];
	int rc = 1;

	if (!in) {
		close(fd);
		return 1;
	}
	if (!fgets(line, sizeof(line), in))
		snprintf(line, sizeof(line), "error no answer\n");
	line[strcspn(line, "\n")] = '\0';
	if (!strncmp(line, "ok", 2) && (line[2] == '\0' || line[2] == ' '))
		rc = 0;
	if (rc == 0 && line[2] && !json)
		printf("%s\n", line + 3);
	else if (rc != 0)
		fprintf(stderr, "%s: %s\n", prog, line);
	if (json && rc == 0) {
		printf("{ \"ok\": true");
		if (line[2]) {
			printf(", \"busid\": ");
			json_string(line + 3);
		}
		printf(" }\n");
	} else if (json) {
		printf("{ \"ok\": false, \"error\": ");
		json_string(strncmp(line, "error ", 6) ? line : line + 6);
		printf(" }\n");
	}
	fclose(in);
	return rc;
}

/* @path as the daemon must see it: absolute (from this folder), into @buf. */
static const char *absolute(const char *path, char *buf, size_t size)
{
	char cwd[2048];

	if (path[0] == '/' || !getcwd(cwd, sizeof(cwd)))
		return path;
	snprintf(buf, size, "%s/%s", cwd, path);
	return buf;
}

/* The request line for the words @pos[0..@n), into @req; its length, or
 * -1 for a usage error. */
static int request(const char *const *pos, unsigned n, char *req, size_t size)
{
	const char *verb = pos[0];
	char abs[4096];

	if (!strcmp(verb, "list") && n == 1)
		return snprintf(req, size, "list\n");
	if (!strcmp(verb, "set") && (n == 4 || n == 5))
		return snprintf(req, size, "set %s %s %s %s\n", pos[1], pos[2], pos[3],
				n == 5 ? pos[4] : "");
	if (!strcmp(verb, "add") && n == 2)
		return snprintf(req, size, "add %s\n", absolute(pos[1], abs, sizeof(abs)));
	if ((!strcmp(verb, "remove") || !strcmp(verb, "detach")) && n == 2)
		return snprintf(req, size, "%s %s\n", verb, pos[1]);
	if (!strcmp(verb, "capture") && n == 3)
		return snprintf(req, size, "capture %s %s\n", pos[1],
				strcmp(pos[2], "off") ? absolute(pos[2], abs, sizeof(abs)) : "off");
	return -1;
}

int main(int argc, char **argv)
{
	const char *path = NULL, *pos[6];
	unsigned n = 0;
	bool json = false;
	char req[4224];
	int fd, len;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--control") && i + 1 < argc)
			path = argv[++i];
		else if (!strcmp(argv[i], "--json"))
			json = true;
		else if (argv[i][0] != '-' && n < 6)
			pos[n++] = argv[i];
		else
			return usage();
	}
	if (!path || n == 0)
		return usage();
	len = request(pos, n, req, sizeof(req));
	if (len < 0)
		return usage();
	if ((size_t)len >= sizeof(req) || strchr(req, '\n') != req + len - 1) {
		fprintf(stderr, "%s: request too long or holding a newline\n", prog);
		return 2;
	}
	fd = connect_to(path);
	if (fd < 0)
		return 1;
	if (send(fd, req, (size_t)len, MSG_NOSIGNAL) != len) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
		close(fd);
		return 1;
	}
	return !strcmp(pos[0], "list") ? list(fd, json) : answer(fd, json);
}
