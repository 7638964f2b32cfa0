/* SPDX-License-Identifier: MIT */
/*
 * RTSP stream framing: where each message or interleaved frame starts and
 * ends, and its headers.  Bare LF ends a line as CRLF does (RFC 2326 sec.
 * 15.1 asks receivers to accept it).
 */
#include <string.h>

#include <cthelperd/util.h>

#include "rtsp_parse.h"

static enum rtsp_parse rtsp_frame_parse(const uint8_t *buf, size_t len, size_t start,
					struct rtsp_msg *m);
static bool rtsp_start_plausible(const uint8_t *p, size_t n);
static bool rtsp_start_line(const uint8_t *p, size_t n, struct rtsp_msg *m);
static enum rtsp_parse rtsp_headers_parse(const uint8_t *buf, size_t len, size_t max,
					  struct rtsp_msg *m);

enum rtsp_parse rtsp_msg_parse(const uint8_t *buf, size_t len, size_t start, size_t max,
			       struct rtsp_msg *m)
{
	const uint8_t *p = buf + start;
	size_t n = len - start, eol;

	memset(m, 0, sizeof(*m));
	m->start = start;
	if (n == 0)
		return RTSP_PARSE_MORE;
	if (p[0] == '$')
		return rtsp_frame_parse(buf, len, start, m);
	eol = cth_line_len(p, n);
	if (eol == n) {
		/* only a line that could still become a start line is worth
		 * keeping: binary garbage kept would swallow the '$' of the
		 * frame that follows it */
		if (!rtsp_start_plausible(p, n))
			return RTSP_PARSE_GARBAGE;
		return n > max ? RTSP_PARSE_OVERSIZED : RTSP_PARSE_MORE;
	}
	if (!rtsp_start_line(p, eol, m))
		return RTSP_PARSE_GARBAGE;
	return rtsp_headers_parse(buf, len, max, m);
}

size_t rtsp_line_next(const uint8_t *buf, size_t len, size_t off)
{
	size_t eol = off + cth_line_len(buf + off, len - off);

	return eol < len ? eol + 1 : len;
}

bool rtsp_method_is(const uint8_t *buf, const struct rtsp_msg *m, const char *method)
{
	size_t n = strlen(method);

	return m->kind == RTSP_KIND_REQUEST && m->method.len == n &&
	       memcmp(buf + m->method.off, method, n) == 0;
}

static bool rtsp_blank(uint8_t c)
{
	return c == ' ' || c == '\t';
}

/* The line at off without its line end: its length. */
static size_t rtsp_line_body(const uint8_t *buf, size_t end, size_t off, size_t *next)
{
	size_t n = cth_line_len(buf + off, end - off);

	*next = off + n < end ? off + n + 1 : end;
	if (n && buf[off + n - 1] == '\r')
		n--;
	return n;
}

bool rtsp_header_next(const uint8_t *buf, const struct rtsp_msg *m, const char *name,
		      size_t *pos, struct rtsp_span *value)
{
	size_t nlen = strlen(name), off = *pos ? *pos : rtsp_line_next(buf, m->head_end, m->start);

	while (off < m->head_end) {
		size_t next, n = rtsp_line_body(buf, m->head_end, off, &next);
		const uint8_t *l = buf + off;
		size_t i = nlen;

		if (n > nlen && cth_prefix_match(l, nlen, name) == CTH_PREFIX_YES) {
			while (i < n && rtsp_blank(l[i]))
				i++;
			if (i < n && l[i] == ':') {
				for (i++; i < n && rtsp_blank(l[i]); i++)
					;
				while (n > i && rtsp_blank(l[n - 1]))
					n--;
				value->off = off + i;
				value->len = n - i;
				*pos = next;
				return true;
			}
		}
		off = next;
	}
	*pos = m->head_end;
	return false;
}

/* '$', a channel byte, the data length in network order (RFC 2326 sec.
 * 10.12): the frame is skipped whole, whatever it holds. */
static enum rtsp_parse rtsp_frame_parse(const uint8_t *buf, size_t len, size_t start,
					struct rtsp_msg *m)
{
	if (len - start < 4)
		return RTSP_PARSE_MORE;
	m->kind = RTSP_KIND_FRAME;
	m->head_end = start + 4;
	m->end = (uint64_t)start + 4u + ((unsigned int)buf[start + 2] << 8 | buf[start + 3]);
	return RTSP_PARSE_OK;
}

/* A method token's bytes (RFC 2326 sec. 15.1 token, the usual part). */
static bool rtsp_token_char(uint8_t c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '_' || c == '.' || c == '!' || c == '%' || c == '*' ||
	       c == '+' || c == '~';
}

/* The start of a start line, cut short: a token ("RTSP/..." included),
 * then printable text. */
static bool rtsp_start_plausible(const uint8_t *p, size_t n)
{
	size_t i = 0;

	while (i < n && (rtsp_token_char(p[i]) || p[i] == '/'))
		i++;
	if (i == 0)
		return false;
	for (; i < n; i++)
		if ((p[i] < 0x20 && p[i] != '\t' && !(p[i] == '\r' && i == n - 1)) || p[i] == 0x7f)
			return false;
	return true;
}

/* "RTSP/1.0" or "RTSP/2.0" at p, n bytes: its version. */
static unsigned int rtsp_version(const uint8_t *p, size_t n)
{
	if (n != 8 || memcmp(p, "RTSP/", 5) != 0 || p[6] != '.' || p[7] != '0')
		return 0;
	if (p[5] == '1')
		return 10;
	return p[5] == '2' ? 20 : 0;
}

/* "RTSP/x.y NNN reason" */
static bool rtsp_status_line(const uint8_t *p, size_t n, struct rtsp_msg *m)
{
	uint32_t code;
	size_t used;

	m->version = rtsp_version(p, n < 8 ? n : 8);
	if (!m->version || n < 12 || p[8] != ' ')
		return false;
	if (cth_parse_uint(p + 9, 3, 999, &code, &used) < 0 || used != 3 || code < 100)
		return false;
	if (n > 12 && p[12] != ' ')
		return false;
	m->kind = RTSP_KIND_STATUS;
	m->status = code;
	return true;
}

/* "METHOD SP URI SP RTSP/x.y", or a status line; n without the LF. */
static bool rtsp_start_line(const uint8_t *p, size_t n, struct rtsp_msg *m)
{
	size_t i = 0, uri;

	if (n && p[n - 1] == '\r')
		n--;
	if (n >= 5 && memcmp(p, "RTSP/", 5) == 0)
		return rtsp_status_line(p, n, m);
	while (i < n && i <= 32 && rtsp_token_char(p[i]))
		i++;
	if (i == 0 || i > 32 || i >= n || p[i] != ' ')
		return false;
	m->method.off = m->start;
	m->method.len = i;
	uri = ++i;
	while (i < n && p[i] > 0x20 && p[i] != 0x7f)
		i++;
	if (i == uri || i >= n || p[i] != ' ')
		return false;
	m->version = rtsp_version(p + i + 1, n - i - 1);
	if (!m->version)
		return false;
	m->kind = RTSP_KIND_REQUEST;
	return true;
}

/* Content-Length's value; a bad one frames no body (and is reported). */
static void rtsp_content_length(const uint8_t *l, size_t n, struct rtsp_msg *m, uint64_t *body)
{
	static const char name[] = "Content-Length";
	size_t i = sizeof(name) - 1, used;
	uint32_t v;

	if (n <= i || cth_prefix_match(l, i, name) != CTH_PREFIX_YES)
		return;
	while (i < n && rtsp_blank(l[i]))
		i++;
	if (i >= n || l[i] != ':')
		return;
	for (i++; i < n && rtsp_blank(l[i]); i++)
		;
	if (cth_parse_uint(l + i, n - i, RTSP_BODY_MAX, &v, &used) < 0) {
		m->bad_length = true;
		return;
	}
	for (i += used; i < n && rtsp_blank(l[i]); i++)
		;
	if (i != n) {
		m->bad_length = true;
		return;
	}
	*body = v;
}

/* Header lines up to the empty one, within max bytes of the start. */
static enum rtsp_parse rtsp_headers_parse(const uint8_t *buf, size_t len, size_t max,
					  struct rtsp_msg *m)
{
	size_t off = rtsp_line_next(buf, len, m->start);
	uint64_t body = 0;

	for (;;) {
		size_t next, n;

		if (off - m->start > max)
			return RTSP_PARSE_OVERSIZED;
		if (off == len || cth_line_len(buf + off, len - off) == len - off)
			return len - m->start > max ? RTSP_PARSE_OVERSIZED : RTSP_PARSE_MORE;
		n = rtsp_line_body(buf, len, off, &next);
		if (n == 0) {
			m->head_end = next;
			break;
		}
		rtsp_content_length(buf + off, n, m, &body);
		off = next;
	}
	if (m->head_end - m->start > max)
		return RTSP_PARSE_OVERSIZED;
	m->end = m->head_end + body;
	return RTSP_PARSE_OK;
}
