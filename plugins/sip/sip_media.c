/* SPDX-License-Identifier: MIT */
/*
 * Media: each audio/video/image line of an SDP body gives an RTP (port)
 * and an RTCP (port + 1) expectation, always UDP, from the other
 * signalling peer.  Under NAT the announced address and port are replaced
 * by the ones the peer can reach, found by trying port pairs upwards as
 * nf_nat_sip does, and the expected flows are mapped back like the master.
 */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>

#include "sip.h"

/* Even/odd pairs tried from the announced port under NAT.  The kernel
 * walks to 65535; each try here is a netlink round trip. */
#define SIP_NAT_PAIR_TRIES 64u

/* The kernel refuses media ports below 1024 (process_sdp). */
#define SIP_MEDIA_PORT_MIN 1024u

void sip_media_flush(struct sip_ctx *s)
{
	struct cth_expect sel = { 0 };
	int ret;

	s->flushed = true;
	for (unsigned int c = SIP_CLASS_AUDIO; c <= SIP_CLASS_IMAGE; c++) {
		sel.class = c;
		ret = cth_expect_ctl(s->ctx, CTH_EXPECT_OP_FLUSH, &sel);
		if (ret < 0)
			cth_log(s->ctx, CTH_LOG_INFO, "cannot flush media expectations (%d)", ret);
	}
}

static void sip_media_exp_init(struct sip_ctx *s, struct cth_expect *exp,
			       unsigned int class, const union cth_addr *dst,
			       uint16_t port)
{
	memset(exp, 0, sizeof(*exp));
	exp->class = class;
	exp->family = (uint8_t)s->family;
	exp->proto = IPPROTO_UDP;
	exp->dport = port;
	cth_addr_copy(s->family, &exp->dst, dst);
	if (!s->cfg->direct_media)
		exp->flags |= CTH_EXPECT_ANY_SRC;
	else
		cth_addr_copy(s->family, &exp->src, &s->rev->src);
}

/* Without NAT: both ride on the verdict (or right after it for a master
 * the kernel has not confirmed), like the FTP helper's. */
static int sip_media_plain(struct sip_ctx *s, unsigned int class,
			   const union cth_addr *addr, uint16_t port)
{
	struct cth_expect rtp, rtcp;
	int ret;

	sip_media_exp_init(s, &rtp, class, addr, port);
	sip_media_exp_init(s, &rtcp, class, addr, (uint16_t)(port + 1));
	ret = cth_expect(s->ctx, &rtp, 0);
	if (ret == 0)
		ret = cth_expect(s->ctx, &rtcp, 0);
	return ret;
}

/* RTP then RTCP on port, port + 1; RTP is taken back if RTCP fails. */
static int sip_media_pair(struct sip_ctx *s, struct cth_expect *rtp,
			  struct cth_expect *rtcp, uint32_t port)
{
	int ret;

	rtp->dport = (uint16_t)port;
	rtcp->dport = (uint16_t)(port + 1);
	ret = cth_expect(s->ctx, rtp, CTH_EXPECT_SYNC);
	if (ret < 0)
		return ret;
	ret = cth_expect(s->ctx, rtcp, CTH_EXPECT_SYNC);
	if (ret < 0 && cth_expect_ctl(s->ctx, CTH_EXPECT_OP_REMOVE, rtp) < 0)
		cth_log(s->ctx, CTH_LOG_INFO, "cannot take back RTP expectation to port %u",
			(unsigned int)port);
	return ret;
}

/*
 * Under NAT: the peer is told the address it reaches this side by (the
 * reverse tuple's destination) and a free pair of ports there; the
 * expected flows follow the master back to the announced address and
 * ports.  *port receives the RTP port announced.
 */
static int sip_media_nat(struct sip_ctx *s, unsigned int class,
			 const union cth_addr *addr, uint16_t first,
			 const union cth_addr *pub, uint16_t *port)
{
	struct cth_expect rtp, rtcp;
	uint32_t p = first;
	int ret = -EBUSY;

	sip_media_exp_init(s, &rtp, class, pub, first);
	sip_media_exp_init(s, &rtcp, class, pub, (uint16_t)(first + 1));
	rtp.flags |= CTH_EXPECT_NAT;
	rtp.nat_dir = s->pkt->dir == CTH_DIR_ORIGINAL ? CTH_DIR_REPLY : CTH_DIR_ORIGINAL;
	rtp.fn = CTH_EXPECT_FN_NAT_FOLLOW_MASTER;
	cth_addr_copy(s->family, &rtp.nat_addr, addr);
	rtcp.flags = rtp.flags;
	rtcp.nat_dir = rtp.nat_dir;
	rtcp.fn = rtp.fn;
	cth_addr_copy(s->family, &rtcp.nat_addr, addr);
	rtp.nat_port = first;
	rtcp.nat_port = (uint16_t)(first + 1);

	for (unsigned int tries = 0; tries < SIP_NAT_PAIR_TRIES && p + 1 <= 65535u;
	     tries++, p += 2) {
		ret = sip_media_pair(s, &rtp, &rtcp, p);
		if (ret == 0) {
			*port = (uint16_t)p;
			return 0;
		}
		/* EEXIST: ctnetlink's word for a taken tuple with NLM_F_EXCL */
		if (ret != -EBUSY && ret != -EEXIST)
			return ret;
	}
	return ret;
}

static int sip_media_write_port(struct sip_ctx *s, const struct sip_sdp_media *md,
				uint16_t port)
{
	char text[8];
	int n = cth_format_uint(port, text, sizeof(text));

	return n < 0 ? n : sip_nat_edit(s, md->port_span, text, (size_t)n);
}

static int sip_media_write_addr(struct sip_ctx *s, const struct sip_hostport *hp,
				const union cth_addr *pub)
{
	char text[SIP_FORMAT_MAX];
	int n;

	if (cth_addr_equal(s->family, &hp->addr, pub))
		return 0;
	n = sip_format_hostport(s->family, pub, 0, false, false, text, sizeof(text));
	if (n < 0)
		return n;
	return sip_nat_edit(s, hp->span, text, (size_t)n);
}

/* The packet that would have announced the pair is dropped: the pair goes
 * too, as nf_nat_sdp_media takes its expectations back. */
static void sip_media_take_back(struct sip_ctx *s, unsigned int class, uint16_t port)
{
	struct cth_expect exp;

	for (unsigned int i = 0; i < 2; i++) {
		sip_media_exp_init(s, &exp, class, &s->rev->dst, (uint16_t)(port + i));
		if (cth_expect_ctl(s->ctx, CTH_EXPECT_OP_REMOVE, &exp) < 0)
			cth_log(s->ctx, CTH_LOG_INFO, "cannot take back the expectation to port %u",
				(unsigned int)(port + i));
	}
}

/*
 * Media for the sender itself on a NATed call: the peer reaches it at the
 * reverse tuple's destination (the same address when this direction is
 * not source-NATed), and the media must be translated like the master
 * even when the SDP needs no rewrite.  Under DNAT the caller's media
 * offer names its own routable address, yet the callee's media must
 * reach the caller from the address the caller dialled (measured with
 * nf_nat_sip, tests/sip dnat-call): a plain expectation would let it
 * arrive from the callee's real address.
 */
static bool sip_media_mapped(struct sip_ctx *s, const union cth_addr *addr)
{
	return s->nat && cth_addr_equal(s->family, addr, &s->own->src);
}

/* One media line.  A cth_verdict. */
static int sip_media_line(struct sip_ctx *s, const struct sip_sdp *sdp,
			  const struct sip_sdp_media *md)
{
	const struct sip_hostport *hp = md->has_addr ? &md->addr : &sdp->addr;
	/* RFC 3550 11: RTP takes the even port of the pair an odd number
	 * names (the kernel's base_port); the SDP keeps what it said unless
	 * NAT moves the pair */
	uint16_t port = (uint16_t)(md->port & ~1u), announced = port;
	int ret;

	if (!md->has_addr && !sdp->has_addr) {
		cth_log(s->ctx, CTH_LOG_DEBUG, "media port %u: no address of the connection's family",
			(unsigned int)md->port);
		return CTH_VERDICT_ACCEPT;
	}
	if (md->port < SIP_MEDIA_PORT_MIN || md->port > 65535u) {
		cth_log(s->ctx, CTH_LOG_INFO, "media port %u out of range: nothing expected",
			(unsigned int)md->port);
		return CTH_VERDICT_ACCEPT;
	}
	/* sip_direct_media: only media announced for the sender itself */
	if (s->cfg->direct_media && !cth_addr_equal(s->family, &hp->addr, &s->own->src)) {
		cth_log_addr(s->ctx, CTH_LOG_DEBUG, "media for another host", s->family,
			     &hp->addr, port);
		return CTH_VERDICT_ACCEPT;
	}
	/* SDP names where its sender receives media, never where the
	 * message goes: such an offer would open the receiver's side to
	 * whoever sends there (issue 27), and under NAT to the address a
	 * failover peer would forward inside */
	if (cth_addr_equal(s->family, &hp->addr, &s->own->dst)) {
		cth_log_addr(s->ctx, CTH_LOG_INFO, "media announced for the receiver's own address: "
			     "nothing expected", s->family, &hp->addr, port);
		return CTH_VERDICT_ACCEPT;
	}
	if (!sip_media_mapped(s, &hp->addr)) {
		ret = sip_media_plain(s, md->type, &hp->addr, port);
		if (ret < 0) {
			s->full = ret == -EMFILE;
			cth_log(s->ctx, CTH_LOG_INFO, "media port %u: cannot expect (%d)",
				(unsigned int)port, ret);
			return cth_expect_verdict(ret);
		}
		s->media_made += 2;
		return CTH_VERDICT_ACCEPT;
	}
	ret = sip_media_nat(s, md->type, &hp->addr, port, &s->rev->dst, &announced);
	if (ret < 0) {
		cth_log(s->ctx, CTH_LOG_INFO, "media port %u: no free port pair (%d)",
			(unsigned int)port, ret);
		return cth_expect_verdict(ret);
	}
	if ((announced != port && sip_media_write_port(s, md, announced) < 0) ||
	    (md->has_addr && sip_media_write_addr(s, &md->addr, &s->rev->dst) < 0)) {
		cth_log(s->ctx, CTH_LOG_INFO, "media port %u: cannot rewrite SDP", (unsigned int)port);
		sip_media_take_back(s, md->type, announced);
		return CTH_VERDICT_DROP;
	}
	s->media_made += 2;
	return CTH_VERDICT_ACCEPT;
}

/* Session-level c= and o= carry the sender's address too. */
static int sip_media_session(struct sip_ctx *s, const struct sip_sdp *sdp)
{
	if (sdp->has_addr && sip_media_mapped(s, &sdp->addr.addr) &&
	    sip_media_write_addr(s, &sdp->addr, &s->rev->dst) < 0)
		return -1;
	if (sdp->has_owner && sip_media_mapped(s, &sdp->owner.addr) &&
	    sip_media_write_addr(s, &sdp->owner, &s->rev->dst) < 0)
		return -1;
	return 0;
}

/* Every media line of the SDP.  A cth_verdict. */
static int sip_media_lines(struct sip_ctx *s, const struct sip_sdp *sdp)
{
	int verdict;

	for (unsigned int i = 0; i < sdp->n_media; i++) {
		verdict = sip_media_line(s, sdp, &sdp->media[i]);
		if (verdict != CTH_VERDICT_ACCEPT)
			return verdict;
	}
	return CTH_VERDICT_ACCEPT;
}

int sip_media_handle(struct sip_ctx *s)
{
	const struct sip_msg *m = s->m;
	struct sip_sdp sdp;
	int verdict;

	if (m->body_len == 0 ||
	    sip_sdp_parse(m->buf, m->body_off, m->body_len, s->family, &sdp) < 0)
		return CTH_VERDICT_ACCEPT;
	s->full = false;
	s->media_made = 0;
	verdict = sip_media_lines(s, &sdp);
	/*
	 * The kernel's table refused one (nf_conntrack_expect_max, or a class
	 * max with none to evict): an initial INVITE keeps the flow's other
	 * media (sip.c), so on a trunk the table can fill where the kernel's
	 * helper, which flushes at every INVITE, keeps it short.  Do what it
	 * would have done, once, and make the SDP's again: a full table then
	 * costs the flow's pending media, not the call.  Without NAT only:
	 * the lines made nothing but expectations, so making them again
	 * repeats nothing (under NAT their rewrites are already recorded).
	 */
	if (verdict != CTH_VERDICT_ACCEPT && s->full && !s->nat && !s->flushed) {
		cth_log(s->ctx, CTH_LOG_INFO, "expectation table full: the flow's media "
			"expectations removed, the SDP's made again");
		sip_media_flush(s);
		s->media_made = 0;
		verdict = sip_media_lines(s, &sdp);
	}
	cth_count_add(s->ctx, SIP_CNT_MEDIA_EXPECTATIONS, s->media_made);
	if (verdict != CTH_VERDICT_ACCEPT)
		return verdict;
	if (s->nat && sip_media_session(s, &sdp) < 0) {
		cth_log(s->ctx, CTH_LOG_INFO, "cannot rewrite SDP session addresses");
		return CTH_VERDICT_DROP;
	}
	return CTH_VERDICT_ACCEPT;
}
