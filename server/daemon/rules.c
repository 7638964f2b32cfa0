/* SPDX-License-Identifier: MIT */
/*
 * --print-rules: the ruleset that attaches the configured helpers.
 * Which ports a protocol uses is the plugin's knowledge, not the
 * daemon's: the ports are the daemon key rule_ports when the section sets
 * it, else the value of the key the plugin declares CTH_KEY_RULE_PORTS
 * (SDK 3, runtime/keys.h: the section's value or the plugin's default, as
 * parsed into the instance), else unknown, and the rule is printed
 * commented out.  Families and protocols come from the runtime too,
 * because a plugin decides their defaults.
 *
 * A section with shards = N is N kernel helpers (NAME, NAME.1, ...; see
 * config.h): each gets its own ct helper object or CT rules, and the rule
 * that attaches them spreads new connections over the N in turn.  Only
 * the first packet of a connection matters: the kernel gives a conntrack
 * its helper when it creates it (init_conntrack() takes the CT target's
 * template only for a new entry; nft_ct_helper_obj_eval() returns for a
 * confirmed one), and a user-space helper sends every packet to its one
 * queue (nfnl_userspace_cthelper(): NF_QUEUE_NR(helper->queue_num)).
 */
#include <errno.h>
#include <string.h>

#include "rules.h"
#include "runtime/keys.h"

struct rules_ports {
	size_t n;
	uint16_t port[CFG_MAX_RULE_PORTS];
};

static const char *const rules_proto_name[] = {
	[CTH_PROTO_TCP] = "tcp", [CTH_PROTO_UDP] = "udp",
};
static const unsigned int rules_protos[] = { CTH_PROTO_TCP, CTH_PROTO_UDP };

/* Where a helper is attached: packets that arrive (raw PREROUTING, or an
 * nft prerouting chain) and packets this host sends (OUTPUT).  The plugin
 * decides through its CTH_KEY_RULE_PREROUTING / CTH_KEY_RULE_OUTPUT keys;
 * a plugin without them is attached on arrival only, as before. */
enum rules_hook {
	RULES_PREROUTING = 1u << 0,
	RULES_OUTPUT = 1u << 1,
};

static const struct rules_chain {
	enum rules_hook hook;
	const char *ipt;  /* the raw table's chain */
	const char *nft;  /* our table's base chain and its hook */
} rules_chains[] = {
	{ .hook = RULES_PREROUTING, .ipt = "PREROUTING", .nft = "prerouting" },
	{ .hook = RULES_OUTPUT, .ipt = "OUTPUT", .nft = "output" },
};
#define RULES_N_CHAINS (sizeof(rules_chains) / sizeof(rules_chains[0]))

static const char *const rules_kind_name[] = {
	[RULES_NFT] = "nft", [RULES_IPTABLES] = "iptables",
};

/* What the rules of one family are spelt with, per ruleset kind. */
static const struct rules_family {
	unsigned int bit;
	const char *iptables;   /* the command */
	const char *nft_l3;     /* ct helper l3proto */
	const char *nft_nfproto;
} rules_families[] = {
	{ .bit = CTH_FAMILY_IPV4, .iptables = "iptables", .nft_l3 = "ip",
	  .nft_nfproto = "ipv4" },
	{ .bit = CTH_FAMILY_IPV6, .iptables = "ip6tables", .nft_l3 = "ip6",
	  .nft_nfproto = "ipv6" },
};
#define RULES_N_FAMILIES (sizeof(rules_families) / sizeof(rules_families[0]))

static void rules_print_header(FILE *out, const struct runtime *rt,
			       enum rules_kind kind);
static void rules_print_nft(FILE *out, const struct runtime *rt);
static void rules_nft_objects(FILE *out, const struct instance *in);
static const struct rules_family *rules_one_family(unsigned int families);
static void rules_nft_chain(FILE *out, const struct runtime *rt,
			    const struct rules_chain *c);
static void rules_nft_set(FILE *out, const struct runtime *rt,
			  const struct instance *in);
static void rules_nft_ports(FILE *out, const struct rules_ports *p);
static void rules_nft_spread(FILE *out, const struct cfg_helper *h,
			     const char *proto);
static void rules_print_iptables(FILE *out, const struct runtime *rt);
static void rules_ipt_helper(FILE *out, const struct runtime *rt,
			     const struct instance *in,
			     const struct rules_family *fam);
static void rules_ipt_port(FILE *out, const struct cfg_helper *h,
			   unsigned int shards, const struct instance *in,
			   const struct rules_family *fam, const char *proto,
			   const char *port, const char *hash);
static void rules_ipt_one(FILE *out, const struct cfg_helper *h,
			  unsigned int shards, const struct instance *in,
			  const struct rules_family *fam, const char *proto,
			  const char *port, const char *hash, const char *chain);
static void rules_ipt_spread(FILE *out, const struct cfg_helper *h,
			     const struct rules_family *fam, const char *proto,
			     const char *port, const char *hash, const char *chain);
static unsigned int rules_hooks(const struct instance *in);
static const struct cfg_helper *rules_helper_cfg(const struct runtime *rt,
						 const struct instance *in);
static unsigned int rules_shards(const struct cfg_helper *h);
static void rules_ports_get(const struct instance *in, const struct cfg_helper *h,
			    struct rules_ports *p);
static void rules_print_no_port(FILE *out, const char *indent, const char *name,
				const char *file);

int rules_kind_parse(const char *s)
{
	for (size_t i = 0; i < sizeof(rules_kind_name) / sizeof(rules_kind_name[0]); i++)
		if (strcmp(s, rules_kind_name[i]) == 0)
			return (int)i;
	return -EINVAL;
}

int rules_print(FILE *out, const struct runtime *rt, enum rules_kind kind)
{
	rules_print_header(out, rt, kind);
	if (kind == RULES_NFT)
		rules_print_nft(out, rt);
	else
		rules_print_iptables(out, rt);
	return fflush(out) || ferror(out) ? -EIO : 0;
}

static void rules_print_header(FILE *out, const struct runtime *rt,
			       enum rules_kind kind)
{
	fprintf(out,
		"# Generated by cthelperd --print-rules %s from %s.\n"
		"# Load these rules only while cthelperd is running (its helpers\n"
		"# registered): otherwise the kernel autoloads its own helper module of\n"
		"# the same name and cthelperd's registration then fails with EBUSY.\n",
		rules_kind_name[kind], rt->cfg->file);
}

/* --- nftables -------------------------------------------------------- */

static void rules_print_nft(FILE *out, const struct runtime *rt)
{
	fprintf(out, "table inet cthelperd {\n");
	for (size_t i = 0; i < rt->n_inst; i++)
		rules_nft_objects(out, &rt->inst[i]);
	fprintf(out,
		"\n"
		"\t# After conntrack (priority -200) has created the entry: a helper\n"
		"\t# set at raw priority finds no conntrack to attach to.\n");
	for (size_t c = 0; c < RULES_N_CHAINS; c++)
		rules_nft_chain(out, rt, &rules_chains[c]);
	fprintf(out,
		"\n"
		"\t# Expected connections pass as related; add your own policy and\n"
		"\t# the new connections you allow.\n"
		"\tchain forward {\n"
		"\t\ttype filter hook forward priority filter; policy accept;\n"
		"\t\tct state established,related accept\n"
		"\t}\n"
		"}\n");
}

static void rules_nft_objects(FILE *out, const struct instance *in)
{
	const struct rules_family *fam = rules_one_family(in->families);

	for (size_t j = 0; j < 2; j++) {
		const char *proto = rules_proto_name[rules_protos[j]];

		if (!(in->protocols & rules_protos[j]))
			continue;
		fprintf(out, "\tct helper cth-%s-%s {\n\t\ttype \"%s\" protocol %s",
			in->name, proto, in->name, proto);
		if (fam)
			fprintf(out, "; l3proto %s", fam->nft_l3);
		fprintf(out, "\n\t}\n");
	}
}

/* In an inet table a ct helper without l3proto stands for the IPv4 and the
 * IPv6 helper of that name (measured, conf/cthelperd.nft); with one
 * family it must name it, and the rule must match only that family. */
static const struct rules_family *rules_one_family(unsigned int families)
{
	for (size_t i = 0; i < RULES_N_FAMILIES; i++)
		if (families == rules_families[i].bit)
			return &rules_families[i];
	return NULL;
}

/* One base chain with the instances attached on its hook; the output
 * chain only when one is (prerouting always: the file's usual shape). */
static void rules_nft_chain(FILE *out, const struct runtime *rt,
			    const struct rules_chain *c)
{
	unsigned int used = 0;

	for (size_t i = 0; i < rt->n_inst; i++)
		used |= rules_hooks(&rt->inst[i]);
	if (c->hook != RULES_PREROUTING && !(used & c->hook))
		return;
	if (c->hook != RULES_PREROUTING)
		fprintf(out, "\n\t# Packets this host sends itself (its own queries).\n");
	fprintf(out, "\tchain %s {\n"
		"\t\ttype filter hook %s priority filter; policy accept;\n", c->nft, c->nft);
	for (size_t i = 0; i < rt->n_inst; i++)
		if (rules_hooks(&rt->inst[i]) & c->hook)
			rules_nft_set(out, rt, &rt->inst[i]);
	fprintf(out, "\t}\n");
}

static void rules_nft_set(FILE *out, const struct runtime *rt,
			  const struct instance *in)
{
	const struct rules_family *fam = rules_one_family(in->families);
	const struct cfg_helper *h = rules_helper_cfg(rt, in);
	unsigned int shards = rules_shards(h);
	struct rules_ports p;

	if (!shards)
		return;
	rules_ports_get(in, h, &p);
	if (!p.n)
		rules_print_no_port(out, "\t\t", in->name, rt->cfg->file);
	if (shards > 1)
		fprintf(out, "\t\t# %s: %u shards (%s to %s), each new connection to the next\n",
			in->name, shards, h[0].name, h[shards - 1].name);
	for (size_t j = 0; j < 2; j++) {
		const char *proto = rules_proto_name[rules_protos[j]];

		if (!(in->protocols & rules_protos[j]))
			continue;
		fprintf(out, "\t\t%s", p.n ? "" : "# ");
		if (fam)
			fprintf(out, "meta nfproto %s ", fam->nft_nfproto);
		fprintf(out, "%s dport ", proto);
		if (p.n)
			rules_nft_ports(out, &p);
		else
			fprintf(out, "PORT");
		if (shards > 1)
			rules_nft_spread(out, h, proto);
		else
			fprintf(out, " ct helper set \"cth-%s-%s\"\n", in->name, proto);
	}
}

static void rules_nft_ports(FILE *out, const struct rules_ports *p)
{
	if (p->n == 1) {
		fprintf(out, "%u", p->port[0]);
		return;
	}
	fprintf(out, "{ ");
	for (size_t i = 0; i < p->n; i++)
		fprintf(out, "%s%u", i ? ", " : "", p->port[i]);
	fprintf(out, " }");
}

/*
 * Shards: "ct state new" so that numgen counts connections rather than
 * packets, and numgen inc (one counter per rule, nft_ng_inc_gen()) picks
 * the object of the next shard in turn.
 */
static void rules_nft_spread(FILE *out, const struct cfg_helper *h,
			     const char *proto)
{
	fprintf(out, " ct state new ct helper set numgen inc mod %u map { ", h->shards);
	for (unsigned int k = 0; k < h->shards; k++)
		fprintf(out, "%s%u : \"cth-%s-%s\"", k ? ", " : "", k, h[k].name, proto);
	fprintf(out, " }\n");
}

/* --- iptables -------------------------------------------------------- */

static void rules_print_iptables(FILE *out, const struct runtime *rt)
{
	unsigned int used = 0;

	for (size_t i = 0; i < rt->n_inst; i++)
		for (size_t f = 0; f < RULES_N_FAMILIES; f++)
			if (rt->inst[i].families & rules_families[f].bit)
				rules_ipt_helper(out, rt, &rt->inst[i], &rules_families[f]);
	for (size_t i = 0; i < rt->n_inst; i++)
		used |= rt->inst[i].families;
	fprintf(out, "# Expected connections pass as related; add your own policy and\n"
		"# the new connections you allow.\n");
	for (size_t f = 0; f < RULES_N_FAMILIES; f++)
		if (used & rules_families[f].bit)
			fprintf(out, "%s -A FORWARD -m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT\n",
				rules_families[f].iptables);
}

static void rules_ipt_helper(FILE *out, const struct runtime *rt,
			     const struct instance *in,
			     const struct rules_family *fam)
{
	const struct cfg_helper *h = rules_helper_cfg(rt, in);
	unsigned int shards = rules_shards(h);
	struct rules_ports p;
	char port[8];

	if (!shards)
		return;
	rules_ports_get(in, h, &p);
	if (!p.n)
		rules_print_no_port(out, "", in->name, rt->cfg->file);
	if (shards > 1)
		fprintf(out, "# %s: %u shards (%s to %s), new connections in turn\n",
			in->name, shards, h[0].name, h[shards - 1].name);
	for (size_t j = 0; j < 2; j++) {
		const char *proto = rules_proto_name[rules_protos[j]];

		if (!(in->protocols & rules_protos[j]))
			continue;
		if (!p.n)
			rules_ipt_port(out, h, shards, in, fam, proto, "PORT", "# ");
		for (size_t k = 0; k < p.n; k++) {
			snprintf(port, sizeof(port), "%u", p.port[k]);
			rules_ipt_port(out, h, shards, in, fam, proto, port, "");
		}
	}
}

/* One port's rule(s) on each hook the instance is attached on, commented
 * out (hash "# ") when the port is unknown. */
static void rules_ipt_port(FILE *out, const struct cfg_helper *h,
			   unsigned int shards, const struct instance *in,
			   const struct rules_family *fam, const char *proto,
			   const char *port, const char *hash)
{
	unsigned int hooks = rules_hooks(in);

	for (size_t c = 0; c < RULES_N_CHAINS; c++)
		if (hooks & rules_chains[c].hook)
			rules_ipt_one(out, h, shards, in, fam, proto, port, hash,
				      rules_chains[c].ipt);
}

static void rules_ipt_one(FILE *out, const struct cfg_helper *h,
			  unsigned int shards, const struct instance *in,
			  const struct rules_family *fam, const char *proto,
			  const char *port, const char *hash, const char *chain)
{
	if (shards > 1)
		rules_ipt_spread(out, h, fam, proto, port, hash, chain);
	else
		fprintf(out, "%s%s -t raw -A %s -p %s --dport %s -j CT --helper %s\n",
			hash, fam->iptables, chain, proto, port, in->name);
}

/*
 * Shards, one port: the raw table runs before conntrack, so no match there
 * can tell a connection's first packet; for TCP that packet is the SYN
 * (--syn), so the nth counters count connections, one turn each.  Every
 * rule has its own counter (statistic_mt_check() allocates it per rule),
 * all started apart (--packet k) and all stepped by every packet that
 * reaches them, so exactly one rule of the N matches each packet.  A UDP
 * flow has no such first packet: there the turn moves with every packet.
 * Then a TCP rule without --syn for shard 0, for a connection conntrack
 * picks up in mid-stream (nf_conntrack_tcp_loose), as an unsharded helper
 * would have it; a SYN already carries a template from its nth rule, and
 * xt_ct_target() leaves a packet that has one (skb->_nfct set) alone.
 */
static void rules_ipt_spread(FILE *out, const struct cfg_helper *h,
			     const struct rules_family *fam, const char *proto,
			     const char *port, const char *hash, const char *chain)
{
	bool tcp = strcmp(proto, "tcp") == 0;

	for (unsigned int k = 0; k < h->shards; k++)
		fprintf(out, "%s%s -t raw -A %s -p %s --dport %s%s -m statistic --mode nth "
			"--every %u --packet %u -j CT --helper %s\n", hash, fam->iptables, chain,
			proto, port, tcp ? " --syn" : "", h->shards, k, h[k].name);
	if (tcp)
		fprintf(out, "%s%s -t raw -A %s -p %s --dport %s -j CT --helper %s\n",
			hash, fam->iptables, chain, proto, port, h->name);
}

/* --- for both kinds -------------------------------------------------- */

static const struct cfg_helper *rules_helper_cfg(const struct runtime *rt,
						 const struct instance *in)
{
	for (size_t i = 0; i < rt->cfg->n_helpers; i++)
		if (strcmp(rt->cfg->helpers[i].name, in->name) == 0)
			return &rt->cfg->helpers[i];
	return NULL;
}

/* How many shards the rule for in spreads over: 1 for a helper of its
 * own, 0 for shards 1..N-1 (the rule of shard 0 names them; they follow
 * it in the config, cfg_shards_expand()). */
static unsigned int rules_shards(const struct cfg_helper *h)
{
	if (!h)
		return 1;
	return h->shard ? 0 : h->shards;
}

/* The hooks in's plugin attaches it on, by its keys' values (runtime/keys.h). */
static unsigned int rules_hooks(const struct instance *in)
{
	const struct cth_plugin_desc *d = in->pl->desc;
	unsigned int hooks = 0;

	if (keys_rule_hook(d, in->config, CTH_KEY_RULE_PREROUTING, true))
		hooks |= RULES_PREROUTING;
	if (keys_rule_hook(d, in->config, CTH_KEY_RULE_OUTPUT, false))
		hooks |= RULES_OUTPUT;
	return hooks;
}

/* rule_ports, else the plugin's declared rule ports (CTH_KEY_RULE_PORTS). */
static void rules_ports_get(const struct instance *in, const struct cfg_helper *h,
			    struct rules_ports *p)
{
	if (h && h->n_rule_ports) {
		p->n = h->n_rule_ports;
		memcpy(p->port, h->rule_ports, h->n_rule_ports * sizeof(p->port[0]));
		return;
	}
	p->n = keys_rule_ports(in->pl->desc, in->config, p->port, CFG_MAX_RULE_PORTS);
}

static void rules_print_no_port(FILE *out, const char *indent, const char *name,
				const char *file)
{
	fprintf(out, "%s# %s: no port known: set rule_ports in [helper %s] of %s,\n"
		"%s# then uncomment:\n", indent, name, name, file, indent);
}
