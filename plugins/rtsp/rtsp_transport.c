/* SPDX-License-Identifier: MIT */
/*
 * Transport header parsing, RTSP/1.0 and RTSP/2.0 syntax alike: a
 * message's version does not decide which parameters a client writes
 * (RTSP/2.0 servers answer both), so every spec is read for both.
 */
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>

#include <cthelperd/util.h>

#include "rtsp_transport.h"

static bool rtsp_spec_parse(const uint8_t *buf, size_t off, size_t end, int family,
			    struct rtsp_spec *s);

unsigned int rtsp_transport_parse(const uint8_t *buf, size_t off, size_t len, int family,
				  struct rtsp_spec *specs, unsigned int max)
{
	size_t end = off + len, p = off;
	unsigned int n = 0;

	while (p < end && n < max) {
		size_t e = p;
		bool quoted = false;

		/* dest_addr's quoted strings could hold a comma */
		for (; e < end && (quoted || buf[e] != ','); e++)
			if (buf[e] == '"')
				quoted = !quoted;
		if (rtsp_spec_parse(buf, p, e, family, &specs[n]))
			n++;
		p = e + 1;
	}
	return n;
}

bool rtsp_ports_pair(const struct rtsp_ports *p, bool rtcp_mux, uint16_t *rtp, uint16_t *rtcp)
{
	if (p->n == 0)
		return false;
	*rtp = p->port[0].val;
	if (p->n == 2)
		*rtcp = p->port[1].val;
	else if (rtcp_mux)
		*rtcp = *rtp;
	else if (*rtp == 65535)
		return false;
	else
		*rtcp = (uint16_t)(*rtp + 1);
	return true;
}

static bool rtsp_blank(uint8_t c)
{
	return c == ' ' || c == '\t';
}

/* [*off, *end) without blanks around it. */
static void rtsp_trim(const uint8_t *buf, size_t *off, size_t *end)
{
	while (*off < *end && rtsp_blank(buf[*off]))
		(*off)++;
	while (*end > *off && rtsp_blank(buf[*end - 1]))
		(*end)--;
}

/* Is buf[off, end) the word, ASCII case ignored? */
static bool rtsp_word_is(const uint8_t *buf, size_t off, size_t end, const char *word)
{
	size_t n = strlen(word);

	return end - off == n && cth_prefix_match(buf + off, n, word) == CTH_PREFIX_YES;
}

/* The RTP profiles carried over UDP by default (RFC 3550, 4585, 3711, 5124). */
static enum rtsp_lower rtsp_lower_parse(const uint8_t *buf, size_t off, size_t end)
{
	static const char *const profiles[] = { "RTP/AVP", "RTP/AVPF", "RTP/SAVP", "RTP/SAVPF" };

	for (size_t i = 0; i < sizeof(profiles) / sizeof(profiles[0]); i++) {
		size_t n = strlen(profiles[i]);

		if (end - off < n || cth_prefix_match(buf + off, n, profiles[i]) != CTH_PREFIX_YES)
			continue;
		if (end - off == n || rtsp_word_is(buf, off + n, end, "/UDP"))
			return RTSP_LOWER_UDP;
		if (rtsp_word_is(buf, off + n, end, "/TCP"))
			return RTSP_LOWER_TCP;
	}
	return RTSP_LOWER_OTHER;
}

/* A port number 1..65535 filling buf[off, end). */
static bool rtsp_port_parse(const uint8_t *buf, size_t off, size_t end, struct rtsp_port *p)
{
	uint32_t v;
	size_t used;

	if (off >= end || cth_parse_uint(buf + off, end - off, 65535, &v, &used) < 0 ||
	    used != end - off || v == 0)
		return false;
	p->val = (uint16_t)v;
	p->text.off = off;
	p->text.len = used;
	return true;
}

/* "a" or "a-b", b = a or a + 1 (an RTP/RTCP pair, RFC 2326 sec. 12.39). */
static bool rtsp_range_parse(const uint8_t *buf, size_t off, size_t end, struct rtsp_ports *ps)
{
	size_t dash = off;

	while (dash < end && buf[dash] != '-')
		dash++;
	if (!rtsp_port_parse(buf, off, dash, &ps->port[0]))
		return false;
	ps->n = 1;
	if (dash == end)
		return true;
	if (!rtsp_port_parse(buf, dash + 1, end, &ps->port[1]) ||
	    ps->port[1].val < ps->port[0].val || ps->port[1].val - ps->port[0].val > 1)
		return false;
	ps->n = 2;
	return true;
}

/* One more place the host is written; every one must name the same. */
static bool rtsp_host_add(const uint8_t *buf, size_t off, size_t end, int family,
			  struct rtsp_host *h)
{
	union cth_addr a;

	if (off < end && buf[off] == '[' && buf[end - 1] == ']' && end - off >= 2) {
		off++;
		end--;
	}
	if (h->n >= 2 || cth_addr_parse(family, buf + off, end - off, &a) < 0)
		return false;
	if (h->set && !cth_addr_equal(family, &a, &h->addr))
		return false;
	h->set = true;
	h->addr = a;
	h->text[h->n].off = off;
	h->text[h->n].len = end - off;
	h->n++;
	return true;
}

/* destination=host / source=host (RFC 2326), quotes tolerated. */
static bool rtsp_addr_param(const uint8_t *buf, size_t off, size_t end, int family,
			    struct rtsp_host *h)
{
	if (end - off >= 2 && buf[off] == '"' && buf[end - 1] == '"') {
		off++;
		end--;
	}
	h->n = 0;
	h->set = false;
	return rtsp_host_add(buf, off, end, family, h);
}

/* One "host:port", "[v6]:port", ":port" or "host" of dest_addr / src_addr. */
static bool rtsp_hostport_parse(const uint8_t *buf, size_t off, size_t end, int family,
				struct rtsp_host *h, struct rtsp_ports *ps)
{
	size_t colon = end, hend;

	if (off < end && buf[off] == '[') {
		for (hend = off; hend < end && buf[hend] != ']'; hend++)
			;
		if (hend == end)
			return false;
		hend++;
		if (hend < end && buf[hend] != ':')
			return false;
		colon = hend;
	} else {
		for (size_t i = off; i < end; i++)
			if (buf[i] == ':') {
				if (colon != end)
					return rtsp_host_add(buf, off, end, family, h); /* bare IPv6 */
				colon = i;
			}
		hend = colon;
	}
	if (hend > off && !rtsp_host_add(buf, off, hend, family, h))
		return false;
	if (colon == end)
		return true;
	if (ps->n >= 2 || !rtsp_port_parse(buf, colon + 1, end, &ps->port[ps->n]))
		return false;
	ps->n++;
	return true;
}

/* dest_addr="a"/"b" (RFC 7826 sec. 18.54): RTP's, then RTCP's. */
static bool rtsp_addr_list(const uint8_t *buf, size_t off, size_t end, int family,
			   struct rtsp_host *h, struct rtsp_ports *ps)
{
	unsigned int i = 0, before;

	memset(h, 0, sizeof(*h));
	memset(ps, 0, sizeof(*ps));
	while (off < end) {
		size_t q;

		if (buf[off] != '"' || i >= 2)
			return false;
		for (q = off + 1; q < end && buf[q] != '"'; q++)
			;
		if (q == end)
			return false;
		before = ps->n;
		if (!rtsp_hostport_parse(buf, off + 1, q, family, h, ps))
			return false;
		/* a port in the second address only would be read as RTP's */
		if (ps->n != before && before != i)
			return false;
		i++;
		off = q + 1;
		if (off < end && buf[off++] != '/')
			return false;
	}
	return i > 0;
}

/* name[=value]: what the spec learns from one parameter; false: bad. */
static bool rtsp_param(const uint8_t *buf, size_t off, size_t end, int family, struct rtsp_spec *s)
{
	size_t eq = off, v;

	while (eq < end && buf[eq] != '=')
		eq++;
	v = eq < end ? eq + 1 : end;
	rtsp_trim(buf, &off, &eq);
	rtsp_trim(buf, &v, &end);
	if (rtsp_word_is(buf, off, eq, "client_port"))
		return rtsp_range_parse(buf, v, end, &s->client);
	if (rtsp_word_is(buf, off, eq, "server_port"))
		return rtsp_range_parse(buf, v, end, &s->server);
	if (rtsp_word_is(buf, off, eq, "destination"))
		return v == end || rtsp_addr_param(buf, v, end, family, &s->dest);
	if (rtsp_word_is(buf, off, eq, "source"))
		return rtsp_addr_param(buf, v, end, family, &s->src);
	if (rtsp_word_is(buf, off, eq, "dest_addr"))
		return rtsp_addr_list(buf, v, end, family, &s->dest, &s->client);
	if (rtsp_word_is(buf, off, eq, "src_addr"))
		return rtsp_addr_list(buf, v, end, family, &s->src, &s->server);
	if (rtsp_word_is(buf, off, eq, "multicast"))
		s->multicast = true;
	else if (rtsp_word_is(buf, off, eq, "unicast"))
		s->multicast = false;
	else if (rtsp_word_is(buf, off, eq, "RTCP-mux"))
		s->rtcp_mux = true;
	return true;
}

/* One spec, buf[off, end); false for an empty one. */
static bool rtsp_spec_parse(const uint8_t *buf, size_t off, size_t end, int family,
			    struct rtsp_spec *s)
{
	size_t p, id_end;
	uint16_t rtp, rtcp;

	memset(s, 0, sizeof(*s));
	rtsp_trim(buf, &off, &end);
	if (off == end)
		return false;
	for (p = off; p < end && buf[p] != ';'; p++)
		;
	id_end = p;
	rtsp_trim(buf, &off, &id_end);
	s->lower = rtsp_lower_parse(buf, off, id_end);
	while (p < end) {
		size_t q = ++p;
		bool quoted = false;

		for (; q < end && (quoted || buf[q] != ';'); q++)
			if (buf[q] == '"')
				quoted = !quoted;
		if (q > p && !rtsp_param(buf, p, q, family, s))
			s->bad = true;
		p = q;
	}
	/* a single port 65535 has no RTCP port after it */
	if ((s->client.n && !rtsp_ports_pair(&s->client, s->rtcp_mux, &rtp, &rtcp)) ||
	    (s->server.n && !rtsp_ports_pair(&s->server, s->rtcp_mux, &rtp, &rtcp)))
		s->bad = true;
	return true;
}
