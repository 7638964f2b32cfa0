/* SPDX-License-Identifier: MIT */
/*
 * The switch itself is libcap-ng's capng_change_id(): it keeps the
 * capabilities we asked for across the uid change (PR_SET_KEEPCAPS), sets
 * gid before uid (the other way round, setgid would no longer be
 * allowed), and clears the bounding and ambient sets while it still has
 * the privilege to.
 *
 * Supplementary groups: the user's own (initgroups), not none.  Root's
 * must go either way; the user's are what an administrator grants it,
 * e.g. a group that may read the configuration and plugins, which a live
 * reload reads again after the drop.  A dedicated system user normally
 * has none, and systemd's User= does the same.
 *
 * What stays root's: everything done before the drop (queues bound,
 * helpers registered, the control socket created and its owner, group and
 * mode set).  What needs only CAP_NET_ADMIN afterwards: verdicts,
 * expectations, helper updates, disable and delete on the way out.
 */
#include <cap-ng.h>
#include <errno.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "base/log.h"
#include "privdrop.h"

static int privdrop_unprivileged(const struct cfg *cfg, uid_t euid);
static const char *privdrop_step(int rc);
static int privdrop_check(const struct cfg *cfg);

int privdrop_apply(const struct cfg *cfg)
{
	uid_t euid = geteuid();
	int rc;

	if (!cfg->user)
		return 0;
	if (cfg->uid == 0) {
		log_info("user = %s is uid 0: keeping every privilege", cfg->user);
		return 0;
	}
	if (euid != 0)
		return privdrop_unprivileged(cfg, euid);
	capng_clear(CAPNG_SELECT_ALL);
	if (capng_update(CAPNG_ADD, CAPNG_EFFECTIVE | CAPNG_PERMITTED, CAP_NET_ADMIN) < 0) {
		log_err("user = %s: libcap-ng cannot record CAP_NET_ADMIN", cfg->user);
		return -EINVAL;
	}
	errno = 0;
	rc = capng_change_id((int)cfg->uid, (int)cfg->gid, CAPNG_INIT_SUPP_GRP |
			     CAPNG_CLEAR_BOUNDING | CAPNG_CLEAR_AMBIENT);
	if (rc < 0) {
		int err = errno ? errno : EPERM;

		/* a half-done switch is not a state to serve packets in */
		log_err("user = %s: cannot switch to uid %ld gid %ld: %s failed: %s",
			cfg->user, cfg->uid, cfg->gid, privdrop_step(rc), strerror(err));
		return -err;
	}
	if ((rc = privdrop_check(cfg)) < 0) {
		log_err("user = %s: after the switch the process is not uid %ld gid %ld "
			"with CAP_NET_ADMIN alone", cfg->user, cfg->uid, cfg->gid);
		return rc;
	}
	log_notice("running as %s (uid %ld), keeping only CAP_NET_ADMIN",
		   cfg->user, cfg->uid);
	return 0;
}

/* Not root: nothing can be switched; fine only if we already are them. */
static int privdrop_unprivileged(const struct cfg *cfg, uid_t euid)
{
	if ((long)euid == cfg->uid) {
		log_info("user = %s: already running as uid %u, nothing to drop",
			 cfg->user, (unsigned)euid);
		return 0;
	}
	log_err("user = %s: cthelperd runs as uid %u, not root, and cannot become "
		"uid %ld; start it as root, or as %s, or remove the key",
		cfg->user, (unsigned)euid, cfg->uid, cfg->user);
	return -EPERM;
}

/* capng_change_id() answers with its own step numbers (capng_change_id(3)) */
static const char *privdrop_step(int rc)
{
	switch (rc) {
	case -2: return "keeping capabilities across the uid change";
	case -3: return "taking the capabilities needed for the change";
	case -4: return "changing the group id";
	case -5: return "dropping supplementary groups";
	case -6: return "changing the user id";
	case -7: return "ending PR_SET_KEEPCAPS";
	case -8: return "clearing the bounding set";
	case -9: return "dropping CAP_SETPCAP or the ambient set";
	case -10: return "setting the user's supplementary groups";
	default: return "initialising libcap-ng";
	}
}

/* What the kernel says now, so that a library surprise is not silent. */
static int privdrop_check(const struct cfg *cfg)
{
	uid_t ru, eu, su;
	gid_t rg, eg, sg;

	if (getresuid(&ru, &eu, &su) < 0 || getresgid(&rg, &eg, &sg) < 0)
		return -errno;
	if ((long)ru != cfg->uid || (long)eu != cfg->uid || (long)su != cfg->uid ||
	    (long)rg != cfg->gid || (long)eg != cfg->gid || (long)sg != cfg->gid)
		return -EPERM;
	capng_get_caps_process();
	if (!capng_have_capability(CAPNG_EFFECTIVE, CAP_NET_ADMIN) ||
	    !capng_have_capability(CAPNG_PERMITTED, CAP_NET_ADMIN) ||
	    capng_have_capability(CAPNG_EFFECTIVE, CAP_SETUID) ||
	    capng_have_capability(CAPNG_PERMITTED, CAP_SETUID))
		return -EPERM;
	return 0;
}
