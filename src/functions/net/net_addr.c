/*
 * net_addr.c - MAC addresses as text (usb_net_format_addr(),
 * usb_net_parse_addr()) and the random defaults of the networking
 * functions. Portable C11.
 */
#include <stdio.h>
#include <string.h>

#include "net_addr.h"
#include "functions/common/fn_random.h"

void usb_net_format_addr(const uint8_t a[USB_NET_ALEN], char *buf)
{
	snprintf(buf, 18, "%02x:%02x:%02x:%02x:%02x:%02x", a[0], a[1], a[2], a[3], a[4], a[5]);
}

static int hex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int usb_net_parse_addr(const char *s, uint8_t a[USB_NET_ALEN])
{
	uint8_t out[USB_NET_ALEN];
	unsigned i;
	size_t n;

	if (!s)
		return -USB_EINVAL;
	n = strlen(s);
	if (n && s[n - 1] == '\n')	/* as written by echo into configfs */
		n--;
	if (n != 17)
		return -USB_EINVAL;
	for (i = 0; i < USB_NET_ALEN; i++) {
		int hi = hex(s[3 * i]), lo = hex(s[3 * i + 1]);

		if (hi < 0 || lo < 0 || (i < USB_NET_ALEN - 1 && s[3 * i + 2] != ':'))
			return -USB_EINVAL;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	memcpy(a, out, USB_NET_ALEN);
	return 0;
}

void net_random_addr(uint8_t a[USB_NET_ALEN])
{
	fn_random_bytes(a, USB_NET_ALEN);
	a[0] = (uint8_t)((a[0] & 0xfe) | 0x02);	/* unicast, locally administered */
}

bool net_addr_usable(const uint8_t a[USB_NET_ALEN])
{
	static const uint8_t zero[USB_NET_ALEN];

	return !(a[0] & 0x01) && memcmp(a, zero, USB_NET_ALEN) != 0;
}
