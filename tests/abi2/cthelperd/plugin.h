/* SPDX-License-Identifier: MIT */
/**
 * @file plugin.h
 * @brief The cthelperd plugin SDK: descriptor, packet view, host functions.
 *
 * A plugin is a shared object that exports exactly one symbol,
 * ::cth_plugin, a const ::cth_plugin_desc.  The daemon dlopen()s it with
 * RTLD_NOW | RTLD_LOCAL, checks that the first two fields (ABI version and
 * descriptor size) match what it was built for, and from then on calls only
 * through the descriptor.  The plugin calls back into the daemon only through
 * the ::cth_host table reachable from every ::cth_ctx, so a plugin links
 * against nothing from the daemon and the same plugin runs unchanged under
 * the daemon and under the offline replay tool.
 *
 * Plugins keep no per-connection state of their own: each connection carries
 * up to ::CTH_PRIV_MAX bytes of private state inside the kernel's conntrack
 * entry (CTA_HELP_INFO).  The daemon hands that state to the packet callback
 * and writes it back with the verdict, so the daemon can be restarted at any
 * time without losing track of a connection.
 *
 * Every function that can fail returns 0 or a negative errno value.
 *
 * Threads: the daemon runs one worker thread per queue, so cth_plugin_desc::packet
 * runs concurrently for packets of different queues (never for two packets
 * of one queue, and every packet of a connection comes from one queue).
 * The packet callback must therefore not write shared data without its own
 * locking; the configuration block is read-only once the daemon runs.
 * The host functions (cth_expect(), cth_mangle(), cth_set_timeout(),
 * cth_set_mark(), cth_detach(), cth_keep(), cth_log()) are safe to call
 * from the packet callback with the ::cth_ctx it was given, and only then:
 * a context is valid for the duration of that one call.  configure() runs
 * once per key at start-up or reload, in one thread, before packets flow.
 */
#ifndef CTHELPERD_PLUGIN_H
#define CTHELPERD_PLUGIN_H

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** ABI version of ::cth_plugin_desc, ::cth_host and the structures a plugin
 *  hands to the host (::cth_expect).  Bumped on any layout change a plugin
 *  built against an older header could not survive (2: cth_expect::timeout). */
#define CTH_ABI_VERSION 2u

/** Largest private state a plugin may keep per connection (kernel limit). */
#define CTH_PRIV_MAX 32u

/** Most expectation classes one helper may declare (kernel limit). */
#define CTH_CLASS_MAX 4u

/** Size of a helper or class name buffer, terminating NUL included. */
#define CTH_NAME_LEN 16u

/** Name of the symbol the loader looks up. */
#define CTH_PLUGIN_SYMBOL "cth_plugin"

/** Mark the descriptor as the one exported symbol of the plugin. */
#define CTH_PLUGIN_EXPORT __attribute__((visibility("default")))

/**
 * Size of a private state type, refused at compile time when it does not fit
 * in the conntrack entry.  Use it for cth_plugin_desc::priv_size.
 */
#define CTH_PRIV_SIZE(type) \
	(sizeof(type) * sizeof(char[sizeof(type) <= CTH_PRIV_MAX ? 1 : -1]))

/** Direction of a packet relative to the connection's first packet. */
enum cth_dir {
	CTH_DIR_ORIGINAL = 0, /**< same direction as the first packet */
	CTH_DIR_REPLY = 1,    /**< the answering direction */
};

/** Verdict returned by the packet callback. */
enum cth_verdict {
	CTH_VERDICT_DROP = 0,   /**< drop the packet */
	CTH_VERDICT_ACCEPT = 1, /**< let the packet (possibly mangled) go on */
};

/** Conntrack state of the packet (the kernel's ip_conntrack_info values). */
enum cth_ctinfo {
	CTH_CT_ESTABLISHED = 0,
	CTH_CT_RELATED = 1,
	CTH_CT_NEW = 2,
	CTH_CT_ESTABLISHED_REPLY = 3,
	CTH_CT_RELATED_REPLY = 4,
};

/** Bits of cth_packet::nat. */
enum cth_nat_bits {
	CTH_NAT_SRC = 1u << 0, /**< the connection is source-NATed */
	CTH_NAT_DST = 1u << 1, /**< the connection is destination-NATed */
};

/** Bits of cth_packet::ct_status: what the kernel says about the connection. */
enum cth_ct_status_bits {
	/** An expected connection (it has a master, cth_packet::master is
	 *  valid).  The kernel keeps no private state for it and refuses to
	 *  detach it: its private state is not stored and cth_detach()
	 *  returns -EOPNOTSUPP. */
	CTH_CT_EXPECTED = 1u << 0,
	CTH_CT_SEEN_REPLY = 1u << 1, /**< packets were seen both ways */
	CTH_CT_ASSURED = 1u << 2,    /**< the kernel will not evict it early */
	CTH_CT_CONFIRMED = 1u << 3,  /**< in the conntrack table (not a first packet) */
};

/** Bits of cth_plugin_desc::protocols. */
enum cth_proto_bits {
	CTH_PROTO_TCP = 1u << 0,
	CTH_PROTO_UDP = 1u << 1,
};

/** Bits of cth_plugin_desc::families. */
enum cth_family_bits {
	CTH_FAMILY_IPV4 = 1u << 0,
	CTH_FAMILY_IPV6 = 1u << 1,
};

/** Log levels for cth_log(); the same numbers as syslog. */
enum cth_log_level {
	CTH_LOG_ERR = 3,
	CTH_LOG_WARNING = 4,
	CTH_LOG_NOTICE = 5,
	CTH_LOG_INFO = 6,
	CTH_LOG_DEBUG = 7,
};

/** An IPv4 or IPv6 address in network byte order. */
union cth_addr {
	uint32_t ip;      /**< IPv4 */
	uint32_t ip6[4];  /**< IPv6 */
	uint8_t raw[16];  /**< bytes, IPv4 in the first four */
};

/** One direction of a conntrack entry.  Ports are in host byte order. */
struct cth_tuple {
	union cth_addr src;
	union cth_addr dst;
	uint16_t sport;
	uint16_t dport;
	uint8_t family; /**< AF_INET or AF_INET6 */
	uint8_t proto;  /**< IPPROTO_TCP or IPPROTO_UDP */
};

/**
 * Read-only view of one queued packet and its connection.
 *
 * Offsets are from the start of the network header (#data).  Payload is the
 * transport payload; the callback is not called for packets without one.
 */
struct cth_packet {
	const uint8_t *data;         /**< network header onwards */
	size_t len;                  /**< bytes at #data */
	size_t l4_offset;            /**< transport header offset */
	size_t payload_offset;       /**< transport payload offset */
	/** The transport payload: == #data + #payload_offset, unless #kept
	 *  is not 0 (then a host buffer: see #kept) */
	const uint8_t *payload;
	size_t payload_len;          /**< bytes at #payload, #kept included */
	enum cth_dir dir;            /**< direction of this packet */
	enum cth_ctinfo ctinfo;      /**< conntrack state of this packet */
	struct cth_tuple tuple[2];   /**< indexed by ::cth_dir */
	unsigned int nat;            /**< ::cth_nat_bits */
	uint32_t seq;                /**< TCP sequence number (host order), 0 for UDP */
	uint32_t mark;               /**< conntrack mark */
	uint16_t queue;              /**< queue the packet came from */
	/* appended after ABI 1's first release; hosts always fill them */
	uint16_t zone;               /**< conntrack zone (0: the default) */
	uint32_t ct_id;              /**< conntrack id, stable while it lives */
	unsigned int ct_status;      /**< ::cth_ct_status_bits */
	/** The master's original-direction tuple, valid when #ct_status has
	 *  ::CTH_CT_EXPECTED. */
	struct cth_tuple master;
	/**
	 * Bytes at the start of #payload that came from earlier segments of
	 * this connection and direction, because the plugin kept them
	 * (cth_keep()); 0 otherwise, always 0 for UDP.  They were forwarded
	 * with their own packets: cth_mangle() refuses to touch them.
	 *
	 * When #kept is not 0, #payload points into a host buffer holding
	 * the kept bytes followed by this segment's payload, #payload_len
	 * counts both, and #payload == #data + #payload_offset does not
	 * hold: this segment's own payload is #payload + #kept (a copy of
	 * #data + #payload_offset, #payload_len - #kept bytes).  #seq stays
	 * this segment's own; the kept bytes had sequence numbers #seq -
	 * #kept up to #seq - 1 (modulo 2^32).
	 *
	 * Appended after ABI 2's first release, with cth_host::keep: a host
	 * older than that never shows kept bytes and has no such field in
	 * its packet view.  cth_kept() reads it safely on any host.
	 */
	size_t kept;
};

/** Bits of cth_expect::flags. */
enum cth_expect_flags {
	CTH_EXPECT_ANY_SRC = 1u << 0,   /**< ignore cth_expect::src */
	CTH_EXPECT_PERMANENT = 1u << 1, /**< stays after the first match */
	CTH_EXPECT_INACTIVE = 1u << 2,  /**< does not match until activated */
	CTH_EXPECT_NAT = 1u << 3,       /**< NAT fields below are valid */
	/**
	 * The expected connection gets this helper too: every one of its
	 * packets is queued to the plugin (SIP's REGISTER signalling case).
	 * Without it (the default, and what the kernel's own helpers do) the
	 * expected connection is not helped and stays in the kernel's fast
	 * path.  Linux 6.1 honours the helper name only on the verdict
	 * (ctnetlink ignores it), so the host sends this expectation with
	 * the verdict, also with ::CTH_EXPECT_SYNC (then it is created over
	 * ctnetlink first for the answer, and the verdict's copy replaces it):
	 * at most one per packet, a second one gets -EOPNOTSUPP.
	 */
	CTH_EXPECT_HELPER = 1u << 4,
};

/**
 * Expectation function that maps a NATed expected connection like its
 * master: the expected connection is sent to the master's address in
 * cth_expect::nat_dir (not to cth_expect::nat_addr, which the kernel
 * ignores here) and to cth_expect::nat_port (Linux nf_nat_follow_master).
 */
#define CTH_EXPECT_FN_NAT_FOLLOW_MASTER "nat-follow-master"

/**
 * An expected connection, related to the packet's connection (its master).
 *
 * Expectation classes (measured on Debian's Linux 6.1.0-57, see
 * docs/architecture.md): the kernel applies the class asked for, with the
 * policy (cth_expect_class::max and timeout) of the master's helper for
 * that class, whether or not the expected connection gets a helper
 * (::CTH_EXPECT_HELPER), and whichever path the host takes.  Older kernels
 * read the class only when a helper was named and used class 0 otherwise;
 * on those, give class 0 the policy unhelped expectations need.
 *
 * The expected connection comes from #src:#sport to #dst:#dport; a zero
 * #sport matches any source port.  Under NAT, #dst/#dport are the address
 * and port the peer will really connect to (after rewriting the payload),
 * #nat_addr/#nat_port where the connection must end up, #nat_dir the
 * direction of the master the expected connection follows, and #fn usually
 * ::CTH_EXPECT_FN_NAT_FOLLOW_MASTER.
 */
struct cth_expect {
	unsigned int class;   /**< index into cth_plugin_desc::classes */
	unsigned int flags;   /**< ::cth_expect_flags */
	uint8_t family;       /**< AF_INET or AF_INET6 */
	uint8_t proto;        /**< may differ from the master's */
	uint16_t sport;       /**< 0 = any */
	uint16_t dport;
	union cth_addr src;
	union cth_addr dst;
	enum cth_dir nat_dir;
	union cth_addr nat_addr;
	uint16_t nat_port;
	const char *fn;       /**< registered expectation function, or NULL */
	/** Seconds, for ::CTH_EXPECT_OP_REFRESH; 0 keeps the class policy's.
	 *  Creation ignores it (Linux applies the class policy). */
	uint32_t timeout;
};

/** Bits for cth_expect()'s @p how argument. */
enum cth_expect_how {
	/**
	 * Create the expectation now and report the kernel's answer (e.g.
	 * -EBUSY when the tuple is taken, so a NAT helper can try another
	 * port).  Without it the expectation rides on the verdict and its
	 * result is not known.  For a connection the kernel has not
	 * confirmed yet (the first packet of a UDP flow, ::CTH_CT_CONFIRMED
	 * unset) the host checks now that the tuple is free and creates the
	 * expectation right after the verdict.
	 */
	CTH_EXPECT_SYNC = 1u << 0,
};

/** Operations of cth_expect_ctl() on the connection's existing expectations. */
enum cth_expect_op {
	/** Remove the connection's expectations: all of them (@p exp NULL)
	 *  or those of class exp->class.  Done before the verdict, so an
	 *  expectation asked for later in the same call is not removed.
	 *  The host lists the connection's expectations once per packet,
	 *  so flushing several classes, or the same class for each message
	 *  a packet holds, costs one listing; a repeated flush removes
	 *  nothing more and asks the kernel nothing. */
	CTH_EXPECT_OP_FLUSH = 1,
	/** Remove the connection's expectation with the tuple of @p exp
	 *  (family, proto, src unless ::CTH_EXPECT_ANY_SRC, dst, sport,
	 *  dport). */
	CTH_EXPECT_OP_REMOVE = 2,
	/** Refresh the connection's expectation with the tuple of @p exp:
	 *  @p exp is sent again with the verdict, without
	 *  ::CTH_EXPECT_INACTIVE, which makes an inactive one usable (Linux
	 *  replaces an expectation of the same master, tuple and class), and
	 *  when exp->timeout is not 0 it then waits that many seconds.  The
	 *  verdict carries one such expectation (see ::CTH_EXPECT_HELPER). */
	CTH_EXPECT_OP_REFRESH = 3,
};

struct cth_ctx;

/**
 * Functions the daemon offers to plugins.  Reach them through the inline
 * wrappers below.  Fields are only ever appended; check #size before using
 * one added after ABI version 1.
 */
struct cth_host {
	uint32_t abi_version; /**< ::CTH_ABI_VERSION of the host */
	uint32_t size;        /**< sizeof(struct cth_host) of the host */
	int (*expect)(struct cth_ctx *ctx, const struct cth_expect *exp,
		      unsigned int how);
	int (*mangle)(struct cth_ctx *ctx, size_t offset, size_t len,
		      const void *repl, size_t repl_len);
	int (*set_timeout)(struct cth_ctx *ctx, uint32_t seconds);
	int (*set_mark)(struct cth_ctx *ctx, uint32_t mark);
	int (*detach)(struct cth_ctx *ctx);
	void (*vlog)(struct cth_ctx *ctx, int level, const char *fmt,
		     va_list ap);
	/* appended after ABI 1's first release: cth_expect_ctl() checks #size */
	int (*expect_ctl)(struct cth_ctx *ctx, unsigned int op,
			  const struct cth_expect *exp);
	/*
	 * Appended after ABI 2's first release, together with
	 * cth_packet::kept; cth_keep() and cth_kept() check #size.  No ABI
	 * bump: both structures only grow at their end and the host fills
	 * them, so a plugin built against an older header reads the prefix
	 * it knows (and, never keeping, always sees payload at data +
	 * payload_offset); a newer plugin on an older host learns from
	 * #size that neither is there.
	 */
	int (*keep)(struct cth_ctx *ctx, size_t offset);
};

/**
 * Per-packet context.  The host embeds it as the first member of its own
 * context; plugins only pass it back.
 */
struct cth_ctx {
	const struct cth_host *host;
};

/** An expectation class: a name and its default policy. */
struct cth_expect_class {
	const char *name;  /**< < ::CTH_NAME_LEN bytes */
	uint32_t max;      /**< most live expectations per master, 1..255 */
	uint32_t timeout;  /**< seconds an expectation waits, 1..604800 (the kernel counts it in 32-bit jiffies) */
};

/**
 * The plugin descriptor: export exactly one, named ::cth_plugin.
 *
 * @p configure and @p packet get the helper instance's configuration block
 * (#config_size bytes, zeroed, then filled by #configure for each key of the
 * helper's config section the daemon does not know itself).
 */
struct cth_plugin_desc {
	uint32_t abi_version;    /**< must be ::CTH_ABI_VERSION */
	uint32_t size;           /**< must be sizeof(struct cth_plugin_desc) */
	const char *name;        /**< plugin name */
	const char *version;     /**< plugin version string */
	const char *description; /**< one line */
	unsigned int protocols;  /**< supported ::cth_proto_bits; a helper's protocol defaults to all of them, and naming another is a config error */
	unsigned int families;   /**< supported ::cth_family_bits; a helper's family defaults to all of them */
	size_t priv_size;        /**< private state bytes, <= ::CTH_PRIV_MAX */
	size_t config_size;      /**< per-instance configuration bytes */
	unsigned int n_classes;  /**< 1..::CTH_CLASS_MAX */
	struct cth_expect_class classes[CTH_CLASS_MAX];
	/**
	 * Optional. Apply one configuration key.
	 * @return 0, -ENOENT for an unknown key, -EINVAL for a bad value.
	 */
	int (*configure)(void *config, const char *key, const char *value);
	/**
	 * Handle one packet with a non-empty payload.
	 * @param ctx    pass to the host functions
	 * @param pkt    the packet
	 * @param priv   private state, zeroed for a new connection, written
	 *               back to the conntrack entry with the verdict
	 * @param config this helper instance's configuration
	 * @return a ::cth_verdict
	 */
	int (*packet)(struct cth_ctx *ctx, const struct cth_packet *pkt,
		      void *priv, const void *config);
};

/** The symbol every plugin exports. */
extern const struct cth_plugin_desc cth_plugin;

/**
 * Ask for an expected connection related to this packet's connection.
 * @param ctx the packet context
 * @param exp the expectation; copied, may live on the stack
 * @param how 0, or ::CTH_EXPECT_SYNC to learn the kernel's answer now
 * @return 0, or a negative errno (-EBUSY: tuple taken; -EINVAL: bad class,
 *         address, flags, or a function name of 32 bytes or more;
 *         -EOPNOTSUPP: a second ::CTH_EXPECT_HELPER expectation for one
 *         packet; -ENOSPC: the packet used up the host's bound on kernel
 *         requests, see cth_expect_ctl(); -EPERM: refused by the host's
 *         rule, whatever the plugin: neither end of the expected
 *         connection is an address of this connection, an address lies
 *         outside the helper's @c expect_networks, or a NAT target is not
 *         this connection's, see cthelperd.conf(5)).  One packet makes at
 *         most 16 expectations: past them the host makes nothing more,
 *         counts each one asked for as over the limit and still returns 0,
 *         so the limit never becomes a dropped packet (a plugin that drops
 *         on error would drop the retransmission too, for ever).  With
 *         ::CTH_EXPECT_SYNC, an expectation identical to one this
 *         connection already has (a retransmitted command asking again)
 *         is reported as created.
 */
static inline int cth_expect(struct cth_ctx *ctx, const struct cth_expect *exp,
			     unsigned int how)
{
	return ctx->host->expect(ctx, exp, how);
}

/**
 * The verdict for a packet whose announcement could not be expected.
 *
 * A transient failure (-EBUSY, -ENOMEM, a kernel error) drops the packet
 * as the kernel's own helpers do: its retransmission tries again.  The
 * host's rule (-EPERM, see cth_expect()) is final, so dropping would drop
 * every retransmission too and stall the connection: the packet passes
 * and nothing is opened, which the firewall's own policy then decides.
 * @param err the negative errno cth_expect() returned
 * @return ::CTH_VERDICT_ACCEPT for -EPERM, else ::CTH_VERDICT_DROP
 */
static inline int cth_expect_verdict(int err)
{
	return err == -EPERM ? CTH_VERDICT_ACCEPT : CTH_VERDICT_DROP;
}

/**
 * Act on the connection's existing expectations (see ::cth_expect_op).
 *
 * The host finds them in the kernel by their master (this connection) and
 * zone; the plugin keeps no list.
 * @param ctx the packet context
 * @param op  a ::cth_expect_op
 * @param exp the class (FLUSH, or NULL for all), the tuple (REMOVE) or the
 *            whole expectation as created (REFRESH)
 * @return FLUSH, REMOVE: the number of expectations removed (0 or more);
 *         REFRESH: 0, or -ENOENT when the connection has no such
 *         expectation; or -EINVAL (bad op or arguments), -EOPNOTSUPP (a
 *         host without this call, or a second helped expectation for the
 *         verdict), -ENOSPC (the packet used up the host's bound on
 *         kernel requests), or another negative errno from the kernel
 *
 * Every request to the kernel (a listing, a lookup, a creation, a
 * removal) is a round trip the packet waits for; the host allows one
 * packet 64 of them, from cth_expect() and cth_expect_ctl() together,
 * and refuses the rest with -ENOSPC (counted as kernel_capped).  A
 * plugin that loops per message or per port should stop on -ENOSPC.
 */
static inline int cth_expect_ctl(struct cth_ctx *ctx, unsigned int op,
				 const struct cth_expect *exp)
{
	if (ctx->host->size < offsetof(struct cth_host, expect_ctl) +
			      sizeof(ctx->host->expect_ctl) || !ctx->host->expect_ctl)
		return -EOPNOTSUPP;
	return ctx->host->expect_ctl(ctx, op, exp);
}

/**
 * Replace @p len payload bytes at @p offset with @p repl_len bytes.
 *
 * Offsets are relative to the payload as the plugin sees it (the original
 * packet), whatever edits came before: a plugin may make up to 32 edits
 * per packet in any order (a SIP rewrite changes headers, then the body,
 * then Content-Length, which comes before the body).  The host keeps them
 * and applies them sorted by offset after the callback returns, fixing
 * the IP and UDP lengths and the IP, TCP and UDP checksums (a UDP checksum
 * that computes to 0 is sent as 0xffff); the kernel adjusts TCP sequence
 * numbers for the total length change.  A TCP payload may change length
 * only when the connection is NATed (the kernel adjusts sequence numbers
 * only then).  @p repl is copied.  Bytes kept from earlier segments
 * (cth_packet::kept, cth_keep()) were forwarded already: an edit must
 * start at or after cth_packet::kept (an insertion right at it goes in
 * front of this segment's payload).
 * @return 0,
 *         -EINVAL (range outside the payload, or overlapping or inserting
 *         at the same place as an earlier edit),
 *         -EPERM (length change on a TCP connection without NAT; or an
 *         edit starting in the kept bytes, before cth_packet::kept),
 *         -EMSGSIZE (the host holds only part of the packet, or it is a
 *         UDP GSO super-packet: drop it, the sender retransmits),
 *         -ENOSPC (more than 32 edits, or the packet would exceed 65531
 *         bytes, the most a verdict can carry),
 *         -ENOMEM
 */
static inline int cth_mangle(struct cth_ctx *ctx, size_t offset, size_t len,
			     const void *repl, size_t repl_len)
{
	return ctx->host->mangle(ctx, offset, len, repl, repl_len);
}

/**
 * Show the end of this payload again, in front of the next segment.
 *
 * For a message split across TCP segments (e.g. a SIP message over TCP):
 * the bytes from @p offset to the end of cth_packet::payload are the start
 * of a message that is not complete yet.  This packet is accepted and
 * forwarded as usual (the host holds no verdict back, nothing waits); the
 * host keeps a copy of those bytes, and when the next segment of this
 * connection and direction arrives in order (its cth_packet::seq is this
 * segment's seq plus its own payload length, plus one if this one is a
 * SYN), the plugin sees the kept bytes at the start of that segment's
 * payload (cth_packet::kept).
 *
 * @p offset counts in cth_packet::payload as the plugin sees it, kept bytes
 * included: keeping from 0 carries earlier kept bytes further (a message
 * split across three segments).  The copy holds the bytes as shown to the
 * plugin, before this call's cth_mangle() edits.  The last cth_keep() of
 * one packet callback counts; @p offset == payload_len keeps nothing (and
 * cancels an earlier call).  Kept bytes are shown once: the next segment
 * uses them up, and the plugin keeps again if the message is still not
 * complete.
 *
 * The kept bytes are lost, and the next segment is shown alone (as the
 * kernel's own helpers see it), when:
 *  - the next segment is not the one that follows (retransmission, loss,
 *    reordering: the host never reassembles out of order),
 *  - it does not come within 10 seconds,
 *  - more than 64 connection directions of one queue keep bytes at the
 *    same time (the oldest are dropped),
 *  - the plugin detaches (cth_detach()),
 *  - the daemon restarts: kept bytes live only in the daemon's memory,
 *    unlike the private state (which the kernel keeps).
 *
 * A packet the plugin drops (::CTH_VERDICT_DROP) keeps nothing, and the
 * bytes kept for it stay kept for its retransmission.  At most 16384
 * bytes are kept per connection direction.
 * @param ctx    the packet context
 * @param offset where the incomplete message starts, 0..payload_len
 * @return 0, or a negative errno:
 *         -EINVAL (@p offset beyond payload_len),
 *         -ENOSPC (more than 16384 bytes from @p offset to the end),
 *         -EOPNOTSUPP (not TCP; or a host without cth_keep()),
 *         -EMSGSIZE (the host holds only part of the packet: its end is
 *         unknown),
 *         -ENOMEM
 */
static inline int cth_keep(struct cth_ctx *ctx, size_t offset)
{
	if (ctx->host->size < offsetof(struct cth_host, keep) +
			      sizeof(ctx->host->keep) || !ctx->host->keep)
		return -EOPNOTSUPP;
	return ctx->host->keep(ctx, offset);
}

/**
 * cth_packet::kept, or 0 on a host older than cth_keep() (whose packet
 * view has no such field).  A plugin that runs only on hosts with
 * cth_keep() may read the field directly.
 */
static inline size_t cth_kept(const struct cth_ctx *ctx,
			      const struct cth_packet *pkt)
{
	if (ctx->host->size < offsetof(struct cth_host, keep) +
			      sizeof(ctx->host->keep) || !ctx->host->keep)
		return 0;
	return pkt->kept;
}

/** Set the connection's conntrack timeout, in seconds. */
static inline int cth_set_timeout(struct cth_ctx *ctx, uint32_t seconds)
{
	return ctx->host->set_timeout(ctx, seconds);
}

/**
 * Set the connection's conntrack mark, within the bits the helper's
 * configuration gives its plugin (its @c mark_mask, none by default): the
 * host sends the mask with the mark, and the kernel keeps every bit
 * outside it.  Bits asked for outside the mask are left alone (and
 * counted); it still returns 0.
 */
static inline int cth_set_mark(struct cth_ctx *ctx, uint32_t mark)
{
	return ctx->host->set_mark(ctx, mark);
}

/**
 * Stop helping this connection: the kernel stops queueing its packets,
 * and its private state is no longer kept.
 *
 * Pending expectations survive: the kernel would remove them with the
 * helper (Linux 6.1, ctnetlink_change_helper), so when the connection has
 * any (created by this very packet or earlier), the host keeps helping it
 * until they are all used, expired or removed, then detaches it (within
 * some tens of milliseconds); until then its packets still reach the
 * plugin, which may call this again (a no-op).  Without expectations the
 * detach rides on this packet's verdict.  The host remembers a waiting
 * detach in memory only (a restart forgets it, the connection then stays
 * helped), and at most a bounded number of them: beyond, the connection
 * stays helped and a warning is logged.
 * @return 0, or -EOPNOTSUPP for an expected connection (::CTH_CT_EXPECTED:
 *         the kernel refuses to change a helper of a connection with a
 *         master)
 */
static inline int cth_detach(struct cth_ctx *ctx)
{
	return ctx->host->detach(ctx);
}

/** Log a message through the host, tagged with the helper name. */
static inline void cth_log(struct cth_ctx *ctx, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static inline void cth_log(struct cth_ctx *ctx, int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ctx->host->vlog(ctx, level, fmt, ap);
	va_end(ap);
}

#ifdef __cplusplus
}
#endif

#endif /* CTHELPERD_PLUGIN_H */
