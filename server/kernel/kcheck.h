/* SPDX-License-Identifier: MIT */
#ifndef CTH_KCHECK_H
#define CTH_KCHECK_H

#include <stdbool.h>
#include <stddef.h>

/* cthelperd --check-kernel: probe what the running kernel offers, print a
 * report with what to do about each missing piece.  Returns 0 when all
 * is there, 1 otherwise. */
int kcheck_run(void);

/* Is a module of this name loaded (/sys/module/NAME)? */
bool kcheck_module_loaded(const char *name);

/* Is the kernel's own helper for helper name NAME loaded?  In-tree helper
 * modules are called nf_conntrack_NAME (ftp, sip, tftp, irc, ...) and
 * register NAME for every family and protocol they serve, so a
 * user-space helper of that name gets EBUSY (nf_conntrack_helper_register:
 * the names share one table).  Fills module (size >= 64) with its name. */
bool kcheck_kernel_helper_loaded(const char *name, char *module, size_t size);

#endif
