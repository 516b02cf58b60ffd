/*
 * composite/linux.h - the porting header: the kernel forms a Linux gadget
 * driver or function commonly uses, on top of the library, so that such a
 * file compiles with its kernel-only parts only (see docs/mass-storage.md
 * for what the seed article's driver needs). It adds the kernel spellings
 * of composite/linux/types.h (container_of, LIST_HEAD, gfp_t,
 * cpu_to_le16...), and:
 *   ERR_PTR() IS_ERR() PTR_ERR() IS_ERR_OR_NULL() ERR_CAST()
 *   set_bit() clear_bit() test_bit() test_and_set_bit() test_and_clear_bit()
 *   ARRAY_SIZE() min() max() min_t() max_t() clamp() DIV_ROUND_UP()
 *   __init __exit __ref __initdata __exitdata __devinit... (empty)
 *   module_init() module_exit() module_param() module_param_named()
 *   MODULE_PARM_DESC() MODULE_LICENSE() MODULE_AUTHOR() MODULE_DESCRIPTION()
 *   FSG_MODULE_PARAMETERS() (the Mass Storage module's parameters)
 *   DBG() VDBG() INFO() WARNING() ERROR() pr_debug() pr_info() pr_warn()
 *   pr_err() printk() KERN_* on usb_composite_log()
 *   likely() unlikely() EXPORT_SYMBOL*() (no-ops)
 * No other public header includes this one. Bit operations are atomic
 * (C11 <stdatomic.h> on unsigned long words, as the kernel's).
 */
#ifndef COMPOSITE_LINUX_H
#define COMPOSITE_LINUX_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "composite/composite.h"
#include "composite/errors.h"
#include "composite/function.h"
#include "composite/linux/types.h"
#include "composite/module.h"

/* ---- error pointers ---------------------------------------------------- */
#define MAX_ERRNO USB_MAX_ERRNO
static inline void *ERR_PTR(long error) { return usb_err_ptr(error); }
static inline long PTR_ERR(const void *ptr) { return usb_ptr_err(ptr); }
static inline bool IS_ERR(const void *ptr) { return usb_is_err(ptr); }
static inline bool IS_ERR_OR_NULL(const void *ptr) { return !ptr || usb_is_err(ptr); }
static inline void *ERR_CAST(const void *ptr) { return (void *)(uintptr_t)ptr; }

/* ---- bit operations on unsigned long words (atomic) -------------------- */
#define BITS_PER_LONG ((int)(sizeof(unsigned long) * 8))
#define BIT(nr) (1UL << (nr))

static inline _Atomic unsigned long *composite_bit_word(volatile unsigned long *addr,
							 unsigned long nr)
{
	return (_Atomic unsigned long *)(uintptr_t)(addr + nr / BITS_PER_LONG);
}

static inline void set_bit(unsigned long nr, volatile unsigned long *addr)
{
	atomic_fetch_or(composite_bit_word(addr, nr), BIT(nr % BITS_PER_LONG));
}

static inline void clear_bit(unsigned long nr, volatile unsigned long *addr)
{
	atomic_fetch_and(composite_bit_word(addr, nr), ~BIT(nr % BITS_PER_LONG));
}

static inline bool test_bit(unsigned long nr, const volatile unsigned long *addr)
{
	return (atomic_load(composite_bit_word((volatile unsigned long *)(uintptr_t)addr, nr)) >>
		(nr % BITS_PER_LONG)) & 1UL;
}

static inline bool test_and_set_bit(unsigned long nr, volatile unsigned long *addr)
{
	unsigned long m = BIT(nr % BITS_PER_LONG);

	return (atomic_fetch_or(composite_bit_word(addr, nr), m) & m) != 0;
}

static inline bool test_and_clear_bit(unsigned long nr, volatile unsigned long *addr)
{
	unsigned long m = BIT(nr % BITS_PER_LONG);

	return (atomic_fetch_and(composite_bit_word(addr, nr), ~m) & m) != 0;
}

/* ---- arithmetic -------------------------------------------------------- */
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define min_t(type, a, b) ((type)(a) < (type)(b) ? (type)(a) : (type)(b))
#define max_t(type, a, b) ((type)(a) > (type)(b) ? (type)(a) : (type)(b))
#ifndef min
#define min(a, b) ((a) < (b) ? (a) : (b))
#endif
#ifndef max
#define max(a, b) ((a) > (b) ? (a) : (b))
#endif
#define clamp(v, lo, hi) min(max(v, lo), hi)
#define DIV_ROUND_UP(n, d) (((n) + (d) - 1) / (d))

/* ---- section and export annotations: nothing to do here ---------------- */
#define __init
#define __exit
#define __ref
#define __initdata
#define __exitdata
#define __initconst
#define __devinit
#define __devexit
#define __user
#define __iomem
#define __force
#define __must_check
#define likely(x) (x)
#define unlikely(x) (x)
#define EXPORT_SYMBOL(sym)
#define EXPORT_SYMBOL_GPL(sym)

/* ---- modules ------------------------------------------------------------ */
#define module_init(fn) COMPOSITE_MODULE_INIT(fn)
#define module_exit(fn) COMPOSITE_MODULE_EXIT(fn)

/* module_param(name, type, perm): type one of bool, int, uint, ushort,
 * long, ulong, charp; perm is ignored (there is no sysfs). */
#define module_param_named(name, var, type, perm) \
	COMPOSITE_MODULE_PARAM(name, #name, COMPOSITE_PARAM_TYPE_##type, &(var))
/* Pasted here, not passed on: <stdbool.h>'s bool would expand first. */
#define module_param(name, type, perm) \
	COMPOSITE_MODULE_PARAM(name, #name, COMPOSITE_PARAM_TYPE_##type, &(name))
#define COMPOSITE_PARAM_TYPE_bool COMPOSITE_PARAM_BOOL
#define COMPOSITE_PARAM_TYPE__Bool COMPOSITE_PARAM_BOOL
#define COMPOSITE_PARAM_TYPE_int COMPOSITE_PARAM_INT
#define COMPOSITE_PARAM_TYPE_uint COMPOSITE_PARAM_UINT
#define COMPOSITE_PARAM_TYPE_ushort COMPOSITE_PARAM_USHORT
#define COMPOSITE_PARAM_TYPE_long COMPOSITE_PARAM_LONG
#define COMPOSITE_PARAM_TYPE_ulong COMPOSITE_PARAM_ULONG
#define COMPOSITE_PARAM_TYPE_charp COMPOSITE_PARAM_CHARP
/* module_param() permissions (no sysfs: unused). The S_I* of POSIX come
 * from <sys/stat.h> where there is one, so either include order works. */
#if defined(__has_include)
#if __has_include(<sys/stat.h>)
#include <sys/stat.h>
#endif
#endif
#ifndef S_IRUSR
#define S_IRUSR 0400
#define S_IWUSR 0200
#define S_IRGRP 0040
#define S_IROTH 0004
#endif
#ifndef S_IRUGO
#define S_IRUGO (S_IRUSR | S_IRGRP | S_IROTH)
#endif
#define MODULE_PARM_DESC(name, text)
#define MODULE_LICENSE(text)
#define MODULE_AUTHOR(text)
#define MODULE_DESCRIPTION(text)
#define MODULE_VERSION(text)
#define MODULE_ALIAS(text)

/* The Mass Storage module's parameters (file=, ro=, removable=, cdrom=,
 * nofua=, luns=, stall=, inquiry_string=...), each key after @prefix, into
 * @params, a struct fsg_module_parameters (composite/mass_storage.h). */
#define FSG_MODULE_PARAMETERS(prefix, params) \
	COMPOSITE_MODULE_PARAM(fsg_##params, #prefix, COMPOSITE_PARAM_FSG, &(params))

/* ---- logging on the library's log handler ------------------------------- */
#define KERN_EMERG ""
#define KERN_ALERT ""
#define KERN_CRIT ""
#define KERN_ERR ""
#define KERN_WARNING ""
#define KERN_NOTICE ""
#define KERN_INFO ""
#define KERN_DEBUG ""
#define printk(...) usb_composite_log(__VA_ARGS__)
#define pr_err(...) usb_composite_log(__VA_ARGS__)
#define pr_warn(...) usb_composite_log(__VA_ARGS__)
#define pr_warning(...) usb_composite_log(__VA_ARGS__)
#define pr_notice(...) usb_composite_log(__VA_ARGS__)
#define pr_info(...) usb_composite_log(__VA_ARGS__)
#ifdef DEBUG
#define pr_debug(...) usb_composite_log(__VA_ARGS__)
#define DBG(d, ...) usb_composite_log(__VA_ARGS__)
#else
#define pr_debug(...) ((void)0)
#define DBG(d, ...) ((void)(d))
#endif
#define VDBG(d, ...) ((void)(d))
#define INFO(d, ...) ((void)(d), usb_composite_log(__VA_ARGS__))
#define WARNING(d, ...) ((void)(d), usb_composite_log(__VA_ARGS__))
#define ERROR(d, ...) ((void)(d), usb_composite_log(__VA_ARGS__))

#endif /* COMPOSITE_LINUX_H */
