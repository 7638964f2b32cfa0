/* SPDX-License-Identifier: MIT */
/*
 * The RTSP plugin's internal interfaces: configuration block, private
 * state, class and counter indexes (rtsp.c declares them to the host in
 * this order; the unit tests read them), and the per-packet context its
 * files share (rtsp.c: framing, message dispatch, expectations;
 * rtsp_nat.c: port pairs and rewrites under NAT).  Behaviour and the
 * differences from the out-of-tree nf_conntrack_rtsp are in
 * docs/plugins/rtsp.md.
 */
#ifndef CTH_RTSP_H
#define CTH_RTSP_H

#include <stdbool.h>
#include <stdint.h>

#include <cthelperd/plugin.h>
#include <cthelperd/util.h>

#include "rtsp_parse.h"
#include "rtsp_transport.h"

/* The one expectation class: RTP and RTCP of a SETUP's transport. */
enum rtsp_class {
	RTSP_CLASS_MEDIA = 0,
};

/* Counters, in cth_plugin_desc::counters order. */
enum rtsp_counter {
	RTSP_C_SETUPS,          /* SETUP requests parsed */
	RTSP_C_REPLIES,         /* 2xx SETUP replies parsed */
	RTSP_C_EXPECTATIONS,    /* expectations asked for */
	RTSP_C_EXPECT_ERRORS,   /* expectations that could not be created */
	RTSP_C_TEARDOWNS,       /* TEARDOWN requests: unused expectations flushed */
	RTSP_C_INTERLEAVED,     /* transports on the RTSP connection itself */
	RTSP_C_NAT_REWRITES,    /* messages rewritten under NAT */
	RTSP_C_UNTRANSLATED,    /* a needed rewrite in bytes already forwarded */
	RTSP_C_THIRD_PARTY,     /* transports to another host, refused */
	RTSP_C_OVERSIZED,       /* messages over max_message */
	RTSP_C_MALFORMED,       /* garbage, bad Transport or ports */
	RTSP_C_COUNT
};

/* Per helper instance, filled by the host from the declared keys
 * (rtsp.c rtsp_keys). */
struct rtsp_config {
	struct cth_ports ports; /* ports: the server ports read */
	uint32_t max_message;   /* max_message: start line + headers, bytes */
	bool third_party;       /* third_party: destination= another host */
	bool reverse;           /* reverse: the client's media to server_port */
};

/* Layout version of struct rtsp_priv, kept by the host at its first byte. */
#define RTSP_PRIV_VERSION 1u

/* NAT remaps remembered from a SETUP for its reply. */
#define RTSP_REMAP_SLOTS 4u

/* Bits of rtsp_priv::flags: skip_end[dir] is valid; direction dir has
 * carried interleaved '$' frames (rtsp.c rtsp_stream()). */
#define RTSP_PRIV_SKIP(dir) (1u << (dir))
#define RTSP_PRIV_FRAMED(dir) (4u << (dir))
#define RTSP_PRIV_FLAGS (RTSP_PRIV_SKIP(0) | RTSP_PRIV_SKIP(1) | \
			 RTSP_PRIV_FRAMED(0) | RTSP_PRIV_FRAMED(1))

/*
 * Per-connection state, in the conntrack entry (CTA_HELP_INFO), host byte
 * order.  skip_end[dir]: the sequence number where the next message
 * starts in direction dir, when an interleaved frame or a body ran past
 * a segment's end.  remap: client RTP ports moved under NAT (the SETUP
 * announced orig_rtp, the server was told nat_rtp), for the reply's
 * client_port and the client's own media; nat_rtp 0 is a free slot.
 */
struct rtsp_priv {
	uint8_t version;
	uint8_t flags;          /* RTSP_PRIV_SKIP() */
	uint8_t next_remap;     /* the slot a new remap replaces when all are used */
	uint8_t reserved;
	uint32_t skip_end[2];
	struct rtsp_remap {
		uint16_t orig_rtp;
		uint16_t nat_rtp;
	} remap[RTSP_REMAP_SLOTS];
};

_Static_assert(sizeof(struct rtsp_priv) == 28, "rtsp_priv must have no padding");

/* The RTP and RTCP ports of one transport: rtcp == rtp is one port for
 * both (RTCP-mux, or a range of one). */
struct rtsp_pair {
	uint16_t rtp;
	uint16_t rtcp;
};

/* One packet being handled. */
struct rtsp_run {
	struct cth_ctx *ctx;
	const struct cth_packet *pkt;
	struct rtsp_priv *priv;
	const struct rtsp_config *cfg;
	const uint8_t *buf;     /* the payload as shown, kept bytes first */
	size_t len;
	size_t kept;            /* cth_kept() */
	int family;
	int verdict;
	bool rewritten;         /* the current message was edited */
};

/* rtsp.c: RTP, then RTCP unless one port carries both: exp to the pair
 * to, from the ports from (NULL: any), under NAT on to the pair nat (NULL:
 * to).  how as cth_expect(); with CTH_EXPECT_SYNC an RTP expectation whose
 * RTCP fails is taken back, so a pair is made whole or not at all.  0, or
 * the first negative errno. */
int rtsp_expect_pair(struct rtsp_run *r, struct cth_expect *exp, const struct rtsp_pair *to,
		     const struct rtsp_pair *from, const struct rtsp_pair *nat, unsigned int how);
/* rtsp_nat.c: a SETUP's transport from the client, to its own address,
 * under NAT (exp as cth_expect_to() filled it for want.rtp).  Expects
 * RTP/RTCP on a free pair of the NAT address and rewrites the transport
 * to it.  0, or a negative errno from cth_expect() (the packet's verdict
 * follows it). */
int rtsp_nat_setup(struct rtsp_run *r, const struct rtsp_spec *s, const struct rtsp_pair *want,
		   struct cth_expect *exp);
/* rtsp_nat.c: a SETUP reply under NAT: client_port back to what the
 * client announced, source= back to the address the client dialled.
 * *client (as the reply names it) receives the client's real pair. */
void rtsp_nat_reply(struct rtsp_run *r, const struct rtsp_spec *s, struct rtsp_pair *client);

#endif /* CTH_RTSP_H */
