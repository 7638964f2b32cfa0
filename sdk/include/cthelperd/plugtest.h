/* SPDX-License-Identifier: MIT */
/**
 * @file plugtest.h
 * @brief Unit-test and fuzz a plugin on the daemon's own host code.
 *
 * libcthelperd-plugtest runs a plugin the way the daemon's queue workers
 * do, from the same sources: the daemon's loader (for a .so), the packet
 * view, the host functions with their argument checks and the
 * expectation rule, payload edits with their length and checksum
 * fixing, kept bytes.  Where the daemon talks to the kernel, a recording
 * stand-in answers (created, unless the test says otherwise), so a test
 * reads back what one packet made the plugin do: the verdict, the
 * expectations, the payload as sent, the state, the log, the counters.
 *
 *     pkg-config --cflags --libs cthelperd-plugtest
 *
 * A test links the plugin's sources with it and hands over the
 * descriptor (cth_plugtest_new(&cth_plugin, ...)), or opens a built
 * plugin (cth_plugtest_open("./acme.so", ...)).  Then a connection,
 * written as cthelper-mkpcap(1) writes one, and its packets:
 *
 *     struct cth_plugtest *t = cth_plugtest_new(&cth_plugin, NULL, err, sizeof(err));
 *     cth_plugtest_conn(t, "udp 10.0.1.2:40000 > 10.0.2.2:69 snat 192.0.2.1:40000");
 *     cth_plugtest_packet(t, CTH_DIR_ORIGINAL, "\0\1file\0octet\0", 14);
 *     r = cth_plugtest_result(t);   // r->verdict, r->n_expect, r->expect[0] ...
 *
 * A libFuzzer target is one call (cth_plugtest_fuzz()), see
 * cthelper-new-plugin(1) for a complete one.
 *
 * Not thread-safe: one test object per thread, used from that thread.
 * The daemon's own log lines (not the plugin's) go to standard error.
 */
#ifndef CTHELPERD_PLUGTEST_H
#define CTHELPERD_PLUGTEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cthelperd/plugin.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Expectations and expectation operations one result holds. */
#define CTH_PLUGTEST_EXPECT_MAX 64u
/** Payload edits one result holds (the host takes at most 32). */
#define CTH_PLUGTEST_EDIT_MAX 32u
/** Size of a recorded text: a log line, the description of a bug. */
#define CTH_PLUGTEST_TEXT 256u

/** One payload edit the host took (cth_mangle()). */
struct cth_plugtest_edit {
	size_t off;          /**< in the payload as the plugin saw it */
	size_t len;          /**< bytes replaced */
	size_t repl_len;     /**< bytes put in their place */
};

/** What one packet made the plugin do (cth_plugtest_result()). */
struct cth_plugtest_result {
	int verdict;                 /**< ::CTH_VERDICT_ACCEPT or ::CTH_VERDICT_DROP */
	/** cth_expect() calls the host took (argument checks passed), with
	 *  their answers: 0, the kernel stand-in's error, or -EPERM for one
	 *  the host's rule refused.  cth_expect::fn points into #expect_fn. */
	unsigned int n_expect;
	struct cth_expect expect[CTH_PLUGTEST_EXPECT_MAX];
	char expect_fn[CTH_PLUGTEST_EXPECT_MAX][32];
	unsigned int expect_how[CTH_PLUGTEST_EXPECT_MAX];
	int expect_rc[CTH_PLUGTEST_EXPECT_MAX];
	unsigned int n_refused;      /**< of those, refused by the host's rule */
	/** cth_expect_ctl() operations that passed the host's checks */
	unsigned int n_expect_ctl;
	unsigned int expect_ctl_op[CTH_PLUGTEST_EXPECT_MAX];
	/** cth_mangle() edits the host took */
	unsigned int n_edit;
	struct cth_plugtest_edit edit[CTH_PLUGTEST_EDIT_MAX];
	/** This segment's payload as it leaves, edits applied (the host
	 *  fixed lengths and checksums; the library checked them). */
	const uint8_t *payload;
	size_t payload_len;
	bool rewritten;              /**< the packet leaves changed */
	bool keep;                   /**< cth_keep() was taken ... */
	size_t keep_off;             /**< ... from this payload offset */
	bool has_timeout;            /**< cth_set_timeout() */
	uint32_t timeout;
	bool detach;                 /**< cth_detach() was taken */
	/** The private state after the call (what the verdict writes), and
	 *  whether the call changed it. */
	uint8_t priv[CTH_PRIV_MAX];
	bool priv_changed;
	/** cth_log() lines of this call, and the last one */
	unsigned int n_log;
	char log[CTH_PLUGTEST_TEXT];
	/**
	 * Plugin bugs seen in this call, and the first one: a request the
	 * host refused as malformed (an expectation with a bad class,
	 * family, port, flags or function; an edit outside the payload,
	 * overlapping another, in kept bytes, or changing a TCP length
	 * without NAT; a keep offset past the payload), a verdict that is
	 * neither ACCEPT nor DROP, a packet the host would send with a bad
	 * length or checksum.  0 in a correct plugin, whatever the input.
	 */
	unsigned int n_bug;
	char bug[CTH_PLUGTEST_TEXT];
	/** Each declared counter's total since cth_plugtest_new() / _open() */
	uint64_t counter[CTH_COUNTER_MAX];
};

struct cth_plugtest;

/**
 * A helper instance of a plugin linked into the test: @p desc is its
 * descriptor (usually &cth_plugin).  The descriptor is checked as the
 * daemon's loader checks it; then, as for a [helper] section: every
 * declared key's default, the @p settings ("key=value", NULL-terminated
 * array, or NULL), the plugin's check() and init().  The settings are
 * parsed by the daemon's own parser: a value it refuses is refused here
 * in its words ("puts: invalid value 'maybe' (yes or no ...)"), also
 * logged to standard error as "settings:N: ..." (N: the setting's
 * place, from 1).
 * @return the test object, or NULL with @p err written
 */
struct cth_plugtest *cth_plugtest_new(const struct cth_plugin_desc *desc,
				      const char *const *settings, char *err,
				      size_t errlen);
/**
 * The same for a built plugin, loaded by the daemon's loader (file
 * checks, ABI, descriptor): @p path is DIR/NAME.so.
 */
struct cth_plugtest *cth_plugtest_open(const char *path, const char *const *settings,
				       char *err, size_t errlen);
/** fini() the instance, unload, free. */
void cth_plugtest_free(struct cth_plugtest *t);
/** The plugin's descriptor as the host checked it. */
const struct cth_plugin_desc *cth_plugtest_desc(const struct cth_plugtest *t);
/** The instance's configuration block, as the keys left it. */
const void *cth_plugtest_config(const struct cth_plugtest *t);

/**
 * Start a connection (the previous one, kept bytes and all, is gone):
 * "udp|tcp ADDR:PORT > ADDR:PORT" as in cthelper-mkpcap(1), the first
 * end the one that opened it, then optionally:
 *  - "snat ADDR:PORT": the opener appears to the other end as ADDR:PORT;
 *  - "dnat ADDR:PORT": the opener dialled ADDR:PORT, which is forwarded to
 *    the second end (the plugin then sees the dialled address in the
 *    original direction, as the kernel shows it);
 *  - "expected": the connection is an expected one (a master's child).
 * A TCP connection starts established; a UDP one with its first packet
 * (NEW, unconfirmed), then ESTABLISHED / ESTABLISHED_REPLY.
 * @return 0, or -EINVAL (then cth_plugtest_error() says why)
 */
int cth_plugtest_conn(struct cth_plugtest *t, const char *desc);

/**
 * What cth_link() returns for the following packets (of this and later
 * connections): @p desc is "in IFINDEX out IFINDEX net ADDR/PREFIX dst
 * unicast|multicast|broadcast|broadcast-all", every part optional, "net"
 * once per family (the packet's family picks one).  Unset parts: in 1,
 * out 2, no network (cth_link::net_prefix 0), the destination's kind
 * worked out from the packet's destination (multicast, 255.255.255.255,
 * the broadcast address of the IPv4 net given, else unicast).  NULL or
 * "" sets those defaults.  "in 0" is a packet this host sends, "out 0"
 * one delivered to it.
 * @return 0, or -EINVAL (then cth_plugtest_error() says why; the link
 *         view is left as it was)
 */
int cth_plugtest_link(struct cth_plugtest *t, const char *desc);

/**
 * Hand the plugin one packet of the connection in direction @p dir with
 * @p len bytes of payload (TCP: the direction's next segment; an
 * accepted one moves its sequence number on).
 * @return the verdict, or -EINVAL (no connection) / -EMSGSIZE (more than
 *         one packet holds)
 */
int cth_plugtest_packet(struct cth_plugtest *t, enum cth_dir dir, const void *payload,
			size_t len);
/** What the last packet made the plugin do. */
const struct cth_plugtest_result *cth_plugtest_result(const struct cth_plugtest *t);

/**
 * How the kernel stand-in answers from now on: the next @p times
 * expectations that reach it (0: all of them) get @p rc (0: created;
 * e.g. -EBUSY: the tuple is taken), and expectation operations
 * @p ctl_rc.
 */
void cth_plugtest_kernel(struct cth_plugtest *t, int rc, unsigned int times, int ctl_rc);

/** Why the last call failed, one line. */
const char *cth_plugtest_error(const struct cth_plugtest *t);

/**
 * One libFuzzer input through the plugin.  The input is a connection and
 * its packets: byte 0 chooses the connection (bit 0 IPv6, bit 1 TCP
 * when the plugin serves both, bit 2 SNAT, bit 3 DNAT, bit 4 an expected
 * connection, bits 5-6 the kernel's answer: created, the first
 * expectation's tuple taken, every tuple taken, out of memory), then
 * packets, each a byte (bit 7: the reply direction; bits 0-6 with the
 * next byte: the payload's length, cut to what the input has) and the
 * payload.  Byte 0 with bit 7 set instead makes the rest one payload of
 * the original direction (a plain seed: "\x80" then a request).
 *
 * Every plugin bug (cth_plugtest_result::n_bug) aborts the process with
 * "invariant violated: ..." on standard error: a crash libFuzzer keeps.
 * @p t is a test object made once (in LLVMFuzzerInitialize, or on the
 * first input).
 */
void cth_plugtest_fuzz(struct cth_plugtest *t, const uint8_t *data, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* CTHELPERD_PLUGTEST_H */
