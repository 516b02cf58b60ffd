/*
 * test_core_ch9_tab_linux.c - sizes, offsets and constant values of
 * Linux's <linux/usb/ch9.h>, for test_core_ch9.c. Only Linux's header is
 * included here.
 */
#include <linux/usb/ch9.h>

#include "test_core_ch9.h"

CH9_TABLE(core_ch9_linux);
