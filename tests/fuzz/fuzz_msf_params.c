/*
 * fuzz_msf_params.c - libFuzzer target for the mass storage module
 * parameters (src/functions/msf/params.c), which take command lines users
 * type: the input, split at NUL bytes, is an argument vector. What must
 * hold besides ASan/UBSan: -USB_EINVAL comes with a message; otherwise the
 * arguments left are those not taken, in their order, none of them a
 * known key=; counts stay within their arrays, and values point into the
 * arguments; and
 * fsg_config_from_params() gives 1..FSG_MAX_LUNS LUNs.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "composite/mass_storage.h"
#include "fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_ARGS 40

static const char *const keys[] = { "file", "ro", "removable", "cdrom", "nofua",
				    "inquiry_string", "luns", "stall", "num_buffers",
				    "buflen" };

static int is_known_key(const char *arg)
{
	const char *eq = strchr(arg, '=');

	for (size_t k = 0; eq && k < sizeof(keys) / sizeof(keys[0]); k++)
		if (strlen(keys[k]) == (size_t)(eq - arg) && !strncmp(arg, keys[k], (size_t)(eq - arg)))
			return 1;
	return 0;
}

/* A value the parser set lies inside the argument strings (it points
 * into them, not into a copy); one it did not set stays NULL. */
static int points_into(const char *value, const char *args, size_t size, int given)
{
	if (!value)
		return 1;
	return given && value >= args && value <= args + size;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fsg_module_parameters p;
	static struct fsg_config cfg;
	char *copy = malloc(size + 1), *argv[MAX_ARGS], *orig[MAX_ARGS];
	char err[96];
	int argc = 0, rc;

	CHECK(copy);
	memcpy(copy, data, size);
	copy[size] = '\0';
	for (char *s = copy; argc < MAX_ARGS && s <= copy + size; s += strlen(s) + 1)
		orig[argc] = argv[argc] = s, argc++;

	fsg_module_parameters_init(&p);
	memset(err, 'x', sizeof(err));
	rc = fsg_module_parameters_parse(&p, argc, argv, err, sizeof(err));
	CHECK(memchr(err, '\0', sizeof(err)) != NULL);
	if (rc < 0) {
		CHECK(rc == -USB_EINVAL && err[0] != '\0');
		free(copy);
		return 0;
	}
	CHECK(rc <= argc);
	/* The arguments left: the ones not taken, in order. */
	for (int i = 0, j = 0; i < argc; i++) {
		if (is_known_key(orig[i]))
			continue;
		CHECK(j < rc && argv[j] == orig[i]);
		j++;
		if (i == argc - 1)
			CHECK(j == rc);
	}
	for (int j = 0; j < rc; j++)
		CHECK(!is_known_key(argv[j]));
	CHECK(p.file_count <= FSG_MAX_LUNS && p.ro_count <= FSG_MAX_LUNS &&
	      p.removable_count <= FSG_MAX_LUNS && p.cdrom_count <= FSG_MAX_LUNS &&
	      p.nofua_count <= FSG_MAX_LUNS && p.inquiry_string_count <= FSG_MAX_LUNS);
	CHECK(p.luns <= FSG_MAX_LUNS);
	for (unsigned i = 0; i < FSG_MAX_LUNS; i++) {
		CHECK(points_into(p.file[i], copy, size, i < p.file_count));
		CHECK(points_into(p.inquiry_string[i], copy, size, i < p.inquiry_string_count));
	}
	fsg_config_from_params(&cfg, &p);
	CHECK(cfg.nluns >= 1 && cfg.nluns <= FSG_MAX_LUNS);
	free(copy);
	return 0;
}
