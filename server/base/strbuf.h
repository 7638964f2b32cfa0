/* SPDX-License-Identifier: MIT */
#ifndef CTH_STRBUF_H
#define CTH_STRBUF_H

#include <stddef.h>

/* A growing text buffer for control socket answers.  An allocation
 * failure is remembered (err) instead of reported by every append, so
 * renderers stay linear; the caller checks once at the end. */
struct strbuf {
	char *p;
	size_t len, cap;
	int err;                  /* 0 or -ENOMEM */
};

void strbuf_printf(struct strbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A JSON string literal, quotes included. */
void strbuf_json_str(struct strbuf *b, const char *s);
void strbuf_free(struct strbuf *b);

#endif
