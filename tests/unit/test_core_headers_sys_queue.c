/*
 * test_core_headers_sys_queue.c - every public header together with
 * <sys/queue.h>, before and after it, in strict C11 with warnings as errors:
 * no public header may define a name the C library or POSIX defines
 * (LIST_HEAD was one). Compile-only (see headers.cmake).
 */
#include <sys/queue.h>

#include "composite/ch9.h"
#include "composite/composite.h"
#include "composite/errors.h"
#include "composite/f_loopback.h"
#include "composite/function.h"
#include "composite/gadget.h"
#include "composite/kref.h"
#include "composite/list.h"
#include "composite/mass_storage.h"
#include "composite/null_udc.h"
#include "composite/sourcesink.h"
#include "composite/udc.h"
#ifdef HEADERS_POSIX
#include "composite/inproc_host.h"
#include "composite/usbip.h"
#endif

#include <stdlib.h>
#include <string.h>

struct item {
	int v;
	LIST_ENTRY(item) link;		/* <sys/queue.h>'s list */
	struct list_head node;		/* the library's */
};

LIST_HEAD(item_list, item);

int main(void)
{
	struct item_list bsd;
	USB_LIST_HEAD(ours);
	struct item a = { .v = 1 };

	LIST_INIT(&bsd);
	LIST_INSERT_HEAD(&bsd, &a, link);
	list_add_tail(&a.node, &ours);
	return LIST_FIRST(&bsd)->v == list_first_entry(&ours, struct item, node)->v ? 0 : 1;
}
