/*
 * composite/linux/types.h - the kernel spellings of the library's prefixed
 * names, for code ported from Linux: container_of, LIST_HEAD, gfp_t with
 * GFP_ATOMIC/GFP_KERNEL, cpu_to_le16() and friends, and the u8...s64 /
 * __le16 integer names. No other public header includes this one, so a
 * program that does not port Linux code keeps these names free (<sys/queue.h>
 * has its own LIST_HEAD). composite/linux.h, the porting header, includes it.
 * Plain C11; every macro is a constant expression where its argument is.
 */
#ifndef COMPOSITE_LINUX_TYPES_H
#define COMPOSITE_LINUX_TYPES_H

#include <stdint.h>

#include "composite/ch9.h"
#include "composite/gadget.h"
#include "composite/list.h"

#ifndef container_of
#define container_of(ptr, type, member) usb_container_of(ptr, type, member)
#endif
#define LIST_HEAD_INIT(name) USB_LIST_HEAD_INIT(name)
#define LIST_HEAD(name) USB_LIST_HEAD(name)

typedef usb_gfp_t gfp_t;
#define GFP_ATOMIC USB_GFP_ATOMIC
#define GFP_KERNEL USB_GFP_KERNEL

/* Not defined if the program already has its own (a kernel-style header). */
#ifndef cpu_to_le16
#define cpu_to_le16(x) USB_CPU_TO_LE16(x)
#endif
#ifndef le16_to_cpu
#define le16_to_cpu(x) USB_LE16_TO_CPU(x)
#endif
#ifndef cpu_to_le32
#define cpu_to_le32(x) USB_CPU_TO_LE32(x)
#endif
#ifndef le32_to_cpu
#define le32_to_cpu(x) USB_LE32_TO_CPU(x)
#endif

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;

/* On Linux <linux/types.h> (through composite/ch9.h) has these already;
 * elsewhere they are plain fixed-width integers, as the kernel's are. */
#ifndef __linux__
typedef uint8_t __u8;
typedef uint16_t __u16;
typedef uint32_t __u32;
typedef uint64_t __u64;
typedef uint16_t __le16;
typedef uint32_t __le32;
typedef uint64_t __le64;
typedef uint16_t __be16;
typedef uint32_t __be32;
#endif

#endif /* COMPOSITE_LINUX_TYPES_H */
