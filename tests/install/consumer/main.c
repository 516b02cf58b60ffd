/* Links against an installed libcomposite and calls into it. */
#include <stdio.h>
#include <string.h>

#include <composite/composite.h>
#include <composite/function.h>
#include <composite/udc.h>

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
	return ret == -USB_EINVAL ? 0 : 1;
}
