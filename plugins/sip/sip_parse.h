/* SPDX-License-Identifier: MIT */
/*
 * SIP and SDP text: message framing, header lookup (full and compact
 * names, folded lines), URIs and Via sent-by, the SDP lines the helper
 * acts on, and the text NAT writes.  Pure functions over untrusted bytes,
 * no host calls, so the unit tests and the fuzzer drive them directly.
 *
 * Every span is an offset and a length inside the buffer the function was
 * given; nothing is ever read past that buffer's length.
 */
#ifndef CTH_SIP_PARSE_H
#define CTH_SIP_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cthelperd/plugin.h>
#include <cthelperd/util.h>

/* Port of a SIP URI or Via without one (RFC 3261 19.1.2). */
#define SIP_DEFAULT_PORT 5060u

/* Largest Content-Length accepted: more than any datagram or segment. */
#define SIP_CLEN_MAX 65535u

/* Bytes of a bare start line worth looking at before giving up. */
#define SIP_START_LINE_MAX 2048u

/* Methods and the CSeq methods of responses. */
enum sip_method {
	SIP_M_OTHER = 0,
	SIP_M_INVITE,
	SIP_M_ACK,
	SIP_M_BYE,
	SIP_M_CANCEL,
	SIP_M_REGISTER,
	SIP_M_UPDATE,
	SIP_M_PRACK,
};

/* A byte range: off from the start of the buffer it was found in. */
struct sip_span {
	size_t off;
	size_t len;
};

/* Header lines whose starts sip_msg_parse() records for the lookups. */
#define SIP_HDR_LINES_MAX 48u

/* One message of a datagram or a TCP segment. */
struct sip_msg {
	const uint8_t *buf;      /* the message's first byte */
	size_t len;              /* whole message: headers, blank line, body */
	size_t hdr_len;          /* start line and headers, blank line included */
	size_t body_off;         /* == hdr_len */
	size_t body_len;
	size_t hdr_start;        /* first header line (after the start line) */
	bool request;
	enum sip_method method;  /* request: its method; response: SIP_M_OTHER */
	unsigned int code;       /* response status, 100..699; 0 for requests */
	struct sip_span uri;     /* request: the Request-URI */
	bool has_clen;
	struct sip_span clen;    /* Content-Length's digits (when has_clen) */
	/* Where each header line starts, found once while framing so that
	 * sip_hdr_find() does not look for line ends again: line[0] is
	 * hdr_start, line[n_lines] the blank line.  n_lines 0: not recorded
	 * (more than SIP_HDR_LINES_MAX lines, or no blank line), searched. */
	size_t n_lines;
	uint32_t line[SIP_HDR_LINES_MAX + 1];
};

/* Header names: the full one and the compact letter (0: none). */
struct sip_hdr_name {
	const char *name;
	char compact;
};

extern const struct sip_hdr_name sip_hdr_via, sip_hdr_contact, sip_hdr_from,
	sip_hdr_to, sip_hdr_cseq, sip_hdr_expires, sip_hdr_clen,
	sip_hdr_call_id;

/*
 * Frame the message at the start of buf.
 *
 * stream: TCP, where a message ends where its Content-Length says (a
 * missing Content-Length means no body, RFC 3261 18.3); on UDP the
 * datagram is the message and Content-Length, when present, may only cut
 * the body short.  Leading CRLFs (keep-alives) are not skipped here: see
 * sip_skip_crlf().
 *
 * Returns 0 with *m filled, -EAGAIN when buf ends before the message does
 * (headers not terminated, or a shorter body than Content-Length on TCP),
 * -EINVAL when it is not a SIP message (bad start line, bad or too large
 * Content-Length, or a body longer than the datagram).
 */
int sip_msg_parse(const uint8_t *buf, size_t len, bool stream,
		  struct sip_msg *m);

/* Bytes of CR and LF at the start of buf (keep-alives between messages). */
size_t sip_skip_crlf(const uint8_t *buf, size_t len);

/*
 * Find the next header called h in m's headers, starting at *pos (0 for the
 * first; updated so the next call finds the next one).  *value is the
 * header's value, leading white space skipped, up to its line end,
 * continuation lines included.  Returns 1 when found, 0 when not.
 */
int sip_hdr_find(const struct sip_msg *m, const struct sip_hdr_name *h,
		 size_t *pos, struct sip_span *value);

/* Parse "NUMBER METHOD" of a CSeq header.  0 or -EINVAL. */
int sip_cseq_parse(const struct sip_msg *m, uint32_t *num,
		   enum sip_method *method);

/* An address as the text wrote it: host, optional port. */
struct sip_hostport {
	union cth_addr addr;
	uint16_t port;        /* SIP_DEFAULT_PORT when the text has none */
	bool has_port;
	struct sip_span span; /* host and port text ("[" and "]" included) */
};

/*
 * Parse a numeric host (IPv4 for AF_INET, "[IPv6]" for AF_INET6) and an
 * optional ":port" at buf[off..end).  A bare IPv6 literal (what SDP and
 * received= carry) is accepted anywhere, without a port: in a URI, where
 * RFC 3261 wants brackets, "2001:db8::10:5070" is thus one address (the
 * kernel refuses it); NAT only rewrites it when it equals an endpoint.
 * Host names are -ENOENT; a port of 0 or above 65535, or
 * text that is not an address, is -EINVAL.  hp->span is relative to buf.
 */
int sip_hostport_parse(const uint8_t *buf, size_t off, size_t end, int family,
		       struct sip_hostport *hp);

/* Parameters of a SIP URI or header that the helper reads. */
struct sip_uri {
	struct sip_hostport hp;
	struct sip_span whole;     /* the URI or Via entry, parameters included */
	uint8_t transport;         /* IPPROTO_UDP/TCP from transport=, 0 if none */
	bool has_expires;
	uint32_t expires;          /* the expires= parameter */
};

/*
 * The first SIP URI ("sip:" or "sips:") in the header value at
 * m->buf[v->off..], display name and angle brackets allowed, together
 * with the parameters of the entry (up to the next top-level comma: a
 * Contact can list several).  *next receives where the next entry of the
 * same header starts (v->off + v->len when there is none).  Returns 1,
 * 0 when there is no URI (e.g. "Contact: *"), -ENOENT for a host name,
 * -EINVAL for malformed text.
 */
int sip_uri_parse(const uint8_t *buf, struct sip_span v, int family,
		  struct sip_uri *u, size_t *next);

/* Where sip_uri_next() is among the entries of a header; zero it first. */
struct sip_uri_iter {
	size_t pos;          /* sip_hdr_find()'s position */
	struct sip_span v;   /* what is left of the current header's value */
};

/*
 * The next URI entry among all headers called h of m (a Contact header can
 * list several, and a message can carry several Contact headers).  Returns
 * false when there is none left; otherwise *parsed receives what
 * sip_uri_parse() said of the entry (1 with *u filled, 0, -errno).
 */
bool sip_uri_next(const struct sip_msg *m, const struct sip_hdr_name *h,
		  int family, struct sip_uri_iter *it, struct sip_uri *u,
		  int *parsed);

/* The top Via header's sent-by and the parameters NAT rewrites. */
struct sip_via {
	uint8_t proto;              /* IPPROTO_UDP or IPPROTO_TCP, 0 other */
	struct sip_hostport hp;     /* sent-by */
	struct sip_span param_end;  /* off: end of the Via entry */
	bool has_received, has_rport, has_maddr;
	struct sip_hostport received;   /* received= (no port) */
	struct sip_hostport maddr;      /* maddr= (no port) */
	struct sip_span rport;          /* rport='s digits (empty: bare rport) */
	uint32_t rport_val;
};

/* Parse the first entry of a Via header value.  1, -ENOENT, -EINVAL. */
int sip_via_parse(const uint8_t *buf, struct sip_span v, int family,
		  struct sip_via *via);

/* The To header carries a tag (RFC 3261 8.1.1.2: a request inside a
 * dialog; an initial INVITE has none). */
bool sip_to_tagged(const struct sip_msg *m);

/* Request-URI of a request: like sip_uri_parse() on m->uri.  1/0/-errno. */
int sip_request_uri(const struct sip_msg *m, int family, struct sip_uri *u);

/* ------------------------------------------------------------------ SDP */

/* The kernel looks at three media lines at most (one of each type). */
#define SIP_SDP_MEDIA_MAX 3u

/* Media types that get expectations; the value is the class index. */
enum sip_media_type {
	SIP_MEDIA_NONE = 0,
	SIP_MEDIA_AUDIO = 1,
	SIP_MEDIA_VIDEO = 2,
	SIP_MEDIA_IMAGE = 3,
};

struct sip_sdp_media {
	enum sip_media_type type;
	uint32_t port;             /* as written, may be 0 or out of range */
	struct sip_span port_span;
	bool has_addr;             /* a media-level c= */
	struct sip_hostport addr;  /* its address (span: the address text) */
};

struct sip_sdp {
	bool has_addr;             /* session-level c= */
	struct sip_hostport addr;
	bool has_owner;            /* o= with an address of the family */
	struct sip_hostport owner;
	unsigned int n_media;
	struct sip_sdp_media media[SIP_SDP_MEDIA_MAX];
	unsigned int n_skipped;    /* m= lines past the limit or of other types */
};

/*
 * Parse the SDP body at buf[off..off+len) for a connection of family
 * (c= and o= must say "IN IP4" or "IN IP6" accordingly; others are
 * ignored).  Spans are relative to buf.  Returns 0, or -EINVAL when the
 * body is not SDP (no "v=" line first).
 */
int sip_sdp_parse(const uint8_t *buf, size_t off, size_t len, int family,
		  struct sip_sdp *sdp);

/* ------------------------------------------------------------ writing */

/* Big enough for any sip_format_*() result, NUL included. */
#define SIP_FORMAT_MAX (CTH_ADDR_STRLEN + sizeof("[]:65535"))

/* "a.b.c.d:port" or "[v6]:port" (with_port false: no port).  Length or
 * -ENOSPC / -EAFNOSUPPORT. */
int sip_format_hostport(int family, const union cth_addr *addr, uint16_t port,
			bool with_port, bool brackets, char *buf, size_t size);

/* Case-insensitive method name lookup (for tests and logs). */
enum sip_method sip_method_lookup(const uint8_t *buf, size_t len);
const char *sip_method_name(enum sip_method m);

#endif /* CTH_SIP_PARSE_H */
