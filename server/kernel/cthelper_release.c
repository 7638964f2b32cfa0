/* SPDX-License-Identifier: MIT */
/*
 * --release: the kernel helpers a configuration (and a crashed run's
 * record) stands for, out of the kernel, whoever registered them, unless
 * another running cthelperd serves them.
 */
#include <errno.h>
#include <linux/netfilter/nfnetlink_cthelper.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "cthelper_msg.h"
#include "cthelper_release.h"
#include "cthelper_tuple.h"
#include "share.h"

static int cthelper_release_one(struct nlreq *r, const struct runtime *rt,
				const char *name, int family, int proto, long queue);
static int cthelper_release_tuple(struct nlreq *r, const char *name, int family,
				  int proto);

int cthelper_release_all(struct nlreq *r, const struct runtime *rt,
			 const struct record *rec)
{
	int bad = 0, rc;

	for (size_t i = 0; i < rt->n_inst; i++) {
		const struct instance *in = &rt->inst[i];

		cthelper_tuple_for_each(in, t) {
			rc = cthelper_release_one(r, rt, in->name, t->family, t->proto, -1);
			if (rc && !bad)
				bad = rc;
		}
	}
	for (size_t i = 0; rec && i < rec->n; i++) {
		const struct record_entry *e = &rec->e[i];

		if (cthelper_tuple_in_runtime(rt, e->name, e->family, e->proto))
			continue;
		log_notice("helper '%s' (%s/%s): not in %s but recorded as registered "
			   "by a cthelperd run with it", e->name,
			   cthelper_tuple_fam(e->family), cthelper_tuple_proto(e->proto),
			   rt->cfg->file);
		rc = cthelper_release_one(r, rt, e->name, e->family, e->proto, e->queue);
		if (rc && !bad)
			bad = rc;
	}
	return bad;
}

/* A helper that another running cthelperd serves (ExecStopPost after a
 * crash of its peer in another namespace) is not this release's to undo;
 * the lock is held exclusively while it is taken out.  queue >= 0: only
 * while the kernel still sends the helper there (a record's entry). */
static int cthelper_release_one(struct nlreq *r, const struct runtime *rt,
				const char *name, int family, int proto, long queue)
{
	const char *fam = cthelper_tuple_fam(family), *pr = cthelper_tuple_proto(proto);
	struct cthelper_state st;
	int fd = -1, rc;

	if (rt->cfg->share_dir &&
	    share_probe(rt->cfg->share_dir, name, family, proto, &fd) == 0) {
		log_notice("helper '%s' (%s/%s): another cthelperd serves it (it holds its "
			   "lock in %s/): left as it is", name, fam, pr, rt->cfg->share_dir);
		return 0;
	}
	if (queue >= 0 && cthelper_msg_get(r, name, family, proto, &st) == 0 &&
	    st.queue != (uint32_t)queue) {
		log_notice("helper '%s' (%s/%s): recorded on queue %ld but the kernel "
			   "sends it to queue %u: registered by someone else since, left "
			   "as it is", name, fam, pr, queue, st.queue);
		rc = 0;
	} else {
		rc = cthelper_release_tuple(r, name, family, proto);
	}
	if (fd >= 0)
		close(fd);
	return rc;
}

/* --release for one tuple: 0 when it is gone (or was never there). */
static int cthelper_release_tuple(struct nlreq *r, const char *name, int family,
				  int proto)
{
	const char *fam = cthelper_tuple_fam(family), *pr = cthelper_tuple_proto(proto);
	struct cthelper_state old;
	int rc = cthelper_msg_get(r, name, family, proto, &old), drc;

	if (rc == -ENOENT) {
		log_notice("helper '%s' (%s/%s): not registered", name, fam, pr);
		return 0;
	}
	if (rc) {
		log_err("helper '%s' (%s/%s): cannot ask the kernel about it: %s: %s",
			name, fam, pr, strerror(-rc), cthelper_msg_explain(rc));
		return rc;
	}
	/* disabled first: if the delete fails, a disabled helper is harmless */
	rc = cthelper_msg_status(r, name, family, proto, NFCT_HELPER_STATUS_DISABLED);
	drc = cthelper_msg_del(r, name, family, proto);
	if (drc == 0 || drc == -ENOENT) {
		log_notice("helper '%s' (%s/%s) on queue %u, was %s: %sdeleted",
			   name, fam, pr, old.queue,
			   old.status == NFCT_HELPER_STATUS_ENABLED ? "enabled" : "disabled",
			   rc ? "" : "disabled and ");
		return 0;
	}
	if (rc) {
		log_err("helper '%s' (%s/%s): cannot disable (%s) nor delete (%s): it is "
			"left as it was (%s)", name, fam, pr, strerror(-rc), strerror(-drc),
			old.status == NFCT_HELPER_STATUS_ENABLED ? "ENABLED: new connections "
			"on its port break while nobody serves queue" : "disabled");
		return drc;
	}
	/* The point of --release is that new connections pass again, which a
	 * disabled helper achieves: like a clean stop, a rule that still
	 * names the helper is not a failure. */
	if (drc == -EBUSY) {
		log_notice("helper '%s' (%s/%s) on queue %u: disabled; not deleted while a "
			   "firewall rule references it, which is safe (connections pass "
			   "without the helper); remove the rule and run --release again "
			   "to delete it", name, fam, pr, old.queue);
		return 0;
	}
	log_err("helper '%s' (%s/%s): disabled but not deleted: %s",
		name, fam, pr, strerror(-drc));
	return drc;
}
