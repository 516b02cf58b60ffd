/*
 * fuzz_scheme.c - libFuzzer target for the gadget scheme loader
 * (src/scheme): the input is a scheme's text. What must hold besides
 * ASan/UBSan: a load answers 0 or a documented error with a terminated
 * message, file and line; a loaded scheme binds to the in-process host or
 * fails cleanly, enumerates, exports, and its export loads again. Inputs
 * with @include (libconfig would read the files they name) or naming a
 * LUN's file (the bind would open it) are only parsed, never bound.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "composite/composite.h"
#include "composite/errors.h"
#include "composite/inproc_host.h"
#include "composite/scheme.h"
#include "fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct usb_inproc_host *host;

static void quiet(void *ctx, const char *line)
{
	(void)ctx;
	CHECK(line && strlen(line) < 4096);
}

static int documented(int rc)
{
	return rc == 0 || rc == -USB_EINVAL || rc == -USB_ERANGE || rc == -USB_ENOSPC ||
	       rc == -USB_ENOMEM || rc == -USB_ENOENT || rc == -USB_ENODEV ||
	       rc == -USB_EBUSY;
}

static int contains(const char *text, const char *needle)
{
	size_t n = strlen(needle);

	for (const char *p = text; *p; p++) {
		size_t i = 0;

		while (i < n && p[i] && (p[i] | 0x20) == (needle[i] | 0x20))
			i++;
		if (i == n)
			return 1;
	}
	return 0;
}

static void check_error(const struct gadget_scheme_error *err)
{
	CHECK(memchr(err->message, '\0', sizeof(err->message)) != NULL);
	CHECK(memchr(err->file, '\0', sizeof(err->file)) != NULL);
	CHECK(err->line >= 0);
}

/* Export @s, load the export: it must load. */
static void round_trip(struct gadget_scheme *s)
{
	struct gadget_scheme_error err;
	struct gadget_scheme *again = NULL;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int rc;

	if (!f)
		return;
	rc = gadget_scheme_export(s, f);
	fclose(f);
	if (rc == 0) {
		rc = gadget_scheme_load_string(text, "export", NULL, &again, &err);
		CHECK(rc == 0 || rc == -USB_ENOMEM);
		gadget_scheme_free(again);
	}
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gadget_scheme_error err;
	struct gadget_scheme *s = NULL;
	uint8_t cfg[512];
	char *text;
	int rc;

	if (!host) {
		struct usb_inproc_host_config hc = { .udc_name = "fuzz.scheme",
						     .max_speed = USB_SPEED_HIGH };

		usb_composite_set_log_handler(quiet, NULL);
		if (usb_inproc_host_create(&hc, &host))
			abort();
	}
	if (size > 65536)
		return 0;
	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (contains(text, "@include")) {
		free(text);
		return 0;
	}
	memset(&err, 0, sizeof(err));
	rc = gadget_scheme_load_string(text, "fuzz", NULL, &s, &err);
	CHECK(documented(rc));
	if (rc) {
		CHECK(s == NULL);
		check_error(&err);
	} else if (!contains(text, "file")) {
		rc = gadget_scheme_bind(s, "fuzz.scheme", &err);
		CHECK(documented(rc) || rc < 0);
		check_error(&err);
		if (rc == 0) {
			(void)usb_inproc_host_enumerate(host, USB_SPEED_HIGH, 1, NULL, cfg,
							sizeof(cfg), 100);
			round_trip(s);
			gadget_scheme_unbind(s);
		}
	}
	gadget_scheme_free(s);
	free(text);
	return 0;
}
