/* SPDX-License-Identifier: MIT */
#ifndef CTH_RUNTIME_H
#define CTH_RUNTIME_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "guard.h"
#include "keys.h"
#include "loader.h"
#include "../../kmod/cthd_match.h"

struct sandbox;

/*
 * What status shows of a helper's sandbox: written by server/sandbox/
 * (whichever thread starts or loses it), read by the control socket,
 * under lock.
 */
struct instance_sandbox {
	pthread_mutex_t lock;
	int pid;                      /* 0: none running */
	bool up;                      /* started and serving */
	uint64_t since_ms;            /* monotonic: of the start, or of the death */
	uint64_t retry_ms;            /* monotonic: next start, while down */
	char reason[96];              /* the last death's, "" before any */
	uint64_t reason_ms;           /* monotonic: of that death */
};

/* One configured helper: a plugin plus this section's settings. */
struct instance {
	char name[CTH_NAME_LEN];
	const struct plugin *pl;
	void *config;                 /* plugin's configuration block */
	unsigned int families;        /* CTH_FAMILY_* */
	unsigned int protocols;       /* CTH_PROTO_* */
	uint16_t queue;
	uint32_t queue_len;
	bool fail_open;
	struct guard guard;           /* what its plugin may ask (guard.h) */
	unsigned int slot;            /* of its counters (stats.h); kept by a reload */
	bool started;                 /* its plugin's init() succeeded: fini() is due */
	unsigned int n_classes;
	struct cth_expect_class classes[CTH_CLASS_MAX];
	int line;                     /* of its [helper] section */
	/* a described plugin's configure() calls, for its sandbox to make
	 * before check() and init() (NULL: none) */
	struct keys_defer *defer;
	struct cfg_sandbox sandbox;   /* sandbox.on: the plugin runs in sb */
	struct sandbox *sb;           /* server/sandbox/sandbox.h; NULL: not started */
	struct instance_sandbox sb_status;
	/* its plugin's match rules, compiled (n 0: none, every packet goes
	 * to the plugin; server/worker/prefilter.h) */
	struct cthd_rules match;
};

/*
 * Everything a configuration turns into.  Workers reach it through one
 * pointer so that a reload can build a new one and swap it in.
 */
struct runtime {
	struct cfg *cfg;
	size_t n_plugins;
	struct plugin *plugins[CFG_MAX_HELPERS];
	size_t n_inst;
	struct instance inst[CFG_MAX_HELPERS];
	size_t n_queues;
	uint16_t queues[CFG_MAX_HELPERS];
};

/*
 * Load plugins and apply helper settings; takes ownership of cfg.  Each
 * instance's configuration block gets its plugin's keys (keys.h), then
 * the plugin's check() and init() run.  A sandboxed helper's plugin is
 * described instead (cfg->describe) when the caller set that: none of
 * its code runs here, its configure() calls are kept in the instance's
 * defer and its check() and init() are its sandbox's.  Errors are printed
 * "FILE:LINE: message".  Returns 0 or negative errno.
 */
int runtime_build(struct cfg *cfg, struct runtime **out);
/* fini() for every instance whose init() succeeded, then free: only once
 * no packet can reach rt (a reload's grace period, or stop). */
void runtime_free(struct runtime *rt);
/*
 * The instance a queued packet's helper name stands for.  Not matched by
 * queue: a reload that moves a helper to another queue leaves packets
 * queued on the old one, and they are still this helper's (the kernel
 * queued them because of its name; one name is one instance).
 */
/* check() on in's configuration block, then init(): 0, or -EINVAL with
 * msg the error as runtime_build() reports it at the section's line (a
 * sandbox runs them for its instance). */
int runtime_inst_check(const struct instance *in, char *msg, size_t len);
int runtime_inst_init(const struct instance *in, char *msg, size_t len);
const struct instance *runtime_find(const struct runtime *rt, const char *name,
				    int family, int proto);

#endif
