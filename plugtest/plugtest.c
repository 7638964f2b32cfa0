/* SPDX-License-Identifier: MIT */
/*
 * A plugin on the daemon's host code with a recording kernel side
 * (<cthelperd/plugtest.h>), for tests out of the source tree.  The
 * steps of one packet are the worker's (server/worker/worker.c):
 * pkt_view_parse(), keep_join(), pkt_call_run(), keep_done(), the state
 * written back with the verdict, pkt_call_mangled(); a .so is loaded by
 * the daemon's loader (server/runtime/loader.c), a test's settings
 * parsed by the daemon's key parser (plugtest_keys.c).  The host counts
 * cth_count() and state resets into a counter block of the test's own,
 * as into a worker's; the plugin is reached through a descriptor whose
 * packet callback sees its verdict before the host rounds it.  A packet
 * the host would send is checked with the tests' own length and checksum
 * code (tests/fuzz/pktcheck.h), not the host's.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <cthelperd/plugtest.h>

#include "plugtest_keys.h"
#include "pktcheck.h"
#include "host/call.h"
#include "host/keep.h"
#include "host/link.h"
#include "host/packet.h"
#include "runtime/runtime.h"
#include "runtime/stats.h"

/* kept bytes are dropped after KEEP_TTL_MS: one clock reading does */
#define PLUGTEST_NOW_MS 1000u
#define PLUGTEST_TCP_ACK_PSH 0x18u
/* "udp A > B snat A dnat A expected" */
#define PLUGTEST_CONN_WORDS 9

/* cth_plugtest_link()'s view: one network per family. */
struct plugtest_link {
	uint32_t in, out;
	int dst_kind;                        /* -1: from the packet */
	uint8_t net_prefix[2];               /* [0] IPv4, [1] IPv6; 0: none */
	union cth_addr net[2];
};

#define PLUGTEST_LINK_DEFAULT ((struct plugtest_link){ .in = 1, .out = 2, .dst_kind = -1 })

struct cth_plugtest {
	const struct cth_plugin_desc *desc;  /* the plugin's, as checked */
	struct plugin *loaded;               /* cth_plugtest_open()'s, or NULL */
	struct cth_plugin_desc copy;         /* cth_plugtest_new()'s */
	struct cth_plugin_desc wrap;         /* packet: plugtest_packet_cb */
	struct plugin wrap_pl;
	struct instance inst;
	void *config;
	bool inited;
	struct stats_block stats;            /* the host counts here, slot 0 */
	/* the connection */
	bool has_conn, seen_reply, confirmed;
	struct cth_tuple t[2];
	unsigned int nat;
	bool expected;
	uint8_t priv[CTH_PRIV_MAX];
	uint32_t seq[2];
	struct keep keep;
	/* what cth_link() returns (cth_plugtest_link()) */
	struct plugtest_link link;
	/* the kernel stand-in */
	int k_rc, k_ctl_rc;
	unsigned int k_times, k_left;
	bool reached;
	/* the last packet */
	struct cth_plugtest_result r;
	uint8_t out[65536];
	char err[256];
};

static struct cth_plugtest *plugtest_make(const struct cth_plugin_desc *desc,
					  const char *const *settings, char *err, size_t errlen);
static int plugtest_conn_parse(struct cth_plugtest *t, const char *desc);
static int plugtest_endpoint(const char *text, int *family, union cth_addr *a, uint16_t *port);
static void plugtest_view(const struct cth_plugtest *t, struct pkt_call *c, enum cth_dir dir);
static void plugtest_out(struct cth_plugtest *t, struct pkt_call *c, const void *text,
			 size_t len);
static void plugtest_bug(struct cth_plugtest *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int plugtest_expect_fn(struct pkt_call *c, const struct cth_expect *e, unsigned int how);
static int plugtest_expect_ctl_fn(struct pkt_call *c, unsigned int op,
				  const struct cth_expect *e);
static void plugtest_trace(struct pkt_call *c, const struct pkt_event *ev);
static int plugtest_link_fn(struct pkt_call *c, struct cth_link *link);
static int plugtest_link_parse(struct cth_plugtest *t, const char *desc,
			       struct plugtest_link *l);
static int plugtest_net(const char *text, struct plugtest_link *l);
static int plugtest_packet_cb(struct cth_ctx *ctx, const struct cth_packet *pkt, void *priv,
			      const void *config);

/* The test object of the running call, for the plugin's callback. */
static __thread struct cth_plugtest *plugtest_cur;

/* ---------------------------------------------------------------- the instance */

struct cth_plugtest *cth_plugtest_new(const struct cth_plugin_desc *desc,
				      const char *const *settings, char *err, size_t errlen)
{
	struct cth_plugin_desc copy;
	size_t n;

	if (!desc || !desc->name) {
		snprintf(err, errlen, "no descriptor, or one without a name");
		return NULL;
	}
	/* as the loader copies a loaded one: the plugin's own size, the
	 * fields of a later ABI zero (an ABI 2 descriptor has none) */
	n = desc->size < sizeof(copy) ? desc->size : sizeof(copy);
	memset(&copy, 0, sizeof(copy));
	memcpy(&copy, desc, n);
	/* the checks the loader makes of the copy, size and ABI first */
	if (loader_desc_check(&copy, err, errlen) < 0)
		return NULL;
	return plugtest_make(&copy, settings, err, errlen);
}

struct cth_plugtest *cth_plugtest_open(const char *path, const char *const *settings,
				       char *err, size_t errlen)
{
	char copy[PATH_MAX], dir[PATH_MAX], name[PATH_MAX];
	struct cth_plugtest *t;
	struct plugin *pl;
	size_t len;

	/* basename() and dirname() may write into what they are given */
	snprintf(copy, sizeof(copy), "%s", path);
	snprintf(name, sizeof(name), "%s", basename(copy));
	len = strlen(name);
	if (len < 4 || strcmp(name + len - 3, ".so") != 0) {
		snprintf(err, errlen, "%s: a plugin file NAME.so", path);
		return NULL;
	}
	name[len - 3] = '\0';
	snprintf(copy, sizeof(copy), "%s", path);
	if (!realpath(dirname(copy), dir)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if (loader_load(dir, name, &pl, err, errlen) < 0)
		return NULL;
	t = plugtest_make(pl->desc, settings, err, errlen);
	if (!t) {
		loader_unload(pl);
		return NULL;
	}
	t->loaded = pl;
	return t;
}

/* The instance a [helper] section of the plugin with these settings
 * makes: keys applied, checked, init() run. */
static struct cth_plugtest *plugtest_make(const struct cth_plugin_desc *desc,
					  const char *const *settings, char *err, size_t errlen)
{
	struct cth_plugtest *t = calloc(1, sizeof(*t));

	if (!t || !(t->config = calloc(1, desc->config_size ? desc->config_size : 1))) {
		free(t);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	t->copy = *desc;
	t->desc = &t->copy;
	t->wrap = t->copy;
	t->wrap.packet = plugtest_packet_cb;
	t->wrap_pl.desc = &t->wrap;
	snprintf(t->inst.name, sizeof(t->inst.name), "%s", desc->name);
	t->inst.pl = &t->wrap_pl;
	t->inst.config = t->config;
	t->inst.families = desc->families;
	t->inst.protocols = desc->protocols;
	t->inst.guard = GUARD_DEFAULT;
	t->link = PLUGTEST_LINK_DEFAULT;
	t->inst.n_classes = desc->n_classes;
	memcpy(t->inst.classes, desc->classes, sizeof(t->inst.classes));
	if (plugtest_keys_apply(desc, t->config, settings, err, errlen) < 0)
		goto fail;
	/* as the daemon's runtime_inst_start() (server/runtime/runtime.c) */
	if (desc->init) {
		int rc = desc->init(t->config, t->inst.name);

		if (rc != 0) {
			snprintf(err, errlen, "plugin '%s' could not set it up (init): %s",
				 desc->name, strerror(rc < 0 ? -rc : EINVAL));
			goto fail;
		}
		t->inited = true;
	}
	return t;
fail:
	free(t->config);
	free(t);
	return NULL;
}

void cth_plugtest_free(struct cth_plugtest *t)
{
	if (!t)
		return;
	if (t->inited && t->desc->fini)
		t->desc->fini(t->config, t->inst.name);
	keep_free(&t->keep);
	free(t->config);
	if (t->loaded)
		loader_unload(t->loaded);
	free(t);
}

const struct cth_plugin_desc *cth_plugtest_desc(const struct cth_plugtest *t)
{
	return t->desc;
}

const void *cth_plugtest_config(const struct cth_plugtest *t)
{
	return t->config;
}

const char *cth_plugtest_error(const struct cth_plugtest *t)
{
	return t->err;
}

void cth_plugtest_kernel(struct cth_plugtest *t, int rc, unsigned int times, int ctl_rc)
{
	t->k_rc = rc;
	t->k_times = t->k_left = times;
	t->k_ctl_rc = ctl_rc;
}

const struct cth_plugtest_result *cth_plugtest_result(const struct cth_plugtest *t)
{
	return &t->r;
}

/* ---------------------------------------------------------------- the connection */

int cth_plugtest_conn(struct cth_plugtest *t, const char *desc)
{
	keep_free(&t->keep);
	memset(&t->keep, 0, sizeof(t->keep));
	memset(t->t, 0, sizeof(t->t));
	memset(t->priv, 0, sizeof(t->priv));
	t->has_conn = t->seen_reply = t->confirmed = t->expected = false;
	t->nat = 0;
	if (plugtest_conn_parse(t, desc) < 0)
		return -EINVAL;
	t->has_conn = true;
	/* a TCP connection is shown after its handshake */
	if (t->t[CTH_DIR_ORIGINAL].proto == IPPROTO_TCP)
		t->seen_reply = t->confirmed = true;
	t->seq[CTH_DIR_ORIGINAL] = 1000;
	t->seq[CTH_DIR_REPLY] = 5000;
	return 0;
}

/* "udp|tcp A:P > B:P [snat A:P] [dnat A:P] [expected]" */
static int plugtest_conn_parse(struct cth_plugtest *t, const char *text)
{
	const char *desc = text;
	struct cth_tuple *o = &t->t[CTH_DIR_ORIGINAL], *r = &t->t[CTH_DIR_REPLY];
	char words[PLUGTEST_CONN_WORDS][64], more[2];
	int n = 0, fam[2], f, used;
	uint16_t port;
	union cth_addr a;

	while (n < PLUGTEST_CONN_WORDS && sscanf(desc, "%63s%n", words[n], &used) == 1) {
		desc += used;
		n++;
	}
	if (n < 4 || sscanf(desc, "%1s", more) == 1 || strcmp(words[2], ">") != 0 ||
	    (strcmp(words[0], "udp") && strcmp(words[0], "tcp")))
		goto bad;
	o->proto = r->proto = strcmp(words[0], "tcp") ? IPPROTO_UDP : IPPROTO_TCP;
	if (plugtest_endpoint(words[1], &fam[0], &o->src, &o->sport) < 0 ||
	    plugtest_endpoint(words[3], &fam[1], &o->dst, &o->dport) < 0 || fam[0] != fam[1])
		goto bad;
	o->family = r->family = (uint8_t)fam[0];
	r->src = o->dst;
	r->dst = o->src;
	r->sport = o->dport;
	r->dport = o->sport;
	for (int i = 4; i < n; i++) {
		if (strcmp(words[i], "expected") == 0) {
			t->expected = true;
			continue;
		}
		/* "snat A:P" or "dnat A:P" is one word of each */
		if (i + 1 >= n || plugtest_endpoint(words[i + 1], &f, &a, &port) < 0 ||
		    f != fam[0])
			goto bad;
		if (strcmp(words[i], "snat") == 0) {
			r->dst = a;
			r->dport = port;
			t->nat |= CTH_NAT_SRC;
		} else if (strcmp(words[i], "dnat") == 0) {
			o->dst = a;
			o->dport = port;
			t->nat |= CTH_NAT_DST;
		} else {
			goto bad;
		}
		i++;
	}
	return 0;
bad:
	snprintf(t->err, sizeof(t->err), "'%s': udp|tcp ADDR:PORT > ADDR:PORT "
		 "[snat ADDR:PORT] [dnat ADDR:PORT] [expected] (IPv6 in brackets)", text);
	return -EINVAL;
}

static int plugtest_endpoint(const char *text, int *family, union cth_addr *a, uint16_t *port)
{
	char host[64];
	const char *colon;
	unsigned long p;
	char *end;

	memset(a, 0, sizeof(*a));
	if (text[0] == '[') {
		colon = strstr(text, "]:");
		if (!colon || colon - text - 1 >= (long)sizeof(host))
			return -EINVAL;
		snprintf(host, sizeof(host), "%.*s", (int)(colon - text - 1), text + 1);
		colon++;
		*family = AF_INET6;
	} else {
		colon = strrchr(text, ':');
		if (!colon || colon - text >= (long)sizeof(host))
			return -EINVAL;
		snprintf(host, sizeof(host), "%.*s", (int)(colon - text), text);
		*family = AF_INET;
	}
	if (inet_pton(*family, host, a->raw) != 1)
		return -EINVAL;
	p = strtoul(colon + 1, &end, 10);
	if (*end || p < 1 || p > 65535 || colon[1] < '0' || colon[1] > '9')
		return -EINVAL;
	*port = (uint16_t)p;
	return 0;
}

/* ---------------------------------------------------------------- the link view */

int cth_plugtest_link(struct cth_plugtest *t, const char *desc)
{
	struct plugtest_link l = PLUGTEST_LINK_DEFAULT;

	if (desc && plugtest_link_parse(t, desc, &l) < 0)
		return -EINVAL;
	t->link = l;
	return 0;
}

/* "in N out N net A/P net A/P dst KIND", any part optional. */
static int plugtest_link_parse(struct cth_plugtest *t, const char *text,
			       struct plugtest_link *l)
{
	static const char *const kinds[] = {
		[CTH_DST_UNICAST] = "unicast", [CTH_DST_MULTICAST] = "multicast",
		[CTH_DST_BROADCAST] = "broadcast", [CTH_DST_BROADCAST_ALL] = "broadcast-all",
	};
	const char *desc = text;
	char word[64], value[64];
	int used, k;

	while (sscanf(desc, "%63s%n", word, &used) == 1) {
		desc += used;
		if (sscanf(desc, "%63s%n", value, &used) != 1)
			goto bad;
		desc += used;
		if (strcmp(word, "in") == 0 || strcmp(word, "out") == 0) {
			char *end;
			unsigned long n = strtoul(value, &end, 10);

			if (*end || value[0] < '0' || value[0] > '9' || n > UINT32_MAX)
				goto bad;
			*(word[0] == 'i' ? &l->in : &l->out) = (uint32_t)n;
		} else if (strcmp(word, "net") == 0) {
			if (plugtest_net(value, l) < 0)
				goto bad;
		} else if (strcmp(word, "dst") == 0) {
			for (k = 0; k < (int)(sizeof(kinds) / sizeof(kinds[0])); k++)
				if (strcmp(value, kinds[k]) == 0)
					break;
			if (k == (int)(sizeof(kinds) / sizeof(kinds[0])))
				goto bad;
			l->dst_kind = k;
		} else {
			goto bad;
		}
	}
	return 0;
bad:
	snprintf(t->err, sizeof(t->err), "'%s': [in IFINDEX] [out IFINDEX] [net ADDR/PREFIX] "
		 "[dst unicast|multicast|broadcast|broadcast-all]", text);
	return -EINVAL;
}

/* "ADDR/PREFIX" of either family into its slot, bits past it cleared. */
static int plugtest_net(const char *text, struct plugtest_link *l)
{
	char host[64], *end;
	const char *slash = strchr(text, '/');
	unsigned long prefix;
	union cth_addr a;
	int family, i;

	if (!slash || slash - text >= (long)sizeof(host) || slash[1] < '0' || slash[1] > '9')
		return -EINVAL;
	snprintf(host, sizeof(host), "%.*s", (int)(slash - text), text);
	memset(&a, 0, sizeof(a));
	family = strchr(host, ':') ? AF_INET6 : AF_INET;
	i = family == AF_INET6;
	prefix = strtoul(slash + 1, &end, 10);
	if (inet_pton(family, host, a.raw) != 1 || *end || prefix < 1 ||
	    prefix > (i ? 128u : 32u))
		return -EINVAL;
	link_addr_mask(family, &a, (unsigned int)prefix);
	l->net[i] = a;
	l->net_prefix[i] = (uint8_t)prefix;
	return 0;
}

/* pkt_call::link_fn: the host's own rules (host/link.c) on an interface
 * that holds the given network, then the test's settings over them. */
static int plugtest_link_fn(struct pkt_call *c, struct cth_link *link)
{
	const struct plugtest_link *l = &((struct cth_plugtest *)c->backend)->link;
	const struct cth_tuple *tu = &c->pkt.tuple[c->pkt.dir];
	int i = tu->family == AF_INET6;
	struct link_addr a = {
		.ifindex = l->out ? l->out : l->in, .family = tu->family,
		.prefix = l->net_prefix[i], .addr = l->net[i],
	};
	struct link_pkt p = {
		.in_ifindex = l->in, .out_ifindex = l->out, .family = tu->family,
		.src = tu->src, .dst = tu->dst,
	};

	link_fill(link, &p, &a, l->net_prefix[i] ? 1 : 0);
	link->net_prefix = l->net_prefix[i];
	link->net = l->net[i];
	if (l->dst_kind >= 0)
		link->dst_kind = (uint8_t)l->dst_kind;
	return 0;
}

/* ---------------------------------------------------------------- one packet */

int cth_plugtest_packet(struct cth_plugtest *t, enum cth_dir dir, const void *payload,
			size_t len)
{
	struct pkt_call call = {
		.inst = &t->inst, .backend = t, .expect_fn = plugtest_expect_fn,
		.expect_ctl_fn = plugtest_expect_ctl_fn, .trace = plugtest_trace,
		.link_fn = plugtest_link_fn,
		.keep = &t->keep, .stats = &t->stats,
	};
	const struct cth_tuple *tu = &t->t[dir];
	uint8_t *pkt;
	size_t plen;
	int verdict;

	if (!t->has_conn || (dir != CTH_DIR_ORIGINAL && dir != CTH_DIR_REPLY)) {
		snprintf(t->err, sizeof(t->err), "no connection (cth_plugtest_conn())");
		return -EINVAL;
	}
	pkt = pc_build(tu->family, tu->proto, tu, t->seq[dir], PLUGTEST_TCP_ACK_PSH, payload,
		       len, &plen);
	if (!pkt || pkt_view_parse(&call.pkt, pkt, plen, tu->family) < 0) {
		free(pkt);
		snprintf(t->err, sizeof(t->err), "a %zu-byte payload does not fit one packet", len);
		return -EMSGSIZE;
	}
	memset(&t->r, 0, offsetof(struct cth_plugtest_result, counter));
	plugtest_view(t, &call, dir);
	keep_join(call.keep, &call, PLUGTEST_NOW_MS);
	plugtest_cur = t;
	verdict = pkt_call_run(&call, t->expected ? NULL : t->priv, sizeof(t->priv));
	plugtest_cur = NULL;
	keep_done(call.keep, &call, verdict, PLUGTEST_NOW_MS);
	t->r.verdict = verdict;
	for (unsigned int i = 0; i < CTH_COUNTER_MAX; i++)
		t->r.counter[i] = atomic_load_explicit(&t->stats.pc[t->inst.slot][i],
						       memory_order_relaxed);
	t->r.priv_changed = call.priv_changed;
	t->r.detach = call.detach;
	memcpy(t->r.priv, call.priv, sizeof(t->r.priv));
	/* the kernel keeps no private state for an expected connection */
	if (!t->expected)
		memcpy(t->priv, call.priv, sizeof(t->priv));
	plugtest_out(t, &call, payload, len);
	pkt_call_release(&call);
	free(pkt);
	if (dir == CTH_DIR_REPLY)
		t->seen_reply = true;
	t->confirmed = true;
	if (verdict == CTH_VERDICT_ACCEPT && tu->proto == IPPROTO_TCP)
		t->seq[dir] += (uint32_t)len;
	return verdict;
}

/* What conntrack tells the daemon about the packet (worker/qmsg.c). */
static void plugtest_view(const struct cth_plugtest *t, struct pkt_call *c, enum cth_dir dir)
{
	struct cth_packet *p = &c->pkt;

	p->dir = dir;
	if (dir == CTH_DIR_REPLY)
		p->ctinfo = CTH_CT_ESTABLISHED_REPLY;
	else
		p->ctinfo = t->seen_reply ? CTH_CT_ESTABLISHED :
			    t->expected ? CTH_CT_RELATED : CTH_CT_NEW;
	p->tuple[CTH_DIR_ORIGINAL] = t->t[CTH_DIR_ORIGINAL];
	p->tuple[CTH_DIR_REPLY] = t->t[CTH_DIR_REPLY];
	p->nat = t->nat;
	p->ct_status = (t->confirmed ? CTH_CT_CONFIRMED : 0) |
		       (t->seen_reply || dir == CTH_DIR_REPLY ? CTH_CT_SEEN_REPLY : 0) |
		       (t->expected ? CTH_CT_EXPECTED : 0);
	if (t->expected) {
		p->master.family = t->t[CTH_DIR_ORIGINAL].family;
		p->master.proto = t->t[CTH_DIR_ORIGINAL].proto;
	}
	p->ct_id = 1;
}

/* This segment's own payload as the host sends it; a rewritten packet is
 * checked as the kernel would take it. */
static void plugtest_out(struct cth_plugtest *t, struct pkt_call *c, const void *text,
			 size_t len)
{
	const struct cth_packet *p = &c->pkt;
	const uint8_t *sent;
	size_t slen;
	char why[160];

	t->r.payload = t->out;
	sent = pkt_call_mangled(c, &slen);
	if (!sent) {
		memcpy(t->out, text, len);
		t->r.payload_len = len;
		return;
	}
	t->r.rewritten = true;
	if (!pc_packet_ok(sent, slen, p->l4_offset, p->tuple[CTH_DIR_ORIGINAL].proto, why,
			  sizeof(why)))
		plugtest_bug(t, "the packet sent: %s", why);
	t->r.payload_len = slen - p->payload_offset;
	memcpy(t->out, sent + p->payload_offset, t->r.payload_len);
}

static void plugtest_bug(struct cth_plugtest *t, const char *fmt, ...)
{
	va_list ap;

	if (t->r.n_bug++)
		return;
	va_start(ap, fmt);
	vsnprintf(t->r.bug, sizeof(t->r.bug), fmt, ap);
	va_end(ap);
}

/* ---------------------------------------------------------------- the kernel side */

/* pkt_call::expect_fn: after the host's checks, the kernel's answer; only
 * an expectation that waits for it (CTH_EXPECT_SYNC) learns an error,
 * as in the daemon, where the others ride on the verdict. */
static int plugtest_expect_fn(struct pkt_call *c, const struct cth_expect *e, unsigned int how)
{
	struct cth_plugtest *t = c->backend;

	(void)e;
	t->reached = true;
	if (!(how & CTH_EXPECT_SYNC) || !t->k_rc)
		return 0;
	if (t->k_times && !t->k_left)
		return 0;
	if (t->k_times)
		t->k_left--;
	return t->k_rc;
}

static int plugtest_expect_ctl_fn(struct pkt_call *c, unsigned int op,
				  const struct cth_expect *e)
{
	struct cth_plugtest *t = c->backend;

	(void)e;
	t->reached = true;
	if (t->k_ctl_rc)
		return t->k_ctl_rc;
	return op == CTH_EXPECT_OP_REMOVE ? 1 : 0;
}

/* ---------------------------------------------------------------- the host's trace */

static void plugtest_on_expect(struct cth_plugtest *t, const struct pkt_event *ev)
{
	const struct cth_expect *e = ev->exp;
	unsigned int i = t->r.n_expect;

	if (!t->reached && ev->rc != -EPERM) {
		plugtest_bug(t, "an expectation the host refuses (%d): class %u proto %u "
			     "dport %u flags %#x how %#x", ev->rc, e ? e->class : 0,
			     e ? e->proto : 0, e ? e->dport : 0, e ? e->flags : 0, ev->how);
		return;
	}
	t->r.n_refused += !t->reached;
	if (i < CTH_PLUGTEST_EXPECT_MAX) {
		t->r.expect[i] = *e;
		snprintf(t->r.expect_fn[i], sizeof(t->r.expect_fn[i]), "%s", e->fn ? e->fn : "");
		t->r.expect[i].fn = e->fn ? t->r.expect_fn[i] : NULL;
		t->r.expect_how[i] = ev->how;
		t->r.expect_rc[i] = ev->rc;
	}
	t->r.n_expect++;
}

static void plugtest_on_expect_ctl(struct cth_plugtest *t, const struct pkt_event *ev)
{
	if (!t->reached && ev->rc != -EPERM && ev->rc != -EOPNOTSUPP) {
		plugtest_bug(t, "an expectation operation the host refuses: op %u (%d)", ev->how,
			     ev->rc);
		return;
	}
	if (t->r.n_expect_ctl < CTH_PLUGTEST_EXPECT_MAX)
		t->r.expect_ctl_op[t->r.n_expect_ctl] = ev->how;
	t->r.n_expect_ctl++;
}

/* Edits the host refuses with -EINVAL (outside the payload, overlapping)
 * or -EPERM (in kept bytes, a TCP length change without NAT) are plugin
 * bugs; running out of edits, room or memory is not. */
static void plugtest_on_mangle(struct cth_plugtest *t, const struct pkt_event *ev)
{
	struct cth_plugtest_edit *e;

	if (ev->rc == -EINVAL || ev->rc == -EPERM)
		plugtest_bug(t, "an edit the host refuses (%d): %zu bytes at %zu", ev->rc,
			     ev->len, ev->off);
	if (ev->rc < 0 || t->r.n_edit == CTH_PLUGTEST_EDIT_MAX)
		return;
	e = &t->r.edit[t->r.n_edit++];
	e->off = ev->off;
	e->len = ev->len;
	e->repl_len = ev->repl_len;
}

/* pkt_call::trace: every host call with the host's answer. */
static void plugtest_trace(struct pkt_call *c, const struct pkt_event *ev)
{
	struct cth_plugtest *t = c->backend;

	switch (ev->type) {
	case PKT_EV_EXPECT:
		plugtest_on_expect(t, ev);
		break;
	case PKT_EV_EXPECT_CTL:
		plugtest_on_expect_ctl(t, ev);
		break;
	case PKT_EV_MANGLE:
		plugtest_on_mangle(t, ev);
		break;
	case PKT_EV_KEEP:
		if (ev->rc == -EINVAL)
			plugtest_bug(t, "a keep offset past the payload: %zu", ev->off);
		t->r.keep = ev->rc == 0;
		t->r.keep_off = ev->off;
		break;
	case PKT_EV_TIMEOUT:
		t->r.has_timeout = true;
		t->r.timeout = ev->value;
		break;
	case PKT_EV_LOG:
		t->r.n_log++;
		snprintf(t->r.log, sizeof(t->r.log), "%s", ev->text);
		break;
	case PKT_EV_MARK:
	case PKT_EV_DETACH:
	case PKT_EV_COUNT:
		break;
	}
	t->reached = false;
}

/* ---------------------------------------------------------------- the plugin's view */

/* The descriptor's packet callback: the plugin's, its verdict seen
 * before pkt_call_run() takes anything but DROP for ACCEPT. */
static int plugtest_packet_cb(struct cth_ctx *ctx, const struct cth_packet *pkt, void *priv,
			      const void *config)
{
	struct cth_plugtest *t = plugtest_cur;
	int v = t->desc->packet(ctx, pkt, priv, config);

	if (v != CTH_VERDICT_ACCEPT && v != CTH_VERDICT_DROP)
		plugtest_bug(t, "verdict %d: neither ACCEPT nor DROP", v);
	return v;
}
