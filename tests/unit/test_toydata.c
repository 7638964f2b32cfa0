/* SPDX-License-Identifier: MIT */
/*
 * The SDK's example plugin (sdk/examples/toydata) on the daemon's host
 * code (plugrun.h), as the shipped plugins are tested: the descriptor, its
 * key, a DATA line from the server (expectation from the client to the
 * dialled address), what it must ignore (client lines, cut or malformed
 * lines, ports below min_port), NAT with a free and a busy port (the line
 * rewritten), and deterministic fuzzing of the payload.
 */
#define PLUGTEST_RNG_SEED 0x70d47a0770d47a07ull
#include "plugtest.h"

static struct conn conn;

static void test_desc(void)
{
	struct check c;

	check_start(&c, "toydata_desc");
	check_that(&c, cth_plugin.abi_version == CTH_ABI_VERSION && strcmp(cth_plugin.name, "toydata") == 0 &&
		   cth_plugin.n_classes == 1 && strcmp(cth_plugin.classes[0].name, "data") == 0 &&
		   cth_plugin.priv_size <= CTH_PRIV_MAX, "descriptor");
	/* SDK 3: declared keys, a counter */
	check_that(&c, cth_plugin.packet && !cth_plugin.configure && cth_plugin.n_keys == 2 &&
		   plug_key("min_port") && plug_key("ports") &&
		   (plug_key("ports")->flags & CTH_KEY_RULE_PORTS) && cth_plugin.n_counters == 1,
		   "%u keys, %u counters", cth_plugin.n_keys, cth_plugin.n_counters);
	check_end(&c);
	check_start(&c, "toydata_config");
	conn_init(&conn, V4, TCP, "10.0.1.2", 40000, "10.0.2.2", 7000);
	check_that(&c, *(const uint32_t *)conn_key_at(&conn, "min_port") == 1,
		   "min_port default %u", *(const uint32_t *)conn_key_at(&conn, "min_port"));
	{
		char ports[64];

		check_that(&c, strcmp(conn_ports_str(&conn, "ports", ports, sizeof(ports)),
				      "7000") == 0, "ports default %s", ports);
	}
	check_ret(&c, conn_configure(&conn, "min_port", "1024"), 0);
	check_that(&c, *(const uint32_t *)conn_key_at(&conn, "min_port") == 1024, "min_port");
	check_ret(&c, conn_configure(&conn, "min_port", "0"), -EINVAL);
	check_ret(&c, conn_configure(&conn, "min_port", "12x"), -EINVAL);
	check_ret(&c, conn_configure(&conn, "min_port", "70000"), -EINVAL);
	check_ret(&c, conn_configure(&conn, "colour", "blue"), -ENOENT);
	check_end(&c);
}

static int run(struct plugrun *f, enum cth_dir dir, const char *text)
{
	return run_ctinfo(f, &conn, dir, established(dir), 1000, text, strlen(text));
}

static void test_plain(struct plugrun *f)
{
	static const struct { const char *name; enum cth_dir dir; const char *text; } ignored[] = {
		{ "client_line", O, "DATA 5000\r\n" },
		{ "cut_line", R, "DATA 5000" },
		{ "no_digits", R, "DATA x\r\n" },
		{ "port_zero", R, "DATA 0\r\n" },
		{ "port_big", R, "DATA 65536\r\n" },
		{ "trailing", R, "DATA 5000x\r\n" },
		{ "below_min_port", R, "DATA 80\r\n" },
		{ "other_word", R, "DAT 5000\r\n" },
	};
	struct counts before;
	struct check c;
	int v;

	conn_init(&conn, V4, TCP, "10.0.1.2", 40000, "10.0.2.2", 7000);
	conn_configure(&conn, "min_port", "1024");
	check_start(&c, "toydata_expect");
	counts_take(f, &before);
	v = run(f, R, "DATA 5000\r\n");
	check_counts(&c, f, &before, "data_lines=1");
	check_that(&c, v == CTH_VERDICT_ACCEPT, "verdict %d", v);
	check_that(&c, f->n_exp == 1, "%u expectations", f->n_exp);
	if (f->n_exp == 1) {
		const struct cth_expect *e = &f->exp[0];

		check_that(&c, e->proto == TCP && e->dport == 5000 && e->sport == 0 &&
			   addr_is(V4, &e->src, "10.0.1.2") && addr_is(V4, &e->dst, "10.0.2.2") &&
			   !(e->flags & CTH_EXPECT_NAT), "expectation");
	}
	check_no_edit(&c, f);
	check_clean(&c, f);
	check_that(&c, conn.priv[0] == 1, "state: %u DATA lines", conn.priv[0]);
	check_end(&c);

	for (size_t i = 0; i < ARRAY_LEN(ignored); i++) {
		check_start(&c, "toydata_ignores_%s", ignored[i].name);
		counts_take(f, &before);
		v = run(f, ignored[i].dir, ignored[i].text);
		check_that(&c, v == CTH_VERDICT_ACCEPT && f->n_exp == 0, "verdict %d, %u expectations",
			   v, f->n_exp);
		/* a line under min_port is read, then ignored */
		check_counts(&c, f, &before,
			     strcmp(ignored[i].name, "below_min_port") == 0 ? "data_lines=1" : "");
		check_no_edit(&c, f);
		check_clean(&c, f);
		check_end(&c);
	}
}

static void test_nat(struct plugrun *f)
{
	struct check c;
	int v;

	/* the client dials 192.0.2.1:7000, forwarded to the server */
	conn_init(&conn, V4, TCP, "10.0.1.2", 40000, "10.0.2.2", 7000);
	conn_dnat(&conn, "192.0.2.1", 7000);
	check_start(&c, "toydata_nat_port_free");
	v = run(f, R, "DATA 5000\r\n");
	check_that(&c, v == CTH_VERDICT_ACCEPT && f->n_exp >= 1, "verdict %d, %u expectations", v, f->n_exp);
	if (f->n_exp >= 1) {
		const struct cth_expect *e = &f->exp[f->n_exp - 1];

		check_that(&c, (e->flags & CTH_EXPECT_NAT) && e->dport == 5000 &&
			   addr_is(V4, &e->dst, "192.0.2.1") && addr_is(V4, &e->nat_addr, "10.0.2.2") &&
			   e->nat_port == 5000 && e->nat_dir == O &&
			   strcmp(f->exp_fn[f->n_exp - 1], CTH_EXPECT_FN_NAT_FOLLOW_MASTER) == 0,
			   "NAT expectation");
	}
	check_no_edit(&c, f);
	check_clean(&c, f);
	check_end(&c);

	check_start(&c, "toydata_nat_port_busy_rewritten");
	f->n_busy = 2;
	f->busy[0] = 5000;
	f->busy[1] = 5001;
	v = run(f, R, "DATA 5000\r\n");
	f->n_busy = 0;
	check_that(&c, v == CTH_VERDICT_ACCEPT, "verdict %d", v);
	check_out(&c, f, "DATA 5002\r\n");
	check_clean(&c, f);
	check_end(&c);
}

/* Mutated lines: whatever the verdict, no host rule is broken. */
static void test_fuzz(struct plugrun *f)
{
	static const struct mutate_how how = { "DATA 0123456789\r\n", 6, 7, 4 };
	struct check c;
	uint8_t buf[128];

	conn_init(&conn, V4, TCP, "10.0.1.2", 40000, "10.0.2.2", 7000);
	conn_dnat(&conn, "192.0.2.1", 7000);
	check_start(&c, "toydata_fuzz");
	unsigned int exps = 0;

	for (int i = 0; i < 20000 && !c.failed; i++) {
		size_t len = 12;

		memcpy(buf, "DATA 40123\r\n", len);
		fuzz_mutate(&how, buf, &len, sizeof(buf));
		run_ctinfo(f, &conn, rng_below(2) ? R : O, CTH_CT_ESTABLISHED_REPLY, 1, buf, len);
		check_clean(&c, f);
		exps += f->n_exp > 0;
	}
	/* the mutations leave some lines valid: the parser was reached */
	check_that(&c, exps > 0 && exps < 20000, "%u of 20000 expected", exps);
	check_end(&c);
}

int main(void)
{
	struct plugrun *f = plugrun_new();

	test_desc();
	test_plain(f);
	test_nat(f);
	test_fuzz(f);
	plugrun_free(f);
	conn_free(&conn);
	return check_exit();
}
