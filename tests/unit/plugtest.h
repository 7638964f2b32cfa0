/* SPDX-License-Identifier: MIT */
/*
 * Shared by the plugin unit tests (test_ftp.c, test_sip.c, test_tns.c,
 * test_rpc.c, test_toydata.c, test_tftp.c, test_rtsp.c, test_sdk3host.c), beside the check harness (check.h) and the
 * plugin's run on the daemon's host code (plugrun.h):
 *
 *   - addresses, a deterministic random generator (the test defines
 *     PLUGTEST_RNG_SEED before including this), heap copies of exactly a
 *     payload's length so AddressSanitizer catches any read past it, and
 *     the mutator of the tests' deterministic fuzzing;
 *   - the checks every plugin test makes on a packet's record.
 */
#ifndef CTH_TEST_PLUGTEST_H
#define CTH_TEST_PLUGTEST_H

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <cthelperd/plugin.h>
#include <cthelperd/util.h>

#include "check.h"
#include "plugrun.h"

#ifndef PLUGTEST_RNG_SEED
#error "define PLUGTEST_RNG_SEED before including plugtest.h"
#endif

/* ---------------------------------------------------------------- helpers */

#define O CTH_DIR_ORIGINAL
#define R CTH_DIR_REPLY
#define V4 AF_INET
#define V6 AF_INET6
#define UDP IPPROTO_UDP
#define TCP IPPROTO_TCP
#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))


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

/* ---------------------------------------------------------------- declared keys */

/* The plugin's declared key called name, or NULL. */
static inline const struct cth_key *plug_key(const char *name)
{
	for (unsigned int i = 0; i < cth_plugin.n_keys; i++)
		if (strcmp(cth_plugin.keys[i].name, name) == 0)
			return &cth_plugin.keys[i];
	return NULL;
}

/* Where the connection's configuration block holds key name's value (the
 * test knows its type), NULL when the plugin declares no such key. */
static inline const void *conn_key_at(const struct conn *c, const char *name)
{
	const struct cth_key *k = plug_key(name);

	return k ? (const uint8_t *)c->cfg + k->offset : NULL;
}

/* Key name's ports in c as "21,2121" ("-" when there is no such key). */
static inline const char *conn_ports_str(const struct conn *c, const char *name, char *buf,
					 size_t size)
{
	const struct cth_ports *p = conn_key_at(c, name);
	size_t o = 0;

	snprintf(buf, size, "-");
	for (unsigned int i = 0; p && i < p->n && i < CTH_PORTS_MAX && o < size; i++)
		o += (size_t)snprintf(buf + o, size - o, "%s%u", i ? "," : "", p->port[i]);
	return buf;
}

/* ---------------------------------------------------------------- counters */

/* The plugin's counters (cth_count()) as the host counted them into
 * plugrun's block, the helper's slot. */
struct counts {
	uint64_t v[CTH_COUNTER_MAX];
};

static inline void counts_take(const struct plugrun *f, struct counts *c)
{
	for (unsigned int i = 0; i < CTH_COUNTER_MAX; i++)
		c->v[i] = atomic_load(&f->stats.pc[0][i]);
}

/*
 * Since before, each counter named in want ("name=N,name=N") moved by N
 * and every other declared counter not at all.  A name the plugin does
 * not declare fails.
 */
static inline void check_counts(struct check *ck, const struct plugrun *f,
				const struct counts *before, const char *want)
{
	uint64_t delta[CTH_COUNTER_MAX] = { 0 };
	struct counts now;
	const char *p = want;

	while (*p) {
		size_t n = strcspn(p, "=");
		unsigned int i;

		for (i = 0; i < cth_plugin.n_counters; i++)
			if (strlen(cth_plugin.counters[i].name) == n &&
			    strncmp(cth_plugin.counters[i].name, p, n) == 0)
				break;
		check_that(ck, i < cth_plugin.n_counters && p[n] == '=',
			   "no counter '%.*s'", (int)n, p);
		if (i >= cth_plugin.n_counters || p[n] != '=')
			return;
		delta[i] = strtoull(p + n + 1, NULL, 10);
		p += n + 1 + strcspn(p + n + 1, ",");
		p += *p == ',';
	}
	counts_take(f, &now);
	for (unsigned int i = 0; i < cth_plugin.n_counters; i++)
		check_that(ck, now.v[i] - before->v[i] == delta[i], "counter %s moved by %llu, want %llu",
			   cth_plugin.counters[i].name,
			   (unsigned long long)(now.v[i] - before->v[i]),
			   (unsigned long long)delta[i]);
}

/* ---------------------------------------------------------------- private state */

/* The state as the verdict writes it, under the plugin's declared version
 * (plugin.h priv_version): "nothing" (all zeros: the host does not write
 * a version byte alone) or the plugin's own version. */
static inline bool state_ok(const uint8_t *priv)
{
	static const uint8_t zero[CTH_PRIV_MAX];

	return memcmp(priv, zero, cth_plugin.priv_size) == 0 ||
	       priv[cth_plugin.priv_version_at] == cth_plugin.priv_version;
}

/* ---------------------------------------------------------------- checks on results */

static inline void check_out(struct check *ck, const struct plugrun *f, const char *want)
{
	size_t n = strlen(want), i = 0;

	while (i < n && i < f->out_len && f->out[i] == (uint8_t)want[i])
		i++;
	check_that(ck, f->out_len == n && i == n,
		   "payload differs at byte %zu (%zu bytes, want %zu): got '%.60s' want '%.60s'", i,
		   f->out_len, n, (const char *)f->out + (i < f->out_len ? i : f->out_len),
		   want + (i < n ? i : n));
}

static inline void check_clean(struct check *ck, const struct plugrun *f)
{
	check_that(ck, f->n_bad == 0, "refused or unexpected host call: %s", f->bad);
}

/* Expectation i follows the master (nat-follow-master) in direction
 * nat_dir to nat_addr port nat_port. */
static inline void check_exp_nat(struct check *ck, const struct plugrun *f, unsigned int i,
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

static inline void check_no_edit(struct check *ck, const struct plugrun *f)
{
	check_that(ck, f->n_mangle == 0, "%u edits", f->n_mangle);
}

#endif
