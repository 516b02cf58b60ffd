/*
 * net_addr.h - MAC address helpers of the networking functions beyond
 * the public ones in composite/ether.h. Private to src/functions.
 */
#ifndef COMPOSITE_NET_ADDR_H
#define COMPOSITE_NET_ADDR_H

#include <stdbool.h>
#include <stdint.h>

#include "composite/ether.h"

/* A random unicast, locally administered address (Linux's eth_random_addr()). */
void net_random_addr(uint8_t addr[USB_NET_ALEN]);

/* Neither multicast nor all zero. */
bool net_addr_usable(const uint8_t addr[USB_NET_ALEN]);

#endif
