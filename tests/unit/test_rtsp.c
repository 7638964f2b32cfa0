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

static void conn6(struct run *r)
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
static void test_interleaved_lost(struct run *r);

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
	test_interleaved_lost(r);
}

/*
 * A segment shown alone in the middle of a frame (its predecessor lost or
 * reordered, the kept header dropped): binary bytes, then a line that
 * reads like a SETUP reply.  Between text messages the plugin picks up at
 * the next line; a direction that carries frames picks up only at a
 * segment's start, so the text inside the frame opens nothing.
 */
static void test_interleaved_lost(struct run *r)
{
	static const char fake[] = "\x80\xa5\x01\x02\r\nRTSP/1.0 200 OK\r\nCSeq: 3\r\n"
		"Transport: RTP/AVP;unicast;client_port=7000-7001;server_port=7100-7101\r\n\r\n";
	struct check c;

	conn4(r);
	check_start(&c, "garbage_then_reply_text_read");
	send_n(r, R, fake, sizeof(fake) - 1);
	check_run(&c, r, CTH_VERDICT_ACCEPT, 2);
	check_cnt(&c, r, "replies=1,expectations=2,malformed=1");
	check_end(&c);

	conn4(r);
	tx(r, O, setup(1, "RTP/AVP/TCP;unicast;interleaved=0-1"));
	check_start(&c, "interleaved_lost_frame_not_read");
	check_that(&c, priv_of(r)->flags & RTSP_PRIV_FRAMED(R), "reply direction not framed");
	send_n(r, R, fake, sizeof(fake) - 1);
	check_run(&c, r, CTH_VERDICT_ACCEPT, 0);
	check_no_edit(&c, r->f);
	check_cnt(&c, r, "malformed=1");
	check_end(&c);

	/* a later segment starting at a message is read again */
	check_start(&c, "interleaved_resync_at_segment_start");
	tx(r, R, reply(1, "RTP/AVP/TCP;unicast;interleaved=0-1"));
	check_run(&c, r, CTH_VERDICT_ACCEPT, 0);
	check_cnt(&c, r, "replies=1");
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
	check_exp_nat(&c, r->f, 0, R, CLIENT4, 5000);
	check_exp_nat(&c, r->f, 1, R, CLIENT4, 5001);
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
	check_exp_nat(&c, r->f, 2, R, CLIENT4, 5000);
	check_exp_nat(&c, r->f, 3, R, CLIENT4, 5001);
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
	check_exp_nat(&c, r->f, 0, O, SERVER4, 6970);
	check_cnt(&c, r, "replies=1,expectations=2,nat_rewrites=1");
	check_end(&c);
}


/* The segment again, as a retransmission (its own sequence number). */
static int retx(struct run *r, enum cth_dir dir, const char *text)
{
	size_t len = strlen(text);
	uint8_t *buf = dup_exact(text, len);

	counts_take(r->f, &r->before);
	r->v = run_ctinfo(r->f, &r->c, dir, established(dir), r->c.seq[dir] - (uint32_t)len, buf,
			  len);
	free(buf);
	return r->v;
}

/* One expectation pair per case, or none with the counters named. */
static const struct transport_case {
	const char *name;
	const char *transport;
	uint16_t rtp, rtcp;     /* 0: none expected */
	const char *counts;
} transport_cases[] = {
	{ "single_port", "RTP/AVP;unicast;client_port=5000", 5000, 5001, "setups=1,expectations=2" },
	{ "avp_udp", "RTP/AVP/UDP;unicast;client_port=5000-5001", 5000, 5001,
	  "setups=1,expectations=2" },
	{ "savpf_mode", "RTP/SAVPF;unicast;mode=\"PLAY\";client_port=7002-7003;ssrc=0", 7002, 7003,
	  "setups=1,expectations=2" },
	{ "case_blanks", "rtp/avp ; Unicast ; CLIENT_PORT = 5000-5001 ", 5000, 5001,
	  "setups=1,expectations=2" },
	{ "range_of_one", "RTP/AVP;unicast;client_port=5000-5000", 5000, 5000,
	  "setups=1,expectations=1" },
	{ "multicast", "RTP/AVP;multicast;destination=232.1.1.1;port=5000-5001;ttl=8", 0, 0,
	  "setups=1" },
	{ "other_profile", "MP2T/H2221/UDP;unicast;client_port=5000-5001", 0, 0, "setups=1" },
	{ "no_client_port", "RTP/AVP;unicast", 0, 0, "setups=1,malformed=1" },
	{ "port_zero", "RTP/AVP;unicast;client_port=0-1", 0, 0, "setups=1,malformed=1" },
	{ "port_big", "RTP/AVP;unicast;client_port=70000-70001", 0, 0, "setups=1,malformed=1" },
	{ "port_backwards", "RTP/AVP;unicast;client_port=5001-5000", 0, 0, "setups=1,malformed=1" },
	{ "port_gap", "RTP/AVP;unicast;client_port=5000-5003", 0, 0, "setups=1,malformed=1" },
	{ "port_letters", "RTP/AVP;unicast;client_port=50a0-5001", 0, 0, "setups=1,malformed=1" },
	{ "port_dash_only", "RTP/AVP;unicast;client_port=5000-", 0, 0, "setups=1,malformed=1" },
	{ "port_last", "RTP/AVP;unicast;client_port=65535", 0, 0, "setups=1,malformed=1" },
	{ "port_sign", "RTP/AVP;unicast;client_port=+5000", 0, 0, "setups=1,malformed=1" },
	{ "dest_hostname", "RTP/AVP;unicast;destination=cam.example;client_port=5000-5001", 0, 0,
	  "setups=1,malformed=1" },
	{ "third_party", "RTP/AVP;unicast;destination=" OTHER4 ";client_port=5000-5001", 0, 0,
	  "setups=1,third_party=1" },
	{ "dest_self", "RTP/AVP;unicast;destination=" CLIENT4 ";client_port=5000-5001", 5000, 5001,
	  "setups=1,expectations=2" },
	{ "v2_dest_addr", "RTP/AVP/UDP;unicast;dest_addr=\"" CLIENT4 ":5000\"/\"" CLIENT4 ":5001\"",
	  5000, 5001, "setups=1,expectations=2" },
	{ "v2_dest_addr_ports", "RTP/AVP/UDP;unicast;dest_addr=\":5000\"/\":5001\"", 5000, 5001,
	  "setups=1,expectations=2" },
	{ "v2_rtcp_mux", "RTP/AVP/UDP;unicast;dest_addr=\":5000\";RTCP-mux", 5000, 5000,
	  "setups=1,expectations=1" },
	{ "v2_two_hosts", "RTP/AVP/UDP;unicast;dest_addr=\"" CLIENT4 ":5000\"/\"" OTHER4 ":5001\"",
	  0, 0, "setups=1,malformed=1" },
	{ "v2_unquoted", "RTP/AVP/UDP;unicast;dest_addr=" CLIENT4 ":5000", 0, 0,
	  "setups=1,malformed=1" },
	{ "v2_rtcp_port_only", "RTP/AVP/UDP;unicast;dest_addr=\"" CLIENT4 "\"/\":5001\"", 0, 0,
	  "setups=1,malformed=1" },
};

static void test_transports(struct run *r)
{
	for (size_t i = 0; i < ARRAY_LEN(transport_cases); i++) {
		const struct transport_case *t = &transport_cases[i];
		unsigned int n = t->rtp == 0 ? 0 : t->rtcp == t->rtp ? 1 : 2;
		struct check c;

		conn4(r);
		check_start(&c, "transport_%s", t->name);
		tx(r, O, setup(1, t->transport));
		check_run(&c, r, CTH_VERDICT_ACCEPT, n);
		if (n)
			check_media(&c, r->f, 0, SERVER4, 0, CLIENT4, t->rtp, 0);
		if (n == 2)
			check_media(&c, r->f, 1, SERVER4, 0, CLIENT4, t->rtcp, 0);
		check_no_edit(&c, r->f);
		check_cnt(&c, r, t->counts);
		check_end(&c);
	}
}

static void test_specs_tracks(struct run *r)
{
	struct check c;
	char two[1024];

	conn4(r);
	check_start(&c, "several_specs");
	tx(r, O, setup(1, "RTP/AVP/TCP;unicast;interleaved=0-1,"
			  "RTP/AVP;unicast;client_port=5000-5001, RTP/AVP;multicast,"
			  "RTP/AVP;unicast;client_port=5010"));
	check_run(&c, r, CTH_VERDICT_ACCEPT, 4);
	check_media(&c, r->f, 0, SERVER4, 0, CLIENT4, 5000, 0);
	check_media(&c, r->f, 1, SERVER4, 0, CLIENT4, 5001, 0);
	check_media(&c, r->f, 2, SERVER4, 0, CLIENT4, 5010, 0);
	check_media(&c, r->f, 3, SERVER4, 0, CLIENT4, 5011, 0);
	check_cnt(&c, r, "setups=1,expectations=4,interleaved=1");
	check_end(&c);

	check_start(&c, "specs_max_4");
	tx(r, O, setup(2, "RTP/AVP;client_port=5000,RTP/AVP;client_port=5002,"
			  "RTP/AVP;client_port=5004,RTP/AVP;client_port=5006,RTP/AVP;client_port=5008"));
	check_run(&c, r, CTH_VERDICT_ACCEPT, 8);
	check_media(&c, r->f, 7, SERVER4, 0, CLIENT4, 5007, 0);
	check_end(&c);

	check_start(&c, "two_transport_headers");
	tx(r, O, "SETUP rtsp://" SERVER4 "/a RTSP/1.0\r\nCSeq: 3\r\ntransport: RTP/AVP;client_port=5000\r\n"
		 "TRANSPORT : RTP/AVP;client_port=5020\r\n\r\n");
	check_run(&c, r, CTH_VERDICT_ACCEPT, 4);
	check_media(&c, r->f, 2, SERVER4, 0, CLIENT4, 5020, 0);
	check_end(&c);

	/* two tracks, each SETUP and reply */
	conn4(r);
	check_start(&c, "two_tracks");
	tx(r, O, setup(1, "RTP/AVP;unicast;client_port=5000-5001"));
	check_run(&c, r, CTH_VERDICT_ACCEPT, 2);
	tx(r, R, reply(1, "RTP/AVP;unicast;client_port=5000-5001;server_port=6970-6971"));
	check_run(&c, r, CTH_VERDICT_ACCEPT, 2);
	tx(r, O, setup(2, "RTP/AVP;unicast;client_port=5002-5003"));
	check_run(&c, r, CTH_VERDICT_ACCEPT, 2);
	check_media(&c, r->f, 0, SERVER4, 0, CLIENT4, 5002, 0);
	tx(r, R, reply(2, "RTP/AVP;unicast;client_port=5002-5003;server_port=6972-6973"));
	check_run(&c, r, CTH_VERDICT_ACCEPT, 2);
	check_media(&c, r->f, 1, CLIENT4, 5003, SERVER4, 6973, 0);
	check_end(&c);

	/* several requests in one segment */
	conn4(r);
	snprintf(two, sizeof(two), "OPTIONS rtsp://" SERVER4 "/ RTSP/1.0\r\nCSeq: 1\r\n\r\n%s%s",
		 setup(2, "RTP/AVP;unicast;client_port=5000-5001"),
		 setup(3, "RTP/AVP;unicast;client_port=5002-5003"));
	check_start(&c, "several_requests_one_segment");
	tx(r, O, two);
	check_run(&c, r, CTH_VERDICT_ACCEPT, 4);
	check_media(&c, r->f, 3, SERVER4, 0, CLIENT4, 5003, 0);
	check_out(&c, r->f, two);
	check_cnt(&c, r, "setups=2,expectations=4");
	check_end(&c);

	check_start(&c, "reply_error_status");
	tx(r, R, fmt("RTSP/1.0 461 Unsupported Transport\r\nCSeq: 3\r\n"
		     "Transport: RTP/AVP;client_port=5002-5003;server_port=6970-6971\r\n\r\n"));
	check_run(&c, r, CTH_VERDICT_ACCEPT, 0);
	check_cnt(&c, r, "");
	check_end(&c);

	check_start(&c, "reply_single_server_port");
	tx(r, R, reply(3, "RTP/AVP;unicast;client_port=5002-5003;server_port=6970"));
	check_run(&c, r, CTH_VERDICT_ACCEPT, 2);
	check_media(&c, r->f, 0, CLIENT4, 5002, SERVER4, 6970, 0);
	check_media(&c, r->f, 1, CLIENT4, 5003, SERVER4, 6971, 0);
	check_end(&c);

	check_start(&c, "reply_no_server_port");
	tx(r, R, reply(3, "RTP/AVP;unicast;client_port=5002-5003"));
	check_run(&c, r, CTH_VERDICT_ACCEPT, 0);
	check_cnt(&c, r, "replies=1");
	check_end(&c);

	check_start(&c, "request_from_server_ignored");
	tx(r, R, setup(4, "RTP/AVP;unicast;client_port=5002-5003"));
	check_run(&c, r, CTH_VERDICT_ACCEPT, 0);
	check_cnt(&c, r, "");
	check_end(&c);
}

/* Messages cut across segments, bodies, retransmissions. */
static void test_segments(struct run *r)
{
	const char *s = setup(1, "RTP/AVP;unicast;client_port=5000-5001");
	size_t n = strlen(s), cut = 40, cut2 = 80;
	char body[1024];
	struct check c;

	conn4(r);
	check_start(&c, "split_setup_two");
	send_n(r, O, s, cut);
	check_run(&c, r, CTH_VERDICT_ACCEPT, 0);
	check_that(&c, r->f->keep_asked && r->f->keep_off == 0, "not kept");
	send_n(r, O, s + cut, n - cut);
	check_run(&c, r, CTH_VERDICT_ACCEPT, 2);
	check_media(&c, r->f, 1, SERVER4, 0, CLIENT4, 5001, 0);
	check_that(&c, !r->f->keep_asked, "kept again");
	check_cnt(&c, r, "setups=1,expectations=2");
	check_end(&c);

	conn4(r);
	check_start(&c, "split_setup_three");
	send_n(r, O, s, cut);
	send_n(r, O, s + cut, cut2 - cut);
	check_run(&c, r, CTH_VERDICT_ACCEPT, 0);
	check_that(&c, r->f->keep_asked && r->f->keep_off == 0, "not kept");
	send_n(r, O, s + cut2, n - cut2);
	check_run(&c, r, CTH_VERDICT_ACCEPT, 2);
	check_media(&c, r->f, 0, SERVER4, 0, CLIENT4, 5000, 0);
	check_end(&c);

	/* the start line alone, no line end yet */
	conn4(r);
	check_start(&c, "split_start_line");
	send_n(r, O, s, 10);
	check_that(&c, r->f->keep_asked, "not kept");
	send_n(r, O, s + 10, n - 10);
	check_run(&c, r, CTH_VERDICT_ACCEPT, 2);
	check_end(&c);

	conn4(r);
	check_start(&c, "retransmitted_setup");
	tx(r, O, s);
	retx(r, O, s);
	check_run(&c, r, CTH_VERDICT_ACCEPT, 2);
	check_media(&c, r->f, 0, SERVER4, 0, CLIENT4, 5000, 0);
	check_cnt(&c, r, "setups=1,expectations=2");
	check_end(&c);

	/* a body over two segments holding SETUP text, then a real one */
	conn4(r);
	{
		static const char fake[] = "\r\nSETUP rtsp://x/y RTSP/1.0\r\nTransport: RTP/AVP;"
					   "client_port=7000-7001\r\n\r\n";
		char b[400];
		size_t h;

		memset(b, 'v', sizeof(b));
		memcpy(b + 10, fake, sizeof(fake) - 1);
		memcpy(b + 250, fake, sizeof(fake) - 1);
		h = (size_t)snprintf(body, sizeof(body),
				     "SET_PARAMETER rtsp://" SERVER4 "/ RTSP/1.0\r\nCSeq: 2\r\n"
				     "Content-Type: text/parameters\r\nContent-Length: %zu\r\n\r\n",
				     sizeof(b));
		memcpy(body + h, b, sizeof(b));
		check_start(&c, "body_across_segments");
		send_n(r, O, body, h + 200);
		check_run(&c, r, CTH_VERDICT_ACCEPT, 0);
		check_that(&c, !r->f->keep_asked, "kept");
		memcpy(body, b + 200, 200);
		memcpy(body + 200, s, n);
		send_n(r, O, body, 200 + n);
		check_run(&c, r, CTH_VERDICT_ACCEPT, 2);
		check_media(&c, r->f, 0, SERVER4, 0, CLIENT4, 5000, 0);
		check_cnt(&c, r, "setups=1,expectations=2");
		check_end(&c);
	}

	/* frames and messages mixed in one segment, a frame header cut */
	conn4(r);
	{
		uint8_t seg[600];
		size_t k = 0;

		seg[k++] = '$';
		seg[k++] = 1;
		seg[k++] = 0;
		seg[k++] = 5;
		memcpy(seg + k, "SETUP", 5);
		k += 5;
		memcpy(seg + k, s, n);
		k += n;
		seg[k++] = '$';
		seg[k++] = 0;
		check_start(&c, "frames_between_messages");
		send_n(r, O, seg, k);
		check_run(&c, r, CTH_VERDICT_ACCEPT, 2);
		check_that(&c, r->f->keep_asked && r->f->keep_off == k - 2, "frame header not kept");
		seg[0] = 0;
		seg[1] = 3;
		memcpy(seg + 2, "\nXY", 3);
		memcpy(seg + 5, s, n);
		send_n(r, O, seg, 5 + n);
		check_run(&c, r, CTH_VERDICT_ACCEPT, 2);
		check_cnt(&c, r, "setups=1,expectations=2");
		check_end(&c);
	}
}

/* Garbage, bounds, bare LF. */
static void test_hostile(struct run *r)
{
	const char *s = setup(1, "RTP/AVP;unicast;client_port=5000-5001");
	char big[8192];
	struct check c;

	conn4(r);
	check_start(&c, "garbage_before_between");
	tx(r, O, fmt("\x01\x02junk\r\nHELLO\r\n%s not rtsp at all\n%s", s,
		     setup(2, "RTP/AVP;unicast;client_port=5002-5003")));
	check_run(&c, r, CTH_VERDICT_ACCEPT, 4);
	check_media(&c, r->f, 2, SERVER4, 0, CLIENT4, 5002, 0);
	check_cnt(&c, r, "setups=2,expectations=4,malformed=1");
	check_end(&c);

	conn4(r);
	check_start(&c, "bare_lf");
	tx(r, O, "SETUP rtsp://" SERVER4 "/a RTSP/1.0\nCSeq: 1\nTransport: RTP/AVP;client_port=5000\n\n");
	check_run(&c, r, CTH_VERDICT_ACCEPT, 2);
	check_end(&c);

	conn4(r);
	check_start(&c, "no_line_end");
	tx(r, O, "SETUP rtsp://" SERVER4 "/a RTSP/1.0 Transport: RTP/AVP;client_port=5000");
	check_run(&c, r, CTH_VERDICT_ACCEPT, 0);
	check_cnt(&c, r, "");
	check_end(&c);

	conn4(r);
	check_start(&c, "bad_start_lines");
	tx(r, O, "SETUP rtsp://x RTSP/1.1\r\nTransport: RTP/AVP;client_port=5000\r\n\r\n"
		 "SETUP  RTSP/1.0\r\nTransport: RTP/AVP;client_port=5000\r\n\r\n"
		 "SETUP rtsp://x HTTP/1.0\r\nTransport: RTP/AVP;client_port=5000\r\n\r\n");
	check_run(&c, r, CTH_VERDICT_ACCEPT, 0);
	check_cnt(&c, r, "malformed=1");
	check_end(&c);

	conn4(r);
	conn_configure(&r->c, "max_message", "256");
	memset(big, 0, sizeof(big));
	snprintf(big, sizeof(big), "SETUP rtsp://" SERVER4 "/a RTSP/1.0\r\nCSeq: 1\r\n"
		 "X-Pad: %0300d\r\nTransport: RTP/AVP;client_port=5000\r\n\r\n", 0);
	check_start(&c, "oversized_headers");
	tx(r, O, big);
	check_run(&c, r, CTH_VERDICT_ACCEPT, 0);
	check_that(&c, !r->f->keep_asked, "kept");
	check_cnt(&c, r, "oversized=1");
	check_end(&c);

	check_start(&c, "oversized_then_normal");
	tx(r, O, s);
	check_run(&c, r, CTH_VERDICT_ACCEPT, 2);
	check_end(&c);

	conn4(r);
	conn_configure(&r->c, "max_message", "256");
	check_start(&c, "oversized_split");
	send_n(r, O, big, 200);
	check_that(&c, r->f->keep_asked, "not kept");
	send_n(r, O, big + 200, 150);
	check_run(&c, r, CTH_VERDICT_ACCEPT, 0);
	check_cnt(&c, r, "oversized=1");
	check_end(&c);

	conn4(r);
	check_start(&c, "bad_content_length");
	tx(r, O, fmt("ANNOUNCE rtsp://x/ RTSP/1.0\r\nContent-Length: 12x\r\n\r\n%s", s));
	check_run(&c, r, CTH_VERDICT_ACCEPT, 2);
	check_cnt(&c, r, "setups=1,expectations=2,malformed=1");
	check_end(&c);

	conn4(r);
	check_start(&c, "other_port_unread");
	conn_configure(&r->c, "ports", "8554");
	tx(r, O, s);
	check_run(&c, r, CTH_VERDICT_ACCEPT, 0);
	check_cnt(&c, r, "");
	check_end(&c);

	conn4(r);
	check_start(&c, "expected_conn_unread");
	r->c.ct_status |= CTH_CT_EXPECTED;
	tx(r, O, s);
	check_run(&c, r, CTH_VERDICT_ACCEPT, 0);
	check_end(&c);

	conn4(r);
	check_start(&c, "state_corrupt_reset");
	r->c.priv[0] = RTSP_PRIV_VERSION;
	r->c.priv[1] = 0x80;
	tx(r, O, s);
	check_run(&c, r, CTH_VERDICT_ACCEPT, 2);
	check_that(&c, r->f->state_reset && priv_of(r)->flags == 0, "state kept");
	check_end(&c);

	conn4(r);
	check_start(&c, "expect_error_drops");
	r->f->expect_err = -ENOMEM;
	tx(r, O, s);
	check_that(&c, r->v == CTH_VERDICT_DROP, "verdict %d", r->v);
	check_cnt(&c, r, "setups=1,expect_errors=1");
	r->f->expect_err = -EPERM;
	tx(r, O, s);
	check_that(&c, r->v == CTH_VERDICT_ACCEPT, "EPERM verdict %d", r->v);
	check_end(&c);
}

/* IPv6, RTSP 2.0's syntax, third_party. */
static void test_v6_v2(struct run *r)
{
	struct check c;

	conn6(r);
	check_start(&c, "ipv6_destination");
	tx(r, O, setup(1, "RTP/AVP;unicast;destination=" CLIENT6 ";client_port=5000-5001"));
	check_run(&c, r, CTH_VERDICT_ACCEPT, 2);
	check_media(&c, r->f, 0, SERVER6, 0, CLIENT6, 5000, 0);
	check_end(&c);

	check_start(&c, "ipv6_destination_brackets");
	tx(r, O, setup(2, "RTP/AVP;unicast;destination=[" CLIENT6 "];client_port=5002-5003"));
	check_run(&c, r, CTH_VERDICT_ACCEPT, 2);
	check_media(&c, r->f, 1, SERVER6, 0, CLIENT6, 5003, 0);
	check_end(&c);

	check_start(&c, "ipv6_v2_dest_addr");
	tx(r, O, fmt("SETUP rtsp://[" SERVER6 "]/a RTSP/2.0\r\nCSeq: 3\r\nTransport: RTP/AVP/UDP;"
		     "unicast;dest_addr=\"[" CLIENT6 "]:5004\"/\"[" CLIENT6 "]:5005\"\r\n\r\n"));
	check_run(&c, r, CTH_VERDICT_ACCEPT, 2);
	check_media(&c, r->f, 0, SERVER6, 0, CLIENT6, 5004, 0);
	check_media(&c, r->f, 1, SERVER6, 0, CLIENT6, 5005, 0);
	check_end(&c);

	check_start(&c, "ipv6_v2_src_addr_reply");
	tx(r, R, fmt("RTSP/2.0 200 OK\r\nCSeq: 3\r\nTransport: RTP/AVP/UDP;unicast;dest_addr=\"["
		     CLIENT6 "]:5004\"/\"[" CLIENT6 "]:5005\";src_addr=\"[" SERVER6 "]:6970\"/\"["
		     SERVER6 "]:6971\"\r\n\r\n"));
	check_run(&c, r, CTH_VERDICT_ACCEPT, 2);
	check_media(&c, r->f, 0, CLIENT6, 5004, SERVER6, 6970, 0);
	check_media(&c, r->f, 1, CLIENT6, 5005, SERVER6, 6971, 0);
	check_cnt(&c, r, "replies=1,expectations=2");
	check_end(&c);

	check_start(&c, "v2_rtcp_mux_reply");
	tx(r, R, "RTSP/2.0 200 OK\r\nCSeq: 4\r\nTransport: RTP/AVP/UDP;unicast;dest_addr=\":5006\";"
		 "src_addr=\":6972\";RTCP-mux\r\n\r\n");
	check_run(&c, r, CTH_VERDICT_ACCEPT, 1);
	check_media(&c, r->f, 0, CLIENT6, 5006, SERVER6, 6972, 0);
	check_end(&c);

	check_start(&c, "ipv6_wrong_family");
	tx(r, O, setup(5, "RTP/AVP;unicast;destination=" CLIENT4 ";client_port=5000-5001"));
	check_run(&c, r, CTH_VERDICT_ACCEPT, 0);
	check_cnt(&c, r, "setups=1,malformed=1");
	check_end(&c);

	conn4(r);
	check_start(&c, "third_party_yes");
	conn_configure(&r->c, "third_party", "yes");
	tx(r, O, setup(1, "RTP/AVP;unicast;destination=" OTHER4 ";client_port=5000-5001"));
	check_run(&c, r, CTH_VERDICT_ACCEPT, 2);
	check_media(&c, r->f, 0, SERVER4, 0, OTHER4, 5000, 0);
	check_that(&c, r->f->exp[0].flags == 0, "flags %#x", r->f->exp[0].flags);
	check_cnt(&c, r, "setups=1,expectations=2");
	check_end(&c);

	check_start(&c, "third_party_reply_source");
	conn_configure(&r->c, "third_party", "no");
	tx(r, R, reply(1, "RTP/AVP;unicast;client_port=5000-5001;source=" OTHER4
		       ";server_port=6970-6971"));
	check_run(&c, r, CTH_VERDICT_ACCEPT, 0);
	check_cnt(&c, r, "replies=1,third_party=1");
	check_end(&c);
}

/* NAT: destination=, DNAT with source=, split under NAT. */
static void test_nat_more(struct run *r)
{
	const char *s;
	struct check c;

	conn4(r);
	conn_snat(&r->c, ROUTER_SV4, NAT_PORT);
	check_start(&c, "nat_destination_rewrite");
	tx(r, O, setup(1, "RTP/AVP;unicast;destination=" CLIENT4 ";client_port=5000-5001"));
	check_run(&c, r, CTH_VERDICT_ACCEPT, 2);
	check_media(&c, r->f, 0, SERVER4, 0, ROUTER_SV4, 5000, CTH_EXPECT_SYNC);
	check_exp_nat(&c, r->f, 0, R, CLIENT4, 5000);
	check_out(&c, r->f, setup(1, "RTP/AVP;unicast;destination=" ROUTER_SV4 ";client_port=5000-5001"));
	check_cnt(&c, r, "setups=1,expectations=2,nat_rewrites=1");
	check_end(&c);

	check_start(&c, "nat_retransmitted_setup_same_rewrite");
	r->f->busy[r->f->n_busy++] = 5002;
	s = setup(2, "RTP/AVP;unicast;client_port=5002-5003");
	tx(r, O, s);
	check_out(&c, r->f, setup(2, "RTP/AVP;unicast;client_port=5004-5005"));
	retx(r, O, s);
	check_run(&c, r, CTH_VERDICT_ACCEPT, 3);
	check_out(&c, r->f, setup(2, "RTP/AVP;unicast;client_port=5004-5005"));
	check_cnt(&c, r, "setups=1,expectations=2,nat_rewrites=1");
	check_end(&c);

	check_start(&c, "nat_v2_dest_addr_rewrite");
	r->f->n_busy = 0;
	r->f->busy[r->f->n_busy++] = 5011;
	tx(r, O, fmt("SETUP rtsp://" SERVER4 "/a RTSP/2.0\r\nCSeq: 3\r\nTransport: RTP/AVP/UDP;"
		     "unicast;dest_addr=\"" CLIENT4 ":5010\"/\"" CLIENT4 ":5011\"\r\n\r\n"));
	check_out(&c, r->f, fmt("SETUP rtsp://" SERVER4 "/a RTSP/2.0\r\nCSeq: 3\r\nTransport: "
				"RTP/AVP/UDP;unicast;dest_addr=\"" ROUTER_SV4 ":5012\"/\"" ROUTER_SV4
				":5013\"\r\n\r\n"));
	check_end(&c);

	check_start(&c, "nat_remap_slots");
	check_that(&c, priv_of(r)->remap[0].orig_rtp == 5002 && priv_of(r)->remap[0].nat_rtp == 5004 &&
		   priv_of(r)->remap[1].orig_rtp == 5010 && priv_of(r)->remap[1].nat_rtp == 5012,
		   "slots %u->%u %u->%u", priv_of(r)->remap[0].orig_rtp, priv_of(r)->remap[0].nat_rtp,
		   priv_of(r)->remap[1].orig_rtp, priv_of(r)->remap[1].nat_rtp);
	tx(r, O, TEARDOWN);
	check_that(&c, priv_of(r)->remap[0].nat_rtp == 0 && priv_of(r)->remap[1].nat_rtp == 0,
		   "slots kept after TEARDOWN");
	check_end(&c);

	/* the server behind DNAT: 198.51.100.1 is what the client dialled */
	conn4(r);
	conn_dnat(&r->c, "198.51.100.1", 554);
	check_start(&c, "dnat_server_setup");
	tx(r, O, setup(1, "RTP/AVP;unicast;client_port=5000-5001"));
	check_run(&c, r, CTH_VERDICT_ACCEPT, 2);
	check_media(&c, r->f, 0, SERVER4, 0, CLIENT4, 5000, CTH_EXPECT_SYNC);
	check_exp_nat(&c, r->f, 0, R, CLIENT4, 5000);
	check_no_edit(&c, r->f);
	check_end(&c);

	check_start(&c, "dnat_source_rewrite");
	tx(r, R, reply(1, "RTP/AVP;unicast;client_port=5000-5001;source=" SERVER4
		       ";server_port=6970-6971"));
	check_run(&c, r, CTH_VERDICT_ACCEPT, 2);
	check_out(&c, r->f, reply(1, "RTP/AVP;unicast;client_port=5000-5001;source=198.51.100.1"
				  ";server_port=6970-6971"));
	check_media(&c, r->f, 0, CLIENT4, 5000, "198.51.100.1", 6970, 0);
	check_exp_nat(&c, r->f, 0, O, SERVER4, 6970);
	check_cnt(&c, r, "replies=1,expectations=2,nat_rewrites=1");
	check_end(&c);

	/* split under NAT: client_port in the kept bytes, its pair taken */
	conn4(r);
	conn_snat(&r->c, ROUTER_SV4, NAT_PORT);
	s = setup(1, "RTP/AVP;unicast;client_port=5000-5001");
	r->f->busy[r->f->n_busy++] = 5001;
	check_start(&c, "nat_split_untranslated");
	send_n(r, O, s, strlen(s) - 30);
	check_that(&c, r->f->keep_asked, "not kept");
	send_n(r, O, s + strlen(s) - 30, 30);
	check_that(&c, r->v == CTH_VERDICT_ACCEPT, "verdict %d", r->v);
	check_no_edit(&c, r->f);
	check_that(&c, ctl_count(r->f, CTH_EXPECT_OP_REMOVE) == 1, "half pair kept");
	check_cnt(&c, r, "setups=1,untranslated=1");
	check_end(&c);

	/* split under NAT, no rewrite needed: handled */
	conn4(r);
	conn_snat(&r->c, ROUTER_SV4, NAT_PORT);
	check_start(&c, "nat_split_no_rewrite");
	send_n(r, O, s, strlen(s) - 30);
	send_n(r, O, s + strlen(s) - 30, 30);
	check_run(&c, r, CTH_VERDICT_ACCEPT, 2);
	check_no_edit(&c, r->f);
	check_cnt(&c, r, "setups=1,expectations=2");
	check_end(&c);

	/* split under NAT, destination= in the kept bytes needs a rewrite */
	conn4(r);
	conn_snat(&r->c, ROUTER_SV4, NAT_PORT);
	s = setup(1, "RTP/AVP;unicast;destination=" CLIENT4 ";client_port=5000-5001");
	check_start(&c, "nat_split_destination_untranslated");
	send_n(r, O, s, strlen(s) - 30);
	send_n(r, O, s + strlen(s) - 30, 30);
	check_run(&c, r, CTH_VERDICT_ACCEPT, 0);
	check_cnt(&c, r, "setups=1,untranslated=1");
	check_end(&c);

	/* no free pair at all */
	conn4(r);
	conn_snat(&r->c, ROUTER_SV4, NAT_PORT);
	r->f->busy_left = 1000;
	check_start(&c, "nat_no_free_pair_drops");
	tx(r, O, setup(1, "RTP/AVP;unicast;client_port=5000-5001"));
	check_that(&c, r->v == CTH_VERDICT_DROP, "verdict %d", r->v);
	check_that(&c, r->f->n_exp == 16, "%u tries", r->f->n_exp);
	check_cnt(&c, r, "setups=1,expect_errors=1");
	check_end(&c);
}

/* ---------------------------------------------------------------- parsers */

static void test_parse(void)
{
	struct rtsp_spec sp[RTSP_SPECS_MAX];
	struct rtsp_msg m;
	struct check c;
	const char *t;
	unsigned int n;

	check_start(&c, "parse_request");
	t = "SETUP rtsp://a/b RTSP/1.0\r\nCSeq: 1\r\nContent-Length: 3\r\n\r\nabcX";
	check_that(&c, rtsp_msg_parse((const uint8_t *)t, strlen(t), 0, 4096, &m) == RTSP_PARSE_OK &&
		   m.kind == RTSP_KIND_REQUEST && m.version == 10 && m.method.len == 5 &&
		   m.head_end == strlen(t) - 4 && m.end == strlen(t) - 1,
		   "kind %d v%u head_end %zu end %llu", m.kind, m.version, m.head_end,
		   (unsigned long long)m.end);
	check_that(&c, rtsp_method_is((const uint8_t *)t, &m, "SETUP") &&
		   !rtsp_method_is((const uint8_t *)t, &m, "setup"), "method");
	check_end(&c);

	check_start(&c, "parse_status");
	t = "RTSP/2.0 201 Created\r\n\r\n";
	check_that(&c, rtsp_msg_parse((const uint8_t *)t, strlen(t), 0, 4096, &m) == RTSP_PARSE_OK &&
		   m.kind == RTSP_KIND_STATUS && m.status == 201 && m.version == 20 &&
		   m.end == strlen(t), "kind %d status %u", m.kind, m.status);
	t = "RTSP/1.0 20 OK\r\n\r\n";
	check_that(&c, rtsp_msg_parse((const uint8_t *)t, strlen(t), 0, 4096, &m) ==
		   RTSP_PARSE_GARBAGE, "short status");
	check_end(&c);

	check_start(&c, "parse_frame");
	t = "$\001\001\000";
	check_that(&c, rtsp_msg_parse((const uint8_t *)t, 4, 0, 4096, &m) == RTSP_PARSE_OK &&
		   m.kind == RTSP_KIND_FRAME && m.end == 4 + 256, "end %llu",
		   (unsigned long long)m.end);
	check_that(&c, rtsp_msg_parse((const uint8_t *)t, 3, 0, 4096, &m) == RTSP_PARSE_MORE,
		   "cut header");
	check_end(&c);

	check_start(&c, "parse_more_garbage");
	t = "SETUP rtsp://a/b RTSP/1.0\r\nCSeq: 1\r\n";
	check_that(&c, rtsp_msg_parse((const uint8_t *)t, strlen(t), 0, 4096, &m) == RTSP_PARSE_MORE,
		   "headers cut");
	check_that(&c, rtsp_msg_parse((const uint8_t *)t, strlen(t), 0, 30, &m) ==
		   RTSP_PARSE_OVERSIZED, "bound");
	t = "\x80\x81garbage";
	check_that(&c, rtsp_msg_parse((const uint8_t *)t, strlen(t), 0, 4096, &m) ==
		   RTSP_PARSE_GARBAGE, "binary kept");
	check_that(&c, rtsp_line_next((const uint8_t *)"ab\ncd", 5, 0) == 3 &&
		   rtsp_line_next((const uint8_t *)"abcd", 4, 1) == 4, "line_next");
	check_end(&c);

	check_start(&c, "parse_transport_v1");
	t = "x RTP/AVP;unicast;client_port=5000-5001;server_port=6970;source=10.0.2.2,RTP/AVP/TCP;"
	    "interleaved=0-1";
	n = rtsp_transport_parse((const uint8_t *)t, 2, strlen(t) - 2, V4, sp, RTSP_SPECS_MAX);
	check_that(&c, n == 2 && sp[0].lower == RTSP_LOWER_UDP && sp[1].lower == RTSP_LOWER_TCP,
		   "%u specs", n);
	check_that(&c, sp[0].client.n == 2 && sp[0].client.port[0].val == 5000 &&
		   sp[0].client.port[1].val == 5001 && sp[0].client.port[0].text.off == 30 &&
		   sp[0].client.port[0].text.len == 4 && sp[0].client.port[1].text.off == 35,
		   "client_port %u@%zu", sp[0].client.port[0].val, sp[0].client.port[0].text.off);
	check_that(&c, sp[0].server.n == 1 && sp[0].server.port[0].val == 6970 && sp[0].src.set &&
		   sp[0].src.n == 1 && sp[0].src.text[0].off == 64 && sp[0].src.text[0].len == 8 &&
		   addr_is(V4, &sp[0].src.addr, "10.0.2.2"), "server_port/source");
	check_end(&c);

	check_start(&c, "parse_transport_v2");
	t = "RTP/AVP/UDP;dest_addr=\"[fd00::1]:5000\"/\"[fd00::1]:5001\";RTCP-mux;mode=\"PLAY\"";
	n = rtsp_transport_parse((const uint8_t *)t, 0, strlen(t), V6, sp, RTSP_SPECS_MAX);
	check_that(&c, n == 1 && !sp[0].bad && sp[0].rtcp_mux && sp[0].client.n == 2 &&
		   sp[0].dest.set && sp[0].dest.n == 2 && addr_is(V6, &sp[0].dest.addr, "fd00::1") &&
		   sp[0].dest.text[0].off == 24 && sp[0].dest.text[0].len == 7, "dest_addr");
	t = "RTP/AVP;dest_addr=\"fd00::1\"";
	n = rtsp_transport_parse((const uint8_t *)t, 0, strlen(t), V6, sp, RTSP_SPECS_MAX);
	check_that(&c, n == 1 && !sp[0].bad && sp[0].dest.set && sp[0].client.n == 0,
		   "bare v6 host");
	t = ",, ,RTP/AVP;client_port=5000";
	n = rtsp_transport_parse((const uint8_t *)t, 0, strlen(t), V4, sp, RTSP_SPECS_MAX);
	check_that(&c, n == 1 && sp[0].client.n == 1, "empty specs: %u", n);
	check_end(&c);
}

/* Mutated sessions: never a refused host call, never more than the
 * host's bound, the parser's offsets within the buffer. */
static void test_fuzz(struct run *r)
{
	static const struct mutate_how how = {
		.alphabet = "RTSP/1.0 \r\n:;,=-\"[]$0123456789abcdefclient_port",
		.max_edits = 6, .n_ops = 7, .trunc_one_in = 8,
	};
	const char *seeds[] = {
		setup(1, "RTP/AVP;unicast;client_port=5000-5001,RTP/AVP/TCP;interleaved=0-1"),
		reply(1, "RTP/AVP;unicast;client_port=5000-5001;server_port=6970-6971;source=" SERVER4),
		"SETUP rtsp://a RTSP/2.0\r\nTransport: RTP/AVP/UDP;dest_addr=\"" CLIENT4 ":5000\"/\":5001\""
		";RTCP-mux\r\nContent-Length: 4\r\n\r\n$\0\0\5",
		TEARDOWN,
	};
	unsigned int bad = 0, runs = 0, exps = 0;
	struct check c;

	check_start(&c, "fuzz_sessions");
	for (unsigned int i = 0; i < 3000; i++) {
		const char *seed = seeds[rng_below(ARRAY_LEN(seeds))];
		uint8_t buf[2048];
		size_t len = strlen(seed);
		enum cth_dir dir = (seed[0] == 'R') ? R : O;

		if (i % 50 == 0) {
			conn4(r);
			if (i % 100 == 0)
				conn_snat(&r->c, ROUTER_SV4, NAT_PORT);
			if (i % 150 == 0)
				r->f->busy[r->f->n_busy++] = 5001;
		}
		memcpy(buf, seed, len);
		fuzz_mutate(&how, buf, &len, sizeof(buf));
		if (len == 0)
			continue;
		send_n(r, dir, buf, len);
		runs++;
		exps += r->f->n_exp;
		if (r->f->n_bad)
			bad++;
		check_that(&c, r->f->n_bad == 0, "run %u: %s", i, r->f->bad);
		check_that(&c, r->v == CTH_VERDICT_ACCEPT || r->v == CTH_VERDICT_DROP, "verdict");
		check_that(&c, state_ok(r->c.priv), "state");
	}
	printf("# fuzz: %u runs, %u expectations, %u bad\n", runs, exps, bad);
	check_end(&c);
}

int main(void)
{
	struct run r = { 0 };

	test_parse();
	test_desc();
	r.f = plugrun_new();
	test_keys(&r);
	test_session(&r);
	test_interleaved(&r);
	test_nat_client(&r);
	test_transports(&r);
	test_specs_tracks(&r);
	test_segments(&r);
	test_hostile(&r);
	test_v6_v2(&r);
	test_nat_more(&r);
	test_fuzz(&r);
	conn_free(&r.c);
	plugrun_free(r.f);
	return check_exit();
}
