/* SPDX-License-Identifier: MIT */
/*
 * SANE plugin unit test: the plugin's packet callback on the daemon's
 * host code (plugrun.h): a scan over IPv4 and IPv6; SANE_NET_START and
 * its reply split across segments (kept bytes) or followed by more;
 * other requests, long ones over several segments, replies that answer
 * no START; port 0, a port word above 65535, a failed status; DNAT of
 * the server (nat-follow-master), a port taken on the dialled address
 * (moved and rewritten, or not when already forwarded); expectation
 * errors; the private state's version; deterministic fuzzing of the
 * exchange.
 *
 * Output: one "PASS name" / "FAIL name: why" line per check; exit status 1
 * when anything failed.
 */
#define PLUGTEST_RNG_SEED 0x5a4e000019a6ull
#include "plugtest.h"

#include "runtime/keys.h"
#include "../../plugins/sane/sane.h"

#define CLIENT4 "10.0.1.2"
#define SERVER4 "10.0.2.2"
#define ROUTER_CL4 "10.0.1.1"
#define CLIENT6 "fd00:1::2"
#define SERVER6 "fd00:2::2"
#define ROUTER_CL6 "fd00:1::1"
#define CPORT 40000

/* words, big-endian */
#define W(a) (uint8_t)((a) >> 24), (uint8_t)((a) >> 16), (uint8_t)((a) >> 8), (uint8_t)(a)

static const uint8_t init_req[] = { W(0), W(0x01000003), W(5), 's', 'c', 'a', 'n', 0 };
static const uint8_t init_rep[] = { W(0), W(0x01000003) };
static const uint8_t start_req[] = { W(7), W(0) };
static const uint8_t start_rep[] = { W(0), W(50000), W(0x1234), W(0) };

/* ---------------------------------------------------------------- runs */

struct run {
	struct plugrun *f;
	struct conn c;
	struct counts before;
	int v;
};

static void conn_new(struct run *r, int family)
{
	conn_free(&r->c);
	if (family == V6)
		conn_init(&r->c, V6, TCP, CLIENT6, CPORT, SERVER6, 6566);
	else
		conn_init(&r->c, V4, TCP, CLIENT4, CPORT, SERVER4, 6566);
	plugrun_answers_reset(r->f);
}

static int send_n(struct run *r, enum cth_dir dir, const void *bytes, size_t len)
{
	uint8_t *buf = dup_exact(bytes, len);

	counts_take(r->f, &r->before);
	r->v = run_stream(r->f, &r->c, dir, buf, len);
	free(buf);
	return r->v;
}

#define SEND(r, dir, arr) send_n(r, dir, arr, sizeof(arr))

/* INIT and its reply: the state a scan's START follows. */
static void hello(struct run *r)
{
	SEND(r, O, init_req);
	SEND(r, R, init_rep);
}

static void check_data(struct check *ck, const struct plugrun *f, unsigned int i,
		       const char *src, const char *dst, uint16_t dport)
{
	const struct cth_expect *e = &f->exp[i];
	char b1[64], b2[64];

	if (!check_that(ck, i < f->n_exp, "no expectation %u (have %u)", i, f->n_exp))
		return;
	check_that(ck, e->class == SANE_CLASS && e->proto == TCP && e->sport == 0,
		   "class %u proto %u sport %u", e->class, e->proto, e->sport);
	check_that(ck, addr_is(e->family, &e->src, src) && addr_is(e->family, &e->dst, dst) &&
		   e->dport == dport, "%s > %s:%u, want %s > %s:%u",
		   addr_str(e->family, &e->src, b1, sizeof(b1)),
		   addr_str(e->family, &e->dst, b2, sizeof(b2)), e->dport, src, dst, dport);
	check_that(ck, !(e->flags & ~(unsigned int)CTH_EXPECT_NAT), "flags %#x", e->flags);
}

static void check_run(struct check *ck, const struct run *r, int verdict, unsigned int n_exp,
		      const char *counts)
{
	check_that(ck, r->v == verdict, "verdict %d, want %d", r->v, verdict);
	check_that(ck, r->f->n_exp == n_exp, "%u expectations, want %u", r->f->n_exp, n_exp);
	check_clean(ck, r->f);
	check_counts(ck, r->f, &r->before, counts);
	check_that(ck, state_ok(r->c.priv), "state version");
}

/* ---------------------------------------------------------------- descriptor */

static void test_desc(void)
{
	const struct cth_plugin_desc *d = &cth_plugin;
	struct check c;

	check_start(&c, "plugin_desc");
	check_that(&c, d->abi_version == CTH_ABI_VERSION && strcmp(d->name, "sane") == 0, "name");
	check_that(&c, d->protocols == CTH_PROTO_TCP &&
		   d->families == (CTH_FAMILY_IPV4 | CTH_FAMILY_IPV6), "protocols, families");
	check_that(&c, d->priv_size == sizeof(struct sane_priv) &&
		   d->priv_version == SANE_PRIV_VERSION && d->priv_version_at == 0 &&
		   d->priv_valid, "private state");
	/* the kernel's policy: one data connection, 5 min */
	check_that(&c, d->n_classes == 1 && strcmp(d->classes[0].name, "sane") == 0 &&
		   d->classes[0].max == 1 && d->classes[0].timeout == 300, "class");
	check_end(&c);

	check_start(&c, "plugin_keys_parsed");
	{
		struct sane_config cfg;
		char err[256] = "";
		uint16_t rp[4];

		check_that(&c, keys_decl_check(d, err, sizeof(err)) == 0, "declarations: %s", err);
		memset(&cfg, 0, sizeof(cfg));
		check_that(&c, d->n_keys == 1 && keys_parse(&d->keys[0], d->keys[0].def, &cfg) == 0 &&
			   cfg.ports.n == 1 && cfg.ports.port[0] == 6566, "ports = 6566");
		check_that(&c, keys_rule_ports(d, &cfg, rp, 4) == 1 && rp[0] == 6566,
			   "--print-rules port");
	}
	check_end(&c);

	check_start(&c, "plugin_counters");
	{
		static const char *const names[SANE_C_COUNT] = {
			"starts", "expectations", "expect_errors", "start_failed", "port_zero",
			"malformed", "nat_rewrites",
		};

		check_that(&c, d->n_counters == SANE_C_COUNT, "%u counters", d->n_counters);
		for (unsigned int i = 0; i < SANE_C_COUNT && i < d->n_counters; i++)
			check_that(&c, strcmp(d->counters[i].name, names[i]) == 0 &&
				   d->counters[i].help, "counter %u", i);
	}
	check_end(&c);

	check_start(&c, "priv_valid");
	{
		struct sane_priv p = { SANE_PRIV_VERSION, SANE_S_REPLY };

		check_that(&c, d->priv_valid(&p), "a known state");
		p.state = SANE_S_COUNT;
		check_that(&c, !d->priv_valid(&p), "an unknown state");
	}
	check_end(&c);
}

/* ---------------------------------------------------------------- routed */

static void test_scan(struct run *r)
{
	struct check ck;

	for (int v6 = 0; v6 < 2; v6++) {
		check_start(&ck, "scan_%s", v6 ? "v6" : "v4");
		conn_new(r, v6 ? V6 : V4);
		hello(r);
		SEND(r, O, start_req);
		check_run(&ck, r, CTH_VERDICT_ACCEPT, 0, "starts=1");
		SEND(r, R, start_rep);
		check_run(&ck, r, CTH_VERDICT_ACCEPT, 1, "expectations=1");
		check_data(&ck, r->f, 0, v6 ? CLIENT6 : CLIENT4, v6 ? SERVER6 : SERVER4, 50000);
		check_that(&ck, r->f->exp_how[0] == 0 && r->f->exp[0].fn == NULL, "no NAT");
		check_no_edit(&ck, r->f);
		check_end(&ck);
	}

	/* the reply's rest (a long resource name) in the next segment is
	 * not read as a reply's start */
	check_start(&ck, "reply_rest_ignored");
	{
		static const uint8_t rest[] = { W(0), W(50001), W(0), W(0) };

		SEND(r, R, rest);
		check_run(&ck, r, CTH_VERDICT_ACCEPT, 0, "");
	}
	check_end(&ck);

	/* the client's next START: a second data connection */
	check_start(&ck, "second_start");
	SEND(r, O, start_req);
	SEND(r, R, start_rep);
	check_run(&ck, r, CTH_VERDICT_ACCEPT, 1, "expectations=1");
	check_end(&ck);

	check_start(&ck, "data_connection_passed");
	conn_new(r, V4);
	r->c.ct_status |= CTH_CT_EXPECTED;
	SEND(r, O, start_req);
	SEND(r, R, start_rep);
	check_run(&ck, r, CTH_VERDICT_ACCEPT, 0, "");
	check_end(&ck);
}

/* ---------------------------------------------------------------- segmentation */

static void test_split(struct run *r)
{
	struct check ck;

	/* word by word: the kernel needs an 8-byte segment */
	check_start(&ck, "split_request_words");
	conn_new(r, V4);
	hello(r);
	send_n(r, O, start_req, 4);
	check_that(&ck, r->f->keep_asked && r->f->keep_off == 0, "first word kept");
	check_run(&ck, r, CTH_VERDICT_ACCEPT, 0, "");
	send_n(r, O, start_req + 4, 4);
	check_run(&ck, r, CTH_VERDICT_ACCEPT, 0, "starts=1");
	check_end(&ck);

	check_start(&ck, "split_reply_status_then_port");
	send_n(r, R, start_rep, 4);
	check_that(&ck, r->f->keep_asked, "status kept");
	check_run(&ck, r, CTH_VERDICT_ACCEPT, 0, "");
	send_n(r, R, start_rep + 4, sizeof(start_rep) - 4);
	check_run(&ck, r, CTH_VERDICT_ACCEPT, 1, "expectations=1");
	check_data(&ck, r->f, 0, CLIENT4, SERVER4, 50000);
	check_end(&ck);

	check_start(&ck, "split_reply_byte_by_byte");
	SEND(r, O, start_req);
	for (size_t i = 0; i < 7; i++) {
		send_n(r, R, start_rep + i, 1);
		check_that(&ck, r->f->n_exp == 0 && r->f->keep_asked, "byte %zu", i);
	}
	send_n(r, R, start_rep + 7, sizeof(start_rep) - 7);
	check_run(&ck, r, CTH_VERDICT_ACCEPT, 1, "expectations=1");
	check_end(&ck);

	check_start(&ck, "split_request_three_parts");
	SEND(r, O, init_req);
	SEND(r, R, init_rep);
	send_n(r, O, start_req, 2);
	send_n(r, O, start_req + 2, 3);
	check_that(&ck, r->f->keep_asked, "kept again");
	send_n(r, O, start_req + 5, 3);
	check_run(&ck, r, CTH_VERDICT_ACCEPT, 0, "starts=1");
	SEND(r, R, start_rep);
	check_run(&ck, r, CTH_VERDICT_ACCEPT, 1, "expectations=1");
	check_end(&ck);

	/* START and more bytes in one segment (the kernel wants exactly 8) */
	check_start(&ck, "coalesced_request");
	{
		static const uint8_t more[] = { W(7), W(0), W(8), W(0) };

		SEND(r, O, more);
		check_run(&ck, r, CTH_VERDICT_ACCEPT, 0, "starts=1");
		SEND(r, R, start_rep);
		check_run(&ck, r, CTH_VERDICT_ACCEPT, 1, "expectations=1");
	}
	check_end(&ck);

	/* a long request over two segments whose second starts like START */
	check_start(&ck, "request_continuation_not_start");
	{
		static const uint8_t opt[] = { W(5), W(0), W(2), W(1), W(1), W(4) };

		SEND(r, O, opt);
		SEND(r, O, start_req);
		check_run(&ck, r, CTH_VERDICT_ACCEPT, 0, "");
		SEND(r, R, start_rep);
		check_run(&ck, r, CTH_VERDICT_ACCEPT, 0, "");
	}
	check_end(&ck);

	/* a reply nobody asked START for */
	check_start(&ck, "reply_without_start");
	SEND(r, O, init_req);
	SEND(r, R, start_rep);
	check_run(&ck, r, CTH_VERDICT_ACCEPT, 0, "");
	check_end(&ck);
}

/* ---------------------------------------------------------------- refused */

static void test_refused(struct run *r)
{
	static const struct {
		const char *name;
		uint8_t rep[8];
		const char *counts;
	} cases[] = {
		{ "port_zero", { W(0), W(0) }, "port_zero=1" },
		{ "status_denied", { W(11), W(50000) }, "start_failed=1" },
		{ "status_no_mem", { W(10), W(50000) }, "start_failed=1" },
		{ "port_word_high", { W(0), W(0x0001c350) }, "malformed=1" },
		{ "port_word_all_ones", { W(0), W(0xffffffff) }, "malformed=1" },
	};
	struct check ck;

	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		check_start(&ck, "refused_%s", cases[i].name);
		conn_new(r, V4);
		hello(r);
		SEND(r, O, start_req);
		SEND(r, R, cases[i].rep);
		check_run(&ck, r, CTH_VERDICT_ACCEPT, 0, cases[i].counts);
		check_end(&ck);
	}

	/* after port 0 (an authorisation), the next START still works */
	check_start(&ck, "after_port_zero");
	SEND(r, O, start_req);
	SEND(r, R, start_rep);
	check_run(&ck, r, CTH_VERDICT_ACCEPT, 1, "expectations=1");
	check_end(&ck);
}

/* ---------------------------------------------------------------- NAT */

static void test_nat(struct run *r)
{
	struct check ck;

	/* saned port-forwarded: the data connection to the dialled address
	 * follows the master to the real server */
	check_start(&ck, "nat_dnat_server");
	conn_new(r, V4);
	conn_dnat(&r->c, ROUTER_CL4, 6566);
	hello(r);
	SEND(r, O, start_req);
	SEND(r, R, start_rep);
	check_run(&ck, r, CTH_VERDICT_ACCEPT, 1, "expectations=1");
	check_data(&ck, r->f, 0, CLIENT4, ROUTER_CL4, 50000);
	check_exp_nat(&ck, r->f, 0, O, SERVER4, 50000);
	check_no_edit(&ck, r->f);
	check_end(&ck);

	check_start(&ck, "nat_dnat_v6");
	conn_new(r, V6);
	conn_dnat(&r->c, ROUTER_CL6, 6566);
	hello(r);
	SEND(r, O, start_req);
	SEND(r, R, start_rep);
	check_run(&ck, r, CTH_VERDICT_ACCEPT, 1, "expectations=1");
	check_data(&ck, r->f, 0, CLIENT6, ROUTER_CL6, 50000);
	check_exp_nat(&ck, r->f, 0, O, SERVER6, 50000);
	check_end(&ck);

	/* the port taken on the dialled address: the next, rewritten */
	check_start(&ck, "nat_busy_rewritten");
	conn_new(r, V4);
	conn_dnat(&r->c, ROUTER_CL4, 6566);
	hello(r);
	SEND(r, O, start_req);
	r->f->busy[r->f->n_busy++] = 50000;
	SEND(r, R, start_rep);
	check_run(&ck, r, CTH_VERDICT_ACCEPT, 2, "expectations=1,nat_rewrites=1");
	check_that(&ck, r->f->exp[1].dport == 50001, "moved to %u", r->f->exp[1].dport);
	check_exp_nat(&ck, r->f, 1, O, SERVER4, 50000);
	{
		static const uint8_t want[] = { W(0), W(50001), W(0x1234), W(0) };

		check_that(&ck, r->f->out_len == sizeof(want) &&
			   memcmp(r->f->out, want, sizeof(want)) == 0, "reply rewritten");
	}
	check_end(&ck);

	/* the port's bytes forwarded already (kept): only the port itself */
	check_start(&ck, "nat_busy_port_kept_not_moved");
	conn_new(r, V4);
	conn_dnat(&r->c, ROUTER_CL4, 6566);
	hello(r);
	SEND(r, O, start_req);
	r->f->busy[r->f->n_busy++] = 50000;
	send_n(r, R, start_rep, 7);
	send_n(r, R, start_rep + 7, sizeof(start_rep) - 7);
	check_that(&ck, r->v == CTH_VERDICT_DROP && r->f->n_exp == 1 && r->f->n_edit == 0,
		   "verdict %d, %u exp, %u edits", r->v, r->f->n_exp, r->f->n_edit);
	check_counts(&ck, r->f, &r->before, "expect_errors=1");
	/* the retransmission is read again as the START's reply */
	r->f->n_busy = 0;
	send_n(r, R, start_rep + 7, sizeof(start_rep) - 7);
	check_that(&ck, r->c.priv[1] == SANE_S_START || r->f->n_exp == 1, "waits again");
	check_end(&ck);

	check_start(&ck, "nat_error_drops_then_retry");
	conn_new(r, V4);
	conn_dnat(&r->c, ROUTER_CL4, 6566);
	hello(r);
	SEND(r, O, start_req);
	r->f->expect_err = -ENOMEM;
	SEND(r, R, start_rep);
	check_that(&ck, r->v == CTH_VERDICT_DROP, "verdict %d", r->v);
	check_counts(&ck, r->f, &r->before, "expect_errors=1");
	r->f->expect_err = 0;
	SEND(r, R, start_rep);
	check_run(&ck, r, CTH_VERDICT_ACCEPT, 1, "expectations=1");
	check_end(&ck);
}

/* ---------------------------------------------------------------- fuzz */

static void test_fuzz(struct run *r)
{
	static const struct mutate_how how = { "\x00\x07\x01\xc3\x50\xff", 4, 7, 2 };
	unsigned int rounds = 20000;
	struct check ck;

	check_start(&ck, "fuzz_exchange_%u", rounds);
	for (unsigned int i = 0; i < rounds && !ck.failed; i++) {
		uint8_t buf[64];
		size_t len;
		enum cth_dir dir = rng_below(2) ? O : R;

		if (i % 16 == 0) {
			conn_new(r, rng_below(3) ? V4 : V6);
			if (rng_below(3) == 0)
				conn_dnat(&r->c, r->c.t[0].family == V6 ? ROUTER_CL6 : ROUTER_CL4, 6566);
		}
		if (dir == O) {
			len = sizeof(start_req);
			memcpy(buf, start_req, len);
		} else {
			len = sizeof(start_rep);
			memcpy(buf, start_rep, len);
		}
		fuzz_mutate(&how, buf, &len, sizeof(buf));
		if (len == 0)
			continue;
		send_n(r, dir, buf, len);
		check_clean(&ck, r->f);
		check_that(&ck, r->v == CTH_VERDICT_ACCEPT, "round %u: verdict %d", i, r->v);
		check_that(&ck, r->f->n_exp <= 1, "round %u: %u expectations", i, r->f->n_exp);
		check_that(&ck, r->f->n_exp == 0 || r->f->exp[0].dport != 0, "round %u: port 0", i);
		check_that(&ck, state_ok(r->c.priv) && r->c.priv[1] < SANE_S_COUNT,
			   "round %u: state", i);
	}
	check_end(&ck);
}

int main(void)
{
	struct run r = { .f = plugrun_new() };

	test_desc();
	conn_new(&r, V4);
	test_scan(&r);
	test_split(&r);
	test_refused(&r);
	test_nat(&r);
	test_fuzz(&r);
	conn_free(&r.c);
	plugrun_free(r.f);
	return check_exit();
}
