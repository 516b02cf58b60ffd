/*
 * test_core_ch9_tab_own.c - the same table from the library's own
 * definitions (composite/ch9_own.h; Linux's header is not included here).
 */
#include "composite/ch9.h"

#ifndef COMPOSITE_CH9_OWN_H
#error "composite/ch9.h must use ch9_own.h"
#endif

#include "test_core_ch9.h"

CH9_TABLE(core_ch9_own);
