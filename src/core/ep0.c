/*
 * ep0.c - control requests on ep0: every chapter 9 standard request the
 * device answers itself, in the states chapter 9 allows them, and the
 * routing of class and vendor requests to the function that owns the
 * interface or endpoint (then req_match, then the configuration's setup),
 * after the OS descriptor requests (os_desc.c) have had their pick.
 * It validates all 8 bytes of each SETUP; anything it does not accept
 * stalls. It touches the gadget's state and flags, cdev->config (through
 * composite.c) and cdev->req.
 */
#include <stdatomic.h>

#include "core.h"

/* Outcomes of a request handler besides a reply length (>= 0). */
#define STATUS_ONLY	(-1000)	/* no data: queue the zero-length status */
#define QUEUED		(-1001)	/* a callback queued (or will queue) the request */
#define NOT_STANDARD	(-1002)	/* not for the core: route to a function */

struct setup {
	uint8_t type, recip;
	bool in;
	uint8_t req;
	uint16_t value, index, length;
	bool delayed;	/* a callback returned USB_GADGET_DELAYED_STATUS */
};

static enum usb_device_state state(const struct usb_composite_dev *cdev)
{
	return cdev->gadget->state;
}

/* Map a callback's return value. */
static int callback_result(struct usb_composite_dev *cdev, struct setup *s, int v)
{
	if (v == USB_GADGET_DELAYED_STATUS) {
		atomic_fetch_add(&cdev->delayed_status, 1u);
		s->delayed = true;
		return QUEUED;
	}
	return v < 0 ? v : QUEUED;
}

/* The endpoint a standard request addresses, if it belongs to the
 * current configuration (or is ep0). */
static struct usb_ep *request_ep(struct usb_composite_dev *cdev, uint16_t index,
				 struct usb_function **owner)
{
	struct usb_function *f;
	struct usb_ep *ep;
	unsigned bit;

	*owner = NULL;
	if (index & 0xff70)
		return NULL;	/* reserved bits set */
	if ((index & 0x0f) == 0)
		return cdev->gadget->ep0;
	if (!cdev->config)
		return NULL;
	bit = ((index & USB_DIR_IN) ? 0x10u : 0u) | (index & 0x0fu);
	list_for_each_entry_t(f, &cdev->config->functions, struct usb_function, list) {
		if (f->endpoints & (1u << bit)) {
			*owner = f;
			ep = usb_gadget_find_ep(cdev->gadget, (uint8_t)index);
			return ep;
		}
	}
	return NULL;
}

static struct usb_function *request_intf(struct usb_composite_dev *cdev, uint16_t index)
{
	if (!cdev->config || index >= MAX_CONFIG_INTERFACES)
		return NULL;
	return cdev->config->interface[index];
}

/* ---- GET_DESCRIPTOR ------------------------------------------------------ */

static int get_descriptor(struct usb_composite_dev *cdev, struct setup *s)
{
	uint8_t *buf = cdev->ep0_buf;
	uint8_t type = (uint8_t)(s->value >> 8), index = (uint8_t)s->value;
	enum usb_device_speed speed = composite__speed(cdev);
	struct usb_configuration *c;

	if (!s->in)
		return -USB_EPIPE;
	if (s->recip != USB_RECIP_DEVICE)
		return NOT_STANDARD;	/* HID and friends: the function's */
	if (type != USB_DT_STRING && s->index != 0)
		return -USB_EPIPE;

	switch (type) {
	case USB_DT_DEVICE:
		if (index)
			return -USB_EPIPE;
		return composite__device_desc(cdev, buf, USB_COMP_EP0_BUFSIZ);
	case USB_DT_CONFIG:
		c = composite__config_at(cdev, index);
		if (!c)
			return -USB_EPIPE;
		return composite__config_desc(cdev, c, speed, USB_DT_CONFIG, buf,
					      USB_COMP_EP0_BUFSIZ);
	case USB_DT_OTHER_SPEED_CONFIG:
		if (!composite__dualspeed(cdev) || composite__super(speed))
			return -USB_EPIPE;
		c = composite__config_at(cdev, index);
		if (!c)
			return -USB_EPIPE;
		return composite__config_desc(cdev, c,
					      speed == USB_SPEED_HIGH ? USB_SPEED_FULL
								      : USB_SPEED_HIGH,
					      USB_DT_OTHER_SPEED_CONFIG, buf,
					      USB_COMP_EP0_BUFSIZ);
	case USB_DT_DEVICE_QUALIFIER:
		if (index || !composite__dualspeed(cdev) || composite__super(speed))
			return -USB_EPIPE;
		return composite__qualifier_desc(cdev, buf, USB_COMP_EP0_BUFSIZ);
	case USB_DT_STRING:
		/* Windows asks for the OS string with LANGID 0, as Linux answers. */
		if (cdev->use_os_string && index == OS_STRING_IDX && s->index == 0)
			return composite__os_string_desc(cdev, buf, USB_COMP_EP0_BUFSIZ);
		return composite__string_desc(cdev, s->index, index, buf, USB_COMP_EP0_BUFSIZ);
	case USB_DT_BOS:
		if (index || !composite__has_bos(cdev))
			return -USB_EPIPE;
		return composite__bos_desc(cdev, buf, USB_COMP_EP0_BUFSIZ);
	default:
		return -USB_EPIPE;
	}
}

/* ---- configuration and interface ----------------------------------------- */

static int set_configuration(struct usb_composite_dev *cdev, struct setup *s)
{
	struct usb_gadget *g = cdev->gadget;
	struct usb_configuration *c = NULL;
	unsigned i;

	if (s->in || s->recip != USB_RECIP_DEVICE || s->index || s->length ||
	    (s->value >> 8))
		return -USB_EPIPE;
	if (state(cdev) != USB_STATE_ADDRESS && state(cdev) != USB_STATE_CONFIGURED)
		return -USB_EPIPE;
	if (s->value) {
		c = composite__find_config(cdev, s->value);
		if (!c)
			return -USB_EPIPE;
	}
	/* Even the same value: alternates and data toggles start afresh. */
	composite__disable_config(cdev);
	if (!c) {
		g->state = USB_STATE_ADDRESS;
		return STATUS_ONLY;
	}
	cdev->config = c;
	g->state = USB_STATE_CONFIGURED;
	for (i = 0; i < MAX_CONFIG_INTERFACES; i++) {
		struct usb_function *f = c->interface[i];
		int v;

		if (!f)
			continue;
		v = callback_result(cdev, s, f->set_alt(f, i, 0));
		if (v < 0 && v != QUEUED) {
			composite__disable_config(cdev);
			g->state = USB_STATE_ADDRESS;
			return v;
		}
	}
	(void)usb_gadget_vbus_draw(g, c->MaxPower ? c->MaxPower : COMPOSITE__DEFAULT_MA);
	return s->delayed ? QUEUED : STATUS_ONLY;
}

static int get_configuration(struct usb_composite_dev *cdev, struct setup *s)
{
	uint8_t *buf = cdev->ep0_buf;

	if (!s->in || s->recip != USB_RECIP_DEVICE || s->value || s->index ||
	    s->length < 1)
		return -USB_EPIPE;
	if (state(cdev) != USB_STATE_ADDRESS && state(cdev) != USB_STATE_CONFIGURED)
		return -USB_EPIPE;
	buf[0] = cdev->config ? cdev->config->bConfigurationValue : 0;
	return 1;
}

static int set_interface(struct usb_composite_dev *cdev, struct setup *s)
{
	struct usb_function *f;

	if (s->in || s->recip != USB_RECIP_INTERFACE || s->length ||
	    state(cdev) != USB_STATE_CONFIGURED)
		return -USB_EPIPE;
	f = request_intf(cdev, s->index);
	if (!f || s->value > 0xff)
		return -USB_EPIPE;
	/* Without get_alt a function has only alternate 0. */
	if (s->value && !f->get_alt)
		return -USB_EPIPE;
	if (!composite__has_alt(f, composite__speed(cdev), s->index, s->value))
		return -USB_EPIPE;
	return callback_result(cdev, s, f->set_alt(f, s->index, s->value)) == QUEUED
		? (s->delayed ? QUEUED : STATUS_ONLY)
		: -USB_EPIPE;
}

static int get_interface(struct usb_composite_dev *cdev, struct setup *s)
{
	uint8_t *buf = cdev->ep0_buf;
	struct usb_function *f;
	int alt = 0;

	if (!s->in || s->recip != USB_RECIP_INTERFACE || s->value || s->length < 1 ||
	    state(cdev) != USB_STATE_CONFIGURED)
		return -USB_EPIPE;
	f = request_intf(cdev, s->index);
	if (!f)
		return -USB_EPIPE;
	if (f->get_alt) {
		alt = f->get_alt(f, s->index);
		if (alt < 0 || alt > 0xff)
			return -USB_EPIPE;
	}
	buf[0] = (uint8_t)alt;
	return 1;
}

/* ---- status and features --------------------------------------------------- */

static bool addressed(const struct usb_composite_dev *cdev)
{
	return state(cdev) == USB_STATE_ADDRESS || state(cdev) == USB_STATE_CONFIGURED;
}

/*
 * Remote wakeup is a feature the device can only have if a configuration
 * declares it (bmAttributes); setting it otherwise is a request error
 * (USB 2.0 9.4.9), so the host learns the truth instead of arming nothing.
 */
static bool can_remote_wakeup(const struct usb_composite_dev *cdev)
{
	const struct usb_configuration *c;

	if (cdev->config)
		return (cdev->config->bmAttributes & USB_CONFIG_ATT_WAKEUP) != 0;
	list_for_each_entry_t(c, &cdev->configs, struct usb_configuration, list)
		if (c->bmAttributes & USB_CONFIG_ATT_WAKEUP)
			return true;
	return false;
}

static int get_status(struct usb_composite_dev *cdev, struct setup *s)
{
	uint8_t *buf = cdev->ep0_buf;
	struct usb_gadget *g = cdev->gadget;
	struct usb_function *owner;
	struct usb_ep *ep;
	unsigned v = 0;

	if (!s->in || s->value || s->length < 2 || !addressed(cdev))
		return -USB_EPIPE;
	switch (s->recip) {
	case USB_RECIP_DEVICE:
		if (s->index)
			return -USB_EPIPE;
		if (g->is_selfpowered ||
		    (cdev->config && (cdev->config->bmAttributes & USB_CONFIG_ATT_SELFPOWER)))
			v |= 1u << USB_DEVICE_SELF_POWERED;
		if (g->remote_wakeup_armed)
			v |= 1u << USB_DEVICE_REMOTE_WAKEUP;
		break;
	case USB_RECIP_INTERFACE:
		if (state(cdev) != USB_STATE_CONFIGURED || !request_intf(cdev, s->index))
			return -USB_EPIPE;
		break;
	case USB_RECIP_ENDPOINT:
		ep = request_ep(cdev, s->index, &owner);
		if (!ep)
			return -USB_EPIPE;
		if (ep != g->ep0 && usb_ep_is_halted(ep))
			v = 1;
		break;
	default:
		return -USB_EPIPE;
	}
	usb_put_le16(buf, (uint16_t)v);
	return 2;
}

static int feature(struct usb_composite_dev *cdev, struct setup *s, bool set)
{
	struct usb_gadget *g = cdev->gadget;
	struct usb_function *owner;
	struct usb_ep *ep;

	if (s->in || s->length)
		return -USB_EPIPE;
	switch (s->recip) {
	case USB_RECIP_DEVICE:
		if (s->value == USB_DEVICE_TEST_MODE) {
			unsigned sel = s->index >> 8;

			/* Test mode is allowed in every state, and only entered. */
			if (!set || (s->index & 0xff) || !g->ops->test_mode ||
			    !((sel >= USB_TEST_J && sel <= USB_TEST_FORCE_ENABLE) || sel >= 0xc0))
				return -USB_EPIPE;
			cdev->test_mode_pending = true;
			cdev->test_selector = (uint8_t)sel;
			return STATUS_ONLY;
		}
		if (!addressed(cdev) || s->index)
			return -USB_EPIPE;
		if (s->value == USB_DEVICE_REMOTE_WAKEUP) {
			if (set && !can_remote_wakeup(cdev))
				return -USB_EPIPE;
			g->remote_wakeup_armed = set ? 1u : 0u;
			return STATUS_ONLY;
		}
		if ((s->value == USB_DEVICE_U1_ENABLE || s->value == USB_DEVICE_U2_ENABLE ||
		     s->value == USB_DEVICE_LTM_ENABLE) &&
		    composite__super(composite__speed(cdev)) &&
		    state(cdev) == USB_STATE_CONFIGURED)
			return STATUS_ONLY;	/* link power states: nothing to do here */
		return -USB_EPIPE;
	case USB_RECIP_ENDPOINT:
		if (s->value != USB_ENDPOINT_HALT || !addressed(cdev))
			return -USB_EPIPE;
		ep = request_ep(cdev, s->index, &owner);
		if (!ep)
			return -USB_EPIPE;
		if (ep != g->ep0 && !ep->enabled)
			return -USB_EPIPE;	/* not in the current alternate setting */
		return composite__ep_host_halt(ep, set) ? -USB_EPIPE : STATUS_ONLY;
	default:
		/* Interface features (USB 3 function suspend): not offered. */
		return -USB_EPIPE;
	}
}

static int set_address(struct usb_composite_dev *cdev, struct setup *s)
{
	struct usb_gadget *g = cdev->gadget;

	if (s->in || s->recip != USB_RECIP_DEVICE || s->index || s->length ||
	    s->value > 127)
		return -USB_EPIPE;
	if (state(cdev) != USB_STATE_DEFAULT && state(cdev) != USB_STATE_ADDRESS)
		return -USB_EPIPE;	/* configured: not allowed */
	g->state = s->value ? USB_STATE_ADDRESS : USB_STATE_DEFAULT;
	cdev->address_pending = true;
	cdev->pending_address = (uint8_t)s->value;
	return STATUS_ONLY;
}

/* USB 3 enumeration requests: accepted (and ignored) at SuperSpeed. */
static int usb3_request(struct usb_composite_dev *cdev, struct setup *s)
{
	if (!composite__super(composite__speed(cdev)) || s->in ||
	    s->recip != USB_RECIP_DEVICE || s->index || !addressed(cdev))
		return -USB_EPIPE;
	if (s->req == USB_REQ_SET_ISOCH_DELAY)
		return s->length ? -USB_EPIPE : STATUS_ONLY;
	/* SET_SEL: six bytes of exit latencies, received and dropped. */
	if (s->value || s->length != 6)
		return -USB_EPIPE;
	cdev->req->length = 6;
	return usb_ep_queue(cdev->gadget->ep0, cdev->req, USB_GFP_ATOMIC) ? -USB_EPIPE : QUEUED;
}

static int standard(struct usb_composite_dev *cdev, struct setup *s)
{
	/* Default state: only what enumeration needs (chapter 9 leaves the
	 * rest unspecified; we stall). */
	if (state(cdev) == USB_STATE_DEFAULT && s->req != USB_REQ_GET_DESCRIPTOR &&
	    s->req != USB_REQ_SET_ADDRESS &&
	    !(s->req == USB_REQ_SET_FEATURE && s->recip == USB_RECIP_DEVICE &&
	      s->value == USB_DEVICE_TEST_MODE))
		return -USB_EPIPE;

	switch (s->req) {
	case USB_REQ_GET_DESCRIPTOR:
		return get_descriptor(cdev, s);
	case USB_REQ_SET_ADDRESS:
		return set_address(cdev, s);
	case USB_REQ_SET_CONFIGURATION:
		return set_configuration(cdev, s);
	case USB_REQ_GET_CONFIGURATION:
		return get_configuration(cdev, s);
	case USB_REQ_SET_INTERFACE:
		return set_interface(cdev, s);
	case USB_REQ_GET_INTERFACE:
		return get_interface(cdev, s);
	case USB_REQ_GET_STATUS:
		return get_status(cdev, s);
	case USB_REQ_CLEAR_FEATURE:
		return feature(cdev, s, false);
	case USB_REQ_SET_FEATURE:
		return feature(cdev, s, true);
	case USB_REQ_SET_SEL:
	case USB_REQ_SET_ISOCH_DELAY:
		return usb3_request(cdev, s);
	case USB_REQ_SYNCH_FRAME:
		/* Isochronous frame sync is the owning function's business. */
		return s->recip == USB_RECIP_ENDPOINT && state(cdev) == USB_STATE_CONFIGURED
			? NOT_STANDARD : -USB_EPIPE;
	default:
		return -USB_EPIPE;	/* SET_DESCRIPTOR and unknown requests */
	}
}

/* ---- routing to functions ------------------------------------------------- */

static int route(struct usb_composite_dev *cdev, struct setup *s,
		 const struct usb_ctrlrequest *ctrl)
{
	struct usb_configuration *c = cdev->config;
	struct usb_function *f = NULL, *it;

	if (s->recip == USB_RECIP_INTERFACE) {
		f = (s->index & 0xff00) ? NULL : request_intf(cdev, s->index);
	} else if (s->recip == USB_RECIP_ENDPOINT) {
		struct usb_function *owner = NULL;

		if (request_ep(cdev, s->index, &owner) && owner)
			f = owner;
	}
	/* Addressed by recipient: the owner's, req_match is not asked. */
	if (f && !f->setup)
		f = NULL;

	if (!f) {
		/* Unconfigured: req_match is asked over the first configuration. */
		struct usb_configuration *mc = c ? c :
			list_first_entry_or_null(&cdev->configs, struct usb_configuration, list);

		if (mc)
			list_for_each_entry_t(it, &mc->functions, struct usb_function, list)
				if (it->setup && it->req_match && it->req_match(it, ctrl, c == NULL)) {
					f = it;
					break;
				}
	}
	if (f)
		return callback_result(cdev, s, f->setup(f, ctrl));
	if (c && c->setup)
		return callback_result(cdev, s, c->setup(c, ctrl));
	return -USB_EPIPE;
}

/* ---- entry --------------------------------------------------------------------- */

int composite__setup(struct usb_composite_dev *cdev, const struct usb_ctrlrequest *ctrl)
{
	const uint8_t *raw = (const uint8_t *)ctrl;
	struct usb_gadget *g = cdev->gadget;
	struct setup s;
	unsigned left;
	int v, ret;

	/* The backend should have given the old request back; make sure. */
	if (atomic_load(&cdev->req->queued))
		(void)usb_ep_dequeue(g->ep0, cdev->req);
	if (g->state < USB_STATE_DEFAULT)
		g->state = USB_STATE_DEFAULT;	/* a SETUP implies a bus reset */

	s.in = (raw[0] & USB_DIR_IN) != 0;
	s.type = raw[0] & USB_TYPE_MASK;
	s.recip = raw[0] & USB_RECIP_MASK;
	s.req = raw[1];
	s.value = usb_get_le16(raw + 2);
	s.index = usb_get_le16(raw + 4);
	s.length = usb_get_le16(raw + 6);
	s.delayed = false;

	cdev->ep0_w_length = s.length;
	cdev->ep0_in_data = s.in;
	cdev->address_pending = false;
	cdev->test_mode_pending = false;
	composite__ep0_prepare(cdev);
	/* A new SETUP abandons any delayed status; the guard holds off
	 * setup_continue() until this dispatch is done. */
	atomic_store(&cdev->delayed_status, COMPOSITE__DELAY_GUARD);

	if (s.type == USB_TYPE_STANDARD)
		v = standard(cdev, &s);
	else if (s.type == USB_TYPE_RESERVED)
		v = -USB_EPIPE;
	else
		v = NOT_STANDARD;
	/* OS descriptors first, as Linux: their wIndex is no recipient's. */
	if (v == NOT_STANDARD && !composite__os_vendor_request(cdev, ctrl, &v))
		v = route(cdev, &s, ctrl);

	/* Drop the guard; what is left are delayed stages still owed. */
	left = atomic_fetch_sub(&cdev->delayed_status, COMPOSITE__DELAY_GUARD);
	if (left < COMPOSITE__DELAY_GUARD) {
		composite__warn("more setup_continue() calls than delayed requests");
		atomic_store(&cdev->delayed_status, 0u);
		left = 0;
	} else {
		left -= COMPOSITE__DELAY_GUARD;
	}

	if (v < 0 && v != STATUS_ONLY && v != QUEUED) {
		atomic_store(&cdev->delayed_status, 0u);
		cdev->address_pending = false;
		cdev->test_mode_pending = false;
		return v;
	}
	if (v == QUEUED) {
		/* Delayed, and every continue already came: status now. */
		if (s.delayed && left == 0)
			v = STATUS_ONLY;
		else
			return 0;
	}
	if (v == STATUS_ONLY) {
		if (s.in && s.length)
			v = 0;	/* IN without data: a zero-length data stage */
		else
			cdev->ep0_w_length = 0;
		ret = composite__ep0_queue(cdev, 0);
	} else {
		if (!s.in && s.length)
			return -USB_EPIPE;	/* a reply to an OUT request: a bug, stall */
		ret = composite__ep0_queue(cdev, (unsigned)v);
	}
	if (ret) {
		cdev->address_pending = false;
		cdev->test_mode_pending = false;
		return ret;
	}
	return 0;
}
