/*
 * Links against an installed libcomposite and calls into it: a probe that
 * must fail cleanly, and the function registry, whose shipped functions
 * must survive static linking though nothing here names them, beside one
 * function of the consumer's own registered by DECLARE_USB_FUNCTION_INIT.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <composite/composite.h>
#include <composite/function.h>
#include <composite/registry.h>
#include <composite/udc.h>

static void mine_free_inst(struct usb_function_instance *fi)
{
	free(fi);
}

static struct usb_function_instance *mine_alloc_inst(void)
{
	struct usb_function_instance *fi = calloc(1, sizeof(*fi));

	if (!fi)
		return usb_err_ptr(-USB_ENOMEM);
	fi->free_func_inst = mine_free_inst;
	return fi;
}

static struct usb_function *mine_alloc_func(struct usb_function_instance *fi)
{
	(void)fi;
	return usb_err_ptr(-USB_EOPNOTSUPP);
}

DECLARE_USB_FUNCTION_INIT(mine, mine_alloc_inst, mine_alloc_func);

static int check_registry(void)
{
	static const char *const names[] = { "mass_storage", "SourceSink", "Loopback", "acm",
					     "hid", "ecm", "ncm", "mine" };

	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct usb_function_instance *fi = usb_get_function_instance(names[i]);

		if (usb_is_err(fi)) {
			printf("registry: %s: %s\n", names[i], usb_strerror((int)usb_ptr_err(fi)));
			return 1;
		}
		usb_put_function_instance(fi);
	}
	printf("registry: mass_storage, SourceSink, Loopback, acm, hid, ecm, ncm and mine found\n");
	return 0;
}

int main(void)
{
	/* No UDC is registered: probing must fail cleanly with ENODEV. */
	static const struct usb_device_descriptor desc = {
		.bLength = USB_DT_DEVICE_SIZE,
		.bDescriptorType = USB_DT_DEVICE,
		.bcdUSB = USB_CPU_TO_LE16(0x0200),
	};
	struct usb_composite_driver driver = { .name = "consumer", .dev = &desc };
	int ret;

	if (strcmp(usb_strerror(-USB_EPIPE), usb_strerror(USB_EPIPE)) != 0)
		return 1;
	ret = usb_composite_probe(&driver);
	printf("probe without bind: %d (%s)\n", ret, usb_strerror(ret));
	if (ret != -USB_EINVAL)
		return 1;
	return check_registry();
}
