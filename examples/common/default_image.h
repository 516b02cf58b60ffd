/*
 * default_image.h - what the storage examples (mass_storage, multi) add
 * to the module's defaults: removable LUNs unless removable= is given (as
 * the article's host log and the kernel's configfs LUNs have them), and
 * ./disk.img, created as 64 MiB of zeros when missing, when no file= is
 * given (the article's `dd if=/dev/zero of=disk.img bs=1M count=64`).
 */
#ifndef EXAMPLES_DEFAULT_IMAGE_H
#define EXAMPLES_DEFAULT_IMAGE_H

#include "composite/mass_storage.h"

/* Apply the defaults to @p; @prog names the program in messages.
 * Return: 0, or a negative errno (disk.img could not be made; said why). */
int example_storage_defaults(struct fsg_module_parameters *p, const char *prog);

#endif
