/* SPDX-License-Identifier: MIT */
/*
 * The packet a plugin is called on: its view (struct cth_packet, filled by
 * pkt_view_parse() from the raw packet) and the context of one plugin call
 * on it (struct pkt_call).  The host's parts share both: call.c runs the
 * call and answers the plugin's host functions, edit.c records its payload
 * edits, keep.c its kept bytes.
 */
#ifndef CTH_PACKET_H
#define CTH_PACKET_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <cthelperd/plugin.h>

#include "runtime/runtime.h"

/* Fill the packet part of a view (data, offsets, seq) from a raw L3
 * packet.  Returns 0, or -EINVAL for a packet that is not IP+TCP/UDP. */
int pkt_view_parse(struct cth_packet *p, const uint8_t *data, size_t len,
		   int family);

/* Does the IP length field say there is more than the view holds?  (The
 * view left out trailing padding; a jumbogram's 0 is never whole here.) */
bool pkt_view_partial(const struct cth_packet *p);

/* The packet as the kernel would pass it on, for whoever rewrote it
 * (edit.c) or writes it out itself (the replay tool): IP and UDP length
 * fields, IPv4, TCP and UDP checksums made right for the len bytes at pkt
 * (layout as pkt_view_parse() found it, l4 its transport offset). */
void pkt_sums_fix(uint8_t *pkt, size_t len, size_t l4, bool tcp);

/* The largest packet a verdict can carry: NFQA_PAYLOAD's length is a
 * 16-bit netlink attribute length that includes its 4-byte header. */
#define PKT_OUT_MAX (65535u - 4u)

/* Are two tuples the same (family, protocol, addresses, ports)? */
static inline bool pkt_tuple_eq(const struct cth_tuple *a, const struct cth_tuple *b)
{
	return a->family == b->family && a->proto == b->proto &&
	       a->sport == b->sport && a->dport == b->dport &&
	       memcmp(a->src.raw, b->src.raw, sizeof(a->src.raw)) == 0 &&
	       memcmp(a->dst.raw, b->dst.raw, sizeof(a->dst.raw)) == 0;
}

/* Is p of the connection known by conntrack id, zone and original tuple?
 * (Ids get reused: the tuple is compared too.)  Tables that remember a
 * connection between its packets (keep.c, worker/detach.c) match with
 * this. */
static inline bool pkt_conn_is(const struct cth_packet *p, uint32_t id,
			       uint16_t zone, const struct cth_tuple *orig)
{
	return id == p->ct_id && zone == p->zone &&
	       pkt_tuple_eq(orig, &p->tuple[CTH_DIR_ORIGINAL]);
}

/* --- one plugin call (run by call.c) --------------------------------- */

struct pkt_call;
struct edit_list;
struct keep;
struct stats_block;

/* Longest expectation function name, NUL included ("nat-follow-master"
 * and friends are much shorter). */
#define PKT_EXPECT_FN_MAX 32u
/* Longest expectation timeout a plugin may set: the kernel counts it in
 * jiffies, 32 bits (HZ up to 1000), like the class policy's. */
#define PKT_EXPECT_TIMEOUT_MAX 604800u
/* Every cth_expect_flags bit this host knows. */
#define PKT_EXPECT_FLAGS (CTH_EXPECT_ANY_SRC | CTH_EXPECT_PERMANENT | \
			  CTH_EXPECT_INACTIVE | CTH_EXPECT_NAT | CTH_EXPECT_HELPER | \
			  CTH_EXPECT_SRC_PREFIX)

/* Most expectations one plugin call may create (cth_expect(): -ENOSPC
 * beyond; plugin.h names the number). */
#define PKT_EXPECT_PER_CALL 16u

/* How expectations leave the host: netlink in the daemon, emulated in
 * tests and replay.  Everything else around the plugin call is shared. */
typedef int (*pkt_expect_fn)(struct pkt_call *call,
			     const struct cth_expect *exp, unsigned int how);
/* cth_expect_ctl() after the argument checks; NULL: -EOPNOTSUPP. */
typedef int (*pkt_expect_ctl_fn)(struct pkt_call *call, unsigned int op,
				 const struct cth_expect *exp);
/* cth_link(): fill link (zeroed) for call->pkt from the caller's view of
 * the host's interfaces (host/link.h); NULL: -EOPNOTSUPP. */
typedef int (*pkt_link_fn)(struct pkt_call *call, struct cth_link *link);

/*
 * Every host function a plugin calls, with what it was answered, for a
 * host that shows them (the replay tool); the daemon sets no trace.
 */
enum pkt_event_type {
	PKT_EV_EXPECT,          /* exp, how, rc */
	PKT_EV_EXPECT_CTL,      /* exp (may be NULL), op in how, rc */
	PKT_EV_MANGLE,          /* off, len, repl, repl_len, rc */
	PKT_EV_KEEP,            /* off, rc */
	PKT_EV_TIMEOUT,         /* value */
	PKT_EV_MARK,            /* value */
	PKT_EV_DETACH,          /* rc */
	PKT_EV_LOG,             /* value: level, text */
	PKT_EV_COUNT,           /* value: counter, len: n */
};

struct pkt_event {
	enum pkt_event_type type;
	int rc;
	const struct cth_expect *exp;
	unsigned int how;
	size_t off, len;
	const void *repl;
	size_t repl_len;
	uint32_t value;
	const char *text;
};

/* Called after the host answered; with a trace, plugin log lines go to it
 * only (unlimited, unfiltered) and not to the daemon's log. */
typedef void (*pkt_trace_fn)(struct pkt_call *call, const struct pkt_event *ev);

/* One plugin call: the context the plugin sees and what it asked for. */
struct pkt_call {
	struct cth_ctx pub;           /* first: handed to the plugin */
	const struct instance *inst;
	void *backend;                /* the expect_fn's own state */
	pkt_expect_fn expect_fn;
	pkt_expect_ctl_fn expect_ctl_fn;
	pkt_link_fn link_fn;
	void *link_backend;           /* the link_fn's own state */
	pkt_trace_fn trace;           /* NULL: nothing is shown */
	/* the caller's counter block (runtime/stats.h), counted into at the
	 * instance's slot by the host itself: state_reset and the plugin's
	 * own counters (cth_count()); NULL: nothing is counted */
	struct stats_block *stats;
	struct cth_packet pkt;
	uint8_t priv[CTH_PRIV_MAX];
	bool priv_changed;
	/* set by the caller: what the kernel said about the packet */
	bool truncated;               /* NFQA_CAP_LEN: we hold only part of it */
	bool gso;                     /* NFQA_SKB_GSO: a GSO super-packet */
	/* NFQA_IFINDEX_INDEV / _OUTDEV, 0 when absent (sent by this host;
	 * delivered to it): the link view's interfaces */
	uint32_t in_ifindex, out_ifindex;
	/* payload edits (edit.c): recorded by cth_mangle(), applied by
	 * edit_result(); NULL until the first edit */
	struct edit_list *edits;
	/* cth_keep() (keep.c): the worker's table (NULL: not offered), the
	 * bytes the plugin asked to keep, copied when asked (NULL: none),
	 * and the buffer kept bytes were joined into for this packet */
	struct keep *keep;
	uint8_t *keep_copy;
	size_t keep_len;
	uint8_t *join;
	/* keep_done() stored bytes for the next segment: the worker's match
	 * rules pass that segment whatever it holds (prefilter.h) */
	bool kept_next;
	bool has_timeout, has_mark, detach;
	uint32_t timeout, mark;
	uint32_t mark_mask;           /* the bits of mark the kernel is to change */
	unsigned int n_expect;
	/* refused by the host's rules (guard.h), for the caller's counters */
	unsigned int n_refused;
	bool mark_masked;
	/* the state handed in was of another version, or priv_valid()
	 * refused it: the plugin got it zeroed (plugin.h priv_version) */
	bool state_reset;
};

#endif
