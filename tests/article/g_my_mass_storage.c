/*
 * g_my_mass_storage.c - the seed article's driver, as printed (Linux 2.6.35
 * forms), made a program by the module runner. Only the two includes and
 * the declarations the article leaves out (marked "not in the article")
 * are added; everything else must compile unchanged (issue #15).
 */
#include "composite/linux.h"
#include "composite/mass_storage.h"

/* not in the article */
static unsigned long msg_registered;
static void msg_exit(void);

static struct usb_device_descriptor msg_dev_desc = {
	.bLength = sizeof msg_dev_desc,
	.bDescriptorType = USB_DT_DEVICE,
	.bcdUSB = cpu_to_le16(0x0200),
	.idVendor = cpu_to_le16(FSG_VENDOR_ID),
	.idProduct = cpu_to_le16(FSG_PRODUCT_ID),
};

static struct fsg_module_parameters msg_mod_data = { .stall = 1 };
FSG_MODULE_PARAMETERS(/* no prefix */, msg_mod_data);

static struct fsg_common msg_fsg_common;

static int msg_thread_exits(struct fsg_common *common)
{
	msg_exit();
	return 0;
}

static int __init msg_do_config(struct usb_configuration *c)
{
	struct fsg_common *retp;
	struct fsg_config config;
	int ret;

	fsg_config_from_params(&config, &msg_mod_data);
	config.thread_exits = msg_thread_exits;
	retp = fsg_common_init(&msg_fsg_common, c->cdev, &config);
	if (IS_ERR(retp))
		return PTR_ERR(retp);

	ret = fsg_add(c->cdev, c, &msg_fsg_common);
	fsg_common_put(&msg_fsg_common);
	return ret;
}

static struct usb_configuration msg_config = {
	.label = "Linux Mass Storage",
	.bind = msg_do_config,
	.bConfigurationValue = 1,
	.bmAttributes = USB_CONFIG_ATT_SELFPOWER,
};

static int __ref msg_bind(struct usb_composite_dev *cdev)
{
	int ret;

	ret = usb_add_config(cdev, &msg_config);
	if (ret)
		return ret;
	set_bit(0, &msg_registered);
	return 0;
}

static struct usb_composite_driver msg_device = {
	.name = "g_my_mass_storage",
	.dev = &msg_dev_desc,
	.bind = msg_bind,
};

static int __init msg_init(void)
{
	return usb_composite_register(&msg_device);
}

static void msg_exit(void)
{
	if (test_and_clear_bit(0, &msg_registered))
		usb_composite_unregister(&msg_device);
}

/* not in the article */
module_init(msg_init);
module_exit(msg_exit);
