/*
 * composite/module.h - what a driver file declares so the module runner
 * (libcomposite-module: target composite::module, pkg-config
 * composite-module) can make a program of it, as the kernel's module
 * loader makes a module of a driver: its init and exit functions and its
 * parameters. composite/linux.h spells these module_init(), module_exit(),
 * module_param() and FSG_MODULE_PARAMETERS().
 *
 * Parameters are collected in the ELF section "composite_modparam" (GCC
 * and Clang); one program holds one module. POSIX builds only.
 */
#ifndef COMPOSITE_MODULE_H
#define COMPOSITE_MODULE_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

enum composite_param_type {
	COMPOSITE_PARAM_BOOL,	/* bool */
	COMPOSITE_PARAM_INT,	/* int */
	COMPOSITE_PARAM_UINT,	/* unsigned int */
	COMPOSITE_PARAM_USHORT,	/* unsigned short */
	COMPOSITE_PARAM_LONG,	/* long */
	COMPOSITE_PARAM_ULONG,	/* unsigned long */
	COMPOSITE_PARAM_CHARP,	/* char *: points into the argument */
	COMPOSITE_PARAM_FSG,	/* struct fsg_module_parameters; @name is the prefix */
};

/**
 * struct composite_module_param - one module parameter.
 * @name: the key (name=value); for COMPOSITE_PARAM_FSG the prefix put
 *	before each Mass Storage key ("" for none).
 * @type: what @arg points at.
 * @arg: the variable the value is stored in (the driver's, static).
 * @desc: optional description (MODULE_PARM_DESC), or NULL.
 */
struct composite_module_param {
	const char *name;
	enum composite_param_type type;
	void *arg;
	const char *desc;
};

#define COMPOSITE_MODULE_PARAM(id, key, type, arg)                            \
	__attribute__((used, section("composite_modparam"),                   \
		       aligned(sizeof(void *))))                              \
	static const struct composite_module_param composite_param_##id = {    \
		key, type, arg, 0 }

/* The module's entry points, one of each per program (module_init()
 * defines the first; module_exit(), optional, the second). The runner
 * calls init after the USB/IP server is up (a negative return ends the
 * program with status 1), and exit once before it ends. */
extern int (*const composite_module_init_fn)(void);
extern void (*const composite_module_exit_fn)(void);

#define COMPOSITE_MODULE_INIT(fn) int (*const composite_module_init_fn)(void) = fn
#define COMPOSITE_MODULE_EXIT(fn) void (*const composite_module_exit_fn)(void) = fn

#ifdef __cplusplus
}
#endif

#endif /* COMPOSITE_MODULE_H */
