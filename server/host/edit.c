/* SPDX-License-Identifier: MIT */
/*
 * Payload edits a plugin asks for (cth_mangle).
 *
 * A plugin may make several edits per packet, in any order.  Each one is
 * checked and recorded when asked for (its replacement bytes copied), so
 * every bound -- edit count, result size, overlap, TCP length rule -- is
 * known at record time and reported to the plugin as an errno.  After the
 * plugin returned, edit_result() applies them sorted by offset into a
 * buffer of our own, sized at record time, and fixes the IP total length
 * or IPv6 payload length, the UDP length and the IPv4/TCP/UDP checksums
 * (pkt_sums_fix()).
 *
 * The layout (transport and payload offsets) is the one pkt_view_parse()
 * computed.  libnetfilter_queue 1.0.5's packet buffers are not used: its
 * nfq_ip6_set_transport_header() skips an IPv6 extension header by the
 * wrong length and pktb_mangle() overruns its buffer when a rewrite grows
 * the packet by more than the tailroom but not twice it
 * (docs/architecture.md, "Library facts").
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/ip6.h>
#include <netinet/tcp.h>
#include <netinet/udp.h>

#include "edit.h"

/* One recorded edit: payload range [off, off + len) becomes repl_len bytes
 * of the arena starting at repl. */
struct edit {
	size_t off, len;
	size_t repl, repl_len;
};

/* One call's edits (pkt_call::edits), the result built from them and
 * the replacement bytes they name. */
struct edit_list {
	unsigned int n;
	bool tcp;                 /* transport header layout */
	bool done;                /* result built: edits are frozen */
	size_t out_len;           /* length of the packet with all edits */
	uint8_t *out;             /* the result, out_cap >= out_len bytes */
	size_t out_cap;
	uint8_t *arena;           /* replacement bytes, back to back */
	size_t arena_len, arena_cap;
	struct edit e[EDIT_MAX];
};

static int edit_layout(const struct cth_packet *p, bool *tcp);
static unsigned int edit_get16(const uint8_t *p);
static bool edit_overlaps(const struct edit *e, size_t off, size_t len);
static int edit_reserve(uint8_t **buf, size_t *cap, size_t need, size_t max);
static void edit_apply(const struct cth_packet *p, struct edit_list *ed);
static void edit_sort(struct edit_list *ed);
static bool edit_before(const struct edit *a, const struct edit *b);

int edit_add(struct pkt_call *c, size_t off, size_t len,
	     const void *repl, size_t repl_len)
{
	const struct cth_packet *p = &c->pkt;
	struct edit_list *ed = c->edits;
	struct edit *e;
	size_t base, out_len;
	bool tcp = false;
	unsigned int i;
	int rc;

	if (ed && ed->done)
		return -EBUSY;
	if (c->truncated)
		return -EMSGSIZE;
	rc = edit_layout(p, &tcp);
	if (rc < 0)
		return rc;
	/* A mangled packet leaves the queue CHECKSUM_NONE.  Measured on 6.1
	 * (e2e gso-masq-port, the egress without TSO): a TCP GSO packet is
	 * fine, tcp4/tcp6_gso_segment() set the checksum up again when the
	 * packet is segmented.  UDP segmentation wants CHECKSUM_PARTIAL
	 * (__udp_gso_segment), so a UDP GSO packet is not edited. */
	if (c->gso && !tcp)
		return -EMSGSIZE;
	if (off > p->payload_len || len > p->payload_len - off ||
	    (!repl && repl_len))
		return -EINVAL;
	/* kept bytes (cth_keep) left with earlier packets; from here on
	 * offsets are in this packet's own payload */
	if (off < p->kept)
		return -EPERM;
	off -= p->kept;
	if (tcp && repl_len != len && !p->nat)
		return -EPERM;
	if (len == 0 && repl_len == 0)
		return 0;
	for (i = 0; ed && i < ed->n; i++)
		if (edit_overlaps(&ed->e[i], off, len))
			return -EINVAL;
	if (ed && ed->n >= EDIT_MAX)
		return -ENOSPC;
	/* Edits do not overlap, so the bytes they remove, this one's
	 * included, are all in the payload: base >= len. */
	base = ed ? ed->out_len : p->len;
	if (repl_len > PKT_OUT_MAX || base - len + repl_len > PKT_OUT_MAX)
		return -ENOSPC;
	out_len = base - len + repl_len;

	if (!ed) {
		ed = calloc(1, sizeof(*ed));
		if (!ed)
			return -ENOMEM;
		ed->tcp = tcp;
		ed->out_len = p->len;
		c->edits = ed;
	}
	if (edit_reserve(&ed->arena, &ed->arena_cap,
			     ed->arena_len + repl_len, PKT_OUT_MAX) < 0 ||
	    edit_reserve(&ed->out, &ed->out_cap, out_len, PKT_OUT_MAX) < 0)
		return -ENOMEM;
	e = &ed->e[ed->n++];
	e->off = off;
	e->len = len;
	e->repl = ed->arena_len;
	e->repl_len = repl_len;
	if (repl_len)
		memcpy(ed->arena + ed->arena_len, repl, repl_len);
	ed->arena_len += repl_len;
	ed->out_len = out_len;
	return 0;
}

const uint8_t *edit_result(struct pkt_call *c, size_t *len)
{
	struct edit_list *ed = c->edits;

	if (!ed || ed->n == 0)
		return NULL;
	if (!ed->done) {
		edit_apply(&c->pkt, ed);
		ed->done = true;
	}
	*len = ed->out_len;
	return ed->out;
}

void edit_release(struct pkt_call *c)
{
	struct edit_list *ed = c->edits;

	if (!ed)
		return;
	free(ed->out);
	free(ed->arena);
	free(ed);
	c->edits = NULL;
}

/*
 * Check that the view describes a whole IPv4/IPv6 + TCP/UDP packet we can
 * rewrite, and which transport it is.  pkt_view_parse() made the view, but
 * the bytes are checked again rather than trusted: the header we will
 * rewrite must be where the view says.
 */
static int edit_layout(const struct cth_packet *p, bool *tcp)
{
	const uint8_t *d = p->data;
	size_t hl;

	if (!d || p->len < sizeof(struct iphdr) || p->l4_offset % 4 ||
	    p->l4_offset > p->payload_offset || p->payload_offset > p->len ||
	    p->kept > p->payload_len ||
	    p->payload_len - p->kept != p->len - p->payload_offset)
		return -EINVAL;
	hl = p->payload_offset - p->l4_offset;
	if (hl == sizeof(struct udphdr))
		*tcp = false;
	else if (hl >= sizeof(struct tcphdr) && hl == (size_t)(d[p->l4_offset + 12] >> 4) * 4)
		*tcp = true;
	else
		return -EINVAL;

	switch (d[0] >> 4) {
	case 4:
		if ((size_t)(d[0] & 0x0f) * 4 != p->l4_offset ||
		    d[9] != (*tcp ? IPPROTO_TCP : IPPROTO_UDP) ||
		    (edit_get16(d + 6) & (IP_MF | IP_OFFMASK)))
			return -EINVAL;
		/* pkt_view_parse() leaves out trailing padding; a total
		 * length beyond what we hold means we hold only part. */
		if (edit_get16(d + 2) > p->len)
			return -EMSGSIZE;
		if (edit_get16(d + 2) < p->len)
			return -EINVAL;
		return 0;
	case 6:
		if (p->len < sizeof(struct ip6_hdr) ||
		    p->l4_offset < sizeof(struct ip6_hdr))
			return -EINVAL;
		/* 0: a jumbogram, larger than any verdict */
		if (edit_get16(d + 4) == 0 ||
		    sizeof(struct ip6_hdr) + edit_get16(d + 4) > p->len)
			return -EMSGSIZE;
		return 0;
	default:
		return -EINVAL;
	}
}

static unsigned int edit_get16(const uint8_t *p)
{
	return (unsigned int)p[0] << 8 | p[1];
}

/* Does a new edit [off, off + len) collide with e?  Ranges may touch; an
 * insertion (len 0) may sit at either end of a range but not inside it,
 * and two insertions at one offset would have no defined order. */
static bool edit_overlaps(const struct edit *e, size_t off, size_t len)
{
	if (e->len == 0 && len == 0)
		return e->off == off;
	return e->off < off + len && off < e->off + e->len;
}

/* Grow *buf to hold need bytes (need <= max). */
static int edit_reserve(uint8_t **buf, size_t *cap, size_t need, size_t max)
{
	size_t n;
	uint8_t *b;

	if (need <= *cap)
		return 0;
	n = *cap ? *cap * 2 : 256;
	if (n < need)
		n = need + 256;
	if (n > max)
		n = max;
	b = realloc(*buf, n);
	if (!b)
		return -ENOMEM;
	*buf = b;
	*cap = n;
	return 0;
}

static void edit_apply(const struct cth_packet *p, struct edit_list *ed)
{
	/* this packet's own payload, not the view with kept bytes */
	const uint8_t *pl = p->data + p->payload_offset;
	size_t pl_len = p->len - p->payload_offset;
	uint8_t *o = ed->out;
	size_t pos = 0;
	unsigned int i;

	edit_sort(ed);
	memcpy(o, p->data, p->payload_offset);
	o += p->payload_offset;
	for (i = 0; i < ed->n; i++) {
		const struct edit *e = &ed->e[i];

		memcpy(o, pl + pos, e->off - pos);
		o += e->off - pos;
		if (e->repl_len)
			memcpy(o, ed->arena + e->repl, e->repl_len);
		o += e->repl_len;
		pos = e->off + e->len;
	}
	memcpy(o, pl + pos, pl_len - pos);
	pkt_sums_fix(ed->out, ed->out_len, p->l4_offset, ed->tcp);
}

static void edit_sort(struct edit_list *ed)
{
	unsigned int i, j;

	for (i = 1; i < ed->n; i++) {
		struct edit k = ed->e[i];

		for (j = i; j > 0 && edit_before(&k, &ed->e[j - 1]); j--)
			ed->e[j] = ed->e[j - 1];
		ed->e[j] = k;
	}
}

/* Sort by offset; at one offset an insertion goes before the range that
 * starts there.  No two edits overlap, so this order is total. */
static bool edit_before(const struct edit *a, const struct edit *b)
{
	return a->off < b->off || (a->off == b->off && a->len == 0);
}
