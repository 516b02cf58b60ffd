/*
 * test_core_ch9_tab_own.c - the same table from the library's own
 * definitions (composite/ch9_own.h, forced with COMPOSITE_OWN_CH9).
 */
#define COMPOSITE_OWN_CH9 1
#include "composite/ch9.h"

#ifdef COMPOSITE_HAVE_LINUX_CH9
#error "COMPOSITE_OWN_CH9 must select ch9_own.h"
#endif

#include "test_core_ch9.h"

CH9_TABLE(core_ch9_own);
