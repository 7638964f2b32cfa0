/* SPDX-License-Identifier: MIT */
/*
 * FTP helper plugin: lets the data connection announced by PORT / EPRT
 * (active mode) or by a 227 / 229 reply (passive mode) through the firewall,
 * and rewrites the announcement under NAT.  Behaviour and the deliberate
 * differences from the kernel's nf_conntrack_ftp are in docs/plugins/ftp.md.
 */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include <cthelperd/plugin.h>
#include <cthelperd/util.h>

#include "ftp_parse.h"

/* Line starts remembered per direction: the kernel's NUM_SEQ_TO_REMEMBER.
 * Two cover a retransmitted command plus the line after it. */
#define FTP_NL_SEQS 2u

/* Ports tried after the announced one when it is taken under NAT.  The
 * kernel walks up to 65535; each try is a netlink round trip here. */
#define FTP_NAT_PORT_TRIES 128u

/* Layout version of struct ftp_priv, kept by the host at
 * offsetof(struct ftp_priv, version); 0 is a brand-new connection. */
#define FTP_PRIV_VERSION 1u

/* How far ahead of a packet a recorded line start can plausibly be: bytes
 * the sender sent and now sends again (a retransmission), never more than
 * an FTP control connection has in flight.  A line start further ahead
 * was never seen on this connection (garbage state): it is forgotten. */
#define FTP_SEQ_AHEAD_MAX (1u << 20)

/*
 * Per-connection state, kept by the kernel in the conntrack entry and given
 * back with every packet, so it survives a daemon restart.  Host byte order:
 * only this host ever reads it.  It arrives all-zero for a new connection
 * and for one whose state was lost (conntrackd carries the helper's name
 * to a failover peer, not this state; the kernel zeroes it there), which
 * reads as "no line start known in either direction".
 */
struct ftp_priv {
	/* TCP sequence numbers just after a '\n', per cth_dir. */
	uint32_t nl_seq[2][FTP_NL_SEQS];
	/* Valid entries of nl_seq[dir]; 0: no line start known in dir. */
	uint8_t nl_num[2];
	uint8_t version;
	/* FTP_PICKED(dir): a packet of dir came while no line start was
	 * known, so the one pickup (ftp_packet_state()) is used up. */
	uint8_t flags;
};

#define FTP_PICKED(dir) (1u << (dir))
/* FTP_OPEN(dir): the last packet of dir the plugin saw did not end in
 * '\n' (so the next one may continue its line) */
#define FTP_OPEN(dir) (1u << (2 + (dir)))
#define FTP_FLAGS_ALL (FTP_PICKED(0) | FTP_PICKED(1) | FTP_OPEN(0) | FTP_OPEN(1))

_Static_assert(sizeof(struct ftp_priv) == 20, "ftp_priv must have no padding");

/* Per helper instance, filled by the host from the declared keys. */
struct ftp_config {
	bool loose;             /* expect to an address other than the sender's */
	struct cth_ports ports; /* read by --print-rules only */
};

static const struct cth_key ftp_keys[] = {
	{
		.name = "loose", .type = CTH_KEY_BOOL,
		.offset = offsetof(struct ftp_config, loose), .def = "no",
		.doc = "expect data connections to an announced address that is not the sender's",
	},
	{
		.name = "ports", .type = CTH_KEY_PORTS, .flags = CTH_KEY_RULE_PORTS,
		.offset = offsetof(struct ftp_config, ports), .def = "21",
		.doc = "control ports cthelperd --print-rules attaches the helper to "
		       "(rule_ports overrides; the plugin does not filter by port)",
	},
};

/* Counters, indexes into ftp_counters[].  What the host counts per helper
 * already (expectations refused by its rule, rewritten packets) is not
 * counted again. */
enum ftp_counter {
	FTP_CNT_COMMANDS,
	FTP_CNT_EXPECTATIONS,
	FTP_CNT_PARSE_ERRORS,
	FTP_CNT_FOREIGN,
};

static const struct cth_counter ftp_counters[] = {
	[FTP_CNT_COMMANDS] = {
		.name = "commands_seen",
		.help = "PORT, EPRT, 227 and 229 messages parsed",
	},
	[FTP_CNT_EXPECTATIONS] = {
		.name = "expectations",
		.help = "data connections expected",
	},
	[FTP_CNT_PARSE_ERRORS] = {
		.name = "parse_errors",
		.help = "partial or malformed announcements dropped",
	},
	[FTP_CNT_FOREIGN] = {
		.name = "foreign_ignored",
		.help = "announced addresses not the sender's, ignored (loose = no)",
	},
};

/* Sequence comparison modulo 2^32, as TCP does it. */
static bool ftp_seq_after(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) > 0;
}

/* State of the right version (the host checks that) holding counts or
 * flags this layout never writes is corrupt: the host zeroes it. */
static bool ftp_priv_valid(const void *state)
{
	const struct ftp_priv *priv = state;

	return priv->nl_num[0] <= FTP_NL_SEQS && priv->nl_num[1] <= FTP_NL_SEQS &&
	       (priv->flags & ~FTP_FLAGS_ALL) == 0;
}

/* Line starts of dir recorded further ahead of this packet's end than
 * any retransmission can be were never seen here: forget them all, so
 * that the stream's real line starts are recorded again. */
static void ftp_nl_sane(struct ftp_priv *priv, enum cth_dir dir, uint32_t end)
{
	for (unsigned int i = 0; i < priv->nl_num[dir]; i++) {
		if ((int32_t)(priv->nl_seq[dir][i] - end) > (int32_t)FTP_SEQ_AHEAD_MAX) {
			priv->nl_num[dir] = 0;
			memset(priv->nl_seq[dir], 0, sizeof(priv->nl_seq[dir]));
			return;
		}
	}
}

static bool ftp_nl_find(const struct ftp_priv *priv, enum cth_dir dir,
			uint32_t seq)
{
	unsigned int i;

	for (i = 0; i < priv->nl_num[dir]; i++)
		if (priv->nl_seq[dir][i] == seq)
			return true;
	return false;
}

/* Remember seq as a line start; when full, it replaces the older entry,
 * but only if it is newer (a retransmission must not evict a new line). */
static void ftp_nl_record(struct ftp_priv *priv, enum cth_dir dir,
			  uint32_t seq)
{
	uint32_t *s = priv->nl_seq[dir];
	unsigned int oldest;

	if (ftp_nl_find(priv, dir, seq))
		return;
	if (priv->nl_num[dir] < FTP_NL_SEQS) {
		s[priv->nl_num[dir]++] = seq;
		return;
	}
	oldest = ftp_seq_after(s[1], s[0]) ? 0 : 1;
	if (ftp_seq_after(seq, s[oldest]))
		s[oldest] = seq;
}

/* The newest recorded line start of dir is before seq (nl_num[dir] > 0). */
static bool ftp_nl_before(const struct ftp_priv *priv, enum cth_dir dir,
			  uint32_t seq)
{
	for (unsigned int i = 0; i < priv->nl_num[dir]; i++)
		if (!ftp_seq_after(seq, priv->nl_seq[dir][i]))
			return false;
	return priv->nl_num[dir] > 0;
}

/*
 * Packets were skipped before this one, which starts a line: the last
 * packet of dir the plugin saw ended a line, this one starts after that
 * line start and holds one line at most (its only '\n' is its last
 * byte, or it has none: the start of a split command).  A kernel module
 * that filters (kmod/, ftp_match below) skips packets that cannot hold an
 * announcement, and queues a packet whose start does not start a line
 * only when a later line of it matches: never a packet of one line.
 * With every packet queued (the in-tree module) this happens only when
 * TCP reorders or loses a segment.
 */
static bool ftp_skipped(const struct ftp_priv *priv, const struct cth_packet *pkt)
{
	const uint8_t *nl = memchr(pkt->payload, '\n', pkt->payload_len);

	return !(priv->flags & FTP_OPEN(pkt->dir)) &&
	       ftp_nl_before(priv, pkt->dir, pkt->seq) &&
	       (!nl || nl == pkt->payload + pkt->payload_len - 1);
}


/* The kernel only looks once there has been traffic both ways. */
static bool ftp_packet_wanted(const struct cth_packet *pkt)
{
	int family = pkt->tuple[CTH_DIR_ORIGINAL].family;

	/* A data connection carries file contents, never commands: it is
	 * not helped unless a rule says so, and even then not parsed. */
	if (pkt->ct_status & CTH_CT_EXPECTED)
		return false;
	if (pkt->ctinfo != CTH_CT_ESTABLISHED &&
	    pkt->ctinfo != CTH_CT_ESTABLISHED_REPLY)
		return false;
	if (pkt->dir != CTH_DIR_ORIGINAL && pkt->dir != CTH_DIR_REPLY)
		return false;
	if (pkt->tuple[CTH_DIR_ORIGINAL].proto != IPPROTO_TCP)
		return false;
	if (family != AF_INET && family != AF_INET6)
		return false;
	return pkt->payload != NULL && pkt->payload_len != 0;
}

static enum cth_dir ftp_other_dir(enum cth_dir dir)
{
	return dir == CTH_DIR_ORIGINAL ? CTH_DIR_REPLY : CTH_DIR_ORIGINAL;
}

/*
 * Under NAT the peer must be told where it can really connect: the
 * reverse tuple's destination and a port free there.  The expected
 * connection is then mapped like its master back to the announced
 * address and port (nat_addr/nat_port): cth_expect_to() did so for the
 * sender's own address, and a loose third host's is mapped the same way,
 * as nf_nat_ftp does.  Like the kernel, a packet we cannot rewrite is
 * dropped: passing it would announce an unreachable address.
 */
static int ftp_nat(struct cth_ctx *ctx, const struct cth_packet *pkt,
		   const struct ftp_cmd *cmd, struct cth_expect *exp)
{
	enum cth_dir rdir = ftp_other_dir(pkt->dir);
	int family = exp->family;
	char text[FTP_FORMAT_MAX];
	int len;
	int ret;

	exp->flags |= CTH_EXPECT_NAT;
	exp->nat_dir = rdir;
	cth_addr_copy(family, &exp->nat_addr, &cmd->addr);
	exp->nat_port = cmd->port;
	exp->fn = CTH_EXPECT_FN_NAT_FOLLOW_MASTER;

	ret = cth_expect_free_port(ctx, exp, cmd->port, FTP_NAT_PORT_TRIES);
	if (ret < 0) {
		cth_log(ctx, CTH_LOG_INFO, "%s: no free port from %u (%d)",
			ftp_cmd_name(cmd->type), (unsigned int)cmd->port, ret);
		return CTH_VERDICT_DROP;
	}
	cth_count(ctx, FTP_CNT_EXPECTATIONS);
	len = ftp_format(cmd->type, family, &pkt->tuple[rdir].dst, exp->dport, text,
			 sizeof(text));
	if (len < 0) {
		cth_log(ctx, CTH_LOG_INFO, "%s: cannot format (%d)",
			ftp_cmd_name(cmd->type), len);
		return CTH_VERDICT_DROP;
	}
	ret = cth_mangle(ctx, cmd->off, cmd->len, text, (size_t)len);
	if (ret < 0) {
		cth_log(ctx, CTH_LOG_INFO, "%s: cannot mangle packet (%d)",
			ftp_cmd_name(cmd->type), ret);
		return CTH_VERDICT_DROP;
	}
	return CTH_VERDICT_ACCEPT;
}

/*
 * A well-formed announcement: check the address, then expect the data
 * connection from the peer (any source port) to where this packet's
 * sender is reachable from the peer (cth_expect_to(): the reverse
 * tuple's destination, which differs from the sender's own address only
 * under NAT), or with loose to the third host announced.
 */
static int ftp_handle_cmd(struct cth_ctx *ctx, const struct cth_packet *pkt,
			  const struct ftp_config *cfg, struct ftp_cmd *cmd)
{
	const struct cth_tuple *own = &pkt->tuple[pkt->dir];
	int family = own->family;
	struct cth_expect exp;
	int ret;

	/* A 229 names no address: the data goes to the server itself. */
	if (cmd->type == FTP_CMD_EPSV) {
		cmd->family = family;
		cth_addr_copy(family, &cmd->addr, &own->src);
	}
	/* PORT and 227 can only carry IPv4 addresses. */
	if (cmd->family != family) {
		cth_log(ctx, CTH_LOG_DEBUG, "%s: IPv4 address on IPv6, ignored",
			ftp_cmd_name(cmd->type));
		return CTH_VERDICT_ACCEPT;
	}
	/*
	 * An address other than the sender's could open a hole towards a
	 * third host (or the firewall itself): only with loose, and then to
	 * exactly that address.
	 */
	if (!cth_addr_equal(family, &cmd->addr, &own->src) && !cfg->loose) {
		cth_log_addr(ctx, CTH_LOG_DEBUG, "not expecting foreign",
			     family, &cmd->addr, cmd->port);
		cth_count(ctx, FTP_CNT_FOREIGN);
		return CTH_VERDICT_ACCEPT;
	}
	cth_expect_to(&exp, pkt, 0, IPPROTO_TCP, &cmd->addr, cmd->port);
	if (pkt->nat & (CTH_NAT_SRC | CTH_NAT_DST))
		return ftp_nat(ctx, pkt, cmd, &exp);
	/* The kernel drops what it cannot expect: the data would not pass. */
	ret = cth_expect(ctx, &exp, 0);
	if (ret < 0) {
		cth_log(ctx, CTH_LOG_INFO, "%s: cannot add expectation (%d)",
			ftp_cmd_name(cmd->type), ret);
		return cth_expect_verdict(ret);
	}
	cth_count(ctx, FTP_CNT_EXPECTATIONS);
	return CTH_VERDICT_ACCEPT;
}

/*
 * The first line of a packet read where it may not be whole (a pickup, a
 * packet after skipped ones, or one that shows kept bytes) and does not
 * parse: -EAGAIN, the start of a command split across segments, is kept
 * (cth_keep()) and read whole with the next segment, which a filtering
 * kernel module queues too (it follows a queued segment that ended inside
 * a line); anything else is a fragment, left alone.
 */
static int ftp_unparsed(struct cth_ctx *ctx, int ret)
{
	if (ret == -EAGAIN && cth_keep(ctx, 0) == 0)
		cth_log(ctx, CTH_LOG_DEBUG, "partial command kept for the next segment");
	return CTH_VERDICT_ACCEPT;
}

/*
 * Only a packet that starts a line is parsed, and only its first line,
 * as the kernel does: every packet ending in '\n' records where the next
 * line starts.  With no line start known for a direction (a new
 * connection, or one whose state was lost: a failover peer gets the
 * connection from conntrackd without it) the first packet of the
 * direction is picked up as a line start if it is a whole announcement
 * (PORT, EPRT, 227, 229); one that does not parse may be the middle of a
 * line and is left alone, never dropped (a partial one is kept for the
 * next segment), and later packets wait for a line start (one after a
 * packet ending in '\n').  The kernel picks up the first packet of an
 * entry ctnetlink created without looking (NF_CT_FTP_SEQ_PICKUP); the
 * first command after a failover is often the PORT itself.  A packet
 * after skipped ones (a filtering kernel module, ftp_skipped()) is read as
 * a pickup is; a command read so records its own start as a line start,
 * so that its retransmission is read again.
 */
static int ftp_packet_state(struct cth_ctx *ctx, const struct cth_packet *pkt,
			    struct ftp_priv *priv,
			    const struct ftp_config *config)
{
	enum cth_dir dir = pkt->dir;
	size_t kept = cth_kept(ctx, pkt);
	struct ftp_cmd cmd;
	uint32_t next_seq;
	bool ends_in_nl, recorded, loose_start, pickup;
	int verdict = CTH_VERDICT_ACCEPT;
	int ret;

	/* Taken before any rewrite: sequence numbers the helper sees are
	 * the sender's, NAT adjusts them only afterwards. */
	ends_in_nl = pkt->payload[pkt->payload_len - 1] == '\n';
	next_seq = pkt->seq + (uint32_t)(pkt->payload_len - kept);
	ftp_nl_sane(priv, dir, next_seq);

	recorded = !kept && ftp_nl_find(priv, dir, pkt->seq);
	pickup = priv->nl_num[dir] == 0 && !(priv->flags & FTP_PICKED(dir));
	loose_start = !recorded && (kept || pickup || ftp_skipped(priv, pkt));
	if (priv->nl_num[dir] == 0)
		priv->flags |= FTP_PICKED(dir);
	if (recorded || loose_start) {
		ret = ftp_parse(pkt->payload, pkt->payload_len, dir,
				pkt->tuple[dir].family, &cmd);
		if (ret < 0 && loose_start)
			verdict = ftp_unparsed(ctx, ret);
		else if (ret < 0) {
			/* Drop so the sender retransmits, hopefully whole;
			 * the line start stays where it was. */
			cth_log(ctx, CTH_LOG_INFO, "%s command, dropped",
				ret == -EAGAIN ? "partial" : "malformed");
			cth_count(ctx, FTP_CNT_PARSE_ERRORS);
			return CTH_VERDICT_DROP;
		} else if (ret > 0 && kept && cmd.off < kept &&
			   (pkt->nat & (CTH_NAT_SRC | CTH_NAT_DST))) {
			/* its address went out with the kept bytes already */
			cth_log(ctx, CTH_LOG_INFO, "%s split across segments under NAT: "
				"passed untranslated", ftp_cmd_name(cmd.type));
			cth_count(ctx, FTP_CNT_PARSE_ERRORS);
		} else if (ret > 0) {
			cth_count(ctx, FTP_CNT_COMMANDS);
			verdict = ftp_handle_cmd(ctx, pkt, config, &cmd);
			if (loose_start && !kept && verdict == CTH_VERDICT_ACCEPT)
				ftp_nl_record(priv, dir, pkt->seq);
		}
	}
	if (ends_in_nl)
		ftp_nl_record(priv, dir, next_seq);
	priv->flags = (uint8_t)((priv->flags & ~FTP_OPEN(dir)) |
				(ends_in_nl ? 0 : FTP_OPEN(dir)));
	return verdict;
}

/* The state is copied so the host need not align it for uint32_t. */
static int ftp_packet(struct cth_ctx *ctx, const struct cth_packet *pkt,
		      void *priv_state, const void *config)
{
	struct ftp_priv priv;
	int verdict;

	if (!ftp_packet_wanted(pkt))
		return CTH_VERDICT_ACCEPT;
	memcpy(&priv, priv_state, sizeof(priv));
	verdict = ftp_packet_state(ctx, pkt, &priv, config);
	memcpy(priv_state, &priv, sizeof(priv));
	return verdict;
}

/* A test build (tests/tests.mk) reports another version: the reload test
 * replaces ftp.so with it and reads the version back from status. */
#ifndef FTP_PLUGIN_VERSION
#define FTP_PLUGIN_VERSION "1.0.0"
#endif

/*
 * What the plugin acts on (issue 34): a line starting with a command or a
 * reply it parses.  Its first packets (220, USER) need no pickup: the
 * first packet of a direction is parsed whatever its sequence number,
 * and a packet after skipped ones is read as a line start
 * (ftp_skipped()).
 */
static const struct cth_match ftp_match[] = {
	{ .prefix = "PORT", .at = CTH_MATCH_AT_LINE, .dirs = CTH_MATCH_ORIGINAL },
	{ .prefix = "EPRT", .at = CTH_MATCH_AT_LINE, .dirs = CTH_MATCH_ORIGINAL },
	{ .prefix = "227", .at = CTH_MATCH_AT_LINE, .dirs = CTH_MATCH_REPLY },
	{ .prefix = "229", .at = CTH_MATCH_AT_LINE, .dirs = CTH_MATCH_REPLY },
};

CTH_PLUGIN_EXPORT const struct cth_plugin_desc cth_plugin = {
	.abi_version = CTH_ABI_VERSION,
	.size = sizeof(struct cth_plugin_desc),
	.name = "ftp",
	.version = FTP_PLUGIN_VERSION,
	.description = "FTP: PORT/EPRT and 227/229 data connections, NAT",
	.protocols = CTH_PROTO_TCP,
	.families = CTH_FAMILY_IPV4 | CTH_FAMILY_IPV6,
	.priv_size = CTH_PRIV_SIZE(struct ftp_priv),
	.config_size = sizeof(struct ftp_config),
	.n_classes = 1,
	.classes = {
		{ .name = "ftp", .max = 1, .timeout = 300 },
	},
	.packet = ftp_packet,
	.keys = ftp_keys,
	.n_keys = sizeof(ftp_keys) / sizeof(ftp_keys[0]),
	.counters = ftp_counters,
	.n_counters = sizeof(ftp_counters) / sizeof(ftp_counters[0]),
	.priv_version = FTP_PRIV_VERSION,
	.priv_version_at = offsetof(struct ftp_priv, version),
	.priv_valid = ftp_priv_valid,
	.match = ftp_match,
	.n_match = sizeof(ftp_match) / sizeof(ftp_match[0]),
};
