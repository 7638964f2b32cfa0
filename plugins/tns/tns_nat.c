/* SPDX-License-Identifier: MIT */
/*
 * NAT: the client must be sent where it can reach the redirect target,
 * and the expected connection mapped back to it like its master
 * (nat-follow-master, as nf_nat_ftp does for a 227).  The descriptor's
 * HOST and PORT are rewritten, and with them every length that counts
 * those bytes: the TNS packet length and a REDIRECT's data length.  All
 * edits go through cth_mangle(); the host fixes IP and TCP after them.
 */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>

#include "tns.h"

/*
 * The header (and a REDIRECT's data length) after the descriptor grew by
 * delta bytes, written as one same-length edit.  Both TNS checksums are
 * zeroed ("not computed"): the bytes they covered changed.
 */
static int tns_nat_lengths(struct tns_ctx *t, long delta)
{
	const uint8_t *old = t->pkt->payload + t->off;
	size_t n = t->redirect ? TNS_REDIRECT_BODY : TNS_HDR_LEN;
	uint8_t hdr[TNS_REDIRECT_BODY];
	long len = (long)t->hdr.len + delta;
	long dlen;

	memcpy(hdr, old, n);
	/* a 4-byte length past 0xffff would read as a 2-byte one */
	if (len < (long)n || len > 0xffffL)
		return -ERANGE;
	if (t->hdr.wide) {
		tns_put32(hdr, (uint32_t)len);
	} else {
		tns_put16(hdr, (uint32_t)len);
		hdr[2] = hdr[3] = 0;
	}
	hdr[6] = hdr[7] = 0;
	if (t->redirect) {
		dlen = (long)tns_get16(old + TNS_HDR_LEN) + delta;
		if (dlen < 1 || dlen > 0xffffL)
			return -ERANGE;
		tns_put16(hdr + TNS_HDR_LEN, (uint32_t)dlen);
	}
	if (memcmp(hdr, old, n) == 0)
		return 0;
	return cth_mangle(t->ctx, t->off, n, hdr, n);
}

/* HOST and PORT as the client must use them, then the lengths. */
static int tns_nat_rewrite(struct tns_ctx *t, const struct tns_addr *a,
			   const union cth_addr *addr, uint16_t port)
{
	char host[TNS_FORMAT_MAX], ptext[8];
	bool host_edit = !cth_addr_equal(t->family, &a->addr, addr);
	bool port_edit = port != a->port_val;
	long delta = 0;
	int hn = 0, pn = 0, ret;

	if (!host_edit && !port_edit)
		return 0;
	if (host_edit) {
		hn = tns_format_addr(t->family, addr, host, sizeof(host));
		if (hn < 0)
			return hn;
		delta += (long)hn - (long)a->host.len;
	}
	if (port_edit) {
		pn = tns_format_port(port, ptext, sizeof(ptext));
		if (pn < 0)
			return pn;
		delta += (long)pn - (long)a->port.len;
	}
	ret = tns_nat_lengths(t, delta);
	if (ret == 0 && host_edit)
		ret = cth_mangle(t->ctx, t->desc_off + a->host.off, a->host.len, host, (size_t)hn);
	if (ret == 0 && port_edit)
		ret = cth_mangle(t->ctx, t->desc_off + a->port.off, a->port.len, ptext, (size_t)pn);
	return ret;
}

/*
 * Another host than the server: nat-follow-master would send the client
 * to the master's server instead.  The client is left to reach the target
 * as named, through the ruleset's own NAT like any new connection; behind
 * a DNAT it may well not be able to.
 */
static int tns_nat_third(struct tns_ctx *t, const struct tns_addr *a,
			 struct cth_expect *exp, bool *expected)
{
	const struct cth_packet *pkt = t->pkt;
	int ret;

	if (!cth_addr_equal(t->family, &pkt->tuple[CTH_DIR_ORIGINAL].dst,
			    &pkt->tuple[CTH_DIR_REPLY].src))
		cth_log_addr(t->ctx, CTH_LOG_INFO, "REDIRECT behind DNAT to another host, not mapped:",
			     t->family, &a->addr, a->port_val);
	ret = cth_expect(t->ctx, exp, 0);
	if (ret < 0) {
		cth_log_addr(t->ctx, CTH_LOG_INFO, "REDIRECT: cannot expect", t->family, &a->addr,
			     a->port_val);
		return cth_expect_verdict(ret);
	}
	*expected = true;
	return CTH_VERDICT_ACCEPT;
}

/*
 * The target is the redirecting server itself, as it is (the reply's
 * source) or as the client reaches it (the original destination): only
 * then can nat-follow-master map the expected connection, which always
 * goes to the master's server whatever address is saved with it.
 * cth_expect_to() filled it so: the client connects where it reaches the
 * server, and the connection follows the master back to the server's
 * real address and the port it announced.
 */
int tns_nat_redirect(struct tns_ctx *t, const struct tns_addr *a,
		     struct cth_expect *exp, bool own, bool *expected)
{
	const struct cth_tuple *orig = &t->pkt->tuple[CTH_DIR_ORIGINAL];
	int ret;

	if (!own)
		return tns_nat_third(t, a, exp, expected);
	/* its start went out with an earlier segment: half a rewrite (a
	 * length that no longer matches) is worse than none */
	if (t->off < t->kept) {
		cth_log(t->ctx, CTH_LOG_INFO, "%s split across segments under NAT: "
			"passed untranslated", tns_type_name(t->hdr.type));
		return CTH_VERDICT_ACCEPT;
	}
	ret = cth_expect_free_port(t->ctx, exp, a->port_val, TNS_NAT_PORT_TRIES);
	if (ret < 0) {
		cth_log(t->ctx, CTH_LOG_INFO, "REDIRECT: no free port from %u (%d)",
			(unsigned int)a->port_val, ret);
		return CTH_VERDICT_DROP;
	}
	ret = tns_nat_rewrite(t, a, &orig->dst, exp->dport);
	if (ret < 0) {
		cth_log(t->ctx, CTH_LOG_INFO, "REDIRECT: cannot rewrite the descriptor (%d)", ret);
		/* the client will not learn this port: take it back */
		if (cth_expect_ctl(t->ctx, CTH_EXPECT_OP_REMOVE, exp) < 0)
			cth_log(t->ctx, CTH_LOG_INFO, "REDIRECT: cannot take back the expectation");
		return CTH_VERDICT_DROP;
	}
	*expected = true;
	return CTH_VERDICT_ACCEPT;
}
