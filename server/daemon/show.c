/* SPDX-License-Identifier: MIT */
/*
 * cthelperd -n's listing (show.h): what the runtime made of the file, one
 * block per section, read from the built runtime (the plugin's defaults
 * applied, its check() and init() passed), so it shows what a start would
 * run.  Shards are one section: their instances share every setting.
 */
#include <string.h>

#include "runtime/keys.h"
#include "show.h"

static void show_helper(FILE *out, const struct instance *in, const struct cfg_helper *h);
static void show_bits(FILE *out, const char *what, const struct cfg_bits *bits,
		      unsigned int set);
static void show_queues(FILE *out, const struct instance *in, const struct cfg_helper *h);
static void show_keys(FILE *out, const struct instance *in, const struct cfg_helper *h);
static void show_key(FILE *out, const struct instance *in, const struct cfg_helper *h,
		     const struct cth_key *k);
static const char *show_opt(const struct cfg_helper *h, const char *key);
static const struct cfg_helper *show_cfg_of(const struct runtime *rt, const char *name);

void show_print(FILE *out, const struct runtime *rt)
{
	for (size_t i = 0; i < rt->n_inst; i++) {
		const struct instance *in = &rt->inst[i];
		const struct cfg_helper *h = show_cfg_of(rt, in->name);

		/* the other shards are listed with their section's first */
		if (h && h->shard)
			continue;
		show_helper(out, in, h);
	}
}

static void show_match(FILE *out, const struct cth_plugin_desc *d);

static void show_helper(FILE *out, const struct instance *in, const struct cfg_helper *h)
{
	const struct cth_plugin_desc *d = in->pl->desc;

	fprintf(out, "helper %s\n", in->name);
	fprintf(out, "  plugin      %s %s (ABI %u)%s%s\n", in->pl->name, in->pl->version,
		d->abi_version, d->description && *d->description ? ": " : "",
		d->description ? d->description : "");
	show_bits(out, "protocols", &cfg_protocols, in->protocols);
	show_bits(out, "families", &cfg_families, in->families);
	show_queues(out, in, h);
	for (unsigned int c = 0; c < in->n_classes; c++)
		fprintf(out, "  class       %s: max %u, timeout %u s\n", in->classes[c].name,
			in->classes[c].max, in->classes[c].timeout);
	show_keys(out, in, h);
	if (d->n_counters) {
		fprintf(out, "  counters   ");
		for (unsigned int k = 0; k < d->n_counters; k++)
			fprintf(out, "%s %s", k ? "," : "", d->counters[k].name);
		fprintf(out, "\n");
	}
	show_match(out, d);
}

/* The match rules (issue 34): "queues" says what a filtering kernel
 * module queues, e.g. "PORT" at a line start, original direction. */
static void show_match(FILE *out, const struct cth_plugin_desc *d)
{
	static const char *const dirs[] = { "", "original", "reply", "both" };

	if (!d->n_match) {
		fprintf(out, "  queues      every packet (no match rules)\n");
		return;
	}
	fprintf(out, "  queues     ");
	for (unsigned int k = 0; k < d->n_match; k++)
		fprintf(out, "%s \"%s\" at %s (%s)", k ? "," : "", d->match[k].prefix,
			d->match[k].at == CTH_MATCH_AT_LINE ? "a line start" : "the start",
			dirs[d->match[k].dirs & 3u]);
	fprintf(out, "%s\n", d->match_flags & CTH_MATCH_NAT_ALL ?
		"; every packet with payload when NATed" : "");
}

/* "tcp, udp": each bit by its own name, not "both" */
static void show_bits(FILE *out, const char *what, const struct cfg_bits *bits,
		      unsigned int set)
{
	bool first = true;

	fprintf(out, "  %-11s", what);
	for (unsigned int bit = 1; bit <= 2; bit <<= 1)
		if (set & bit) {
			fprintf(out, "%s %s", first ? "" : ",", bits->names[bit]);
			first = false;
		}
	fprintf(out, "\n");
}

static void show_queues(FILE *out, const struct instance *in, const struct cfg_helper *h)
{
	unsigned int shards = h ? h->shards : 1;

	if (shards <= 1) {
		fprintf(out, "  queue       %u", in->queue);
	} else {
		fprintf(out, "  queues      %u..%u, shards", in->queue, in->queue + shards - 1);
		for (unsigned int k = 0; k < shards; k++)
			fprintf(out, " %s", h[k].name);
	}
	fprintf(out, " (queue_len %u, fail_open %s)\n", in->queue_len,
		in->fail_open ? "yes" : "no");
	if (in->sandbox.on)
		fprintf(out, "  sandbox     yes (timeout %u ms, verdict %s, memory %u MiB)\n",
			in->sandbox.timeout_ms, in->sandbox.drop ? "drop" : "accept",
			in->sandbox.memory_mb);
	else
		fprintf(out, "  sandbox     no: the plugin runs in the daemon, trusted with "
			"the firewall\n");
}

static void show_keys(FILE *out, const struct instance *in, const struct cfg_helper *h)
{
	const struct cth_plugin_desc *d = in->pl->desc;

	for (unsigned int k = 0; k < d->n_keys; k++)
		show_key(out, in, h, &d->keys[k]);
	if (d->n_keys || !h)
		return;
	/* no declarations: only what the section gave configure() */
	for (size_t i = 0; i < h->n_opts; i++)
		fprintf(out, "  key         %s = %s (for the plugin's configure())\n",
			h->opts[i].key, h->opts[i].value);
}

/* "name = value (type, default D): doc"; a custom key's value is the
 * section's text, the plugin alone knows what it made of it. */
static void show_key(FILE *out, const struct instance *in, const struct cfg_helper *h,
		     const struct cth_key *k)
{
	char value[512];
	const char *set;

	if (k->type == CTH_KEY_CUSTOM) {
		set = h ? show_opt(h, k->name) : NULL;
		snprintf(value, sizeof(value), "%s", set ? set : k->def ? k->def : "(not set)");
	} else if (k->type == CTH_KEY_STRING) {
		char text[KEYS_STRING_MAX + 1];

		/* quoted: an empty or blank-ended text stays visible */
		keys_format(k, in->config, text, sizeof(text));
		snprintf(value, sizeof(value), "\"%s\"", text);
	} else {
		keys_format(k, in->config, value, sizeof(value));
	}
	fprintf(out, "  key         %s = %s (%s, default %s)%s%s\n", k->name, value,
		keys_type_name(k), k->def ? k->def : "none", k->doc && *k->doc ? ": " : "",
		k->doc ? k->doc : "");
}

/* The section's last value of key, or NULL. */
static const char *show_opt(const struct cfg_helper *h, const char *key)
{
	const char *v = NULL;

	for (size_t i = 0; i < h->n_opts; i++)
		if (strcmp(h->opts[i].key, key) == 0)
			v = h->opts[i].value;
	return v;
}

static const struct cfg_helper *show_cfg_of(const struct runtime *rt, const char *name)
{
	for (size_t i = 0; i < rt->cfg->n_helpers; i++)
		if (strcmp(rt->cfg->helpers[i].name, name) == 0)
			return &rt->cfg->helpers[i];
	return NULL;
}
