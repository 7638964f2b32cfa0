/* SPDX-License-Identifier: MIT */
/*
 * TNS packet headers and connect descriptors.  See tns_parse.h; what is
 * accepted, and why, is in docs/plugins/tns.md.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "tns_parse.h"

uint16_t tns_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

void tns_put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

void tns_put32(uint8_t *p, uint32_t v)
{
	tns_put16(p, v >> 16);
	tns_put16(p + 2, v & 0xffffu);
}

int tns_hdr_parse(const uint8_t *buf, size_t len, struct tns_hdr *h)
{
	uint32_t plen;

	if (len < TNS_HDR_LEN)
		return -EAGAIN;
	plen = tns_get16(buf);
	h->wide = plen == 0;
	if (h->wide)
		plen = (uint32_t)tns_get16(buf) << 16 | tns_get16(buf + 2);
	if (plen < TNS_HDR_LEN || buf[4] == 0 || buf[4] > TNS_TYPE_MAX)
		return -EINVAL;
	h->len = plen;
	h->type = buf[4];
	h->flags = buf[5];
	return 0;
}

const char *tns_type_name(uint8_t type)
{
	static const char *const names[] = {
		[TNS_TYPE_CONNECT] = "CONNECT",
		[TNS_TYPE_ACCEPT] = "ACCEPT",
		[TNS_TYPE_ACK] = "ACK",
		[TNS_TYPE_REFUSE] = "REFUSE",
		[TNS_TYPE_REDIRECT] = "REDIRECT",
		[TNS_TYPE_DATA] = "DATA",
		[TNS_TYPE_NULL] = "NULL",
		[TNS_TYPE_ABORT] = "ABORT",
		[TNS_TYPE_RESEND] = "RESEND",
		[TNS_TYPE_MARKER] = "MARKER",
		[TNS_TYPE_ATTENTION] = "ATTENTION",
		[TNS_TYPE_CONTROL] = "CONTROL",
	};

	if (type < sizeof(names) / sizeof(names[0]) && names[type])
		return names[type];
	return "other";
}

/* ------------------------------------------------------------ descriptor */

/* The keys of an address group the helper reads. */
enum tns_key {
	TNS_KEY_OTHER = 0,
	TNS_KEY_HOST,
	TNS_KEY_PORT,
	TNS_KEY_PROTOCOL,
};

/* Bits of tns_frame::seen. */
enum {
	TNS_SEEN_HOST = 1u << 0,
	TNS_SEEN_PORT = 1u << 1,
	TNS_SEEN_PROTOCOL = 1u << 2,
	TNS_SEEN_BAD = 1u << 3,   /* a key twice, a bad value: never used */
};

/* One open parenthesis: its own key and value when it is a leaf
 * (KEY=VALUE), and what its leaves said when it is a group. */
struct tns_frame {
	enum tns_key key;
	bool leaf;
	struct tns_span value;
	unsigned int seen;
	struct tns_addr addr;
};

struct tns_scan {
	const uint8_t *buf;
	size_t len;
	size_t pos;
	unsigned int depth;   /* frames open; frame[0] is the descriptor itself */
	struct tns_frame frame[TNS_DESC_DEPTH + 1];
};

static bool tns_is_space(uint8_t c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static bool tns_is_key_char(uint8_t c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
}

static bool tns_is_name_char(uint8_t c)
{
	return tns_is_key_char(c);
}

static void tns_skip_space(struct tns_scan *s)
{
	while (s->pos < s->len && tns_is_space(s->buf[s->pos]))
		s->pos++;
}

/* Exactly word, ignoring ASCII case. */
static bool tns_word_is(const uint8_t *p, size_t len, const char *word)
{
	return len == strlen(word) && cth_prefix_match(p, len, word) == CTH_PREFIX_YES;
}

static enum tns_key tns_key_of(const uint8_t *p, size_t len)
{
	if (tns_word_is(p, len, "HOST"))
		return TNS_KEY_HOST;
	if (tns_word_is(p, len, "PORT"))
		return TNS_KEY_PORT;
	if (tns_word_is(p, len, "PROTOCOL"))
		return TNS_KEY_PROTOCOL;
	return TNS_KEY_OTHER;
}

static bool tns_host_parse(const uint8_t *buf, struct tns_span v, struct tns_addr *a)
{
	const uint8_t *p = buf + v.off;
	bool colon = false;

	if (v.len >= 2 && p[0] == '[' && p[v.len - 1] == ']') {
		v.off++;
		v.len -= 2;
		p++;
	}
	if (v.len == 0)
		return false;
	a->host = v;
	for (size_t i = 0; i < v.len; i++)
		colon |= p[i] == ':';
	if (colon) {
		a->family = AF_INET6;
		return cth_addr_parse(AF_INET6, p, v.len, &a->addr) == 0;
	}
	if (cth_addr_parse(AF_INET, p, v.len, &a->addr) == 0) {
		a->family = AF_INET;
		return true;
	}
	/* a host name: reported, never resolved */
	a->family = 0;
	memset(&a->addr, 0, sizeof(a->addr));
	for (size_t i = 0; i < v.len; i++)
		if (!tns_is_name_char(p[i]))
			return false;
	return true;
}

static bool tns_port_parse(const uint8_t *buf, struct tns_span v, struct tns_addr *a)
{
	uint32_t port;
	size_t used;

	if (cth_parse_uint(buf + v.off, v.len, 65535, &port, &used) < 0 ||
	    used != v.len || port == 0)
		return false;
	a->port = v;
	a->port_val = (uint16_t)port;
	return true;
}

/* A closed leaf tells its group one of the keys it reads. */
static void tns_leaf_apply(const struct tns_scan *s, const struct tns_frame *leaf,
			   struct tns_frame *group)
{
	unsigned int bit;
	bool ok;

	switch (leaf->key) {
	case TNS_KEY_HOST:
		bit = TNS_SEEN_HOST;
		ok = !(group->seen & bit) && tns_host_parse(s->buf, leaf->value, &group->addr);
		break;
	case TNS_KEY_PORT:
		bit = TNS_SEEN_PORT;
		ok = !(group->seen & bit) && tns_port_parse(s->buf, leaf->value, &group->addr);
		break;
	case TNS_KEY_PROTOCOL:
		bit = TNS_SEEN_PROTOCOL;
		ok = !(group->seen & bit) &&
		     (tns_word_is(s->buf + leaf->value.off, leaf->value.len, "tcp") ||
		      tns_word_is(s->buf + leaf->value.off, leaf->value.len, "tcps"));
		break;
	default:
		return;
	}
	group->seen |= ok ? bit : TNS_SEEN_BAD;
}

static bool tns_group_done(const struct tns_frame *f)
{
	return (f->seen & (TNS_SEEN_HOST | TNS_SEEN_PORT | TNS_SEEN_BAD)) ==
	       (TNS_SEEN_HOST | TNS_SEEN_PORT);
}

/* After '(': the key, '=', and the value unless a group follows. */
static void tns_open(struct tns_scan *s)
{
	struct tns_frame *f = &s->frame[s->depth];
	size_t k0, v0, v1;

	memset(f, 0, sizeof(*f));
	tns_skip_space(s);
	k0 = s->pos;
	while (s->pos < s->len && tns_is_key_char(s->buf[s->pos]))
		s->pos++;
	f->key = tns_key_of(s->buf + k0, s->pos - k0);
	tns_skip_space(s);
	if (s->pos == s->len || s->buf[s->pos] != '=')
		return;
	s->pos++;
	tns_skip_space(s);
	if (s->pos == s->len || s->buf[s->pos] == '(')
		return;
	v0 = s->pos;
	while (s->pos < s->len && s->buf[s->pos] != ')' && s->buf[s->pos] != '(')
		s->pos++;
	/* a value must end with its ')': one cut short is no value */
	if (s->pos == s->len || s->buf[s->pos] == '(')
		return;
	v1 = s->pos;
	while (v1 > v0 && tns_is_space(s->buf[v1 - 1]))
		v1--;
	f->leaf = true;
	f->value.off = v0;
	f->value.len = v1 - v0;
}

/* A ')' closes the innermost frame.  True when it completed an address. */
static bool tns_close(struct tns_scan *s, struct tns_addr *a)
{
	struct tns_frame *f = &s->frame[s->depth];

	s->depth--;
	if (f->leaf) {
		tns_leaf_apply(s, f, &s->frame[s->depth]);
		return false;
	}
	if (!tns_group_done(f))
		return false;
	*a = f->addr;
	return true;
}

int tns_desc_parse(const uint8_t *buf, size_t len, struct tns_addr *a)
{
	static struct tns_scan zero;
	struct tns_scan s = zero;

	s.buf = buf;
	s.len = len;
	while (s.pos < s.len) {
		uint8_t c = buf[s.pos++];

		if (c == '(') {
			if (s.depth == TNS_DESC_DEPTH)
				return -EINVAL;
			s.depth++;
			tns_open(&s);
		} else if (c == ')' && s.depth > 0) {
			if (tns_close(&s, a))
				return 1;
		}
	}
	/* a descriptor cut short after its address still names it; the
	 * innermost open group first, the bare descriptor last */
	for (unsigned int d = s.depth + 1; d-- > 0;) {
		if (!s.frame[d].leaf && tns_group_done(&s.frame[d])) {
			*a = s.frame[d].addr;
			return 1;
		}
	}
	return 0;
}

int tns_format_addr(int family, const union cth_addr *addr, char *buf, size_t size)
{
	return cth_addr_format(family, addr, buf, size);
}

int tns_format_port(uint16_t port, char *buf, size_t size)
{
	int n = snprintf(buf, size, "%u", (unsigned int)port);

	if (n < 0 || (size_t)n >= size)
		return -ENOSPC;
	return n;
}
