/* SPDX-License-Identifier: MIT */
/*
 * The SIP plugin's internal interfaces: per-connection state, per-helper
 * configuration, and the per-message context its files share (sip.c:
 * framing and dispatch, REGISTER; sip_media.c: SDP expectations; sip_nat.c:
 * header rewriting).  Behaviour and the deliberate differences from the
 * kernel's nf_conntrack_sip / nf_nat_sip are in docs/plugins/sip.md.
 */
#ifndef CTH_SIP_H
#define CTH_SIP_H

#include <stdbool.h>
#include <stdint.h>

#include <cthelperd/plugin.h>
#include <cthelperd/util.h>

#include "sip_parse.h"

/* Expectation classes, in cth_plugin_desc::classes order; the media ones
 * have enum sip_media_type's values. */
enum sip_class {
	SIP_CLASS_SIGNALLING = 0,
	SIP_CLASS_AUDIO = SIP_MEDIA_AUDIO,
	SIP_CLASS_VIDEO = SIP_MEDIA_VIDEO,
	SIP_CLASS_IMAGE = SIP_MEDIA_IMAGE,
};

/* A REGISTER without any expiry: RFC 3261 10.2.1.1 lets the registrar
 * choose; an hour is the common choice (the kernel creates nothing). */
#define SIP_EXPIRES_DEFAULT 3600u

/* Ports tried from the contact's under NAT (a registration); each try is
 * a netlink round trip, where the kernel walks up to 65535. */
#define SIP_NAT_PORT_TRIES 64u

/* Signalling ports a helper looks at, "ports = 5060,5070". */
#define SIP_PORTS_MAX 8u

/* Layout version of struct sip_priv, kept by the host at
 * offsetof(struct sip_priv, version); 0 is a brand-new connection. */
#define SIP_PRIV_VERSION 1u

/* Bits of sip_priv::flags. */
enum sip_priv_flags {
	SIP_PRIV_INVITE = 1u << 0,   /* invite_cseq is valid */
	SIP_PRIV_REGISTER = 1u << 1, /* register_cseq is valid */
	SIP_PRIV_REG_NAT = 1u << 2,  /* the registration's expectation is NATed */
};

/*
 * Per-connection state, in the conntrack entry (CTA_HELP_INFO), host byte
 * order.  What the kernel keeps in its nf_ct_sip_master, plus what a
 * registration's refresh needs to name its expectation again.
 */
struct sip_priv {
	uint8_t version;
	uint8_t flags;          /* sip_priv_flags */
	uint8_t reg_proto;      /* the registration expectation's protocol */
	uint8_t reserved;
	uint32_t invite_cseq;   /* CSeq of the last INVITE with SDP handled */
	uint32_t register_cseq; /* CSeq of the last REGISTER handled */
	uint16_t reg_port;      /* the Contact's port as the phone wrote it */
	uint16_t reserved2;
};

_Static_assert(sizeof(struct sip_priv) == 16, "sip_priv must have no padding");

/* Per helper instance, filled by the host from the declared keys
 * (sip.c sip_keys). */
struct sip_config {
	bool direct_media;       /* sip_direct_media */
	bool direct_signalling;  /* sip_direct_signalling */
	uint32_t timeout;        /* sip_timeout */
	struct cth_ports ports;  /* ports: 1..SIP_PORTS_MAX */
};

/* Counters, indexes into sip.c's sip_counters[]. */
enum sip_counter {
	SIP_CNT_REQUESTS,
	SIP_CNT_RESPONSES,
	SIP_CNT_MEDIA_EXPECTATIONS,
	SIP_CNT_REGISTRATIONS,
	SIP_CNT_NAT_REWRITES,
	SIP_CNT_PARSE_ERRORS,
};

/* One message being handled. */
struct sip_ctx {
	struct cth_ctx *ctx;
	const struct cth_packet *pkt;
	struct sip_priv *priv;
	const struct sip_config *cfg;
	int family;
	enum cth_dir dir;
	const struct cth_tuple *own;  /* this packet's direction */
	const struct cth_tuple *rev;  /* the other direction */
	bool nat;
	const struct sip_msg *m;
	size_t base;                  /* the message's offset in the payload */
	long body_delta;              /* length change of the body so far */
	struct sip_span done;         /* a span already rewritten (len 0: none) */
	bool edited;                  /* the message was rewritten */
	bool flushed;                 /* the message removed the media expectations */
	bool full;                    /* the kernel's table refused one (EMFILE) */
	unsigned int media_made;      /* expectations the SDP made (counted once) */
};

/* sip_media.c: the SDP body of a message.  A cth_verdict. */
int sip_media_handle(struct sip_ctx *s);

/* Remove the connection's media expectations (INVITE, BYE, failures). */
void sip_media_flush(struct sip_ctx *s);

/* sip_nat.c: rewrite the message's headers under NAT.  A cth_verdict. */
int sip_nat_headers(struct sip_ctx *s);

/* Replace a span of the message (offsets relative to s->m->buf). */
int sip_nat_edit(struct sip_ctx *s, struct sip_span span, const char *text,
		 size_t len);

/* Fix Content-Length after the body changed.  0 or -errno. */
int sip_nat_clen(struct sip_ctx *s);

#endif /* CTH_SIP_H */
