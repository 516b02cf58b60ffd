/*
 * fuzz_registry_attrs.c - libFuzzer target for the function registry's
 * attribute names and values (src/functions/registry, and each function's
 * instance file), which take text from users and scheme files. The
 * first byte picks SourceSink, Loopback or mass_storage; the rest, split
 * at NUL bytes, is name/value pairs to set. What must hold besides
 * ASan/UBSan: every set answers 0 or a documented error; a decimal value
 * set is what show reads back (with its newline); show always terminates its buffer
 * and reports the length it needs; a function made of the options is
 * freed cleanly. mass_storage's lun.N/file names are skipped: they would
 * open the paths the fuzzer invents.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "composite/registry.h"
#include "fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int documented(int rc)
{
	return rc == 0 || rc == -USB_ENOENT || rc == -USB_EACCES || rc == -USB_EINVAL ||
	       rc == -USB_EBUSY || rc == -USB_ERANGE || rc == -USB_ENOMEM;
}

static void quiet(void *ctx, const char *line)
{
	(void)ctx;
	CHECK(line && strlen(line) < 4096);
}

/* A decimal number in its shortest form ("0", "12", not "012" or "0x1"). */
static int plain_decimal(const char *v)
{
	size_t n = strlen(v);

	if (n == 0 || n > 9 || (v[0] == '0' && n > 1))
		return 0;
	return strspn(v, "0123456789") == n;
}

/* Show @name into buffers of 4 and 256 bytes: terminated, lengths agree. */
static void check_show(struct usb_function_instance *fi, const char *name)
{
	char small[4], big[256];
	int a = usb_function_instance_show(fi, name, small, sizeof(small));
	int b = usb_function_instance_show(fi, name, big, sizeof(big));

	CHECK(a == b);
	if (a < 0)
		return;
	CHECK(memchr(small, '\0', sizeof(small)) != NULL);
	if ((size_t)b < sizeof(big))
		CHECK(strlen(big) == (size_t)b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = { "SourceSink", "Loopback", "mass_storage" };
	struct usb_function_instance *fi;
	struct usb_function *f;
	char *text, *p, *end;
	int pick;

	if (size < 1)
		return 0;
	usb_composite_set_log_handler(quiet, NULL);
	pick = data[0] % 3;
	fi = usb_get_function_instance(names[pick]);
	CHECK(!usb_is_err(fi));
	text = malloc(size);
	CHECK(text != NULL);
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	p = text;
	end = text + size - 1;
	while (p < end) {
		char *name = p, *value = p + strlen(p) + 1;
		int rc;

		if (value > end)
			break;
		p = value + strlen(value) + 1;
		if (pick == 2 && strstr(name, "/file"))
			continue;
		rc = usb_function_instance_set(fi, name, value);
		CHECK(documented(rc));
		check_show(fi, name);
		if (rc == 0 && plain_decimal(value)) {
			char back[32];
			int n = usb_function_instance_show(fi, name, back, sizeof(back));

			/* (write-only attributes answer -USB_EACCES) */
			CHECK(n < 0 || (n == (int)strlen(value) + 1 &&
					strncmp(back, value, strlen(value)) == 0));
		}
	}
	/* Options that made a function: it must also go away cleanly. */
	if (pick != 2) {
		f = usb_get_function(fi);
		CHECK(usb_is_err(f) ? usb_ptr_err(f) == -USB_EINVAL : f->fi == fi);
		usb_put_function(f);
	}
	usb_put_function_instance(fi);
	free(text);
	return 0;
}
