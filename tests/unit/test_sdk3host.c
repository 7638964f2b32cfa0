/* SPDX-License-Identifier: MIT */
/*
 * SDK 3 on the daemon's host code (plugrun.h), with the SDK 3 test plugin
 * (sdk3_plugin.c): the state version the host keeps for the plugin (a new
 * connection, state of the plugin's own version, of another one, state
 * priv_valid() refuses, state the plugin leaves as it got it) and its
 * counters (cth_count(), cth_count_add(), an index it does not declare).
 */
#define PLUGTEST_RNG_SEED 0x5d4305d4305d4305ull
#include "plugtest.h"
#include "sdk3_plugin.h"

static struct conn conn;

static int run(struct plugrun *f, const char *text)
{
	return run_ctinfo(f, &conn, O, established(O), 1000, text, strlen(text));
}

static uint64_t resets(const struct plugrun *f)
{
	return atomic_load(&f->stats.h[0][STATS_H_STATE_RESET]);
}

static void test_state_version(struct plugrun *f)
{
	static const uint8_t zero[CTH_PRIV_MAX];
	struct check c;

	conn_init(&conn, V4, UDP, "10.0.1.2", 40000, "10.0.2.2", 7000);
	check_start(&c, "sdk3/state-new-connection");
	run(f, "hello");
	/* the plugin saw zeros with the version byte set, and wrote on */
	check_that(&c, conn.priv[0] == 3 && conn.priv[3] == 3 && conn.priv[2] == 1,
		   "state %02x %02x %02x %02x", conn.priv[0], conn.priv[1], conn.priv[2],
		   conn.priv[3]);
	check_that(&c, f->state_changed && !f->state_reset && resets(f) == 0, "reset counted");
	check_end(&c);

	check_start(&c, "sdk3/state-own-version-kept");
	run(f, "hello");
	check_that(&c, conn.priv[0] == 3 && conn.priv[2] == 2 && !f->state_reset &&
		   resets(f) == 0, "state %02x %02x, resets %llu", conn.priv[0], conn.priv[2],
		   (unsigned long long)resets(f));
	check_end(&c);

	check_start(&c, "sdk3/state-other-version-reset");
	conn.priv[0] = 2;          /* an older layout's, or a failover peer's */
	run(f, "hello");
	check_that(&c, conn.priv[0] == 3 && conn.priv[3] == 3 && conn.priv[2] == 1,
		   "state %02x %02x %02x", conn.priv[0], conn.priv[2], conn.priv[3]);
	check_that(&c, f->state_reset && resets(f) == 1, "resets %llu",
		   (unsigned long long)resets(f));
	check_end(&c);

	check_start(&c, "sdk3/state-refused-by-priv-valid");
	conn.priv[1] = 0xff;       /* right version, priv_valid says no */
	run(f, "hello");
	check_that(&c, conn.priv[1] == 0 && conn.priv[2] == 1 && f->state_reset &&
		   resets(f) == 2, "state %02x %02x, resets %llu", conn.priv[1], conn.priv[2],
		   (unsigned long long)resets(f));
	check_end(&c);

	/* a plugin that leaves zeros: the version byte alone is not written */
	check_start(&c, "sdk3/state-version-byte-alone-not-written");
	memset(conn.priv, 0, sizeof(conn.priv));
	run(f, "keep");
	check_that(&c, memcmp(conn.priv, zero, sizeof(zero)) == 0 && !f->state_changed &&
		   !f->state_reset, "state %02x, changed %d", conn.priv[0], f->state_changed);
	check_end(&c);

	check_start(&c, "sdk3/state-reset-then-left-zero");
	conn.priv[0] = 9;
	conn.priv[5] = 1;
	run(f, "keep");
	check_that(&c, memcmp(conn.priv, zero, sizeof(zero)) == 0 && f->state_changed &&
		   f->state_reset && resets(f) == 3, "state %02x, changed %d, resets %llu",
		   conn.priv[0], f->state_changed, (unsigned long long)resets(f));
	run(f, "keep");
	check_that(&c, !f->state_changed && !f->state_reset && resets(f) == 3,
		   "zeros counted as a reset");
	check_end(&c);

	/* an expected connection keeps no state: zeros every time, no reset */
	check_start(&c, "sdk3/state-expected-connection");
	conn.ct_status |= CTH_CT_EXPECTED;
	run(f, "hello");
	run(f, "hello");
	check_that(&c, !f->state_reset && resets(f) == 3, "reset counted");
	conn.ct_status &= ~(unsigned int)CTH_CT_EXPECTED;
	check_end(&c);
	conn_free(&conn);
}

static uint64_t counted(const struct plugrun *f, unsigned int k)
{
	return atomic_load(&f->stats.pc[0][k]);
}

/* cth_count() into the caller's block at the instance's slot, by the
 * plugin's index; an index it does not declare counts nowhere. */
static void test_counters(struct plugrun *f)
{
	uint64_t others = 0;
	struct check c;

	memset(&f->stats, 0, sizeof(f->stats));
	conn_init(&conn, V4, UDP, "10.0.1.2", 40000, "10.0.2.2", 7000);
	run(f, "hello");
	run(f, "hello, again");
	run(f, "keep");
	check_start(&c, "sdk3/counters");
	check_that(&c, counted(f, SDK3_C_PACKETS) == 3, "packets %llu",
		   (unsigned long long)counted(f, SDK3_C_PACKETS));
	check_that(&c, counted(f, SDK3_C_BYTES) == 5 + 12 + 4, "bytes %llu",
		   (unsigned long long)counted(f, SDK3_C_BYTES));
	for (unsigned int s = 0; s < STATS_SLOTS; s++)
		for (unsigned int k = 0; k < CTH_COUNTER_MAX; k++)
			if (s || k > SDK3_C_BYTES)
				others += atomic_load(&f->stats.pc[s][k]);
	check_that(&c, others == 0, "an undeclared index counted: %llu",
		   (unsigned long long)others);
	check_end(&c);
	conn_free(&conn);
}

int main(void)
{
	struct plugrun *f = plugrun_new();

	test_state_version(f);
	test_counters(f);
	plugrun_free(f);
	return check_exit();
}
