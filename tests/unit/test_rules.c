/* SPDX-License-Identifier: MIT */
/*
 * --print-rules: the nft and iptables rules printed for hand-built
 * runtimes, line by line.  Families and protocols come from the runtime
 * (the plugin's defaults applied), ports from rule_ports or the key the
 * plugin declares CTH_KEY_RULE_PORTS (its value in the instance's
 * configuration block); a helper without a port gets a commented-out
 * rule, also when its section sets a key called "ports" its plugin does
 * not declare so.
 */
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "cfgload.h"
#include "check.h"
#include "daemon/rules.h"

/* A plugin without declared keys, and one whose "ports" key holds the
 * ports its rules match (the configuration block is a struct cth_ports). */
static const struct cth_key ports_key[] = {
	{ .name = "ports", .type = CTH_KEY_PORTS, .flags = CTH_KEY_RULE_PORTS, .offset = 0 },
	{ .name = "other", .type = CTH_KEY_PORTS, .offset = 0 },
};
static const struct cth_plugin_desc plain_desc = { .name = "plain" };
static const struct cth_plugin_desc ports_desc = {
	.name = "withports", .keys = ports_key, .n_keys = 2,
	.config_size = sizeof(struct cth_ports),
};
static struct plugin plain_pl = { .desc = &plain_desc }, ports_pl = { .desc = &ports_desc };

static struct cfg_helper *add_helper(struct runtime *rt, const char *name,
				     unsigned int families, unsigned int protocols)
{
	struct cfg_helper *h = &rt->cfg->helpers[rt->cfg->n_helpers++];
	struct instance *in = &rt->inst[rt->n_inst++];

	snprintf(h->name, sizeof(h->name), "%s", name);
	h->shards = 1;
	snprintf(in->name, sizeof(in->name), "%s", name);
	in->families = families;
	in->protocols = protocols;
	in->pl = &plain_pl;
	return h;
}

/* The instance of section h gets the plugin that declares rule ports,
 * holding ports (as the runtime parses a section's value or default). */
static void set_rule_key(struct runtime *rt, struct cfg_helper *h, const char *ports)
{
	struct instance *in = &rt->inst[h - rt->cfg->helpers];
	struct cth_ports *p = calloc(1, sizeof(*p));
	size_t n;

	if (!p || cfg_ports_parse(ports, p->port, CTH_PORTS_MAX, &n))
		abort();
	p->n = (uint16_t)n;
	in->pl = &ports_pl;
	in->config = p;
}

/* A section with shards = n as cfg_load() expands it: n consecutive
 * helpers NAME, NAME.1, ...; the ports on the first. */
static struct cfg_helper *add_shards(struct runtime *rt, const char *name, unsigned int n,
				     unsigned int families, unsigned int protocols)
{
	struct cfg_helper *h = add_helper(rt, name, families, protocols);

	h->shards = n;
	for (unsigned int k = 1; k < n; k++) {
		char sn[CTH_NAME_LEN];
		struct cfg_helper *s;

		snprintf(sn, sizeof(sn), "%s.%u", name, k);
		s = add_helper(rt, sn, families, protocols);
		s->shards = n;
		s->shard = k;
	}
	return h;
}

static void add_opt(struct cfg_helper *h, const char *key, const char *value)
{
	h->opts[h->n_opts].key = strdup(key);
	h->opts[h->n_opts].value = strdup(value);
	h->n_opts++;
}

static struct runtime *runtime_new(void)
{
	struct runtime *rt = calloc(1, sizeof(*rt));

	rt->cfg = calloc(1, sizeof(*rt->cfg));
	rt->cfg->file = strdup("/etc/cth.conf");
	return rt;
}

static void runtime_del(struct runtime *rt)
{
	for (size_t i = 0; i < rt->n_inst; i++)
		free(rt->inst[i].config);
	for (size_t i = 0; i < rt->cfg->n_helpers; i++)
		for (size_t j = 0; j < rt->cfg->helpers[i].n_opts; j++) {
			free(rt->cfg->helpers[i].opts[j].key);
			free(rt->cfg->helpers[i].opts[j].value);
		}
	free(rt->cfg->file);
	free(rt->cfg);
	free(rt);
}

static char *print(const struct runtime *rt, enum rules_kind kind)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int rc = rules_print(f, rt, kind);

	fclose(f);
	if (rc)
		printf("# rules_print: %d\n", rc);
	return buf;
}

/* A whole line of text, not a part of one. */
static bool has_line(const char *text, const char *line)
{
	size_t n = strlen(line);

	for (const char *p = text; (p = strstr(p, line)) != NULL; p++)
		if ((p == text || p[-1] == '\n') && p[n] == '\n')
			return true;
	return false;
}

#define CHECK_LINE(name, text, line) \
	CHECK(name, has_line(text, line), "no line '%s' in:\n%s", line, text)
#define CHECK_NO(name, text, part) \
	CHECK(name, !strstr(text, part), "'%s' should not be in:\n%s", part, text)

static const char warning[] =
	"# Load these rules only while cthelperd is running (its helpers\n";

static struct runtime *runtime_sample(void)
{
	struct runtime *rt = runtime_new();
	struct cfg_helper *h;

	h = add_helper(rt, "ftp", CTH_FAMILY_IPV4 | CTH_FAMILY_IPV6, CTH_PROTO_TCP);
	h->n_rule_ports = 1;
	h->rule_ports[0] = 21;
	h = add_helper(rt, "sip", CTH_FAMILY_IPV4 | CTH_FAMILY_IPV6,
		       CTH_PROTO_TCP | CTH_PROTO_UDP);
	add_opt(h, "sip_timeout", "1800");
	set_rule_key(rt, h, "5060,5062");
	add_helper(rt, "tns", CTH_FAMILY_IPV4 | CTH_FAMILY_IPV6, CTH_PROTO_TCP);
	h = add_helper(rt, "ftp4", CTH_FAMILY_IPV4, CTH_PROTO_TCP);
	h->n_rule_ports = 2;
	h->rule_ports[0] = 21;
	h->rule_ports[1] = 2121;
	return rt;
}

static void test_nft(void)
{
	struct runtime *rt = runtime_sample();
	char *t = print(rt, RULES_NFT);

	CHECK("rules/nft-warning-first", strncmp(t, "# Generated by cthelperd --print-rules nft from /etc/cth.conf.\n", 63) == 0 &&
	      strstr(t, warning) && strstr(t, "EBUSY"), "%s", t);
	CHECK_LINE("rules/nft-table", t, "table inet cthelperd {");
	/* ftp, both families: one object without l3proto */
	CHECK_LINE("rules/nft-ftp-object", t, "\tct helper cth-ftp-tcp {");
	CHECK_LINE("rules/nft-ftp-type", t, "\t\ttype \"ftp\" protocol tcp");
	CHECK_LINE("rules/nft-ftp-set", t, "\t\ttcp dport 21 ct helper set \"cth-ftp-tcp\"");
	CHECK_NO("rules/nft-ftp-no-udp", t, "cth-ftp-udp");
	/* sip, both protocols, the plugin's ports */
	CHECK_LINE("rules/nft-sip-type-tcp", t, "\t\ttype \"sip\" protocol tcp");
	CHECK_LINE("rules/nft-sip-type-udp", t, "\t\ttype \"sip\" protocol udp");
	CHECK_LINE("rules/nft-sip-set-tcp", t, "\t\ttcp dport { 5060, 5062 } ct helper set \"cth-sip-tcp\"");
	CHECK_LINE("rules/nft-sip-set-udp", t, "\t\tudp dport { 5060, 5062 } ct helper set \"cth-sip-udp\"");
	/* no port: commented out, with what to do */
	CHECK_LINE("rules/nft-noport-note", t, "\t\t# tns: no port known: set rule_ports in [helper tns] of /etc/cth.conf,");
	CHECK_LINE("rules/nft-noport-rule", t, "\t\t# tcp dport PORT ct helper set \"cth-tns-tcp\"");
	/* one family: l3proto on the object, nfproto on the rule */
	CHECK_LINE("rules/nft-ipv4-type", t, "\t\ttype \"ftp4\" protocol tcp; l3proto ip");
	CHECK_LINE("rules/nft-ipv4-set", t, "\t\tmeta nfproto ipv4 tcp dport { 21, 2121 } ct helper set \"cth-ftp4-tcp\"");
	/* after conntrack, and related traffic accepted */
	CHECK_LINE("rules/nft-prerouting", t, "\t\ttype filter hook prerouting priority filter; policy accept;");
	CHECK_LINE("rules/nft-forward", t, "\t\ttype filter hook forward priority filter; policy accept;");
	CHECK_LINE("rules/nft-related", t, "\t\tct state established,related accept");
	free(t);
	runtime_del(rt);
}

static void test_iptables(void)
{
	struct runtime *rt = runtime_sample();
	char *t = print(rt, RULES_IPTABLES);

	CHECK("rules/ipt-warning-first", strncmp(t, "# Generated by cthelperd --print-rules iptables from /etc/cth.conf.\n", 68) == 0 &&
	      strstr(t, warning), "%s", t);
	CHECK_LINE("rules/ipt-ftp-v4", t, "iptables -t raw -A PREROUTING -p tcp --dport 21 -j CT --helper ftp");
	CHECK_LINE("rules/ipt-ftp-v6", t, "ip6tables -t raw -A PREROUTING -p tcp --dport 21 -j CT --helper ftp");
	CHECK_NO("rules/ipt-ftp-no-udp", t, "-p udp --dport 21 ");
	CHECK_LINE("rules/ipt-sip-v4-udp", t, "iptables -t raw -A PREROUTING -p udp --dport 5060 -j CT --helper sip");
	CHECK_LINE("rules/ipt-sip-v4-tcp2", t, "iptables -t raw -A PREROUTING -p tcp --dport 5062 -j CT --helper sip");
	CHECK_LINE("rules/ipt-sip-v6-udp2", t, "ip6tables -t raw -A PREROUTING -p udp --dport 5062 -j CT --helper sip");
	CHECK_LINE("rules/ipt-noport-note", t, "# tns: no port known: set rule_ports in [helper tns] of /etc/cth.conf,");
	CHECK_LINE("rules/ipt-noport-v4", t, "# iptables -t raw -A PREROUTING -p tcp --dport PORT -j CT --helper tns");
	CHECK_LINE("rules/ipt-noport-v6", t, "# ip6tables -t raw -A PREROUTING -p tcp --dport PORT -j CT --helper tns");
	CHECK_LINE("rules/ipt-ipv4-only", t, "iptables -t raw -A PREROUTING -p tcp --dport 2121 -j CT --helper ftp4");
	CHECK_NO("rules/ipt-ipv4-only-no-v6", t, "ip6tables -t raw -A PREROUTING -p tcp --dport 2121");
	CHECK_LINE("rules/ipt-related-v4", t, "iptables -A FORWARD -m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT");
	CHECK_LINE("rules/ipt-related-v6", t, "ip6tables -A FORWARD -m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT");
	free(t);
	runtime_del(rt);
}

/* IPv4 only everywhere: no ip6tables line at all. */
static void test_ipv4_only(void)
{
	struct runtime *rt = runtime_new();
	struct cfg_helper *h = add_helper(rt, "ftp", CTH_FAMILY_IPV4, CTH_PROTO_TCP);
	char *t;

	h->n_rule_ports = 1;
	h->rule_ports[0] = 21;
	t = print(rt, RULES_IPTABLES);
	CHECK_NO("rules/ipv4-only-no-ip6tables", t, "ip6tables");
	CHECK_LINE("rules/ipv4-only-related", t, "iptables -A FORWARD -m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT");
	free(t);
	runtime_del(rt);
}

/* rule_ports wins over the plugin's rule ports; a key called "ports" the
 * plugin does not declare as its rule ports is no port. */
static void test_port_sources(void)
{
	struct runtime *rt = runtime_new();
	struct cfg_helper *h = add_helper(rt, "sip", CTH_FAMILY_IPV4, CTH_PROTO_UDP);
	struct cfg_helper *h2 = add_helper(rt, "odd", CTH_FAMILY_IPV4, CTH_PROTO_UDP);
	struct cfg_helper *h3 = add_helper(rt, "rpc", CTH_FAMILY_IPV4, CTH_PROTO_UDP);
	char *t;

	set_rule_key(rt, h, "5060");
	h->n_rule_ports = 1;
	h->rule_ports[0] = 5080;
	add_opt(h2, "ports", "5070");
	set_rule_key(rt, h3, "111,2049");
	t = print(rt, RULES_IPTABLES);
	CHECK_LINE("rules/rule-ports-first", t, "iptables -t raw -A PREROUTING -p udp --dport 5080 -j CT --helper sip");
	CHECK_NO("rules/rule-ports-only", t, "--dport 5060");
	CHECK_LINE("rules/bad-ports-none", t, "# iptables -t raw -A PREROUTING -p udp --dport PORT -j CT --helper odd");
	CHECK_NO("rules/no-key-named-ports", t, "--dport 5070");
	CHECK_LINE("rules/declared-rule-ports", t, "iptables -t raw -A PREROUTING -p udp --dport 2049 -j CT --helper rpc");
	free(t);
	runtime_del(rt);
}

/* shards: one object per shard, and one rule (nft) or one rule per
 * shard (iptables) that hands each new connection to the next. */
static struct runtime *runtime_sharded(void)
{
	struct runtime *rt = runtime_new();
	struct cfg_helper *h;

	h = add_shards(rt, "ftp", 2, CTH_FAMILY_IPV4 | CTH_FAMILY_IPV6, CTH_PROTO_TCP);
	h->n_rule_ports = 1;
	h->rule_ports[0] = 21;
	h = add_shards(rt, "sip", 3, CTH_FAMILY_IPV4, CTH_PROTO_UDP | CTH_PROTO_TCP);
	set_rule_key(rt, h, "5060");
	add_shards(rt, "tns", 2, CTH_FAMILY_IPV4, CTH_PROTO_TCP);
	return rt;
}

static void test_shards_nft(void)
{
	struct runtime *rt = runtime_sharded();
	char *t = print(rt, RULES_NFT);

	CHECK_LINE("rules/shards-nft-object-0", t, "\tct helper cth-ftp-tcp {");
	CHECK_LINE("rules/shards-nft-object-1", t, "\tct helper cth-ftp.1-tcp {");
	CHECK_LINE("rules/shards-nft-type-1", t, "\t\ttype \"ftp.1\" protocol tcp");
	CHECK_LINE("rules/shards-nft-note", t, "\t\t# ftp: 2 shards (ftp to ftp.1), each new connection to the next");
	CHECK_LINE("rules/shards-nft-spread", t, "\t\ttcp dport 21 ct state new ct helper set numgen inc mod 2 "
		   "map { 0 : \"cth-ftp-tcp\", 1 : \"cth-ftp.1-tcp\" }");
	CHECK_NO("rules/shards-nft-one-rule", t, "ct helper set \"cth-ftp");
	CHECK_LINE("rules/shards-nft-object-udp-2", t, "\t\ttype \"sip.2\" protocol udp; l3proto ip");
	CHECK_LINE("rules/shards-nft-spread-udp", t, "\t\tmeta nfproto ipv4 udp dport 5060 ct state new ct helper set "
		   "numgen inc mod 3 map { 0 : \"cth-sip-udp\", 1 : \"cth-sip.1-udp\", 2 : \"cth-sip.2-udp\" }");
	CHECK_LINE("rules/shards-nft-spread-tcp", t, "\t\tmeta nfproto ipv4 tcp dport 5060 ct state new ct helper set "
		   "numgen inc mod 3 map { 0 : \"cth-sip-tcp\", 1 : \"cth-sip.1-tcp\", 2 : \"cth-sip.2-tcp\" }");
	CHECK_LINE("rules/shards-nft-noport", t, "\t\t# meta nfproto ipv4 tcp dport PORT ct state new ct helper set "
		   "numgen inc mod 2 map { 0 : \"cth-tns-tcp\", 1 : \"cth-tns.1-tcp\" }");
	CHECK_NO("rules/shards-nft-no-shard-note", t, "ftp.1: no port known");
	free(t);
	runtime_del(rt);
}

static void test_shards_iptables(void)
{
	struct runtime *rt = runtime_sharded();
	char *t = print(rt, RULES_IPTABLES);
	static const char *const want[] = {
		"# ftp: 2 shards (ftp to ftp.1), new connections in turn",
		"iptables -t raw -A PREROUTING -p tcp --dport 21 --syn -m statistic --mode nth --every 2 --packet 0 -j CT --helper ftp",
		"iptables -t raw -A PREROUTING -p tcp --dport 21 --syn -m statistic --mode nth --every 2 --packet 1 -j CT --helper ftp.1",
		"iptables -t raw -A PREROUTING -p tcp --dport 21 -j CT --helper ftp",
		"# ftp: 2 shards (ftp to ftp.1), new connections in turn",
		"ip6tables -t raw -A PREROUTING -p tcp --dport 21 --syn -m statistic --mode nth --every 2 --packet 0 -j CT --helper ftp",
		"ip6tables -t raw -A PREROUTING -p tcp --dport 21 --syn -m statistic --mode nth --every 2 --packet 1 -j CT --helper ftp.1",
		"ip6tables -t raw -A PREROUTING -p tcp --dport 21 -j CT --helper ftp",
		"# sip: 3 shards (sip to sip.2), new connections in turn",
		"iptables -t raw -A PREROUTING -p tcp --dport 5060 --syn -m statistic --mode nth --every 3 --packet 0 -j CT --helper sip",
		"iptables -t raw -A PREROUTING -p tcp --dport 5060 --syn -m statistic --mode nth --every 3 --packet 1 -j CT --helper sip.1",
		"iptables -t raw -A PREROUTING -p tcp --dport 5060 --syn -m statistic --mode nth --every 3 --packet 2 -j CT --helper sip.2",
		"iptables -t raw -A PREROUTING -p tcp --dport 5060 -j CT --helper sip",
		/* UDP: no first packet to recognise, every packet takes a turn */
		"iptables -t raw -A PREROUTING -p udp --dport 5060 -m statistic --mode nth --every 3 --packet 0 -j CT --helper sip",
		"iptables -t raw -A PREROUTING -p udp --dport 5060 -m statistic --mode nth --every 3 --packet 1 -j CT --helper sip.1",
		"iptables -t raw -A PREROUTING -p udp --dport 5060 -m statistic --mode nth --every 3 --packet 2 -j CT --helper sip.2",
		"# tns: no port known: set rule_ports in [helper tns] of /etc/cth.conf,",
		"# then uncomment:",
		"# tns: 2 shards (tns to tns.1), new connections in turn",
		"# iptables -t raw -A PREROUTING -p tcp --dport PORT --syn -m statistic --mode nth --every 2 --packet 0 -j CT --helper tns",
		"# iptables -t raw -A PREROUTING -p tcp --dport PORT --syn -m statistic --mode nth --every 2 --packet 1 -j CT --helper tns.1",
		"# iptables -t raw -A PREROUTING -p tcp --dport PORT -j CT --helper tns",
		"# Expected connections pass as related; add your own policy and",
	};
	const char *p = t;

	/* these lines, in this order, and nothing between them */
	p = strstr(t, "\n# ftp: ");
	for (size_t i = 0; p && i < sizeof(want) / sizeof(want[0]); i++) {
		size_t n = strlen(want[i]);

		p++;
		CHECK("rules/shards-ipt-lines", strncmp(p, want[i], n) == 0 && p[n] == '\n',
		      "line %zu: want '%s', got '%.*s'", i, want[i], (int)strcspn(p, "\n"), p);
		p = strchr(p, '\n');
	}
	CHECK("rules/shards-ipt-found", p != NULL, "%s", t);
	CHECK_NO("rules/shards-ipt-no-udp-catch-all", t, "-p udp --dport 5060 -j CT");
	free(t);
	runtime_del(rt);
}

static void test_kind(void)
{
	CHECK("rules/kind-nft", rules_kind_parse("nft") == RULES_NFT, "nft not parsed");
	CHECK("rules/kind-iptables", rules_kind_parse("iptables") == RULES_IPTABLES, "iptables not parsed");
	CHECK("rules/kind-bad", rules_kind_parse("ip6tables") < 0 && rules_kind_parse("") < 0, "bad kind accepted");
}

/* A real runtime: the SDK 3 test plugin's declared rule ports, its
 * default (7000,7001) or the section's value, without a key name known
 * to the daemon. */
static void test_declared_default(void)
{
	char cwd[512], text[2048], path[CFGLOAD_PATH], err[2048];
	const char *b = getenv("CTH_BUILD");
	struct runtime *rt = NULL;
	struct cfg *cfg;
	char *t;
	int rc;

	if (!getcwd(cwd, sizeof(cwd)))
		abort();
	snprintf(text, sizeof(text), "[server]\nplugin_dir = %s/%s/tests/sdk3\n"
		 "[helper s3]\nplugin = sdk3\nprotocol = udp\n"
		 "[helper t3]\nplugin = sdk3\nprotocol = udp\nports = 9000\nqueue = 1\n",
		 cwd, b ? b : "build");
	rc = cfgload_text(text, strlen(text), path, &cfg, err, sizeof(err));
	if (rc == 0)
		rc = runtime_build(cfg, &rt);
	unlink(path);
	CHECK("rules/sdk3-runtime", rc == 0 && rt, "rc=%d: %s", rc, err);
	if (!rt)
		return;
	t = print(rt, RULES_NFT);
	CHECK_LINE("rules/declared-default-ports", t, "\t\tudp dport { 7000, 7001 } ct helper set \"cth-s3-udp\"");
	CHECK_LINE("rules/declared-ports-set", t, "\t\tudp dport 9000 ct helper set \"cth-t3-udp\"");
	free(t);
	runtime_free(rt);
}

int main(void)
{
	test_nft();
	test_iptables();
	test_ipv4_only();
	test_port_sources();
	test_shards_nft();
	test_shards_iptables();
	test_kind();
	test_declared_default();
	return check_exit();
}
