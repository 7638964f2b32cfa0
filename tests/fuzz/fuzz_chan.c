/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the channel from the sandbox's side.  The input is
 * what a hostile sandbox writes into the shared memory (struct chan_res:
 * its header fields, the records area, the call it waits on) for up to
 * three CHAN_RING_CALL turns and a CHAN_RING_DONE, and the worker's
 * check (server/sandbox/chan_check.c) takes each turn on a fixed IPv4
 * packet (TCP or UDP, NAT or not, truncated or not) with backends that
 * record what would reach the kernel.
 *
 * Invariants (any violation aborts):
 *  - chan_check_call() returns 0 or -EPROTO, chan_check_done() a verdict
 *    (CTH_VERDICT_DROP / _ACCEPT) or -EPROTO, always with a reason;
 *  - a doorbell word is taken (chan_check_word()) only as the awaited
 *    slot's CALL or DONE, exactly chan_word() of it, the right word
 *    always: any other (another slot, ring, stray bits) breaks the
 *    channel with a reason, as the worker's batch then does;
 *  - the packet pkt_call_mangled() hands back is at most PKT_OUT_MAX
 *    bytes, its headers unchanged but for lengths and checksums, which
 *    are right (fuzz_hostpath.h: the edits lie in the payload); none
 *    for a truncated packet, none of another length for TCP without NAT;
 *  - every expectation that reaches the backend is of the connection's
 *    family, touches the master (guard.h's rule, written out again
 *    here), has a declared class, known flags and a terminated function
 *    name shorter than PKT_EXPECT_FN_MAX; every expect_ctl a known op;
 *  - the mark has only the guard's bits; undeclared counters stay 0;
 *  - the state taken is the daemon's priv_size bytes of what the sandbox
 *    wrote, zeros past them; n_refused stays bounded;
 *  - a plugin log line reaches the log (or the trace) without control
 *    characters;
 *  - a keep answer (CHAN_REC_KEEP) reaches the call's trace only as one
 *    cth_keep() can give: an error it has, or an offset in a TCP view
 *    whose rest fits the table; the worker itself never keeps a byte.
 *
 * Input: flags (bit 0 UDP, bit 1 destination NAT, bits 2-3 calls before
 * the result, bit 4 truncated, bit 5 an expected connection, bit 6 a
 * trace on the call, as cthelper-replay --sandbox sets, bit 7 the
 * doorbell words from the input), priv_size (mod CTH_PRIV_MAX + 1), the
 * guard's mark mask (32 bits), [with bit 7: the awaited slot (8, mod
 * CHAN_SLOTS)], then per turn: [with bit 7: the word rung (32); else the
 * turn's right word for slot 0]
 *   mode (bit 0: rec_used from the input, 32 bits, else the records'
 *   length; bit 1: the expectation's family, protocol and addresses set
 *   from the connection by the selector byte that follows; bit 2: kept
 *   as 32 bits, else 16), kept, verdict (32), priv_changed, state_reset,
 *   n_refused (32), log_dropped (32), state length (8) and bytes, call op
 *   (8), how (32), has_exp, expectation length (16) and its raw bytes
 *   (struct chan_expect), [selector], records length (16) and bytes.
 * Seeds: corpus/fuzz_chan/, written by mkseeds_chan.py.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <netinet/udp.h>
#include <sys/socket.h>

#include "fuzz_hostpath.h"
#include "host/keep.h"
#include "sandbox/chan.h"
#include "sandbox/chan_check.h"

#define FZC_PAYLOAD "PORT 10,0,0,1,156,65\r\n"
#define FZC_CLASSES 2u
#define FZC_COUNTERS 3u

static struct cth_plugin_desc fzc_desc = {
	.name = "chan",
	.n_classes = FZC_CLASSES,
	.n_counters = FZC_COUNTERS,
};
static struct plugin fzc_plugin = { .desc = &fzc_desc };
static struct instance fzc_inst;
static struct stats_block fzc_stats;
static struct chan_shm *fzc_shm;
static struct chan_check fzc_chk;

/* The connection, for the backends' checks. */
static struct fzc_state {
	const struct pkt_call *c;
	unsigned int n_exp, n_ctl, n_keep;
	/* the function name as the sandbox wrote it this turn */
	char fn[sizeof(((struct chan_expect *)0)->fn)];
} fzc;

static bool fzc_is_master(const union cth_addr *a)
{
	const struct cth_tuple *o = &fzc.c->pkt.tuple[CTH_DIR_ORIGINAL];
	const struct cth_tuple *r = &fzc.c->pkt.tuple[CTH_DIR_REPLY];

	return a->ip == o->src.ip || a->ip == o->dst.ip ||
	       a->ip == r->src.ip || a->ip == r->dst.ip;
}

/* An expectation that reached the kernel's side: what the host's checks
 * promise, written out from plugin.h and guard.h. */
static void fzc_exp_check(const struct cth_expect *e, bool refresh)
{
	bool any_src = e->flags & CTH_EXPECT_ANY_SRC;
	bool src_net = (e->flags & CTH_EXPECT_SRC_PREFIX) && e->src_prefix < 32;

	FZ_CHECK(e != NULL);
	FZ_CHECK(e->family == AF_INET);
	FZ_CHECK(e->proto == IPPROTO_TCP || e->proto == IPPROTO_UDP);
	FZ_CHECK(e->dport != 0);
	FZ_CHECK(e->class < FZC_CLASSES);
	FZ_CHECK(!(e->flags & ~PKT_EXPECT_FLAGS));
	FZ_ASSERT(fzc_is_master(&e->dst) || (!any_src && !src_net && fzc_is_master(&e->src)),
		  "an expectation between third parties: src 0x%08x dst 0x%08x flags 0x%x",
		  e->src.ip, e->dst.ip, e->flags);
	FZ_ASSERT(!e->fn || strnlen(e->fn, PKT_EXPECT_FN_MAX) < PKT_EXPECT_FN_MAX,
		  "function name of %zu bytes or more", (size_t)PKT_EXPECT_FN_MAX);
	/* whole, never a cut of a longer one the host would refuse */
	FZ_ASSERT(!e->fn || (memchr(fzc.fn, '\0', PKT_EXPECT_FN_MAX) &&
			     strcmp(e->fn, fzc.fn) == 0),
		  "function name '%s' is not the sandbox's", e->fn);
	if ((e->flags & CTH_EXPECT_NAT) &&
	    !(e->fn && strcmp(e->fn, CTH_EXPECT_FN_NAT_FOLLOW_MASTER) == 0))
		FZ_ASSERT(fzc_is_master(&e->nat_addr), "NAT to 0x%08x", e->nat_addr.ip);
	if (refresh)
		FZ_CHECK(e->timeout <= PKT_EXPECT_TIMEOUT_MAX);
}

static int fzc_expect(struct pkt_call *c, const struct cth_expect *e, unsigned int how)
{
	FZ_CHECK(c == fzc.c);
	FZ_CHECK(!(how & ~(unsigned int)CTH_EXPECT_SYNC));
	fzc_exp_check(e, false);
	fzc.n_exp++;
	return 0;
}

static int fzc_expect_ctl(struct pkt_call *c, unsigned int op, const struct cth_expect *e)
{
	FZ_CHECK(c == fzc.c);
	FZ_ASSERT(op == CTH_EXPECT_OP_FLUSH || op == CTH_EXPECT_OP_REMOVE ||
		  op == CTH_EXPECT_OP_REFRESH, "expect_ctl op %u", op);
	if (op == CTH_EXPECT_OP_REFRESH)
		fzc_exp_check(e, true);
	else if (op == CTH_EXPECT_OP_FLUSH)
		FZ_CHECK(!e || e->class < FZC_CLASSES);
	else
		FZ_CHECK(e && e->family == AF_INET && !(e->flags & ~PKT_EXPECT_FLAGS));
	fzc.n_ctl++;
	return 0;
}

static int fzc_link(struct pkt_call *c, struct cth_link *link)
{
	FZ_CHECK(c == fzc.c);
	link->in_ifindex = 2;
	return 0;
}

/* What the call's trace is shown (with flags bit 6). */
static void fzc_trace(struct pkt_call *c, const struct pkt_event *ev)
{
	FZ_CHECK(c == fzc.c);
	if (ev->type == PKT_EV_LOG) {
		for (const char *p = ev->text; *p; p++)
			FZ_ASSERT((unsigned char)*p >= 0x20 && *p != 0x7f,
				  "control byte 0x%02x in a traced line", (unsigned char)*p);
		return;
	}
	if (ev->type != PKT_EV_KEEP)
		return;
	fzc.n_keep++;
	if (ev->rc != 0) {
		FZ_ASSERT(ev->rc == -EOPNOTSUPP || ev->rc == -EMSGSIZE || ev->rc == -EINVAL ||
			  ev->rc == -ENOSPC || ev->rc == -ENOMEM, "keep answer %d", ev->rc);
		return;
	}
	FZ_CHECK(c->pkt.tuple[CTH_DIR_ORIGINAL].proto == IPPROTO_TCP);
	FZ_ASSERT(ev->off <= c->pkt.payload_len && c->pkt.payload_len - ev->off <= KEEP_BYTES_MAX,
		  "kept from %zu of a %zu-byte view", ev->off, c->pkt.payload_len);
}

/* Whatever a plugin logs, the operator's log gets no control bytes. */
static void fzc_log_line(void *arg, int level, const char *line)
{
	(void)arg;
	(void)level;
	for (const char *p = line; *p; p++)
		FZ_ASSERT((unsigned char)*p >= 0x20 && *p != 0x7f,
			  "control byte 0x%02x in a log line", (unsigned char)*p);
}

void fz_setup(void)
{
	fzc_shm = calloc(1, sizeof(*fzc_shm));
	FZ_CHECK(fzc_shm != NULL);
	fzc_shm->magic = CHAN_MAGIC;
	fzc_shm->version = CHAN_VERSION;
	snprintf(fzc_inst.name, sizeof(fzc_inst.name), "chan");
	fzc_inst.pl = &fzc_plugin;
	fzc_inst.n_classes = FZC_CLASSES;
	fzc_inst.slot = 0;
	log_capture_set(fzc_log_line, NULL);
}

/* The fixed packet, 10.0.0.1:40000 -> 10.0.0.2:21, in a heap block of
 * its exact size; c's view of it. */
static uint8_t *fzc_packet(struct pkt_call *c, bool udp, size_t *len)
{
	size_t l4 = udp ? sizeof(struct udphdr) : sizeof(struct tcphdr);
	size_t pl = strlen(FZC_PAYLOAD);
	uint8_t *p;
	struct iphdr *ip;
	struct cth_tuple *o, *r;

	*len = sizeof(*ip) + l4 + pl;
	p = calloc(1, *len);
	FZ_CHECK(p != NULL);
	ip = (struct iphdr *)p;
	ip->version = 4;
	ip->ihl = 5;
	ip->ttl = 64;
	ip->protocol = udp ? IPPROTO_UDP : IPPROTO_TCP;
	ip->tot_len = htons((uint16_t)*len);
	ip->saddr = htonl(0x0a000001);
	ip->daddr = htonl(0x0a000002);
	if (udp) {
		struct udphdr *u = (struct udphdr *)(p + sizeof(*ip));

		u->source = htons(40000);
		u->dest = htons(21);
		u->len = htons((uint16_t)(l4 + pl));
	} else {
		struct tcphdr *t = (struct tcphdr *)(p + sizeof(*ip));

		t->source = htons(40000);
		t->dest = htons(21);
		t->doff = 5;
		t->ack = 1;
		t->seq = htonl(1000);
	}
	memcpy(p + sizeof(*ip) + l4, FZC_PAYLOAD, pl);
	pkt_sums_fix(p, *len, sizeof(*ip), !udp);
	memset(c, 0, sizeof(*c));
	FZ_CHECK(pkt_view_parse(&c->pkt, p, *len, AF_INET) == 0);
	o = &c->pkt.tuple[CTH_DIR_ORIGINAL];
	r = &c->pkt.tuple[CTH_DIR_REPLY];
	o->family = r->family = AF_INET;
	o->proto = r->proto = ip->protocol;
	o->src.ip = ip->saddr;
	o->dst.ip = ip->daddr;
	o->sport = htons(40000);
	o->dport = htons(21);
	*r = *o;
	r->src.ip = o->dst.ip;
	r->dst.ip = o->src.ip;
	r->sport = o->dport;
	r->dport = o->sport;
	c->pkt.ctinfo = CTH_CT_ESTABLISHED;
	c->pkt.ct_id = 9;
	return p;
}

/* The expectation's fields a valid one needs, from the connection: the
 * selector picks protocol, which end is the source and destination, and
 * a function name. */
static void fzc_exp_fix(struct chan_expect *w, uint8_t sel)
{
	const struct cth_tuple *o = &fzc.c->pkt.tuple[CTH_DIR_ORIGINAL];

	w->e.family = AF_INET;
	w->e.proto = sel & 1 ? IPPROTO_UDP : IPPROTO_TCP;
	w->e.src = sel & 2 ? o->dst : o->src;
	w->e.dst = sel & 4 ? o->src : o->dst;
	if (!w->e.dport)
		w->e.dport = htons(40001);
	if (sel & 8)
		w->e.nat_addr = o->src;
	if (sel & 16) {
		w->has_fn = 1;
		snprintf(w->fn, sizeof(w->fn), "%s", CTH_EXPECT_FN_NAT_FOLLOW_MASTER);
	}
}

/* One turn of the sandbox into the shared memory; *priv gets the state
 * bytes it wrote. */
static void fzc_turn_write(struct fz *in, uint8_t priv[CTH_PRIV_MAX], struct chan_res *r)
{
	uint8_t mode = fz_u8(in);
	size_t n;
	uint16_t rlen;

	memset(r, 0, offsetof(struct chan_res, rec));
	r->kept = mode & 4 ? fz_u32(in) : fz_u16(in);
	r->verdict = (int32_t)fz_u32(in);
	r->priv_changed = fz_u8(in);
	r->state_reset = fz_u8(in);
	r->n_refused = fz_u32(in);
	r->log_dropped = fz_u32(in);
	n = fz_u8(in);
	fz_bytes(in, r->priv, n < CTH_PRIV_MAX ? n : CTH_PRIV_MAX);
	memcpy(priv, r->priv, CTH_PRIV_MAX);
	r->call.op = fz_u8(in);
	r->call.how = fz_u32(in);
	r->call.has_exp = fz_u8(in);
	n = fz_u16(in);
	fz_bytes(in, &r->call.exp, n < sizeof(r->call.exp) ? n : sizeof(r->call.exp));
	if (mode & 2)
		fzc_exp_fix(&r->call.exp, fz_u8(in));
	memcpy(fzc.fn, r->call.exp.fn, sizeof(fzc.fn));
	rlen = fz_u16(in);
	n = fz_bytes(in, r->rec, rlen);
	r->rec_used = mode & 1 ? fz_u32(in) : (uint32_t)n;
	/* past the input's records, zeros: not an earlier input's */
	if (r->rec_used > n)
		memset(r->rec + n, 0, (r->rec_used < CHAN_REC_BYTES ? r->rec_used :
				       CHAN_REC_BYTES) - n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz in = { data, size };
	uint8_t flags = fz_u8(&in);
	unsigned int calls = (flags >> 2) & 3, refused_max = PKT_EXPECT_PER_CALL;
	uint8_t priv[CTH_PRIV_MAX];
	struct pkt_call c;
	const char *why;
	const uint8_t *out;
	size_t len, olen;
	uint8_t *pkt;
	unsigned int slot = 0;
	bool done = false;
	int rc = 0;

	fzc_desc.priv_size = fz_u8(&in) % (CTH_PRIV_MAX + 1);
	fzc_inst.guard.mark_mask = fz_u32(&in);
	if (flags & 128)
		slot = fz_u8(&in) % CHAN_SLOTS;
	memset(&fzc_stats, 0, sizeof(fzc_stats));
	memset(&fzc, 0, sizeof(fzc));
	pkt = fzc_packet(&c, flags & 1, &len);
	fzc.c = &c;
	c.inst = &fzc_inst;
	c.expect_fn = fzc_expect;
	c.expect_ctl_fn = fzc_expect_ctl;
	c.link_fn = fzc_link;
	c.stats = &fzc_stats;
	c.pkt.nat = flags & 2 ? CTH_NAT_DST : 0;
	c.truncated = flags & 16;
	if (flags & 32)
		c.pkt.ct_status |= CTH_CT_EXPECTED;
	if (flags & 64)
		c.trace = fzc_trace;
	pkt_call_host(&c);

	for (unsigned int t = 0; t <= calls && rc >= 0 && !done; t++) {
		struct chan_slot *sl = &fzc_shm->slot[slot];
		uint32_t want = chan_word(t < calls ? CHAN_RING_CALL : CHAN_RING_DONE, slot);
		uint32_t word = flags & 128 ? fz_u32(&in) : want;
		int ring;

		fzc_turn_write(&in, priv, &sl->res);
		why = NULL;
		ring = chan_check_word(word, slot, &why);
		FZ_ASSERT(ring == -EPROTO ? why && *why && word != want :
			  word == chan_word((uint32_t)ring, slot),
			  "word 0x%x for slot %u: %d", word, slot, ring);
		if (ring < 0) {
			rc = ring;
		} else if (ring == CHAN_RING_CALL) {
			if (sl->res.call.op == CHAN_OP_EXPECT || sl->res.call.op == CHAN_OP_EXPECT_CTL)
				refused_max++;
			rc = chan_check_call(&fzc_chk, sl, &c, &why);
			FZ_ASSERT(rc == 0 || rc == -EPROTO, "call: %d", rc);
		} else {
			done = true;
			rc = chan_check_done(&fzc_chk, sl, &c, NULL, 0, &fzc_stats, &why);
			FZ_ASSERT(rc == CTH_VERDICT_ACCEPT || rc == CTH_VERDICT_DROP ||
				  rc == -EPROTO, "done: %d", rc);
		}
		FZ_ASSERT(rc != -EPROTO || (why && *why), "refused without a reason");
		if (fz_verbose)
			fprintf(stderr, "turn %u/%u: rc %d%s%s\n", t, calls, rc,
				why ? ", " : "", why ? why : "");
	}

	/* what a verdict would carry */
	FZ_CHECK(c.n_refused <= refused_max);
	FZ_ASSERT(!(c.mark & ~fzc_inst.guard.mark_mask), "mark 0x%x, mask 0x%x", c.mark,
		  fzc_inst.guard.mark_mask);
	for (unsigned int k = FZC_COUNTERS; k < CTH_COUNTER_MAX; k++)
		FZ_ASSERT(atomic_load(&fzc_stats.pc[0][k]) == 0, "undeclared counter %u", k);
	FZ_CHECK(c.pkt.kept <= KEEP_BYTES_MAX);
	/* the kept bytes are the sandbox's: shown, never taken */
	FZ_ASSERT(!c.keep_copy && c.keep_len == 0, "the worker kept %zu bytes", c.keep_len);
	if (done && rc >= 0) {
		size_t n = fzc_desc.priv_size;

		FZ_ASSERT(memcmp(c.priv, priv, n) == 0, "state not the sandbox's");
		for (size_t i = n; i < CTH_PRIV_MAX; i++)
			FZ_ASSERT(c.priv[i] == 0, "state byte %zu past priv_size %zu", i, n);
	}
	out = pkt_call_mangled(&c, &olen);
	if (fz_verbose)
		fprintf(stderr, "expectations %u, expect_ctl %u, keeps shown %u, refused %u, "
			"packet %zu -> %zu\n", fzc.n_exp, fzc.n_ctl, fzc.n_keep, c.n_refused, len,
			out ? olen : len);
	if (out) {
		FZ_CHECK(!c.truncated);
		FZ_ASSERT(olen <= PKT_OUT_MAX, "result of %zu bytes", olen);
		if (!(flags & 1) && !c.pkt.nat)
			FZ_ASSERT(olen == len, "TCP without NAT: %zu bytes, was %zu", olen, len);
		fz_check_result(&c.pkt, out, olen, NULL, 0);
	}
	pkt_call_release(&c);
	free(pkt);
	return 0;
}
