/* SPDX-License-Identifier: MIT */
/*
 * The unit tests' one check harness: one "PASS name" or "FAIL name: why"
 * line per check on stdout (tests/README.md), and check_exit() for the
 * exit status (1 when anything failed).
 *
 * Two shapes over one counter:
 *   CHECK(name, cond, why...)       a check of one condition;
 *   check_start(&c, name...), then any number of check_that(&c, cond,
 *   why...), then check_end(&c)     a check of several conditions, the
 *                                   first failed one being the why;
 *   check_row_start/check_row_end   the same over table rows.
 */
#ifndef CTH_TEST_CHECK_H
#define CTH_TEST_CHECK_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static unsigned int check_failures;

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

struct check {
	char name[96];
	bool failed;
	char why[768];
};

static inline void check_start(struct check *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static inline void check_start(struct check *c, const char *fmt, ...)
{
	va_list ap;

	memset(c, 0, sizeof(*c));
	va_start(ap, fmt);
	vsnprintf(c->name, sizeof(c->name), fmt, ap);
	va_end(ap);
}

/* Records the first failed condition of a check; returns cond. */
static inline bool check_that(struct check *c, bool cond, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static inline bool check_that(struct check *c, bool cond, const char *fmt, ...)
{
	va_list ap;

	if (cond || c->failed)
		return cond;
	c->failed = true;
	va_start(ap, fmt);
	vsnprintf(c->why, sizeof(c->why), fmt, ap);
	va_end(ap);
	return false;
}

/* What a call returned: true when it is want. */
static inline bool check_ret(struct check *c, int ret, int want)
{
	return check_that(c, ret == want, "returned %d, want %d", ret, want);
}

static inline void check_end(struct check *c)
{
	if (c->failed) {
		check_failures++;
		printf("FAIL %s: %s\n", c->name, c->why);
	} else {
		printf("PASS %s\n", c->name);
	}
	fflush(stdout);
}

/*
 * Table rows that share a name are one check: the first row opens it
 * (prev: the name of the row before, NULL for the first), the last one
 * closes it (next: the name of the row after, NULL for the last).
 */
static inline void check_row_start(struct check *c, const char *name, const char *prev)
{
	if (!prev || strcmp(name, prev) != 0)
		check_start(c, "%s", name);
}

static inline void check_row_end(struct check *c, const char *name, const char *next)
{
	if (!next || strcmp(name, next) != 0)
		check_end(c);
}

static inline int check_exit(void)
{
	return check_failures ? 1 : 0;
}

#endif
