/*
 * composite.c - the composite device's life: binding a driver to a UDC
 * (usb_composite_probe/unregister), adding and removing configurations and
 * functions, interface ids, the ep0 request, delayed status, function
 * (de)activation and bus events. It owns struct usb_composite_dev and the
 * private fields of configurations and functions; it calls the driver's,
 * configurations' and functions' callbacks and the gadget's ops.
 */
#include <assert.h>
#include <stdatomic.h>
#include <string.h>

#include "core.h"
#include "port/alloc.h"

_Static_assert(USB_COMP_EP0_BUFSIZ >= 64 && USB_COMP_EP0_BUFSIZ <= 65535,
	       "USB_COMP_EP0_BUFSIZ: at least one 64-byte packet, at most wLength's range");

/* ---- ep0 request ------------------------------------------------------ */

/* Completion of the core's own ep0 transfers: actions that chapter 9 puts
 * after the status stage. */
static void ep0_complete(struct usb_ep *ep, struct usb_request *req)
{
	struct usb_composite_dev *cdev = req->context;
	struct usb_gadget *g = cdev->gadget;

	(void)ep;
	if (req->status != 0) {
		cdev->address_pending = false;
		cdev->test_mode_pending = false;
		if (req->status != -USB_ECONNRESET && req->status != -USB_ESHUTDOWN)
			composite__warn("ep0 request failed: %s", usb_strerror(req->status));
		return;
	}
	if (cdev->address_pending) {
		cdev->address_pending = false;
		if (g->ops->set_address)
			(void)g->ops->set_address(g, cdev->pending_address);
	}
	if (cdev->test_mode_pending) {
		cdev->test_mode_pending = false;
		if (g->ops->test_mode)
			(void)g->ops->test_mode(g, cdev->test_selector);
	}
}

void composite__ep0_prepare(struct usb_composite_dev *cdev)
{
	struct usb_request *req = cdev->req;

	req->buf = cdev->ep0_buf;
	req->length = 0;
	req->zero = 0;
	req->short_not_ok = 0;
	req->complete = ep0_complete;
	req->context = cdev;
}

int composite__ep0_queue(struct usb_composite_dev *cdev, unsigned length)
{
	struct usb_request *req = cdev->req;
	unsigned mp = cdev->gadget->ep0->maxpacket;

	if (length > cdev->ep0_w_length)
		length = cdev->ep0_w_length;
	req->length = length;
	/* A reply shorter than asked ends with a short packet: a ZLP if it
	 * filled its last packet. */
	req->zero = length && length < cdev->ep0_w_length && mp && length % mp == 0;
	return usb_ep_queue(cdev->gadget->ep0, req, USB_GFP_ATOMIC);
}

void usb_composite_setup_continue(struct usb_composite_dev *cdev)
{
	unsigned v;

	if (!cdev)
		return;
	v = atomic_load(&cdev->delayed_status);
	do {
		if (v == 0) {
			composite__warn("usb_composite_setup_continue() without a delayed request");
			return;
		}
	} while (!atomic_compare_exchange_weak(&cdev->delayed_status, &v, v - 1u));
	/* The last one sends the status stage; while the SETUP is still being
	 * dispatched (guard set) the dispatcher does it. */
	if (v - 1u == 0) {
		int ret;

		cdev->ep0_w_length = 0;
		composite__ep0_prepare(cdev);
		ret = composite__ep0_queue(cdev, 0);
		if (ret)
			composite__warn("delayed status not sent: %s", usb_strerror(ret));
	}
}

/* ---- configuration state ---------------------------------------------- */

struct usb_configuration *composite__find_config(struct usb_composite_dev *cdev, unsigned value)
{
	struct usb_configuration *c;

	if (value == 0)
		return NULL;
	list_for_each_entry_t(c, &cdev->configs, struct usb_configuration, list)
		if (c->bConfigurationValue == value)
			return c;
	return NULL;
}

struct usb_configuration *composite__config_at(struct usb_composite_dev *cdev, unsigned index)
{
	struct usb_configuration *c;

	list_for_each_entry_t(c, &cdev->configs, struct usb_configuration, list)
		if (index-- == 0)
			return c;
	return NULL;
}

unsigned composite__count_configs(const struct usb_composite_dev *cdev)
{
	const struct list_head *pos;
	unsigned n = 0;

	list_for_each(pos, &cdev->configs)
		n++;
	return n;
}

void composite__disable_config(struct usb_composite_dev *cdev)
{
	struct usb_configuration *c = cdev->config;
	struct usb_function *f;

	if (!c)
		return;
	/* NULL first: a disable callback asking for the configuration sees
	 * that it is going away. */
	cdev->config = NULL;
	list_for_each_entry_t(f, &c->functions, struct usb_function, list)
		f->disable(f);
}

void composite__event(struct usb_composite_dev *cdev, enum usb_gadget_event event)
{
	struct usb_gadget *g = cdev->gadget;
	struct usb_function *f;

	switch (event) {
	case USB_GADGET_EVENT_RESET:
	case USB_GADGET_EVENT_DISCONNECT:
		atomic_store(&cdev->delayed_status, 0u);
		cdev->address_pending = false;
		cdev->test_mode_pending = false;
		composite__disable_config(cdev);
		g->remote_wakeup_armed = 0;
		cdev->suspended = 0;
		g->state = event == USB_GADGET_EVENT_RESET ? USB_STATE_DEFAULT
							    : USB_STATE_NOTATTACHED;
		if (cdev->driver->disconnect)
			cdev->driver->disconnect(cdev);
		break;
	case USB_GADGET_EVENT_SUSPEND:
		if (cdev->suspended)
			break;
		cdev->suspended = 1;
		if (cdev->config)
			list_for_each_entry_t(f, &cdev->config->functions, struct usb_function, list)
				if (f->suspend)
					f->suspend(f);
		if (cdev->driver->suspend)
			cdev->driver->suspend(cdev);
		break;
	case USB_GADGET_EVENT_RESUME:
		if (!cdev->suspended)
			break;
		cdev->suspended = 0;
		if (cdev->config)
			list_for_each_entry_t(f, &cdev->config->functions, struct usb_function, list)
				if (f->resume)
					f->resume(f);
		if (cdev->driver->resume)
			cdev->driver->resume(cdev);
		break;
	}
}

/* ---- functions -------------------------------------------------------- */

static void drop_interfaces(struct usb_configuration *c, const struct usb_function *f)
{
	unsigned i, top = 0;

	for (i = 0; i < MAX_CONFIG_INTERFACES; i++) {
		if (c->interface[i] == f)
			c->interface[i] = NULL;
		else if (c->interface[i])
			top = i + 1;
	}
	/* Ids of the last functions can be reused; holes stay holes. */
	c->next_interface_id = (uint8_t)top;
}

static bool function_in(const struct usb_configuration *c, const struct usb_function *f)
{
	const struct usb_function *it;

	list_for_each_entry_t(it, &c->functions, struct usb_function, list)
		if (it == f)
			return true;
	return false;
}

int usb_add_function(struct usb_configuration *config, struct usb_function *function)
{
	int ret;

	if (!config || !function || !config->cdev || !function->name ||
	    !function->bind || !function->set_alt || !function->disable)
		return -USB_EINVAL;
	if (function->config || function_in(config, function))
		return -USB_EINVAL;

	function->config = config;
	function->endpoints = 0;
	list_add_tail(&function->list, &config->functions);
	ret = function->bind(config, function);
	if (ret < 0) {
		list_del_init(&function->list);
		drop_interfaces(config, function);
		function->config = NULL;
		return ret;
	}
	function->endpoints = composite__endpoint_bits(function);
	if (function->fs_descriptors)
		config->fullspeed = 1;
	if (function->hs_descriptors)
		config->highspeed = 1;
	if (function->ss_descriptors || function->ssp_descriptors)
		config->superspeed = 1;
	return 0;
}

void usb_remove_function(struct usb_configuration *c, struct usb_function *f)
{
	struct usb_composite_dev *cdev;

	if (!c || !f || f->config != c || !function_in(c, f))
		return;
	cdev = c->cdev;
	if (cdev && cdev->config == c)
		f->disable(f);
	drop_interfaces(c, f);
	list_del_init(&f->list);
	if (f->unbind)
		f->unbind(c, f);
	if (cdev)
		composite__ep_release_function(cdev->gadget, f);
	/* Copies the function forgot to free in unbind. */
	if (f->descriptors_owned)
		usb_free_all_descriptors(f);
	f->config = NULL;
	f->endpoints = 0;
	/* One of usb_get_function() is its owner's to put, as in Linux. */
	if (f->free_func && !f->fi)
		f->free_func(f);
}

int usb_interface_id(struct usb_configuration *config, struct usb_function *function)
{
	unsigned id;

	if (!config || !function)
		return -USB_EINVAL;
	id = config->next_interface_id;
	if (id >= MAX_CONFIG_INTERFACES)
		return -USB_ENODEV;
	config->interface[id] = function;
	config->next_interface_id = (uint8_t)(id + 1);
	return (int)id;
}

int usb_function_deactivate(struct usb_function *f)
{
	struct usb_composite_dev *cdev = usb_function_cdev(f);
	int ret = 0;

	if (!cdev)
		return -USB_EINVAL;
	if (cdev->deactivations == 0) {
		ret = usb_gadget_disconnect(cdev->gadget);
		if (ret == -USB_EOPNOTSUPP)
			ret = 0;	/* always attached: nothing to hide */
	}
	if (!ret)
		cdev->deactivations++;
	return ret;
}

int usb_function_activate(struct usb_function *f)
{
	struct usb_composite_dev *cdev = usb_function_cdev(f);
	int ret = 0;

	if (!cdev || cdev->deactivations == 0)
		return -USB_EINVAL;
	if (cdev->deactivations == 1) {
		ret = usb_gadget_connect(cdev->gadget);
		if (ret == -USB_EOPNOTSUPP)
			ret = 0;
	}
	if (!ret)
		cdev->deactivations--;
	return ret;
}

/* ---- configurations --------------------------------------------------- */

static void unbind_functions(struct usb_configuration *c)
{
	while (!list_empty(&c->functions))
		usb_remove_function(c, list_first_entry(&c->functions, struct usb_function, list));
}

int usb_add_config_only(struct usb_composite_dev *cdev, struct usb_configuration *config)
{
	struct usb_configuration *c;

	if (!cdev || !config || config->bConfigurationValue == 0)
		return -USB_EINVAL;
	list_for_each_entry_t(c, &cdev->configs, struct usb_configuration, list)
		if (c == config || c->bConfigurationValue == config->bConfigurationValue)
			return -USB_EINVAL;
	config->cdev = cdev;
	INIT_LIST_HEAD(&config->functions);
	config->next_interface_id = 0;
	config->superspeed = config->highspeed = config->fullspeed = 0;
	memset(config->interface, 0, sizeof(config->interface));
	config->label_id = 0;
	list_add_tail(&config->list, &cdev->configs);
	return 0;
}

int usb_add_config(struct usb_composite_dev *cdev, struct usb_configuration *config,
		   int (*bind)(struct usb_configuration *))
{
	int ret;

	if (!bind && config)
		bind = config->bind;
	if (!bind)
		return -USB_EINVAL;
	ret = usb_add_config_only(cdev, config);
	if (ret)
		return ret;
	ret = bind(config);
	if (ret >= 0)
		ret = composite__os_desc_check_config(cdev, config);
	if (ret < 0) {
		unbind_functions(config);
		list_del_init(&config->list);
		config->cdev = NULL;
		return ret;
	}
	if (config->label && config->iConfiguration == 0) {
		int id = usb_string_id(cdev);

		if (id > 0)
			config->label_id = (uint8_t)id;
	}
	/* Endpoints may be shared between configurations: only one is active
	 * at a time. The next configuration's functions may claim them again. */
	usb_ep_autoconfig_reset(cdev->gadget);
	return 0;
}

void usb_remove_config(struct usb_composite_dev *cdev, struct usb_configuration *config)
{
	struct usb_configuration *c;
	bool found = false;

	if (!cdev || !config)
		return;
	list_for_each_entry_t(c, &cdev->configs, struct usb_configuration, list)
		if (c == config)
			found = true;
	if (!found)
		return;
	if (cdev->config == config) {
		composite__disable_config(cdev);
		if (cdev->gadget->state == USB_STATE_CONFIGURED)
			cdev->gadget->state = USB_STATE_ADDRESS;
	}
	unbind_functions(config);
	list_del_init(&config->list);
	if (config->unbind)
		config->unbind(config);
	config->cdev = NULL;
}

/* ---- probe and unregister --------------------------------------------- */

static void set_driver_strings(struct usb_composite_dev *cdev)
{
	struct usb_composite_driver *d = cdev->driver;
	const char *texts[3] = { d->iManufacturer, d->iProduct, d->iSerialNumber };
	uint8_t *ids[3] = { &cdev->manufacturer_id, &cdev->product_id, &cdev->serial_id };
	unsigned i, n = 0;

	memset(cdev->driver_strings, 0, sizeof(cdev->driver_strings));
	for (i = 0; i < 3; i++) {
		int id;

		if (!texts[i])
			continue;
		id = usb_string_id(cdev);
		if (id < 0)
			break;
		*ids[i] = (uint8_t)id;
		cdev->driver_strings[n].id = (uint8_t)id;
		cdev->driver_strings[n].s = texts[i];
		n++;
	}
	cdev->driver_gstrings.language = USB_LANGID_EN_US;
	cdev->driver_gstrings.strings = cdev->driver_strings;
}

/* Undo everything bound so far; the cdev is freed. */
static void teardown(struct usb_composite_dev *cdev, bool driver_bound)
{
	struct usb_composite_driver *driver = cdev->driver;
	struct usb_gadget *g = cdev->gadget;

	composite__disable_config(cdev);
	while (!list_empty(&cdev->configs))
		usb_remove_config(cdev, list_first_entry(&cdev->configs,
							 struct usb_configuration, list));
	if (driver_bound && driver->unbind)
		driver->unbind(cdev);
	usb_ep_autoconfig_reset(g);
	if (cdev->req) {
		/* ops->stop does not give requests back: take ep0's ourselves. */
		if (atomic_load(&cdev->req->queued))
			(void)usb_ep_dequeue(g->ep0, cdev->req);
		usb_ep_free_request(g->ep0, cdev->req);
	}
	composite__free(cdev->ep0_buf);
	composite__gstrings_free(cdev);
	g->state = USB_STATE_NOTATTACHED;
	g->remote_wakeup_armed = 0;
	composite__udc_release(g);
	driver->cdev = NULL;
	composite__free(cdev);
}

int usb_composite_probe(struct usb_composite_driver *driver)
{
	struct usb_composite_dev *cdev;
	struct usb_gadget *g;
	int ret;

	if (!driver || !driver->bind || !driver->dev)
		return -USB_EINVAL;
	if (driver->cdev)
		return -USB_EBUSY;
	cdev = composite__calloc(1, sizeof(*cdev));
	if (!cdev)
		return -USB_ENOMEM;
	INIT_LIST_HEAD(&cdev->configs);
	INIT_LIST_HEAD(&cdev->gstrings);
	atomic_init(&cdev->delayed_status, 0u);
	cdev->driver = driver;
	memcpy(&cdev->desc, driver->dev, sizeof(cdev->desc));
	cdev->desc.bLength = USB_DT_DEVICE_SIZE;
	cdev->desc.bDescriptorType = USB_DT_DEVICE;

	g = composite__udc_claim(driver->udc_name, cdev);
	if (!g) {
		composite__free(cdev);
		return -USB_ENODEV;
	}
	cdev->gadget = g;
	driver->cdev = cdev;
#ifdef COMPOSITE_NO_SUPERSPEED
	/* Built for full and high speed only: a device that could come up
	 * at SuperSpeed would have no descriptors for it. */
	if (g->max_speed >= USB_SPEED_SUPER &&
	    (driver->max_speed == USB_SPEED_UNKNOWN || driver->max_speed >= USB_SPEED_SUPER)) {
		ret = -USB_EOPNOTSUPP;
		goto fail;
	}
#endif

	cdev->ep0_buf = composite__malloc(USB_COMP_EP0_BUFSIZ);
	cdev->req = usb_ep_alloc_request(g->ep0, USB_GFP_KERNEL);
	if (!cdev->ep0_buf || !cdev->req) {
		ret = -USB_ENOMEM;
		goto fail;
	}
	composite__ep0_prepare(cdev);

	set_driver_strings(cdev);
	ret = driver->bind(cdev);
	if (ret < 0)
		goto fail;
	ret = composite__os_desc_check_device(cdev);
	if (ret < 0) {
		teardown(cdev, true);
		return ret;
	}
	/* Driver fields override what bind put in the descriptor. */
	if (cdev->manufacturer_id)
		cdev->desc.iManufacturer = cdev->manufacturer_id;
	if (cdev->product_id)
		cdev->desc.iProduct = cdev->product_id;
	if (cdev->serial_id)
		cdev->desc.iSerialNumber = cdev->serial_id;
	if (driver->needs_serial && !cdev->desc.iSerialNumber)
		composite__warn("%s: no serial number string",
				driver->name ? driver->name : "driver");

	g->state = USB_STATE_NOTATTACHED;
	cdev->started = true;	/* before start: events may come at once */
	ret = g->ops->start(g);
	if (ret < 0) {
		cdev->started = false;
		teardown(cdev, true);
		return ret;
	}
	/* A function that deactivated itself in bind keeps the device
	 * hidden although start attached it. */
	if (cdev->deactivations)
		(void)usb_gadget_disconnect(g);
	return 0;

fail:
	teardown(cdev, false);
	return ret;
}

int usb_composite_register(struct usb_composite_driver *driver)
{
	return usb_composite_probe(driver);
}

void usb_composite_unregister(struct usb_composite_driver *driver)
{
	struct usb_composite_dev *cdev;
	struct usb_gadget *g;

	if (!driver || !driver->cdev)
		return;
	cdev = driver->cdev;
	g = cdev->gadget;
	if (cdev->started) {
		g->ops->stop(g);
		cdev->started = false;
	}
	teardown(cdev, true);
}
