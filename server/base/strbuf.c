/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "strbuf.h"

static int strbuf_grow(struct strbuf *b, size_t need);

void strbuf_printf(struct strbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->err)
		return;
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || strbuf_grow(b, b->len + (size_t)n + 1) < 0)
		return;
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void strbuf_json_str(struct strbuf *b, const char *s)
{
	strbuf_printf(b, "\"");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			strbuf_printf(b, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			strbuf_printf(b, "\\u%04x", c);
		else
			strbuf_printf(b, "%c", c);
	}
	strbuf_printf(b, "\"");
}

void strbuf_free(struct strbuf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
	b->err = 0;
}

static int strbuf_grow(struct strbuf *b, size_t need)
{
	size_t cap = b->cap ? b->cap : 1024;
	char *p;

	while (cap < need)
		cap *= 2;
	if (cap == b->cap)
		return 0;
	p = realloc(b->p, cap);
	if (!p)
		return b->err = -ENOMEM;
	b->p = p;
	b->cap = cap;
	return 0;
}
