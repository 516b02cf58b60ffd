/*
 * log.c - the core's only output: one-line diagnostics on stderr for
 * conditions that are not errors of a call (an extra
 * usb_composite_setup_continue(), a missing serial string). Firmware
 * builds without stdio define COMPOSITE_NO_STDIO and get silence.
 */
#include <stdarg.h>
#ifndef COMPOSITE_NO_STDIO
#include <stdio.h>
#endif

#include "core.h"

void composite__warn(const char *fmt, ...)
{
#ifndef COMPOSITE_NO_STDIO
	va_list ap;

	va_start(ap, fmt);
	fputs("composite: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
#else
	(void)fmt;
#endif
}
