/* SPDX-License-Identifier: MIT */
/*
 * cthelperd -n: the listing of what a configuration builds (show.c),
 * line by line, for the SDK 3 test plugin (every key type, defaults and
 * set values, shards, a class policy, counters) and an ABI 2 plugin (its
 * keys as handed to configure()); then the daemon binary itself, whose
 * first line stays "FILE: configuration OK: N helper(s), M plugin(s)";
 * and the example configuration with every shipped helper taken in (-n
 * and --print-rules).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cfgload.h"
#include "check.h"
#include "daemon/show.h"

static char cwd[512];
static const char *build_dir;

/* A whole line of text, not a part of one. */
static bool has_line(const char *text, const char *line)
{
	size_t n = strlen(line);

	if (!text)
		return false;
	for (const char *p = text; (p = strstr(p, line)) != NULL; p++)
		if ((p == text || p[-1] == '\n') && p[n] == '\n')
			return true;
	return false;
}

#define CHECK_LINE(name, text, line) \
	CHECK(name, has_line(text, line), "no line '%s' in:\n%s", line, text)

/* The listing of a configuration text whose plugin_dir is BUILD/dir. */
static char *listing(const char *dir, const char *sections)
{
	char text[4096], path[CFGLOAD_PATH], err[4096];
	struct runtime *rt = NULL;
	struct cfg *cfg;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int rc;

	snprintf(text, sizeof(text), "[server]\nplugin_dir = %s/%s/%s\n%s", cwd, build_dir, dir,
		 sections);
	rc = cfgload_text(text, strlen(text), path, &cfg, err, sizeof(err));
	if (rc == 0)
		rc = runtime_build(cfg, &rt);
	unlink(path);
	if (rc) {
		printf("# build: %d: %s\n", rc, err);
		return strdup("");
	}
	f = open_memstream(&buf, &len);
	show_print(f, rt);
	fclose(f);
	runtime_free(rt);
	return buf;
}

static void test_sdk3(void)
{
	char *t = listing("tests/sdk3", "[helper s]\nplugin = sdk3\nlevel = 42\ncustom = q\n"
			  "label = two words\nfail_open = yes\nqueue_len = 100\n"
			  "[helper sh]\nplugin = sdk3\nqueue = 3\nshards = 3\nprotocol = udp\n"
			  "family = ipv6\npolicy.data.max = 7\npolicy.data.timeout = 99\n");

	CHECK_LINE("show/helper", t, "helper s");
	CHECK_LINE("show/plugin-version-abi", t, "  plugin      sdk3 3.0 (ABI 3): SDK 3 test plugin");
	CHECK_LINE("show/protocols", t, "  protocols   tcp, udp");
	CHECK_LINE("show/families", t, "  families    ipv4, ipv6");
	CHECK_LINE("show/queue", t, "  queue       0 (queue_len 100, fail_open yes)");
	CHECK_LINE("show/class", t, "  class       data: max 2, timeout 30 s");
	CHECK_LINE("show/key-bool-default", t, "  key         flag = yes (bool, default yes): a switch");
	CHECK_LINE("show/key-uint-set", t, "  key         level = 42 (uint, default 10): a number");
	CHECK_LINE("show/key-ports-default", t,
		   "  key         ports = 7000,7001 (ports, default 7000,7001): where the server listens");
	CHECK_LINE("show/key-choice", t, "  key         mode = safe (choice, default safe): how careful");
	CHECK_LINE("show/key-string", t, "  key         label = \"two words\" (string, default none): a name");
	CHECK_LINE("show/key-custom-set", t,
		   "  key         custom = q (custom, default x): one letter, parsed by the plugin");
	CHECK_LINE("show/counters", t, "  counters    packets, bytes");
	/* one block for the shards, their queues and names */
	CHECK_LINE("show/shards", t, "  queues      3..5, shards sh sh.1 sh.2 (queue_len 4096, fail_open no)");
	CHECK("show/shards-one-block", *t && !strstr(t, "helper sh.1"), "%s", t);
	CHECK_LINE("show/shard-protocol", t, "  protocols   udp");
	CHECK_LINE("show/shard-family", t, "  families    ipv6");
	CHECK_LINE("show/class-policy", t, "  class       data: max 7, timeout 99 s");
	CHECK_LINE("show/custom-default", t,
		   "  key         custom = x (custom, default x): one letter, parsed by the plugin");
	free(t);
}

static void test_abi2(void)
{
	char *t = listing("tests/bad", "[helper old]\nplugin = abi2_prefix\nqueue = 9\ncolor = red\n");

	CHECK_LINE("show/abi2-plugin", t, "  plugin      abi2_prefix 1 (ABI 2)");
	CHECK_LINE("show/abi2-key-as-given", t, "  key         color = red (for the plugin's configure())");
	CHECK("show/abi2-no-counters", *t && !strstr(t, "counters"), "%s", t);
	free(t);
}

/* The daemon: the first line as before, then the listing. */
static void test_daemon(void)
{
	char conf[] = "/tmp/cth-test-show-XXXXXX", cmd[2048], out[8192], first[1024];
	int fd = mkstemp(conf);
	FILE *p;
	size_t n;

	if (fd < 0)
		abort();
	n = (size_t)snprintf(cmd, sizeof(cmd), "[server]\nplugin_dir = %s/%s/tests/sdk3\n"
			     "[helper s]\nplugin = sdk3\n", cwd, build_dir);
	if (write(fd, cmd, n) != (ssize_t)n)
		abort();
	close(fd);
	snprintf(cmd, sizeof(cmd), "%s/cthelperd -n -c %s 2>&1", build_dir, conf);
	p = popen(cmd, "r");
	n = p ? fread(out, 1, sizeof(out) - 1, p) : 0;
	out[n] = '\0';
	CHECK("show/daemon-exit-0", p && pclose(p) == 0, "%s", out);
	snprintf(first, sizeof(first), "%s: configuration OK: 1 helper(s), 1 plugin(s)\n", conf);
	CHECK("show/daemon-first-line", strncmp(out, first, strlen(first)) == 0, "%s", out);
	CHECK_LINE("show/daemon-lists", out, "  key         level = 10 (uint, default 10): a number");
	unlink(conf);
}

/* The output of a command line, "" when it fails; freed by the caller. */
static char *run_out(const char *cmd)
{
	char *buf = NULL;
	size_t len = 0, n;
	char chunk[4096];
	FILE *p = popen(cmd, "r"), *m = open_memstream(&buf, &len);

	while (p && m && (n = fread(chunk, 1, sizeof(chunk), p)) > 0)
		fwrite(chunk, 1, n, m);
	if (m)
		fclose(m);
	if (!p || pclose(p) != 0 || !buf) {
		printf("# %s failed:\n%s", cmd, buf ? buf : "");
		free(buf);
		return strdup("");
	}
	return buf;
}

/*
 * conf/cthelperd.conf with its commented [helper NAME] sections taken in
 * (their ";key = value" lines uncommented; ";" followed by a blank is
 * prose): the daemon builds every shipped plugin from it, -n lists the
 * keys each declares with their defaults, --print-rules attaches each
 * helper to its plugin's default ports.
 */
static void test_example_all_helpers(void)
{
	static const char *const rules[] = {
		"iptables -t raw -A PREROUTING -p tcp --dport 21 -j CT --helper ftp",
		"iptables -t raw -A PREROUTING -p udp --dport 5060 -j CT --helper sip",
		"ip6tables -t raw -A PREROUTING -p tcp --dport 5060 -j CT --helper sip",
		"iptables -t raw -A PREROUTING -p udp --dport 111 -j CT --helper rpc",
		"iptables -t raw -A PREROUTING -p tcp --dport 1521 -j CT --helper tns",
		"iptables -t raw -A PREROUTING -p udp --dport 69 -j CT --helper tftp",
		"iptables -t raw -A PREROUTING -p tcp --dport 554 -j CT --helper rtsp",
		"ip6tables -t raw -A PREROUTING -p tcp --dport 554 -j CT --helper rtsp",
		"iptables -t raw -A PREROUTING -p udp --dport 5353 -j CT --helper mdns",
		"ip6tables -t raw -A PREROUTING -p udp --dport 5353 -j CT --helper mdns",
		"iptables -t raw -A PREROUTING -p udp --dport 427 -j CT --helper slp",
		"ip6tables -t raw -A PREROUTING -p udp --dport 547 -j CT --helper dhcpv6",
		"iptables -t raw -A PREROUTING -p udp --dport 10080 -j CT --helper amanda",
		"ip6tables -t raw -A PREROUTING -p udp --dport 10080 -j CT --helper amanda",
		"iptables -t raw -A PREROUTING -p tcp --dport 6566 -j CT --helper sane",
		"ip6tables -t raw -A PREROUTING -p tcp --dport 6566 -j CT --helper sane",
	};
	char conf[] = "/tmp/cth-test-example-XXXXXX", cmd[2048], first[256];
	char *out;
	int fd = mkstemp(conf);

	if (fd < 0)
		abort();
	close(fd);
	snprintf(cmd, sizeof(cmd),
		 "sed -e 's|^plugin_dir = .*|plugin_dir = %s/%s/plugins|' "
		 "-e '/^;\\[helper /,$ s/^;\\([^ ;]\\)/\\1/' conf/cthelperd.conf >%s",
		 cwd, build_dir, conf);
	if (system(cmd) != 0)
		abort();

	snprintf(cmd, sizeof(cmd), "%s/cthelperd -n -c %s 2>&1", build_dir, conf);
	out = run_out(cmd);
	snprintf(first, sizeof(first), "%s: configuration OK: 14 helper(s), 14 plugin(s)\n", conf);
	CHECK("show/example-all-helpers", strncmp(out, first, strlen(first)) == 0, "%s", out);
	CHECK_LINE("show/example-rtsp", out, "helper rtsp");
	CHECK_LINE("show/example-rtsp-queue", out, "  queue       5 (queue_len 4096, fail_open no)");
	CHECK_LINE("show/example-rtsp-class", out, "  class       media: max 32, timeout 300 s");
	CHECK("show/example-rtsp-key-ports",
	      strstr(out, "\n  key         ports = 554 (ports, default 554): "), "%s", out);
	CHECK("show/example-rtsp-key-max_message",
	      strstr(out, "\n  key         max_message = 4096 (uint, default 4096): "), "%s", out);
	CHECK("show/example-rtsp-key-third_party",
	      strstr(out, "\n  key         third_party = no (bool, default no): "), "%s", out);
	CHECK("show/example-rtsp-key-reverse",
	      strstr(out, "\n  key         reverse = yes (bool, default yes): "), "%s", out);
	CHECK_LINE("show/example-rtsp-counters", out,
		   "  counters    setups, replies, expectations, expect_errors, teardowns, "
		   "interleaved, nat_rewrites, untranslated, third_party, oversized, malformed");
	CHECK_LINE("show/example-mdns-queue", out, "  queue       7 (queue_len 4096, fail_open no)");
	CHECK_LINE("show/example-mdns-class", out, "  class       mdns: max 8, timeout 30 s");
	CHECK("show/example-mdns-key-answers",
	      strstr(out, "\n  key         answers = link (choice, default link): "), "%s", out);
	CHECK_LINE("show/example-netbios-ns-class", out,
		   "  class       netbios-ns: max 1, timeout 3 s");
	CHECK("show/example-netbios-ns-key-incoming",
	      strstr(out, "\n  key         incoming = no (bool, default no): "), "%s", out);
	CHECK_LINE("show/example-amanda-queue", out, "  queue       10 (queue_len 4096, fail_open no)");
	CHECK_LINE("show/example-amanda-class", out, "  class       amanda: max 3, timeout 180 s");
	CHECK("show/example-amanda-key-master_timeout",
	      strstr(out, "\n  key         master_timeout = 300 (uint, default 300): "), "%s", out);
	CHECK_LINE("show/example-sane-queue", out, "  queue       11 (queue_len 4096, fail_open no)");
	CHECK_LINE("show/example-sane-class", out, "  class       sane: max 1, timeout 300 s");
	CHECK_LINE("show/example-irc", out, "helper irc");
	CHECK_LINE("show/example-irc-queue", out, "  queue       12 (queue_len 4096, fail_open no)");
	CHECK_LINE("show/example-irc-class", out, "  class       irc: max 8, timeout 300 s");
	CHECK("show/example-irc-key-ports",
	      strstr(out, "\n  key         ports = 6667 (ports, default 6667): "), "%s", out);
	CHECK_LINE("show/example-ssdp", out, "helper ssdp");
	CHECK_LINE("show/example-ssdp-class-http", out, "  class       http: max 8, timeout 300 s");
	CHECK("show/example-ssdp-key-answers",
	      strstr(out, "\n  key         answers = link (choice, default link): "), "%s", out);
	free(out);

	snprintf(cmd, sizeof(cmd), "%s/cthelperd --print-rules iptables -c %s 2>&1", build_dir, conf);
	out = run_out(cmd);
	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		char name[64];

		snprintf(name, sizeof(name), "show/example-rules-%zu", i);
		CHECK_LINE(name, out, rules[i]);
	}
	free(out);

	/* the rules follow the plugin's ports key: rtsp's section names two */
	snprintf(cmd, sizeof(cmd), "sed -i '/^\\[helper rtsp\\]/,$ s/^ports = 554$/ports = 554, 8554/' %s",
		 conf);
	if (system(cmd) != 0)
		abort();
	snprintf(cmd, sizeof(cmd), "%s/cthelperd -n -c %s 2>&1", build_dir, conf);
	out = run_out(cmd);
	CHECK("show/example-rtsp-ports-set",
	      strstr(out, "\n  key         ports = 554,8554 (ports, default 554): "), "%s", out);
	free(out);
	snprintf(cmd, sizeof(cmd), "%s/cthelperd --print-rules iptables -c %s 2>&1", build_dir, conf);
	out = run_out(cmd);
	CHECK_LINE("show/example-rtsp-rule-port-from-key", out,
		   "iptables -t raw -A PREROUTING -p tcp --dport 8554 -j CT --helper rtsp");
	CHECK_LINE("show/example-rtsp-rule6-port-from-key", out,
		   "ip6tables -t raw -A PREROUTING -p tcp --dport 8554 -j CT --helper rtsp");
	CHECK_LINE("show/example-rtsp-rule-default-port-kept", out,
		   "iptables -t raw -A PREROUTING -p tcp --dport 554 -j CT --helper rtsp");
	free(out);
	snprintf(cmd, sizeof(cmd), "%s/cthelperd --print-rules nft -c %s 2>&1", build_dir, conf);
	out = run_out(cmd);
	CHECK("show/example-rtsp-nft-ports-from-key",
	      strstr(out, "tcp dport { 554, 8554 } ct helper set \"cth-rtsp-tcp\""), "%s", out);
	free(out);
	unlink(conf);
}

int main(void)
{
	build_dir = getenv("CTH_BUILD");
	if (!build_dir)
		build_dir = "build";
	if (!getcwd(cwd, sizeof(cwd)))
		return 1;
	test_sdk3();
	test_abi2();
	test_daemon();
	test_example_all_helpers();
	return check_exit();
}
