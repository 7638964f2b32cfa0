/* SPDX-License-Identifier: MIT */
#ifndef CTH_CTHELPER_H
#define CTH_CTHELPER_H

#include <libmnl/libmnl.h>
#include <stdbool.h>
#include <stdint.h>

#include "nlreq.h"
#include "record.h"
#include "runtime/runtime.h"

/* The (family, protocol) kernel helpers one instance can stand for. */
#define CTHELPER_N_TUPLES 4

/* One expectation class of a kernel helper. */
struct cthelper_class {
	char name[CTH_NAME_LEN];
	uint32_t max, timeout;
};

/* A kernel helper as NFNL_MSG_CTHELPER_GET reports it. */
struct cthelper_state {
	char name[CTH_NAME_LEN];
	int family, proto;
	uint32_t queue;
	uint32_t status;      /* NFCT_HELPER_STATUS_* */
	uint32_t priv_len;
	uint32_t n_classes;   /* as reported; at most CTH_CLASS_MAX are kept */
	struct cthelper_class classes[CTH_CLASS_MAX];
};

/* Parse one NFNL_MSG_CTHELPER_NEW message (a GET answer): 0 or -EINVAL. */
int cthelper_state_parse(const struct nlmsghdr *nlh, struct cthelper_state *out);
/* The user-space kernel helper NAME for (family, proto): 0, -ENOENT when
 * there is none, or another negative errno. */
int cthelper_get(struct nlreq *r, const char *name, int family, int proto,
		 struct cthelper_state *out);

/* What registration does with one (family, protocol) of an instance. */
enum cthelper_action {
	CTHELPER_CREATE,   /* none registered: create it */
	CTHELPER_REUSE,    /* ours, or the same definition: update it */
	CTHELPER_TAKEOVER, /* disabled, another definition the kernel can update */
	CTHELPER_REFUSE,   /* another program's: leave it alone and exit */
};

/*
 * Decide, from what the kernel has (old, NULL when nothing), what to do for
 * instance in on (family, proto).  For every action but CREATE, msg gets
 * the line to log (REFUSE: the error, naming what differs and what to do;
 * conf is the configuration file for the --release hint).  Pure: no I/O.
 */
enum cthelper_action cthelper_decide(const struct cthelper_state *old,
				     const struct instance *in, int family,
				     int proto, const char *conf, char *msg,
				     size_t msglen);

/* Create or update (a NEW for an existing name is an update) the kernel
 * helper for one (family, protocol) of an instance. */
int cthelper_register(struct nlreq *r, const struct instance *in, int family,
		      int proto, uint32_t status);
int cthelper_delete(struct nlreq *r, const char *name, int family, int proto);
/* Why a registration failed, in operator terms. */
const char *cthelper_explain(int err);

/* The kernel helpers this process registered, by name and tuple (a
 * reload changes the runtime): only these are disabled and deleted. */
#define CTHELPER_OWNED_MAX (4 * CFG_MAX_HELPERS * CTHELPER_N_TUPLES)
struct cthelper_owned_entry {
	char name[CTH_NAME_LEN];
	int family, proto;
	uint16_t queue;   /* as registered, for the record (record.h) */
	bool enabled;     /* false: removed by a reload, deleted at stop */
	bool left;        /* another cthelperd serves it: not ours to undo */
	int lock;         /* share.h descriptor, -1: none held */
};
struct cthelper_owned {
	size_t n;
	/* share.h: where daemons that serve one helper meet ("": nowhere),
	 * the first registration's (a reload does not move it) */
	char share_dir[CFG_SHARE_DIR_MAX];
	struct cthelper_owned_entry h[CTHELPER_OWNED_MAX];
};

/* Check every helper of a runtime against the kernel first (nothing is
 * changed when one belongs to another program: -EEXIST), then register
 * and enable them.  Registered ones are recorded in owned, each with its
 * share lock held (share.h).  Disable and delete skip a helper another
 * cthelperd still serves (share_last()). */
int cthelper_register_all(struct nlreq *r, const struct runtime *rt,
			  struct cthelper_owned *owned);
void cthelper_disable_all(struct nlreq *r, struct cthelper_owned *owned);
void cthelper_delete_all(struct nlreq *r, struct cthelper_owned *owned);

/*
 * Reload, before anything changes: can nrt's helpers be registered next
 * to what this process owns?  An owned helper may change its queue and
 * class limits (an update), not its private-state size or classes (the
 * kernel refuses: re-creating it would unhelp its connections); another
 * program's helper is refused as at start.  Logs each refusal; 0 or
 * -EEXIST.
 */
int cthelper_reload_check(struct nlreq *r, const struct runtime *nrt,
			  const struct cthelper_owned *owned);
/*
 * Reload, after the swap: register or update nrt's helpers ENABLED, then
 * disable the owned ones nrt no longer names.  They are deleted only at
 * stop, because deleting a kernel helper drops the packets queued on
 * every queue (docs/architecture.md, "Start and stop").  0 or the first
 * error (the others are still tried).
 */
int cthelper_reload_apply(struct nlreq *r, const struct runtime *nrt,
			  struct cthelper_owned *owned);

/*
 * `cthelperctl status`'s "ready": is every kernel helper of rt registered,
 * ENABLED and sending to its instance's queue?  Asks the kernel each time
 * (another daemon or a --release may have changed it).  why gets the
 * reason, or a summary when ready.
 */
bool cthelper_ready(struct nlreq *r, const struct runtime *rt, char *why,
		    size_t len);

/*
 * What the record (record.h) must name: every helper owned that this
 * daemon still has registered (not left to another daemon), and every one
 * rt is about to register: before a start's registration the latter, the
 * union during a reload.  0 or -ENOSPC.
 */
int cthelper_record_fill(const struct cthelper_owned *owned,
			 const struct runtime *rt, struct record *out);

/*
 * --release: disable, then delete every configured kernel helper, whoever
 * registered it, and every one rec (a crashed daemon's record; NULL: none)
 * names that the configuration does not, if the kernel still sends it to
 * the recorded queue (else someone registered it since); each unless a
 * running cthelperd holds its share lock.  0 when all are gone; else a
 * negative errno (-EBUSY: one is still referenced by a rule and was left
 * disabled).
 */
int cthelper_release_all(struct nlreq *r, const struct runtime *rt,
			 const struct record *rec);

#endif
