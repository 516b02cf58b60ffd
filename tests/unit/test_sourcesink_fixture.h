/*
 * test_sourcesink_fixture.h - a Gadget Zero device for the SourceSink and
 * Loopback unit tests: one configuration (value 3) holding the function
 * under test, bound to the scripted backend of fake_udc.h, enumerated the
 * way a host does (device descriptor, address, configuration descriptor,
 * SET_CONFIGURATION). The test then plays the host's bulk side by filling
 * and completing the requests the function queued (fake_ep_complete()).
 */
#ifndef TEST_SOURCESINK_FIXTURE_H
#define TEST_SOURCESINK_FIXTURE_H

#include <stdbool.h>
#include <stdint.h>

#include "composite/composite.h"
#include "composite/f_loopback.h"
#include "composite/sourcesink.h"
#include "fake_udc.h"

#define GZ_CONFIG_VALUE 3

struct gz_dev {
	struct fake_udc udc;
	struct usb_composite_driver driver;
	struct usb_device_descriptor dd;
	struct usb_configuration config;
	bool loopback;			/* the function: Loopback, else SourceSink */
	struct f_ss_opts ss;
	struct f_lb_opts lb;
	struct usb_function *func;
	int bind_ret;			/* what usb_add_function() returned */
	/* from the configuration descriptor, alternate 0 and 1 */
	uint8_t in_addr, out_addr, iso_in_addr, iso_out_addr;
	unsigned num_alts;
	char name[24];
	unsigned long bound_allocs;	/* gz_allocs() right after the bind */
};

/* Allocations so far: the library's (port/alloc.h) and this fake UDC's
 * requests. Equal to d->bound_allocs while nothing is allocated after
 * bind. */
unsigned long gz_allocs(const struct gz_dev *d);

/* Defaults for @d: SourceSink (or Loopback) with the library defaults. */
void gz_init(struct gz_dev *d, bool loopback);

/*
 * Register the fake UDC, probe the driver, reset at @speed, read the
 * descriptors, SET_CONFIGURATION 3. Return: 0, or the first error
 * (probe's, or FAKE_STALL for a stalled request).
 */
int gz_start(struct gz_dev *d, enum usb_device_speed speed);

/* Unregister the driver and the UDC. */
void gz_stop(struct gz_dev *d);

/* cmocka teardown: gz_stop() a device a failed test left started (tests
 * keep their struct gz_dev in static storage for this). */
int gz_teardown(void **state);

/* Standard requests; Return: as fake_ctrl(). */
int gz_set_config(struct gz_dev *d, unsigned value);
int gz_set_interface(struct gz_dev *d, unsigned intf, unsigned alt);
int gz_get_interface(struct gz_dev *d, unsigned intf);
int gz_clear_halt(struct gz_dev *d, uint8_t ep_addr);
int gz_get_descriptor(struct gz_dev *d, uint8_t type, uint8_t index, void *buf,
		      uint16_t len);

/* The fake endpoint with address @addr. */
struct fake_ep *gz_ep(struct gz_dev *d, uint8_t addr);

/* The oldest request queued on @addr, or NULL. */
struct usb_request *gz_head(struct gz_dev *d, uint8_t addr);

/* Parse a configuration descriptor: the endpoint descriptor of alternate
 * @alt with address @addr, or NULL. */
const struct usb_endpoint_descriptor *gz_find_ep_desc(const uint8_t *cfg, unsigned len,
						       unsigned alt, uint8_t addr);

#endif /* TEST_SOURCESINK_FIXTURE_H */
