/* SPDX-License-Identifier: MIT */
/* What a reload decides before it touches anything (reload_plan.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "reload_plan.h"
#include "runtime/stats.h"

static const char *reload_plan_str(const char *s);
static const struct instance *reload_plan_inst(const struct runtime *rt,
					       const char *name);
static uint32_t reload_plan_counters_same(const struct cth_plugin_desc *was,
					  const struct cth_plugin_desc *now);

int reload_plan_server_check(const struct cfg *old, const struct cfg *nc,
			     char *msg, size_t len)
{
	const char *key = NULL, *was = NULL, *now = NULL;
	char wb[16], nb[16];

	if ((old->control_socket == NULL) != (nc->control_socket == NULL) ||
	    (old->control_socket && strcmp(old->control_socket, nc->control_socket))) {
		key = "control_socket";
		was = reload_plan_str(old->control_socket);
		now = reload_plan_str(nc->control_socket);
	} else if ((old->metrics == NULL) != (nc->metrics == NULL) ||
		   (old->metrics && strcmp(old->metrics, nc->metrics))) {
		key = "metrics";
		was = reload_plan_str(old->metrics);
		now = reload_plan_str(nc->metrics);
	} else if ((old->user == NULL) != (nc->user == NULL) ||
		   (old->user && strcmp(old->user, nc->user))) {
		/* the drop happened once; root is gone */
		key = "user";
		was = reload_plan_str(old->user);
		now = reload_plan_str(nc->user);
	} else if ((old->sandbox_user == NULL) != (nc->sandbox_user == NULL) ||
		   (old->sandbox_user && strcmp(old->sandbox_user, nc->sandbox_user))) {
		/* the spawner was given its user at start, as root */
		key = "sandbox_user";
		was = reload_plan_str(old->sandbox_user);
		now = reload_plan_str(nc->sandbox_user);
	} else if (old->control_mode != nc->control_mode) {
		key = "control_mode";
		snprintf(wb, sizeof(wb), "%04o", old->control_mode);
		snprintf(nb, sizeof(nb), "%04o", nc->control_mode);
		was = wb;
		now = nb;
	} else if (old->control_gid != nc->control_gid) {
		key = "control_group";
		snprintf(wb, sizeof(wb), "%ld", old->control_gid);
		snprintf(nb, sizeof(nb), "%ld", nc->control_gid);
		was = wb;
		now = nb;
	}
	if (!key)
		return 0;
	snprintf(msg, len, "%s: [server] %s changed (%s, now %s): it is set up once "
		 "at start; restart cthelperd to change it", nc->file, key, was, now);
	return -EINVAL;
}

size_t reload_plan_slots_assign(const struct runtime *old, struct runtime *nrt,
				unsigned int *fresh)
{
	bool used[STATS_SLOTS] = { false };
	size_t n_fresh = 0;

	for (size_t i = 0; i < old->n_inst; i++)
		used[old->inst[i].slot] = true;
	for (size_t i = 0; i < nrt->n_inst; i++) {
		struct instance *in = &nrt->inst[i];
		size_t j;

		for (j = 0; j < old->n_inst; j++)
			if (strcmp(old->inst[j].name, in->name) == 0)
				break;
		if (j < old->n_inst) {
			in->slot = old->inst[j].slot;
			continue;
		}
		/* a slot neither runtime uses: nobody counts into it now, so
		 * it can be cleared; there are twice as many as one runtime
		 * can have instances */
		for (unsigned int s = 0; s < STATS_SLOTS; s++) {
			if (used[s])
				continue;
			used[s] = true;
			in->slot = s;
			fresh[n_fresh++] = s;
			break;
		}
	}
	return n_fresh;
}

void reload_plan_counters_reset(const struct runtime *old, const struct runtime *nrt,
				uint32_t *reset)
{
	for (unsigned int s = 0; s < STATS_SLOTS; s++)
		reset[s] = 0;
	for (size_t i = 0; i < nrt->n_inst; i++) {
		const struct instance *in = &nrt->inst[i], *o = reload_plan_inst(old, in->name);
		uint32_t keep = 0;

		if (o && strcmp(o->pl->name, in->pl->name) == 0)
			keep = reload_plan_counters_same(o->pl->desc, in->pl->desc);
		reset[in->slot] = ~keep;
	}
}

void reload_plan_summary(const struct runtime *old, const struct runtime *nrt,
			 struct strbuf *b)
{
	strbuf_printf(b, "%zu helper(s) on %zu queue(s)", nrt->n_inst, nrt->n_queues);
	for (size_t i = 0; i < nrt->n_inst; i++) {
		const struct instance *in = &nrt->inst[i], *o = reload_plan_inst(old, in->name);

		if (!o) {
			strbuf_printf(b, "; added %s", in->name);
			continue;
		}
		if (o->queue != in->queue)
			strbuf_printf(b, "; %s moved from queue %u to %u", in->name,
				      o->queue, in->queue);
		if (strcmp(o->pl->version, in->pl->version) || strcmp(o->pl->name, in->pl->name))
			strbuf_printf(b, "; %s plugin %s %s, was %s %s", in->name,
				      in->pl->name, in->pl->version, o->pl->name, o->pl->version);
	}
	for (size_t i = 0; i < old->n_inst; i++)
		if (!reload_plan_inst(nrt, old->inst[i].name))
			strbuf_printf(b, "; removed %s", old->inst[i].name);
}

static const char *reload_plan_str(const char *s)
{
	return s ? s : "(unset)";
}

static const struct instance *reload_plan_inst(const struct runtime *rt, const char *name)
{
	for (size_t i = 0; i < rt->n_inst; i++)
		if (strcmp(rt->inst[i].name, name) == 0)
			return &rt->inst[i];
	return NULL;
}

/* The counter indexes both declare with the same name, as bits. */
static uint32_t reload_plan_counters_same(const struct cth_plugin_desc *was,
					  const struct cth_plugin_desc *now)
{
	uint32_t same = 0;

	for (unsigned int k = 0; k < was->n_counters && k < now->n_counters; k++)
		if (strcmp(was->counters[k].name, now->counters[k].name) == 0)
			same |= 1u << k;
	return same;
}
