/* SPDX-License-Identifier: MIT */
/*
 * Deciding what to do with a kernel helper someone registered under our
 * name and tuple (cthelper.c says why registration asks first): reuse
 * it, take it over, or refuse and say what differs and what to do.
 * Pure: the caller asks the kernel and logs.
 */
#include <linux/netfilter/nfnetlink_cthelper.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cthelper_decide.h"
#include "cthelper_tuple.h"

static void cthelper_decide_tunable(const struct cthelper_state *old,
				    const struct instance *in, char *buf, size_t len);
static void cthelper_decide_add(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

enum cthelper_action cthelper_decide(const struct cthelper_state *old,
				     const struct instance *in, int family,
				     int proto, const char *conf, char *msg,
				     size_t msglen)
{
	const char *fam = cthelper_tuple_fam(family), *pr = cthelper_tuple_proto(proto);
	char layout[512] = "", tunable[512] = "";
	bool enabled;

	msg[0] = '\0';
	if (!old)
		return CTHELPER_CREATE;
	enabled = old->status == NFCT_HELPER_STATUS_ENABLED;
	cthelper_decide_layout(old, in, layout, sizeof(layout));
	cthelper_decide_tunable(old, in, tunable, sizeof(tunable));
	if (!layout[0] && !tunable[0]) {
		/* our own leftover (kill -9), or a cthelperd in another network
		 * namespace serving the same helper: queues are per namespace,
		 * kernel helpers are not */
		snprintf(msg, msglen, "helper '%s' (%s/%s) was already registered (%s) "
			 "with this configuration, by an earlier cthelperd or one in "
			 "another network namespace: reusing it",
			 in->name, fam, pr, enabled ? "enabled" : "disabled");
		return CTHELPER_REUSE;
	}
	if (enabled || layout[0]) {
		snprintf(msg, msglen, "helper '%s' (%s/%s) is already registered%s by "
			 "another program with %s%s%s: %sstop that program or delete "
			 "it with 'nfct helper delete %s %s %s', or run 'cthelperd "
			 "--release -c %s' if it is a leftover of a crashed cthelperd "
			 "with another configuration",
			 in->name, fam, pr, enabled ? "" : " (disabled)", layout,
			 layout[0] && tunable[0] ? ", " : "", tunable,
			 enabled ? "" : "the kernel cannot change that in place; ",
			 in->name, cthelper_tuple_nfct_fam(family), pr, conf);
		return CTHELPER_REFUSE;
	}
	snprintf(msg, msglen, "helper '%s' (%s/%s) was already registered but "
		 "disabled, with %s: taking it over with this configuration",
		 in->name, fam, pr, tunable);
	return CTHELPER_TAKEOVER;
}

void cthelper_decide_layout(const struct cthelper_state *old,
			    const struct instance *in, char *buf, size_t len)
{
	if (old->priv_len != in->pl->desc->priv_size)
		cthelper_decide_add(buf, len, "%u bytes of private state (we want %zu)",
				    old->priv_len, in->pl->desc->priv_size);
	if (old->n_classes != in->n_classes) {
		cthelper_decide_add(buf, len, "%u expectation classes (we want %u)",
				    old->n_classes, in->n_classes);
		return;
	}
	for (unsigned int i = 0; i < in->n_classes; i++)
		if (strcmp(old->classes[i].name, in->classes[i].name) != 0)
			cthelper_decide_add(buf, len, "class %u named '%s' (we want '%s')",
					    i, old->classes[i].name, in->classes[i].name);
}

/* What an update may change: the queue and each class's max and timeout
 * (classes only where the layout matches: otherwise they are not the
 * same classes). */
static void cthelper_decide_tunable(const struct cthelper_state *old,
				    const struct instance *in, char *buf, size_t len)
{
	if (old->queue != in->queue)
		cthelper_decide_add(buf, len, "queue %u (we want queue %u)",
				    old->queue, in->queue);
	if (old->n_classes != in->n_classes)
		return;
	for (unsigned int i = 0; i < in->n_classes; i++) {
		const struct cthelper_class *o = &old->classes[i];
		const struct cth_expect_class *c = &in->classes[i];

		if (strcmp(o->name, c->name) != 0)
			continue;
		if (o->max != c->max)
			cthelper_decide_add(buf, len, "class '%s' max %u (we want %u)",
					    c->name, o->max, c->max);
		if (o->timeout != c->timeout)
			cthelper_decide_add(buf, len, "class '%s' timeout %u s (we want %u s)",
					    c->name, o->timeout, c->timeout);
	}
}

/* Append one item to a ", "-separated list in buf. */
static void cthelper_decide_add(char *buf, size_t len, const char *fmt, ...)
{
	size_t n = strlen(buf);
	va_list ap;

	if (n && n + 2 < len) {
		memcpy(buf + n, ", ", 3);
		n += 2;
	}
	va_start(ap, fmt);
	vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
}
