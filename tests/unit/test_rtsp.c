/* SPDX-License-Identifier: MIT */
/*
 * RTSP plugin unit test: the framing parser (start lines, headers,
 * bodies, interleaved frames, garbage, bounds) and the Transport parser
 * (RTSP/1.0 and 2.0 syntax, bad ports and addresses), then the plugin's
 * packet callback on the daemon's host code (plugrun.h): SETUP and its
 * reply (RTP/RTCP both ways, reverse = no), several specs and tracks,
 * TEARDOWN, interleaved data across segments never read nor touched,
 * bodies, several messages and split messages (cth_keep), retransmission,
 * hostile input, IPv6, third_party, NAT (MASQUERADE with a taken pair,
 * destination=, DNAT and source=, a split SETUP needing a rewrite in kept
 * bytes), counters and private state.  Deterministic fuzzing.
 *
 * Output: one "PASS name" / "FAIL name: why" line per check; exit status 1
 * when anything failed.
 */
#define PLUGTEST_RNG_SEED 0x5254535000000554ull
#include "plugtest.h"

#include "../../plugins/rtsp/rtsp.h"

/* The VM topology's addresses (tests/lib/topo.sh): the client at CPORT
 * talks to the server's 554; under SNAT it shows as ROUTER_SV:NAT_PORT. */
#define CLIENT4 "10.0.1.2"
#define SERVER4 "10.0.2.2"
#define ROUTER_SV4 "10.0.2.1"
#define OTHER4 "192.0.2.99"
#define CLIENT6 "fd00:1::2"
#define SERVER6 "fd00:2::2"
#define ROUTER_SV6 "fd00:2::1"
#define CPORT 40000
#define NAT_PORT 61000

static const char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static const char *fmt(const char *f, ...)
{
	static char ring[16][4096];
	static unsigned int i;
	char *o = ring[i++ % 16];
	va_list ap;

	va_start(ap, f);
	vsnprintf(o, sizeof(ring[0]), f, ap);
	va_end(ap);
	return o;
}

/* ---------------------------------------------------------------- messages */

static const char *setup(unsigned int cseq, const char *transport)
{
	return fmt("SETUP rtsp://" SERVER4 "/cam/track%u RTSP/1.0\r\nCSeq: %u\r\n"
		   "Transport: %s\r\nUser-Agent: test\r\n\r\n", cseq, cseq, transport);
}

static const char *reply(unsigned int cseq, const char *transport)
{
	return fmt("RTSP/1.0 200 OK\r\nCSeq: %u\r\nSession: 12345678;timeout=60\r\n"
		   "Transport: %s\r\n\r\n", cseq, transport);
}

#define TEARDOWN "TEARDOWN rtsp://" SERVER4 "/cam RTSP/1.0\r\nCSeq: 9\r\nSession: 12345678\r\n\r\n"
#define PLAY "PLAY rtsp://" SERVER4 "/cam RTSP/1.0\r\nCSeq: 5\r\nSession: 12345678\r\n\r\n"

/* ---------------------------------------------------------------- runs */

struct run {
	struct plugrun *f;
	struct conn c;
	struct counts before;
	int v;
};

static void conn4(struct run *r)
{
	conn_free(&r->c);
	conn_init(&r->c, V4, TCP, CLIENT4, CPORT, SERVER4, 554);
	plugrun_answers_reset(r->f);
}

static __attribute__((unused)) void conn6(struct run *r)
{
	conn_free(&r->c);
	conn_init(&r->c, V6, TCP, CLIENT6, CPORT, SERVER6, 554);
	plugrun_answers_reset(r->f);
}

/* The connection's next segment in dir; the counters from here. */
static int send_n(struct run *r, enum cth_dir dir, const void *text, size_t len)
{
	uint8_t *buf = dup_exact(text, len);

	counts_take(r->f, &r->before);
	r->v = run_stream(r->f, &r->c, dir, buf, len);
	free(buf);
	return r->v;
}

static int tx(struct run *r, enum cth_dir dir, const char *text)
{
	return send_n(r, dir, text, strlen(text));
}

/* ---------------------------------------------------------------- checks */

/* Expectation i: UDP, class media, from src (sport, 0: any) to dst:dport,
 * how (0 or SYNC); no NAT unless nat_addr. */
static void check_media(struct check *ck, const struct plugrun *f, unsigned int i,
			const char *src, uint16_t sport, const char *dst, uint16_t dport,
			unsigned int how)
{
	const struct cth_expect *e = &f->exp[i];
	char b1[64], b2[64];

	if (!check_that(ck, i < f->n_exp, "no expectation %u (have %u)", i, f->n_exp))
		return;
	check_that(ck, e->class == RTSP_CLASS_MEDIA && e->proto == UDP && f->exp_how[i] == how,
		   "exp %u: class %u proto %u how %#x", i, e->class, e->proto, f->exp_how[i]);
	check_that(ck, addr_is(e->family, &e->src, src) && e->sport == sport,
		   "exp %u: src %s port %u, want %s port %u", i,
		   addr_str(e->family, &e->src, b1, sizeof(b1)), e->sport, src, sport);
	check_that(ck, addr_is(e->family, &e->dst, dst) && e->dport == dport,
		   "exp %u: dst %s port %u, want %s port %u", i,
		   addr_str(e->family, &e->dst, b2, sizeof(b2)), e->dport, dst, dport);
	check_that(ck, !(e->flags & ~(unsigned int)CTH_EXPECT_NAT), "exp %u: flags %#x", i,
		   e->flags);
}

static void check_nat(struct check *ck, const struct plugrun *f, unsigned int i,
		      enum cth_dir nat_dir, const char *nat_addr, uint16_t nat_port)
{
	const struct cth_expect *e = &f->exp[i];
	char b[64];

	if (i >= f->n_exp)
		return;
	check_that(ck, (e->flags & CTH_EXPECT_NAT) &&
		   strcmp(f->exp_fn[i], CTH_EXPECT_FN_NAT_FOLLOW_MASTER) == 0,
		   "exp %u: flags %#x fn '%s'", i, e->flags, f->exp_fn[i]);
	check_that(ck, e->nat_dir == nat_dir, "exp %u: nat_dir %d", i, e->nat_dir);
	check_that(ck, addr_is(e->family, &e->nat_addr, nat_addr) && e->nat_port == nat_port,
		   "exp %u: nat %s port %u, want %s port %u", i,
		   addr_str(e->family, &e->nat_addr, b, sizeof(b)), e->nat_port, nat_addr, nat_port);
}

/* The packet passed (verdict), expectations n, nothing refused. */
static void check_run(struct check *ck, const struct run *r, int verdict, unsigned int n_exp)
{
	check_that(ck, r->v == verdict, "verdict %d, want %d", r->v, verdict);
	check_that(ck, r->f->n_exp == n_exp, "%u expectations, want %u", r->f->n_exp, n_exp);
	check_clean(ck, r->f);
}

static void check_cnt(struct check *ck, const struct run *r, const char *want)
{
	check_counts(ck, r->f, &r->before, want);
}

static unsigned int ctl_count(const struct plugrun *f, unsigned int op)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < f->n_ctl && i < PLUGRUN_MAX_CTL; i++)
		n += f->ctl[i].op == op;
	return n;
}

static const struct rtsp_priv *priv_of(const struct run *r)
{
	return (const struct rtsp_priv *)r->c.priv;
}

/* ---------------------------------------------------------------- the plugin */

static void test_desc(void)
{
	static const char *const names[RTSP_C_COUNT] = {
		"setups", "replies", "expectations", "expect_errors", "teardowns", "interleaved",
		"nat_rewrites", "untranslated", "third_party", "oversized", "malformed",
	};
	const struct cth_plugin_desc *d = &cth_plugin;
	struct check c;

	check_start(&c, "plugin_desc");
	check_that(&c, d->abi_version == CTH_ABI_VERSION && d->size == sizeof(*d), "ABI %u",
		   d->abi_version);
	check_that(&c, strcmp(d->name, "rtsp") == 0, "name %s", d->name);
	check_that(&c, d->protocols == CTH_PROTO_TCP &&
		   d->families == (CTH_FAMILY_IPV4 | CTH_FAMILY_IPV6), "protocols %#x families %#x",
		   d->protocols, d->families);
	check_that(&c, d->n_classes == 1 && strcmp(d->classes[0].name, "media") == 0 &&
		   d->classes[0].max == 32 && d->classes[0].timeout == 300, "class %s %u %u",
		   d->classes[0].name, d->classes[0].max, d->classes[0].timeout);
	check_that(&c, d->priv_size == sizeof(struct rtsp_priv) && d->priv_size <= CTH_PRIV_MAX &&
		   d->priv_version == RTSP_PRIV_VERSION && d->priv_version_at == 0 && d->priv_valid,
		   "priv %zu v%u", d->priv_size, d->priv_version);
	check_that(&c, d->n_counters == RTSP_C_COUNT, "%u counters", d->n_counters);
	for (unsigned int i = 0; i < RTSP_C_COUNT && i < d->n_counters; i++)
		check_that(&c, strcmp(d->counters[i].name, names[i]) == 0 && d->counters[i].help &&
			   *d->counters[i].help, "counter %u: %s", i, d->counters[i].name);
	check_end(&c);
}

static void test_keys(struct run *r)
{
	const struct rtsp_config *cfg = (const void *)r->c.cfg;
	char b[64];
	struct check c;

	conn4(r);
	check_start(&c, "keys_defaults");
	check_that(&c, strcmp(conn_ports_str(&r->c, "ports", b, sizeof(b)), "554") == 0,
		   "ports %s", b);
	check_that(&c, cfg->max_message == 4096 && !cfg->third_party && cfg->reverse,
		   "max_message %u third_party %d reverse %d", cfg->max_message, cfg->third_party,
		   cfg->reverse);
	check_that(&c, conn_configure(&r->c, "max_message", "255") == -EINVAL &&
		   conn_configure(&r->c, "max_message", "16385") == -EINVAL &&
		   conn_configure(&r->c, "max_message", "256") == 0 && cfg->max_message == 256,
		   "max_message bounds");
	check_that(&c, conn_configure(&r->c, "reverse", "no") == 0 && !cfg->reverse &&
		   conn_configure(&r->c, "third_party", "yes") == 0 && cfg->third_party,
		   "booleans");
	check_that(&c, conn_configure(&r->c, "ports", "554 8554") == 0 &&
		   strcmp(conn_ports_str(&r->c, "ports", b, sizeof(b)), "554,8554") == 0,
		   "ports %s", b);
	check_that(&c, conn_configure(&r->c, "destination", "x") == -ENOENT, "unknown key");
	check_end(&c);
}

/* SETUP, its reply, PLAY, TEARDOWN on one connection. */
static void test_session(struct run *r)
{
	struct check c;
	const char *s = setup(3, "RTP/AVP;unicast;client_port=5000-5001");

	conn4(r);
	check_start(&c, "setup_client_port_range");
	tx(r, O, s);
	check_run(&c, r, CTH_VERDICT_ACCEPT, 2);
	check_media(&c, r->f, 0, SERVER4, 0, CLIENT4, 5000, 0);
	check_media(&c, r->f, 1, SERVER4, 0, CLIENT4, 5001, 0);
	check_no_edit(&c, r->f);
	check_out(&c, r->f, s);
	check_cnt(&c, r, "setups=1,expectations=2");
	check_end(&c);

	check_start(&c, "reply_server_port_reverse");
	tx(r, R, reply(3, "RTP/AVP;unicast;client_port=5000-5001;server_port=6970-6971;ssrc=1A"));
	check_run(&c, r, CTH_VERDICT_ACCEPT, 2);
	check_media(&c, r->f, 0, CLIENT4, 5000, SERVER4, 6970, 0);
	check_media(&c, r->f, 1, CLIENT4, 5001, SERVER4, 6971, 0);
	check_no_edit(&c, r->f);
	check_cnt(&c, r, "replies=1,expectations=2");
	check_end(&c);

	check_start(&c, "play_untouched");
	tx(r, O, PLAY);
	check_run(&c, r, CTH_VERDICT_ACCEPT, 0);
	check_that(&c, r->f->n_ctl == 0, "%u controls", r->f->n_ctl);
	check_cnt(&c, r, "");
	check_end(&c);

	check_start(&c, "teardown_flushes");
	tx(r, O, TEARDOWN);
	check_run(&c, r, CTH_VERDICT_ACCEPT, 0);
	check_that(&c, r->f->n_ctl == 1 && ctl_count(r->f, CTH_EXPECT_OP_FLUSH) == 1 &&
		   !r->f->ctl[0].has_exp, "%u controls, op %u", r->f->n_ctl,
		   r->f->n_ctl ? r->f->ctl[0].op : 0);
	check_cnt(&c, r, "teardowns=1");
	check_end(&c);

	check_start(&c, "reverse_no");
	conn4(r);
	conn_configure(&r->c, "reverse", "no");
	tx(r, O, setup(1, "RTP/AVP;unicast;client_port=5000-5001"));
	tx(r, R, reply(1, "RTP/AVP;unicast;client_port=5000-5001;server_port=6970-6971"));
	check_run(&c, r, CTH_VERDICT_ACCEPT, 0);
	check_cnt(&c, r, "replies=1");
	check_end(&c);
}

/* RTP/AVP/TCP: nothing expected; '$' frames are skipped unread. */
static void test_interleaved(struct run *r)
{
	static const char inner[] = "\r\nSETUP rtsp://" SERVER4 "/x RTSP/1.0\r\nCSeq: 7\r\n"
				    "Transport: RTP/AVP;unicast;client_port=7000-7001\r\n\r\n";
	uint8_t frame[4 + 200];
	struct check c;

	conn4(r);
	check_start(&c, "interleaved_setup");
	tx(r, O, setup(1, "RTP/AVP/TCP;unicast;interleaved=0-1"));
	check_run(&c, r, CTH_VERDICT_ACCEPT, 0);
	check_cnt(&c, r, "setups=1,interleaved=1");
	check_end(&c);

	/* a frame of 200 bytes holding SETUP text, cut after 30 bytes */
	memset(frame, 0xa5, sizeof(frame));
	frame[0] = '$';
	frame[1] = 0;
	frame[2] = 0;
	frame[3] = 200;
	memcpy(frame + 4 + 40, inner, sizeof(inner) - 1);
	check_start(&c, "interleaved_frames_across_segments");
	send_n(r, O, frame, 34);
	check_run(&c, r, CTH_VERDICT_ACCEPT, 0);
	check_that(&c, priv_of(r)->flags & RTSP_PRIV_SKIP(O), "no skip state");
	send_n(r, O, frame + 34, sizeof(frame) - 34);
	check_run(&c, r, CTH_VERDICT_ACCEPT, 0);
	check_no_edit(&c, r->f);
	check_that(&c, r->f->out_len == sizeof(frame) - 34 &&
		   memcmp(r->f->out, frame + 34, sizeof(frame) - 34) == 0, "frame changed");
	check_that(&c, !r->f->keep_asked, "kept");
	check_cnt(&c, r, "");
	check_end(&c);
}

/* Client behind MASQUERADE: follow the master, a taken pair moves. */
static void test_nat_client(struct run *r)
{
	struct check c;

	conn4(r);
	conn_snat(&r->c, ROUTER_SV4, NAT_PORT);
	check_start(&c, "nat_masquerade_pair_free");
	tx(r, O, setup(1, "RTP/AVP;unicast;client_port=5000-5001"));
	check_run(&c, r, CTH_VERDICT_ACCEPT, 2);
	check_media(&c, r->f, 0, SERVER4, 0, ROUTER_SV4, 5000, CTH_EXPECT_SYNC);
	check_media(&c, r->f, 1, SERVER4, 0, ROUTER_SV4, 5001, CTH_EXPECT_SYNC);
	check_nat(&c, r->f, 0, R, CLIENT4, 5000);
	check_nat(&c, r->f, 1, R, CLIENT4, 5001);
	check_no_edit(&c, r->f);
	check_cnt(&c, r, "setups=1,expectations=2");
	check_end(&c);

	conn4(r);
	conn_snat(&r->c, ROUTER_SV4, NAT_PORT);
	r->f->busy[r->f->n_busy++] = 5001;
	check_start(&c, "nat_masquerade_pair_taken");
	tx(r, O, setup(1, "RTP/AVP;unicast;client_port=5000-5001"));
	/* 5000 made, 5001 busy: 5000 removed, 5002-5003 made */
	check_run(&c, r, CTH_VERDICT_ACCEPT, 4);
	check_media(&c, r->f, 2, SERVER4, 0, ROUTER_SV4, 5002, CTH_EXPECT_SYNC);
	check_media(&c, r->f, 3, SERVER4, 0, ROUTER_SV4, 5003, CTH_EXPECT_SYNC);
	check_nat(&c, r->f, 2, R, CLIENT4, 5000);
	check_nat(&c, r->f, 3, R, CLIENT4, 5001);
	check_that(&c, ctl_count(r->f, CTH_EXPECT_OP_REMOVE) == 1 &&
		   r->f->ctl[0].exp.dport == 5000, "half pair not removed");
	check_out(&c, r->f, setup(1, "RTP/AVP;unicast;client_port=5002-5003"));
	check_cnt(&c, r, "setups=1,expectations=2,nat_rewrites=1");
	check_that(&c, priv_of(r)->remap[0].orig_rtp == 5000 &&
		   priv_of(r)->remap[0].nat_rtp == 5002, "remap %u->%u",
		   priv_of(r)->remap[0].orig_rtp, priv_of(r)->remap[0].nat_rtp);
	check_end(&c);

	check_start(&c, "nat_reply_client_port_back");
	tx(r, R, reply(1, "RTP/AVP;unicast;client_port=5002-5003;server_port=6970-6971"));
	check_run(&c, r, CTH_VERDICT_ACCEPT, 2);
	check_out(&c, r->f, reply(1, "RTP/AVP;unicast;client_port=5000-5001;server_port=6970-6971"));
	check_media(&c, r->f, 0, CLIENT4, 5000, SERVER4, 6970, 0);
	check_media(&c, r->f, 1, CLIENT4, 5001, SERVER4, 6971, 0);
	check_nat(&c, r->f, 0, O, SERVER4, 6970);
	check_cnt(&c, r, "replies=1,expectations=2,nat_rewrites=1");
	check_end(&c);
}

int main(void)
{
	struct run r = { 0 };

	test_desc();
	r.f = plugrun_new();
	test_keys(&r);
	test_session(&r);
	test_interleaved(&r);
	test_nat_client(&r);
	conn_free(&r.c);
	plugrun_free(r.f);
	return check_exit();
}
