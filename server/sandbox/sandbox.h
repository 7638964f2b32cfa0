/* SPDX-License-Identifier: MIT */
/*
 * A helper instance's sandbox, seen from the daemon (docs/security.md):
 * the process its plugin runs in (sandboxd/), started through the
 * spawner (spawn.h), fed a batch of packets at a time over the channel
 * (chan.h) by the worker of the helper's queue.  What comes back is checked by
 * host/call.c's host functions, as an in-process plugin's calls are.
 *
 * A sandbox that dies, breaks the channel's rules or overruns its budget
 * (sandbox_timeout_ms) is killed and reaped; the packet it held and those
 * that come while it is down get the helper's sandbox_verdict; it is
 * started again after a backoff (SANDBOX_BACKOFF_*).  Private state lives
 * in conntrack, so a restart loses what a daemon restart loses: kept
 * bytes and the in-flight overlay.
 *
 * One lock per sandbox: normally one worker uses it, but after a reload
 * that moved a helper to another queue, packets still queued on the old
 * queue reach the same instance from another worker; the main thread's
 * restarts take it too (without waiting for it).
 */
#ifndef CTH_SANDBOX_H
#define CTH_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "host/packet.h"
#include "runtime/runtime.h"
#include "runtime/stats.h"

/* Restart backoff: doubles from the first to the most while sandboxes
 * die without answering a packet; one that answered a packet, or lived
 * SANDBOX_BACKOFF_RESET_MS, starts over from the first. */
#define SANDBOX_BACKOFF_FIRST_MS 100u
#define SANDBOX_BACKOFF_MAX_MS 30000u
#define SANDBOX_BACKOFF_RESET_MS 60000u
/* Packets one batch carries (chan.h CHAN_SLOTS). */
#define SANDBOX_BATCH_MAX 8u
/* How long a start may take to load the plugin and run its init(). */
#define SANDBOX_SETUP_MS 10000u

/* Start the sandbox of every sandboxed instance of rt and wait until
 * each is set up: 0, or a negative errno with the failing helper logged
 * (then none is left running).  The spawner must be open (spawn.h). */
int sandbox_start_all(struct runtime *rt, struct stats_block *st);
/* End the sandboxes of rt (kill, reap, free): stop, or a retired
 * runtime once no packet can reach it. */
void sandbox_stop_all(struct runtime *rt);
/* Restarts that are due, from the main loop; a sandbox busy with a
 * packet is left for its worker. */
void sandbox_tick_all(struct runtime *rt, uint64_t now_ms, struct stats_block *st);

/* Up now, whatever the backoff, waiting for the start: for a caller
 * with no time of its own to keep (the replay tool).  0, or a negative
 * errno when it cannot be started. */
int sandbox_revive(struct sandbox *sb);

/*
 * Run the instance's plugin on c->pkt in its sandbox: c is the worker's
 * call (its backends do what the plugin asks), kpriv the kernel's copy of
 * the state.  Returns the verdict, with c holding what the plugin asked
 * for (as pkt_call_run_newest() leaves it), or a negative errno when the
 * sandbox could not answer: nothing of the call is to be done then, and
 * the packet gets the helper's sandbox_verdict (counted here as lost).
 */
int sandbox_run(struct sandbox *sb, struct pkt_call *c, const uint8_t *kpriv,
		size_t klen, uint64_t now_ms, struct stats_block *st);

/*
 * The same for a batch (docs/security.md "The channel"): the packets of
 * one receive for this sandbox posted into the channel's slots, the
 * sandbox woken once, the results taken in order.  sandbox_run() is one
 * post, take and close.
 *
 * sandbox_post(): c into the next slot (the first post locks the sandbox
 * until sandbox_batch_close()); the slot's index, -ENOSPC when the
 * batch is full (CHAN_SLOTS) or already rung, or -EAGAIN when the
 * sandbox is down (counted lost; nothing to close then).
 *
 * sandbox_take(): slot's result (the slots in the order posted; the
 * first take rings), as sandbox_run() returns it; c is the call posted
 * in slot, with its backends.  Each slot's budget (sandbox_timeout_ms)
 * starts when the slot before it is done, so one plugin call holds its
 * packet at most the budget, whatever the batch's size.  A failure
 * ends the sandbox: this slot and every later one get a negative errno
 * and are counted lost.  skip: the worker will not use the result (the
 * connection was detached by an earlier slot): the slot's calls are
 * answered -ESRCH, its records not done, 0 returned (or the failure
 * that already ended the batch), never counted lost.
 *
 * sandbox_batch_close(): unlock; a slot left untaken ends the sandbox.
 */
int sandbox_post(struct sandbox *sb, struct pkt_call *c, const uint8_t *kpriv,
		 size_t klen, uint64_t now_ms, struct stats_block *st);
int sandbox_take(struct sandbox *sb, unsigned int slot, struct pkt_call *c,
		 const uint8_t *kpriv, size_t klen, bool skip, struct stats_block *st);
void sandbox_batch_close(struct sandbox *sb, struct stats_block *st);

#endif
