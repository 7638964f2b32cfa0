/* SPDX-License-Identifier: MIT */
/* Minimal checks for server unit tests: one PASS/FAIL line per check
 * (tests/README.md); check_exit() gives the exit status. */
#ifndef CTH_TEST_CHECK_H
#define CTH_TEST_CHECK_H

#include <stdio.h>

static int check_failures;

#define CHECK(name, cond, ...)                                         \
	do {                                                           \
		if (cond) {                                            \
			printf("PASS %s\n", name);                     \
		} else {                                               \
			check_failures++;                              \
			printf("FAIL %s: ", name);                     \
			printf(__VA_ARGS__);                           \
			printf("\n");                                  \
		}                                                      \
	} while (0)

static inline int check_exit(void)
{
	return check_failures ? 1 : 0;
}

#endif
