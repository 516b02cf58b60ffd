/*
 * usbg_import.c - a gadget scheme loaded into the guest kernel's configfs
 * with libusbgx (Debian's libusbgx), the reference composite-gadgetd is
 * compared with (cases/gadgetd.sh):
 *
 *	usbg_import SCHEME NAME UDC	usbg_import_gadget(), then bind to UDC
 *	usbg_import --remove NAME	unbind and remove gadget NAME
 *
 * Exit 0 on success, 1 with libusbgx's reason (and the scheme's line) on
 * stderr.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>

#include <usbg/usbg.h>

static int fail(const char *what, int rc)
{
	fprintf(stderr, "usbg_import: %s: %s\n", what, usbg_strerror((usbg_error)rc));
	return 1;
}

static int import(usbg_state *s, const char *path, const char *name, const char *udc_name)
{
	usbg_gadget *g = NULL;
	usbg_udc *udc;
	FILE *f = fopen(path, "r");
	int rc;

	if (!f) {
		perror(path);
		return 1;
	}
	rc = usbg_import_gadget(s, f, name, &g);
	fclose(f);
	if (rc != USBG_SUCCESS) {
		fprintf(stderr, "usbg_import: %s:%d: %s\n", path,
			usbg_get_gadget_import_error_line(s),
			usbg_get_gadget_import_error_text(s) ? usbg_get_gadget_import_error_text(s)
							     : usbg_strerror((usbg_error)rc));
		return 1;
	}
	udc = usbg_get_udc(s, udc_name);
	if (!udc) {
		fprintf(stderr, "usbg_import: no UDC %s\n", udc_name);
		return 1;
	}
	rc = usbg_enable_gadget(g, udc);
	return rc == USBG_SUCCESS ? 0 : fail("enable", rc);
}

static int remove_gadget(usbg_state *s, const char *name)
{
	usbg_gadget *g = usbg_get_gadget(s, name);
	int rc;

	if (!g) {
		fprintf(stderr, "usbg_import: no gadget %s\n", name);
		return 1;
	}
	rc = usbg_disable_gadget(g);
	if (rc != USBG_SUCCESS)
		return fail("disable", rc);
	rc = usbg_rm_gadget(g, USBG_RM_RECURSE);
	return rc == USBG_SUCCESS ? 0 : fail("remove", rc);
}

int main(int argc, char **argv)
{
	usbg_state *s;
	int rc;

	if (!(argc == 4 || (argc == 3 && !strcmp(argv[1], "--remove")))) {
		fprintf(stderr, "usage: usbg_import SCHEME NAME UDC | --remove NAME\n");
		return 2;
	}
	rc = usbg_init("/sys/kernel/config", &s);
	if (rc != USBG_SUCCESS)
		return fail("usbg_init /sys/kernel/config", rc);
	rc = argc == 4 ? import(s, argv[1], argv[2], argv[3]) : remove_gadget(s, argv[2]);
	usbg_cleanup(s);
	return rc;
}
