/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the whole host path around a plugin call.  An
 * arbitrary IPv4/IPv6 packet goes through pkt_view_parse(), then
 * pkt_call_run() calls a "plugin" driven by the rest of the input: edits
 * with arbitrary offsets, lengths and replacements (from the input, from
 * the packet itself, NULL, or large), expectations with arbitrary fields
 * into a fake expect_fn, timeout, mark, detach, log, private state writes.
 *
 * Every cth_mangle() answer is compared with a model written from the
 * documented rules (server/mangle.h), and the packet pkt_call_mangled()
 * returns is compared with the model's payload and checked independently
 * (fuzz_common.h): length <= 65531, IP length field = buffer length, valid
 * checksums, headers otherwise unchanged.  Any difference aborts.
 *
 * Input: flags, flags2, packet length (16 bits), the packet, private
 * state length and bytes, then the plugin's script (see fz_plugin()).
 */
#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "fuzz_common.h"
#include "log.h"
#include "mangle.h"

#define FZ_MAX_OPS 64u

/* ------------------------------------------------------------- model */

struct model_edit {
	size_t off, len, repl, rlen;
};

static struct model {
	int layout;                    /* 0 or the errno every edit gets */
	unsigned int n;
	size_t out_len;
	struct model_edit e[PKT_EDIT_MAX];
	uint8_t arena[PC_OUT_MAX];
	size_t arena_len;
} model;

/* The packet's own layout rules, written from the documentation. */
static int model_layout(const struct cth_packet *p)
{
	const uint8_t *d = p->data;

	if ((d[0] >> 4) == 4) {
		if (((d[6] << 8 | d[7]) & 0x3fff) != 0)
			return -EINVAL;              /* a fragment */
		if ((size_t)(d[2] << 8 | d[3]) > p->len)
			return -EMSGSIZE;            /* we hold only part */
		return 0;
	}
	if ((d[4] << 8 | d[5]) == 0 || 40u + (size_t)(d[4] << 8 | d[5]) > p->len)
		return -EMSGSIZE;
	return 0;
}

static int model_add(const struct pkt_call *c, size_t off, size_t len,
		     const void *repl, size_t rlen)
{
	const struct cth_packet *p = &c->pkt;
	size_t plen = p->payload_len;
	unsigned int i;

	if (c->truncated)
		return -EMSGSIZE;
	if (model.layout)
		return model.layout;
	if (c->gso && fz_view_proto(p) != 6)
		return -EMSGSIZE;
	if (off > plen || len > plen - off || (!repl && rlen))
		return -EINVAL;
	if (fz_view_proto(p) == 6 && rlen != len && !p->nat)
		return -EPERM;
	if (!len && !rlen)
		return 0;
	for (i = 0; i < model.n; i++) {
		const struct model_edit *e = &model.e[i];

		if (len == 0 && e->len == 0 ? e->off == off :
		    (off < e->off + e->len && e->off < off + len))
			return -EINVAL;
	}
	if (model.n == PKT_EDIT_MAX)
		return -ENOSPC;
	if (rlen > PC_OUT_MAX || model.out_len - len + rlen > PC_OUT_MAX)
		return -ENOSPC;
	model.e[model.n++] = (struct model_edit){ off, len, model.arena_len, rlen };
	if (rlen)
		memcpy(model.arena + model.arena_len, repl, rlen);
	model.arena_len += rlen;
	model.out_len = model.out_len - len + rlen;
	return 0;
}

/* The payload the edits make, position by position: at each original
 * offset first an insertion made there, then a replacement starting
 * there (skipping what it replaces) or the original byte.  The edits are
 * ordered by offset first (insertion sort on a copy). */
static size_t model_payload(const struct cth_packet *p, uint8_t *out)
{
	struct model_edit e[PKT_EDIT_MAX];
	size_t pos = 0, o = 0;
	unsigned int i, j, k = 0;

	for (i = 0; i < model.n; i++) {
		for (j = i; j > 0 && e[j - 1].off > model.e[i].off; j--)
			e[j] = e[j - 1];
		e[j] = model.e[i];
	}
	for (;;) {
		const struct model_edit *range = NULL;

		for (; k < model.n && e[k].off == pos; k++) {
			if (e[k].len == 0) {
				memcpy(out + o, model.arena + e[k].repl, e[k].rlen);
				o += e[k].rlen;
			} else {
				range = &e[k];
			}
		}
		if (range) {
			memcpy(out + o, model.arena + range->repl, range->rlen);
			o += range->rlen;
			pos += range->len;
			continue;
		}
		if (pos >= p->payload_len)
			break;
		out[o++] = p->payload[pos++];
	}
	FZ_ASSERT(k == model.n, "model edits left unapplied");
	return o;
}

/* ------------------------------------------------------------ plugin */

static struct fz script;
static uint8_t rbuf[65536], pattern[65536];
static int expect_answer;
static struct pkt_call call;

static void fz_mangle(struct cth_ctx *ctx, const struct cth_packet *pkt,
		      uint8_t op)
{
	size_t off = fz_u16(&script), len = fz_u16(&script);
	size_t rlen = fz_u16(&script), plen = pkt->payload_len, start;
	const void *repl = rbuf;
	int rc, want;

	if (op & 0x08)                       /* small replacement */
		rlen %= 64;
	if (op & 0x10) {                     /* a range inside the payload */
		off %= plen + 1;
		len %= plen - off + 1;
	}
	switch ((op >> 5) & 3) {
	case 0:                              /* bytes from the input */
		fz_bytes(&script, rbuf, rlen);
		break;
	case 1:                              /* bytes of the packet itself */
		if (!plen) {
			rlen = 0;
			break;
		}
		start = fz_u16(&script) % plen;
		if (rlen > plen - start)
			rlen = plen - start;
		repl = pkt->payload + start;
		break;
	case 2:
		repl = NULL;
		break;
	default:                             /* large, patterned */
		repl = pattern;
		break;
	}
	want = model_add(&call, off, len, repl, rlen);
	rc = cth_mangle(ctx, off, len, repl, rlen);
	FZ_ASSERT(rc == want, "cth_mangle(%zu, %zu, %s, %zu) = %d, model %d",
		  off, len, repl ? "repl" : "NULL", rlen, rc, want);
}

static void fz_expect(struct cth_ctx *ctx)
{
	static const char *const fns[] = { NULL, CTH_EXPECT_FN_NAT_FOLLOW_MASTER, "" };
	struct cth_expect e;
	uint8_t b;
	unsigned int how;

	memset(&e, 0, sizeof(e));
	e.class = fz_u8(&script) % 4;
	e.flags = fz_u8(&script);
	b = fz_u8(&script);
	e.family = b == 0 ? AF_INET : b == 1 ? AF_INET6 : b;
	b = fz_u8(&script);
	e.proto = b == 0 ? IPPROTO_TCP : b == 1 ? IPPROTO_UDP : b;
	e.sport = fz_u16(&script);
	e.dport = fz_u16(&script);
	fz_bytes(&script, &e.src, sizeof(e.src));
	fz_bytes(&script, &e.dst, sizeof(e.dst));
	b = fz_u8(&script);
	e.nat_dir = (enum cth_dir)(b < 2 ? b : b % 4);
	fz_bytes(&script, &e.nat_addr, sizeof(e.nat_addr));
	e.nat_port = fz_u16(&script);
	e.fn = fns[fz_u8(&script) % 3];
	how = fz_u8(&script) % 3;
	b = fz_u8(&script);
	expect_answer = b % 4 == 0 ? 0 : b % 4 == 1 ? -EBUSY : b % 4 == 2 ? -EEXIST : -EINVAL;
	(void)cth_expect(ctx, &e, how);
}

/* The script: up to FZ_MAX_OPS operations, each an opcode byte (low 3
 * bits: what) and its arguments. */
static int fz_plugin(struct cth_ctx *ctx, const struct cth_packet *pkt,
		     void *priv, const void *config)
{
	unsigned int ops;
	uint32_t sum = 0;
	size_t i;

	(void)config;
	/* the view must be readable end to end */
	for (i = 0; i < pkt->len; i++)
		sum += pkt->data[i];
	FZ_ASSERT(pkt->payload == pkt->data + pkt->payload_offset &&
		  pkt->payload_offset + pkt->payload_len == pkt->len,
		  "view offsets");
	for (ops = 0; ops < FZ_MAX_OPS && script.n; ops++) {
		uint8_t op = fz_u8(&script);

		switch (op & 7) {
		case 0:
		case 1:
			fz_mangle(ctx, pkt, op);
			break;
		case 2:
			fz_expect(ctx);
			break;
		case 3:
			(void)cth_set_timeout(ctx, fz_u32(&script));
			break;
		case 4:
			(void)cth_set_mark(ctx, fz_u32(&script));
			break;
		case 5:
			(void)cth_detach(ctx);
			break;
		case 6: {
			uint8_t at = fz_u8(&script) % CTH_PRIV_MAX;

			((uint8_t *)priv)[at] = fz_u8(&script);
			break;
		}
		default:
			if (op & 8) {
				cth_log(ctx, CTH_LOG_INFO, "fuzz %u", (unsigned int)sum);
				break;
			}
			return op & 16 ? CTH_VERDICT_DROP : fz_u8(&script);
		}
	}
	return CTH_VERDICT_ACCEPT;
}

static const struct cth_plugin_desc fz_desc = {
	.abi_version = CTH_ABI_VERSION,
	.size = sizeof(struct cth_plugin_desc),
	.name = "fuzz",
	.protocols = CTH_PROTO_TCP | CTH_PROTO_UDP,
	.families = CTH_FAMILY_IPV4 | CTH_FAMILY_IPV6,
	.priv_size = CTH_PRIV_MAX,
	.n_classes = 2,
	.classes = { { .name = "a", .max = 1, .timeout = 5 },
		     { .name = "b", .max = 3, .timeout = 9 } },
	.packet = fz_plugin,
};
static const struct plugin fz_pl = { .desc = &fz_desc };
static const struct instance fz_inst = { .name = "fuzz", .pl = &fz_pl,
					 .n_classes = 2 };

/* What pkt_host_expect() promises to pass on. */
static int fz_expect_fn(struct pkt_call *c, const struct cth_expect *e,
			unsigned int how)
{
	FZ_ASSERT(e && e->class < c->inst->n_classes &&
		  e->family == c->pkt.tuple[0].family &&
		  (e->proto == IPPROTO_TCP || e->proto == IPPROTO_UDP) &&
		  e->dport != 0 && !(how & ~(unsigned int)CTH_EXPECT_SYNC),
		  "expectation passed on unchecked");
	FZ_ASSERT(!(e->flags & CTH_EXPECT_NAT) || e->nat_dir == CTH_DIR_ORIGINAL ||
		  e->nat_dir == CTH_DIR_REPLY, "NAT direction passed on unchecked");
	c->n_expect++;
	return expect_answer;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	for (size_t i = 0; i < sizeof(pattern); i++)
		pattern[i] = (uint8_t)(i * 7 + 1);
	log_init(LOG_L_ERR, 0);   /* plugin log lines are info: not printed */
	fz_verbose_init();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz in = { data, size };
	uint8_t flags = fz_u8(&in), flags2 = fz_u8(&in), priv[CTH_PRIV_MAX];
	size_t len = fz_u16(&in), priv_len, rlen = 0, mlen;
	const uint8_t *r, *r2;
	static uint8_t want[PC_OUT_MAX];
	uint8_t *pkt;
	int family = flags & 1 ? AF_INET6 : AF_INET;

	if (len > in.n)
		len = in.n;
	/* a heap block of exactly the packet: ASan sees any overread */
	pkt = malloc(len ? len : 1);
	if (!pkt)
		return 0;
	fz_bytes(&in, pkt, len);
	memset(&call, 0, sizeof(call));
	if (pkt_view_parse(&call.pkt, pkt, len, family) < 0) {
		free(pkt);
		return 0;
	}
	FZ_ASSERT(call.pkt.len <= len && call.pkt.payload_offset <= call.pkt.len &&
		  call.pkt.l4_offset < call.pkt.payload_offset,
		  "view outside the packet");
	priv_len = fz_u8(&in) % (CTH_PRIV_MAX + 2);
	fz_bytes(&in, priv, sizeof(priv));
	script = in;

	call.inst = &fz_inst;
	call.expect_fn = fz_expect_fn;
	call.truncated = flags & 8;
	call.gso = flags & 16;
	call.pkt.nat = (flags >> 1) & 3;
	call.pkt.dir = (flags & 32) ? CTH_DIR_REPLY : CTH_DIR_ORIGINAL;
	call.pkt.ctinfo = (enum cth_ctinfo)(flags2 % 5);
	call.pkt.ct_status = flags2 >> 4;
	for (int d = 0; d < 2; d++) {
		call.pkt.tuple[d].family = (uint8_t)family;
		call.pkt.tuple[d].proto = fz_view_proto(&call.pkt);
	}

	model.n = 0;
	model.arena_len = 0;
	model.layout = model_layout(&call.pkt);
	model.out_len = call.pkt.len;

	(void)pkt_call_run(&call, priv_len > CTH_PRIV_MAX ? NULL : priv,
			   priv_len > CTH_PRIV_MAX ? 0 : priv_len);

	r = pkt_call_mangled(&call, &rlen);
	if (fz_verbose)
		fprintf(stderr, "fuzz_host: %zu-byte IPv%d packet, %u edits, "
			"result %zu bytes, %u expectations\n", call.pkt.len,
			family == AF_INET6 ? 6 : 4, model.n, r ? rlen : 0,
			call.n_expect);
	if (model.n == 0) {
		FZ_ASSERT(!r, "a result without an accepted edit");
	} else {
		FZ_ASSERT(r, "no result after %u accepted edits", model.n);
		FZ_ASSERT(rlen == model.out_len, "result %zu bytes, model %zu",
			  rlen, model.out_len);
		mlen = model_payload(&call.pkt, want);
		fz_check_result(&call.pkt, r, rlen, want, mlen);
		r2 = pkt_call_mangled(&call, &mlen);
		FZ_ASSERT(r2 == r && mlen == rlen, "second result differs");
	}
	pkt_call_release(&call);
	free(pkt);
	return 0;
}
