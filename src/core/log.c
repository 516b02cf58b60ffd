/*
 * log.c - the core's only output: one-line diagnostics for conditions that
 * are not errors of a call (an extra usb_composite_setup_continue(), a
 * missing serial string). They go to the handler set with
 * usb_composite_set_log_handler(), by default stderr. Firmware builds
 * without stdio define COMPOSITE_NO_STDIO and get silence.
 */
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#ifndef COMPOSITE_NO_STDIO
#include <stdio.h>
#endif

#include "core.h"

#ifndef COMPOSITE_NO_STDIO
static void log_to_stderr(void *ctx, const char *line)
{
	(void)ctx;
	fprintf(stderr, "composite: %s\n", line);
}

static void (*log_handler)(void *ctx, const char *line) = log_to_stderr;
#else
static void (*log_handler)(void *ctx, const char *line);
#endif
static void *log_ctx;

void usb_composite_set_log_handler(void (*handler)(void *ctx, const char *line), void *ctx)
{
	log_handler = handler;
	log_ctx = ctx;
}

static void vlog(const char *fmt, va_list ap)
{
#ifndef COMPOSITE_NO_STDIO
	char line[256];
	size_t n;

	if (!log_handler)
		return;
	vsnprintf(line, sizeof(line), fmt, ap);
	/* One line per call: a trailing newline (printk style) is dropped. */
	n = strlen(line);
	if (n && line[n - 1] == '\n')
		line[n - 1] = '\0';
	log_handler(log_ctx, line);
#else
	(void)fmt;
	(void)ap;
#endif
}

/* The name in parentheses: with COMPOSITE_NO_STDIO core.h makes it a macro. */
void (composite__warn)(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(fmt, ap);
	va_end(ap);
}

void usb_composite_log(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(fmt, ap);
	va_end(ap);
}
