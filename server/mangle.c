/* SPDX-License-Identifier: MIT */
/*
 * Payload edits a plugin asks for (cth_mangle), applied to a copy of the
 * packet with lengths and checksums fixed.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <libnetfilter_queue/libnetfilter_queue_ipv4.h>
#include <libnetfilter_queue/libnetfilter_queue_ipv6.h>
#include <libnetfilter_queue/libnetfilter_queue_tcp.h>
#include <libnetfilter_queue/libnetfilter_queue_udp.h>
#include <libnetfilter_queue/pktbuff.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "packet.h"

/* Room for payload growth under NAT (an IPv6 address replacing a short
 * one, several rewrites in one SIP message). */
#define PKT_MANGLE_EXTRA 2048u

static int pkt_mangle_prepare(struct pkt_call *c)
{
	const struct cth_packet *p = &c->pkt;
	int family = p->tuple[0].family;

	c->pktb = pktb_alloc(family, (void *)p->data, p->len, PKT_MANGLE_EXTRA);
	if (!c->pktb)
		return -ENOMEM;
	if (family == AF_INET) {
		if (nfq_ip_set_transport_header(c->pktb, nfq_ip_get_hdr(c->pktb)) == 0)
			return 0;
	} else if (nfq_ip6_set_transport_header(c->pktb, nfq_ip6_get_hdr(c->pktb),
						p->tuple[0].proto) == 1) {
		return 0;
	}
	pktb_free(c->pktb);
	c->pktb = NULL;
	return -EINVAL;
}

/* libnetfilter_queue mangles and fixes lengths and IP/L4 checksums. */
static int pkt_mangle_apply(struct pkt_call *c, size_t off, size_t len,
			    const void *repl, size_t repl_len)
{
	bool v6 = c->pkt.tuple[0].family == AF_INET6;
	bool tcp = c->pkt.tuple[0].proto == IPPROTO_TCP;
	int ok;

	if (tcp)
		ok = (v6 ? nfq_tcp_mangle_ipv6 : nfq_tcp_mangle_ipv4)(
			c->pktb, (unsigned)off, (unsigned)len, repl, (unsigned)repl_len);
	else
		ok = (v6 ? nfq_udp_mangle_ipv6 : nfq_udp_mangle_ipv4)(
			c->pktb, (unsigned)off, (unsigned)len, repl, (unsigned)repl_len);
	return ok ? 0 : -ENOMEM;
}

/*
 * Offsets are in the payload the plugin was shown; ranges must come in
 * increasing order so that earlier length changes can be applied as a
 * running delta.
 */
int pkt_edit_add(struct pkt_call *c, size_t off, size_t len,
		 const void *repl, size_t repl_len)
{
	const struct cth_packet *p = &c->pkt;
	int rc;

	if (off > p->payload_len || len > p->payload_len - off ||
	    off < c->mangle_end || (!repl && repl_len) || repl_len > 0xffff)
		return -EINVAL;
	if (repl_len != len && p->tuple[0].proto == IPPROTO_TCP && !p->nat)
		return -EPERM;
	if (p->len + (size_t)(c->delta + (long)repl_len - (long)len) > 0xffff)
		return -EINVAL;
	if (!c->pktb && (rc = pkt_mangle_prepare(c)) < 0)
		return rc;
	rc = pkt_mangle_apply(c, (size_t)((long)off + c->delta), len, repl, repl_len);
	if (rc)
		return rc;
	c->delta += (long)repl_len - (long)len;
	c->mangle_end = off + len;
	return 0;
}

const uint8_t *pkt_edit_result(struct pkt_call *c, size_t *len)
{
	if (!c->pktb || !pktb_mangled(c->pktb))
		return NULL;
	*len = pktb_len(c->pktb);
	return pktb_data(c->pktb);
}

void pkt_edit_release(struct pkt_call *c)
{
	if (c->pktb)
		pktb_free(c->pktb);
	c->pktb = NULL;
}
