/*
 * medium_control.h - the mass_storage example's way to change media at run
 * time, as Linux's g_mass_storage does through sysfs (lun0/file): lines
 * written to a FIFO. Owns the FIFO (and its reader thread); touches the
 * MSF only through fsg_common_set_lun_file() and fsg_common_forced_eject().
 *
 * Trust: whoever can write to the FIFO can make this process open any
 * file it may open (as root: any file) and serve it to the remote host,
 * or eject media. So the FIFO is this user's alone: created here with
 * mode 0600, or, only when told to reuse one, an existing FIFO owned by
 * the effective user that neither group nor others may write. Nothing
 * else at the path (a regular file, a symlink, someone else's FIFO) is
 * used, and only a FIFO created here is removed at the end.
 */
#ifndef MASS_STORAGE_MEDIUM_CONTROL_H
#define MASS_STORAGE_MEDIUM_CONTROL_H

#include <stdbool.h>

#include "composite/mass_storage.h"

/*
 * Create the FIFO @path (mode 0600) and start reading commands from it,
 * one per line:
 *   lunN.file=PATH        insert PATH into LUN N (replacing the medium)
 *   lunN.file=            eject LUN N's medium
 *   lunN.forced_eject=1   eject even if the host prevented removal
 * An existing @path is refused unless @reuse, and then only a FIFO owned
 * by the effective user without group or other write permission (checked
 * on the opened descriptor; a symlink is not followed). Each command's
 * outcome is printed on stdout; a refusal is explained on stderr.
 * Return: 0, or a negative USB_E* value (-USB_EEXIST, -USB_EPERM, -USB_EIO).
 */
int medium_control_start(const char *path, bool reuse);

/* The common object commands act on (borrowed; NULL while none is bound). */
void medium_control_attach(struct fsg_common *common);

/* Stop the reader thread and remove the FIFO if it was created here (and
 * is still the one created). Safe if never started. */
void medium_control_stop(void);

#endif
