/* SPDX-License-Identifier: MIT */
/* cthelperd.conf parsing: good files, and every kind of bad input must be
 * rejected with a FILE:LINE: message naming the problem. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cfgload.h"
#include "check.h"
#include "runtime/config_load.h"

static char conf_path[CFGLOAD_PATH];
static char err_text[8192];

/* Parse text as a config file; capture what went to stderr. */
static int parse(const char *text, size_t len, struct cfg **out)
{
	return cfgload_text(text, len, conf_path, out, err_text, sizeof(err_text));
}

static int parse_str(const char *text, struct cfg **out)
{
	return parse(text, strlen(text), out);
}

/* The config is rejected and the message names the line and the issue. */
static void expect_error(const char *name, const char *text, int line,
			 const char *words)
{
	struct cfg *cfg;
	char want[512];
	int rc = parse_str(text, &cfg);

	snprintf(want, sizeof(want), "%s:%d: ", conf_path, line);
	CHECK(name, rc == -EINVAL && !cfg && strstr(err_text, want) &&
		    strstr(err_text, words),
	      "rc=%d, wanted '%s...%s', got: %s", rc, want, words, err_text);
	cfg_free(cfg);
}

static void test_good(void)
{
	struct cfg *cfg;
	int rc = parse_str("; comment\n"
			   "[server]\n"
			   "plugin_dir = /opt/p\n"
			   "log_level = debug\n"
			   "\n"
			   "[helper ftp]\n"
			   "plugin = ftp\n"
			   "family = ipv6\n"
			   "protocol = tcp\n"
			   "queue = 7\n"
			   "queue_len = 100\n"
			   "fail_open = yes\n"
			   "policy.ftp.max = 3\n"
			   "policy.ftp.timeout = 604800\n"
			   "loose = yes\n"
			   "[helper ftp2]\n", &cfg);
	const struct cfg_helper *h = cfg ? &cfg->helpers[0] : NULL;

	CHECK("config/good-parses", rc == 0 && cfg, "rc=%d: %s", rc, err_text);
	if (!cfg)
		return;
	CHECK("config/good-server", strcmp(cfg->plugin_dir, "/opt/p") == 0 &&
	      cfg->log_level == 7, "dir=%s level=%d", cfg->plugin_dir, cfg->log_level);
	CHECK("config/good-helper", cfg->n_helpers == 2 &&
	      strcmp(h->name, "ftp") == 0 && strcmp(h->plugin, "ftp") == 0 &&
	      h->families == CTH_FAMILY_IPV6 && h->protocols == CTH_PROTO_TCP &&
	      h->queue == 7 && h->queue_len == 100 && h->fail_open,
	      "helper fields wrong");
	CHECK("config/good-policy", h->n_policies == 1 &&
	      strcmp(h->policies[0].cls, "ftp") == 0 && h->policies[0].max == 3 &&
	      h->policies[0].timeout == 604800, "policy wrong");
	CHECK("config/good-plugin-option", h->n_opts == 1 &&
	      strcmp(h->opts[0].key, "loose") == 0 &&
	      strcmp(h->opts[0].value, "yes") == 0 && h->opts[0].line == 15,
	      "option wrong (line %d)", h->n_opts ? h->opts[0].line : -1);
	CHECK("config/key-lines", h->family_line == 8 && h->protocol_line == 9,
	      "family line %d, protocol line %d", h->family_line, h->protocol_line);
	CHECK("config/empty-section-defaults", strcmp(cfg->helpers[1].plugin, "ftp2") == 0 &&
	      cfg->helpers[1].queue_len == CFG_DEFAULT_QUEUE_LEN &&
	      cfg->helpers[1].families == 0 && cfg->helpers[1].protocols == 0,
	      "defaults wrong");
	cfg_free(cfg);
}

/* [server] inflight_entries: its default, and a value taken */
static void test_inflight(void)
{
	struct cfg *cfg;
	int rc = parse_str("[helper a]\n", &cfg);

	CHECK("config/inflight-default", rc == 0 && cfg && cfg->inflight_entries == CFG_INFLIGHT_ENTRIES,
	      "rc=%d, %u", rc, cfg ? cfg->inflight_entries : 0);
	cfg_free(cfg);
	rc = parse_str("[server]\ninflight_entries = 16384\n[helper a]\n", &cfg);
	CHECK("config/inflight-set", rc == 0 && cfg && cfg->inflight_entries == 16384,
	      "rc=%d, %u: %s", rc, cfg ? cfg->inflight_entries : 0, err_text);
	cfg_free(cfg);
}

static void test_relative_dir(void)
{
	struct cfg *cfg;
	char want[256];
	int rc = parse_str("[server]\nplugin_dir = ../lib\n[helper a]\n", &cfg);

	snprintf(want, sizeof(want), "/tmp/../lib");
	CHECK("config/relative-plugin-dir", rc == 0 && cfg &&
	      strcmp(cfg->plugin_dir, want) == 0, "rc=%d dir=%s", rc,
	      cfg ? cfg->plugin_dir : "-");
	cfg_free(cfg);
}

/*
 * conf/cthelperd.conf as the README runs it, `build/cthelperd -n -c
 * conf/cthelperd.conf` from the top of the tree: its relative plugin_dir
 * is taken from the file's directory, so it names build/plugins (where
 * `make` puts them) from the top, from conf/ itself, and by an absolute
 * path from anywhere else.
 */
static void test_example_conf(void)
{
	char top[1024], path[1200], want[1200];
	struct cfg *cfg = NULL;
	int rc;

	if (!getcwd(top, sizeof(top)))
		abort();
	rc = cfg_load("conf/cthelperd.conf", &cfg);
	CHECK("config/example-plugin-dir-from-top", rc == 0 && cfg &&
	      strcmp(cfg->plugin_dir, "conf/../build/plugins") == 0, "rc=%d dir=%s", rc,
	      cfg ? cfg->plugin_dir : "-");
	cfg_free(cfg);
	cfg = NULL;
	if (chdir("conf") < 0)
		abort();
	rc = cfg_load("cthelperd.conf", &cfg);
	CHECK("config/example-plugin-dir-from-conf", rc == 0 && cfg &&
	      strcmp(cfg->plugin_dir, "../build/plugins") == 0, "rc=%d dir=%s", rc,
	      cfg ? cfg->plugin_dir : "-");
	cfg_free(cfg);
	cfg = NULL;
	snprintf(path, sizeof(path), "%s/conf/cthelperd.conf", top);
	snprintf(want, sizeof(want), "%s/conf/../build/plugins", top);
	if (chdir("/") < 0)
		abort();
	rc = cfg_load(path, &cfg);
	CHECK("config/example-plugin-dir-from-elsewhere", rc == 0 && cfg &&
	      strcmp(cfg->plugin_dir, want) == 0, "rc=%d dir=%s", rc,
	      cfg ? cfg->plugin_dir : "-");
	cfg_free(cfg);
	if (chdir(top) < 0)
		abort();
}

static void test_bad(void)
{
	expect_error("config/unknown-server-key", "[server]\nfoo = 1\n[helper a]\n", 2, "unknown key 'foo'");
	expect_error("config/unknown-section", "[helper a]\n[srv]\n", 2, "unknown section [srv]");
	expect_error("config/name-too-long", "[helper abcdefghijklmnop]\n", 1, "1..15 characters");
	expect_error("config/name-bad-chars", "[helper a/b]\n", 1, "helper name 'a/b'");
	expect_error("config/duplicate-helper", "[helper a]\n[helper a]\n", 2, "already defined at line 1");
	expect_error("config/queue-range", "[helper a]\nqueue = 65536\n", 2, "queue: '65536'");
	expect_error("config/queue-not-number", "[helper a]\nqueue = 1x\n", 2, "queue: '1x'");
	expect_error("config/queue-negative", "[helper a]\nqueue = -1\n", 2, "queue: '-1'");
	expect_error("config/queue-len-zero", "[helper a]\nqueue_len = 0\n", 2, "queue_len");
	expect_error("config/family", "[helper a]\nfamily = ipx\n", 2, "family: 'ipx'");
	expect_error("config/protocol", "[helper a]\nprotocol = sctp\n", 2, "protocol: 'sctp'");
	expect_error("config/bool", "[helper a]\nfail_open = maybe\n", 2, "fail_open: 'maybe'");
	expect_error("config/policy-max-zero", "[helper a]\npolicy.x.max = 0\n", 2, "1..255");
	expect_error("config/policy-max-256", "[helper a]\npolicy.x.max = 256\n", 2, "1..255");
	/* the kernel counts expectation timeouts in 32-bit jiffies */
	expect_error("config/policy-timeout-max", "[helper a]\npolicy.x.timeout = 604801\n", 2, "1..604800");
	expect_error("config/policy-timeout-zero", "[helper a]\npolicy.x.timeout = 0\n", 2, "1..604800");
	expect_error("config/protocol-both-bad", "[helper a]\nprotocol = tcp+udp\n", 2, "protocol: 'tcp+udp' is not one of tcp, udp, both");
	expect_error("config/policy-form", "[helper a]\npolicy.max = 3\n", 2, "policy.CLASS.max");
	expect_error("config/policy-field", "[helper a]\npolicy.x.min = 3\n", 2, "policy.CLASS.max");
	expect_error("config/log-level", "[server]\nlog_level = loud\n[helper a]\n", 2, "log_level: 'loud'");
	expect_error("config/outside-section", "queue = 1\n[helper a]\n", 1, "outside of a section");
	expect_error("config/syntax", "[helper a]\nthis line has no equals\n", 2, "syntax error");
	expect_error("config/empty-value", "[helper a]\nqueue =\n", 2, "has no value");
	expect_error("config/no-helpers", "[server]\n", 1, "no [helper NAME] section");
	expect_error("config/user-unknown", "[server]\n\nuser = no-such-user-cth\n[helper a]\n", 3,
		     "user: no user 'no-such-user-cth'");
	expect_error("config/plugin-name", "[helper a]\nplugin = ../evil\n", 2, "not a plugin name");
	/* issue 34: the in-flight table's size, a power of two in bounds */
	expect_error("config/inflight-not-power", "[server]\ninflight_entries = 1000\n[helper a]\n", 2,
		     "inflight_entries: '1000' is not a power of two in 16..1048576");
	expect_error("config/inflight-small", "[server]\ninflight_entries = 8\n[helper a]\n", 2,
		     "inflight_entries: '8'");
	expect_error("config/inflight-big", "[server]\ninflight_entries = 2097152\n[helper a]\n", 2,
		     "inflight_entries: '2097152'");
	expect_error("config/inflight-word", "[server]\ninflight_entries = many\n[helper a]\n", 2,
		     "inflight_entries: 'many'");
	expect_error("config/second-error-reported", "[helper a]\nqueue = 1\nfamily = x\n", 3, "family: 'x'");
}

/* shards = N: N consecutive helpers, NAME then NAME.k on queue + k, every
 * other setting copied (its own strings: ASan sees each freed once). */
static void test_shards(void)
{
	struct cfg *cfg;
	int rc = parse_str("[helper ftp]\n"
			   "queue = 4\n"
			   "shards = 3\n"
			   "family = ipv4\n"
			   "queue_len = 100\n"
			   "fail_open = yes\n"
			   "rule_ports = 21\n"
			   "policy.ftp.max = 2\n"
			   "loose = yes\n"
			   "[helper sip]\n"
			   "queue = 7\n"
			   "[helper abcdefghijklm]\n"
			   "plugin = tns\n"
			   "queue = 10\n"
			   "shards = 10\n"
			   "[helper one]\n"
			   "queue = 7\n"
			   "shards = 1\n", &cfg);
	const struct cfg_helper *h = cfg ? cfg->helpers : NULL;
	bool same = true;

	CHECK("config/shards-parses", rc == 0 && cfg, "rc=%d: %s", rc, err_text);
	if (!cfg)
		return;
	CHECK("config/shards-count", cfg->n_helpers == 3 + 1 + 10 + 1, "%zu helpers", cfg->n_helpers);
	CHECK("config/shards-names-queues",
	      strcmp(h[0].name, "ftp") == 0 && h[0].queue == 4 && h[0].shard == 0 &&
	      strcmp(h[1].name, "ftp.1") == 0 && h[1].queue == 5 && h[1].shard == 1 &&
	      strcmp(h[2].name, "ftp.2") == 0 && h[2].queue == 6 && h[2].shard == 2 &&
	      strcmp(h[3].name, "sip") == 0 && h[3].queue == 7 && h[3].shards == 1,
	      "%s/%u %s/%u %s/%u %s/%u", h[0].name, h[0].queue, h[1].name, h[1].queue,
	      h[2].name, h[2].queue, h[3].name, h[3].queue);
	for (unsigned int k = 1; k < 3; k++)
		same &= strcmp(h[k].plugin, "ftp") == 0 && h[k].plugin != h[0].plugin &&
			h[k].shards == 3 && h[k].line == 1 && h[k].families == CTH_FAMILY_IPV4 &&
			h[k].queue_len == 100 && h[k].fail_open && h[k].n_rule_ports == 1 &&
			h[k].rule_ports[0] == 21 && h[k].n_policies == 1 &&
			h[k].policies[0].max == 2 && h[k].n_opts == 1 &&
			strcmp(h[k].opts[0].key, "loose") == 0 && h[k].opts[0].key != h[0].opts[0].key &&
			strcmp(h[k].opts[0].value, "yes") == 0 && h[k].opts[0].line == 9;
	CHECK("config/shards-share-settings", same, "a shard's settings differ from its section's");
	/* 13 characters + ".9": exactly the kernel's 15 */
	CHECK("config/shards-longest-name", strcmp(h[4].name, "abcdefghijklm") == 0 &&
	      strcmp(h[13].name, "abcdefghijklm.9") == 0 && h[13].queue == 19 &&
	      strcmp(h[13].plugin, "tns") == 0, "%s %u", h[13].name, h[13].queue);
	/* an unsharded helper may still share a queue with another */
	CHECK("config/shards-one-is-plain", strcmp(h[14].name, "one") == 0 &&
	      h[14].queue == 7 && h[14].shards == 1, "%s", h[14].name);
	cfg_free(cfg);
}

static void test_shards_bad(void)
{
	expect_error("config/shards-zero", "[helper a]\nshards = 0\n", 2, "shards: '0' is not a number in 1..16");
	expect_error("config/shards-17", "[helper a]\nshards = 17\n", 2, "shards: '17' is not a number in 1..16");
	expect_error("config/shards-not-number", "[helper a]\nshards = two\n", 2, "shards: 'two'");
	/* NF_CT_HELPER_NAME_LEN 16 with the NUL */
	expect_error("config/shards-name-too-long", "[helper abcdefghijklmn]\nshards = 2\n", 2,
		     "shards = 2: shard 1 would be named 'abcdefghijklmn.1', longer than 15 characters (kernel limit)");
	expect_error("config/shards-name-too-long-10", "[helper abcdefghijklm]\nshards = 11\n", 2,
		     "shard 10 would be named 'abcdefghijklm.10'");
	expect_error("config/shards-queue-clash-later",
		     "[helper a]\nqueue = 3\nshards = 2\n[helper b]\nqueue = 4\n", 3,
		     "shards = 2: helper 'a' takes queues 3..4, and helper 'b' (line 4) also uses queue 4: "
		     "a sharded helper's queues are its own");
	expect_error("config/shards-queue-clash-earlier",
		     "[helper b]\nqueue = 0\n[helper a]\nshards = 2\n", 4,
		     "helper 'a' takes queues 0..1, and helper 'b' (line 1) also uses queue 0");
	expect_error("config/shards-queue-clash-sharded",
		     "[helper a]\nqueue = 0\nshards = 4\n[helper b]\nqueue = 2\nshards = 2\n", 6,
		     "helper 'b' takes queues 2..3, and helper 'a' (line 1) also uses queue 2");
	expect_error("config/shards-queue-past-65535", "[helper a]\nqueue = 65534\nshards = 3\n", 3,
		     "shards = 3: helper 'a' from queue 65534 needs queues up to 65536 (the last is 65535)");
	{
		char text[4096];
		size_t n = 0;

		/* 4 x 16 shards fill CFG_MAX_HELPERS; a fifth section is one too many */
		for (unsigned int i = 0; i < 4; i++)
			n += (size_t)snprintf(text + n, sizeof(text) - n,
					      "[helper h%u]\nqueue = %u\nshards = 16\n", i, i * 16);
		snprintf(text + n, sizeof(text) - n, "[helper last]\nqueue = 100\nshards = 2\n");
		expect_error("config/shards-too-many", text, 15, "helper 'last': 66 helpers in all with the shards (max 64)");
		text[n] = '\0';
		{
			struct cfg *cfg;
			int rc = parse_str(text, &cfg);

			CHECK("config/shards-64-fit", rc == 0 && cfg && cfg->n_helpers == 64 &&
			      strcmp(cfg->helpers[63].name, "h3.15") == 0 && cfg->helpers[63].queue == 63,
			      "rc=%d %s", rc, err_text);
			cfg_free(cfg);
		}
	}
}

/* issue 27: the limit was checked only at sharded sections, so plain
 * ones after a sharded one were written past helpers[64] (ASan:
 * heap-buffer-overflow in cfg_shards_expand()) */
static void test_shards_then_plain(void)
{
	static char text[8192];
	size_t n = (size_t)snprintf(text, sizeof(text), "[helper a]\nqueue = 100\nshards = 16\n");
	int line = 4;

	for (unsigned int i = 0; i < 49; i++, line += 2)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "[helper p%u]\nqueue = %u\n", i, i);
	/* the 49th plain section (line - 2) makes 65 */
	expect_error("config/shards-then-plain-too-many", text, line - 2,
		     "helper 'p48': 65 helpers in all with the shards (max 64)");
	/* 48 plain ones fit exactly */
	text[n - strlen("[helper p48]\nqueue = 48\n")] = '\0';
	{
		struct cfg *cfg;
		int rc = parse_str(text, &cfg);

		CHECK("config/shards-then-plain-64-fit", rc == 0 && cfg && cfg->n_helpers == 64,
		      "rc=%d %s", rc, err_text);
		cfg_free(cfg);
	}
	/* and plain sections first, the sharded one last */
	n = 0;
	for (unsigned int i = 0; i < 49; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "[helper p%u]\nqueue = %u\n", i, i);
	snprintf(text + n, sizeof(text) - n, "[helper a]\nqueue = 100\nshards = 16\n");
	expect_error("config/plain-then-shards-too-many", text, 49 * 2 + 3,
		     "helper 'a': 65 helpers in all with the shards (max 64)");
}

static void test_garbage(void)
{
	struct cfg *cfg;
	char junk[4096];
	char *huge;
	size_t hlen = 256 * 1024;
	int rc;

	srand(1);
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (char)(rand() & 0xff);
	rc = parse(junk, sizeof(junk), &cfg);
	CHECK("config/binary-garbage", rc == -EINVAL && !cfg, "rc=%d", rc);
	cfg_free(cfg);

	huge = malloc(hlen + 32);
	strcpy(huge, "[helper a]\nloose = ");
	memset(huge + strlen(huge), 'x', hlen);
	huge[hlen] = '\n';
	rc = parse(huge, hlen + 1, &cfg);
	CHECK("config/huge-line", rc == -EINVAL && !cfg, "rc=%d", rc);
	cfg_free(cfg);
	free(huge);

	rc = cfg_load("/nonexistent/cthelperd.conf", &cfg);
	CHECK("config/missing-file", rc == -ENOENT, "rc=%d", rc);
}

int main(void)
{
	test_good();
	test_inflight();
	test_relative_dir();
	test_example_conf();
	test_bad();
	test_shards();
	test_shards_bad();
	test_shards_then_plain();
	test_garbage();
	return check_exit();
}
