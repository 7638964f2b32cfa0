/* SPDX-License-Identifier: MIT */
/*
 * Shared by the plugin unit tests (test_ftp.c, test_sip.c, test_tns.c):
 *
 *   - the check harness: one "PASS name" / "FAIL name: why" line per
 *     check (tests/README.md), the first failed condition being the why;
 *   - addresses, a deterministic random generator (the test defines
 *     PLUGTEST_RNG_SEED before including this), heap copies of exactly a
 *     payload's length so AddressSanitizer catches any read past it, and
 *     the mutator of the tests' deterministic fuzzing;
 *   - a fake host that answers as a test sets it (busy ports, errors) and
 *     records what the plugin asked during one packet -- expectations,
 *     expectation control, edits, kept bytes, timeout, log -- checking
 *     every request against the daemon's rules (server/host/packet.c,
 *     server/host/mangle.c): a refused one is a plugin bug, counted in n_bad;
 *   - a connection as the daemon passes it, and run_state() handing it one
 *     packet: the payload behind the bytes the plugin kept, the edits then
 *     applied as the daemon would (f->out).
 *
 * Everything is static: the test links the plugin under test (cth_plugin).
 */
#ifndef CTH_TEST_PLUGTEST_H
#define CTH_TEST_PLUGTEST_H

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <cthelperd/plugin.h>
#include <cthelperd/util.h>

#ifndef PLUGTEST_RNG_SEED
#error "define PLUGTEST_RNG_SEED before including plugtest.h"
#endif

/* ---------------------------------------------------------------- checks */

static unsigned int failures;

struct check {
	char name[96];
	bool failed;
	char why[768];
};

static inline void check_start(struct check *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static inline void check_start(struct check *c, const char *fmt, ...)
{
	va_list ap;

	memset(c, 0, sizeof(*c));
	va_start(ap, fmt);
	vsnprintf(c->name, sizeof(c->name), fmt, ap);
	va_end(ap);
}

/* Records the first failed condition of a check. */
static inline bool check_that(struct check *c, bool cond, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static inline bool check_that(struct check *c, bool cond, const char *fmt, ...)
{
	va_list ap;

	if (cond || c->failed)
		return cond;
	c->failed = true;
	va_start(ap, fmt);
	vsnprintf(c->why, sizeof(c->why), fmt, ap);
	va_end(ap);
	return false;
}

/* What a table case's call returned: true when it is want. */
static inline bool check_ret(struct check *c, int ret, int want)
{
	return check_that(c, ret == want, "returned %d, want %d", ret, want);
}

static inline void check_end(struct check *c)
{
	if (c->failed) {
		failures++;
		printf("FAIL %s: %s\n", c->name, c->why);
	} else {
		printf("PASS %s\n", c->name);
	}
	fflush(stdout);
}

/* ---------------------------------------------------------------- helpers */

#define O CTH_DIR_ORIGINAL
#define R CTH_DIR_REPLY
#define V4 AF_INET
#define V6 AF_INET6
#define UDP IPPROTO_UDP
#define TCP IPPROTO_TCP
#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static inline union cth_addr addr_of(int family, const char *text)
{
	union cth_addr a;

	memset(&a, 0, sizeof(a));
	if (inet_pton(family, text, a.raw) != 1) {
		fprintf(stderr, "bad test address %s\n", text);
		abort();
	}
	return a;
}

static inline const char *addr_str(int family, const union cth_addr *a, char *buf,
				   size_t size)
{
	if (!inet_ntop(family, a->raw, buf, (socklen_t)size))
		snprintf(buf, size, "?");
	return buf;
}

static inline bool addr_is(int family, const union cth_addr *a, const char *text)
{
	union cth_addr want = addr_of(family, text);

	return cth_addr_equal(family, a, &want);
}

/* Deterministic xorshift64*: the same inputs on every run. */
static uint64_t rng_state = PLUGTEST_RNG_SEED;

static inline uint32_t rng_next(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 0x2545f4914f6cdd1dull) >> 32);
}

static inline uint32_t rng_below(uint32_t n)
{
	return n ? rng_next() % n : 0;
}

/* A heap copy of exactly len bytes (ASan sees any read past it). */
static inline uint8_t *dup_exact(const void *text, size_t len)
{
	uint8_t *buf = malloc(len ? len : 1);

	if (!buf)
		abort();
	memcpy(buf, text, len);
	return buf;
}

/* ---------------------------------------------------------------- fuzzing */

/* How a test mutates its valid samples: 1 to max_edits edits, each of the
 * first n_ops kinds in fuzz_mutate() (5: up to deleting a byte; 7: digit
 * runs and duplicated chunks too), bytes inserted from the protocol's
 * alphabet, and a chosen truncation done one time in trunc_one_in (0:
 * every time). */
struct mutate_how {
	const char *alphabet;
	unsigned int max_edits;
	unsigned int n_ops;
	unsigned int trunc_one_in;
};

static inline uint8_t fuzz_letter(const struct mutate_how *h)
{
	return (uint8_t)h->alphabet[rng_below((uint32_t)strlen(h->alphabet))];
}

static inline void fuzz_mutate(const struct mutate_how *h, uint8_t *buf, size_t *len, size_t cap)
{
	unsigned int edits = 1 + rng_below(h->max_edits);
	size_t pos, n;

	while (edits--) {
		pos = *len ? rng_below((uint32_t)*len) : 0;
		switch (rng_below(h->n_ops)) {
		case 0: /* random byte */
			if (*len)
				buf[pos] = (uint8_t)rng_next();
			break;
		case 1: /* byte from the protocol's alphabet */
			if (*len)
				buf[pos] = fuzz_letter(h);
			break;
		case 2: /* truncate */
			if (!h->trunc_one_in || rng_below(h->trunc_one_in) == 0)
				*len = pos;
			break;
		case 3: /* insert */
			if (*len < cap) {
				memmove(buf + pos + 1, buf + pos, *len - pos);
				buf[pos] = fuzz_letter(h);
				(*len)++;
			}
			break;
		case 4: /* delete */
			if (*len) {
				memmove(buf + pos, buf + pos + 1, *len - pos - 1);
				(*len)--;
			}
			break;
		case 5: /* a digit run: ports, lengths, sequence numbers */
			if (*len && buf[pos] >= '0' && buf[pos] <= '9') {
				n = 1 + rng_below(12);
				if (*len + n <= cap) {
					memmove(buf + pos + n, buf + pos, *len - pos);
					for (size_t i = 0; i < n; i++)
						buf[pos + i] = (uint8_t)('0' + rng_below(10));
					*len += n;
				}
			}
			break;
		default: /* duplicate a chunk (more headers, more lines) */
			n = 1 + rng_below(40);
			if (pos + n <= *len && *len + n <= cap) {
				size_t at = rng_below((uint32_t)*len + 1);
				uint8_t chunk[40];

				memcpy(chunk, buf + pos, n);
				for (size_t i = *len; i > at; i--)
					buf[i - 1 + n] = buf[i - 1];
				memcpy(buf + at, chunk, n);
				*len += n;
			}
			break;
		}
	}
}

/* ---------------------------------------------------------------- fake host */

#define FAKE_MAX_EXP 1024u
#define FAKE_MAX_CTL 256u
#define FAKE_MAX_EDIT 32u
#define FAKE_MAX_PAYLOAD (64u * 1024u)
#define FAKE_KEEP_MAX 16384u

struct fake_edit {
	size_t off, len;     /* in the payload as shown, kept bytes included */
	char repl[128];
	size_t repl_len;
};

struct fake_ctl {
	unsigned int op;
	bool has_exp;
	struct cth_expect exp;
	unsigned int order;
};

/* Answers a test sets, and what the plugin asked during one packet. */
struct fake {
	struct cth_ctx ctx;          /* first: the plugin only passes this back */
	/* answers */
	uint16_t busy[16];           /* SYNC expectations to these ports: -EBUSY */
	unsigned int n_busy;
	unsigned int busy_left;      /* the next SYNC expectations: busy_err */
	int busy_err;                /* -EBUSY unless set */
	int expect_err;              /* then every expectation answers this */
	int refresh_ret;
	int mangle_err;
	/* what the plugin asked */
	unsigned int order;          /* call counter across kinds */
	unsigned int n_exp;
	struct cth_expect exp[FAKE_MAX_EXP];
	unsigned int exp_how[FAKE_MAX_EXP];
	unsigned int exp_order[FAKE_MAX_EXP];
	char exp_fn[FAKE_MAX_EXP][32];
	unsigned int n_ctl;
	struct fake_ctl ctl[FAKE_MAX_CTL];
	unsigned int n_edit, n_mangle;
	struct fake_edit edit[FAKE_MAX_EDIT];
	bool keep_asked;
	size_t keep_off;
	int keep_ret;
	bool has_timeout;
	uint32_t timeout;
	unsigned int n_log;
	char log[256];
	/* requests the host's rules refuse: always a plugin bug */
	unsigned int n_bad;
	char bad[256];
	/* cth_detach(): a request the host's rules refuse unless the test
	 * allows it (detach_ok: counted in n_detach, answered detach_ret) */
	bool detach_ok;
	int detach_ret;
	unsigned int n_detach;
	/* the packet */
	const struct cth_packet *pkt;
	/* this segment's own payload as sent, edits applied */
	uint8_t out[FAKE_MAX_PAYLOAD + 8192];
	size_t out_len;
};

static inline struct fake *fake_of(struct cth_ctx *ctx)
{
	return (struct fake *)(void *)ctx;
}

static inline void fake_bad(struct fake *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static inline void fake_bad(struct fake *f, const char *fmt, ...)
{
	va_list ap;

	if (f->n_bad++)
		return;
	va_start(ap, fmt);
	vsnprintf(f->bad, sizeof(f->bad), fmt, ap);
	va_end(ap);
}

static inline int pkt_family(const struct cth_packet *p)
{
	return p->tuple[CTH_DIR_ORIGINAL].family;
}

/* The daemon's checks on an expectation handed over (server/host/packet.c). */
static inline bool fake_exp_valid(struct fake *f, const struct cth_expect *e)
{
	if (!e || e->class >= cth_plugin.n_classes || e->family != pkt_family(f->pkt) ||
	    (e->proto != IPPROTO_TCP && e->proto != IPPROTO_UDP) || e->dport == 0)
		return false;
	if ((e->flags & CTH_EXPECT_NAT) && e->nat_dir != O && e->nat_dir != R)
		return false;
	if (e->flags & ~(unsigned int)(CTH_EXPECT_ANY_SRC | CTH_EXPECT_PERMANENT |
				       CTH_EXPECT_INACTIVE | CTH_EXPECT_NAT | CTH_EXPECT_HELPER))
		return false;
	return !(e->fn && strnlen(e->fn, 32) >= 32);
}

static inline bool fake_port_busy(const struct fake *f, uint16_t port)
{
	for (unsigned int i = 0; i < f->n_busy; i++)
		if (f->busy[i] == port)
			return true;
	return false;
}

static inline int fake_expect(struct cth_ctx *ctx, const struct cth_expect *exp, unsigned int how)
{
	struct fake *f = fake_of(ctx);
	unsigned int i = f->n_exp;

	if (!fake_exp_valid(f, exp) || (how & ~(unsigned int)CTH_EXPECT_SYNC)) {
		fake_bad(f, "invalid expectation (class %u proto %u port %u flags %#x how %#x)",
			 exp ? exp->class : 0, exp ? exp->proto : 0, exp ? exp->dport : 0,
			 exp ? exp->flags : 0, how);
		return -EINVAL;
	}
	if (i < FAKE_MAX_EXP) {
		f->exp[i] = *exp;
		f->exp_how[i] = how;
		f->exp_order[i] = f->order;
		snprintf(f->exp_fn[i], sizeof(f->exp_fn[i]), "%s", exp->fn ? exp->fn : "");
	}
	f->order++;
	f->n_exp++;
	if (how & CTH_EXPECT_SYNC) {
		if (fake_port_busy(f, exp->dport))
			return -EBUSY;
		if (f->busy_left) {
			f->busy_left--;
			return f->busy_err ? f->busy_err : -EBUSY;
		}
	}
	return f->expect_err;
}

static inline int fake_expect_ctl(struct cth_ctx *ctx, unsigned int op,
				  const struct cth_expect *exp)
{
	struct fake *f = fake_of(ctx);
	struct fake_ctl *c;

	if ((op == CTH_EXPECT_OP_FLUSH && exp && exp->class >= cth_plugin.n_classes) ||
	    (op == CTH_EXPECT_OP_REFRESH && (!fake_exp_valid(f, exp) || exp->timeout > 604800)) ||
	    (op == CTH_EXPECT_OP_REMOVE && (!exp || exp->family != pkt_family(f->pkt))) ||
	    op < CTH_EXPECT_OP_FLUSH || op > CTH_EXPECT_OP_REFRESH) {
		fake_bad(f, "invalid expect_ctl op %u", op);
		return -EINVAL;
	}
	if (f->n_ctl < FAKE_MAX_CTL) {
		c = &f->ctl[f->n_ctl];
		c->op = op;
		c->has_exp = exp != NULL;
		if (exp)
			c->exp = *exp;
		c->order = f->order;
	}
	f->order++;
	f->n_ctl++;
	if (op == CTH_EXPECT_OP_REFRESH)
		return f->refresh_ret;
	return op == CTH_EXPECT_OP_REMOVE ? 1 : 0;
}

/* The daemon's rules (server/host/mangle.c), each refusal a plugin bug except
 * the edit count. */
static inline int fake_mangle(struct cth_ctx *ctx, size_t off, size_t len, const void *repl,
			      size_t repl_len)
{
	struct fake *f = fake_of(ctx);
	const struct cth_packet *p = f->pkt;
	bool tcp = p->tuple[O].proto == IPPROTO_TCP;
	struct fake_edit *e;

	f->n_mangle++;
	if (f->mangle_err)
		return f->mangle_err;
	if (off > p->payload_len || len > p->payload_len - off) {
		fake_bad(f, "edit %zu+%zu outside the %zu-byte payload", off, len, p->payload_len);
		return -EINVAL;
	}
	if (off < p->kept) {
		fake_bad(f, "edit at %zu inside %zu kept bytes", off, p->kept);
		return -EPERM;
	}
	if (tcp && repl_len != len && !p->nat) {
		fake_bad(f, "TCP length change without NAT at %zu", off);
		return -EPERM;
	}
	for (unsigned int i = 0; i < f->n_edit; i++) {
		const struct fake_edit *o = &f->edit[i];
		bool clash = (o->len == 0 && len == 0) ? o->off == off :
			     o->off < off + len && off < o->off + o->len;

		if (clash) {
			fake_bad(f, "edit %zu+%zu overlaps %zu+%zu", off, len, o->off, o->len);
			return -EINVAL;
		}
	}
	if (f->n_edit == FAKE_MAX_EDIT)
		return -ENOSPC;
	if (repl_len > sizeof(f->edit[0].repl)) {
		fake_bad(f, "replacement of %zu bytes", repl_len);
		return -ENOSPC;
	}
	e = &f->edit[f->n_edit++];
	e->off = off;
	e->len = len;
	memcpy(e->repl, repl, repl_len);
	e->repl_len = repl_len;
	return 0;
}

static inline int fake_set_timeout(struct cth_ctx *ctx, uint32_t seconds)
{
	struct fake *f = fake_of(ctx);

	f->has_timeout = true;
	f->timeout = seconds;
	return 0;
}

static inline int fake_set_mark(struct cth_ctx *ctx, uint32_t mark)
{
	fake_bad(fake_of(ctx), "set_mark %u", mark);
	return 0;
}

static inline int fake_detach(struct cth_ctx *ctx)
{
	struct fake *f = fake_of(ctx);

	if (!f->detach_ok) {
		fake_bad(f, "detach");
		return 0;
	}
	f->n_detach++;
	return f->detach_ret;
}

static inline int fake_keep(struct cth_ctx *ctx, size_t off)
{
	struct fake *f = fake_of(ctx);
	const struct cth_packet *p = f->pkt;

	if (p->tuple[O].proto != IPPROTO_TCP)
		return f->keep_ret = -EOPNOTSUPP;
	if (off > p->payload_len) {
		fake_bad(f, "keep at %zu past %zu", off, p->payload_len);
		return f->keep_ret = -EINVAL;
	}
	if (p->payload_len - off > FAKE_KEEP_MAX)
		return f->keep_ret = -ENOSPC;
	f->keep_asked = true;
	f->keep_off = off;
	return f->keep_ret = 0;
}

static inline void fake_vlog(struct cth_ctx *ctx, int level, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
static inline void fake_vlog(struct cth_ctx *ctx, int level, const char *fmt, va_list ap)
{
	struct fake *f = fake_of(ctx);

	(void)level;
	f->n_log++;
	vsnprintf(f->log, sizeof(f->log), fmt, ap);
}

static const struct cth_host fake_host = {
	.abi_version = CTH_ABI_VERSION,
	.size = sizeof(struct cth_host),
	.expect = fake_expect,
	.mangle = fake_mangle,
	.set_timeout = fake_set_timeout,
	.set_mark = fake_set_mark,
	.detach = fake_detach,
	.vlog = fake_vlog,
	.expect_ctl = fake_expect_ctl,
	.keep = fake_keep,
};

/* A host from before cth_keep(): the same table, ending at expect_ctl
 * (filled in by fake_new()). */
static struct cth_host fake_host_old;

static inline struct fake *fake_new(void)
{
	struct fake *f = calloc(1, sizeof(*f));

	if (!f)
		abort();
	f->ctx.host = &fake_host;
	fake_host_old = fake_host;
	fake_host_old.size = offsetof(struct cth_host, keep);
	fake_host_old.keep = NULL;
	return f;
}

/* Clears the answers a test set. */
static inline void fake_answers_reset(struct fake *f)
{
	f->n_busy = 0;
	f->busy_left = 0;
	f->busy_err = 0;
	f->expect_err = 0;
	f->refresh_ret = 0;
	f->mangle_err = 0;
	f->ctx.host = &fake_host;
}

static inline bool fake_edit_before(const struct fake_edit *a, const struct fake_edit *b)
{
	return a->off < b->off || (a->off == b->off && a->len == 0);
}

/* The payload as the host would send it: edits sorted and applied, the
 * kept bytes (sent earlier) left out. */
static inline void fake_apply(struct fake *f)
{
	const struct cth_packet *p = f->pkt;
	struct fake_edit *e = f->edit;
	size_t in = p->kept, o = 0;

	for (unsigned int i = 1; i < f->n_edit; i++)
		for (unsigned int j = i; j > 0 && fake_edit_before(&e[j], &e[j - 1]); j--) {
			struct fake_edit t = e[j];

			e[j] = e[j - 1];
			e[j - 1] = t;
		}
	for (unsigned int i = 0; i <= f->n_edit; i++) {
		size_t upto = i < f->n_edit ? e[i].off : p->payload_len;

		memcpy(f->out + o, p->payload + in, upto - in);
		o += upto - in;
		if (i == f->n_edit)
			break;
		memcpy(f->out + o, e[i].repl, e[i].repl_len);
		o += e[i].repl_len;
		in = e[i].off + e[i].len;
	}
	f->out_len = o;
}

/* ---------------------------------------------------------------- connections */

/* A connection as the daemon passes it: tuples, NAT bits, configuration,
 * private state, and the bytes the plugin kept per direction. */
struct conn {
	struct cth_tuple t[2];
	unsigned int nat;
	unsigned int ct_status;
	uint64_t cfg[32];       /* the configuration block, aligned */
	uint8_t priv[CTH_PRIV_MAX];
	uint8_t *kept[2];
	size_t kept_len[2];
};

/* a (original source) at aport talks to b at bport. */
static inline void conn_init(struct conn *c, int family, uint8_t proto, const char *a,
			     uint16_t aport, const char *b, uint16_t bport)
{
	memset(c, 0, sizeof(*c));
	c->t[O].family = c->t[R].family = (uint8_t)family;
	c->t[O].proto = c->t[R].proto = proto;
	c->t[O].src = c->t[R].dst = addr_of(family, a);
	c->t[O].dst = c->t[R].src = addr_of(family, b);
	c->t[O].sport = c->t[R].dport = aport;
	c->t[O].dport = c->t[R].sport = bport;
	c->ct_status = CTH_CT_CONFIRMED | CTH_CT_SEEN_REPLY;
}

/* The original source appears as pub:port to the other side. */
static inline void conn_snat(struct conn *c, const char *pub, uint16_t port)
{
	c->t[R].dst = addr_of(c->t[R].family, pub);
	c->t[R].dport = port;
	c->nat |= CTH_NAT_SRC;
}

/* The original source connects to pub:port, forwarded to the server. */
static inline void conn_dnat(struct conn *c, const char *pub, uint16_t port)
{
	c->t[O].dst = addr_of(c->t[O].family, pub);
	c->t[O].dport = port;
	c->nat |= CTH_NAT_DST;
}

static inline void conn_free(struct conn *c)
{
	for (int d = 0; d < 2; d++) {
		free(c->kept[d]);
		c->kept[d] = NULL;
		c->kept_len[d] = 0;
	}
}

static inline int conn_configure(struct conn *c, const char *key, const char *val)
{
	return cth_plugin.configure(c->cfg, key, val);
}

/* What an established connection's packet in direction dir is. */
static inline enum cth_ctinfo established(enum cth_dir dir)
{
	return dir == O ? CTH_CT_ESTABLISHED : CTH_CT_ESTABLISHED_REPLY;
}

/*
 * Hand one packet to the plugin, with its private state at priv (c->priv
 * but for alignment tests): its payload in an exact-size heap block,
 * behind the bytes the plugin kept from the last segment of this direction
 * (shown once, like the daemon; kept again for a dropped packet's
 * retransmission).  Returns the verdict; f->out is what would be sent.
 */
static inline int run_state(struct fake *f, struct conn *c, enum cth_dir dir,
			    enum cth_ctinfo ctinfo, uint32_t seq, const void *text, size_t len,
			    void *priv)
{
	/* a host without cth_keep() never shows kept bytes */
	size_t kept = c->t[O].proto == IPPROTO_TCP && f->ctx.host == &fake_host ?
		      c->kept_len[dir] : 0;
	uint8_t *own = dup_exact(text, len), *shown = own;
	struct cth_packet pkt;
	int verdict;

	if (len > FAKE_MAX_PAYLOAD)
		abort();
	if (kept) {
		shown = malloc(kept + len);
		if (!shown)
			abort();
		memcpy(shown, c->kept[dir], kept);
		memcpy(shown + kept, text, len);
	}
	f->order = f->n_exp = f->n_ctl = f->n_edit = f->n_mangle = f->n_log = f->n_bad = 0;
	f->n_detach = 0;
	f->keep_asked = f->has_timeout = false;
	f->keep_ret = 1;
	f->bad[0] = f->log[0] = '\0';

	memset(&pkt, 0, sizeof(pkt));
	pkt.data = own;
	pkt.len = len;
	pkt.payload = shown;
	pkt.payload_len = kept + len;
	pkt.kept = kept;
	pkt.dir = dir;
	pkt.ctinfo = ctinfo;
	pkt.tuple[O] = c->t[O];
	pkt.tuple[R] = c->t[R];
	pkt.nat = c->nat;
	pkt.ct_status = c->ct_status;
	pkt.ct_id = 1;
	pkt.seq = seq;
	f->pkt = &pkt;
	verdict = cth_plugin.packet(&f->ctx, &pkt, priv, c->cfg);
	if (verdict != CTH_VERDICT_ACCEPT && verdict != CTH_VERDICT_DROP)
		fake_bad(f, "verdict %d", verdict);
	fake_apply(f);
	if (verdict == CTH_VERDICT_ACCEPT) {
		free(c->kept[dir]);
		c->kept[dir] = NULL;
		c->kept_len[dir] = 0;
		if (f->keep_asked && f->keep_off < pkt.payload_len) {
			c->kept_len[dir] = pkt.payload_len - f->keep_off;
			c->kept[dir] = dup_exact(shown + f->keep_off, c->kept_len[dir]);
		}
	}
	f->pkt = NULL;
	if (shown != own)
		free(shown);
	free(own);
	return verdict;
}

static inline int run_ctinfo(struct fake *f, struct conn *c, enum cth_dir dir,
			     enum cth_ctinfo ctinfo, uint32_t seq, const void *text, size_t len)
{
	return run_state(f, c, dir, ctinfo, seq, text, len, c->priv);
}

/* ---------------------------------------------------------------- checks on results */

static inline void check_out(struct check *ck, const struct fake *f, const char *want)
{
	size_t n = strlen(want), i = 0;

	while (i < n && i < f->out_len && f->out[i] == (uint8_t)want[i])
		i++;
	check_that(ck, f->out_len == n && i == n,
		   "payload differs at byte %zu (%zu bytes, want %zu): got '%.60s' want '%.60s'", i,
		   f->out_len, n, (const char *)f->out + (i < f->out_len ? i : f->out_len),
		   want + (i < n ? i : n));
}

static inline void check_clean(struct check *ck, const struct fake *f)
{
	check_that(ck, f->n_bad == 0, "host rule broken: %s", f->bad);
}

static inline void check_no_edit(struct check *ck, const struct fake *f)
{
	check_that(ck, f->n_mangle == 0, "%u edits", f->n_mangle);
}

#endif
