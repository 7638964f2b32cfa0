/* SPDX-License-Identifier: MIT */
#ifndef CTH_RELOAD_H
#define CTH_RELOAD_H

#include "base/strbuf.h"
#include "daemon.h"

/*
 * Read the configuration file again and apply it between packets (load →
 * validate → swap → free).  On any error the running configuration stays
 * as it was: -EINVAL (file or plugins), -EEXIST (kernel helpers), -EBUSY
 * (a queue), ...; errors and warnings are logged and appended to errs
 * (NULL: logged only).  Fills d->control.last.
 */
int reload_run(struct daemon *d, struct strbuf *errs);

#endif
