/* SPDX-License-Identifier: MIT */
/*
 * The rpc plugin's internal interfaces: per-connection state, per-helper
 * configuration and the per-message context its files share (rpc.c:
 * framing, calls, dispatch; rpc_reply.c: replies, expectations, NAT).
 * Behaviour and the differences from conntrackd's rpc helper are in
 * docs/plugins/rpc.md.
 */
#ifndef CTH_RPC_H
#define CTH_RPC_H

#include <stdbool.h>
#include <stdint.h>

#include <cthelperd/plugin.h>
#include <cthelperd/util.h>

#include "rpc_parse.h"

/* The one expectation class, "program". */
#define RPC_CLASS_PROGRAM 0u

/* Calls remembered per connection while their replies are due. */
#define RPC_CALLS 4u

/* Ports tried from the server's under NAT; each try is a netlink round
 * trip. */
#define RPC_NAT_PORT_TRIES 64u

/* Most bytes of an incomplete record kept for the next segment: a call
 * of ours with its marks (several zero-length fragments are legal). */
#define RPC_KEEP_MAX 4096u

/* How far ahead of a segment the next record mark can be: a fragment's
 * whole length, plus a segment's worth retransmitted from before it. */
#define RPC_RESUME_AHEAD_MAX (RPC_RECORD_MAX + 65536u)

/* Layout version of struct rpc_priv, kept by the host at
 * offsetof(struct rpc_priv, version); 0 is a brand-new connection, or one
 * whose state was lost (a failover: conntrackd does not carry it). */
#define RPC_PRIV_VERSION 1u

/* A call slot (rpc_priv::call): the kind in the low bits, the protocol
 * asked for; 0 is a free slot. */
#define RPC_CALL_KIND_MASK 0x07u
#define RPC_CALL_TCP 0x08u

/* Bits of rpc_priv::flags, per direction (shifted by cth_dir). */
#define RPC_F_RESUME(dir) (0x01u << (dir))   /* resume_seq[dir] is valid */
#define RPC_F_SKIP(dir) (0x04u << (dir))     /* ... and a skipped record goes on there */
#define RPC_F_ALL 0x0fu

/*
 * Per-connection state, in the conntrack entry (CTA_HELP_INFO), host byte
 * order, 32 bytes.  The outstanding calls are ordered newest first:
 * xid[i] and call[i] belong together, a free slot has call[i] == 0.
 * For TCP, resume_seq[dir] is the sequence number where the next record
 * mark of that direction is due when a segment ended inside a record
 * (RPC_F_RESUME); with RPC_F_SKIP that mark continues a record being
 * skipped.
 */
struct rpc_priv {
	uint32_t xid[RPC_CALLS];
	uint32_t resume_seq[2];
	uint8_t call[RPC_CALLS];
	uint8_t version;
	uint8_t flags;
	uint8_t reserved[2];
};

_Static_assert(sizeof(struct rpc_priv) == 32, "rpc_priv must have no padding");

/* Per helper instance, filled by the host from the declared keys
 * (rpc.c rpc_keys). */
struct rpc_config {
	bool permanent;         /* expectations stay after the first connection */
	struct cth_ports ports; /* read by --print-rules only */
};

/* Counters, indexes into rpc.c's rpc_counters[]. */
enum rpc_counter {
	RPC_CNT_CALLS,
	RPC_CNT_REPLIES,
	RPC_CNT_EXPECTATIONS,
	RPC_CNT_FOREIGN,
	RPC_CNT_PARSE_ERRORS,
};

/* A message found in the payload. */
struct rpc_msgref {
	const uint8_t *msg;
	size_t len;
	bool rewritable;   /* in the payload itself, one fragment, not kept */
	size_t base;       /* rewritable: payload offset of msg[0] */
	bool marked;       /* TCP: a record mark precedes it */
	size_t mark_off;   /* its payload offset */
	uint32_t mark;
};

/* One packet being handled. */
struct rpc_ctx {
	struct cth_ctx *ctx;
	const struct cth_packet *pkt;
	struct rpc_priv *priv;
	const struct rpc_config *cfg;
	int family;
	bool nat;
};

/* rpc_reply.c: a REPLY from the server, for the call slot it answers.
 * A cth_verdict. */
int rpc_reply_handle(struct rpc_ctx *s, const struct rpc_msgref *m,
		     const struct rpc_reply *r, uint8_t call);

#endif /* CTH_RPC_H */
