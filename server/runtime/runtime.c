/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "keys.h"
#include "runtime.h"

static int runtime_inst_build(struct runtime *rt, struct instance *in,
			      const struct cfg_helper *h);
static void runtime_match_set(struct cthd_rules *rs, const struct cth_plugin_desc *d);
static struct plugin *runtime_plugin_get(struct runtime *rt,
					 const struct cfg_helper *h);
static int runtime_set_apply(struct runtime *rt, const struct instance *in,
			     const struct cfg_bits *set, int line,
			     unsigned int want, unsigned int supported,
			     unsigned int *out);
static int runtime_classes_apply(struct runtime *rt, struct instance *in,
				 const struct cfg_helper *h);
static int runtime_opts_apply(struct runtime *rt, struct instance *in,
			      const struct cfg_helper *h);
static int runtime_inst_start(struct runtime *rt, struct instance *in,
			      const struct cfg_helper *h);
static void runtime_queue_add(struct runtime *rt, uint16_t q);

int runtime_build(struct cfg *cfg, struct runtime **out)
{
	struct runtime *rt = calloc(1, sizeof(*rt));
	bool bad = false;
	int rc = 0;

	if (!rt) {
		cfg_free(cfg);
		return -ENOMEM;
	}
	rt->cfg = cfg;
	for (size_t i = 0; i < cfg->n_helpers; i++) {
		const struct cfg_helper *h = &cfg->helpers[i];
		int r;

		/* the shards of a section share its settings: errors of
		 * shard 0 would only repeat, at the same lines */
		if (h->shard && bad)
			continue;
		r = runtime_inst_build(rt, &rt->inst[rt->n_inst++], h);
		bad = r != 0;
		if (r == -ENOMEM) {
			rc = r;
			break;
		}
		if (r)
			rc = -EINVAL;
		else
			runtime_queue_add(rt, h->queue);
	}
	if (rc) {
		runtime_free(rt);
		return rc;
	}
	*out = rt;
	return 0;
}

void runtime_free(struct runtime *rt)
{
	if (!rt)
		return;
	/* in reverse: an instance started later may rely on an earlier one */
	for (size_t i = rt->n_inst; i-- > 0;) {
		struct instance *in = &rt->inst[i];

		if (in->started && in->pl->desc->fini)
			in->pl->desc->fini(in->config, in->name);
		in->started = false;
	}
	for (size_t i = 0; i < rt->n_inst; i++) {
		free(rt->inst[i].config);
		free(rt->inst[i].defer);
	}
	for (size_t i = 0; i < rt->n_plugins; i++)
		loader_unload(rt->plugins[i]);
	cfg_free(rt->cfg);
	free(rt);
}

const struct instance *runtime_find(const struct runtime *rt, const char *name,
				    int family, int proto)
{
	unsigned fam = family == AF_INET6 ? CTH_FAMILY_IPV6 : CTH_FAMILY_IPV4;
	unsigned pr = proto == IPPROTO_UDP ? CTH_PROTO_UDP : CTH_PROTO_TCP;

	for (size_t i = 0; i < rt->n_inst; i++) {
		const struct instance *in = &rt->inst[i];

		if ((in->families & fam) &&
		    (in->protocols & pr) && strcmp(in->name, name) == 0)
			return in;
	}
	return NULL;
}

static int runtime_inst_build(struct runtime *rt, struct instance *in,
			      const struct cfg_helper *h)
{
	const struct cth_plugin_desc *d;

	in->pl = runtime_plugin_get(rt, h);
	if (!in->pl)
		return -EINVAL;
	d = in->pl->desc;
	snprintf(in->name, sizeof(in->name), "%s", h->name);
	in->line = h->line;
	/* | not ||: both keys' errors are reported */
	if (runtime_set_apply(rt, in, &cfg_families, h->family_line,
			      h->families, d->families, &in->families) |
	    runtime_set_apply(rt, in, &cfg_protocols, h->protocol_line,
			      h->protocols, d->protocols, &in->protocols))
		return -EINVAL;
	in->queue = h->queue;
	in->queue_len = h->queue_len;
	in->slot = (unsigned int)(in - rt->inst);
	in->fail_open = h->fail_open;
	in->guard = h->guard;
	in->sandbox = h->sandbox;
	pthread_mutex_init(&in->sb_status.lock, NULL);
	runtime_match_set(&in->match, d);
	if (runtime_classes_apply(rt, in, h))
		return -EINVAL;
	return runtime_opts_apply(rt, in, h);
}

/* The plugin's match rules as the matcher holds them (the loader checked
 * them: kmod/cthd_match.h's own rule). */
static void runtime_match_set(struct cthd_rules *rs, const struct cth_plugin_desc *d)
{
	memset(rs, 0, sizeof(*rs));
	for (unsigned int i = 0; d->match && i < d->n_match && i < CTHD_MATCH_MAX; i++) {
		const struct cth_match *m = &d->match[i];

		if (cthd_rule_set(&rs->rule[rs->n], m->prefix,
				  (unsigned int)strnlen(m->prefix, sizeof(m->prefix)),
				  m->at, m->dirs))
			rs->n++;
	}
	rs->flags = rs->n ? d->match_flags & CTHD_MATCH_F_ALL : 0;
}

static struct plugin *runtime_plugin_get(struct runtime *rt,
					 const struct cfg_helper *h)
{
	/* never the daemon's to load when its sandbox can read it */
	bool describe = h->sandbox.on && rt->cfg->describe;
	char err[768];
	struct plugin *pl;
	int rc;

	/* one entry per way of reading it: a described plugin has no code
	 * here for a sandbox = no helper to run */
	for (size_t i = 0; i < rt->n_plugins; i++)
		if (strcmp(rt->plugins[i]->desc->name, h->plugin) == 0 &&
		    rt->plugins[i]->described == describe)
			return rt->plugins[i];
	if (describe)
		rc = rt->cfg->describe(rt->cfg->plugin_dir, h->plugin, &pl, err, sizeof(err));
	else
		rc = loader_load(rt->cfg->plugin_dir, h->plugin, &pl, err, sizeof(err));
	if (rc) {
		cfg_error(rt->cfg, h->line, "helper '%s': %s", h->name, err);
		return NULL;
	}
	rt->plugins[rt->n_plugins++] = pl;
	return pl;
}

/*
 * The descriptor's families and protocols are the sets the plugin
 * supports: a helper gets the whole set unless its config names a part of
 * it, and naming anything outside it is an error at the key's line.
 */
static int runtime_set_apply(struct runtime *rt, const struct instance *in,
			     const struct cfg_bits *set, int line,
			     unsigned int want, unsigned int supported,
			     unsigned int *out)
{
	*out = want ? want : supported;
	if (!(want & ~supported))
		return 0;
	/* supported is a proper subset here, so one value names it */
	cfg_error(rt->cfg, line, "helper '%s': %s = %s: plugin '%s' supports %s only",
		  in->name, set->key, set->names[want & 3], in->pl->desc->name,
		  set->names[supported & 3]);
	return -EINVAL;
}

static int runtime_classes_apply(struct runtime *rt, struct instance *in,
				 const struct cfg_helper *h)
{
	const struct cth_plugin_desc *d = in->pl->desc;

	in->n_classes = d->n_classes;
	memcpy(in->classes, d->classes, sizeof(in->classes));
	for (size_t i = 0; i < h->n_policies; i++) {
		const struct cfg_policy *pol = &h->policies[i];
		unsigned c;

		for (c = 0; c < in->n_classes; c++)
			if (strcmp(in->classes[c].name, pol->cls) == 0)
				break;
		if (c == in->n_classes) {
			cfg_error(rt->cfg, pol->line, "plugin '%s' has no expectation class '%s'",
				  d->name, pol->cls);
			return -EINVAL;
		}
		if (pol->has_max)
			in->classes[c].max = pol->max;
		if (pol->has_timeout)
			in->classes[c].timeout = pol->timeout;
	}
	return 0;
}

/* The plugin's keys into a configuration block of the instance's own,
 * then the plugin's lifecycle. */
static int runtime_opts_apply(struct runtime *rt, struct instance *in,
			      const struct cfg_helper *h)
{
	const struct cth_plugin_desc *d = in->pl->desc;

	in->config = calloc(1, d->config_size ? d->config_size : 1);
	if (!in->config)
		return -ENOMEM;
	if (in->pl->described && !(in->defer = calloc(1, sizeof(*in->defer))))
		return -ENOMEM;
	if (keys_apply_defer(rt->cfg, h, d, in->config, in->defer))
		return -EINVAL;
	return runtime_inst_start(rt, in, h);
}

/* check() sees the whole block, defaults included; init() only a block
 * check() passed.  Their failures are the section's.  A described
 * plugin's are its sandbox's (sandboxd/serve.c). */
static int runtime_inst_start(struct runtime *rt, struct instance *in,
			      const struct cfg_helper *h)
{
	char msg[768];

	if (in->pl->described)
		return 0;
	if (runtime_inst_check(in, msg, sizeof(msg)) < 0 ||
	    runtime_inst_init(in, msg, sizeof(msg)) < 0) {
		cfg_error(rt->cfg, h->line, "%s", msg);
		return -EINVAL;
	}
	in->started = true;
	return 0;
}

int runtime_inst_check(const struct instance *in, char *msg, size_t len)
{
	const struct cth_plugin_desc *d = in->pl->desc;
	char why[256] = "";
	int rc;

	if (!d->check || (rc = d->check(in->config, why, sizeof(why))) == 0)
		return 0;
	why[sizeof(why) - 1] = '\0';
	snprintf(msg, len, "helper '%s': plugin '%s' refuses the configuration: %s",
		 in->name, d->name, why[0] ? why : strerror(rc < 0 ? -rc : EINVAL));
	return -EINVAL;
}

int runtime_inst_init(const struct instance *in, char *msg, size_t len)
{
	const struct cth_plugin_desc *d = in->pl->desc;
	int rc;

	if (!d->init || (rc = d->init(in->config, in->name)) == 0)
		return 0;
	snprintf(msg, len, "helper '%s': plugin '%s' could not set it up (init): %s",
		 in->name, d->name, strerror(rc < 0 ? -rc : EINVAL));
	return -EINVAL;
}

static void runtime_queue_add(struct runtime *rt, uint16_t q)
{
	for (size_t i = 0; i < rt->n_queues; i++)
		if (rt->queues[i] == q)
			return;
	rt->queues[rt->n_queues++] = q;
}
