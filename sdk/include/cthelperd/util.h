/* SPDX-License-Identifier: MIT */
/**
 * @file util.h
 * @brief Small, bounded text helpers for protocol plugins.
 *
 * Payloads are untrusted byte arrays, not C strings: every function here
 * takes an explicit length, never reads past it and never relies on a
 * terminating NUL.  Case-insensitive comparisons are plain ASCII so that
 * the result never depends on the daemon's locale.
 *
 * The functions are linked statically into each plugin from libcthsdk.a.
 */
#ifndef CTHELPERD_UTIL_H
#define CTHELPERD_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cthelperd/plugin.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Longest textual address cth_addr_parse() accepts and cth_addr_format()
 *  produces, terminating NUL included (INET6_ADDRSTRLEN). */
#define CTH_ADDR_STRLEN 46u

/** Result of cth_prefix_match(). */
enum cth_prefix {
	CTH_PREFIX_NO = 0,        /**< the buffer does not start with the word */
	CTH_PREFIX_YES = 1,       /**< the buffer starts with the whole word */
	CTH_PREFIX_TRUNCATED = 2, /**< the buffer ends inside the word: every
				   *   byte it has matches, but the word is
				   *   longer (a command split across packets) */
};

/**
 * Does @p buf start with @p word, ignoring ASCII case?
 *
 * @param buf  bytes to look at; need not be NUL-terminated
 * @param len  bytes available at @p buf
 * @param word NUL-terminated word to look for
 * @return ::CTH_PREFIX_YES, ::CTH_PREFIX_NO, or ::CTH_PREFIX_TRUNCATED when
 *         @p len is shorter than @p word and all @p len bytes match (an
 *         empty buffer is ::CTH_PREFIX_NO).
 */
enum cth_prefix cth_prefix_match(const void *buf, size_t len,
				 const char *word);

/**
 * Parse the unsigned decimal number at the start of @p buf.
 *
 * Leading zeros are allowed; signs and spaces are not.  Parsing stops at
 * the first byte that is not a digit or at @p len.  Values above @p max are
 * refused without ever overflowing, however many digits follow.
 *
 * @param buf  bytes to parse
 * @param len  bytes available at @p buf
 * @param max  largest acceptable value
 * @param val  receives the value on success (untouched on error)
 * @param used receives the number of digits consumed on success; it may be
 *             NULL.  When it equals @p len the number may continue in data
 *             the caller has not got.
 * @return 0, -EINVAL when @p buf does not start with a digit, -ERANGE when
 *         the number is larger than @p max
 */
int cth_parse_uint(const void *buf, size_t len, uint32_t max, uint32_t *val,
		   size_t *used);

/**
 * Parse a yes/no configuration value: "yes", "true", "on", "1" or "no",
 * "false", "off", "0", ignoring ASCII case.
 *
 * @param text NUL-terminated value
 * @param val  receives the value on success
 * @return 0, or -EINVAL for anything else
 */
int cth_parse_bool(const char *text, bool *val);

/**
 * Offset of the first line feed in @p buf, or @p len when there is none.
 *
 * @param buf bytes to search
 * @param len bytes available at @p buf
 * @return offset of the first '\\n', or @p len
 */
size_t cth_line_len(const void *buf, size_t len);

/**
 * Parse a textual IPv4 (dotted quad) or IPv6 address of exactly @p len
 * bytes: what inet_pton() accepts (IPv4: four numbers 0..255 without
 * leading zeros, parsed here without a copy; IPv6 by inet_pton()).
 *
 * @param family AF_INET or AF_INET6
 * @param buf    the text; need not be NUL-terminated
 * @param len    its length, without any terminator
 * @param addr   receives the address in network byte order; bytes beyond
 *               the family's size are zeroed
 * @return 0, -EINVAL for text that is not an address of @p family (or
 *         longer than any such address), -EAFNOSUPPORT for another family
 */
int cth_addr_parse(int family, const void *buf, size_t len,
		   union cth_addr *addr);

/**
 * Write @p v in decimal, as snprintf()'s "%u" would, without stdio's cost
 * on a packet's path.
 *
 * @param v    the number
 * @param buf  receives the NUL-terminated digits
 * @param size size of @p buf; 11 is always enough
 * @return the number of digits (without the NUL), or -ENOSPC when @p buf
 *         is too small (it is then left as it was)
 */
int cth_format_uint(uint32_t v, char *buf, size_t size);
/**
 * Format an address as inet_ntop() does (IPv6 in its compressed form).
 *
 * @param family AF_INET or AF_INET6
 * @param addr   the address, network byte order
 * @param buf    receives the NUL-terminated text
 * @param size   size of @p buf; ::CTH_ADDR_STRLEN is always enough
 * @return the text's length (without the NUL), -ENOSPC when @p buf is too
 *         small, -EAFNOSUPPORT for another family
 */
int cth_addr_format(int family, const union cth_addr *addr, char *buf,
		    size_t size);

/**
 * Compare two addresses of @p family, looking only at the bytes that
 * family uses (4 for IPv4, 16 for IPv6), so stray bytes after an IPv4
 * address never matter.
 *
 * @return true when equal; false when different or @p family is unknown
 */
bool cth_addr_equal(int family, const union cth_addr *a,
		    const union cth_addr *b);

/**
 * Copy an address of @p family, zeroing the bytes the family does not use.
 *
 * @param family AF_INET or AF_INET6 (anything else copies all 16 bytes)
 * @param dst    destination
 * @param src    source
 */
void cth_addr_copy(int family, union cth_addr *dst, const union cth_addr *src);

/**
 * Log "WHAT ADDRESS port PORT" through cth_log(): the line every plugin
 * writes when an announced address is refused or cannot be expected.
 *
 * @param ctx    the packet's context
 * @param level  a ::cth_log_level
 * @param what   text before the address
 * @param family AF_INET or AF_INET6 (another prints "?" for the address)
 * @param addr   the address
 * @param port   the port
 */
void cth_log_addr(struct cth_ctx *ctx, int level, const char *what, int family,
		  const union cth_addr *addr, unsigned int port);

/**
 * Create an expectation on the first free port from @p first upwards: what
 * a NAT helper does when the port it must announce is taken on the
 * translated address.
 *
 * Tries exp->dport = @p first, @p first + 1, ... (never past 65535, at most
 * @p tries ports) with cth_expect(::CTH_EXPECT_SYNC); a port another
 * expectation holds (-EBUSY, or -EEXIST, ctnetlink's answer for a taken
 * tuple asked for exclusively) moves on to the next one.
 *
 * @param ctx   the packet context
 * @param exp   the expectation; exp->dport receives the port created
 * @param first the port to try first
 * @param tries how many ports to try at most
 * @return 0, -EBUSY when every port tried was taken, or the first other
 *         error cth_expect() returned
 */
int cth_expect_free_port(struct cth_ctx *ctx, struct cth_expect *exp,
			 uint16_t first, unsigned int tries);

/**
 * Fill @p exp for "the receiver of this packet answers back to its
 * sender": from the receiver's address (any source port) to the sender's
 * address and port as the receiver knows them (after NAT), e.g. a TFTP
 * server's answer to a read request.  Under NAT (cth_packet::nat) the
 * expected connection follows the master back to the sender's real
 * address and source port; nothing in the payload names it, so nothing
 * needs rewriting.  See the table at ::cth_expect.
 *
 * Fills every field (class, flags, family, proto, addresses, ports, NAT);
 * the plugin may then add flags, e.g. ::CTH_EXPECT_ANY_SRC.
 * @param exp   the expectation to fill
 * @param pkt   the packet that asks for it
 * @param class index into cth_plugin_desc::classes
 * @param proto IPPROTO_UDP or IPPROTO_TCP: the expected connection's
 */
void cth_expect_back(struct cth_expect *exp, const struct cth_packet *pkt,
		     unsigned int class, uint8_t proto);

/**
 * Fill @p exp for "the receiver of this packet connects to the address and
 * port the payload announces", e.g. FTP PORT and 227, SIP SDP, RTSP
 * client_port.
 *
 * When @p addr is the sender's own address (as the sender knows it, or as
 * the receiver does after NAT), the expectation is to the sender's address
 * as the receiver knows it and @p port, and under NAT it follows the master
 * to the sender's real address and @p port: the plugin then tells the
 * receiver cth_expect::dst and cth_expect::dport, rewriting the payload
 * when they differ from what it announced (and may move dport to a free
 * port first with cth_expect_free_port()).  Another address (a third
 * host) is expected as announced, without NAT.  See the table at
 * ::cth_expect.
 * @param exp   the expectation to fill
 * @param pkt   the packet that announces it
 * @param class index into cth_plugin_desc::classes
 * @param proto IPPROTO_UDP or IPPROTO_TCP: the expected connection's
 * @param addr  the announced address, in the packet's family
 * @param port  the announced port, host byte order
 * @return true when the expectation is to the sender's own address (the
 *         plugin may have to rewrite), false for a third host
 */
bool cth_expect_to(struct cth_expect *exp, const struct cth_packet *pkt,
		   unsigned int class, uint8_t proto, const union cth_addr *addr,
		   uint16_t port);

/**
 * Let @p exp come from any host of the network cth_link() found for the
 * packet (cth_link::net): sets cth_expect::src to it, cth_expect::src_prefix
 * and ::CTH_EXPECT_SRC_PREFIX, clears ::CTH_EXPECT_ANY_SRC; e.g. the
 * answers to a broadcast or multicast query, filled first with
 * cth_expect_back().
 * @param exp  the expectation, its family set
 * @param link what cth_link() returned
 * @return 0, or -ENOENT (@p exp untouched) when the link view found no
 *         network (cth_link::net_prefix 0) or it cannot be of @p exp's
 *         family (IPv4: a prefix over 32, bytes set past the fourth);
 *         cth_link() fills it in the packet's family, which is the
 *         expectation's unless the plugin changed that
 */
int cth_expect_src_net(struct cth_expect *exp, const struct cth_link *link);

/**
 * Fill @p exp for "the hosts that hear this query answer it": the sender
 * asks a group or broadcast address (mDNS's one-shot query, an SLP
 * request, a DHCPv6 Solicit, a NetBIOS name query), and each host that
 * answers sends a unicast datagram from its own address back to the
 * sender's address and port.
 *
 * Filled as cth_expect_back() fills it for a UDP answer (NAT included),
 * then: ::CTH_EXPECT_PERMANENT (several hosts answer one query, each
 * opening its own connection until the class timeout), source port
 * @p sport, and the answerers' addresses: the network @p link names
 * (cth_expect_src_net(): any host of cth_link::net / cth_link::net_prefix,
 * as Linux nf_conntrack_broadcast expects them), or any address when
 * @p link is NULL (::CTH_EXPECT_ANY_SRC, what conntrackd's helpers do).
 * A query repeated, or queued twice (Linux clones a locally sent
 * multicast or broadcast datagram and both copies are queued), fills the
 * same expectation, which the kernel takes as a replacement of the first:
 * ask with cth_expect()'s @p how 0, not ::CTH_EXPECT_SYNC, which could
 * find the first copy's tuple taken.
 *
 * A plugin may still change a field after it, e.g. a fixed destination
 * port (DHCPv6 answers go to port 546).
 * @param exp   the expectation to fill
 * @param pkt   the query
 * @param link  the query's link view (cth_link()), or NULL: from anywhere
 * @param class index into cth_plugin_desc::classes
 * @param sport the port the answers come from, 0: any
 * @return 0, or -ENOENT when @p link knows no network of the query's
 *         family (cth_link::net_prefix 0): @p exp must not be used, the
 *         plugin opens nothing (or falls back to @p link NULL if its
 *         configuration says so)
 */
int cth_expect_answers(struct cth_expect *exp, const struct cth_packet *pkt,
		       const struct cth_link *link, unsigned int class,
		       uint16_t sport);

#ifdef __cplusplus
}
#endif

#endif /* CTHELPERD_UTIL_H */
