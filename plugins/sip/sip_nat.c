/* SPDX-License-Identifier: MIT */
/*
 * NAT rewriting of SIP headers: where a header names this connection's
 * endpoint as one side sees it, the other side must see it as it appears
 * there (nf_nat_sip's rules: Request-URI, the top Via with its maddr=,
 * received= and rport= parameters, every Contact, From, To).  All edits
 * are made on the packet as received; the host applies them in order.
 */
#include <errno.h>
#include <string.h>

#include "sip.h"

int sip_nat_edit(struct sip_ctx *s, struct sip_span span, const char *text,
		 size_t len)
{
	int ret;

	if (span.len == len && memcmp(s->m->buf + span.off, text, len) == 0)
		return 0;
	ret = cth_mangle(s->ctx, s->base + span.off, span.len, text, len);
	if (ret < 0)
		return ret;
	s->edited = true;
	if (span.off >= s->m->body_off)
		s->body_delta += (long)len - (long)span.len;
	return 0;
}

int sip_nat_clen(struct sip_ctx *s)
{
	const struct sip_msg *m = s->m;
	char text[16];
	long body = (long)m->body_len + s->body_delta;
	int n;

	if (s->body_delta == 0 || !m->has_clen)
		return 0;
	if (body < 0 || body > (long)UINT32_MAX)
		return -EINVAL;
	n = cth_format_uint((uint32_t)body, text, sizeof(text));
	return n < 0 ? n : sip_nat_edit(s, m->clen, text, (size_t)n);
}

/*
 * The address the other side must see for addr:port, or false when it
 * names neither end of this connection as this side sees it.
 */
static bool sip_nat_map(const struct sip_ctx *s, const struct sip_hostport *hp,
			union cth_addr *addr, uint16_t *port)
{
	if (cth_addr_equal(s->family, &hp->addr, &s->own->src) &&
	    hp->port == s->own->sport) {
		*addr = s->rev->dst;
		*port = s->rev->dport;
	} else if (cth_addr_equal(s->family, &hp->addr, &s->own->dst) &&
		   hp->port == s->own->dport) {
		*addr = s->rev->src;
		*port = s->rev->sport;
	} else {
		return false;
	}
	return !(cth_addr_equal(s->family, addr, &hp->addr) && *port == hp->port);
}

static int sip_nat_hostport(struct sip_ctx *s, const struct sip_hostport *hp)
{
	char text[SIP_FORMAT_MAX];
	union cth_addr addr;
	uint16_t port;
	int n;

	if (s->done.len && hp->span.off == s->done.off)
		return 0;   /* rewritten already (a registration's Contact) */
	if (!sip_nat_map(s, hp, &addr, &port))
		return 0;
	n = sip_format_hostport(s->family, &addr, port, true, true, text, sizeof(text));
	if (n < 0)
		return n;
	return sip_nat_edit(s, hp->span, text, (size_t)n);
}

/* Every URI entry of every header called h (Contact can list several). */
static int sip_nat_uris(struct sip_ctx *s, const struct sip_hdr_name *h,
			bool all)
{
	struct sip_uri_iter it = { 0 };
	struct sip_uri u;
	int ret;

	while (sip_uri_next(s->m, h, s->family, &it, &u, &ret)) {
		if (ret == 1 && (ret = sip_nat_hostport(s, &u.hp)) < 0)
			return ret;
		if (!all)
			return 0;
	}
	return 0;
}

static int sip_nat_addr_param(struct sip_ctx *s, const struct sip_hostport *hp,
			      const union cth_addr *addr, bool brackets)
{
	char text[SIP_FORMAT_MAX];
	int n = sip_format_hostport(s->family, addr, 0, false, brackets, text, sizeof(text));

	return n < 0 ? n : sip_nat_edit(s, hp->span, text, (size_t)n);
}

/*
 * The top Via names the sender of a request, or in a response the
 * original requester: only then is it this connection's to rewrite, and
 * with it maddr= (where to reply), received= and rport= (what the peer
 * saw as source), which must keep pointing at the translated endpoint.
 */
static int sip_nat_via(struct sip_ctx *s)
{
	const struct cth_tuple *own = s->own, *rev = s->rev;
	int fam = s->family;
	struct sip_span v;
	struct sip_via via;
	size_t pos = 0;
	char text[8];
	int ret, n;

	if (sip_hdr_find(s->m, &sip_hdr_via, &pos, &v) != 1 ||
	    sip_via_parse(s->m->buf, v, fam, &via) != 1)
		return 0;
	if (s->m->request ? !(cth_addr_equal(fam, &via.hp.addr, &own->src) &&
			      via.hp.port == own->sport)
			  : !(cth_addr_equal(fam, &via.hp.addr, &own->dst) &&
			      via.hp.port == own->dport))
		return 0;
	if ((ret = sip_nat_hostport(s, &via.hp)) < 0)
		return ret;
	if (via.has_maddr && cth_addr_equal(fam, &via.maddr.addr, &own->src) &&
	    !cth_addr_equal(fam, &via.maddr.addr, &rev->dst) &&
	    (ret = sip_nat_addr_param(s, &via.maddr, &rev->dst, true)) < 0)
		return ret;
	if (via.has_received && cth_addr_equal(fam, &via.received.addr, &own->dst) &&
	    !cth_addr_equal(fam, &via.received.addr, &rev->src) &&
	    (ret = sip_nat_addr_param(s, &via.received, &rev->src, false)) < 0)
		return ret;
	if (via.has_rport && via.rport.len && via.rport_val == own->dport &&
	    via.rport_val != rev->sport) {
		n = cth_format_uint(rev->sport, text, sizeof(text));
		if (n < 0)
			return n;
		if ((ret = sip_nat_edit(s, via.rport, text, (size_t)n)) < 0)
			return ret;
	}
	return 0;
}

int sip_nat_headers(struct sip_ctx *s)
{
	struct sip_uri u;
	int ret = 0;

	if (s->m->request && sip_request_uri(s->m, s->family, &u) == 1)
		ret = sip_nat_hostport(s, &u.hp);
	if (ret == 0)
		ret = sip_nat_via(s);
	if (ret == 0)
		ret = sip_nat_uris(s, &sip_hdr_contact, true);
	if (ret == 0)
		ret = sip_nat_uris(s, &sip_hdr_from, false);
	if (ret == 0)
		ret = sip_nat_uris(s, &sip_hdr_to, false);
	if (ret < 0) {
		cth_log(s->ctx, CTH_LOG_INFO, "cannot rewrite SIP headers (%d)", ret);
		return CTH_VERDICT_DROP;
	}
	return CTH_VERDICT_ACCEPT;
}
