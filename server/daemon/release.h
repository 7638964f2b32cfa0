/* SPDX-License-Identifier: MIT */
#ifndef CTH_RELEASE_H
#define CTH_RELEASE_H

#include "runtime/runtime.h"

/*
 * cthelperd --release: the kernel helpers rt (built from file) stands
 * for, and those a daemon run with file recorded (kernel/record.h), out
 * of the kernel, for after a crash; the record goes when all are.
 * Frees rt.  The exit status: 0 when all are gone (or left disabled
 * where a rule still names them), 1 otherwise (logged).
 */
int release_run(struct runtime *rt, const char *file);

#endif
