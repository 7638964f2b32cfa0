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
 *
 * SDK 3 (::CTH_ABI_VERSION 3) lets a plugin declare, in its descriptor,
 * what the host then does for it: its configuration keys (::cth_key, parsed
 * and checked by the host, listed by @c cthelperd -n), a whole-instance
 * check and init/fini (cth_plugin_desc::check, ::init, ::fini), counters
 * (::cth_counter, bumped with cth_count()), and the version of its private
 * state (cth_plugin_desc::priv_version).  Expectations for the two usual
 * shapes are filled by cth_expect_back() and cth_expect_to() (util.h), NAT
 * included: see the table at ::cth_expect.
 *
 * Compatibility: a plugin built against the ABI 2 header (descriptor
 * abi_version 2, its own size) keeps loading and working unchanged, in the
 * daemon and in cthelper-replay, for as long as the major version of
 * cthelperd stays 1; ::CTH_ABI_OLDEST is the oldest ABI this host loads.
 */
#ifndef CTHELPERD_PLUGIN_H
#define CTHELPERD_PLUGIN_H

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/** ABI version of ::cth_plugin_desc, ::cth_host and the structures a plugin
 *  hands to the host (::cth_expect).  Bumped on any layout change a plugin
 *  built against an older header could not survive (2: cth_expect::timeout;
 *  3: the descriptor's declarations after cth_plugin_desc::packet). */
#define CTH_ABI_VERSION 3u

/** Oldest descriptor ABI the host loads: an ABI 2 descriptor is the ABI 3
 *  one without the fields after cth_plugin_desc::packet. */
#define CTH_ABI_OLDEST 2u

/** Largest private state a plugin may keep per connection (kernel limit). */
#define CTH_PRIV_MAX 32u

/** Most expectation classes one helper may declare (kernel limit). */
#define CTH_CLASS_MAX 4u

/** Size of a helper or class name buffer, terminating NUL included. */
#define CTH_NAME_LEN 16u

/** Most configuration keys one plugin may declare. */
#define CTH_KEY_MAX 32u

/** Size of a configuration key or counter name buffer, NUL included. */
#define CTH_KEY_NAME_LEN 32u

/** Most ports a ::CTH_KEY_PORTS key holds. */
#define CTH_PORTS_MAX 16u

/** Most counters one plugin may declare. */
#define CTH_COUNTER_MAX 16u

/** Most match rules one plugin may declare (cth_plugin_desc::match). */
#define CTH_MATCH_MAX 16u

/** Longest prefix of a match rule, in bytes: room for a status line's
 *  class ("SIP/2.0 4", "RTSP/1.0 2"), which says whether a response can
 *  matter. */
#define CTH_MATCH_LEN 16u

/** Largest private state of a plugin that declares match rules: the
 *  kernel module keeps two bytes of its own after it in the conntrack's
 *  32-byte helper area. */
#define CTH_MATCH_PRIV_MAX 30u

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
	/**
	 * Match only the first cth_expect::src_prefix bits of
	 * cth_expect::src: the expected connection may come from any host
	 * of that network (the answers to a broadcast or multicast query,
	 * Linux nf_conntrack_broadcast's netmask).  Linux copies only the
	 * source half of an expectation's mask from ctnetlink
	 * (ctnetlink_alloc_expect()), so the destination is always exact.
	 * Link view (see cth_link()): a host older than it refuses the flag
	 * with -EINVAL, and reads cth_expect::src_prefix only when it is set.
	 */
	CTH_EXPECT_SRC_PREFIX = 1u << 5,
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
 * Most helpers need one of two shapes; fill them with the SDK library
 * (util.h) rather than by hand, NAT included.  "Sender" is the side that
 * sent the packet that announces the connection, "receiver" the other.
 *
 * | shape | example | call | expected from | to | under NAT |
 * |---|---|---|---|---|---|
 * | the receiver answers back to the sender's own address and port | TFTP RRQ, SSDP M-SEARCH | cth_expect_back() | receiver, any port | the sender's address and port as the receiver knows them | follows the master back to the sender's real address and port; nothing to rewrite |
 * | the receiver connects to an address:port the payload announces, the sender's own | FTP PORT/227, SIP SDP, RTSP client_port | cth_expect_to() | receiver, any port | the sender's address as the receiver knows it, the announced port | follows the master to the sender's real address, announced port; the plugin rewrites the payload to cth_expect::dst / ::dport when they differ from what it says |
 * | the same, a third host's address | TNS redirect to another server | cth_expect_to() | receiver, any port | the announced address and port | none: the new connection is the firewall's ordinary business |
 *
 * In the kernel's terms (Linux nf_nat_follow_master()), a NATed expected
 * connection is source-mapped to where the master sends in direction
 * #nat_dir and destination-mapped to the master's source in the other
 * direction, port #nat_port; #nat_addr is not read.  So #nat_dir is the
 * direction the expected connection travels in the master's terms: the
 * opposite of the announcing packet's (::CTH_DIR_REPLY for a client's
 * request answered by the server, ::CTH_DIR_ORIGINAL for a server's reply
 * the client connects to).
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
	/**
	 * With ::CTH_EXPECT_SRC_PREFIX: how many leading bits of #src must
	 * match, 1..32 (IPv4) or 1..128 (IPv6); the host clears the bits
	 * past it.  Appended with the link view: read only when the flag is
	 * set, so a plugin built before it (whose structure ends at
	 * #timeout) is never read past its end.
	 */
	uint8_t src_prefix;
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

/** Kinds of cth_link::dst_kind: what the packet's destination is. */
enum cth_dst_kind {
	CTH_DST_UNICAST = 0,
	CTH_DST_MULTICAST = 1,     /**< 224.0.0.0/4 or ff00::/8 */
	/** IPv4: the broadcast address of one of the link's networks (the
	 *  network is cth_link::net) */
	CTH_DST_BROADCAST = 2,
	CTH_DST_BROADCAST_ALL = 3, /**< IPv4: 255.255.255.255 */
};

/**
 * Where a packet is on this host's links, and which network the answers
 * to it come from: filled by cth_link().
 *
 * The link side is the interface the packet leaves by (#out_ifindex),
 * where the hosts that answer a query sent to a group or a broadcast
 * address live; for a packet delivered to this host (no #out_ifindex),
 * the interface it came in by.  #net is the network of one address of
 * that interface, chosen in this order:
 *  -# IPv4: the primary (not secondary) address whose broadcast address is
 *     the packet's destination (Linux nf_conntrack_broadcast_help()'s
 *     rule, so a subnet broadcast gives the subnet);
 *  -# the address whose network holds the packet's source (the host's own
 *     address when it sent the packet itself; an on-link sender
 *     otherwise); IPv6 link-local sources give fe80::/64;
 *  -# IPv4: the interface's first primary address; IPv6: its first address
 *     of global scope (a forwarded packet from another network).
 * No address (an interface without one, a packet the host holds no
 * interface for): #net_prefix is 0.
 */
struct cth_link {
	uint32_t in_ifindex;  /**< interface it came in by, 0: this host sent it */
	uint32_t out_ifindex; /**< interface it leaves by, 0: delivered to this host */
	uint8_t dst_kind;     /**< ::cth_dst_kind of the packet's destination */
	uint8_t net_prefix;   /**< prefix length of #net, 0: none found */
	union cth_addr net;   /**< the link side's network, bits past #net_prefix zero */
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
	/* ABI 3; cth_count() checks #size, so ABI 2 hosts are safe too */
	void (*count)(struct cth_ctx *ctx, unsigned int counter, uint32_t n);
	/*
	 * The link view, appended in SDK 3 (no ABI bump, as #keep):
	 * cth_link() checks #size, and ::CTH_EXPECT_SRC_PREFIX with
	 * cth_expect::src_prefix comes with it.  @p size is the plugin's
	 * sizeof(struct cth_link), so the structure may grow at its end.
	 */
	int (*link)(struct cth_ctx *ctx, struct cth_link *link, size_t size);
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

/** Types of a declared configuration key (cth_key::type): how the host
 *  parses the value and what it stores at cth_key::offset. */
enum cth_key_type {
	/** bool: yes/no, true/false, on/off, 1/0 */
	CTH_KEY_BOOL = 1,
	/** uint32_t, decimal, in cth_key::min..cth_key::max */
	CTH_KEY_UINT = 2,
	/** struct cth_ports: 1..cth_key::max ports (at most ::CTH_PORTS_MAX),
	 *  each 1..65535, separated by commas or spaces */
	CTH_KEY_PORTS = 3,
	/** unsigned int: the index of the value in cth_key::choices */
	CTH_KEY_CHOICE = 4,
	/** char[cth_key::max + 1]: text of at most cth_key::max bytes, NUL
	 *  terminated, no control characters */
	CTH_KEY_STRING = 5,
	/** parsed by cth_plugin_desc::configure() (key, value): the host
	 *  stores nothing itself; -EINVAL there is a bad value */
	CTH_KEY_CUSTOM = 6,
};

/** Bits of cth_key::flags. */
enum cth_key_flags {
	/**
	 * A ::CTH_KEY_PORTS key naming the ports the helper's connections
	 * are attached on (the server's well-known port): @c cthelperd
	 * --print-rules matches these ports, the default when the operator
	 * sets none.  At most one key per plugin.
	 */
	CTH_KEY_RULE_PORTS = 1u << 0,
	/**
	 * A ::CTH_KEY_BOOL key: when yes, @c cthelperd --print-rules also
	 * attaches the helper to the packets this host sends itself (raw
	 * OUTPUT), e.g. the queries of a router or desktop with a stateful
	 * INPUT policy (SSDP, mDNS, NetBIOS-NS).  At most one key per plugin;
	 * without one, only PREROUTING.
	 */
	CTH_KEY_RULE_OUTPUT = 1u << 1,
	/**
	 * A ::CTH_KEY_BOOL key: when no, @c cthelperd --print-rules does not
	 * attach the helper to arriving packets (raw PREROUTING: forwarded,
	 * or for this host), e.g. a helper of local broadcasts only.  At most
	 * one key per plugin; without one, PREROUTING.
	 */
	CTH_KEY_RULE_PREROUTING = 1u << 2,
};

/** The value of a ::CTH_KEY_PORTS key. */
struct cth_ports {
	uint16_t n;                    /**< ports in #port */
	uint16_t port[CTH_PORTS_MAX];  /**< host byte order, as written */
};

/**
 * A configuration key a plugin declares (SDK 3).  The host parses every
 * declared key of the helper's section into the instance's configuration
 * block, applies #def first for every key that has one, and reports a bad
 * value or an unknown key as FILE:LINE with the key's type and range.
 * @c cthelperd -n lists the keys, and the shipped plugins' manuals are
 * checked against them.
 */
struct cth_key {
	const char *name;    /**< [a-z0-9_], 1..::CTH_KEY_NAME_LEN - 1 characters */
	unsigned int type;   /**< a ::cth_key_type */
	unsigned int flags;  /**< ::cth_key_flags */
	size_t offset;       /**< offsetof() the value in the configuration block */
	uint32_t min;        /**< ::CTH_KEY_UINT: least value */
	uint32_t max;        /**< ::CTH_KEY_UINT: largest value; ::CTH_KEY_PORTS:
			          most ports (0: ::CTH_PORTS_MAX);
			          ::CTH_KEY_STRING: most bytes */
	const char *const *choices; /**< ::CTH_KEY_CHOICE: the values, NULL-terminated */
	const char *def;     /**< default, written as in the config file; NULL: none (zero) */
	const char *doc;     /**< one line: what the key does */
};

/**
 * A counter a plugin declares (SDK 3) and bumps with cth_count().  The
 * host keeps one per helper instance, across reloads (while the plugin
 * keeps the same counter at the same index), and shows it in
 * @c cthelperctl stats, its JSON and /metrics as
 * cthelperd_plugin_<name>_total{helper="...",plugin="..."}.
 */
struct cth_counter {
	const char *name;    /**< [a-z0-9_], 1..::CTH_KEY_NAME_LEN - 1 characters */
	const char *help;    /**< one line */
};

/** Where a match rule's prefix must appear (cth_match::at). */
enum cth_match_at {
	CTH_MATCH_AT_START = 0, /**< the payload's first bytes */
	/** the payload's first bytes, or right after any '\n' in it (over
	 *  TCP, the payload's start counts only when the segment before
	 *  ended in '\n') */
	CTH_MATCH_AT_LINE = 1,
};

/** Directions a match rule applies to (cth_match::dirs). */
enum cth_match_dir_bits {
	CTH_MATCH_ORIGINAL = 1u << 0, /**< ::CTH_DIR_ORIGINAL packets */
	CTH_MATCH_REPLY = 1u << 1,    /**< ::CTH_DIR_REPLY packets */
	CTH_MATCH_BOTH = CTH_MATCH_ORIGINAL | CTH_MATCH_REPLY,
};

/** Bits of cth_plugin_desc::match_flags. */
enum cth_match_flags {
	/**
	 * On a NATed connection (source or destination), every packet with
	 * payload is queued: for plugins that rewrite every message under
	 * NAT (SIP's Via and Contact), so the rules filter only un-NATed
	 * connections.
	 */
	CTH_MATCH_NAT_ALL = 1u << 0,
};

/**
 * A match rule (SDK 3, issue 34): a packet the plugin may act on starts,
 * or has a line that starts, with #prefix.
 *
 * With rules declared (cth_plugin_desc::match), a kernel module that
 * filters (kmod/'s cthelperd_nfnl) queues a helped connection's packet
 * only when:
 *  - it carries payload (a bare ACK, SYN, FIN never reaches the plugin),
 *    and
 *  - a rule of its direction matches, compared case-insensitively (ASCII);
 *    or the payload ends inside a prefix ("POR"), or
 *  - over TCP, it follows a queued segment of its direction that did not
 *    end in '\n' (the rest of a split line, cth_keep()), or
 *  - ::CTH_MATCH_NAT_ALL is set and the connection is NATed, or
 *  - the module cannot tell (a payload longer than it scans).
 * The other packets go on without the trip; the kernel still applies the
 * NAT sequence adjustment of an earlier rewrite to them.  The in-tree
 * nfnetlink_cthelper ignores the rules and queues every packet, so a
 * plugin must work both ways: it may not rely on seeing every packet (no
 * count of packets, no state learnt from lines it did not declare), and
 * what it learns from a packet it must be able to learn again from the
 * next matching one.  cthelper-replay --filter replays a capture through
 * the same filter.
 */
struct cth_match {
	/** 1..::CTH_MATCH_LEN printable ASCII characters (space included),
	 *  NUL-terminated */
	char prefix[CTH_MATCH_LEN + 1];
	uint8_t at;   /**< a ::cth_match_at */
	uint8_t dirs; /**< ::cth_match_dir_bits, not 0 */
};

/**
 * The plugin descriptor: export exactly one, named ::cth_plugin.
 *
 * @p configure and @p packet get the helper instance's configuration block
 * (#config_size bytes, zeroed, then filled by #configure for each key of the
 * helper's config section the daemon does not know itself).
 */
struct cth_plugin_desc {
	uint32_t abi_version;    /**< ::CTH_ABI_VERSION (the host also loads ::CTH_ABI_OLDEST..) */
	uint32_t size;           /**< sizeof(struct cth_plugin_desc) of that ABI */
	/** Plugin name, 1..63 characters: the daemon loads @c plugin = NAME
	 *  from NAME.so in plugin_dir and refuses a file whose descriptor
	 *  declares another name (so a vendor's acme-tftp.so declares
	 *  "acme-tftp"). */
	const char *name;
	const char *version;     /**< plugin version string */
	const char *description; /**< one line */
	unsigned int protocols;  /**< supported ::cth_proto_bits; a helper's protocol defaults to all of them, and naming another is a config error */
	unsigned int families;   /**< supported ::cth_family_bits; a helper's family defaults to all of them */
	size_t priv_size;        /**< private state bytes, <= ::CTH_PRIV_MAX */
	size_t config_size;      /**< per-instance configuration bytes */
	unsigned int n_classes;  /**< 1..::CTH_CLASS_MAX */
	struct cth_expect_class classes[CTH_CLASS_MAX];
	/**
	 * Optional. Apply one configuration key: a plugin that declares no
	 * keys (#keys; every ABI 2 plugin) gets every key the daemon does not
	 * know itself, one that declares keys only its ::CTH_KEY_CUSTOM keys.
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

	/* ---- ABI 3: everything below is optional (zero: not used) ---- */

	/** Configuration keys; keys not declared here are an error (a plugin
	 *  that declares none, as every ABI 2 plugin, gets every key in
	 *  #configure). */
	const struct cth_key *keys;
	unsigned int n_keys;     /**< 0..::CTH_KEY_MAX */
	/**
	 * Check the instance's configuration as a whole, after every key
	 * (defaults included) was applied, e.g. two keys that exclude each
	 * other.  At start-up, for @c -n and on reload (a failure keeps the
	 * running configuration).
	 * @param config the instance's configuration block
	 * @param err    where to write why, one line, no newline
	 * @param errlen its size
	 * @return 0, or -EINVAL with @p err written
	 */
	int (*check)(const void *config, char *err, size_t errlen);
	/**
	 * Set up one helper instance after #check passed: at start-up
	 * (before the privilege drop, as root) and on reload (as the
	 * daemon's user), never while its packets flow; also wherever a
	 * configuration is built without serving (@c -n, @c --print-rules,
	 * @c --release, cthelper-replay), followed by #fini.  Each shard of
	 * a section is an instance of its own, named NAME.k.  Whatever it
	 * allocates belongs in the configuration block, which is read-only
	 * from the first packet on.
	 * @param config the instance's configuration block
	 * @param helper the helper's (section's) name
	 * @return 0, or a negative errno: the start or the reload fails
	 */
	int (*init)(void *config, const char *helper);
	/** Undo #init: at stop, and after a reload once no packet can reach
	 *  the replaced instance; called only when #init succeeded. */
	void (*fini)(void *config, const char *helper);
	/** Counters, bumped with cth_count() by index. */
	const struct cth_counter *counters;
	unsigned int n_counters; /**< 0..::CTH_COUNTER_MAX */
	/**
	 * Version of the private state's layout, 1..255 (0: the plugin
	 * checks its state itself, as ABI 2 plugins do).  The host keeps it
	 * in the byte at #priv_version_at: before each packet call, state
	 * that holds another version, or that #priv_valid refuses, is
	 * zeroed (and counted as state_reset); then that byte is set.  So
	 * the plugin sees either its own layout or zeros with the version
	 * byte set: a new connection, or one whose state was lost (a
	 * failover peer's kernel, an older plugin's layout).
	 */
	uint8_t priv_version;
	uint8_t priv_version_at; /**< offset of the version byte, < #priv_size */
	/** Optional deeper check of state that holds the right version:
	 *  false zeroes it as above.  Must not keep @p priv. */
	bool (*priv_valid)(const void *priv);
	/*
	 * Appended in SDK 3 after its first release (no ABI bump: the host
	 * takes ABI 3 descriptors of either size, and one without these
	 * fields queues every packet).
	 */
	/** Match rules: what the packets the plugin acts on look like (see
	 *  ::cth_match); NULL: every packet is queued.  #priv_size must then
	 *  be at most ::CTH_MATCH_PRIV_MAX. */
	const struct cth_match *match;
	unsigned int n_match;     /**< 0..::CTH_MATCH_MAX */
	unsigned int match_flags; /**< ::cth_match_flags; only with rules */
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

/**
 * Where this packet is on the host's links (::cth_link): the interfaces it
 * came in by and leaves by, what its destination is, and the network the
 * answers to it come from.  For helpers of broadcast and multicast
 * queries (NetBIOS-NS, SSDP, mDNS): expect the answers from cth_link::net
 * with ::CTH_EXPECT_SRC_PREFIX rather than from anywhere.
 *
 * The host works it out only when asked (one look at the host's address
 * table, taken from the kernel when an interface address changes), so
 * plugins that never call it pay nothing.
 * @param ctx  the packet context
 * @param link filled; zeroed first
 * @return 0, or -EOPNOTSUPP (a host older than the link view), or another
 *         negative errno (the address table could not be read: the
 *         interfaces are filled, #net_prefix is 0)
 */
static inline int cth_link(struct cth_ctx *ctx, struct cth_link *link)
{
	memset(link, 0, sizeof(*link));
	if (ctx->host->size < offsetof(struct cth_host, link) +
			      sizeof(ctx->host->link) || !ctx->host->link)
		return -EOPNOTSUPP;
	return ctx->host->link(ctx, link, sizeof(*link));
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

/**
 * Add @p n to the plugin's counter @p counter (an index into
 * cth_plugin_desc::counters).  A relaxed add to the worker's own block:
 * cheap enough for every packet.  An index out of range, and every call
 * on a host older than SDK 3, does nothing.
 */
static inline void cth_count_add(struct cth_ctx *ctx, unsigned int counter,
				 uint32_t n)
{
	if (ctx->host->size >= offsetof(struct cth_host, count) +
			       sizeof(ctx->host->count) && ctx->host->count)
		ctx->host->count(ctx, counter, n);
}

/** cth_count_add() by one. */
static inline void cth_count(struct cth_ctx *ctx, unsigned int counter)
{
	cth_count_add(ctx, counter, 1);
}

/**
 * Log a message through the host, tagged with the helper name.
 *
 * Rate-limited per worker thread: at most 20 lines per second from all the
 * plugins of one queue; the host drops the rest and logs how many it
 * dropped once the next second starts (counted as log_suppressed).  Lines
 * below the daemon's log level cost nothing but the call.
 */
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
