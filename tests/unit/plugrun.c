/* SPDX-License-Identifier: MIT */
/*
 * The plugin under test on the daemon's host code with a recording kernel
 * side (plugrun.h).  The steps of one packet are the worker's
 * (server/worker/worker.c): pkt_view_parse(), keep_join(),
 * pkt_call_run(), keep_done(), the state written back with the verdict,
 * pkt_call_mangled().  The plugin is reached through a descriptor whose
 * packet callback hands it a host table wrapped only where a test asks
 * for an answer the host cannot be brought to give here (plugrun.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "plugrun.h"
#include "runtime/keys.h"
#include "runtime/runtime.h"
#include "../fuzz/pktcheck.h"

/* Each connection has a keep table of its own: nothing in it ages or is
 * evicted (test_keep.c checks the bounds), so one clock reading does. */
#define PLUGRUN_NOW_MS 1000u
#define PLUGRUN_TCP_ACK_PSH 0x18u

static uint8_t *run_build(const struct conn *c, enum cth_dir dir, uint32_t seq,
			  const void *payload, size_t n, size_t *lenp);
static void run_view_fill(struct cth_packet *p, const struct conn *c, enum cth_dir dir,
			  enum cth_ctinfo ctinfo);
static void plugrun_clear(struct plugrun *f);
static void plugrun_out(struct plugrun *f, struct pkt_call *c, const void *text, size_t len);
static int plugrun_expect(struct pkt_call *c, const struct cth_expect *e, unsigned int how);
static int plugrun_link(struct pkt_call *c, struct cth_link *link);
static int plugrun_expect_ctl(struct pkt_call *c, unsigned int op, const struct cth_expect *e);
static void plugrun_trace(struct pkt_call *c, const struct pkt_event *ev);
static const struct plugin *plugrun_plugin(void);
static void conn_defaults(struct conn *c);

/* The record of the running call, for the wrapped plugin callback. */
static struct plugrun *plugrun_cur;

/* ---------------------------------------------------------------- packets */

int run_state(struct plugrun *f, struct conn *c, enum cth_dir dir, enum cth_ctinfo ctinfo,
	      uint32_t seq, const void *text, size_t len, void *priv)
{
	/* the kernel keeps no private state for an expected connection */
	bool expected = c->ct_status & CTH_CT_EXPECTED;
	struct instance in = {
		.pl = plugrun_plugin(), .config = c->cfg,
		.n_classes = cth_plugin.n_classes, .guard = c->guard,
	};
	struct pkt_call call = {
		.inst = &in, .backend = f, .expect_fn = plugrun_expect,
		.expect_ctl_fn = plugrun_expect_ctl, .trace = plugrun_trace,
		.keep = f->old_host ? NULL : &c->keep, .stats = &f->stats,
		.link_fn = f->has_link ? plugrun_link : NULL,
	};
	int family = c->t[CTH_DIR_ORIGINAL].family, verdict;
	size_t plen;
	uint8_t *pkt = run_build(c, dir, seq, text, len, &plen);

	snprintf(in.name, sizeof(in.name), "%s", cth_plugin.name);
	plugrun_clear(f);
	if (pkt_view_parse(&call.pkt, pkt, plen, family) < 0)
		abort();
	run_view_fill(&call.pkt, c, dir, ctinfo);
	if (call.keep)
		keep_join(call.keep, &call, PLUGRUN_NOW_MS);
	f->state_at = priv != c->priv && !expected ? priv : NULL;
	plugrun_cur = f;
	verdict = pkt_call_run(&call, expected ? NULL : priv, CTH_PRIV_MAX);
	plugrun_cur = NULL;
	f->state_changed = call.priv_changed;
	f->state_reset = call.state_reset;
	if (call.keep)
		keep_done(call.keep, &call, verdict, PLUGRUN_NOW_MS);
	/* all of it: a plugin writing past its priv_size shows there (the
	 * host zero-filled it; the verdict writes priv_size bytes) */
	if (!expected)
		memcpy(priv, call.priv, CTH_PRIV_MAX);
	plugrun_out(f, &call, text, len);
	pkt_call_release(&call);
	free(pkt);
	return verdict;
}

int run_ctinfo(struct plugrun *f, struct conn *c, enum cth_dir dir, enum cth_ctinfo ctinfo,
	       uint32_t seq, const void *text, size_t len)
{
	return run_state(f, c, dir, ctinfo, seq, text, len, c->priv);
}

int run_stream(struct plugrun *f, struct conn *c, enum cth_dir dir, const void *text,
	       size_t len)
{
	int v = run_ctinfo(f, c, dir, established(dir), c->seq[dir], text, len);

	if (v == CTH_VERDICT_ACCEPT)
		c->seq[dir] += (uint32_t)len;
	return v;
}

/* The IP packet of direction dir carrying n payload bytes (pc_build). */
static uint8_t *run_build(const struct conn *c, enum cth_dir dir, uint32_t seq,
			  const void *payload, size_t n, size_t *lenp)
{
	const struct cth_tuple *t = &c->t[dir];
	uint8_t *p = pc_build(t->family, t->proto, t, seq, PLUGRUN_TCP_ACK_PSH, payload, n, lenp);

	if (!p) {
		fprintf(stderr, "a %zu-byte payload does not fit one packet\n", n);
		abort();
	}
	return p;
}

/* What conntrack tells the daemon about the packet (qmsg.c). */
static void run_view_fill(struct cth_packet *p, const struct conn *c, enum cth_dir dir,
			  enum cth_ctinfo ctinfo)
{
	p->dir = dir;
	p->ctinfo = ctinfo;
	p->tuple[CTH_DIR_ORIGINAL] = c->t[CTH_DIR_ORIGINAL];
	p->tuple[CTH_DIR_REPLY] = c->t[CTH_DIR_REPLY];
	p->nat = c->nat;
	p->ct_status = c->ct_status;
	p->ct_id = 1;
}

/* ---------------------------------------------------------------- connections */

union cth_addr addr_of(int family, const char *text)
{
	union cth_addr a;

	memset(&a, 0, sizeof(a));
	if (inet_pton(family, text, a.raw) != 1) {
		fprintf(stderr, "bad test address %s\n", text);
		abort();
	}
	return a;
}

void conn_init(struct conn *c, int family, uint8_t proto, const char *a, uint16_t aport,
	       const char *b, uint16_t bport)
{
	memset(c, 0, sizeof(*c));
	c->t[CTH_DIR_ORIGINAL].family = c->t[CTH_DIR_REPLY].family = (uint8_t)family;
	c->t[CTH_DIR_ORIGINAL].proto = c->t[CTH_DIR_REPLY].proto = proto;
	c->t[CTH_DIR_ORIGINAL].src = c->t[CTH_DIR_REPLY].dst = addr_of(family, a);
	c->t[CTH_DIR_ORIGINAL].dst = c->t[CTH_DIR_REPLY].src = addr_of(family, b);
	c->t[CTH_DIR_ORIGINAL].sport = c->t[CTH_DIR_REPLY].dport = aport;
	c->t[CTH_DIR_ORIGINAL].dport = c->t[CTH_DIR_REPLY].sport = bport;
	c->ct_status = CTH_CT_CONFIRMED | CTH_CT_SEEN_REPLY;
	c->seq[CTH_DIR_ORIGINAL] = 1000;
	c->seq[CTH_DIR_REPLY] = 5000;
	c->guard = GUARD_DEFAULT;
	conn_defaults(c);
}

/* The configuration block as the daemon builds it for a section that sets
 * none of the plugin's keys: every declared default (runtime/keys.c). */
static void conn_defaults(struct conn *c)
{
	static char file[] = "plugrun";
	static struct cfg cfg = { .file = file };
	static struct cfg_helper h = { .name = "plugrun", .line = 1 };

	if (keys_apply(&cfg, &h, &cth_plugin, c->cfg) < 0) {
		fprintf(stderr, "plugin '%s': its declared defaults do not apply\n",
			cth_plugin.name);
		abort();
	}
}

int conn_expect_networks(struct conn *c, const char *nets)
{
	return guard_networks_parse(&c->guard, nets);
}

void conn_snat(struct conn *c, const char *pub, uint16_t port)
{
	c->t[CTH_DIR_REPLY].dst = addr_of(c->t[CTH_DIR_REPLY].family, pub);
	c->t[CTH_DIR_REPLY].dport = port;
	c->nat |= CTH_NAT_SRC;
}

void conn_dnat(struct conn *c, const char *pub, uint16_t port)
{
	c->t[CTH_DIR_ORIGINAL].dst = addr_of(c->t[CTH_DIR_ORIGINAL].family, pub);
	c->t[CTH_DIR_ORIGINAL].dport = port;
	c->nat |= CTH_NAT_DST;
}

/* One key as the daemon applies a section's key (runtime/keys.c
 * keys_apply()): by its declaration, a CTH_KEY_CUSTOM one by the plugin's
 * configure(), every key by configure() for a plugin that declares none. */
int conn_configure(struct conn *c, const char *key, const char *val)
{
	const struct cth_key *k = keys_find(&cth_plugin, key);

	if (!cth_plugin.n_keys)
		return cth_plugin.configure ? cth_plugin.configure(c->cfg, key, val) : -ENOENT;
	if (!k)
		return -ENOENT;
	if (k->type == CTH_KEY_CUSTOM)
		return cth_plugin.configure(c->cfg, key, val);
	return keys_parse(k, val, c->cfg);
}

size_t conn_kept(const struct conn *c, enum cth_dir dir)
{
	for (unsigned int i = 0; i < KEEP_ENTRIES; i++)
		if (c->keep.e[i].used && c->keep.e[i].dir == dir)
			return c->keep.e[i].len;
	return 0;
}

void conn_free(struct conn *c)
{
	keep_free(&c->keep);
}

/* ---------------------------------------------------------------- the record */

struct plugrun *plugrun_new(void)
{
	struct plugrun *f = calloc(1, sizeof(*f));

	if (!f)
		abort();
	return f;
}

void plugrun_free(struct plugrun *f)
{
	free(f);
}

void plugrun_answers_reset(struct plugrun *f)
{
	f->n_busy = 0;
	f->busy_left = 0;
	f->busy_err = 0;
	f->expect_err = 0;
	f->table_full = false;
	f->refresh_ret = 0;
	f->mangle_err = 0;
	f->detach_err = 0;
	f->old_host = false;
}

static void plugrun_clear(struct plugrun *f)
{
	f->order = f->n_exp = f->n_ctl = f->n_refused = 0;
	f->n_mangle = f->n_edit = f->n_detach = f->n_log = f->n_bad = 0;
	f->keep_asked = f->has_timeout = f->reached = false;
	f->keep_ret = 1;
	f->bad[0] = f->log[0] = '\0';
}

static void plugrun_bad(struct plugrun *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void plugrun_bad(struct plugrun *f, const char *fmt, ...)
{
	va_list ap;

	if (f->n_bad++)
		return;
	va_start(ap, fmt);
	vsnprintf(f->bad, sizeof(f->bad), fmt, ap);
	va_end(ap);
}

/* This segment's own payload as the host sends it; a rewritten packet
 * is checked as the kernel would take it (lengths, sums: pktcheck.h). */
static void plugrun_out(struct plugrun *f, struct pkt_call *c, const void *text, size_t len)
{
	const struct cth_packet *p = &c->pkt;
	const uint8_t *r;
	size_t rlen;
	char why[160];

	r = pkt_call_mangled(c, &rlen);
	if (!r) {
		memcpy(f->out, text, len);
		f->out_len = len;
		return;
	}
	if (!pc_packet_ok(r, rlen, p->l4_offset, p->tuple[CTH_DIR_ORIGINAL].proto, why,
			  sizeof(why)))
		plugrun_bad(f, "packet sent: %s", why);
	f->out_len = rlen - p->payload_offset;
	memcpy(f->out, r + p->payload_offset, f->out_len);
}

/* ---------------------------------------------------------------- the kernel side */

static bool plugrun_port_busy(const struct plugrun *f, uint16_t port)
{
	for (unsigned int i = 0; i < f->n_busy; i++)
		if (f->busy[i] == port)
			return true;
	return false;
}

/* pkt_call::expect_fn: after the host's checks, the kernel's answer. */
static int plugrun_expect(struct pkt_call *c, const struct cth_expect *e, unsigned int how)
{
	struct plugrun *f = c->backend;

	f->reached = true;
	if (f->table_full)
		return -EMFILE;
	if (how & CTH_EXPECT_SYNC) {
		if (plugrun_port_busy(f, e->dport))
			return -EBUSY;
		if (f->busy_left) {
			f->busy_left--;
			return f->busy_err ? f->busy_err : -EBUSY;
		}
	}
	return f->expect_err;
}

static int plugrun_expect_ctl(struct pkt_call *c, unsigned int op, const struct cth_expect *e)
{
	struct plugrun *f = c->backend;

	(void)e;
	f->reached = true;
	/* the connection's own expectations gone: room in the table */
	if (op == CTH_EXPECT_OP_FLUSH)
		f->table_full = false;
	if (op == CTH_EXPECT_OP_REFRESH)
		return f->refresh_ret;
	return op == CTH_EXPECT_OP_REMOVE ? 1 : 0;
}

/* ---------------------------------------------------------------- the host's trace */

static void plugrun_on_expect(struct plugrun *f, const struct pkt_event *ev)
{
	const struct cth_expect *e = ev->exp;
	unsigned int i = f->n_exp;

	if (!f->reached && ev->rc != -EPERM) {
		plugrun_bad(f, "invalid expectation (class %u proto %u port %u flags %#x how %#x)",
			    e ? e->class : 0, e ? e->proto : 0, e ? e->dport : 0,
			    e ? e->flags : 0, ev->how);
		return;
	}
	f->n_refused += !f->reached;
	if (i < PLUGRUN_MAX_EXP) {
		f->exp[i] = *e;
		snprintf(f->exp_fn[i], sizeof(f->exp_fn[i]), "%s", e->fn ? e->fn : "");
		f->exp[i].fn = e->fn ? f->exp_fn[i] : NULL;
		f->exp_how[i] = ev->how;
		f->exp_order[i] = f->order;
		f->exp_rc[i] = ev->rc;
	}
	f->order++;
	f->n_exp++;
}

static void plugrun_on_expect_ctl(struct plugrun *f, const struct pkt_event *ev)
{
	struct plugrun_ctl *c;

	if (!f->reached && ev->rc != -EPERM) {
		plugrun_bad(f, "invalid expect_ctl op %u (%d)", ev->how, ev->rc);
		return;
	}
	f->n_refused += !f->reached;
	if (f->n_ctl < PLUGRUN_MAX_CTL) {
		c = &f->ctl[f->n_ctl];
		c->op = ev->how;
		c->has_exp = ev->exp != NULL;
		c->exp = ev->exp ? *ev->exp : (struct cth_expect){ .class = 0 };
		snprintf(c->fn, sizeof(c->fn), "%s", c->exp.fn ? c->exp.fn : "");
		c->exp.fn = c->exp.fn ? c->fn : NULL;
		c->order = f->order;
	}
	f->order++;
	f->n_ctl++;
}

/* Edits the host refuses with -EINVAL (outside the payload, overlapping)
 * or -EPERM (in kept bytes, a TCP length change without NAT) are plugin
 * bugs; running out of edits, room or memory is not. */
static void plugrun_on_mangle(struct plugrun *f, const struct pkt_event *ev)
{
	struct plugrun_edit *e;

	f->n_mangle++;
	if (ev->rc == -EINVAL || ev->rc == -EPERM)
		plugrun_bad(f, "edit %zu+%zu refused (%d)", ev->off, ev->len, ev->rc);
	if (ev->rc < 0 || f->n_edit == EDIT_MAX)
		return;
	e = &f->edit[f->n_edit++];
	e->off = ev->off;
	e->len = ev->len;
	e->repl_len = ev->repl_len;
	memcpy(e->repl, ev->repl, ev->repl_len < sizeof(e->repl) ? ev->repl_len : sizeof(e->repl));
}

static void plugrun_on_keep(struct plugrun *f, const struct pkt_event *ev)
{
	f->keep_ret = ev->rc;
	if (ev->rc == -EINVAL)
		plugrun_bad(f, "keep at %zu refused", ev->off);
	if (ev->rc == 0) {
		f->keep_asked = true;
		f->keep_off = ev->off;
	}
}

static void plugrun_on_detach(struct plugrun *f)
{
	f->n_detach++;
	if (!f->detach_ok)
		plugrun_bad(f, "detach");
}

/* pkt_call::trace: every host call with the host's answer. */
static void plugrun_trace(struct pkt_call *c, const struct pkt_event *ev)
{
	struct plugrun *f = c->backend;

	switch (ev->type) {
	case PKT_EV_EXPECT:
		plugrun_on_expect(f, ev);
		break;
	case PKT_EV_EXPECT_CTL:
		plugrun_on_expect_ctl(f, ev);
		break;
	case PKT_EV_MANGLE:
		plugrun_on_mangle(f, ev);
		break;
	case PKT_EV_KEEP:
		plugrun_on_keep(f, ev);
		break;
	case PKT_EV_TIMEOUT:
		f->has_timeout = true;
		f->timeout = ev->value;
		break;
	case PKT_EV_MARK:
		plugrun_bad(f, "set_mark %u", ev->value);
		break;
	case PKT_EV_DETACH:
		plugrun_on_detach(f);
		break;
	case PKT_EV_LOG:
		f->n_log++;
		snprintf(f->log, sizeof(f->log), "%s", ev->text);
		break;
	case PKT_EV_COUNT:	/* shown with the counters, not per call */
		break;
	}
	f->reached = false;
}

/* ---------------------------------------------------------------- the plugin's view */

static const struct cth_host *plugrun_host;
static struct cth_host plugrun_wrap;

static int plugrun_mangle(struct cth_ctx *ctx, size_t off, size_t len, const void *repl,
			  size_t repl_len)
{
	struct plugrun *f = plugrun_cur;

	if (!f->mangle_err)
		return plugrun_host->mangle(ctx, off, len, repl, repl_len);
	f->n_mangle++;
	return f->mangle_err;
}

static int plugrun_detach(struct cth_ctx *ctx)
{
	struct plugrun *f = plugrun_cur;

	if (!f->detach_err)
		return plugrun_host->detach(ctx);
	plugrun_on_detach(f);
	return f->detach_err;
}

/* The descriptor's packet callback: the plugin's, behind the host's table
 * (wrapped where plugrun.h says), its state where run_state() put it. */
static int plugrun_packet(struct cth_ctx *ctx, const struct cth_packet *pkt, void *priv,
			  const void *config)
{
	struct plugrun *f = plugrun_cur;
	void *state = f->state_at ? (void *)f->state_at : priv;
	int v;

	plugrun_host = ctx->host;
	plugrun_wrap = *ctx->host;
	plugrun_wrap.mangle = plugrun_mangle;
	plugrun_wrap.detach = plugrun_detach;
	if (f->old_host)
		plugrun_wrap.size = offsetof(struct cth_host, keep);
	ctx->host = &plugrun_wrap;
	if (state != priv)
		memcpy(state, priv, CTH_PRIV_MAX);
	v = cth_plugin.packet(ctx, pkt, state, config);
	if (state != priv)
		memcpy(priv, state, CTH_PRIV_MAX);
	ctx->host = plugrun_host;
	if (v != CTH_VERDICT_ACCEPT && v != CTH_VERDICT_DROP)
		plugrun_bad(f, "verdict %d", v);
	return v;
}

static const struct plugin *plugrun_plugin(void)
{
	static struct cth_plugin_desc desc;
	static struct plugin pl = { .desc = &desc };

	if (!desc.packet) {
		desc = cth_plugin;
		desc.packet = plugrun_packet;
	}
	return &pl;
}

/* The link view a test set (plugrun::link), as the host hands it on. */
static int plugrun_link(struct pkt_call *c, struct cth_link *link)
{
	*link = ((struct plugrun *)c->backend)->link;
	return 0;
}
