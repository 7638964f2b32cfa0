/* SPDX-License-Identifier: MIT */
/*
 * One plugin call (struct pkt_call, packet.h): the instance's plugin run
 * on c->pkt, the host functions it calls (cth_expect(), cth_mangle(),
 * cth_keep()...) answered after the host's argument checks and rules, and
 * what it asked for left in c for the caller's verdict.
 */
#ifndef CTH_CALL_H
#define CTH_CALL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "packet.h"

struct inflight;

/*
 * The worker's call: the plugin runs with the connection's newest private
 * state, the in-flight table's (inflight.h) when it holds a newer one
 * than the kernel's snapshot kpriv (klen bytes), else the snapshot; sets
 * c->priv_changed to "the verdict must write c->priv" and records that
 * state in the table.  Returns the verdict.
 */
int pkt_call_run_newest(struct pkt_call *c, struct inflight *t,
			const uint8_t *kpriv, size_t klen, uint64_t now_ms);
/* Run the instance's plugin on c->pkt with the given private state (NULL
 * or shorter than the plugin's size: zero-filled).  Returns the verdict. */
int pkt_call_run(struct pkt_call *c, const uint8_t *priv, size_t priv_len);
/* Does the state the plugin left differ from priv (what the kernel holds,
 * NULL or short: zero-filled)?  Decides whether the verdict writes it. */
bool pkt_call_priv_differs(const struct pkt_call *c, const uint8_t *priv,
			   size_t priv_len);
/* The packet to send back when mangled, else NULL. */
const uint8_t *pkt_call_mangled(struct pkt_call *c, size_t *len);
/*
 * The host functions themselves, for a caller that runs the plugin
 * elsewhere and makes its calls here (server/sandbox/: a sandboxed
 * plugin's calls, checked by the very code that checks an in-process
 * plugin's).  Sets c->pub.host.
 */
const struct cth_host *pkt_call_host(struct pkt_call *c);
/* A plugin log line formatted elsewhere (a sandbox's), under the same
 * per-thread rate limit as an in-process plugin's. */
void pkt_call_log(struct pkt_call *c, int level, const char *line);
/* Forget what the plugin asked for (edits, timeout, mark, detach, the
 * state's change, refusals): for a call whose plugin could not answer
 * (a sandbox that died), which gets the helper's policy instead. */
void pkt_call_forget(struct pkt_call *c);
/* Free what the call holds (edits, kept and joined bytes). */
void pkt_call_release(struct pkt_call *c);

#endif
