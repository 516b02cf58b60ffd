/*
 * log.c - the core's only output: one-line diagnostics for conditions that
 * are not errors of a call (an extra usb_composite_setup_continue(), a
 * missing serial string). They go to the handler set with
 * usb_composite_set_log_handler(), by default stderr. Firmware builds
 * without stdio define COMPOSITE_NO_STDIO and get silence.
 */
#include <stdarg.h>
#include <stddef.h>
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

void composite__warn(const char *fmt, ...)
{
#ifndef COMPOSITE_NO_STDIO
	char line[256];
	va_list ap;

	if (!log_handler)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	log_handler(log_ctx, line);
#else
	(void)fmt;
#endif
}
