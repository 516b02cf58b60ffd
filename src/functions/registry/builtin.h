/*
 * builtin.h - the drivers of the functions the library ships, one per
 * function folder (each defined next to its function), for the
 * registry's table. Private to src/functions.
 */
#ifndef COMPOSITE_FUNCTIONS_BUILTIN_H
#define COMPOSITE_FUNCTIONS_BUILTIN_H

#include "composite/registry.h"

extern const struct usb_function_driver fn_driver_mass_storage;	/* msf/msf_instance.c */
extern const struct usb_function_driver fn_driver_sourcesink;	/* sourcesink/ss_instance.c */
extern const struct usb_function_driver fn_driver_loopback;	/* loopback/lb_instance.c */
extern const struct usb_function_driver fn_driver_acm;		/* acm/acm_instance.c */
extern const struct usb_function_driver fn_driver_hid;		/* hid/hid_instance.c */
extern const struct usb_function_driver fn_driver_ecm;		/* net/net_instance.c */
extern const struct usb_function_driver fn_driver_ncm;		/* net/net_instance.c */

#endif
