/* SPDX-License-Identifier: MIT */
/*
 * ONC RPC, portmapper/rpcbind and record-marking parsing for the rpc
 * plugin (see rpc_parse.h).  Written from RFC 5531, RFC 1833 and RFC
 * 5665.  A cursor never passes its buffer's end: every read checks the
 * bytes left first, and every declared length is compared with them.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include <cthelperd/util.h>

#include "rpc_parse.h"

/* An XDR cursor: off <= len always. */
struct rpc_xdr {
	const uint8_t *buf;
	size_t len;
	size_t off;
};

uint32_t rpc_get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

void rpc_put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static int rpc_xdr_u32(struct rpc_xdr *x, uint32_t *v)
{
	if (x->len - x->off < 4)
		return -EINVAL;
	*v = rpc_get32(x->buf + x->off);
	x->off += 4;
	return 0;
}

/* Variable-length opaque or string: a length word, then the bytes padded
 * to a multiple of 4. */
static int rpc_xdr_opaque(struct rpc_xdr *x, uint32_t max, size_t *off, size_t *len)
{
	uint32_t n;
	size_t padded;

	if (rpc_xdr_u32(x, &n) < 0 || n > max)
		return -EINVAL;
	padded = ((size_t)n + 3) & ~(size_t)3;
	if (x->len - x->off < padded)
		return -EINVAL;
	*off = x->off;
	*len = n;
	x->off += padded;
	return 0;
}

/* opaque_auth: flavour, body<400>; neither is looked at. */
static int rpc_xdr_auth(struct rpc_xdr *x)
{
	uint32_t flavour;
	size_t off, len;

	if (rpc_xdr_u32(x, &flavour) < 0)
		return -EINVAL;
	return rpc_xdr_opaque(x, RPC_AUTH_MAX, &off, &len);
}

int rpc_msg_head(const uint8_t *msg, size_t len, uint32_t *xid, uint32_t *type)
{
	if (len < 8)
		return -EINVAL;
	*xid = rpc_get32(msg);
	*type = rpc_get32(msg + 4);
	return 0;
}

static enum rpc_kind rpc_kind_of(uint32_t vers, uint32_t proc)
{
	if (vers == 2 && proc == RPC_PROC_GETADDR)
		return RPC_KIND_GETPORT;
	if (vers == 3 && proc == RPC_PROC_GETADDR)
		return RPC_KIND_GETADDR3;
	if (vers == 4 && proc == RPC_PROC_GETADDR)
		return RPC_KIND_GETADDR4;
	if (vers == 4 && proc == RPC_PROC_GETVERSADDR)
		return RPC_KIND_GETVERSADDR;
	return RPC_KIND_NONE;
}

int rpc_netid_parse(const uint8_t *text, size_t len, uint8_t *proto, uint8_t *family)
{
	static const struct {
		const char *name;
		uint8_t proto;
		uint8_t family;
	} netids[] = {
		{ "tcp", IPPROTO_TCP, AF_INET },
		{ "udp", IPPROTO_UDP, AF_INET },
		{ "tcp6", IPPROTO_TCP, AF_INET6 },
		{ "udp6", IPPROTO_UDP, AF_INET6 },
	};

	for (size_t i = 0; i < sizeof(netids) / sizeof(netids[0]); i++) {
		if (strlen(netids[i].name) == len && memcmp(netids[i].name, text, len) == 0) {
			*proto = netids[i].proto;
			*family = netids[i].family;
			return 0;
		}
	}
	return -ENOENT;
}

/* mapping {prog, vers, prot, port}: the port is ignored (RFC 1833). */
static int rpc_getport_args(struct rpc_xdr *x, struct rpc_call *c)
{
	uint32_t prot, port;

	if (rpc_xdr_u32(x, &c->prog) < 0 || rpc_xdr_u32(x, &c->vers) < 0 ||
	    rpc_xdr_u32(x, &prot) < 0 || rpc_xdr_u32(x, &port) < 0 || x->off != x->len)
		return -EINVAL;
	if (prot != IPPROTO_TCP && prot != IPPROTO_UDP)
		return 0;
	c->proto = (uint8_t)prot;
	c->family = 0;
	return 1;
}

/* rpcb {prog, vers, netid, addr, owner}: the netid decides the protocol
 * and the family of the answer. */
static int rpc_rpcb_args(struct rpc_xdr *x, struct rpc_call *c)
{
	size_t netid_off, netid_len, off, len;

	if (rpc_xdr_u32(x, &c->prog) < 0 || rpc_xdr_u32(x, &c->vers) < 0 ||
	    rpc_xdr_opaque(x, UINT32_MAX, &netid_off, &netid_len) < 0 ||
	    rpc_xdr_opaque(x, UINT32_MAX, &off, &len) < 0 ||
	    rpc_xdr_opaque(x, UINT32_MAX, &off, &len) < 0 || x->off != x->len)
		return -EINVAL;
	if (rpc_netid_parse(x->buf + netid_off, netid_len, &c->proto, &c->family) < 0)
		return 0;
	return 1;
}

int rpc_call_parse(const uint8_t *msg, size_t len, struct rpc_call *c)
{
	struct rpc_xdr x = { .buf = msg, .len = len };
	uint32_t type, rpcvers, prog, vers, proc;

	memset(c, 0, sizeof(*c));
	if (rpc_xdr_u32(&x, &c->xid) < 0 || rpc_xdr_u32(&x, &type) < 0 || type != RPC_CALL)
		return -EINVAL;
	if (rpc_xdr_u32(&x, &rpcvers) < 0 || rpc_xdr_u32(&x, &prog) < 0 ||
	    rpc_xdr_u32(&x, &vers) < 0 || rpc_xdr_u32(&x, &proc) < 0)
		return -EINVAL;
	if (rpcvers != 2 || prog != RPC_PMAP_PROG)
		return 0;
	c->kind = rpc_kind_of(vers, proc);
	if (c->kind == RPC_KIND_NONE)
		return 0;
	if (rpc_xdr_auth(&x) < 0 || rpc_xdr_auth(&x) < 0)
		return -EINVAL;
	if (c->kind == RPC_KIND_GETPORT)
		return rpc_getport_args(&x, c);
	return rpc_rpcb_args(&x, c);
}

int rpc_reply_parse(const uint8_t *msg, size_t len, struct rpc_reply *r)
{
	struct rpc_xdr x = { .buf = msg, .len = len };
	uint32_t type;

	memset(r, 0, sizeof(*r));
	if (rpc_xdr_u32(&x, &r->xid) < 0 || rpc_xdr_u32(&x, &type) < 0 || type != RPC_REPLY ||
	    rpc_xdr_u32(&x, &r->stat) < 0)
		return -EINVAL;
	if (r->stat != 0)               /* MSG_DENIED, or not a reply_stat */
		return r->stat == 1 ? 0 : -EINVAL;
	if (rpc_xdr_auth(&x) < 0 || rpc_xdr_u32(&x, &r->stat) < 0)
		return -EINVAL;
	r->success = r->stat == 0;
	r->res_off = x.off;
	return 0;
}

int rpc_port_result(const uint8_t *msg, size_t len, const struct rpc_reply *r,
		    uint16_t *port)
{
	uint32_t v;

	if (!r->success || r->res_off > len || len - r->res_off != 4)
		return -EINVAL;
	v = rpc_get32(msg + r->res_off);
	if (v > 65535)
		return -EINVAL;
	*port = (uint16_t)v;
	return 0;
}

int rpc_uaddr_result(const uint8_t *msg, size_t len, const struct rpc_reply *r,
		     int family, struct rpc_uaddr *u)
{
	struct rpc_xdr x = { .buf = msg, .len = len, .off = r->res_off };

	memset(u, 0, sizeof(*u));
	if (!r->success || r->res_off > len)
		return -EINVAL;
	u->len_off = x.off;
	if (rpc_xdr_opaque(&x, RPC_UADDR_MAX, &u->str_off, &u->str_len) < 0 || x.off != len)
		return -EINVAL;
	u->padded = x.off - u->str_off;
	if (u->str_len == 0)
		return 0;
	return rpc_uaddr_parse(family, (const char *)msg + u->str_off, u->str_len, &u->addr,
			       &u->port);
}

/* One port byte of a universal address: 1 to 3 digits, at most 255. */
static int rpc_uaddr_octet(const char *text, size_t len, uint32_t *v)
{
	size_t used;

	if (len == 0 || len > 3 || cth_parse_uint(text, len, 255, v, &used) < 0 || used != len)
		return -EINVAL;
	return 0;
}

int rpc_uaddr_parse(int family, const char *text, size_t len, union cth_addr *addr,
		    uint16_t *port)
{
	size_t d2 = len, d1;
	uint32_t hi, lo;

	while (d2 > 0 && text[d2 - 1] != '.')
		d2--;
	if (d2 == 0)
		return -EINVAL;
	d2--;                           /* the last dot */
	d1 = d2;
	while (d1 > 0 && text[d1 - 1] != '.')
		d1--;
	if (d1 == 0)
		return -EINVAL;
	d1--;                           /* the one before it */
	if (rpc_uaddr_octet(text + d1 + 1, d2 - d1 - 1, &hi) < 0 ||
	    rpc_uaddr_octet(text + d2 + 1, len - d2 - 1, &lo) < 0 ||
	    cth_addr_parse(family, text, d1, addr) < 0)
		return -EINVAL;
	*port = (uint16_t)(hi << 8 | lo);
	return 0;
}

int rpc_uaddr_format(int family, const union cth_addr *addr, uint16_t port, char *buf,
		     size_t size)
{
	char text[CTH_ADDR_STRLEN];
	int n = cth_addr_format(family, addr, text, sizeof(text));

	if (n < 0)
		return n;
	n = snprintf(buf, size, "%s.%u.%u", text, (unsigned int)(port >> 8),
		     (unsigned int)(port & 0xff));
	if (n < 0 || (size_t)n >= size)
		return -ENOSPC;
	return n;
}

int rpc_record_scan(const uint8_t *buf, size_t len, size_t off, struct rpc_record *r)
{
	uint32_t mark, flen;

	memset(r, 0, sizeof(*r));
	r->start = off;
	for (;;) {
		if (off > len || len - off < 4) {
			r->mark_cut = true;
			r->frag_end = off;
			return -EAGAIN;
		}
		mark = rpc_get32(buf + off);
		flen = mark & ~RPC_MARK_LAST;
		if (flen > RPC_RECORD_MAX - r->msg_len)
			return -EINVAL;
		r->msg_len += flen;
		r->n_frag++;
		off += 4;
		if (flen > len - off) {
			r->frag_end = off + flen;
			r->frag_last = (mark & RPC_MARK_LAST) != 0;
			return -EAGAIN;
		}
		off += flen;
		if (mark & RPC_MARK_LAST) {
			r->end = off;
			return 0;
		}
	}
}

size_t rpc_record_copy(const uint8_t *buf, const struct rpc_record *r, uint8_t *dst,
		       size_t size)
{
	size_t off = r->start, n = 0;

	while (off + 4 <= r->end) {
		size_t flen = rpc_get32(buf + off) & ~RPC_MARK_LAST, take;

		off += 4;
		if (flen > r->end - off)
			break;
		take = flen < size - n ? flen : size - n;
		memcpy(dst + n, buf + off, take);
		n += take;
		off += flen;
	}
	return n;
}

const char *rpc_kind_name(enum rpc_kind kind)
{
	static const char *const names[] = {
		[RPC_KIND_NONE] = "?",
		[RPC_KIND_GETPORT] = "GETPORT",
		[RPC_KIND_GETADDR3] = "GETADDR v3",
		[RPC_KIND_GETADDR4] = "GETADDR v4",
		[RPC_KIND_GETVERSADDR] = "GETVERSADDR",
	};

	return (unsigned int)kind <= RPC_KIND_MAX ? names[kind] : "?";
}
