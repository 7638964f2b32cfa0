/* SPDX-License-Identifier: MIT */
/*
 * SSDP / HTTP message parsing (ssdp_parse.h).  The payload is untrusted:
 * lines are found with memchr() within SSDP_HEAD_MAX bytes, nothing is
 * read as a C string and nothing is copied.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include <cthelperd/util.h>

#include "ssdp_parse.h"

static int ssdp_start_line(const uint8_t *buf, size_t len, struct ssdp_msg *msg);
static int ssdp_request_line(const uint8_t *buf, size_t len, struct ssdp_msg *msg);
static int ssdp_status_line(const uint8_t *buf, size_t len, struct ssdp_msg *msg);
static bool ssdp_version(const uint8_t *buf, size_t len);
static size_t ssdp_skip_space(const uint8_t *buf, size_t len, size_t off);
static size_t ssdp_token_end(const uint8_t *buf, size_t len, size_t off);
static bool ssdp_word_is(const uint8_t *buf, size_t len, const char *word);
static int ssdp_bad(struct ssdp_msg *msg, const char *why);

static const char *const ssdp_kinds[] = {
	[SSDP_MSEARCH] = "M-SEARCH", [SSDP_NOTIFY] = "NOTIFY", [SSDP_SUBSCRIBE] = "SUBSCRIBE",
	[SSDP_REQUEST] = "request", [SSDP_RESPONSE] = "response",
};

int ssdp_parse(const uint8_t *buf, size_t len, struct ssdp_msg *msg)
{
	size_t off, line, n = len < SSDP_HEAD_MAX ? len : SSDP_HEAD_MAX;
	unsigned int lines = 0;
	int ret;

	memset(msg, 0, sizeof(*msg));
	ret = ssdp_start_line(buf, n, msg);
	if (ret < 0)
		return ret == -EAGAIN && n == SSDP_HEAD_MAX ?
		       ssdp_bad(msg, "start line longer than the header limit") : ret;
	off = cth_line_len(buf, n) + 1;
	/* headers up to the empty line; a datagram may simply end */
	while (off < n) {
		line = cth_line_len(buf + off, n - off);
		if (line == n - off)
			break;
		off += line + 1;
		if (line == 0 || (line == 1 && buf[off - 2] == '\r')) {
			msg->complete = true;
			break;
		}
		if (++lines > SSDP_LINES_MAX)
			return ssdp_bad(msg, "too many header lines");
	}
	msg->head_len = msg->complete ? off : n;
	if (!msg->complete && len >= SSDP_HEAD_MAX)
		return ssdp_bad(msg, "headers longer than the header limit");
	return msg->complete ? 0 : -EAGAIN;
}

int ssdp_header(const uint8_t *buf, size_t head_len, const char *name, size_t *voff,
		size_t *vlen)
{
	size_t nlen = strlen(name), off, line, end, v;
	unsigned int lines = 0;
	int found = 0;

	off = cth_line_len(buf, head_len) + 1;
	for (; off < head_len && lines++ < SSDP_LINES_MAX; off += line + 1) {
		line = cth_line_len(buf + off, head_len - off);
		end = off + line;
		if (end > off && buf[end - 1] == '\r')
			end--;
		if (end == off)
			break;
		/* a folded continuation line is not a header (obs-fold) */
		if (end - off <= nlen || !ssdp_word_is(buf + off, nlen, name))
			continue;
		v = ssdp_skip_space(buf, end, off + nlen);
		if (v >= end || buf[v] != ':')
			continue;
		if (found)
			return -EINVAL;
		v = ssdp_skip_space(buf, end, v + 1);
		while (end > v && (buf[end - 1] == ' ' || buf[end - 1] == '\t'))
			end--;
		*voff = v;
		*vlen = end - v;
		found = 1;
	}
	return found;
}

int ssdp_url_parse(const uint8_t *text, size_t len, int family, struct ssdp_url *url)
{
	size_t off = 7, a, alen, used;
	uint32_t port;
	int ret;

	memset(url, 0, sizeof(*url));
	url->port = 80;
	if (cth_prefix_match(text, len, "http://") != CTH_PREFIX_YES)
		return -EINVAL;
	url->host_off = off;
	if (off < len && text[off] == '[') {
		a = off + 1;
		while (off < len && text[off] != ']')
			off++;
		if (off == len)
			return -EINVAL;
		alen = off - a;
		off++;
		if (family != AF_INET6 || memchr(text + a, '%', alen))
			return -ENOENT;
	} else {
		a = off;
		while (off < len && ((text[off] >= '0' && text[off] <= '9') || text[off] == '.'))
			off++;
		alen = off - a;
		if (off < len && text[off] != ':' && text[off] != '/' && text[off] != '?' &&
		    text[off] != '>')
			return -ENOENT; /* a name (letters, '-') */
		if (family != AF_INET)
			return -ENOENT;
	}
	ret = cth_addr_parse(family, text + a, alen, &url->addr);
	if (ret < 0)
		return ret == -EINVAL ? -EINVAL : -ENOENT;
	if (off < len && text[off] == ':') {
		off++;
		if (cth_parse_uint(text + off, len - off, 65535, &port, &used) < 0 || port == 0 ||
		    used > 5)
			return -EINVAL;
		off += used;
		url->port = (uint16_t)port;
		url->has_port = true;
	}
	if (off < len && text[off] != '/' && text[off] != '?' && text[off] != '>')
		return -EINVAL;
	url->host_len = off - url->host_off;
	url->end = off;
	return 0;
}

int ssdp_callback_first(const uint8_t *text, size_t len, size_t *uoff, size_t *ulen)
{
	const uint8_t *gt;

	if (len < 2 || text[0] != '<')
		return -EINVAL;
	gt = memchr(text + 1, '>', len - 1);
	if (!gt)
		return -EINVAL;
	*uoff = 1;
	*ulen = (size_t)(gt - text) - 1;
	return 0;
}

const char *ssdp_kind_name(enum ssdp_kind kind)
{
	return (size_t)kind < sizeof(ssdp_kinds) / sizeof(ssdp_kinds[0]) ? ssdp_kinds[kind] :
	       "kind?";
}

static int ssdp_start_line(const uint8_t *buf, size_t len, struct ssdp_msg *msg)
{
	size_t line = cth_line_len(buf, len), end = line;

	if (len == 0)
		return -EAGAIN;
	for (size_t i = 0; i < line; i++)
		if (buf[i] == 0 || (buf[i] < 0x20 && buf[i] != '\t' && buf[i] != '\r'))
			return ssdp_bad(msg, "control byte in the start line");
	if (line == len)
		return -EAGAIN;
	if (end > 0 && buf[end - 1] == '\r')
		end--;
	if (cth_prefix_match(buf, end, "HTTP/") == CTH_PREFIX_YES)
		return ssdp_status_line(buf, end, msg);
	return ssdp_request_line(buf, end, msg);
}

/* METHOD SP target SP HTTP/1.d */
static int ssdp_request_line(const uint8_t *buf, size_t len, struct ssdp_msg *msg)
{
	size_t m_end = ssdp_token_end(buf, len, 0), t, t_end, v, v_end;

	if (m_end == 0)
		return ssdp_bad(msg, "no method");
	t = ssdp_skip_space(buf, len, m_end);
	t_end = ssdp_token_end(buf, len, t);
	v = ssdp_skip_space(buf, len, t_end);
	v_end = ssdp_token_end(buf, len, v);
	if (t == m_end || t_end == t || v == t_end || v_end != len ||
	    !ssdp_version(buf + v, v_end - v))
		return ssdp_bad(msg, "not a request line");
	if (m_end == 8 && ssdp_word_is(buf, 8, "M-SEARCH"))
		msg->kind = SSDP_MSEARCH;
	else if (m_end == 6 && ssdp_word_is(buf, 6, "NOTIFY"))
		msg->kind = SSDP_NOTIFY;
	else if (m_end == 9 && ssdp_word_is(buf, 9, "SUBSCRIBE"))
		msg->kind = SSDP_SUBSCRIBE;
	else
		msg->kind = SSDP_REQUEST;
	return 0;
}

/* HTTP/1.d SP NNN [SP reason] */
static int ssdp_status_line(const uint8_t *buf, size_t len, struct ssdp_msg *msg)
{
	size_t v_end = ssdp_token_end(buf, len, 0), s, used;
	uint32_t code;

	s = ssdp_skip_space(buf, len, v_end);
	if (!ssdp_version(buf, v_end) || s == v_end ||
	    cth_parse_uint(buf + s, len - s, 999, &code, &used) < 0 || used != 3 ||
	    (s + 3 < len && buf[s + 3] != ' ' && buf[s + 3] != '\t'))
		return ssdp_bad(msg, "not a status line");
	msg->kind = SSDP_RESPONSE;
	msg->status = code;
	return 0;
}

/* "HTTP/1.0", "HTTP/1.1" (any digit), in any case */
static bool ssdp_version(const uint8_t *buf, size_t len)
{
	return len == 8 && cth_prefix_match(buf, len, "HTTP/1.") == CTH_PREFIX_YES &&
	       buf[7] >= '0' && buf[7] <= '9';
}

static size_t ssdp_skip_space(const uint8_t *buf, size_t len, size_t off)
{
	while (off < len && (buf[off] == ' ' || buf[off] == '\t'))
		off++;
	return off;
}

static size_t ssdp_token_end(const uint8_t *buf, size_t len, size_t off)
{
	while (off < len && buf[off] != ' ' && buf[off] != '\t')
		off++;
	return off;
}

/* buf[0..len) is word, ASCII case ignored (len == strlen(word)). */
static bool ssdp_word_is(const uint8_t *buf, size_t len, const char *word)
{
	return cth_prefix_match(buf, len, word) == CTH_PREFIX_YES;
}

static int ssdp_bad(struct ssdp_msg *msg, const char *why)
{
	msg->why = why;
	return -EINVAL;
}
