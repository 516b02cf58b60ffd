/*
 * list.h - intrusive doubly linked lists and usb_container_of(), with the
 * Linux names (struct list_head, list_add_tail, list_for_each_entry...) so
 * that ported gadget code keeps its loops. Header-only; no allocation.
 * Names that clash with the C library or POSIX (<sys/queue.h>'s LIST_HEAD)
 * carry a USB_ prefix here; composite/linux/types.h adds the kernel
 * spellings (LIST_HEAD, container_of) for ported code.
 *
 * list_for_each_entry() and friends use __typeof__, which GCC and Clang
 * accept in strict C11 mode; list_for_each_entry_t() takes the type
 * explicitly for other compilers.
 */
#ifndef COMPOSITE_LIST_H
#define COMPOSITE_LIST_H

#include <stdbool.h>
#include <stddef.h>

/* The structure of type TYPE whose MEMBER is at PTR. */
#define usb_container_of(ptr, type, member) \
	((type *)(void *)((char *)(ptr) - offsetof(type, member)))

struct list_head {
	struct list_head *next, *prev;
};

#define USB_LIST_HEAD_INIT(name) { &(name), &(name) }
#define USB_LIST_HEAD(name) struct list_head name = USB_LIST_HEAD_INIT(name)

static inline void INIT_LIST_HEAD(struct list_head *list)
{
	list->next = list;
	list->prev = list;
}

static inline void composite_list_insert(struct list_head *entry,
					 struct list_head *prev,
					 struct list_head *next)
{
	next->prev = entry;
	entry->next = next;
	entry->prev = prev;
	prev->next = entry;
}

/* Insert ENTRY right after HEAD (stack order). */
static inline void list_add(struct list_head *entry, struct list_head *head)
{
	composite_list_insert(entry, head, head->next);
}

/* Insert ENTRY before HEAD, i.e. at the end of the list (queue order). */
static inline void list_add_tail(struct list_head *entry, struct list_head *head)
{
	composite_list_insert(entry, head->prev, head);
}

/* Unlink ENTRY; it is left pointing at itself, so list_empty() is true. */
static inline void list_del_init(struct list_head *entry)
{
	entry->next->prev = entry->prev;
	entry->prev->next = entry->next;
	INIT_LIST_HEAD(entry);
}

static inline void list_del(struct list_head *entry)
{
	list_del_init(entry);
}

static inline void list_move_tail(struct list_head *entry, struct list_head *head)
{
	list_del_init(entry);
	list_add_tail(entry, head);
}

static inline bool list_empty(const struct list_head *head)
{
	return head->next == head;
}

static inline bool list_is_last(const struct list_head *entry,
				const struct list_head *head)
{
	return entry->next == head;
}

#define list_entry(ptr, type, member) usb_container_of(ptr, type, member)
#define list_first_entry(head, type, member) \
	list_entry((head)->next, type, member)
#define list_last_entry(head, type, member) \
	list_entry((head)->prev, type, member)
#define list_first_entry_or_null(head, type, member) \
	(list_empty(head) ? NULL : list_first_entry(head, type, member))

#define list_for_each(pos, head) \
	for ((pos) = (head)->next; (pos) != (head); (pos) = (pos)->next)
#define list_for_each_safe(pos, tmp, head) \
	for ((pos) = (head)->next, (tmp) = (pos)->next; (pos) != (head); \
	     (pos) = (tmp), (tmp) = (pos)->next)

/* Explicit-type forms: strictly C11. */
#define list_for_each_entry_t(pos, head, type, member) \
	for ((pos) = list_entry((head)->next, type, member); \
	     &(pos)->member != (head); \
	     (pos) = list_entry((pos)->member.next, type, member))
#define list_for_each_entry_safe_t(pos, tmp, head, type, member) \
	for ((pos) = list_entry((head)->next, type, member), \
	     (tmp) = list_entry((pos)->member.next, type, member); \
	     &(pos)->member != (head); \
	     (pos) = (tmp), (tmp) = list_entry((tmp)->member.next, type, member))

#if defined(__GNUC__) || defined(__clang__)
#define list_for_each_entry(pos, head, member) \
	list_for_each_entry_t(pos, head, __typeof__(*(pos)), member)
#define list_for_each_entry_safe(pos, tmp, head, member) \
	list_for_each_entry_safe_t(pos, tmp, head, __typeof__(*(pos)), member)
#endif

#endif /* COMPOSITE_LIST_H */
