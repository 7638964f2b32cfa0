/* SPDX-License-Identifier: MIT */
/*
 * SIP message text (RFC 3261): framing, headers, URIs, Via.  What the
 * kernel's nf_conntrack_sip reads, and a little more where it is strict
 * (LF-only line ends, folded headers, "Content-Length" padded with spaces,
 * several Contact entries).  SDP is in sip_sdp.c.
 */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "sip_parse.h"

const struct sip_hdr_name sip_hdr_via = { "Via", 'v' };
const struct sip_hdr_name sip_hdr_contact = { "Contact", 'm' };
const struct sip_hdr_name sip_hdr_from = { "From", 'f' };
const struct sip_hdr_name sip_hdr_to = { "To", 't' };
const struct sip_hdr_name sip_hdr_cseq = { "CSeq", 0 };
const struct sip_hdr_name sip_hdr_expires = { "Expires", 0 };
const struct sip_hdr_name sip_hdr_clen = { "Content-Length", 'l' };
const struct sip_hdr_name sip_hdr_call_id = { "Call-ID", 'i' };

static const char *const sip_method_names[] = {
	[SIP_M_OTHER] = "?",
	[SIP_M_INVITE] = "INVITE",
	[SIP_M_ACK] = "ACK",
	[SIP_M_BYE] = "BYE",
	[SIP_M_CANCEL] = "CANCEL",
	[SIP_M_REGISTER] = "REGISTER",
	[SIP_M_UPDATE] = "UPDATE",
	[SIP_M_PRACK] = "PRACK",
};

static bool sip_is_ws(uint8_t c)
{
	return c == ' ' || c == '\t';
}

static bool sip_is_lws(uint8_t c)
{
	return sip_is_ws(c) || c == '\r' || c == '\n';
}

static unsigned char sip_lower(uint8_t c)
{
	return c >= 'A' && c <= 'Z' ? (unsigned char)(c + 'a' - 'A') : c;
}

/* RFC 3261 token characters: what a method may be made of. */
static bool sip_is_token(uint8_t c)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
		return true;
	switch (c) {
	case '-': case '.': case '!': case '%': case '*':
	case '_': case '+': case '`': case '\'': case '~':
		return true;
	default:
		return false;
	}
}

static bool sip_ieq(const uint8_t *a, const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (sip_lower(a[i]) != sip_lower((uint8_t)b[i]))
			return false;
	return true;
}

enum sip_method sip_method_lookup(const uint8_t *buf, size_t len)
{
	for (size_t i = 1; i < sizeof(sip_method_names) / sizeof(sip_method_names[0]); i++)
		if (strlen(sip_method_names[i]) == len &&
		    sip_ieq(buf, sip_method_names[i], len))
			return (enum sip_method)i;
	return SIP_M_OTHER;
}

const char *sip_method_name(enum sip_method m)
{
	if ((size_t)m >= sizeof(sip_method_names) / sizeof(sip_method_names[0]))
		return "?";
	return sip_method_names[m];
}

size_t sip_skip_crlf(const uint8_t *buf, size_t len)
{
	size_t i = 0;

	while (i < len && (buf[i] == '\r' || buf[i] == '\n'))
		i++;
	return i;
}

/* End of the line starting at off (index of its '\n', or len) and the
 * length of its content without CR LF. */
static size_t sip_line_end(const uint8_t *buf, size_t off, size_t len,
			   size_t *content)
{
	size_t nl = off + cth_line_len(buf + off, len - off);
	size_t c = nl - off;

	if (nl < len && c > 0 && buf[nl - 1] == '\r')
		c--;
	*content = c;
	return nl;
}

/* "SIP/2.0 NNN ...": a response's status code. */
static int sip_status_parse(const uint8_t *l, size_t n, unsigned int *code)
{
	uint32_t v;
	size_t used;

	if (n < 11 || !sip_ieq(l, "SIP/2.0 ", 8))
		return -EINVAL;
	if (cth_parse_uint(l + 8, n - 8, 999, &v, &used) < 0 || used != 3 ||
	    v < 100 || v > 699 || (n > 11 && !sip_is_ws(l[11])))
		return -EINVAL;
	*code = v;
	return 0;
}

/* "METHOD SP Request-URI SP SIP/2.0" */
static int sip_request_line_parse(const uint8_t *l, size_t n, struct sip_msg *m)
{
	size_t i = 0, uri_end;

	while (i < n && sip_is_token(l[i]))
		i++;
	if (i == 0 || i >= n || l[i] != ' ')
		return -EINVAL;
	m->method = sip_method_lookup(l, i);
	uri_end = n;
	while (uri_end > i && l[uri_end - 1] != ' ')
		uri_end--;
	if (uri_end <= i + 1 || n - uri_end != 7 || !sip_ieq(l + uri_end, "SIP/2.0", 7))
		return -EINVAL;
	m->uri.off = i + 1;
	m->uri.len = uri_end - 1 - (i + 1);
	return m->uri.len ? 0 : -EINVAL;
}

static int sip_start_line(const uint8_t *buf, size_t len, struct sip_msg *m)
{
	size_t content, nl;

	nl = sip_line_end(buf, 0, len, &content);
	if (nl == len)
		return len < SIP_START_LINE_MAX ? -EAGAIN : -EINVAL;
	m->hdr_start = nl + 1;
	if (content >= 8 && sip_ieq(buf, "SIP/2.0 ", 8)) {
		m->request = false;
		return sip_status_parse(buf, content, &m->code);
	}
	m->request = true;
	return sip_request_line_parse(buf, content, m);
}

/* Offset just after the blank line that ends the headers, or 0; the
 * line starts on the way go to m->line. */
static size_t sip_headers_end(const uint8_t *buf, size_t len, size_t from,
			      struct sip_msg *m)
{
	size_t off = from, content, nl, n = 0;

	while (off < len) {
		nl = sip_line_end(buf, off, len, &content);
		if (nl == len)
			return 0;
		if (n <= SIP_HDR_LINES_MAX && off <= UINT32_MAX)
			m->line[n] = (uint32_t)off;
		if (content == 0) {
			m->n_lines = n <= SIP_HDR_LINES_MAX && off <= UINT32_MAX ? n : 0;
			return nl + 1;
		}
		n++;
		off = nl + 1;
	}
	return 0;
}

/* The Content-Length value: digits, spaces around them allowed. */
static int sip_clen_value(const uint8_t *buf, struct sip_span v, uint32_t *clen,
			  struct sip_span *digits)
{
	size_t used, end = v.off + v.len;

	while (end > v.off && sip_is_lws(buf[end - 1]))
		end--;
	if (cth_parse_uint(buf + v.off, end - v.off, SIP_CLEN_MAX, clen, &used) < 0 ||
	    used != end - v.off)
		return -EINVAL;
	digits->off = v.off;
	digits->len = used;
	return 0;
}

/* One Content-Length: two that differ would let the firewall and the
 * peer see different messages. */
static int sip_msg_clen(struct sip_msg *m, uint32_t *clen)
{
	struct sip_span v, d;
	size_t pos = 0;
	uint32_t val;
	bool seen = false;

	while (sip_hdr_find(m, &sip_hdr_clen, &pos, &v) == 1) {
		if (sip_clen_value(m->buf, v, &val, &d) < 0)
			return -EINVAL;
		if (seen && val != *clen)
			return -EINVAL;
		if (!seen)
			m->clen = d;
		*clen = val;
		seen = true;
	}
	m->has_clen = seen;
	return 0;
}

int sip_msg_parse(const uint8_t *buf, size_t len, bool stream,
		  struct sip_msg *m)
{
	uint32_t clen = 0;
	size_t hend;
	int ret;

	memset(m, 0, sizeof(*m));
	m->buf = buf;
	if (len == 0)
		return -EAGAIN;
	ret = sip_start_line(buf, len, m);
	if (ret < 0)
		return ret;
	hend = sip_headers_end(buf, len, m->hdr_start, m);
	if (hend == 0) {
		if (stream)
			return -EAGAIN;
		hend = len;       /* a datagram without a body */
	}
	m->hdr_len = m->body_off = hend;
	m->len = hend;        /* sip_hdr_find() stops here */
	if (sip_msg_clen(m, &clen) < 0)
		return -EINVAL;
	if (stream) {
		if (clen > len - hend)
			return -EAGAIN;
		m->body_len = clen;
	} else {
		if (m->has_clen && clen > len - hend)
			return -EINVAL;   /* RFC 3261 18.3: discard */
		m->body_len = m->has_clen ? clen : len - hend;
	}
	m->len = hend + m->body_len;
	return 0;
}

/* Does the header line at off carry name h (n: strlen(h->name))?  Sets
 * *voff past the colon.  The line's name runs up to the first colon or
 * white space; the names looked for hold neither, so the one of length n
 * matches when the byte after it ends a name and the n bytes are equal. */
static bool sip_hdr_match(const uint8_t *buf, size_t off, size_t content,
			  const struct sip_hdr_name *h, size_t n, size_t *voff)
{
	size_t i;

	if (content > n && (buf[off + n] == ':' || sip_is_ws(buf[off + n])) &&
	    sip_ieq(buf + off, h->name, n))
		i = n;
	else if (h->compact && content > 1 && (buf[off + 1] == ':' || sip_is_ws(buf[off + 1])) &&
		 sip_lower(buf[off]) == sip_lower((uint8_t)h->compact))
		i = 1;
	else
		return false;
	while (i < content && sip_is_ws(buf[off + i]))
		i++;
	if (i >= content || buf[off + i] != ':')
		return false;
	*voff = off + i + 1;
	return true;
}

/* The line starting at off of m's headers (as sip_line_end()): from
 * m->line when li is off's place there, else searched. */
static size_t sip_hdr_line_end(const struct sip_msg *m, size_t li, size_t off,
			       size_t end, size_t *content)
{
	size_t nl, c;

	if (li > m->n_lines)
		return sip_line_end(m->buf, off, end, content);
	if (li == m->n_lines) {             /* the blank line */
		*content = 0;
		return m->hdr_len - 1;
	}
	nl = (size_t)m->line[li + 1] - 1;
	c = nl - off;
	if (c > 0 && m->buf[nl - 1] == '\r')
		c--;
	*content = c;
	return nl;
}

/* off's place in m->line, or SIZE_MAX when it is not recorded there. */
static size_t sip_hdr_line_index(const struct sip_msg *m, size_t off)
{
	if (m->n_lines == 0)
		return SIZE_MAX;
	for (size_t i = 0; i <= m->n_lines && m->line[i] <= off; i++)
		if (m->line[i] == off)
			return i;
	return SIZE_MAX;
}

int sip_hdr_find(const struct sip_msg *m, const struct sip_hdr_name *h,
		 size_t *pos, struct sip_span *value)
{
	const uint8_t *buf = m->buf;
	size_t end = m->hdr_len ? m->hdr_len : m->len;
	size_t off = *pos ? *pos : m->hdr_start;
	size_t li = sip_hdr_line_index(m, off);
	size_t content, nl, voff, vend;
	size_t n = strlen(h->name);
	/* the first letter of either name: most lines fail on it alone */
	unsigned char first = sip_lower((uint8_t)h->name[0]);
	unsigned char compact = h->compact ? sip_lower((uint8_t)h->compact) : first;

	/* li follows off through m->line (SIZE_MAX stays SIZE_MAX) */
	for (; off < end; off = nl + 1, li += li != SIZE_MAX) {
		unsigned char c;

		nl = sip_hdr_line_end(m, li, off, end, &content);
		if (content == 0)
			break;                      /* the blank line */
		c = sip_lower(buf[off]);
		if (sip_is_ws(c) || (c != first && c != compact) ||
		    !sip_hdr_match(buf, off, content, h, n, &voff))
			continue;
		vend = off + content;
		/* folded: continuation lines start with white space */
		while (nl + 1 < end && sip_is_ws(buf[nl + 1])) {
			size_t cstart = nl + 1;

			li += li != SIZE_MAX;
			nl = sip_hdr_line_end(m, li, cstart, end, &content);
			vend = cstart + content;
		}
		while (voff < vend && sip_is_lws(buf[voff]))
			voff++;
		value->off = voff;
		value->len = vend - voff;
		*pos = nl + 1;
		return 1;
	}
	*pos = end;
	return 0;
}

int sip_cseq_parse(const struct sip_msg *m, uint32_t *num,
		   enum sip_method *method)
{
	struct sip_span v;
	size_t pos = 0, used, i, mstart;
	const uint8_t *p;

	if (sip_hdr_find(m, &sip_hdr_cseq, &pos, &v) != 1)
		return -EINVAL;
	p = m->buf + v.off;
	if (cth_parse_uint(p, v.len, UINT32_MAX, num, &used) < 0)
		return -EINVAL;
	i = used;
	while (i < v.len && sip_is_lws(p[i]))
		i++;
	if (i == used || i == v.len)
		return -EINVAL;
	mstart = i;
	while (i < v.len && sip_is_token(p[i]))
		i++;
	*method = sip_method_lookup(p + mstart, i - mstart);
	return 0;
}

/* ------------------------------------------------------------ addresses */

static size_t sip_trim_end(const uint8_t *buf, size_t off, size_t end)
{
	while (end > off && sip_is_lws(buf[end - 1]))
		end--;
	return end;
}

static bool sip_is_ipv4_text(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((p[i] >= '0' && p[i] <= '9') || p[i] == '.'))
			return false;
	return n > 0;
}

static int sip_port_parse(const uint8_t *p, size_t n, uint16_t *port)
{
	uint32_t v;
	size_t used;

	if (cth_parse_uint(p, n, 65535, &v, &used) < 0 || used != n || v == 0)
		return -EINVAL;
	*port = (uint16_t)v;
	return 0;
}

int sip_hostport_parse(const uint8_t *buf, size_t off, size_t end, int family,
		       struct sip_hostport *hp)
{
	size_t hend, pstart = 0;
	int ret;

	end = sip_trim_end(buf, off, end);
	memset(hp, 0, sizeof(*hp));
	hp->port = SIP_DEFAULT_PORT;
	if (off >= end)
		return -EINVAL;
	if (buf[off] == '[') {
		const uint8_t *rb = memchr(buf + off, ']', end - off);

		if (!rb)
			return -EINVAL;
		hend = (size_t)(rb - buf) + 1;
		if (family != AF_INET6)
			return -ENOENT;    /* not this connection's family */
		ret = cth_addr_parse(AF_INET6, buf + off + 1, hend - off - 2, &hp->addr);
		if (ret < 0)
			return -EINVAL;
		if (hend < end) {
			if (buf[hend] != ':')
				return -EINVAL;
			pstart = hend + 1;
		}
	} else if (family == AF_INET6 && memchr(buf + off, ':', end - off) &&
		   cth_addr_parse(AF_INET6, buf + off, end - off, &hp->addr) == 0) {
		hend = end;               /* bare IPv6 (received=): no port */
	} else {
		const uint8_t *colon = memchr(buf + off, ':', end - off);

		hend = colon ? (size_t)(colon - buf) : end;
		if (family != AF_INET)
			return -ENOENT;    /* not this connection's family */
		/* a host name, or not ours: -ENOENT; digits and dots that are
		 * no address: -EINVAL (asked only when the parse fails) */
		if (cth_addr_parse(AF_INET, buf + off, hend - off, &hp->addr) < 0)
			return sip_is_ipv4_text(buf + off, hend - off) ? -EINVAL : -ENOENT;
		if (colon)
			pstart = hend + 1;
	}
	if (pstart) {
		if (sip_port_parse(buf + pstart, end - pstart, &hp->port) < 0)
			return -EINVAL;
		hp->has_port = true;
		hend = end;
	}
	hp->span.off = off;
	hp->span.len = hend - off;
	return 0;
}

/* The next byte c at or after off outside quotes and angle brackets (a
 * header's own separator, not one inside a display name or a URI), or
 * end. */
static size_t sip_find_top(const uint8_t *buf, size_t off, size_t end, uint8_t want)
{
	bool quoted = false, angle = false;

	for (size_t i = off; i < end; i++) {
		uint8_t c = buf[i];

		if (quoted) {
			if (c == '\\' && i + 1 < end)
				i++;
			else if (c == '"')
				quoted = false;
		} else if (c == '"') {
			quoted = true;
		} else if (c == '<') {
			angle = true;
		} else if (c == '>') {
			angle = false;
		} else if (c == want && !angle) {
			return i;
		}
	}
	return end;
}

/* End of the entry starting at off: the next comma outside quotes and
 * angle brackets, or end. */
static size_t sip_entry_end(const uint8_t *buf, size_t off, size_t end)
{
	/* most values have no comma at all: nothing to walk */
	if (off >= end || !memchr(buf + off, ',', end - off))
		return end;
	return sip_find_top(buf, off, end, ',');
}

static const uint8_t *sip_find_ci(const uint8_t *buf, size_t off, size_t end,
				  const char *word)
{
	size_t n = strlen(word);

	for (size_t i = off; i + n <= end; i++)
		if (sip_ieq(buf + i, word, n))
			return buf + i;
	return NULL;
}

/* Where a URI's scheme ends: after "sip:" / "sips:", outside quotes. */
static size_t sip_scheme_end(const uint8_t *buf, size_t off, size_t end)
{
	bool quoted = false;

	for (size_t i = off; i < end; i++) {
		/* a quoted-pair (\") does not end the display name */
		if (quoted && buf[i] == '\\') {
			i++;
			continue;
		}
		if (buf[i] == '"')
			quoted = !quoted;
		if (quoted || sip_lower(buf[i]) != 's')
			continue;
		if (i + 4 <= end && sip_ieq(buf + i, "sip:", 4) &&
		    (i == off || !sip_is_token(buf[i - 1])))
			return i + 4;
		if (i + 5 <= end && sip_ieq(buf + i, "sips:", 5) &&
		    (i == off || !sip_is_token(buf[i - 1])))
			return i + 5;
	}
	return 0;
}

/* One ";name=value" parameter list between off and end. */
static void sip_params_read(const uint8_t *buf, size_t off, size_t end,
			    struct sip_uri *u)
{
	for (size_t i = off; i < end; i++) {
		size_t vstart, vend;
		uint32_t v;
		size_t used;

		if (buf[i] != ';')
			continue;
		vstart = i + 1;
		while (vstart < end && sip_is_lws(buf[vstart]))
			vstart++;
		vend = vstart;
		while (vend < end && buf[vend] != ';' && buf[vend] != '>' && buf[vend] != '?')
			vend++;
		if (vend - vstart > 10 && sip_ieq(buf + vstart, "transport=", 10)) {
			if (vend - vstart - 10 >= 3 && sip_ieq(buf + vstart + 10, "tcp", 3))
				u->transport = IPPROTO_TCP;
			else if (vend - vstart - 10 >= 3 && sip_ieq(buf + vstart + 10, "udp", 3))
				u->transport = IPPROTO_UDP;
		} else if (vend - vstart > 8 && sip_ieq(buf + vstart, "expires=", 8) &&
			   cth_parse_uint(buf + vstart + 8, vend - vstart - 8, UINT32_MAX,
					  &v, &used) == 0) {
			u->has_expires = true;
			u->expires = v;
		}
	}
}

int sip_uri_parse(const uint8_t *buf, struct sip_span v, int family,
		  struct sip_uri *u, size_t *next)
{
	size_t vend = v.off + v.len;
	size_t eend = sip_entry_end(buf, v.off, vend);
	size_t start = v.off, uend, hstart, hend, s;
	const uint8_t *lt, *at;
	bool angle;
	int ret;

	memset(u, 0, sizeof(*u));
	*next = eend < vend ? eend + 1 : vend;
	while (start < eend && sip_is_lws(buf[start]))
		start++;
	u->whole.off = start;
	u->whole.len = sip_trim_end(buf, start, eend) - start;
	if (start < eend && buf[start] == '*')
		return 0;
	s = sip_scheme_end(buf, start, eend);
	if (!s)
		return 0;                   /* tel:, a bare name, nothing */
	lt = memchr(buf + start, '<', s - start);
	angle = lt != NULL;
	if (angle) {
		const uint8_t *gt = memchr(buf + s, '>', eend - s);

		if (!gt)
			return -EINVAL;
		uend = (size_t)(gt - buf);
	} else {
		uend = s;
		while (uend < eend && buf[uend] != ';' && buf[uend] != '?' &&
		       !sip_is_lws(buf[uend]))
			uend++;
	}
	at = memchr(buf + s, '@', uend - s);
	hstart = at ? (size_t)(at - buf) + 1 : s;
	hend = hstart;
	if (hend < uend && buf[hend] == '[') {
		const uint8_t *rb = memchr(buf + hend, ']', uend - hend);

		if (!rb)
			return -EINVAL;
		hend = (size_t)(rb - buf) + 1;
	}
	while (hend < uend && buf[hend] != ';' && buf[hend] != '?' &&
	       !sip_is_lws(buf[hend]))
		hend++;
	ret = sip_hostport_parse(buf, hstart, hend, family, &u->hp);
	if (ret < 0)
		return ret;
	sip_params_read(buf, hend, eend, u);
	return 1;
}

bool sip_uri_next(const struct sip_msg *m, const struct sip_hdr_name *h,
		  int family, struct sip_uri_iter *it, struct sip_uri *u,
		  int *parsed)
{
	size_t end, next;

	while (it->v.len == 0)
		if (sip_hdr_find(m, h, &it->pos, &it->v) != 1)
			return false;
	end = it->v.off + it->v.len;
	*parsed = sip_uri_parse(m->buf, it->v, family, u, &next);
	/* next > v.off whenever v is not empty: the loop always moves on */
	it->v.off = next;
	it->v.len = end - next;
	return true;
}

/* ";" LWS* name LWS* "=" at buf[off..end): a parameter called name. */
static bool sip_param_named(const uint8_t *buf, size_t off, size_t end,
			    const char *name)
{
	size_t n = strlen(name);

	while (off < end && sip_is_lws(buf[off]))
		off++;
	if (end - off < n || !sip_ieq(buf + off, name, n))
		return false;
	off += n;
	while (off < end && sip_is_lws(buf[off]))
		off++;
	return off < end && buf[off] == '=';
}

bool sip_to_tagged(const struct sip_msg *m)
{
	struct sip_span v;
	size_t pos = 0, end;

	if (sip_hdr_find(m, &sip_hdr_to, &pos, &v) != 1)
		return false;
	end = v.off + v.len;
	/* the header's own parameters: outside the display name's quotes and
	 * the URI's angle brackets (a URI without them cannot carry any,
	 * RFC 3261 20: its ";" already start the header's) */
	for (size_t i = sip_find_top(m->buf, v.off, end, ';'); i < end;
	     i = sip_find_top(m->buf, i + 1, end, ';'))
		if (sip_param_named(m->buf, i + 1, end, "tag"))
			return true;
	return false;
}

int sip_request_uri(const struct sip_msg *m, int family, struct sip_uri *u)
{
	size_t next;

	return sip_uri_parse(m->buf, m->uri, family, u, &next);
}

/* "received=" / "maddr=": an address, no port. */
static int sip_via_addr_param(const uint8_t *buf, size_t off, size_t end,
			      int family, struct sip_hostport *hp)
{
	int ret = sip_hostport_parse(buf, off, end, family, hp);

	return ret == 0 && hp->has_port ? -EINVAL : ret;
}

static void sip_via_param(const uint8_t *buf, size_t off, size_t end,
			  int family, struct sip_via *via)
{
	size_t used;

	if (end - off >= 9 && sip_ieq(buf + off, "received=", 9)) {
		via->has_received = sip_via_addr_param(buf, off + 9, end, family,
						       &via->received) == 0;
	} else if (end - off >= 6 && sip_ieq(buf + off, "maddr=", 6)) {
		via->has_maddr = sip_via_addr_param(buf, off + 6, end, family,
						    &via->maddr) == 0;
	} else if (end - off == 5 && sip_ieq(buf + off, "rport", 5)) {
		via->has_rport = true;
		via->rport.off = end;
		via->rport.len = 0;
	} else if (end - off > 6 && sip_ieq(buf + off, "rport=", 6)) {
		end = sip_trim_end(buf, off, end);
		if (cth_parse_uint(buf + off + 6, end - off - 6, 65535,
				   &via->rport_val, &used) == 0 && used == end - off - 6) {
			via->has_rport = true;
			via->rport.off = off + 6;
			via->rport.len = used;
		}
	}
}

/* "SIP" "/" "2.0" "/" transport, white space around the slashes allowed. */
static size_t sip_via_protocol(const uint8_t *buf, size_t off, size_t end,
			       uint8_t *proto)
{
	size_t i = off, t;
	unsigned int slashes = 0;

	while (i < end && slashes < 2) {
		if (buf[i] == '/')
			slashes++;
		else if (!sip_is_token(buf[i]) && !sip_is_lws(buf[i]))
			return 0;
		i++;
	}
	if (slashes < 2 || !sip_find_ci(buf, off, i, "SIP"))
		return 0;
	while (i < end && sip_is_lws(buf[i]))
		i++;
	t = i;
	while (i < end && sip_is_token(buf[i]))
		i++;
	*proto = (i - t == 3 && sip_ieq(buf + t, "UDP", 3)) ? IPPROTO_UDP :
		 (i - t == 3 && sip_ieq(buf + t, "TCP", 3)) ? IPPROTO_TCP : 0;
	return i == t ? 0 : i;
}

int sip_via_parse(const uint8_t *buf, struct sip_span v, int family,
		  struct sip_via *via)
{
	size_t vend = v.off + v.len;
	size_t eend = sip_entry_end(buf, v.off, vend);
	size_t i, hstart, hend;
	int ret;

	memset(via, 0, sizeof(*via));
	i = sip_via_protocol(buf, v.off, eend, &via->proto);
	if (!i)
		return -EINVAL;
	while (i < eend && sip_is_lws(buf[i]))
		i++;
	hstart = hend = i;
	if (hend < eend && buf[hend] == '[') {
		const uint8_t *rb = memchr(buf + hend, ']', eend - hend);

		if (!rb)
			return -EINVAL;
		hend = (size_t)(rb - buf) + 1;
	}
	while (hend < eend && buf[hend] != ';' && !sip_is_lws(buf[hend]))
		hend++;
	ret = sip_hostport_parse(buf, hstart, hend, family, &via->hp);
	if (ret < 0)
		return ret;
	via->param_end.off = sip_trim_end(buf, hend, eend);
	for (i = hend; i < eend; i++) {
		size_t p, pend;

		if (buf[i] != ';')
			continue;
		p = i + 1;
		while (p < eend && sip_is_lws(buf[p]))
			p++;
		pend = p;
		while (pend < eend && buf[pend] != ';')
			pend++;
		sip_via_param(buf, p, sip_trim_end(buf, p, pend), family, via);
		i = pend - 1;
	}
	return 1;
}

/* Written by hand, not with snprintf(): NAT writes several per message. */
int sip_format_hostport(int family, const union cth_addr *addr, uint16_t port,
			bool with_port, bool brackets, char *buf, size_t size)
{
	char text[SIP_FORMAT_MAX];
	size_t n = 0;
	int len;

	brackets = brackets && family == AF_INET6;
	if (brackets)
		text[n++] = '[';
	len = cth_addr_format(family, addr, text + n, sizeof(text) - n);
	if (len < 0)
		return len;
	n += (size_t)len;
	if (brackets)
		text[n++] = ']';
	if (with_port) {
		text[n++] = ':';
		len = cth_format_uint(port, text + n, sizeof(text) - n);
		if (len < 0)
			return len;
		n += (size_t)len;
	}
	if (n >= size)
		return -ENOSPC;
	memcpy(buf, text, n);
	buf[n] = '\0';
	return (int)n;
}
