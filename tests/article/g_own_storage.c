/*
 * g_own_storage.c - a driver of the project's own, written in exactly the
 * forms of the seed article (Linux 2.6.35): a caller-storage fsg_common,
 * fsg_common_init() tested with IS_ERR(), a two-argument usb_add_config(),
 * usb_composite_register(), module_init()/module_exit(), plus what a ported
 * driver commonly adds: prefixed FSG_MODULE_PARAMETERS(usb_, ...), a
 * module_param() of each kind, ARRAY_SIZE, min_t, INFO() and ERROR(),
 * container_of over a list_head. tests/article/run-own-driver.sh runs it.
 */
#include "composite/linux.h"
#include "composite/mass_storage.h"

static unsigned long own_registered;
static void own_exit(void);

static char *serial = "OWN-0001";
module_param(serial, charp, S_IRUGO);
MODULE_PARM_DESC(serial, "iSerialNumber string");
static unsigned product = 0xa4a5;
module_param(product, uint, S_IRUGO);
static bool self_powered = 1;
module_param(self_powered, bool, S_IRUGO);

static struct usb_device_descriptor own_dev_desc = {
	.bLength = sizeof own_dev_desc,
	.bDescriptorType = USB_DT_DEVICE,
	.bcdUSB = cpu_to_le16(0x0200),
	.idVendor = cpu_to_le16(FSG_VENDOR_ID),
	.idProduct = cpu_to_le16(FSG_PRODUCT_ID),
};

static struct fsg_module_parameters own_mod_data = { .stall = 1 };
FSG_MODULE_PARAMETERS(usb_, own_mod_data);

static struct fsg_common own_fsg_common;

struct own_note {
	struct list_head list;
	const char *text;
};
static LIST_HEAD(own_notes);

static int own_thread_exits(struct fsg_common *common)
{
	(void)common;
	own_exit();
	return 0;
}

static int __init own_do_config(struct usb_configuration *c)
{
	struct fsg_common *retp;
	struct fsg_config config;
	int ret;

	fsg_config_from_params(&config, &own_mod_data);
	config.thread_exits = own_thread_exits;
	retp = fsg_common_init(&own_fsg_common, c->cdev, &config);
	if (IS_ERR(retp)) {
		ERROR(c->cdev, "g_own_storage: fsg_common_init: %ld\n", PTR_ERR(retp));
		return PTR_ERR(retp);
	}
	ret = fsg_add(c->cdev, c, &own_fsg_common);
	fsg_common_put(&own_fsg_common);
	return ret;
}

static struct usb_configuration own_config = {
	.label = "Own Mass Storage",
	.bind = own_do_config,
	.bConfigurationValue = 1,
	.bmAttributes = USB_CONFIG_ATT_ONE,
};

static struct usb_string own_strings[] = {
	{ .s = "libcomposite" },
	{ .s = "Own Storage" },
	{ .s = NULL },
	{ 0 },
};

static int __ref own_bind(struct usb_composite_dev *cdev)
{
	static struct own_note note = { .text = "bound" };
	struct own_note *n;
	int ret;

	own_strings[2].s = serial;
	own_dev_desc.idProduct = cpu_to_le16(min_t(unsigned, product, 0xffff));
	if (self_powered)
		own_config.bmAttributes |= USB_CONFIG_ATT_SELFPOWER;
	ret = usb_add_config(cdev, &own_config);
	if (ret)
		return ret;
	list_add_tail(&note.list, &own_notes);
	n = container_of(own_notes.next, struct own_note, list);
	INFO(cdev, "g_own_storage: %s: %u LUN(s), product %04x, serial %s, %zu strings\n",
	     n->text, fsg_common_nluns(&own_fsg_common) ? fsg_common_nluns(&own_fsg_common) : 0,
	     product, serial, ARRAY_SIZE(own_strings) - 1);
	set_bit(0, &own_registered);
	return 0;
}

static struct usb_composite_driver own_device = {
	.name = "g_own_storage",
	.dev = &own_dev_desc,
	.bind = own_bind,
};

static int __init own_init(void)
{
	return usb_composite_register(&own_device);
}

static void own_exit(void)
{
	if (test_and_clear_bit(0, &own_registered))
		usb_composite_unregister(&own_device);
}

module_init(own_init);
module_exit(own_exit);
MODULE_LICENSE("GPL");
