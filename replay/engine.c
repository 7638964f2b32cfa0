/* SPDX-License-Identifier: MIT */
/*
 * The replay's packet loop: every frame through the emulated conntrack
 * (conn.c; a first packet no connection knows to related.c: expected,
 * helped or blocked), the expectation table (expect.c) and, for a helped
 * connection's packet with payload, the plugin call on the daemon's own
 * host code (server/host/call.c, packet.c, edit.c, keep.c); the packet as its
 * verdict leaves it goes to the engine's emit function.  Shared by the
 * tool (main.c) and the fuzz targets (tests/fuzz/fuzz_replay.c).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "host/keep.h"
#include "replay.h"

/* A flow of the helper's families and protocol? */
static bool rp_proto_ok(const struct rp_engine *r, const struct cth_tuple *t)
{
	const struct instance *in = r->inst;
	unsigned int fam = t->family == AF_INET6 ? CTH_FAMILY_IPV6 : CTH_FAMILY_IPV4;
	unsigned int pr = t->proto == IPPROTO_UDP ? CTH_PROTO_UDP : CTH_PROTO_TCP;

	return (in->families & fam) && (in->protocols & pr) &&
	       (!r->proto || r->proto == t->proto);
}

bool rp_engine_helps(const struct rp_engine *r, const struct cth_tuple *t)
{
	if (!rp_proto_ok(r, t))
		return false;
	for (size_t i = 0; i < r->n_ports; i++)
		if (r->ports[i] == t->dport)
			return true;
	return false;
}

static void rp_engine_emit(struct rp_engine *r, const struct rp_frame *f,
			   const uint8_t *l3, size_t len)
{
	if (r->emit)
		r->emit(r->emit_arg, f, l3, len);
}

/* Detaches waiting for expectations: done once the master has none. */
static void rp_detach_settle(struct rp_engine *r)
{
	for (struct rp_conn *c = r->ct.head; c; c = c->next) {
		if (!c->detach_wait || rp_expect_count(&r->x, c->id))
			continue;
		c->detach_wait = false;
		c->helped = false;
		rp_report_line(&r->rep, false, "conn %u detached (its expectations are gone)", c->id);
	}
}

/* A connection the kernel destroys takes its expectations along
 * (nf_ct_remove_expectations from the destroy path). */
static void rp_engine_forget(struct rp_engine *r, struct rp_conn *c)
{
	unsigned int n = rp_expect_forget_master(&r->x, c->id);

	if (n)
		rp_report_line(&r->rep, false, "conn %u ended: its %u expectation%s removed",
			       c->id, n, n == 1 ? "" : "s");
	rp_conn_forget(&r->ct, c);
}

static struct rp_conn *rp_conn_lookup(struct rp_engine *r, const struct cth_tuple *hdr,
				      uint8_t flags, enum cth_dir *dir)
{
	struct rp_conn *c = rp_conn_find(&r->ct, hdr, dir);
	bool syn = (flags & (TH_SYN | TH_ACK)) == TH_SYN;

	/* a new SYN on a finished connection starts a new one (TIME_WAIT
	 * reuse); its packets' helper and state start over */
	if (c && c->closed && syn && *dir == CTH_DIR_ORIGINAL) {
		rp_engine_forget(r, c);
		c = NULL;
	}
	if (c)
		return c;
	if ((c = rp_related_answer(r, hdr))) {
		*dir = CTH_DIR_REPLY;
		return c;
	}
	*dir = CTH_DIR_ORIGINAL;
	c = rp_related_new(r, hdr);
	if (c && (c->status & CTH_CT_EXPECTED))
		rp_detach_settle(r);
	return c;
}

static void rp_view_fill(struct cth_packet *p, const struct rp_conn *c, enum cth_dir dir)
{
	p->dir = dir;
	p->ctinfo = rp_conn_ctinfo(c, dir);
	p->tuple[0] = c->t[0];
	p->tuple[1] = c->t[1];
	p->nat = c->nat;
	p->ct_id = c->id;
	p->ct_status = c->status;
	if (c->status & CTH_CT_EXPECTED)
		p->master = c->master_tuple;
}

static const char *const rp_ctinfo_names[] = {
	[CTH_CT_ESTABLISHED] = "ESTABLISHED", [CTH_CT_RELATED] = "RELATED",
	[CTH_CT_NEW] = "NEW", [CTH_CT_ESTABLISHED_REPLY] = "ESTABLISHED_REPLY",
	[CTH_CT_RELATED_REPLY] = "RELATED_REPLY",
};

static void rp_hex(char *buf, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sprintf(buf + 2 * i, "%02x", p[i]);
	buf[2 * n] = 0;
}

static bool rp_link_is_host(const struct rp_engine *r, int family, const union cth_addr *a);

/*
 * cth_link() in the replay: a packet from one of the link's addresses is
 * this host's own (in 0, out lan); any other came in on the lan, and is
 * delivered here when it is to one of them (out 0), else forwarded out of
 * the wan side.
 */
static int rp_link_fn(struct pkt_call *c, struct cth_link *link)
{
	const struct rp_engine *r = c->link_backend;
	const struct cth_tuple *t = &c->pkt.tuple[c->pkt.dir];
	struct link_pkt p = { .family = t->family, .src = t->src, .dst = t->dst };

	p.in_ifindex = rp_link_is_host(r, t->family, &t->src) ? 0 : RP_LINK_LAN;
	p.out_ifindex = !p.in_ifindex ? RP_LINK_LAN :
			rp_link_is_host(r, t->family, &t->dst) ? 0 : RP_LINK_WAN;
	c->in_ifindex = p.in_ifindex;
	c->out_ifindex = p.out_ifindex;
	link_fill(link, &p, r->link, r->n_link);
	return 0;
}

static bool rp_link_is_host(const struct rp_engine *r, int family, const union cth_addr *a)
{
	for (size_t i = 0; i < r->n_link; i++)
		if (r->link[i].family == family &&
		    link_addr_in(family, &r->link[i].addr, a, family == AF_INET6 ? 128 : 32))
			return true;
	return false;
}

int rp_engine_link_parse(struct rp_engine *r, const char *list)
{
	const char *p = list;

	r->n_link = 0;
	while (*p) {
		size_t n = strcspn(p, ",");
		char text[INET6_ADDRSTRLEN + 8], *slash, *end;
		struct link_addr *a;
		unsigned long prefix;

		if (n == 0 || n >= sizeof(text) || r->n_link == RP_LINK_MAX)
			return -EINVAL;
		memcpy(text, p, n);
		text[n] = '\0';
		p += n + (p[n] == ',');
		slash = strchr(text, '/');
		if (!slash || slash[1] < '0' || slash[1] > '9')
			return -EINVAL;
		*slash = '\0';
		a = &r->link[r->n_link];
		memset(a, 0, sizeof(*a));
		a->ifindex = RP_LINK_LAN;
		a->family = strchr(text, ':') ? AF_INET6 : AF_INET;
		prefix = strtoul(slash + 1, &end, 10);
		if (inet_pton(a->family, text, a->addr.raw) != 1 || *end || prefix < 1 ||
		    prefix > (a->family == AF_INET6 ? 128u : 32u))
			return -EINVAL;
		a->prefix = (uint8_t)prefix;
		/* RT_SCOPE_LINK for fe80::/10, as the kernel lists it */
		if (a->family == AF_INET6 && a->addr.raw[0] == 0xfe && (a->addr.raw[1] & 0xc0) == 0x80)
			a->scope = 253;
		r->n_link++;
	}
	return r->n_link ? 0 : -EINVAL;
}

/*
 * The plugin in its sandbox (--sandbox): the calls it makes come back
 * through the same host functions, so the trace shows them as usual; a
 * sandbox that could not answer is a line of its own, and the packet
 * gets the helper's sandbox_verdict, as in the daemon.
 *
 * Kept bytes live in the sandbox's table; the replay keeps a copy of it
 * (r->keep) so that its trace is the in-process one: the copy is joined
 * before the call, as in process, fed by the sandbox's keep answers
 * (rp_trace_sandboxed) and done after it, on the clock the sandbox is
 * given (now), so both tables see the same packets at the same times.
 */
static int rp_help_sandboxed(struct rp_engine *r, struct pkt_call *call, const uint8_t *priv,
			     size_t priv_len, uint64_t now)
{
	const struct instance *in = r->inst;
	int v = r->sandboxed(in, call, priv, priv ? priv_len : 0, now);

	if (v >= 0) {
		if (call->pkt.kept != r->kept_shown)
			rp_report_line(&r->rep, true, "sandbox: it showed the plugin %zu kept "
				       "bytes, the replay's copy %zu: its calls are not shown",
				       call->pkt.kept, r->kept_shown);
		keep_done(&r->keep, call, v, now);
		return v;
	}
	rp_report_line(&r->rep, true, "sandbox: %s; the packet gets sandbox_verdict %s",
		       in->sb_status.reason[0] ? in->sb_status.reason : strerror(-v),
		       in->sandbox.drop ? "drop" : "accept");
	/* a new sandbox starts with no kept bytes: so does the copy */
	keep_free(&r->keep);
	pkt_call_forget(call);
	if (priv)
		memcpy(call->priv, priv, priv_len);
	return in->sandbox.drop ? CTH_VERDICT_DROP : CTH_VERDICT_ACCEPT;
}

/*
 * The sandbox's answers to the trace; a keep answered there is copied
 * here too.  Only while both tables showed the same bytes: else the
 * offsets are in a view the replay does not hold (c->pkt.payload is its
 * copy's, payload_len the sandbox's), which rp_help_sandboxed() says.
 */
static void rp_trace_sandboxed(struct pkt_call *c, const struct pkt_event *ev)
{
	struct rp_engine *r = c->link_backend;   /* rp_help() sets it so */

	if (c->pkt.kept != r->kept_shown)
		return;
	if (ev->type == PKT_EV_KEEP && ev->rc == 0)
		keep_ask(c, ev->off);
	rp_report_trace(c, ev);
}

/* The sandbox's clock (sandbox.h: the worker's monotonic milliseconds). */
static uint64_t rp_clock_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* The plugin's call for one packet with payload; returns the verdict and
 * leaves a rewritten packet in r->buf (*mangled, *out_len). */
static int rp_help(struct rp_engine *r, const struct rp_frame *f, struct rp_conn *c,
		   const struct cth_packet *view, bool *mangled, size_t *out_len)
{
	const struct cth_plugin_desc *d = r->inst->pl->desc;
	bool expected = c->status & CTH_CT_EXPECTED;
	struct pkt_call call = {
		.inst = r->inst, .backend = &r->x, .expect_fn = rp_expect_fn,
		.expect_ctl_fn = rp_expect_ctl_fn,
		.trace = r->sandboxed ? rp_trace_sandboxed : rp_report_trace,
		.pkt = *view, .truncated = f->caplen < f->wirelen, .keep = &r->keep,
		.link_fn = rp_link_fn, .link_backend = r,
	};
	char pre[256], kept[32] = "", seq[32] = "", a[2 * CTH_PRIV_MAX + 1], b[2 * CTH_PRIV_MAX + 1];
	const uint8_t *m;
	size_t mlen;
	int verdict;
	/* replay time is the capture's; a sandbox runs on the clock's */
	uint64_t now = r->sandboxed ? rp_clock_ms() : f->ms;

	keep_join(&r->keep, &call, now);
	r->kept_shown = call.pkt.kept;
	if (call.pkt.kept)
		snprintf(kept, sizeof(kept), " kept %zu", call.pkt.kept);
	if (c->t[0].proto == IPPROTO_TCP)
		snprintf(seq, sizeof(seq), " seq %u", call.pkt.seq);
	rp_report_line(&r->rep, false, "pkt %u %s %s%s len %zu%s %s", c->id,
		       view->dir == CTH_DIR_ORIGINAL ? "orig" : "reply",
		       rp_ctinfo_names[view->ctinfo], seq, call.pkt.payload_len, kept,
		       rp_fmt_bytes(pre, sizeof(pre), call.pkt.payload, call.pkt.payload_len, 48));
	r->x.conn = c;
	r->x.now_ms = f->ms;
	r->x.helped_in_call = 0;
	r->calls++;
	/* the kernel keeps no private state for an expected connection */
	if (r->sandboxed) {
		verdict = rp_help_sandboxed(r, &call, expected ? NULL : c->priv, d->priv_size, now);
	} else {
		verdict = pkt_call_run(&call, expected ? NULL : c->priv, d->priv_size);
		keep_done(&r->keep, &call, verdict, now);
	}
	if (!expected && pkt_call_priv_differs(&call, c->priv, d->priv_size)) {
		rp_hex(a, c->priv, d->priv_size);
		rp_hex(b, call.priv, d->priv_size);
		rp_report_line(&r->rep, true, "state %s > %s", a, b);
		memcpy(c->priv, call.priv, d->priv_size);
	}
	if (call.detach) {
		unsigned int n = rp_expect_count(&r->x, c->id);

		if (n) {
			c->detach_wait = true;
			rp_report_line(&r->rep, true, "detach: waits for %u expectation%s", n,
				       n == 1 ? "" : "s");
		} else {
			c->helped = false;
			rp_report_line(&r->rep, true, "detach: done");
		}
	}
	m = verdict == CTH_VERDICT_ACCEPT ? pkt_call_mangled(&call, &mlen) : NULL;
	if (m) {
		/* the kernel moves later sequence numbers by the change */
		if (c->t[0].proto == IPPROTO_TCP)
			rp_seqadj_set(c, view->dir, view->seq,
				      (int32_t)((long)mlen - (long)view->len));
		memcpy(r->buf, m, mlen);
		*out_len = mlen;
		*mangled = true;
		r->edits_packets++;
		rp_report_line(&r->rep, true, "verdict ACCEPT mangled %zu>%zu", view->len, mlen);
	} else {
		rp_report_line(&r->rep, true, "verdict %s",
			       verdict == CTH_VERDICT_ACCEPT ? "ACCEPT" : "DROP");
	}
	r->drops += verdict != CTH_VERDICT_ACCEPT;
	pkt_call_release(&call);
	return verdict;
}

/* The ports, said once they are known (the first flow's: at its packet). */
void rp_engine_header_ports(struct rp_engine *r)
{
	char line[160];
	size_t o = 0;

	for (size_t i = 0; i < r->n_ports; i++)
		o += (size_t)snprintf(line + o, sizeof(line) - o, "%s%u", i ? "," : "",
				      r->ports[i]);
	rp_report_line(&r->rep, false, "helped: %s port%s %s",
		       r->proto == IPPROTO_UDP ? "udp" : r->proto ? "tcp"
		       : r->inst->protocols == CTH_PROTO_UDP ? "udp"
		       : r->inst->protocols == CTH_PROTO_TCP ? "tcp" : "tcp/udp",
		       r->n_ports == 1 ? "" : "s", line);
}

/* An IPv4 fragment: conntrack sees packets only once reassembled, and the
 * replay does not reassemble (an IPv6 fragment header already fails the
 * packet view). */
static bool rp_fragment(const uint8_t *p, size_t len, int family)
{
	return family == AF_INET && len >= 8 && ((p[6] & 0x3f) || p[7]);
}

/* The TCP checksum after the 8 bytes of sequence and acknowledgement
 * numbers at l4 + 4 changed from old (RFC 1624: HC' = ~(~HC + ~m + m')),
 * for a packet whose bytes we do not all hold. */
static void rp_tcp_sum_update(uint8_t *l4, const uint8_t old[8])
{
	uint32_t s = ~((unsigned)l4[16] << 8 | l4[17]) & 0xffffu;

	for (size_t i = 0; i < 8; i += 2) {
		s += ~((unsigned)old[i] << 8 | old[i + 1]) & 0xffffu;
		s += (unsigned)l4[4 + i] << 8 | l4[4 + i + 1];
	}
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	s = ~s & 0xffffu;
	l4[16] = (uint8_t)(s >> 8);
	l4[17] = (uint8_t)s;
}

static bool rp_filter_wants(struct rp_engine *r, struct rp_conn *c, enum cth_dir dir,
			    const struct cth_packet *view);

void rp_engine_frame(struct rp_engine *r, const struct rp_frame *f)
{
	struct cth_packet view = { 0 };
	struct cth_tuple hdr;
	struct rp_conn *c;
	enum cth_dir dir;
	size_t len = f->caplen - f->l3;
	bool mangled = false;
	uint8_t flags;
	int verdict = CTH_VERDICT_ACCEPT;
	bool whole;

	r->frames++;
	r->rep.frame = f->no;
	rp_expect_age(&r->x, f->no, f->ms);
	rp_detach_settle(r);
	memcpy(r->buf, f->data + f->l3, len);
	if (!f->family || rp_fragment(r->buf, len, f->family) ||
	    pkt_view_parse(&view, r->buf, len, f->family) < 0 ||
	    rp_tuple_of(&view, f->family, &hdr, &flags) < 0) {
		r->not_ip++;
		rp_engine_emit(r, f, NULL, 0);
		return;
	}
	len = view.len;
	/* not cut by the snap length nor by the IP length field (a packet
	 * the plugin rewrites is always whole: edits refuse a part) */
	whole = f->caplen >= f->wirelen && !pkt_view_partial(&view);
	if (!r->n_ports && rp_proto_ok(r, &hdr)) {
		r->ports[r->n_ports++] = hdr.dport;
		rp_engine_header_ports(r);
	}
	c = rp_conn_lookup(r, &hdr, flags, &dir);
	if (!c) {
		rp_engine_emit(r, f, NULL, 0);
		return;
	}
	rp_view_fill(&view, c, dir);
	if (c->helped && view.payload_len && rp_filter_wants(r, c, dir, &view))
		verdict = rp_help(r, f, c, &view, &mangled, &len);
	if (verdict != CTH_VERDICT_ACCEPT) {
		/* a dropped first packet leaves no connection behind */
		if (!(c->status & CTH_CT_CONFIRMED))
			rp_engine_forget(r, c);
		return;
	}
	rp_conn_seen(c, dir, flags);
	/* the checksums of a rewritten packet are right already; part of a
	 * packet keeps its lengths and has its checksum updated */
	if (c->t[0].proto == IPPROTO_TCP) {
		uint8_t *l4 = r->buf + view.l4_offset, old[8];

		memcpy(old, l4 + 4, sizeof(old));
		if (rp_seqadj_apply(c, dir, l4)) {
			if (whole)
				pkt_sums_fix(r->buf, len, view.l4_offset, true);
			else
				rp_tcp_sum_update(l4, old);
			mangled = true;
		}
	}
	/* a packet left as it was goes out as captured (padding, snap length) */
	rp_engine_emit(r, f, mangled ? r->buf : NULL, mangled ? len : 0);
}

void rp_engine_filter_set(struct rp_engine *r)
{
	r->filter = true;
}

/*
 * --filter: would kmod/ queue this packet with payload?  The same steps
 * as its cthd_filter_wants() (kmod/cthelperd_nfnl.c) over the whole
 * payload (the module scans at most 4 KiB and queues a longer one when
 * unsure: a capture's packets are rarely longer).
 */
static bool rp_filter_wants(struct rp_engine *r, struct rp_conn *c, enum cth_dir dir,
			    const struct cth_packet *view)
{
	bool tcp = c->t[0].proto == IPPROTO_TCP, queue;
	uint8_t *st = &c->filter_st[dir];

	if (!r->filter || !r->inst->match.n)
		return true;
	queue = (tcp && cthd_st_continues(*st)) ||
		((r->inst->match.flags & CTHD_MATCH_F_NAT_ALL) && c->nat) ||
		cthd_match_flat(&r->inst->match, dir, cthd_st_line_start(*st, tcp), view->payload,
				view->payload_len);
	if (tcp)
		*st = cthd_st_next(view->payload[view->payload_len - 1] == '\n', queue);
	if (!queue)
		r->filtered++;
	return queue;
}

void rp_engine_summary(struct rp_engine *r)
{
	r->rep.frame = 0;
	rp_report_line(&r->rep, false,
		       "frames %lu (not TCP/UDP over IP %lu), connections %u (helped %lu, "
		       "related %lu), plugin calls %lu, drops %lu, rewritten %lu, expectations "
		       "created %u, matched %u, expired %u, evicted %u, removed %u, "
		       "delivered wrong %lu, not related %lu",
		       r->frames, r->not_ip, r->ct.n, r->helped, r->related, r->calls,
		       r->drops, r->edits_packets, r->x.created, r->x.matched, r->x.expired,
		       r->x.evicted, r->x.removed, r->wrong, r->blocked);
	if (r->filter)
		rp_report_line(&r->rep, false, "filter: %lu packet%s with payload passed "
			       "without the plugin (%u match rule%s)", r->filtered,
			       r->filtered == 1 ? "" : "s", r->inst->match.n, r->inst->match.n == 1 ? "" : "s");
}

void rp_engine_init(struct rp_engine *r, const struct instance *inst)
{
	r->inst = inst;
	r->x.inst = inst;
	r->x.ct = &r->ct;
	r->x.rep = &r->rep;
	r->rep.inst = inst;
}

void rp_engine_free(struct rp_engine *r)
{
	keep_free(&r->keep);
	rp_expects_free(&r->x);
	rp_conns_free(&r->ct);
}
