/*
 * medium_control.h - the mass_storage example's way to change media at run
 * time, as Linux's g_mass_storage does through sysfs (lun0/file): lines
 * written to a FIFO. Owns the FIFO's reader thread; touches the MSF only
 * through fsg_common_set_lun_file() and fsg_common_forced_eject().
 */
#ifndef MASS_STORAGE_MEDIUM_CONTROL_H
#define MASS_STORAGE_MEDIUM_CONTROL_H

#include "composite/mass_storage.h"

/*
 * Create the FIFO @path (if missing) and start reading commands from it,
 * one per line:
 *   lunN.file=PATH        insert PATH into LUN N (replacing the medium)
 *   lunN.file=            eject LUN N's medium
 *   lunN.forced_eject=1   eject even if the host prevented removal
 * Each command's outcome is printed on stdout.
 * Return: 0, or a negative USB_E* value (the FIFO or thread failed).
 */
int medium_control_start(const char *path);

/* The common object commands act on (borrowed; NULL while none is bound). */
void medium_control_attach(struct fsg_common *common);

/* Stop the reader thread and remove the FIFO. Safe if never started. */
void medium_control_stop(void);

#endif
