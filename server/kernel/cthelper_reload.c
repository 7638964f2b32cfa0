/* SPDX-License-Identifier: MIT */
/*
 * A reload's kernel helpers (server/daemon/reload.c drives it): checked
 * against the kernel before the swap, registered, updated and disabled
 * after it.
 */
#include <errno.h>
#include <linux/netfilter/nfnetlink_cthelper.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "cthelper_decide.h"
#include "cthelper_msg.h"
#include "cthelper_reload.h"

static int cthelper_reload_check_one(struct nlreq *r, const struct runtime *nrt,
				     const struct instance *in,
				     const struct cthelper_tuple *t,
				     const struct cthelper_owned *owned);
static int cthelper_reload_register(struct nlreq *r, const struct runtime *nrt,
				    struct cthelper_owned *owned);
static int cthelper_reload_disable(struct nlreq *r, const struct runtime *nrt,
				   struct cthelper_owned *owned);

int cthelper_reload_check(struct nlreq *r, const struct runtime *nrt,
			  const struct cthelper_owned *owned)
{
	int bad = 0;

	for (size_t i = 0; i < nrt->n_inst; i++)
		cthelper_tuple_for_each(&nrt->inst[i], t) {
			int rc = cthelper_reload_check_one(r, nrt, &nrt->inst[i], t, owned);

			if (rc && !bad)
				bad = rc;
		}
	return bad;
}

int cthelper_reload_apply(struct nlreq *r, const struct runtime *nrt,
			  struct cthelper_owned *owned)
{
	int bad = cthelper_reload_register(r, nrt, owned);
	int rc = cthelper_reload_disable(r, nrt, owned);

	return bad ? bad : rc;
}

/* One tuple of a reloaded instance: 0 when it may be registered. */
static int cthelper_reload_check_one(struct nlreq *r, const struct runtime *nrt,
				     const struct instance *in,
				     const struct cthelper_tuple *t,
				     const struct cthelper_owned *owned)
{
	const char *fam = cthelper_tuple_fam(t->family), *pr = cthelper_tuple_proto(t->proto);
	struct cthelper_state old;
	char msg[2048], layout[512] = "";
	int rc = cthelper_msg_get(r, in->name, t->family, t->proto, &old);

	if (rc == -ENOENT)
		return 0;
	if (rc) {
		log_err("helper '%s' (%s/%s): cannot ask the kernel about it: %s: %s",
			in->name, fam, pr, strerror(-rc), cthelper_msg_explain(rc));
		return rc;
	}
	if (!cthelper_owned_find(owned, in->name, t->family, t->proto)) {
		if (cthelper_decide(&old, in, t->family, t->proto, nrt->cfg->file, msg,
				    sizeof(msg)) != CTHELPER_REFUSE)
			return 0;
		log_err("%s", msg);
		return -EEXIST;
	}
	cthelper_decide_layout(&old, in, layout, sizeof(layout));
	if (!layout[0])
		return 0;
	log_err("helper '%s' (%s/%s): the kernel holds it with %s: it cannot change "
		"that in place, and re-creating it would take the helper off every "
		"connection using it; restart cthelperd to apply this",
		in->name, fam, pr, layout);
	return -EEXIST;
}

/* Every tuple of nrt registered or updated, ENABLED: 0 or the first error. */
static int cthelper_reload_register(struct nlreq *r, const struct runtime *nrt,
				    struct cthelper_owned *owned)
{
	int bad = 0, rc;

	for (size_t i = 0; i < nrt->n_inst; i++) {
		const struct instance *in = &nrt->inst[i];

		cthelper_tuple_for_each(in, t) {
			int lock = cthelper_owned_share_hold(owned, in->name, t->family,
							     t->proto);

			rc = cthelper_msg_new(r, in, t->family, t->proto,
					      NFCT_HELPER_STATUS_ENABLED);
			if (rc) {
				log_err("helper '%s' (%s/%s): cannot register: %s: %s",
					in->name, cthelper_tuple_fam(t->family),
					cthelper_tuple_proto(t->proto), strerror(-rc),
					cthelper_msg_explain(rc));
				if (lock >= 0)
					close(lock);
			} else {
				rc = cthelper_owned_record(owned, in, t, lock);
			}
			if (rc && !bad)
				bad = rc;
		}
	}
	return bad;
}

/* The owned helpers nrt no longer names, disabled unless another daemon
 * still serves them: 0 or the first error. */
static int cthelper_reload_disable(struct nlreq *r, const struct runtime *nrt,
				   struct cthelper_owned *owned)
{
	int bad = 0, rc;

	for (size_t i = 0; i < owned->n; i++) {
		struct cthelper_owned_entry *e = &owned->h[i];
		const char *fam = cthelper_tuple_fam(e->family);
		const char *pr = cthelper_tuple_proto(e->proto);

		if (!e->enabled || e->left ||
		    cthelper_tuple_in_runtime(nrt, e->name, e->family, e->proto))
			continue;
		if (!cthelper_owned_share_last(owned, e)) {
			e->enabled = false;
			continue;
		}
		rc = cthelper_msg_status(r, e->name, e->family, e->proto,
					 NFCT_HELPER_STATUS_DISABLED);
		/* other daemons may hold it again; the stop asks once more */
		cthelper_owned_share_drop(e);
		if (rc) {
			log_err("helper '%s' (%s/%s): removed from the configuration but "
				"cannot disable it: %s", e->name, fam, pr, strerror(-rc));
			if (!bad)
				bad = rc;
			continue;
		}
		e->enabled = false;
		log_notice("helper '%s' (%s/%s) removed from the configuration: disabled "
			   "(deleted at stop: deleting a kernel helper drops the packets "
			   "queued on every queue)", e->name, fam, pr);
	}
	return bad;
}
