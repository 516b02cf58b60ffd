/*
 * attr_parse.c - the value parsers attribute stores share, as the
 * kernel's kstrtouint() and kstrtobool() (configfs values arrive as
 * text, usually with echo's trailing newline). Portable C11.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "composite/registry.h"

/* Length of @value without one trailing '\n'. */
static size_t value_len(const char *value)
{
	size_t n = strlen(value);

	return n && value[n - 1] == '\n' ? n - 1 : n;
}

int usb_attr_parse_uint(const char *value, unsigned min, unsigned max, unsigned *out)
{
	unsigned long v = 0;
	size_t n, i = 0;
	unsigned base = 10;

	if (!value || !out)
		return -USB_EINVAL;
	n = value_len(value);
	if (n > 2 && value[0] == '0' && (value[1] == 'x' || value[1] == 'X')) {
		base = 16;
		i = 2;
	}
	if (i == n)
		return -USB_EINVAL;
	for (; i < n; i++) {
		int c = tolower((unsigned char)value[i]);
		unsigned d;

		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (base == 16 && c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else
			return -USB_EINVAL;
		v = v * base + d;
		if (v > max)
			return -USB_EINVAL;
	}
	if (v < min)
		return -USB_EINVAL;
	*out = (unsigned)v;
	return 0;
}

int usb_attr_parse_bool(const char *value, bool *out)
{
	static const char *const yes[] = { "1", "y", "yes", "on", "true", "t" };
	static const char *const no[] = { "0", "n", "no", "off", "false", "f" };
	char word[6];
	size_t n;

	if (!value || !out)
		return -USB_EINVAL;
	n = value_len(value);
	if (n == 0 || n >= sizeof(word))
		return -USB_EINVAL;
	for (size_t i = 0; i < n; i++)
		word[i] = (char)tolower((unsigned char)value[i]);
	word[n] = '\0';
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (strcmp(word, yes[i]) == 0)
			return *out = true, 0;
		if (strcmp(word, no[i]) == 0)
			return *out = false, 0;
	}
	return -USB_EINVAL;
}
