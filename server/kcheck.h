/* SPDX-License-Identifier: MIT */
#ifndef CTH_KCHECK_H
#define CTH_KCHECK_H

/* cthelperd --check-kernel: probe what the running kernel offers, print a
 * report with what to do about each missing piece.  Returns 0 when all
 * is there, 1 otherwise. */
int kcheck_run(void);

#endif
