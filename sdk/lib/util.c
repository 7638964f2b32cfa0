/* SPDX-License-Identifier: MIT */
/*
 * Bounded text helpers for plugins.  See cthelperd/util.h.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include <cthelperd/util.h>

/* ASCII only: tolower() would follow the daemon's locale. */
static unsigned char util_ascii_lower(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') ? (unsigned char)(c - 'A' + 'a') : c;
}

enum cth_prefix cth_prefix_match(const void *buf, size_t len, const char *word)
{
	const unsigned char *p = buf;
	size_t wlen = strlen(word);
	size_t n = len < wlen ? len : wlen;
	size_t i;

	if (len == 0)
		return CTH_PREFIX_NO;
	for (i = 0; i < n; i++)
		if (util_ascii_lower(p[i]) !=
		    util_ascii_lower((unsigned char)word[i]))
			return CTH_PREFIX_NO;
	return len < wlen ? CTH_PREFIX_TRUNCATED : CTH_PREFIX_YES;
}

int cth_parse_uint(const void *buf, size_t len, uint32_t max, uint32_t *val,
		   size_t *used)
{
	const unsigned char *p = buf;
	uint32_t v = 0;
	bool too_big = false;
	size_t i;

	for (i = 0; i < len && p[i] >= '0' && p[i] <= '9'; i++) {
		/* v <= max < 2^32: no overflow in 64 bits, no division */
		uint64_t next = (uint64_t)v * 10u + (uint32_t)(p[i] - '0');

		/* Keep consuming digits so *used is right, but stop
		 * accumulating once the value is out of range. */
		if (too_big || next > max)
			too_big = true;
		else
			v = (uint32_t)next;
	}
	if (i == 0)
		return -EINVAL;
	if (too_big)
		return -ERANGE;
	*val = v;
	if (used)
		*used = i;
	return 0;
}

static bool util_word_in(const char *text, const char *const *words)
{
	for (; *words; words++)
		if (strlen(text) == strlen(*words) &&
		    cth_prefix_match(text, strlen(text), *words) ==
		    CTH_PREFIX_YES)
			return true;
	return false;
}

int cth_parse_bool(const char *text, bool *val)
{
	static const char *const yes[] = { "yes", "true", "on", "1", NULL };
	static const char *const no[] = { "no", "false", "off", "0", NULL };

	if (util_word_in(text, yes))
		*val = true;
	else if (util_word_in(text, no))
		*val = false;
	else
		return -EINVAL;
	return 0;
}

size_t cth_line_len(const void *buf, size_t len)
{
	const unsigned char *nl = len ? memchr(buf, '\n', len) : NULL;

	return nl ? (size_t)(nl - (const unsigned char *)buf) : len;
}

static size_t util_addr_size(int family)
{
	switch (family) {
	case AF_INET:
		return 4;
	case AF_INET6:
		return 16;
	default:
		return 0;
	}
}

/* What inet_pton() takes for IPv4: four numbers 0..255 separated by
 * single dots, none with a leading zero (but "0" itself), nothing more. */
static bool util_ipv4_parse(const unsigned char *p, size_t len, uint8_t out[4])
{
	size_t i = 0;

	for (size_t part = 0; part < 4; part++) {
		unsigned int v = 0;
		size_t start;

		if (part > 0) {
			if (i >= len || p[i] != '.')
				return false;
			i++;
		}
		start = i;
		for (; i < len && p[i] >= '0' && p[i] <= '9'; i++) {
			if (i > start && v == 0)
				return false;
			v = v * 10u + (unsigned int)(p[i] - '0');
			if (v > 255u)
				return false;
		}
		if (i == start)
			return false;
		out[part] = (uint8_t)v;
	}
	return i == len;
}

int cth_addr_parse(int family, const void *buf, size_t len,
		   union cth_addr *addr)
{
	char text[CTH_ADDR_STRLEN];
	union cth_addr tmp;

	if (util_addr_size(family) == 0)
		return -EAFNOSUPPORT;
	if (len == 0 || len >= sizeof(text))
		return -EINVAL;
	/* IPv4 by hand: inet_pton() would need a copy to add a NUL, and
	 * costs as much again (NAT parses every address of a message) */
	if (family == AF_INET) {
		memset(&tmp, 0, sizeof(tmp));
		if (!util_ipv4_parse(buf, len, tmp.raw))
			return -EINVAL;
		*addr = tmp;
		return 0;
	}
	/* inet_pton() wants a C string; the payload has no NUL. */
	if (memchr(buf, '\0', len))
		return -EINVAL;
	memcpy(text, buf, len);
	text[len] = '\0';
	memset(&tmp, 0, sizeof(tmp));
	if (inet_pton(family, text, tmp.raw) != 1)
		return -EINVAL;
	*addr = tmp;
	return 0;
}

int cth_format_uint(uint32_t v, char *buf, size_t size)
{
	static const uint32_t pow10[] = {
		10u, 100u, 1000u, 10000u, 100000u, 1000000u, 10000000u,
		100000000u, 1000000000u,
	};
	size_t n = 1;

	while (n < 10 && v >= pow10[n - 1])
		n++;
	if (size <= n)
		return -ENOSPC;
	buf[n] = '\0';
	for (size_t i = n; i-- > 0; v /= 10u)
		buf[i] = (char)('0' + v % 10u);
	return (int)n;
}

/* One byte of a dotted quad at p; returns its length. */
static size_t util_put_octet(char *p, unsigned int v)
{
	size_t n = 0;

	if (v >= 100u) {
		p[n++] = (char)('0' + v / 100u);
		v %= 100u;
		p[n++] = (char)('0' + v / 10u);
		v %= 10u;
	} else if (v >= 10u) {
		p[n++] = (char)('0' + v / 10u);
		v %= 10u;
	}
	p[n++] = (char)('0' + v);
	return n;
}

int cth_addr_format(int family, const union cth_addr *addr, char *buf,
		    size_t size)
{
	if (util_addr_size(family) == 0)
		return -EAFNOSUPPORT;
	/* What inet_ntop() writes for IPv4, without its sprintf(). */
	if (family == AF_INET) {
		char text[sizeof("255.255.255.255")];
		size_t n = 0;

		for (size_t i = 0; i < 4; i++) {
			if (i)
				text[n++] = '.';
			n += util_put_octet(text + n, addr->raw[i]);
		}
		text[n] = '\0';
		if (size <= n)
			return -ENOSPC;
		memcpy(buf, text, n + 1);
		return (int)n;
	}
	if (size > (size_t)INT32_MAX)
		size = INT32_MAX;
	if (!inet_ntop(family, addr->raw, buf, (socklen_t)size))
		return -ENOSPC;
	return (int)strlen(buf);
}

bool cth_addr_equal(int family, const union cth_addr *a,
		    const union cth_addr *b)
{
	/* constant sizes: the compiler compares in place, no memcmp() call */
	switch (family) {
	case AF_INET:
		return memcmp(a->raw, b->raw, 4) == 0;
	case AF_INET6:
		return memcmp(a->raw, b->raw, 16) == 0;
	default:
		return false;
	}
}

void cth_addr_copy(int family, union cth_addr *dst, const union cth_addr *src)
{
	size_t n = util_addr_size(family);

	if (n == 0)
		n = sizeof(dst->raw);
	memset(dst, 0, sizeof(*dst));
	memcpy(dst->raw, src->raw, n);
}

void cth_log_addr(struct cth_ctx *ctx, int level, const char *what, int family,
		  const union cth_addr *addr, unsigned int port)
{
	char text[CTH_ADDR_STRLEN];

	if (cth_addr_format(family, addr, text, sizeof(text)) < 0)
		strcpy(text, "?");
	cth_log(ctx, level, "%s %s port %u", what, text, port);
}

int cth_expect_free_port(struct cth_ctx *ctx, struct cth_expect *exp,
			 uint16_t first, unsigned int tries)
{
	uint32_t p = first;
	int ret;

	for (unsigned int i = 0; i < tries && p <= 65535u; i++, p++) {
		exp->dport = (uint16_t)p;
		ret = cth_expect(ctx, exp, CTH_EXPECT_SYNC);
		if (ret != -EBUSY && ret != -EEXIST)
			return ret;
	}
	return -EBUSY;
}

/*
 * The receiver of pkt opens the expected connection, so it travels in the
 * master's direction !dir: its tuple is that direction's as the receiver
 * sends it (tuple[!dir].src to tuple[!dir].dst).  Under NAT the kernel's
 * nf_nat_follow_master() maps it with exp->dir = !dir: source to
 * tuple[dir].dst, destination to tuple[dir].src port saved_proto, which is
 * the sender's real address.
 */
static void util_expect_base(struct cth_expect *exp, const struct cth_packet *pkt,
			     unsigned int class, uint8_t proto, uint16_t nat_port)
{
	const struct cth_tuple *back = &pkt->tuple[!pkt->dir];

	memset(exp, 0, sizeof(*exp));
	exp->class = class;
	exp->family = back->family;
	exp->proto = proto;
	cth_addr_copy(back->family, &exp->src, &back->src);
	cth_addr_copy(back->family, &exp->dst, &back->dst);
	if (!pkt->nat)
		return;
	exp->flags = CTH_EXPECT_NAT;
	exp->nat_dir = (enum cth_dir)!pkt->dir;
	/* not read by the kernel (follow-master takes the master's), but
	 * where the connection ends up: the sender's real address */
	cth_addr_copy(back->family, &exp->nat_addr, &pkt->tuple[pkt->dir].src);
	exp->nat_port = nat_port;
	exp->fn = CTH_EXPECT_FN_NAT_FOLLOW_MASTER;
}

void cth_expect_back(struct cth_expect *exp, const struct cth_packet *pkt,
		     unsigned int class, uint8_t proto)
{
	util_expect_base(exp, pkt, class, proto, pkt->tuple[pkt->dir].sport);
	/* the port the receiver sees the sender use: NAT may have moved it */
	exp->dport = pkt->tuple[!pkt->dir].dport;
}

bool cth_expect_to(struct cth_expect *exp, const struct cth_packet *pkt,
		   unsigned int class, uint8_t proto, const union cth_addr *addr,
		   uint16_t port)
{
	const struct cth_tuple *own = &pkt->tuple[pkt->dir];
	const struct cth_tuple *back = &pkt->tuple[!pkt->dir];
	int family = own->family;

	util_expect_base(exp, pkt, class, proto, port);
	exp->dport = port;
	if (cth_addr_equal(family, addr, &own->src) ||
	    cth_addr_equal(family, addr, &back->dst))
		return true;
	/* a third host: reached as announced, the firewall's own NAT rules
	 * apply to the new connection as to any other */
	exp->flags = 0;
	exp->nat_dir = CTH_DIR_ORIGINAL;
	memset(&exp->nat_addr, 0, sizeof(exp->nat_addr));
	exp->nat_port = 0;
	exp->fn = NULL;
	cth_addr_copy(family, &exp->dst, addr);
	return false;
}

/* The link view keeps no family of its own (the host fills it in the
 * packet's): an IPv4 network has nothing past its first four bytes and
 * at most 32 bits, so that much tells. */
int cth_expect_src_net(struct cth_expect *exp, const struct cth_link *link)
{
	static const uint8_t zero[12];
	unsigned int bits = exp->family == AF_INET6 ? 128u : 32u;

	if (!link->net_prefix || link->net_prefix > bits ||
	    (exp->family != AF_INET && exp->family != AF_INET6) ||
	    (exp->family == AF_INET && memcmp(link->net.raw + 4, zero, sizeof(zero)) != 0))
		return -ENOENT;
	exp->src = link->net;
	exp->src_prefix = link->net_prefix;
	exp->flags = (exp->flags & ~(unsigned int)CTH_EXPECT_ANY_SRC) | CTH_EXPECT_SRC_PREFIX;
	return 0;
}

int cth_expect_answers(struct cth_expect *exp, const struct cth_packet *pkt,
		       const struct cth_link *link, unsigned int class,
		       uint16_t sport)
{
	cth_expect_back(exp, pkt, class, IPPROTO_UDP);
	exp->sport = sport;
	exp->flags |= CTH_EXPECT_PERMANENT;
	if (!link) {
		exp->flags |= CTH_EXPECT_ANY_SRC;
		return 0;
	}
	return cth_expect_src_net(exp, link);
}
