/* SPDX-License-Identifier: MIT */
/*
 * RTSP under NAT: the client's RTP/RTCP pair on the NAT address (the
 * announced one, or the next free pair), the rewrites of client_port /
 * dest_addr and destination= in the SETUP, and back in its reply.  Edits
 * stay in the headers, so Content-Length holds; the kernel moves the
 * sequence numbers for a length change.
 */
#include <errno.h>
#include <string.h>

#include "rtsp.h"

/* Port pairs tried on the NAT address: each try is up to three kernel
 * requests, and the host allows one packet 64 (plugin.h). */
#define RTSP_NAT_TRIES 16u

static bool rtsp_nat_edit_port(struct rtsp_run *r, const struct rtsp_port *p, uint16_t port);
static bool rtsp_nat_edit_host(struct rtsp_run *r, const struct rtsp_host *h,
			       const union cth_addr *addr);
static void rtsp_nat_remember(struct rtsp_priv *priv, uint16_t orig, uint16_t nat);

/* Does an edit of the host or the ports fall in kept bytes? */
static bool rtsp_nat_host_kept(const struct rtsp_run *r, const struct rtsp_host *h)
{
	for (unsigned int i = 0; i < h->n; i++)
		if (h->text[i].off < r->kept)
			return true;
	return false;
}

static bool rtsp_nat_ports_kept(const struct rtsp_run *r, const struct rtsp_ports *ps)
{
	for (unsigned int i = 0; i < ps->n; i++)
		if (ps->port[i].text.off < r->kept)
			return true;
	return false;
}

static void rtsp_nat_untranslated(struct rtsp_run *r, const char *why)
{
	cth_count(r->ctx, RTSP_C_UNTRANSLATED);
	cth_log(r->ctx, CTH_LOG_INFO, "SETUP split across segments: %s already forwarded, "
		"transport passed untranslated", why);
}

int rtsp_nat_setup(struct rtsp_run *r, const struct rtsp_spec *s, const struct rtsp_pair *want,
		   struct cth_expect *exp)
{
	/* the server must send to what exp->dst is: the NAT address */
	bool host_edit = s->dest.set && !cth_addr_equal(r->family, &s->dest.addr, &exp->dst);
	bool ports_kept = rtsp_nat_ports_kept(r, &s->client);
	unsigned int tries = ports_kept ? 1u : RTSP_NAT_TRIES;
	struct rtsp_pair at = *want;
	int ret = -EBUSY;

	if (host_edit && rtsp_nat_host_kept(r, &s->dest)) {
		rtsp_nat_untranslated(r, "its destination");
		return 0;
	}
	for (unsigned int i = 0; i < tries; i++) {
		uint32_t step = 2u * i;

		if (want->rtp + step > 65535u || want->rtcp + step > 65535u)
			break;
		at.rtp = (uint16_t)(want->rtp + step);
		at.rtcp = (uint16_t)(want->rtcp + step);
		/* on the NAT address's pair at, following the master to the
		 * client's real pair */
		ret = rtsp_expect_pair(r, exp, &at, NULL, want, CTH_EXPECT_SYNC);
		if (ret != -EBUSY && ret != -EEXIST)
			break;
	}
	if ((ret == -EBUSY || ret == -EEXIST) && ports_kept) {
		rtsp_nat_untranslated(r, "its client_port");
		return 0;
	}
	if (ret < 0) {
		cth_log_addr(r->ctx, CTH_LOG_INFO, "SETUP: no free RTP/RTCP pair from",
			     r->family, &exp->dst, want->rtp);
		return ret;
	}
	cth_count_add(r->ctx, RTSP_C_EXPECTATIONS, at.rtcp == at.rtp ? 1u : 2u);
	if (at.rtp != want->rtp) {
		rtsp_nat_edit_port(r, &s->client.port[0], at.rtp);
		if (s->client.n == 2)
			rtsp_nat_edit_port(r, &s->client.port[1], at.rtcp);
	}
	rtsp_nat_remember(r->priv, want->rtp, at.rtp);
	if (host_edit)
		rtsp_nat_edit_host(r, &s->dest, &exp->dst);
	return 0;
}

/* Remember which NAT port stands for which client port, for the reply;
 * the announced pair kept needs no slot (and frees an older one). */
static void rtsp_nat_remember(struct rtsp_priv *priv, uint16_t orig, uint16_t nat)
{
	struct rtsp_remap *free_slot = NULL;

	for (unsigned int i = 0; i < RTSP_REMAP_SLOTS; i++) {
		struct rtsp_remap *m = &priv->remap[i];

		if (m->nat_rtp == nat) {
			m->orig_rtp = orig;
			if (orig == nat)
				m->nat_rtp = 0;
			return;
		}
		if (!free_slot && m->nat_rtp == 0)
			free_slot = m;
	}
	if (orig == nat)
		return;
	if (!free_slot) {
		free_slot = &priv->remap[priv->next_remap];
		priv->next_remap = (uint8_t)((priv->next_remap + 1u) % RTSP_REMAP_SLOTS);
	}
	free_slot->orig_rtp = orig;
	free_slot->nat_rtp = nat;
}

/* The client's real RTP port for the one the server was told. */
static uint16_t rtsp_nat_orig(const struct rtsp_priv *priv, uint16_t nat)
{
	for (unsigned int i = 0; i < RTSP_REMAP_SLOTS; i++)
		if (priv->remap[i].nat_rtp == nat && nat != 0)
			return priv->remap[i].orig_rtp;
	return nat;
}

void rtsp_nat_reply(struct rtsp_run *r, const struct rtsp_spec *s, struct rtsp_pair *client)
{
	const struct cth_packet *pkt = r->pkt;
	const union cth_addr *dialled = &pkt->tuple[CTH_DIR_ORIGINAL].dst;
	const union cth_addr *real = &pkt->tuple[CTH_DIR_REPLY].src;
	uint16_t orig = rtsp_nat_orig(r->priv, client->rtp);

	if (client->rtp && orig != client->rtp) {
		client->rtcp = (uint16_t)(client->rtcp - client->rtp + orig);
		client->rtp = orig;
		if (rtsp_nat_ports_kept(r, &s->client)) {
			cth_count(r->ctx, RTSP_C_UNTRANSLATED);
		} else {
			rtsp_nat_edit_port(r, &s->client.port[0], client->rtp);
			if (s->client.n == 2)
				rtsp_nat_edit_port(r, &s->client.port[1], client->rtcp);
		}
	}
	/* a server behind DNAT names its own address: the client knows the
	 * one it dialled */
	if (s->src.set && cth_addr_equal(r->family, &s->src.addr, real) &&
	    !cth_addr_equal(r->family, real, dialled)) {
		if (rtsp_nat_host_kept(r, &s->src))
			cth_count(r->ctx, RTSP_C_UNTRANSLATED);
		else
			rtsp_nat_edit_host(r, &s->src, dialled);
	}
}

/* Replace the text of p with port. */
static bool rtsp_nat_edit_port(struct rtsp_run *r, const struct rtsp_port *p, uint16_t port)
{
	char text[8];
	int n = cth_format_uint(port, text, sizeof(text));
	int ret;

	if (p->text.len == 0 || n < 0)
		return false;
	ret = cth_mangle(r->ctx, p->text.off, p->text.len, text, (size_t)n);
	if (ret < 0) {
		cth_log(r->ctx, CTH_LOG_INFO, "cannot rewrite port %u to %u (%d)", p->val, port, ret);
		return false;
	}
	r->rewritten = true;
	return true;
}

/* Replace every place h is written with addr. */
static bool rtsp_nat_edit_host(struct rtsp_run *r, const struct rtsp_host *h,
			       const union cth_addr *addr)
{
	char text[CTH_ADDR_STRLEN];
	int n = cth_addr_format(r->family, addr, text, sizeof(text));

	if (n < 0)
		return false;
	for (unsigned int i = 0; i < h->n; i++) {
		int ret = cth_mangle(r->ctx, h->text[i].off, h->text[i].len, text, (size_t)n);

		if (ret < 0) {
			cth_log(r->ctx, CTH_LOG_INFO, "cannot rewrite an address (%d)", ret);
			return false;
		}
		r->rewritten = true;
	}
	return true;
}
