/* SPDX-License-Identifier: MIT */
/*
 * The TNS plugin's internal interfaces: per-connection state, per-helper
 * configuration, and the per-packet context its files share (tns.c:
 * framing of the server's stream, REDIRECT and DATA, detach; tns_nat.c:
 * the NATed expectation and the rewrite of the descriptor and the
 * lengths).  Behaviour and the differences from conntrackd's tns helper
 * are in docs/plugins/tns.md.
 */
#ifndef CTH_TNS_H
#define CTH_TNS_H

#include <stdbool.h>
#include <stdint.h>

#include <cthelperd/plugin.h>
#include <cthelperd/util.h>

#include "tns_parse.h"

/* Expectation classes, in cth_plugin_desc::classes order. */
enum tns_class {
	TNS_CLASS_REDIRECT = 0,
};

/* Ports tried from the announced one under NAT; each try is a netlink
 * round trip. */
#define TNS_NAT_PORT_TRIES 128u

/* Largest REDIRECT (or descriptor DATA packet) kept when a segment ends
 * inside it: a redirect is a few hundred bytes, and the host keeps at most
 * 16 KiB per direction. */
#define TNS_KEEP_MAX 4096u

/* Longest TNS packet tns_hdr_parse() reads (the 4-byte length form is
 * read as 16 bits, see docs/plugins/tns.md): state framing a longer one
 * is garbage. */
#define TNS_FRAME_MAX 0xffffu

/* Layout version of struct tns_priv, kept by the host at
 * offsetof(struct tns_priv, version); 0 is a brand-new connection, or one
 * whose state was lost (a failover: conntrackd does not carry it). */
#define TNS_PRIV_VERSION 1u

/* Bits of tns_priv::flags. */
enum tns_priv_flags {
	/* A REDIRECT with an empty descriptor: the server's next packet,
	 * if DATA, carries it. */
	TNS_PRIV_DATA_NEXT = 1u << 0,
	/* next_seq and pkt_start are valid. */
	TNS_PRIV_SYNC = 1u << 1,
	/* data_seq is valid. */
	TNS_PRIV_DATA_SEQ = 1u << 2,
};

/*
 * Per-connection state, in the conntrack entry (CTA_HELP_INFO), host byte
 * order.  Only the server's direction is tracked: where its next packet
 * header starts, so a segment in the middle of a long packet is not read
 * as a header, and where the descriptor DATA packet was, so its
 * retransmission is rewritten the same way.
 */
struct tns_priv {
	uint8_t version;
	uint8_t flags;      /* tns_priv_flags */
	uint16_t reserved;
	uint32_t next_seq;  /* sequence number of the next packet header */
	uint32_t pkt_start; /* start of the packet that ends at next_seq */
	uint32_t data_seq;  /* start of the DATA packet read for a REDIRECT */
};

_Static_assert(sizeof(struct tns_priv) == 16, "tns_priv must have no padding");

/* Per helper instance, filled by the host from the declared keys
 * (tns.c tns_keys). */
struct tns_config {
	bool detach;            /* tns_detach */
	struct cth_ports ports; /* read by --print-rules only */
};

/* Counters, indexes into tns.c's tns_counters[]. */
enum tns_counter {
	TNS_CNT_REDIRECTS,
	TNS_CNT_EXPECTATIONS,
	TNS_CNT_HOST_NAMES,
	TNS_CNT_PARSE_ERRORS,
};

/* One TNS packet being handled. */
struct tns_ctx {
	struct cth_ctx *ctx;
	const struct cth_packet *pkt;
	struct tns_priv *priv;
	int family;
	bool nat;
	size_t kept;                /* cth_kept() */
	/* the packet: its offset in the payload, header, descriptor */
	size_t off;
	struct tns_hdr hdr;
	size_t desc_off;            /* in the payload */
	size_t desc_len;
	bool redirect;              /* a REDIRECT (it has a data length) */
	bool accepted;              /* an ACCEPT went by: nothing more to do */
};

/* tns_nat.c: expect and rewrite for a NATed connection, exp as
 * cth_expect_to() filled it (own: its answer, the target is the
 * redirecting server).  A cth_verdict; *expected tells whether an
 * expectation was created. */
int tns_nat_redirect(struct tns_ctx *t, const struct tns_addr *a,
		     struct cth_expect *exp, bool own, bool *expected);

#endif /* CTH_TNS_H */
