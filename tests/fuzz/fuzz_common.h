/* SPDX-License-Identifier: MIT */
/*
 * Shared by every libFuzzer target: the entry points, a reader over the
 * fuzz input, the check that aborts on a violated invariant, FUZZ_VERBOSE.
 * A violated invariant prints why and aborts, which libFuzzer reports as
 * a crash with the input saved.  The targets on the host path add
 * fuzz_hostpath.h.
 */
#ifndef CTH_FUZZ_COMMON_H
#define CTH_FUZZ_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"

/* libFuzzer's entry points: every target defines the first, the targets
 * on the host path the second (fuzz_hostpath.h). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* ------------------------------------------------------------ checks */

#define FZ_ASSERT(cond, ...)                                            \
	do {                                                            \
		if (!(cond)) {                                          \
			fprintf(stderr, "invariant violated: " __VA_ARGS__); \
			fprintf(stderr, "\n");                          \
			abort();                                        \
		}                                                       \
	} while (0)

/* An invariant that says itself. */
#define FZ_CHECK(cond) FZ_ASSERT(cond, "%s", #cond)

/* ------------------------------------------------------------ reader */

/* Past its end the input reads as zeros. */
struct fz {
	const uint8_t *p;
	size_t n;
};

static inline uint8_t fz_u8(struct fz *f)
{
	uint8_t v;

	if (!f->n)
		return 0;
	v = *f->p++;
	f->n--;
	return v;
}

static inline uint16_t fz_u16(struct fz *f)
{
	uint16_t hi = fz_u8(f);

	return (uint16_t)(hi << 8 | fz_u8(f));
}

static inline uint32_t fz_u32(struct fz *f)
{
	uint32_t hi = fz_u16(f);

	return hi << 16 | fz_u16(f);
}

/* Up to n bytes into dst; the rest zero.  Returns the bytes taken. */
static inline size_t fz_bytes(struct fz *f, void *dst, size_t n)
{
	size_t k = n < f->n ? n : f->n;

	if (k)
		memcpy(dst, f->p, k);
	if (n > k)
		memset((uint8_t *)dst + k, 0, n - k);
	f->p += k;
	f->n -= k;
	return k;
}

/* The next n bytes in place (*n cut to what is left), passed over. */
static inline const uint8_t *fz_take(struct fz *f, size_t *n)
{
	const uint8_t *p = f->p;

	if (*n > f->n)
		*n = f->n;
	f->p += *n;
	f->n -= *n;
	return p;
}

/* The next n bytes (zeros past the end) in a heap block of exactly n, so
 * that ASan sees a read past them; free() it. */
static inline uint8_t *fz_heap(struct fz *f, size_t n)
{
	uint8_t *p = malloc(n ? n : 1);

	if (!p)
		abort();
	fz_bytes(f, p, n);
	return p;
}

/* ------------------------------------------------------------ set-up */

/* FUZZ_VERBOSE=1 in the environment: one summary line per input on
 * stderr (to see what a seed reaches).  Set by fz_init(). */
static bool fz_verbose;

static inline void fz_verbose_init(void)
{
	const char *v = getenv("FUZZ_VERBOSE");

	fz_verbose = v && *v && *v != '0';
}

/* A target's start-up: plugin log lines (info) not printed, FUZZ_VERBOSE
 * read. */
static inline void fz_init(void)
{
	log_init(LOG_L_ERR, 0);
	fz_verbose_init();
}

#endif
