/* SPDX-License-Identifier: MIT */
/*
 * Kernel helper registration: a run's helpers in and out of the kernel.
 *
 * Registration is one concern cut into files named cthelper_PART.c, whose
 * functions are named cthelper_PART_* (the family prefix says what they
 * serve, the part says where they live):
 *   cthelper.c          start and stop of a run's helpers, readiness, the
 *                       record (this file: the entry points)
 *   cthelper_reload.c   a reload's check and apply
 *   cthelper_release.c  --release, after a crash
 *   cthelper_decide.c   what to do with a helper someone registered (pure)
 *   cthelper_owned.c    what this run registered, and its share locks
 *   cthelper_msg.c      the nfnetlink_cthelper wire (requests, GET answer)
 *   cthelper_tuple.c    the (family, protocol) tuples an instance stands for
 *
 * Kernel helpers are global, not per network namespace, and a NEW for a
 * name+tuple that exists is an update (nfnl_cthelper_new() →
 * nfnl_cthelper_update()).  So registration first asks the kernel (GET)
 * what holds each name+tuple, and never silently rewrites a helper that
 * another program registered with another definition.
 */
#include <errno.h>
#include <linux/netfilter/nfnetlink_cthelper.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "cthelper.h"
#include "cthelper_decide.h"
#include "cthelper_msg.h"
#include "kcheck.h"

/* What the kernel held for each tuple of each instance before we began. */
struct cthelper_plan {
	bool exists;
	struct cthelper_state old;
};

static int cthelper_plan_build(struct nlreq *r, const struct runtime *rt,
			       struct cthelper_plan *plan);
static struct cthelper_plan *cthelper_plan_at(struct cthelper_plan *plan,
					      size_t inst,
					      const struct cthelper_tuple *t);
static int cthelper_register_one(struct nlreq *r, const struct runtime *rt,
				 size_t i, const struct cthelper_tuple *t,
				 const struct cthelper_plan *p);

int cthelper_register_all(struct nlreq *r, const struct runtime *rt,
			  struct cthelper_owned *owned)
{
	struct cthelper_plan *plan = calloc(rt->n_inst ? rt->n_inst : 1,
					    CTHELPER_N_TUPLES * sizeof(*plan));
	int rc;

	if (!plan)
		return -ENOMEM;
	if (!owned->n)
		snprintf(owned->share_dir, sizeof(owned->share_dir), "%s",
			 rt->cfg->share_dir ? rt->cfg->share_dir : "");
	rc = cthelper_plan_build(r, rt, plan);
	for (size_t i = 0; i < rt->n_inst && !rc; i++) {
		const struct instance *in = &rt->inst[i];

		cthelper_tuple_for_each(in, t) {
			int lock = cthelper_owned_share_hold(owned, in->name, t->family,
							     t->proto);

			rc = cthelper_register_one(r, rt, i, t, cthelper_plan_at(plan, i, t));
			if (!rc)
				rc = cthelper_owned_record(owned, in, t, lock);
			else if (lock >= 0)
				close(lock);
			if (rc)
				break;
		}
	}
	free(plan);
	return rc;
}

/*
 * A helper left ENABLED with nobody reading its queue lets packets bypass
 * the queue without conntrack confirmation, which breaks new connections:
 * so every helper is disabled first, before anything that can fail.
 */
void cthelper_disable_all(struct nlreq *r, struct cthelper_owned *owned)
{
	for (size_t i = 0; i < owned->n; i++) {
		struct cthelper_owned_entry *e = &owned->h[i];
		int rc;

		if (!e->enabled || e->left || !cthelper_owned_share_last(owned, e))
			continue;
		rc = cthelper_msg_status(r, e->name, e->family, e->proto,
					 NFCT_HELPER_STATUS_DISABLED);
		if (rc)
			log_err("helper '%s' (%s/%s): cannot disable: %s", e->name,
				cthelper_tuple_fam(e->family), cthelper_tuple_proto(e->proto),
				strerror(-rc));
		else
			e->enabled = false;
	}
}

void cthelper_delete_all(struct nlreq *r, struct cthelper_owned *owned)
{
	for (size_t i = 0; i < owned->n; i++) {
		struct cthelper_owned_entry *e = &owned->h[i];
		const char *fam = cthelper_tuple_fam(e->family);
		const char *pr = cthelper_tuple_proto(e->proto);
		int rc;

		/* one a reload disabled had its lock let go: ask again */
		if (e->left || (e->lock < 0 && !cthelper_owned_share_last(owned, e)))
			continue;
		rc = cthelper_msg_del(r, e->name, e->family, e->proto);
		cthelper_owned_share_drop(e);

		if (rc == -EBUSY)
			log_notice("helper '%s' (%s/%s) left registered but disabled: "
				   "a firewall rule still references it", e->name, fam, pr);
		else if (rc && rc != -ENOENT)
			log_err("helper '%s' (%s/%s): cannot delete: %s",
				e->name, fam, pr, strerror(-rc));
	}
	owned->n = 0;
}

bool cthelper_ready(struct nlreq *r, const struct runtime *rt, char *why,
		    size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < rt->n_inst; i++) {
		const struct instance *in = &rt->inst[i];

		cthelper_tuple_for_each(in, t) {
			const char *fam = cthelper_tuple_fam(t->family);
			const char *pr = cthelper_tuple_proto(t->proto);
			struct cthelper_state st;
			int rc = cthelper_msg_get(r, in->name, t->family, t->proto, &st);

			if (rc == -ENOENT) {
				snprintf(why, len, "helper '%s' (%s/%s) is not registered in the kernel",
					 in->name, fam, pr);
				return false;
			}
			if (rc) {
				snprintf(why, len, "cannot ask the kernel about helper '%s' (%s/%s): %s",
					 in->name, fam, pr, strerror(-rc));
				return false;
			}
			if (st.status != NFCT_HELPER_STATUS_ENABLED) {
				snprintf(why, len, "helper '%s' (%s/%s) is registered but disabled",
					 in->name, fam, pr);
				return false;
			}
			if (st.queue != in->queue) {
				snprintf(why, len, "helper '%s' (%s/%s) sends to queue %u, not to "
					 "this daemon's queue %u", in->name, fam, pr, st.queue,
					 in->queue);
				return false;
			}
			n++;
		}
	}
	snprintf(why, len, "%zu kernel helper(s) registered and enabled on this "
		 "daemon's queues", n);
	return n > 0;
}

int cthelper_record_fill(const struct cthelper_owned *owned,
			 const struct runtime *rt, struct record *out)
{
	int rc;

	for (size_t i = 0; i < owned->n; i++) {
		const struct cthelper_owned_entry *e = &owned->h[i];

		if (!e->left &&
		    (rc = record_add(out, e->name, e->family, e->proto, e->queue)) < 0)
			return rc;
	}
	for (size_t i = 0; i < rt->n_inst; i++) {
		const struct instance *in = &rt->inst[i];

		cthelper_tuple_for_each(in, t)
			if ((rc = record_add(out, in->name, t->family, t->proto, in->queue)) < 0)
				return rc;
	}
	return 0;
}

/* GET every tuple; log every refusal.  0, -EEXIST (refused) or -errno. */
static int cthelper_plan_build(struct nlreq *r, const struct runtime *rt,
			       struct cthelper_plan *plan)
{
	size_t refused = 0;
	char msg[2048];

	for (size_t i = 0; i < rt->n_inst; i++) {
		const struct instance *in = &rt->inst[i];

		cthelper_tuple_for_each(in, t) {
			struct cthelper_plan *p = cthelper_plan_at(plan, i, t);
			int rc = cthelper_msg_get(r, in->name, t->family, t->proto, &p->old);

			if (rc && rc != -ENOENT) {
				log_err("helper '%s' (%s/%s): cannot ask the kernel about it: %s: %s",
					in->name, cthelper_tuple_fam(t->family),
					cthelper_tuple_proto(t->proto), strerror(-rc),
					cthelper_msg_explain(rc));
				return rc;
			}
			p->exists = rc == 0;
			if (cthelper_decide(p->exists ? &p->old : NULL, in, t->family, t->proto,
					    rt->cfg->file, msg, sizeof(msg)) == CTHELPER_REFUSE) {
				log_err("%s", msg);
				refused++;
			}
		}
	}
	if (refused) {
		log_err("%zu kernel helper(s) belong to another program: nothing registered", refused);
		return -EEXIST;
	}
	return 0;
}

static struct cthelper_plan *cthelper_plan_at(struct cthelper_plan *plan,
					      size_t inst,
					      const struct cthelper_tuple *t)
{
	return &plan[inst * CTHELPER_N_TUPLES + cthelper_tuple_index(t)];
}

static int cthelper_register_one(struct nlreq *r, const struct runtime *rt,
				 size_t i, const struct cthelper_tuple *t,
				 const struct cthelper_plan *p)
{
	const struct instance *in = &rt->inst[i];
	const char *fam = cthelper_tuple_fam(t->family), *pr = cthelper_tuple_proto(t->proto);
	char msg[2048], kmod[64];
	int rc;

	switch (cthelper_decide(p->exists ? &p->old : NULL, in, t->family, t->proto,
				rt->cfg->file, msg, sizeof(msg))) {
	case CTHELPER_REUSE: log_info("%s", msg); break;
	case CTHELPER_TAKEOVER: log_notice("%s", msg); break;
	default: break;
	}
	rc = cthelper_msg_new(r, in, t->family, t->proto, NFCT_HELPER_STATUS_ENABLED);
	if (rc == -EBUSY && kcheck_kernel_helper_loaded(in->name, kmod, sizeof(kmod))) {
		log_err("helper '%s' (%s/%s): cannot register: the kernel's own helper "
			"module %s is loaded and owns the name '%s' (the two cannot "
			"coexist): 'modprobe -r %s' (and any NAT module using it), then "
			"start cthelperd before loading rules that name '%s' (they autoload "
			"it); cthelperd needs no kernel NAT helper module",
			in->name, fam, pr, kmod, in->name, kmod, in->name);
		return rc;
	}
	if (rc) {
		log_err("helper '%s' (%s/%s): cannot register: %s: %s",
			in->name, fam, pr, strerror(-rc), cthelper_msg_explain(rc));
		return rc;
	}
	log_info("helper '%s' (%s/%s) registered: plugin %s, queue %u, %zu bytes of state",
		 in->name, fam, pr, in->pl->desc->name, in->queue, in->pl->desc->priv_size);
	return 0;
}
