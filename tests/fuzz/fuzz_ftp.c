/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the real FTP plugin (plugins/ftp/, linked in) on
 * the host path -- pkt_view_parse(), pkt_call_run(), its edits, the
 * result -- with a fuzzed packet, fuzzed private state, NAT, direction,
 * `loose`, and a fake expect_fn whose answers (success, port taken,
 * error) come from the input.
 *
 * Checked after every call (fuzz_hostpath.h): a rewritten packet is at most
 * 65531 bytes, its IP length field equals its length, its checksums are
 * valid, its headers otherwise unchanged; nothing is rewritten without
 * NAT or on a truncated or GSO packet.
 *
 * Input: flags, expect mode, 20 bytes of private state, 16 bytes of NAT
 * address, NAT port (16 bits), then the packet.
 */
#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "fuzz_hostpath.h"

#define FTP_PRIV_LEN 20u

/* bits of the flags byte besides fuzz_hostpath.h's FZ_F_* */
enum {
	F_LOOSE = 1u << 6,      /* loose = yes */
	F_NEW = 1u << 7,        /* a packet not established */
};

static uint8_t expect_mode;
static unsigned int expect_calls;

static int fz_expect_fn(struct pkt_call *c, const struct cth_expect *e,
			unsigned int how)
{
	unsigned int busy = expect_mode >> 2;

	FZ_ASSERT(e && e->class < c->inst->n_classes && e->dport != 0 &&
		  e->family == c->pkt.tuple[0].family && !(how & ~1u),
		  "expectation passed on unchecked");
	expect_calls++;
	switch (expect_mode & 3) {
	case 0:
		return 0;
	case 1:
		return expect_calls > busy ? 0 : -EBUSY;
	case 2:
		return -EBUSY;
	default:
		return -EINVAL;
	}
}

static const struct plugin ftp_pl = { .desc = &cth_plugin };

/* The connection's tuples as the kernel would give them: this packet's
 * direction from its own addresses and ports, the other one reversed or,
 * under NAT, pointing at the NAT address. */
static void fz_tuples(struct cth_packet *p, int family, const uint8_t *nat_addr,
		      uint16_t nat_port)
{
	struct cth_tuple *own = &p->tuple[p->dir], *rev = &p->tuple[!p->dir];
	const uint8_t *d = p->data, *l4 = d + p->l4_offset;
	size_t alen = family == AF_INET6 ? 16 : 4, at = family == AF_INET6 ? 8 : 12;

	memset(p->tuple, 0, sizeof(p->tuple));
	memcpy(own->src.raw, d + at, alen);
	memcpy(own->dst.raw, d + at + alen, alen);
	own->sport = (uint16_t)(l4[0] << 8 | l4[1]);
	own->dport = (uint16_t)(l4[2] << 8 | l4[3]);
	*rev = *own;
	rev->src = own->dst;
	rev->dst = own->src;
	rev->sport = own->dport;
	rev->dport = own->sport;
	if (p->nat) {
		memcpy(rev->dst.raw, nat_addr, alen);
		rev->dport = nat_port;
	}
	own->family = rev->family = (uint8_t)family;
	own->proto = rev->proto = fz_view_proto(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz in = { data, size };
	uint8_t flags = fz_u8(&in), priv[FTP_PRIV_LEN], nat_addr[16];
	uint64_t config[32] = { 0 };
	struct instance inst;
	struct pkt_call c;
	int family = flags & FZ_F_IPV6 ? AF_INET6 : AF_INET;
	const uint8_t *r;
	uint16_t nat_port;
	size_t rlen = 0;
	uint8_t *pkt;

	expect_mode = fz_u8(&in);
	expect_calls = 0;
	fz_bytes(&in, priv, sizeof(priv));
	fz_bytes(&in, nat_addr, sizeof(nat_addr));
	nat_port = fz_u16(&in);
	pkt = fz_packet_view(&in, in.n, flags, &c);
	if (!pkt)
		return 0;
	fz_instance_init(&inst, &ftp_pl, config);
	if (flags & F_LOOSE)
		fz_configure(&cth_plugin, config, "loose=yes");
	c.inst = &inst;
	c.expect_fn = fz_expect_fn;
	fz_call_flags(&c, flags);
	c.pkt.ctinfo = flags & F_NEW ? CTH_CT_NEW :
		       c.pkt.dir == CTH_DIR_ORIGINAL ? CTH_CT_ESTABLISHED :
		       CTH_CT_ESTABLISHED_REPLY;
	fz_tuples(&c.pkt, family, nat_addr, nat_port);

	(void)pkt_call_run(&c, priv, sizeof(priv));

	r = pkt_call_mangled(&c, &rlen);
	if (fz_verbose)
		fprintf(stderr, "fuzz_ftp: %zu-byte IPv%d packet, %u expect calls, "
			"result %zu bytes%s%.*s\n", c.pkt.len,
			family == AF_INET6 ? 6 : 4, expect_calls, r ? rlen : 0,
			r ? ": " : "", r ? (int)(rlen - c.pkt.payload_offset) : 0,
			r ? (const char *)r + c.pkt.payload_offset : "");
	fz_check_sent(&c, r, rlen);
	pkt_call_release(&c);
	free(pkt);
	return 0;
}
