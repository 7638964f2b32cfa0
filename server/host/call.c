/* SPDX-License-Identifier: MIT */
/*
 * One plugin call (call.h), whoever asks for it: the worker for a queued
 * packet, the replay tool for a captured one.  The plugin gets the host
 * table below; each host function checks its arguments and the host's
 * rules (guard.h) before a backend acts: the caller's expect_fn for
 * expectations (netlink in the daemon, emulated in the replay), edit.c for
 * payload edits, keep.c for kept bytes.  Every answer can be traced
 * (pkt_call::trace), so the replay tool shows what the plugin did.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "call.h"
#include "edit.h"
#include "inflight.h"
#include "keep.h"
#include "link.h"
#include "base/log.h"
#include "runtime/guard.h"
#include "runtime/stats.h"

static int pkt_host_expect(struct cth_ctx *ctx, const struct cth_expect *e,
			   unsigned int how);
static int pkt_host_mangle(struct cth_ctx *ctx, size_t off, size_t len,
			   const void *repl, size_t repl_len);
static int pkt_host_set_timeout(struct cth_ctx *ctx, uint32_t seconds);
static int pkt_host_set_mark(struct cth_ctx *ctx, uint32_t mark);
static int pkt_host_detach(struct cth_ctx *ctx);
static void pkt_host_vlog(struct cth_ctx *ctx, int level, const char *fmt,
			  va_list ap) __attribute__((format(printf, 3, 0)));
static int pkt_host_expect_ctl(struct cth_ctx *ctx, unsigned int op,
			       const struct cth_expect *e);
static int pkt_host_keep(struct cth_ctx *ctx, size_t off);
static void pkt_host_count(struct cth_ctx *ctx, unsigned int counter, uint32_t n);
static int pkt_host_link(struct cth_ctx *ctx, struct cth_link *link, size_t size);

/* What a plugin calls: cth_expect() and friends (plugin.h). */
static const struct cth_host pkt_host = {
	.abi_version = CTH_ABI_VERSION,
	.size = sizeof(struct cth_host),
	.expect = pkt_host_expect,
	.mangle = pkt_host_mangle,
	.set_timeout = pkt_host_set_timeout,
	.set_mark = pkt_host_set_mark,
	.detach = pkt_host_detach,
	.vlog = pkt_host_vlog,
	.expect_ctl = pkt_host_expect_ctl,
	.keep = pkt_host_keep,
	.count = pkt_host_count,
	.link = pkt_host_link,
};

static bool pkt_priv_version(struct pkt_call *c, const struct cth_plugin_desc *d);
static void pkt_priv_unversion(struct pkt_call *c, const struct cth_plugin_desc *d);
static const struct cth_expect *pkt_expect_own(const struct cth_expect *e,
					       struct cth_expect *own);
static bool pkt_expect_valid(const struct pkt_call *c, const struct cth_expect *e);
static bool pkt_expect_src_ok(const struct cth_expect *e);
static int pkt_expect_guard(struct pkt_call *c, const struct cth_expect *e);
static int pkt_expect_ctl_check(struct pkt_call *c, unsigned int op,
				const struct cth_expect *e);
static int pkt_keep_do(struct pkt_call *c, size_t off);
static int pkt_trace(struct pkt_call *c, struct pkt_event ev);
static bool pkt_log_allow(int level);
static void pkt_log_line(int level, const char *tag, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static struct pkt_call *pkt_call_of(struct cth_ctx *ctx);

/*
 * The verdict writes the state whenever it differs from what the kernel
 * sent, or the in-flight table's was used (the kernel may be behind: even
 * a state equal to its snapshot must then be written).
 */
int pkt_call_run_newest(struct pkt_call *c, struct inflight *t,
			const uint8_t *kpriv, size_t klen, uint64_t now_ms)
{
	size_t n = c->inst->pl->desc->priv_size;
	const uint8_t *newer = NULL;
	/* an expected connection keeps no state in the kernel */
	bool track = n && c->pkt.ct_id && !(c->pkt.ct_status & CTH_CT_EXPECTED);
	uint32_t key = track ? inflight_key(c->pkt.zone, &c->pkt.tuple[CTH_DIR_ORIGINAL]) : 0;
	int verdict;

	if (klen > n)
		klen = n;
	if (track)
		newer = inflight_get(t, c->pkt.ct_id, key, kpriv, klen, now_ms);
	verdict = pkt_call_run(c, newer ? newer : kpriv, newer ? n : klen);
	c->priv_changed = newer || pkt_call_priv_differs(c, kpriv, klen);
	if (!track)
		return verdict;
	/* also when the plugin detaches: the detach may wait for the
	 * connection's expectations (worker/detach.h), and packets meanwhile
	 * must see this state; after a detach the entry just ages out */
	if (c->priv_changed)
		inflight_put(t, c->pkt.ct_id, key, c->priv, n, now_ms);
	return verdict;
}

int pkt_call_run(struct pkt_call *c, const uint8_t *priv, size_t priv_len)
{
	const struct cth_plugin_desc *d = c->inst->pl->desc;
	uint8_t before[CTH_PRIV_MAX];
	bool zeros = false;
	int verdict;

	c->pub.host = &pkt_host;
	memset(c->priv, 0, sizeof(c->priv));
	if (priv)
		memcpy(c->priv, priv, priv_len < d->priv_size ? priv_len : d->priv_size);
	memcpy(before, c->priv, sizeof(before));
	/* 0 for every ABI 2 plugin (the loader zeroes the SDK 3 fields) */
	if (d->priv_version)
		zeros = pkt_priv_version(c, d);
	verdict = d->packet(&c->pub, &c->pkt, c->priv, c->inst->config);
	if (zeros)
		pkt_priv_unversion(c, d);
	c->priv_changed = memcmp(before, c->priv, d->priv_size) != 0;
	return verdict == CTH_VERDICT_DROP ? CTH_VERDICT_DROP : CTH_VERDICT_ACCEPT;
}

bool pkt_call_priv_differs(const struct pkt_call *c, const uint8_t *priv,
			   size_t priv_len)
{
	size_t n = c->inst->pl->desc->priv_size;
	uint8_t base[CTH_PRIV_MAX] = { 0 };

	if (priv)
		memcpy(base, priv, priv_len < n ? priv_len : n);
	return memcmp(base, c->priv, n) != 0;
}

const uint8_t *pkt_call_mangled(struct pkt_call *c, size_t *len)
{
	return edit_result(c, len);
}

const struct cth_host *pkt_call_host(struct pkt_call *c)
{
	c->pub.host = &pkt_host;
	return &pkt_host;
}

void pkt_call_forget(struct pkt_call *c)
{
	pkt_call_release(c);
	c->has_timeout = c->has_mark = c->detach = false;
	c->priv_changed = false;
	c->n_refused = 0;
	c->mark_masked = false;
}

void pkt_call_release(struct pkt_call *c)
{
	edit_release(c);
	keep_release(c);
}

/*
 * The state version (plugin.h, priv_version): state that holds another
 * version, or that the plugin's priv_valid() refuses, is zeroed and
 * counted; state of all zeros is a new connection, not a reset.  Then the
 * version byte is set.  Returns whether the plugin gets zeros.
 */
static bool pkt_priv_version(struct pkt_call *c, const struct cth_plugin_desc *d)
{
	static const uint8_t zero[CTH_PRIV_MAX];
	uint8_t *ver = &c->priv[d->priv_version_at];

	if (memcmp(c->priv, zero, d->priv_size) != 0) {
		if (*ver == d->priv_version && (!d->priv_valid || d->priv_valid(c->priv)))
			return false;
		memset(c->priv, 0, sizeof(c->priv));
		c->state_reset = true;
		if (c->stats)
			stats_add(&c->stats->h[c->inst->slot][STATS_H_STATE_RESET], 1);
	}
	*ver = d->priv_version;
	return true;
}

/* State the plugin left as it got it, zeros and the version byte, is
 * still "nothing": the verdict need not write the byte alone, and the
 * next packet gets the same. */
static void pkt_priv_unversion(struct pkt_call *c, const struct cth_plugin_desc *d)
{
	static const uint8_t zero[CTH_PRIV_MAX];
	uint8_t *ver = &c->priv[d->priv_version_at];

	if (*ver != d->priv_version)
		return;
	*ver = 0;
	if (memcmp(c->priv, zero, d->priv_size) != 0)
		*ver = d->priv_version;
}

static int pkt_host_expect(struct cth_ctx *ctx, const struct cth_expect *e,
			   unsigned int how)
{
	struct pkt_call *c = pkt_call_of(ctx);
	struct cth_expect own;
	int rc = -EINVAL;

	e = pkt_expect_own(e, &own);
	if (pkt_expect_valid(c, e) && !(how & ~(unsigned)CTH_EXPECT_SYNC))
		rc = pkt_expect_guard(c, e);
	if (rc == 0)
		rc = c->expect_fn(c, e, how);
	return pkt_trace(c, (struct pkt_event){ .type = PKT_EV_EXPECT, .rc = rc,
						.exp = e, .how = how });
}

/*
 * The host's copy of a plugin's expectation (NULL stays NULL): a plugin
 * built before the link view has no cth_expect::src_prefix, so the field
 * is read only under CTH_EXPECT_SRC_PREFIX (plugin.h), and the source's
 * bits past the prefix are cleared here, whatever the plugin left in
 * them, so that the kernel, the guard and a trace see one network.
 */
static const struct cth_expect *pkt_expect_own(const struct cth_expect *e,
					       struct cth_expect *own)
{
	if (!e)
		return NULL;
	memset(own, 0, sizeof(*own));
	memcpy(own, e, offsetof(struct cth_expect, src_prefix));
	if (!(e->flags & CTH_EXPECT_SRC_PREFIX))
		return own;
	own->src_prefix = e->src_prefix;
	if (own->src_prefix <= link_addr_bits(own->family))
		link_addr_mask(own->family, &own->src, own->src_prefix);
	return own;
}

/* An expectation a plugin hands over, to create or to refresh. */
static bool pkt_expect_valid(const struct pkt_call *c, const struct cth_expect *e)
{
	if (!e || e->class >= c->inst->n_classes ||
	    e->family != c->pkt.tuple[0].family ||
	    (e->proto != IPPROTO_TCP && e->proto != IPPROTO_UDP) || e->dport == 0)
		return false;
	if ((e->flags & CTH_EXPECT_NAT) &&
	    e->nat_dir != CTH_DIR_ORIGINAL && e->nat_dir != CTH_DIR_REPLY)
		return false;
	if (!pkt_expect_src_ok(e))
		return false;
	/* unknown flags are a plugin built for a newer SDK: say so, do not
	 * half-do it; the function name is copied on every path */
	return !(e->flags & ~PKT_EXPECT_FLAGS) &&
	       !(e->fn && strnlen(e->fn, PKT_EXPECT_FN_MAX) >= PKT_EXPECT_FN_MAX);
}

/* A source network of the expectation's family; "any source" and "a
 * network of sources" contradict each other. */
static bool pkt_expect_src_ok(const struct cth_expect *e)
{
	return !(e->flags & CTH_EXPECT_SRC_PREFIX) ||
	       (e->src_prefix > 0 && e->src_prefix <= link_addr_bits(e->family) &&
		!(e->flags & CTH_EXPECT_ANY_SRC));
}

/* The host's rule for every expectation (guard.h), whatever the plugin:
 * -EPERM, counted by the caller through n_refused. */
static int pkt_expect_guard(struct pkt_call *c, const struct cth_expect *e)
{
	const struct cth_packet *p = &c->pkt;

	if (guard_expect_check(&c->inst->guard, &p->tuple[CTH_DIR_ORIGINAL],
			       &p->tuple[CTH_DIR_REPLY], e) == 0)
		return 0;
	c->n_refused++;
	return -EPERM;
}

static int pkt_host_mangle(struct cth_ctx *ctx, size_t off, size_t len,
			   const void *repl, size_t repl_len)
{
	struct pkt_call *c = pkt_call_of(ctx);
	int rc = edit_add(c, off, len, repl, repl_len);

	return pkt_trace(c, (struct pkt_event){ .type = PKT_EV_MANGLE, .rc = rc,
						.off = off, .len = len, .repl = repl,
						.repl_len = repl_len });
}

static int pkt_host_set_timeout(struct cth_ctx *ctx, uint32_t seconds)
{
	struct pkt_call *c = pkt_call_of(ctx);

	c->has_timeout = true;
	c->timeout = seconds;
	return pkt_trace(c, (struct pkt_event){ .type = PKT_EV_TIMEOUT, .value = seconds });
}

static int pkt_host_set_mark(struct cth_ctx *ctx, uint32_t mark)
{
	struct pkt_call *c = pkt_call_of(ctx);
	bool masked;

	/* the verdict sends CTA_MARK_MASK too: Linux 6.1
	 * ctnetlink_change_mark() keeps the bits outside it */
	c->mark = guard_mark(&c->inst->guard, mark, &masked);
	c->mark_mask = c->inst->guard.mark_mask;
	c->has_mark = c->mark_mask != 0;
	c->mark_masked |= masked;
	return pkt_trace(c, (struct pkt_event){ .type = PKT_EV_MARK, .value = mark });
}

static int pkt_host_detach(struct cth_ctx *ctx)
{
	struct pkt_call *c = pkt_call_of(ctx);

	/* Linux 6.1 ctnetlink_change_helper(): a connection with a master
	 * may not change helper (-EBUSY), and that error voids the whole
	 * NFQA_CT of the verdict (mark, expectation, seq adjustment). */
	if (c->pkt.ct_status & CTH_CT_EXPECTED)
		return pkt_trace(c, (struct pkt_event){ .type = PKT_EV_DETACH,
							.rc = -EOPNOTSUPP });
	c->detach = true;
	return pkt_trace(c, (struct pkt_event){ .type = PKT_EV_DETACH });
}

/*
 * Plugins log per packet, so a peer could flood the log: each worker
 * thread may write PKT_LOG_BURST plugin lines per second, then counts
 * what it drops and says so once the next second starts.
 */
#define PKT_LOG_BURST 20u

static void pkt_host_vlog(struct cth_ctx *ctx, int level, const char *fmt,
			  va_list ap)
{
	struct pkt_call *c = pkt_call_of(ctx);

	if (c->trace) {
		char line[1024];

		vsnprintf(line, sizeof(line), fmt, ap);
		pkt_trace(c, (struct pkt_event){ .type = PKT_EV_LOG,
						 .value = (uint32_t)level, .text = line });
		return;
	}
	if (pkt_log_allow(level))
		log_vmsg(level, c->inst->name, fmt, ap);
}

void pkt_call_log(struct pkt_call *c, int level, const char *line)
{
	if (c->trace) {
		pkt_trace(c, (struct pkt_event){ .type = PKT_EV_LOG,
						 .value = (uint32_t)level, .text = line });
		return;
	}
	if (pkt_log_allow(level))
		pkt_log_line(level, c->inst->name, "%s", line);
}

static void pkt_log_line(int level, const char *tag, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(level, tag, fmt, ap);
	va_end(ap);
}

/* May this thread write one more plugin line now? */
static bool pkt_log_allow(int level)
{
	static __thread time_t second;
	static __thread unsigned int used, dropped;
	time_t now;

	if (!log_enabled(level))
		return false;
	now = time(NULL);
	if (now != second) {
		if (dropped)
			log_warn("%u plugin log lines suppressed (rate limit)", dropped);
		second = now;
		used = dropped = 0;
	}
	if (used >= PKT_LOG_BURST) {
		dropped++;
		return false;
	}
	used++;
	return true;
}

static int pkt_host_expect_ctl(struct cth_ctx *ctx, unsigned int op,
			       const struct cth_expect *e)
{
	struct pkt_call *c = pkt_call_of(ctx);
	struct cth_expect own;
	int rc;

	e = pkt_expect_own(e, &own);
	rc = pkt_expect_ctl_check(c, op, e);
	if (rc == 0)
		rc = c->expect_ctl_fn(c, op, e);
	return pkt_trace(c, (struct pkt_event){ .type = PKT_EV_EXPECT_CTL, .rc = rc,
						.exp = e, .how = op });
}

static int pkt_expect_ctl_check(struct pkt_call *c, unsigned int op,
				const struct cth_expect *e)
{
	if (op == CTH_EXPECT_OP_FLUSH) {
		if (e && e->class >= c->inst->n_classes)
			return -EINVAL;
	} else if (op == CTH_EXPECT_OP_REFRESH) {
		if (!pkt_expect_valid(c, e) || e->timeout > PKT_EXPECT_TIMEOUT_MAX)
			return -EINVAL;
		if (pkt_expect_guard(c, e) < 0)
			return -EPERM;
	} else if (op == CTH_EXPECT_OP_REMOVE) {
		if (!e || e->family != c->pkt.tuple[0].family ||
		    (e->proto != IPPROTO_TCP && e->proto != IPPROTO_UDP) ||
		    (e->flags & ~PKT_EXPECT_FLAGS) || !pkt_expect_src_ok(e))
			return -EINVAL;
	} else {
		return -EINVAL;
	}
	return c->expect_ctl_fn ? 0 : -EOPNOTSUPP;
}

static int pkt_host_keep(struct cth_ctx *ctx, size_t off)
{
	struct pkt_call *c = pkt_call_of(ctx);

	return pkt_trace(c, (struct pkt_event){ .type = PKT_EV_KEEP,
						.rc = pkt_keep_do(c, off), .off = off });
}

/* cth_count(): the worker's own block (one writer), so a relaxed add;
 * an index the plugin did not declare is nobody's. */
static void pkt_host_count(struct cth_ctx *ctx, unsigned int counter, uint32_t n)
{
	struct pkt_call *c = pkt_call_of(ctx);

	if (c->stats && counter < c->inst->pl->desc->n_counters)
		stats_add(&c->stats->pc[c->inst->slot][counter], n);
	pkt_trace(c, (struct pkt_event){ .type = PKT_EV_COUNT, .value = counter, .len = n });
}

/*
 * Keeping needs the segment's end, which only a whole TCP packet gives
 * (the next segment's sequence number follows from it); UDP datagrams
 * are messages of their own.
 */
static int pkt_keep_do(struct pkt_call *c, size_t off)
{
	if (!c->keep || c->pkt.tuple[CTH_DIR_ORIGINAL].proto != IPPROTO_TCP)
		return -EOPNOTSUPP;
	if (c->truncated || pkt_view_partial(&c->pkt))
		return -EMSGSIZE;
	if (off > c->pkt.payload_len)
		return -EINVAL;
	return keep_ask(c, off);
}

/* cth_link(): the caller's view of the interfaces, cut to the plugin's
 * structure (size: its sizeof, which may be older and shorter). */
static int pkt_host_link(struct cth_ctx *ctx, struct cth_link *link, size_t size)
{
	struct pkt_call *c = pkt_call_of(ctx);
	struct cth_link l;
	int rc = -EOPNOTSUPP;

	memset(&l, 0, sizeof(l));
	if (c->link_fn)
		rc = c->link_fn(c, &l);
	memcpy(link, &l, size < sizeof(l) ? size : sizeof(l));
	return rc;
}

/* Hand one host call's answer to the trace, if any; returns rc. */
static int pkt_trace(struct pkt_call *c, struct pkt_event ev)
{
	if (c->trace)
		c->trace(c, &ev);
	return ev.rc;
}

static struct pkt_call *pkt_call_of(struct cth_ctx *ctx)
{
	return (struct pkt_call *)ctx;
}
