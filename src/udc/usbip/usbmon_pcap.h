/*
 * usbmon_pcap.h - the bytes of a pcap file of Linux usbmon records
 * (LINKTYPE_USB_LINUX_MMAPPED, 220), as the host's usbmon binary interface
 * would give them: a pure encoder in portable C11 (usbmon_pcap.c), with
 * no files, clocks or locks. The USB/IP capture (capture_posix.c) and
 * the unit test use it.
 *
 * Byte order: the file header's magic says little-endian, and every
 * field of the file, the record and the usbmon header is written
 * little-endian whatever the host's order (libpcap and Wireshark read
 * the usbmon header in the file's order).
 *
 * Record layout (Linux Documentation/usb/usbmon.rst, struct
 * usbmon_packet; offsets within the 64-byte header):
 *	 0 id (u64)    8 type ('S', 'C', 'E')  9 xfer_type (ISO 0, INT 1,
 *	CTRL 2, BULK 3)  10 epnum (| 0x80 for IN)  11 devnum  12 busnum (u16)
 *	14 flag_setup (0: setup present, else '-')  15 flag_data (0: data
 *	present, '<' IN submission, '>' OUT completion)  16 ts_sec (s64)
 *	24 ts_usec (s32)  28 status (s32)  32 length (u32: requested on 'S',
 *	actual on 'C')  36 len_cap (u32: bytes that follow)  40 setup[8], or
 *	for ISO error_count (s32) and numdesc (s32)  48 interval (s32)
 *	52 start_frame (s32)  56 xfer_flags (u32)  60 ndesc (u32)
 * then ndesc ISO descriptors of 16 bytes (status s32, offset u32,
 * length u32, padding u32) and len_cap - 16 * ndesc data bytes.
 */
#ifndef USBMON_PCAP_H
#define USBMON_PCAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define USBMON_PCAP_LINKTYPE 220u		/* LINKTYPE_USB_LINUX_MMAPPED */
#define USBMON_PCAP_FILE_HEADER_SIZE 24u
#define USBMON_PCAP_RECORD_HEADER_SIZE 16u	/* ts_sec, ts_usec, incl_len, orig_len */
#define USBMON_HDR_SIZE 64u
#define USBMON_ISO_DESC_SIZE 16u
/* What usbmon__record() writes: the pcap record header and the
 * usbmon header; ISO descriptors and data follow. */
#define USBMON_PCAP_PREFIX_SIZE (USBMON_PCAP_RECORD_HEADER_SIZE + USBMON_HDR_SIZE)

/* usbmon's xfer_type values (the kernel's PIPE_* numbering, not the
 * endpoint descriptor's). */
enum usbmon_xfer {
	USBMON_XFER_ISO = 0,
	USBMON_XFER_INT = 1,
	USBMON_XFER_CTRL = 2,
	USBMON_XFER_BULK = 3
};

/* The status of every submission record: the URB is in flight. */
#define USBMON_STATUS_INPROGRESS (-115)

/**
 * struct usbmon_event - one record, as the host's usbmon would log it.
 * @id: the URB's identity, the same in its 'S' and its 'C' record.
 * @type: 'S' (submission), 'C' (completion) or 'E' (submission error).
 * @xfer: enum usbmon_xfer.
 * @epnum: endpoint number 0..15; @dir_in adds 0x80.
 * @devnum: @busnum: the device's address and bus.
 * @has_setup: @setup holds the 8 setup bytes (control 'S' records).
 * @ts_sec: @ts_usec: when (wall clock; @ts_usec < 1000000).
 * @status: the URB's status, a negated Linux errno (-115 on 'S').
 * @length: transfer_buffer_length on 'S', actual_length on 'C'.
 * @data_len: data bytes that follow the header (and the descriptors);
 *	0 where usbmon sends none (IN submissions, OUT completions).
 * @error_count: @numdesc: ISO only (the URB's error count and
 *	number_of_packets); @ndesc: ISO descriptors that follow.
 * @interval: @start_frame: @xfer_flags: the URB's fields.
 */
struct usbmon_event {
	uint64_t id;
	char type;
	enum usbmon_xfer xfer;
	uint8_t epnum;
	bool dir_in;
	uint8_t devnum;
	uint16_t busnum;
	bool has_setup;
	uint8_t setup[8];
	int64_t ts_sec;
	int32_t ts_usec;
	int32_t status;
	uint32_t length;
	uint32_t data_len;
	int32_t error_count;
	int32_t numdesc;
	int32_t interval;
	int32_t start_frame;
	uint32_t xfer_flags;
	uint32_t ndesc;
};

/* The pcap file header: little-endian magic, version 2.4, zone 0,
 * @snaplen, LINKTYPE_USB_LINUX_MMAPPED. */
void usbmon__file_header(uint8_t out[USBMON_PCAP_FILE_HEADER_SIZE], uint32_t snaplen);

/**
 * usbmon__record() - fill the pcap record header and the usbmon header
 * of @ev into @out. The record's captured and original lengths are
 * 64 + 16 * ndesc + data_len (what the caller writes after @out).
 * Return: false (and @out untouched) when the record would not fit a
 * pcap length (over 4 GiB), or @type / @epnum / @ts_usec are out of range;
 * true otherwise.
 */
bool usbmon__record(uint8_t out[USBMON_PCAP_PREFIX_SIZE], const struct usbmon_event *ev);

/* One ISO descriptor (status, offset, length, zero padding). */
void usbmon__iso_desc(uint8_t out[USBMON_ISO_DESC_SIZE], int32_t status, uint32_t offset,
			  uint32_t length);

#endif /* USBMON_PCAP_H */
