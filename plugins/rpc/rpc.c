/* SPDX-License-Identifier: MIT */
/*
 * SunRPC portmapper / rpcbind helper plugin: a client asks the server's
 * port 111 where an RPC program listens (portmapper v2 GETPORT, rpcbind
 * v3/v4 GETADDR, v4 GETVERSADDR), the server answers with a port or a
 * universal address, and the plugin expects the client's connection to
 * that port, over the protocol the call asked for.  Calls and replies are
 * paired by XID; over TCP the record marking is followed across
 * segments.  Behaviour, NAT and limits: docs/plugins/rpc.md.
 */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "rpc.h"

static const struct cth_key rpc_keys[] = {
	{
		.name = "permanent", .type = CTH_KEY_BOOL,
		.offset = offsetof(struct rpc_config, permanent), .def = "no",
		.doc = "an expectation admits every matching connection until it times out",
	},
	{
		.name = "ports", .type = CTH_KEY_PORTS, .flags = CTH_KEY_RULE_PORTS,
		.offset = offsetof(struct rpc_config, ports), .def = "111",
		.doc = "portmapper ports cthelperd --print-rules attaches the helper to "
		       "(rule_ports overrides; the plugin does not filter by port)",
	},
};

/* What the host counts per helper already (expectations refused,
 * rewritten packets) is not counted again. */
static const struct cth_counter rpc_counters[] = {
	[RPC_CNT_CALLS] = {
		.name = "calls",
		.help = "GETPORT, GETADDR and GETVERSADDR calls tracked",
	},
	[RPC_CNT_REPLIES] = {
		.name = "replies",
		.help = "answers to a tracked call that name a port",
	},
	[RPC_CNT_EXPECTATIONS] = {
		.name = "expectations",
		.help = "connections to an answered port expected",
	},
	[RPC_CNT_FOREIGN] = {
		.name = "foreign_ignored",
		.help = "universal addresses of another host than the server, ignored",
	},
	[RPC_CNT_PARSE_ERRORS] = {
		.name = "parse_errors",
		.help = "malformed calls and answers ignored",
	},
};

/* ------------------------------------------------------------ call slots */

static int rpc_slot_find(const struct rpc_priv *priv, uint32_t xid)
{
	for (unsigned int i = 0; i < RPC_CALLS; i++)
		if (priv->call[i] && priv->xid[i] == xid)
			return (int)i;
	return -1;
}

/* Slot i goes; the older ones move up. */
static void rpc_slot_drop(struct rpc_priv *priv, unsigned int i)
{
	for (; i + 1 < RPC_CALLS; i++) {
		priv->xid[i] = priv->xid[i + 1];
		priv->call[i] = priv->call[i + 1];
	}
	priv->xid[RPC_CALLS - 1] = 0;
	priv->call[RPC_CALLS - 1] = 0;
}

/* The newest call goes first; a retransmission (same XID) replaces its
 * slot, and when all are taken the oldest call is forgotten. */
static void rpc_slot_add(struct rpc_priv *priv, uint32_t xid, uint8_t call)
{
	int i = rpc_slot_find(priv, xid);

	rpc_slot_drop(priv, i >= 0 ? (unsigned int)i : RPC_CALLS - 1);
	for (unsigned int j = RPC_CALLS - 1; j > 0; j--) {
		priv->xid[j] = priv->xid[j - 1];
		priv->call[j] = priv->call[j - 1];
	}
	priv->xid[0] = xid;
	priv->call[0] = call;
}

/* ------------------------------------------------------------ messages */

static int rpc_call_handle(struct rpc_ctx *s, const struct rpc_msgref *m)
{
	struct rpc_call c;
	int ret = rpc_call_parse(m->msg, m->len, &c);

	if (ret <= 0) {
		if (ret < 0) {
			cth_log(s->ctx, CTH_LOG_DEBUG, "malformed portmapper call ignored");
			cth_count(s->ctx, RPC_CNT_PARSE_ERRORS);
		}
		return CTH_VERDICT_ACCEPT;
	}
	/* the answer must be an address of the connection's own family: an
	 * expectation cannot change it */
	if (c.family && c.family != s->family) {
		cth_log(s->ctx, CTH_LOG_DEBUG, "%s for another address family ignored",
			rpc_kind_name(c.kind));
		return CTH_VERDICT_ACCEPT;
	}
	rpc_slot_add(s->priv, c.xid,
		     (uint8_t)(c.kind | (c.proto == IPPROTO_TCP ? RPC_CALL_TCP : 0)));
	cth_count(s->ctx, RPC_CNT_CALLS);
	cth_log(s->ctx, CTH_LOG_DEBUG, "%s xid %#x: program %u version %u over %s",
		rpc_kind_name(c.kind), c.xid, c.prog, c.vers,
		c.proto == IPPROTO_TCP ? "tcp" : "udp");
	return CTH_VERDICT_ACCEPT;
}

static int rpc_reply_dispatch(struct rpc_ctx *s, const struct rpc_msgref *m)
{
	struct rpc_reply r;
	uint8_t call;
	int i;

	if (rpc_reply_parse(m->msg, m->len, &r) < 0)
		return CTH_VERDICT_ACCEPT;
	i = rpc_slot_find(s->priv, r.xid);
	if (i < 0)
		return CTH_VERDICT_ACCEPT;
	/* whatever it says, the call is answered */
	call = s->priv->call[i];
	rpc_slot_drop(s->priv, (unsigned int)i);
	return rpc_reply_handle(s, m, &r, call);
}

/* Calls go from the client, replies from the server; anything else
 * (a server calling back on the connection) is not ours. */
static int rpc_message(struct rpc_ctx *s, const struct rpc_msgref *m)
{
	uint32_t xid, type;

	if (rpc_msg_head(m->msg, m->len, &xid, &type) < 0)
		return CTH_VERDICT_ACCEPT;
	if (s->pkt->dir == CTH_DIR_ORIGINAL && type == RPC_CALL)
		return rpc_call_handle(s, m);
	if (s->pkt->dir == CTH_DIR_REPLY && type == RPC_REPLY)
		return rpc_reply_dispatch(s, m);
	return CTH_VERDICT_ACCEPT;
}

/* ------------------------------------------------------------ TCP records */

/* A complete record: its message, from the payload or reassembled. */
static int rpc_record(struct rpc_ctx *s, const struct rpc_record *r, size_t kept)
{
	const uint8_t *payload = s->pkt->payload;
	uint8_t buf[RPC_MSG_MAX];
	struct rpc_msgref m = { 0 };

	if (r->msg_len > RPC_MSG_MAX)
		return CTH_VERDICT_ACCEPT;      /* not one of the messages we read */
	m.marked = true;
	m.mark_off = r->start;
	m.mark = rpc_get32(payload + r->start);
	if (r->n_frag == 1) {
		m.msg = payload + r->start + 4;
		m.len = r->msg_len;
		/* kept bytes went out with their own segment */
		m.rewritable = r->start >= kept;
		m.base = r->start + 4;
	} else {
		m.len = rpc_record_copy(payload, r, buf, sizeof(buf));
		m.msg = buf;
	}
	return rpc_message(s, &m);
}

static void rpc_resume_set(struct rpc_ctx *s, uint32_t seq, bool skip)
{
	enum cth_dir dir = s->pkt->dir;

	s->priv->resume_seq[dir] = seq;
	s->priv->flags |= RPC_F_RESUME(dir);
	if (skip)
		s->priv->flags |= RPC_F_SKIP(dir);
}

static bool rpc_keep(struct rpc_ctx *s, size_t off)
{
	int ret = cth_keep(s->ctx, off);

	if (ret < 0)
		cth_log(s->ctx, CTH_LOG_DEBUG, "cannot keep an incomplete record (%d)", ret);
	return ret == 0;
}

/*
 * The segment ends inside a record.  One we may read is kept whole for
 * the next segment (cth_keep); any other is skipped up to the end of the
 * fragment that is cut, where the next mark is due.  A cut mark must be
 * kept to be read at all; when that fails the stream's framing is lost
 * and the next segment is taken to start a record (then every check
 * still applies to what it finds).
 */
static void rpc_stream_cut(struct rpc_ctx *s, const struct rpc_record *r, bool skipping,
			   uint32_t base_seq)
{
	size_t len = s->pkt->payload_len;
	bool wanted = !skipping && r->msg_len <= RPC_MSG_MAX;
	bool in_record = skipping || r->n_frag > 0;

	if (wanted && len - r->start <= RPC_KEEP_MAX && rpc_keep(s, r->start)) {
		rpc_resume_set(s, base_seq + (uint32_t)r->start, false);
		return;
	}
	if (r->mark_cut) {
		if (rpc_keep(s, r->frag_end))
			rpc_resume_set(s, base_seq + (uint32_t)r->frag_end, in_record);
		return;
	}
	rpc_resume_set(s, base_seq + (uint32_t)r->frag_end, !r->frag_last);
}

/* Where this payload's first record mark is: 1 at *off (*skipping: it
 * continues a skipped record), 0 nowhere in it. */
static int rpc_stream_start(struct rpc_ctx *s, uint32_t base_seq, size_t *off, bool *skipping)
{
	struct rpc_priv *priv = s->priv;
	enum cth_dir dir = s->pkt->dir;
	int32_t d;

	*off = 0;
	*skipping = false;
	if (!(priv->flags & RPC_F_RESUME(dir)))
		return 1;
	d = (int32_t)(priv->resume_seq[dir] - base_seq);
	/* further ahead than the longest record reaches (plus a segment
	 * retransmitted from before it): not a mark of this stream (garbage
	 * state), which would have every segment skipped until it */
	if (d >= 0 && (uint32_t)d > RPC_RESUME_AHEAD_MAX)
		d = -1;
	else if (d >= 0 && (size_t)d >= s->pkt->payload_len)
		return 0;                       /* still inside a skipped fragment */
	if (d >= 0) {
		*off = (size_t)d;
		*skipping = (priv->flags & RPC_F_SKIP(dir)) != 0;
	}
	/* d < 0: the mark went by unseen (lost or garbage state, a segment
	 * the host showed without its kept bytes): start afresh here */
	priv->flags &= (uint8_t)~(RPC_F_RESUME(dir) | RPC_F_SKIP(dir));
	return 1;
}

static int rpc_stream(struct rpc_ctx *s)
{
	const struct cth_packet *pkt = s->pkt;
	size_t kept = cth_kept(s->ctx, pkt), off;
	uint32_t base_seq = pkt->seq - (uint32_t)kept;
	struct rpc_record r;
	bool skipping;
	int ret, verdict;

	if (!rpc_stream_start(s, base_seq, &off, &skipping))
		return CTH_VERDICT_ACCEPT;
	while (off < pkt->payload_len) {
		ret = rpc_record_scan(pkt->payload, pkt->payload_len, off, &r);
		if (ret == -EAGAIN) {
			rpc_stream_cut(s, &r, skipping, base_seq);
			break;
		}
		if (ret < 0) {
			cth_log(s->ctx, CTH_LOG_DEBUG, "no RPC record mark at offset %zu", off);
			break;
		}
		if (!skipping) {
			verdict = rpc_record(s, &r, kept);
			if (verdict != CTH_VERDICT_ACCEPT)
				return verdict;
		}
		skipping = false;
		off = r.end;
	}
	return CTH_VERDICT_ACCEPT;
}

/* ------------------------------------------------------------ packets */

static bool rpc_packet_wanted(const struct cth_packet *pkt)
{
	const struct cth_tuple *orig = &pkt->tuple[CTH_DIR_ORIGINAL];

	/* an expected connection is a program's own traffic, and the
	 * kernel keeps no state for it */
	if (pkt->ct_status & CTH_CT_EXPECTED)
		return false;
	if (pkt->dir != CTH_DIR_ORIGINAL && pkt->dir != CTH_DIR_REPLY)
		return false;
	if (orig->family != AF_INET && orig->family != AF_INET6)
		return false;
	if (orig->proto == IPPROTO_TCP) {
		if (pkt->ctinfo != CTH_CT_ESTABLISHED && pkt->ctinfo != CTH_CT_ESTABLISHED_REPLY)
			return false;
	} else if (orig->proto != IPPROTO_UDP) {
		return false;
	}
	return pkt->payload != NULL && pkt->payload_len != 0;
}

/* State of the right version (the host checks that) with call slots,
 * bits or bytes this layout never writes is corrupt: the host zeroes it. */
static bool rpc_priv_valid(const void *state)
{
	const struct rpc_priv *priv = state;

	if (priv->reserved[0] || priv->reserved[1] || (priv->flags & ~RPC_F_ALL))
		return false;
	for (unsigned int i = 0; i < RPC_CALLS; i++) {
		uint8_t kind = priv->call[i] & RPC_CALL_KIND_MASK;

		if (priv->call[i] & ~(RPC_CALL_KIND_MASK | RPC_CALL_TCP) || kind > RPC_KIND_MAX ||
		    (priv->call[i] && kind == RPC_KIND_NONE))
			return false;
	}
	return true;
}

/* The state is copied so the host need not align it for uint32_t; a
 * dropped packet leaves it as it was, for the retransmission. */
static int rpc_packet(struct cth_ctx *ctx, const struct cth_packet *pkt,
		      void *priv_state, const void *config)
{
	struct rpc_priv priv;
	struct rpc_ctx s = {
		.ctx = ctx,
		.pkt = pkt,
		.priv = &priv,
		.cfg = config,
		.family = pkt->tuple[CTH_DIR_ORIGINAL].family,
		.nat = (pkt->nat & (CTH_NAT_SRC | CTH_NAT_DST)) != 0,
	};
	struct rpc_msgref m = { 0 };
	int verdict;

	if (!rpc_packet_wanted(pkt))
		return CTH_VERDICT_ACCEPT;
	memcpy(&priv, priv_state, sizeof(priv));
	if (pkt->tuple[CTH_DIR_ORIGINAL].proto == IPPROTO_TCP) {
		verdict = rpc_stream(&s);
	} else {
		m.msg = pkt->payload;
		m.len = pkt->payload_len;
		m.rewritable = true;
		verdict = rpc_message(&s, &m);
	}
	if (verdict == CTH_VERDICT_ACCEPT)
		memcpy(priv_state, &priv, sizeof(priv));
	return verdict;
}

CTH_PLUGIN_EXPORT const struct cth_plugin_desc cth_plugin = {
	.abi_version = CTH_ABI_VERSION,
	.size = sizeof(struct cth_plugin_desc),
	.name = "rpc",
	.version = "1.0.0",
	.description = "SunRPC portmapper/rpcbind: GETPORT, GETADDR, GETVERSADDR, NAT (UDP, TCP)",
	.protocols = CTH_PROTO_TCP | CTH_PROTO_UDP,
	.families = CTH_FAMILY_IPV4 | CTH_FAMILY_IPV6,
	.priv_size = CTH_PRIV_SIZE(struct rpc_priv),
	.config_size = sizeof(struct rpc_config),
	.n_classes = 1,
	/* several programs per client (NFS: mountd, nlockmgr, status...):
	 * a later answer must not evict an earlier one's expectation */
	.classes = {
		[RPC_CLASS_PROGRAM] = { .name = "program", .max = 8, .timeout = 300 },
	},
	.packet = rpc_packet,
	.keys = rpc_keys,
	.n_keys = sizeof(rpc_keys) / sizeof(rpc_keys[0]),
	.counters = rpc_counters,
	.n_counters = sizeof(rpc_counters) / sizeof(rpc_counters[0]),
	.priv_version = RPC_PRIV_VERSION,
	.priv_version_at = offsetof(struct rpc_priv, version),
	.priv_valid = rpc_priv_valid,
};
