/* SPDX-License-Identifier: MIT */
/*
 * The plugin kit's test harness (<cthelperd/plugtest.h>, plugtest/), as
 * an author out of the tree uses it: a plugin linked in (the udpback
 * example) and one loaded from its .so ($CTH_BUILD/tests/udpback/), the
 * keys as a [helper] section sets them and the errors a wrong one gives,
 * connections with and without NAT, the kernel's answers, the record of
 * one packet (expectations, edits, the payload sent, state, log,
 * counters), and the plugin bugs it must report: a malformed
 * expectation, an edit the host refuses, a verdict out of range.  The
 * fuzz driver runs on inputs of every shape without a false alarm.
 * udpback's own unit test (sdk/examples/udpback/udpback-test.c) runs as
 * test_udpback, linked with the library make install ships.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <cthelperd/plugtest.h>
#include <cthelperd/util.h>

#include "check.h"

/* what the test plugin below does with a payload's first byte */
enum { TP_EXPECT = 'e', TP_SYNC = 's', TP_BAD_CLASS = 'c', TP_EDIT = 'm', TP_BAD_EDIT = 'x',
       TP_VERDICT = 'v', TP_LOG = 'l', TP_LINK = 'n', TP_PREFIX = 'p' };

/* what cth_link() said to the test plugin's last TP_LINK */
static struct cth_link tp_link;
static int tp_link_rc;

/* A plugin made to misbehave on demand: its payload's first byte says how. */
static int tp_packet(struct cth_ctx *ctx, const struct cth_packet *pkt, void *priv,
		     const void *config)
{
	struct cth_expect e;
	uint8_t *state = priv;
	int ret;

	(void)config;
	state[0]++;
	cth_expect_back(&e, pkt, 0, IPPROTO_UDP);
	switch (pkt->payload[0]) {
	case TP_EXPECT:
		ret = cth_expect(ctx, &e, 0);
		return ret < 0 ? cth_expect_verdict(ret) : CTH_VERDICT_ACCEPT;
	case TP_SYNC:
		return cth_expect(ctx, &e, CTH_EXPECT_SYNC) == 0 ? CTH_VERDICT_ACCEPT :
								   CTH_VERDICT_DROP;
	case TP_BAD_CLASS:
		e.class = 3;
		cth_expect(ctx, &e, 0);
		return CTH_VERDICT_ACCEPT;
	case TP_EDIT:
		cth_mangle(ctx, 0, 1, "EDITED", 6);
		return CTH_VERDICT_ACCEPT;
	case TP_BAD_EDIT:
		cth_mangle(ctx, pkt->payload_len, 5, "x", 1);
		return CTH_VERDICT_ACCEPT;
	case TP_VERDICT:
		return 7;
	case TP_LOG:
		cth_log(ctx, CTH_LOG_INFO, "seen %u", (unsigned int)state[0]);
		return CTH_VERDICT_ACCEPT;
	case TP_LINK:
		/* the answers to a query: from the link's network */
		tp_link_rc = cth_link(ctx, &tp_link);
		if (cth_expect_src_net(&e, &tp_link) == 0)
			cth_expect(ctx, &e, 0);
		return CTH_VERDICT_ACCEPT;
	case TP_PREFIX:
		/* "p" PREFIX [ANY]: a source network by hand, host bits set */
		e.flags |= CTH_EXPECT_SRC_PREFIX | (pkt->payload_len > 2 ? CTH_EXPECT_ANY_SRC : 0);
		e.src_prefix = pkt->payload_len > 1 ? pkt->payload[1] : 0;
		cth_expect(ctx, &e, 0);
		return CTH_VERDICT_ACCEPT;
	}
	return CTH_VERDICT_ACCEPT;
}

static const struct cth_plugin_desc tp_desc = {
	.abi_version = CTH_ABI_VERSION,
	.size = sizeof(struct cth_plugin_desc),
	.name = "tp",
	.version = "1",
	.description = "test plugin",
	.protocols = CTH_PROTO_UDP | CTH_PROTO_TCP,
	.families = CTH_FAMILY_IPV4 | CTH_FAMILY_IPV6,
	.priv_size = 4,
	.n_classes = 1,
	.classes = { { .name = "c", .max = 4, .timeout = 10 } },
	.packet = tp_packet,
};

static struct cth_plugtest *tp_new(void)
{
	char err[256];
	struct cth_plugtest *t = cth_plugtest_new(&tp_desc, NULL, err, sizeof(err));

	if (!t) {
		printf("FAIL plugtest/tp-new: %s\n", err);
		exit(1);
	}
	return t;
}

static int tp_send(struct cth_plugtest *t, enum cth_dir dir, const char *text)
{
	return cth_plugtest_packet(t, dir, text, strlen(text));
}

/* The linked example: its defaults, a key set, keys refused with why. */
static void test_keys(void)
{
	static const char *const puts_on[] = { "puts=yes", "ports=69,4069", NULL };
	static const char *const unknown[] = { "colour=blue", NULL };
	static const char *const bad[] = { "puts=maybe", NULL };
	static const char *const no_eq[] = { "puts", NULL };
	static const char *const daemon_key[] = { "queue=3", NULL };
	char err[256] = "";
	struct cth_plugtest *t;
	const struct cth_ports *ports;
	struct check c;

	check_start(&c, "plugtest/keys-defaults");
	t = cth_plugtest_new(&cth_plugin, NULL, err, sizeof(err));
	check_that(&c, t != NULL, "udpback refused: %s", err);
	if (t) {
		ports = cth_plugtest_config(t);
		check_that(&c, ports->n == 1 && ports->port[0] == 5069, "ports default %u:%u",
			   ports->n, ports->port[0]);
		cth_plugtest_free(t);
	}
	check_end(&c);
	check_start(&c, "plugtest/keys-set");
	t = cth_plugtest_new(&cth_plugin, puts_on, err, sizeof(err));
	check_that(&c, t != NULL, "%s", err);
	if (t) {
		ports = cth_plugtest_config(t);
		check_that(&c, ports->n == 2 && ports->port[1] == 4069, "ports %u", ports->n);
		cth_plugtest_conn(t, "udp 10.0.1.2:40000 > 10.0.2.2:69");
		tp_send(t, CTH_DIR_ORIGINAL, "PUT x\n");
		check_that(&c, cth_plugtest_result(t)->n_expect == 1, "PUT not helped with puts=yes");
		cth_plugtest_free(t);
	}
	check_end(&c);
	/* the daemon's words (server/runtime/keys.c), without FILE:LINE */
	check_start(&c, "plugtest/keys-refused");
	check_that(&c, !cth_plugtest_new(&cth_plugin, unknown, err, sizeof(err)) &&
		   strncmp(err, "unknown key 'colour' for plugin 'udpback' (its keys: ", 53) == 0,
		   "unknown key: %s", err);
	check_that(&c, !cth_plugtest_new(&cth_plugin, bad, err, sizeof(err)) &&
		   strncmp(err, "puts: invalid value 'maybe' (yes or no", 38) == 0,
		   "bad bool: %s", err);
	check_that(&c, !cth_plugtest_new(&cth_plugin, no_eq, err, sizeof(err)) &&
		   strstr(err, "not key=value"), "no '=': %s", err);
	check_that(&c, !cth_plugtest_new(&cth_plugin, daemon_key, err, sizeof(err)) &&
		   strstr(err, "'queue' is a key of the daemon's"), "daemon key: %s", err);
	check_end(&c);
}

/* An ABI 2 plugin's keys: each through its configure(), as the daemon
 * hands them (keys_apply() without declared keys). */
static int tp2_configure(void *config, const char *key, const char *value)
{
	if (strcmp(key, "level") != 0)
		return -ENOENT;
	if (strcmp(value, "high") != 0)
		return -EINVAL;
	*(int *)config = 1;
	return 0;
}

static void test_keys_abi2(void)
{
	static const char *const level[] = { "level=high", NULL };
	static const char *const unknown[] = { "colour=blue", NULL };
	static const char *const bad[] = { "level=low", NULL };
	struct cth_plugin_desc d = tp_desc;
	struct cth_plugtest *t;
	char err[256] = "";
	struct check c;

	/* as a plugin built against SDK 2 sizes it: up to packet */
	d.abi_version = 2;
	d.size = offsetof(struct cth_plugin_desc, keys);
	d.config_size = sizeof(int);
	d.configure = tp2_configure;
	check_start(&c, "plugtest/keys-abi2");
	t = cth_plugtest_new(&d, level, err, sizeof(err));
	check_that(&c, t && *(const int *)cth_plugtest_config(t) == 1, "level=high: %s", err);
	cth_plugtest_free(t);
	check_that(&c, !cth_plugtest_new(&d, unknown, err, sizeof(err)) &&
		   strstr(err, "unknown key 'colour' (not a daemon key, and plugin 'tp'"),
		   "unknown key: %s", err);
	check_that(&c, !cth_plugtest_new(&d, bad, err, sizeof(err)) &&
		   strstr(err, "level: invalid value 'low' for plugin 'tp'"), "bad value: %s", err);
	check_end(&c);
}

/* The descriptor is checked as the loader checks it. */
static void test_desc_refused(void)
{
	struct cth_plugin_desc d = tp_desc;
	char err[256] = "";
	struct check c;

	check_start(&c, "plugtest/descriptor-checked");
	d.abi_version = 99;
	check_that(&c, !cth_plugtest_new(&d, NULL, err, sizeof(err)) && strstr(err, "99"),
		   "ABI 99: %s", err);
	d = tp_desc;
	d.priv_size = 64;
	check_that(&c, !cth_plugtest_new(&d, NULL, err, sizeof(err)), "priv_size 64 taken");
	check_end(&c);
}

/* A built plugin, loaded by the daemon's loader. */
static void test_open(void)
{
	const char *build = getenv("CTH_BUILD") ? getenv("CTH_BUILD") : "build";
	char path[512], err[256] = "";
	struct cth_plugtest *t;
	const struct cth_plugtest_result *r;
	struct check c;

	snprintf(path, sizeof(path), "%s/tests/udpback/udpback.so", build);
	check_start(&c, "plugtest/open-so");
	t = cth_plugtest_open(path, NULL, err, sizeof(err));
	check_that(&c, t != NULL, "%s: %s", path, err);
	if (t) {
		cth_plugtest_conn(t, "udp [fd00:1::2]:40000 > [fd00:2::2]:5069 dnat [2001:db8::2]:5069");
		tp_send(t, CTH_DIR_ORIGINAL, "GET a\n");
		r = cth_plugtest_result(t);
		check_that(&c, r->n_expect == 1 && r->expect[0].family == AF_INET6 &&
			   (r->expect[0].flags & CTH_EXPECT_NAT) && r->counter[0] == 1,
			   "%u expectations, requests %llu", r->n_expect,
			   (unsigned long long)r->counter[0]);
		cth_plugtest_free(t);
	}
	check_that(&c, !cth_plugtest_open("/nonexistent/udpback.so", NULL, err, sizeof(err)),
		   "a missing file opened");
	check_that(&c, !cth_plugtest_open("udpback", NULL, err, sizeof(err)) &&
		   strstr(err, "NAME.so"), "not NAME.so: %s", err);
	check_end(&c);
}

/* Connections: the text, NAT, ctinfo, state carried, TCP sequence. */
static void test_conn(void)
{
	struct cth_plugtest *t = tp_new();
	const struct cth_plugtest_result *r = cth_plugtest_result(t);
	struct check c;

	check_start(&c, "plugtest/conn-refused");
	check_ret(&c, cth_plugtest_conn(t, "udp 10.0.1.2 > 10.0.2.2:69"), -EINVAL);
	check_ret(&c, cth_plugtest_conn(t, "udp 10.0.1.2:1 > [fd00::1]:69"), -EINVAL);
	check_ret(&c, cth_plugtest_conn(t, "icmp 10.0.1.2:1 > 10.0.2.2:69"), -EINVAL);
	check_ret(&c, cth_plugtest_conn(t, "udp 10.0.1.2:1 > 10.0.2.2:69 snat"), -EINVAL);
	check_ret(&c, cth_plugtest_conn(t, "udp 10.0.1.2:1 > 10.0.2.2:69 x y z w v u"), -EINVAL);
	check_that(&c, strstr(cth_plugtest_error(t), "udp|tcp") != NULL, "error: %s",
		   cth_plugtest_error(t));
	check_ret(&c, tp_send(t, CTH_DIR_ORIGINAL, "e"), -EINVAL);
	check_end(&c);

	check_start(&c, "plugtest/conn-state-carried");
	check_ret(&c, cth_plugtest_conn(t, "udp 10.0.1.2:40000 > 10.0.2.2:69 snat 192.0.2.1:1 "
					"dnat 198.51.100.2:69"), 0);
	tp_send(t, CTH_DIR_ORIGINAL, "l");
	check_that(&c, r->priv[0] == 1 && r->priv_changed && strcmp(r->log, "seen 1") == 0 &&
		   r->n_log == 1, "state %u, log '%s'", r->priv[0], r->log);
	tp_send(t, CTH_DIR_REPLY, "l");
	check_that(&c, r->priv[0] == 2, "state %u", r->priv[0]);
	check_ret(&c, cth_plugtest_conn(t, "udp 10.0.1.2:40000 > 10.0.2.2:69 expected"), 0);
	tp_send(t, CTH_DIR_ORIGINAL, "l");
	tp_send(t, CTH_DIR_ORIGINAL, "l");
	check_that(&c, strcmp(r->log, "seen 1") == 0, "an expected conn kept state: %s", r->log);
	check_end(&c);
	cth_plugtest_free(t);
}

/* The kernel's answers, and what one packet's record holds. */
static void test_record(void)
{
	struct cth_plugtest *t = tp_new();
	const struct cth_plugtest_result *r = cth_plugtest_result(t);
	struct check c;

	cth_plugtest_conn(t, "udp 10.0.1.2:40000 > 10.0.2.2:69");
	check_start(&c, "plugtest/kernel-answers");
	check_ret(&c, tp_send(t, CTH_DIR_ORIGINAL, "s"), CTH_VERDICT_ACCEPT);
	check_that(&c, r->n_expect == 1 && r->expect_rc[0] == 0 &&
		   r->expect_how[0] == CTH_EXPECT_SYNC, "created: rc %d", r->expect_rc[0]);
	cth_plugtest_kernel(t, -EBUSY, 1, 0);
	check_ret(&c, tp_send(t, CTH_DIR_ORIGINAL, "s"), CTH_VERDICT_DROP);
	check_that(&c, r->expect_rc[0] == -EBUSY, "rc %d", r->expect_rc[0]);
	check_ret(&c, tp_send(t, CTH_DIR_ORIGINAL, "s"), CTH_VERDICT_ACCEPT);
	/* one that rides on the verdict learns nothing, as in the daemon */
	cth_plugtest_kernel(t, -ENOMEM, 0, 0);
	check_ret(&c, tp_send(t, CTH_DIR_ORIGINAL, "e"), CTH_VERDICT_ACCEPT);
	check_end(&c);

	check_start(&c, "plugtest/edit-recorded");
	cth_plugtest_kernel(t, 0, 0, 0);
	cth_plugtest_conn(t, "udp 10.0.1.2:40000 > 10.0.2.2:69");
	tp_send(t, CTH_DIR_ORIGINAL, "mABC");
	check_that(&c, r->rewritten && r->n_edit == 1 && r->edit[0].repl_len == 6 &&
		   r->payload_len == 9 && memcmp(r->payload, "EDITEDABC", 9) == 0 &&
		   r->n_bug == 0, "edits %u, payload %.*s, bug %s", r->n_edit,
		   (int)r->payload_len, (const char *)r->payload, r->bug);
	check_end(&c);
	cth_plugtest_free(t);
}

/* What a correct plugin never does is reported, with why. */
static void test_bugs(void)
{
	struct cth_plugtest *t = tp_new();
	const struct cth_plugtest_result *r = cth_plugtest_result(t);
	struct check c;

	cth_plugtest_conn(t, "tcp 10.0.1.2:40000 > 10.0.2.2:21");
	check_start(&c, "plugtest/bug-bad-expectation");
	tp_send(t, CTH_DIR_ORIGINAL, "c");
	check_that(&c, r->n_bug == 1 && strstr(r->bug, "class 3"), "%u: %s", r->n_bug, r->bug);
	check_end(&c);
	check_start(&c, "plugtest/bug-edit-refused");
	tp_send(t, CTH_DIR_ORIGINAL, "x");
	check_that(&c, r->n_bug == 1 && strstr(r->bug, "edit"), "%u: %s", r->n_bug, r->bug);
	/* a TCP length change without NAT */
	tp_send(t, CTH_DIR_ORIGINAL, "mABC");
	check_that(&c, r->n_bug == 1 && strstr(r->bug, "edit"), "%u: %s", r->n_bug, r->bug);
	check_end(&c);
	check_start(&c, "plugtest/bug-verdict");
	tp_send(t, CTH_DIR_ORIGINAL, "v");
	check_that(&c, r->n_bug == 1 && strstr(r->bug, "verdict 7"), "%u: %s", r->n_bug, r->bug);
	check_end(&c);
	check_start(&c, "plugtest/no-bug-when-correct");
	tp_send(t, CTH_DIR_ORIGINAL, "e");
	check_that(&c, r->n_bug == 0 && r->n_expect == 1, "%u: %s", r->n_bug, r->bug);
	check_end(&c);
	cth_plugtest_free(t);
}

static bool tp_addr_is(int family, const union cth_addr *a, const char *text)
{
	union cth_addr want;

	memset(&want, 0, sizeof(want));
	inet_pton(family, text, want.raw);
	return memcmp(a->raw, want.raw, sizeof(want.raw)) == 0;
}

/* cth_plugtest_link(): its defaults, the destination's kind worked out,
 * the settings, and cth_expect_src_net() on what it gives. */
static void test_link(void)
{
	struct cth_plugtest *t = tp_new();
	const struct cth_plugtest_result *r = cth_plugtest_result(t);
	struct check c;

	check_start(&c, "plugtest/link-default");
	cth_plugtest_conn(t, "udp 10.0.1.2:40000 > 10.0.1.255:137");
	tp_send(t, CTH_DIR_ORIGINAL, "n");
	check_that(&c, tp_link_rc == 0 && tp_link.in_ifindex == 1 && tp_link.out_ifindex == 2,
		   "rc %d in %u out %u", tp_link_rc, tp_link.in_ifindex, tp_link.out_ifindex);
	/* no network given: no broadcast known, no answers expected */
	check_that(&c, tp_link.net_prefix == 0 && tp_link.dst_kind == CTH_DST_UNICAST,
		   "prefix %u kind %u", tp_link.net_prefix, tp_link.dst_kind);
	check_that(&c, r->n_expect == 0 && r->n_bug == 0, "%u expectations", r->n_expect);
	check_end(&c);

	check_start(&c, "plugtest/link-broadcast-net");
	check_ret(&c, cth_plugtest_link(t, "in 0 out 3 net 10.0.1.9/24 net fd00:1::/64"), 0);
	tp_send(t, CTH_DIR_ORIGINAL, "n");
	check_that(&c, tp_link.in_ifindex == 0 && tp_link.out_ifindex == 3 &&
		   tp_link.dst_kind == CTH_DST_BROADCAST && tp_link.net_prefix == 24 &&
		   tp_addr_is(AF_INET, &tp_link.net, "10.0.1.0"), "in %u out %u kind %u /%u",
		   tp_link.in_ifindex, tp_link.out_ifindex, tp_link.dst_kind, tp_link.net_prefix);
	check_that(&c, r->n_expect == 1 && r->n_bug == 0 &&
		   (r->expect[0].flags & CTH_EXPECT_SRC_PREFIX) &&
		   !(r->expect[0].flags & CTH_EXPECT_ANY_SRC) && r->expect[0].src_prefix == 24 &&
		   tp_addr_is(AF_INET, &r->expect[0].src, "10.0.1.0") &&
		   tp_addr_is(AF_INET, &r->expect[0].dst, "10.0.1.2") && r->expect[0].dport == 40000,
		   "%u expectations, flags %#x /%u, bug %s", r->n_expect, r->expect[0].flags,
		   r->expect[0].src_prefix, r->bug);
	check_end(&c);

	check_start(&c, "plugtest/link-dst-kinds");
	cth_plugtest_conn(t, "udp 10.0.1.2:40000 > 239.255.255.250:1900");
	tp_send(t, CTH_DIR_ORIGINAL, "n");
	check_that(&c, tp_link.dst_kind == CTH_DST_MULTICAST, "multicast: %u", tp_link.dst_kind);
	cth_plugtest_conn(t, "udp 10.0.1.2:40000 > 255.255.255.255:137");
	tp_send(t, CTH_DIR_ORIGINAL, "n");
	check_that(&c, tp_link.dst_kind == CTH_DST_BROADCAST_ALL && tp_link.net_prefix == 24,
		   "255.255.255.255: %u", tp_link.dst_kind);
	cth_plugtest_conn(t, "udp [fd00:1::2]:40000 > [ff02::c]:1900");
	tp_send(t, CTH_DIR_ORIGINAL, "n");
	check_that(&c, tp_link.dst_kind == CTH_DST_MULTICAST && tp_link.net_prefix == 64 &&
		   tp_addr_is(AF_INET6, &tp_link.net, "fd00:1::") && r->n_expect == 1 &&
		   r->expect[0].src_prefix == 64, "IPv6: kind %u /%u, %u expectations",
		   tp_link.dst_kind, tp_link.net_prefix, r->n_expect);
	check_ret(&c, cth_plugtest_link(t, "dst broadcast"), 0);
	tp_send(t, CTH_DIR_ORIGINAL, "n");
	check_that(&c, tp_link.dst_kind == CTH_DST_BROADCAST && tp_link.net_prefix == 0 &&
		   tp_link.in_ifindex == 1 && r->n_expect == 0, "set: kind %u /%u",
		   tp_link.dst_kind, tp_link.net_prefix);
	check_end(&c);

	check_start(&c, "plugtest/link-refused");
	cth_plugtest_link(t, "out 7");
	check_ret(&c, cth_plugtest_link(t, "net 10.0.1.0/33"), -EINVAL);
	check_that(&c, strstr(cth_plugtest_error(t), "net ADDR/PREFIX") != NULL, "%s",
		   cth_plugtest_error(t));
	check_ret(&c, cth_plugtest_link(t, "dst anycast"), -EINVAL);
	check_ret(&c, cth_plugtest_link(t, "in"), -EINVAL);
	check_ret(&c, cth_plugtest_link(t, "mtu 1500"), -EINVAL);
	check_ret(&c, cth_plugtest_link(t, "net 10.0.1.0"), -EINVAL);
	tp_send(t, CTH_DIR_ORIGINAL, "n");
	check_that(&c, tp_link.out_ifindex == 7, "a refused one changed it: out %u",
		   tp_link.out_ifindex);
	check_ret(&c, cth_plugtest_link(t, NULL), 0);
	tp_send(t, CTH_DIR_ORIGINAL, "n");
	check_that(&c, tp_link.out_ifindex == 2, "NULL: out %u", tp_link.out_ifindex);
	check_end(&c);
	cth_plugtest_free(t);
}

/* A source network by hand: the host clears the bits past its prefix,
 * and refuses a prefix out of range or one with "any source". */
static void test_src_prefix(void)
{
	struct cth_plugtest *t = tp_new();
	const struct cth_plugtest_result *r = cth_plugtest_result(t);
	struct check c;

	check_start(&c, "plugtest/src-prefix-cleared");
	cth_plugtest_conn(t, "udp 10.0.1.2:40000 > 10.0.2.77:137");
	cth_plugtest_packet(t, CTH_DIR_ORIGINAL, "p\x14", 2);
	check_that(&c, r->n_expect == 1 && r->n_bug == 0 && r->expect[0].src_prefix == 20 &&
		   tp_addr_is(AF_INET, &r->expect[0].src, "10.0.0.0"), "%u, bug %s, /%u",
		   r->n_expect, r->bug, r->expect[0].src_prefix);
	cth_plugtest_conn(t, "udp [fd00:1::2]:40000 > [fd00:2::77]:137");
	cth_plugtest_packet(t, CTH_DIR_ORIGINAL, "p\x43", 2);
	check_that(&c, r->n_expect == 1 && r->n_bug == 0 && r->expect[0].src_prefix == 67 &&
		   tp_addr_is(AF_INET6, &r->expect[0].src, "fd00:2::"), "IPv6: %u, bug %s",
		   r->n_expect, r->bug);
	check_end(&c);

	check_start(&c, "plugtest/src-prefix-refused");
	cth_plugtest_packet(t, CTH_DIR_ORIGINAL, "p\x81", 2);
	check_that(&c, r->n_bug == 1 && r->n_expect == 0, "/129: %u bugs", r->n_bug);
	cth_plugtest_conn(t, "udp 10.0.1.2:40000 > 10.0.2.77:137");
	cth_plugtest_packet(t, CTH_DIR_ORIGINAL, "p\x21", 2);
	check_that(&c, r->n_bug == 1, "/33: %u bugs", r->n_bug);
	cth_plugtest_packet(t, CTH_DIR_ORIGINAL, "p\x00", 2);
	check_that(&c, r->n_bug == 1, "/0: %u bugs", r->n_bug);
	cth_plugtest_packet(t, CTH_DIR_ORIGINAL, "p\x18" "a", 3);
	check_that(&c, r->n_bug == 1, "with any source: %u bugs", r->n_bug);
	check_end(&c);
	cth_plugtest_free(t);
}

/* The fuzz driver on every connection shape and packet layout: a correct
 * plugin never trips it (it aborts on a bug). */
static void test_fuzz_driver(void)
{
	static const uint8_t plain[] = "\x80GET hello.txt\n";
	char err[256];
	struct cth_plugtest *t = cth_plugtest_new(&cth_plugin, NULL, err, sizeof(err));
	uint8_t in[64];
	struct check c;

	check_start(&c, "plugtest/fuzz-driver");
	check_that(&c, t != NULL, "%s", err);
	if (t) {
		cth_plugtest_fuzz(t, plain, sizeof(plain) - 1);
		check_that(&c, cth_plugtest_result(t)->n_expect == 1, "a plain seed made %u",
			   cth_plugtest_result(t)->n_expect);
		for (unsigned int flags = 0; flags < 128; flags++) {
			size_t n = 0;

			in[n++] = (uint8_t)flags;
			in[n++] = 0x00;
			in[n++] = 6;
			memcpy(in + n, "GET a\n", 6);
			n += 6;
			in[n++] = 0x80;
			in[n++] = 40;           /* longer than what is left: cut */
			memcpy(in + n, "DATA\n", 5);
			n += 5;
			cth_plugtest_fuzz(t, in, n);
		}
		cth_plugtest_fuzz(t, in, 0);
		cth_plugtest_free(t);
	}
	check_end(&c);
}

int main(void)
{
	test_keys();
	test_keys_abi2();
	test_desc_refused();
	test_open();
	test_conn();
	test_record();
	test_bugs();
	test_link();
	test_src_prefix();
	test_fuzz_driver();
	return check_exit();
}
