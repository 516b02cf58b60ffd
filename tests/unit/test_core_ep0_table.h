/*
 * test_core_ep0_table.h - chapter 9 transcripts shared by test_core_ep0.c
 * (fake backend) and test_core_inproc.c (the in-process host): SETUP bytes
 * in, reply bytes, zero-length status or stall out, per device kind and
 * state. Expected descriptor bytes are written out by hand from the USB
 * 2.0/3.2 specifications. Included once per test program.
 */
#ifndef TEST_CORE_EP0_TABLE_H
#define TEST_CORE_EP0_TABLE_H

#include <stdint.h>

#include "test_core_fixture.h"

enum dev_kind {
	HS,		/* high-speed capable, bcdUSB 2.00, connected at high speed */
	HS_AT_FS,	/* the same, connected at full speed */
	FS,		/* full-speed only */
	LPM,		/* high speed, bcdUSB 2.01 (BOS readable) */
	SS,		/* SuperSpeed, bcdUSB 3.00, connected at SuperSpeed */
	WAKE,		/* as HS, its configuration declares remote wakeup */
};

enum dev_state { S_DEFAULT, S_ADDRESS, S_CONFIGURED };

#define STALL FAKE_STALL
#define PENDING FAKE_PENDING
#define MAX_STEPS 4

struct step {
	uint8_t setup[8];
	int expect;		/* reply length, STALL or PENDING */
	uint8_t reply[64];	/* the first min(expect, 64) bytes */
};

struct transcript {
	const char *name;
	enum dev_kind kind;
	enum dev_state state;
	struct step steps[MAX_STEPS];
};

/* Device descriptor of the HS device: bcdUSB 2.00, ep0 64, 1d6b:0104,
 * bcdDevice 1.00, strings 1 and 2, one configuration. */
#define DEV_HS 0x12, 0x01, 0x00, 0x02, 0x00, 0x00, 0x00, 0x40, 0x6b, 0x1d, 0x04, 0x01, \
	0x00, 0x01, 0x01, 0x02, 0x00, 0x01
/* Configuration 1 header at high speed: 32 bytes, 1 interface, value 1,
 * no string, bus powered, 100 mA (50 units of 2 mA). */
#define CFG_HDR(type, mp0, mp1) 0x09, type, 0x20, 0x00, 0x01, 0x01, 0x00, 0x80, 0x32, \
	0x09, 0x04, 0x00, 0x00, 0x02, 0xff, 0x00, 0x00, 0x03, \
	0x07, 0x05, 0x81, 0x02, mp0, mp1, 0x00, \
	0x07, 0x05, 0x02, 0x02, mp0, mp1, 0x00
#define CFG_HS CFG_HDR(0x02, 0x00, 0x02)
#define CFG_FS CFG_HDR(0x02, 0x40, 0x00)
#define OTHER_FS CFG_HDR(0x07, 0x40, 0x00)
#define OTHER_HS CFG_HDR(0x07, 0x00, 0x02)
#define QUALIFIER 0x0a, 0x06, 0x00, 0x02, 0x00, 0x00, 0x00, 0x40, 0x01, 0x00

#define GET_DESC(type, idx, windex, len) \
	{ 0x80, 0x06, idx, type, (windex) & 0xff, (windex) >> 8, (len) & 0xff, (len) >> 8 }
#define GET_STATUS(recip, idx) { 0x80 | (recip), 0x00, 0, 0, idx, 0, 2, 0 }
#define SET_FEATURE(recip, feat, idx) { recip, 0x03, feat, 0, (idx) & 0xff, (idx) >> 8, 0, 0 }
#define CLEAR_FEATURE(recip, feat, idx) { recip, 0x01, feat, 0, (idx) & 0xff, (idx) >> 8, 0, 0 }
#define SET_CONFIG(v) { 0x00, 0x09, v, 0, 0, 0, 0, 0 }
#define GET_CONFIG { 0x80, 0x08, 0, 0, 0, 0, 1, 0 }
#define SET_INTF(i, a) { 0x01, 0x0b, a, 0, i, 0, 0, 0 }
#define GET_INTF(i) { 0x81, 0x0a, 0, 0, i, 0, 1, 0 }
#define SET_ADDRESS_0 { 0x00, 0x05, 0, 0, 0, 0, 0, 0 }

static const struct transcript transcripts[] = {
	/* GET_DESCRIPTOR(DEVICE) in every state, and truncated */
	{ "device desc, default", HS, S_DEFAULT, { { GET_DESC(1, 0, 0, 64), 18, { DEV_HS } } } },
	{ "device desc, address", HS, S_ADDRESS, { { GET_DESC(1, 0, 0, 18), 18, { DEV_HS } } } },
	{ "device desc, configured", HS, S_CONFIGURED, { { GET_DESC(1, 0, 0, 255), 18, { DEV_HS } } } },
	{ "device desc, first 8", HS, S_DEFAULT, { { GET_DESC(1, 0, 0, 8), 8, { DEV_HS } } } },
	{ "device desc, wLength 0", HS, S_ADDRESS, { { GET_DESC(1, 0, 0, 0), 0, { 0 } } } },
	{ "device desc, index 1", HS, S_ADDRESS, { { GET_DESC(1, 1, 0, 18), STALL, { 0 } } } },
	{ "device desc, bad wIndex", HS, S_ADDRESS, { { GET_DESC(1, 0, 1, 18), STALL, { 0 } } } },
	{ "device desc, OUT direction", HS, S_ADDRESS,
	  { { { 0x00, 0x06, 0x00, 0x01, 0, 0, 18, 0 }, STALL, { 0 } } } },
	{ "unknown descriptor type", HS, S_ADDRESS, { { GET_DESC(0x20, 0, 0, 18), STALL, { 0 } } } },
	{ "SET_DESCRIPTOR", HS, S_ADDRESS,
	  { { { 0x00, 0x07, 0x00, 0x01, 0, 0, 18, 0 }, STALL, { 0 } } } },
	/* configuration */
	{ "config header", HS, S_ADDRESS, { { GET_DESC(2, 0, 0, 9), 9, { CFG_HS } } } },
	{ "config full, high speed", HS, S_DEFAULT, { { GET_DESC(2, 0, 0, 255), 32, { CFG_HS } } } },
	{ "config full, configured", HS, S_CONFIGURED, { { GET_DESC(2, 0, 0, 255), 32, { CFG_HS } } } },
	{ "config full, full speed", HS_AT_FS, S_ADDRESS, { { GET_DESC(2, 0, 0, 255), 32, { CFG_FS } } } },
	{ "config full-speed-only device", FS, S_ADDRESS, { { GET_DESC(2, 0, 0, 255), 32, { CFG_FS } } } },
	{ "config index out of range", HS, S_ADDRESS, { { GET_DESC(2, 1, 0, 255), STALL, { 0 } } } },
	{ "other speed at high speed", HS, S_ADDRESS, { { GET_DESC(7, 0, 0, 255), 32, { OTHER_FS } } } },
	{ "other speed at full speed", HS_AT_FS, S_ADDRESS, { { GET_DESC(7, 0, 0, 255), 32, { OTHER_HS } } } },
	{ "other speed, fs-only", FS, S_ADDRESS, { { GET_DESC(7, 0, 0, 255), STALL, { 0 } } } },
	{ "other speed, bad index", HS, S_ADDRESS, { { GET_DESC(7, 3, 0, 255), STALL, { 0 } } } },
	{ "qualifier", HS, S_ADDRESS, { { GET_DESC(6, 0, 0, 10), 10, { QUALIFIER } } } },
	{ "qualifier at full speed", HS_AT_FS, S_DEFAULT, { { GET_DESC(6, 0, 0, 10), 10, { QUALIFIER } } } },
	{ "qualifier, fs-only", FS, S_ADDRESS, { { GET_DESC(6, 0, 0, 10), STALL, { 0 } } } },
	{ "qualifier at SuperSpeed", SS, S_ADDRESS, { { GET_DESC(6, 0, 0, 10), STALL, { 0 } } } },
	/* strings */
	{ "langid list", HS, S_ADDRESS, { { GET_DESC(3, 0, 0, 255), 4, { 0x04, 0x03, 0x09, 0x04 } } } },
	{ "string 1", HS, S_ADDRESS, { { GET_DESC(3, 1, 0x0409, 255), 12,
	  { 0x0c, 0x03, 'M', 0, 'a', 0, 'k', 0, 'e', 0, 'r', 0 } } } },
	{ "string 1 truncated", HS, S_DEFAULT, { { GET_DESC(3, 1, 0x0409, 2), 2, { 0x0c, 0x03 } } } },
	{ "function string", HS, S_ADDRESS, { { GET_DESC(3, 3, 0x0409, 255), 10,
	  { 0x0a, 0x03, 'l', 0, 'o', 0, 'o', 0, 'p', 0 } } } },
	{ "string, unknown language", HS, S_ADDRESS, { { GET_DESC(3, 1, 0x0407, 255), STALL, { 0 } } } },
	{ "string, unknown index", HS, S_ADDRESS, { { GET_DESC(3, 9, 0x0409, 255), STALL, { 0 } } } },
	/* BOS */
	{ "BOS with bcdUSB 2.00", HS, S_ADDRESS, { { GET_DESC(0x0f, 0, 0, 255), STALL, { 0 } } } },
	{ "BOS with bcdUSB 2.01", LPM, S_ADDRESS, { { GET_DESC(0x0f, 0, 0, 255), 12,
	  { 0x05, 0x0f, 0x0c, 0x00, 0x01, 0x07, 0x10, 0x02, 0x00, 0x00, 0x00, 0x00 } } } },
	{ "BOS header only", LPM, S_ADDRESS, { { GET_DESC(0x0f, 0, 0, 5), 5,
	  { 0x05, 0x0f, 0x0c, 0x00, 0x01 } } } },
	{ "BOS at SuperSpeed", SS, S_ADDRESS, { { GET_DESC(0x0f, 0, 0, 255), 22,
	  { 0x05, 0x0f, 0x16, 0x00, 0x02, 0x07, 0x10, 0x02, 0x00, 0x00, 0x00, 0x00,
	    0x0a, 0x10, 0x03, 0x00, 0x0e, 0x00, 0x01, 0x01, 0xf4, 0x01 } } } },
	{ "device desc at SuperSpeed", SS, S_ADDRESS, { { GET_DESC(1, 0, 0, 18), 18,
	  { 0x12, 0x01, 0x00, 0x03, 0x00, 0x00, 0x00, 0x09, 0x6b, 0x1d, 0x04, 0x01,
	    0x00, 0x01, 0x01, 0x02, 0x00, 0x01 } } } },
	{ "config at SuperSpeed", SS, S_ADDRESS, { { GET_DESC(2, 0, 0, 255), 44,
	  { 0x09, 0x02, 0x2c, 0x00, 0x01, 0x01, 0x00, 0x80, 0x0d,
	    0x09, 0x04, 0x00, 0x00, 0x02, 0xff, 0x00, 0x00, 0x03,
	    0x07, 0x05, 0x81, 0x02, 0x00, 0x04, 0x00, 0x06, 0x30, 0x03, 0x00, 0x00, 0x00,
	    0x07, 0x05, 0x02, 0x02, 0x00, 0x04, 0x00, 0x06, 0x30, 0x03, 0x00, 0x00, 0x00 } } } },
	/* SET_ADDRESS */
	{ "set address, default", HS, S_DEFAULT, { { { 0x00, 0x05, 7, 0, 0, 0, 0, 0 }, 0, { 0 } },
	  { GET_CONFIG, 1, { 0 } } } },
	{ "set address 0 returns to default", HS, S_ADDRESS,
	  { { { 0x00, 0x05, 0, 0, 0, 0, 0, 0 }, 0, { 0 } }, { GET_CONFIG, STALL, { 0 } } } },
	{ "set address > 127", HS, S_DEFAULT, { { { 0x00, 0x05, 128, 0, 0, 0, 0, 0 }, STALL, { 0 } } } },
	{ "set address with wLength", HS, S_DEFAULT, { { { 0x00, 0x05, 7, 0, 0, 0, 1, 0 }, STALL, { 0 } } } },
	{ "set address, configured", HS, S_CONFIGURED, { { { 0x00, 0x05, 7, 0, 0, 0, 0, 0 }, STALL, { 0 } } } },
	/* SET/GET_CONFIGURATION */
	{ "set config, default", HS, S_DEFAULT, { { SET_CONFIG(1), STALL, { 0 } } } },
	{ "set config, address", HS, S_ADDRESS, { { SET_CONFIG(1), 0, { 0 } }, { GET_CONFIG, 1, { 1 } } } },
	{ "set config again, configured", HS, S_CONFIGURED, { { SET_CONFIG(1), 0, { 0 } },
	  { GET_CONFIG, 1, { 1 } } } },
	{ "set config 0", HS, S_CONFIGURED, { { SET_CONFIG(0), 0, { 0 } }, { GET_CONFIG, 1, { 0 } },
	  { SET_INTF(0, 0), STALL, { 0 } } } },
	{ "set config invalid", HS, S_ADDRESS, { { SET_CONFIG(2), STALL, { 0 } }, { GET_CONFIG, 1, { 0 } } } },
	{ "set config invalid keeps config", HS, S_CONFIGURED, { { SET_CONFIG(9), STALL, { 0 } },
	  { GET_CONFIG, 1, { 1 } } } },
	{ "set config high byte", HS, S_ADDRESS, { { { 0x00, 0x09, 1, 1, 0, 0, 0, 0 }, STALL, { 0 } } } },
	{ "set config IN direction", HS, S_ADDRESS, { { { 0x80, 0x09, 1, 0, 0, 0, 0, 0 }, STALL, { 0 } } } },
	{ "get config, default", HS, S_DEFAULT, { { GET_CONFIG, STALL, { 0 } } } },
	{ "get config, address", HS, S_ADDRESS, { { GET_CONFIG, 1, { 0 } } } },
	{ "get config, configured", HS, S_CONFIGURED, { { GET_CONFIG, 1, { 1 } } } },
	{ "get config, wLength 0", HS, S_CONFIGURED, { { { 0x80, 0x08, 0, 0, 0, 0, 0, 0 }, STALL, { 0 } } } },
	{ "get config, OUT direction", HS, S_CONFIGURED, { { { 0x00, 0x08, 0, 0, 0, 0, 1, 0 }, STALL, { 0 } } } },
	/* SET/GET_INTERFACE */
	{ "set interface, address", HS, S_ADDRESS, { { SET_INTF(0, 0), STALL, { 0 } } } },
	{ "set interface, configured", HS, S_CONFIGURED, { { SET_INTF(0, 0), 0, { 0 } },
	  { GET_INTF(0), 1, { 0 } } } },
	{ "set interface, no such alt", HS, S_CONFIGURED, { { SET_INTF(0, 1), STALL, { 0 } } } },
	{ "set interface, no such interface", HS, S_CONFIGURED, { { SET_INTF(3, 0), STALL, { 0 } } } },
	{ "get interface, address", HS, S_ADDRESS, { { GET_INTF(0), STALL, { 0 } } } },
	{ "get interface, bad interface", HS, S_CONFIGURED, { { GET_INTF(1), STALL, { 0 } } } },
	{ "get interface, wLength 0", HS, S_CONFIGURED, { { { 0x81, 0x0a, 0, 0, 0, 0, 0, 0 }, STALL, { 0 } } } },
	/* GET_STATUS */
	{ "status device, default", HS, S_DEFAULT, { { GET_STATUS(0, 0), STALL, { 0 } } } },
	{ "status device, address", HS, S_ADDRESS, { { GET_STATUS(0, 0), 2, { 0, 0 } } } },
	{ "status device, configured", HS, S_CONFIGURED, { { GET_STATUS(0, 0), 2, { 0, 0 } } } },
	{ "status device, wLength 1", HS, S_ADDRESS, { { { 0x80, 0, 0, 0, 0, 0, 1, 0 }, STALL, { 0 } } } },
	{ "status device, wValue set", HS, S_ADDRESS, { { { 0x80, 0, 1, 0, 0, 0, 2, 0 }, STALL, { 0 } } } },
	{ "status device, wIndex set", HS, S_ADDRESS, { { GET_STATUS(0, 1), STALL, { 0 } } } },
	{ "status interface, address", HS, S_ADDRESS, { { GET_STATUS(1, 0), STALL, { 0 } } } },
	{ "status interface, configured", HS, S_CONFIGURED, { { GET_STATUS(1, 0), 2, { 0, 0 } } } },
	{ "status interface, unknown", HS, S_CONFIGURED, { { GET_STATUS(1, 5), STALL, { 0 } } } },
	{ "status ep0, address", HS, S_ADDRESS, { { GET_STATUS(2, 0x80), 2, { 0, 0 } } } },
	{ "status ep 0x81, address", HS, S_ADDRESS, { { GET_STATUS(2, 0x81), STALL, { 0 } } } },
	{ "status ep 0x81, configured", HS, S_CONFIGURED, { { GET_STATUS(2, 0x81), 2, { 0, 0 } } } },
	{ "status ep 0x83, configured", HS, S_CONFIGURED, { { GET_STATUS(2, 0x83), STALL, { 0 } } } },
	{ "status ep 0x01 (wrong dir)", HS, S_CONFIGURED, { { GET_STATUS(2, 0x01), STALL, { 0 } } } },
	{ "status other recipient", HS, S_CONFIGURED, { { GET_STATUS(3, 0), STALL, { 0 } } } },
	/* features */
	{ "halt and clear ep", HS, S_CONFIGURED, { { SET_FEATURE(2, 0, 0x81), 0, { 0 } },
	  { GET_STATUS(2, 0x81), 2, { 1, 0 } }, { CLEAR_FEATURE(2, 0, 0x81), 0, { 0 } },
	  { GET_STATUS(2, 0x81), 2, { 0, 0 } } } },
	{ "halt ep, address", HS, S_ADDRESS, { { SET_FEATURE(2, 0, 0x81), STALL, { 0 } } } },
	{ "halt ep0 is accepted", HS, S_ADDRESS, { { SET_FEATURE(2, 0, 0x00), 0, { 0 } },
	  { GET_STATUS(2, 0), 2, { 0, 0 } } } },
	{ "halt unknown ep", HS, S_CONFIGURED, { { SET_FEATURE(2, 0, 0x85), STALL, { 0 } } } },
	{ "ep feature not halt", HS, S_CONFIGURED, { { SET_FEATURE(2, 1, 0x81), STALL, { 0 } } } },
	{ "remote wakeup", WAKE, S_ADDRESS, { { SET_FEATURE(0, 1, 0), 0, { 0 } },
	  { GET_STATUS(0, 0), 2, { 2, 0 } }, { CLEAR_FEATURE(0, 1, 0), 0, { 0 } },
	  { GET_STATUS(0, 0), 2, { 0, 0 } } } },
	{ "remote wakeup, default", WAKE, S_DEFAULT, { { SET_FEATURE(0, 1, 0), STALL, { 0 } } } },
	{ "remote wakeup not declared", HS, S_ADDRESS, { { SET_FEATURE(0, 1, 0), STALL, { 0 } },
	  { GET_STATUS(0, 0), 2, { 0, 0 } }, { CLEAR_FEATURE(0, 1, 0), 0, { 0 } } } },
	{ "remote wakeup not declared, configured", HS, S_CONFIGURED,
	  { { SET_FEATURE(0, 1, 0), STALL, { 0 } }, { GET_STATUS(0, 0), 2, { 0, 0 } } } },
	{ "unknown device feature", HS, S_CONFIGURED, { { SET_FEATURE(0, 7, 0), STALL, { 0 } } } },
	{ "test mode, default", HS, S_DEFAULT, { { SET_FEATURE(0, 2, 0x0400), 0, { 0 } } } },
	{ "test mode, bad selector", HS, S_ADDRESS, { { SET_FEATURE(0, 2, 0x0900), STALL, { 0 } } } },
	{ "test mode, low byte set", HS, S_ADDRESS, { { SET_FEATURE(0, 2, 0x0401), STALL, { 0 } } } },
	{ "clear test mode", HS, S_ADDRESS, { { CLEAR_FEATURE(0, 2, 0x0400), STALL, { 0 } } } },
	{ "feature with wLength", HS, S_CONFIGURED, { { { 0x00, 0x03, 1, 0, 0, 0, 2, 0 }, STALL, { 0 } } } },
	{ "interface feature", HS, S_CONFIGURED, { { SET_FEATURE(1, 0, 0), STALL, { 0 } } } },
	/* other standard requests */
	{ "synch frame", HS, S_CONFIGURED, { { { 0x82, 0x0c, 0, 0, 0x81, 0, 2, 0 }, STALL, { 0 } } } },
	{ "unknown standard request", HS, S_CONFIGURED, { { { 0x80, 0x42, 0, 0, 0, 0, 2, 0 }, STALL, { 0 } } } },
	{ "set sel below SuperSpeed", HS, S_CONFIGURED, { { { 0x00, 0x30, 0, 0, 0, 0, 6, 0 }, STALL, { 0 } } } },
	{ "set isoch delay at SuperSpeed", SS, S_ADDRESS, { { { 0x00, 0x31, 40, 0, 0, 0, 0, 0 }, 0, { 0 } } } },
	{ "set sel at SuperSpeed", SS, S_ADDRESS, { { { 0x00, 0x30, 0, 0, 0, 0, 6, 0 }, 6, { 0 } } } },
	{ "reserved type", HS, S_CONFIGURED, { { { 0xe0, 0x00, 0, 0, 0, 0, 2, 0 }, STALL, { 0 } } } },
	/* the remaining state combinations */
	{ "set interface, default", HS, S_DEFAULT, { { SET_INTF(0, 0), STALL, { 0 } } } },
	{ "get interface, default", HS, S_DEFAULT, { { GET_INTF(0), STALL, { 0 } } } },
	{ "status interface, default", HS, S_DEFAULT, { { GET_STATUS(1, 0), STALL, { 0 } } } },
	{ "status ep0, default", HS, S_DEFAULT, { { GET_STATUS(2, 0), STALL, { 0 } } } },
	{ "status ep0, configured", HS, S_CONFIGURED, { { GET_STATUS(2, 0), 2, { 0, 0 } } } },
	{ "clear halt, default", HS, S_DEFAULT, { { CLEAR_FEATURE(2, 0, 0x81), STALL, { 0 } } } },
	{ "clear halt ep0, address", HS, S_ADDRESS, { { CLEAR_FEATURE(2, 0, 0), 0, { 0 } } } },
	{ "clear halt, not halted", HS, S_CONFIGURED, { { CLEAR_FEATURE(2, 0, 0x02), 0, { 0 } },
	  { GET_STATUS(2, 0x02), 2, { 0, 0 } } } },
	{ "remote wakeup, configured", WAKE, S_CONFIGURED, { { SET_FEATURE(0, 1, 0), 0, { 0 } },
	  { GET_STATUS(0, 0), 2, { 2, 0 } } } },
	{ "back to default by SET_ADDRESS 0", WAKE, S_ADDRESS, { { SET_FEATURE(0, 1, 0), 0, { 0 } },
	  { SET_ADDRESS_0, 0, { 0 } }, { GET_STATUS(0, 0), STALL, { 0 } },
	  { GET_DESC(1, 0, 0, 18), 18, { DEV_HS } } } },
	{ "test mode, configured", HS, S_CONFIGURED, { { SET_FEATURE(0, 2, 0x0100), 0, { 0 } } } },
	{ "test mode, vendor selector", HS, S_ADDRESS, { { SET_FEATURE(0, 2, 0xc000), 0, { 0 } } } },
	{ "string, configured", HS, S_CONFIGURED, { { GET_DESC(3, 2, 0x0409, 255), 12,
	  { 0x0c, 0x03, 'T', 0, 'h', 0, 'i', 0, 'n', 0, 'g', 0 } } } },
	{ "qualifier, default", HS, S_DEFAULT, { { GET_DESC(6, 0, 0, 10), 10, { QUALIFIER } } } },
	{ "other speed, configured", HS, S_CONFIGURED, { { GET_DESC(7, 0, 0, 255), 32, { OTHER_FS } } } },
	{ "BOS, default", LPM, S_DEFAULT, { { GET_DESC(0x0f, 0, 0, 5), 5,
	  { 0x05, 0x0f, 0x0c, 0x00, 0x01 } } } },
	{ "set isoch delay, default", SS, S_DEFAULT, { { { 0x00, 0x31, 40, 0, 0, 0, 0, 0 }, STALL, { 0 } } } },
	/* class and vendor routing */
	{ "vendor to interface", HS, S_CONFIGURED, { { { 0xc1, TF_VENDOR_IN, 5, 0, 0, 0, 64, 0 }, 5,
	  { 0, 1, 2, 3, 4 } } } },
	{ "vendor to interface, truncated", HS, S_CONFIGURED,
	  { { { 0xc1, TF_VENDOR_IN, 5, 0, 0, 0, 3, 0 }, 3, { 0, 1, 2 } } } },
	{ "vendor to interface, unconfigured", HS, S_ADDRESS,
	  { { { 0xc1, TF_VENDOR_IN, 5, 0, 0, 0, 64, 0 }, STALL, { 0 } } } },
	{ "vendor to unknown interface", HS, S_CONFIGURED,
	  { { { 0xc1, TF_VENDOR_IN, 5, 0, 4, 0, 64, 0 }, STALL, { 0 } } } },
	{ "vendor to interface, high wIndex", HS, S_CONFIGURED,
	  { { { 0xc1, TF_VENDOR_IN, 5, 0, 0, 1, 64, 0 }, STALL, { 0 } } } },
	{ "vendor to endpoint", HS, S_CONFIGURED, { { { 0xc2, TF_VENDOR_IN, 3, 0, 0x02, 0, 8, 0 }, 3,
	  { 0, 1, 2 } } } },
	{ "vendor to foreign endpoint", HS, S_CONFIGURED,
	  { { { 0xc2, TF_VENDOR_IN, 3, 0, 0x03, 0, 8, 0 }, STALL, { 0 } } } },
	{ "vendor to device, unclaimed", HS, S_CONFIGURED,
	  { { { 0xc0, TF_VENDOR_IN, 3, 0, 0, 0, 8, 0 }, STALL, { 0 } } } },
	{ "vendor request the function refuses", HS, S_CONFIGURED,
	  { { { 0xc1, 0x77, 0, 0, 0, 0, 8, 0 }, STALL, { 0 } } } },
	{ "class request, delayed status", HS, S_CONFIGURED,
	  { { { 0x21, TF_CLASS_DELAY, 0, 0, 0, 0, 0, 0 }, PENDING, { 0 } } } },
	{ "vendor OUT data", HS, S_CONFIGURED, { { { 0x41, TF_VENDOR_OUT, 0, 0, 0, 0, 4, 0 }, 4, { 0 } } } },
};


#define N_TRANSCRIPTS (sizeof(transcripts) / sizeof(transcripts[0]))

/* Unused steps are all zero after the first. */
static inline int step_used(const struct transcript *t, unsigned s)
{
	const struct step *st = &t->steps[s];

	return s == 0 || st->setup[0] || st->setup[1] || st->expect;
}

#endif /* TEST_CORE_EP0_TABLE_H */
