/* SPDX-License-Identifier: MIT */
/*
 * SSDP and its HTTP legs as the helper reads them (UPnP Device
 * Architecture 2.0; HTTP/1.1 message syntax, RFC 9112): the start line,
 * one header of the header block, and an http:// URL naming an address.
 * Pure functions, no host calls, so the unit tests and the fuzz target
 * drive them directly.  Header names are compared without regard to case
 * and with any spacing around the colon; nothing past SSDP_HEAD_MAX bytes
 * is read.
 */
#ifndef CTH_SSDP_PARSE_H
#define CTH_SSDP_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cthelperd/plugin.h>

/* Most bytes of start line and headers read (a datagram of SSDP is one
 * Ethernet frame in practice; a SUBSCRIBE's header block is far smaller). */
#define SSDP_HEAD_MAX 4096u

/* Most header lines looked at. */
#define SSDP_LINES_MAX 64u

/* What the start line says. */
enum ssdp_kind {
	SSDP_MSEARCH,       /* "M-SEARCH * HTTP/1.1" */
	SSDP_NOTIFY,        /* a NOTIFY request: multicast ssdp:alive, or GENA event */
	SSDP_SUBSCRIBE,     /* a GENA SUBSCRIBE request */
	SSDP_REQUEST,       /* any other request (GET, POST, ...) */
	SSDP_RESPONSE,      /* "HTTP/1.x NNN ..." */
};

/* What ssdp_parse() found. */
struct ssdp_msg {
	enum ssdp_kind kind;
	unsigned int status;    /* SSDP_RESPONSE: the status code */
	size_t head_len;        /* start line and headers, the empty line included */
	bool complete;          /* the empty line that ends the headers was seen */
	const char *why;        /* for -EINVAL: what is wrong */
};

/*
 * Read the message at buf[0..len): its start line ("METHOD SP target SP
 * HTTP/1.d" or "HTTP/1.d SP NNN ..."; spaces or tabs, one or more, between
 * the parts; the method in any case) and how far its headers go.
 * Returns 0; -EAGAIN when the start line or the header block ends past
 * len but within SSDP_HEAD_MAX (a TCP message split across segments:
 * msg->kind is set once the start line is whole); -EINVAL for anything
 * else (msg->why says what).
 */
int ssdp_parse(const uint8_t *buf, size_t len, struct ssdp_msg *msg);

/*
 * Find header name (ASCII, any case) among the headers of a message whose
 * start line and headers are buf[0..head_len).  On 1, the value is
 * buf[*voff..*voff + *vlen), without the spaces around it.  Returns 1, 0
 * when there is no such header, -EINVAL when it is there twice (which
 * one a client follows is unknown, so neither is).
 */
int ssdp_header(const uint8_t *buf, size_t head_len, const char *name, size_t *voff,
		size_t *vlen);

/* An http:// URL naming an address (ssdp_url_parse()). */
struct ssdp_url {
	union cth_addr addr;
	uint16_t port;          /* 80 when the URL names none */
	size_t host_off;        /* "ADDR[:PORT]" ("[ADDR]..." for IPv6) in the text */
	size_t host_len;
	bool has_port;
	size_t end;             /* the first byte after the URL's authority */
};

/*
 * Parse "http://ADDR[:PORT]" at the start of text[0..len), up to '/', '?',
 * '>' or the end: ADDR a dotted quad for AF_INET, "[IPv6]" for AF_INET6;
 * PORT 1..65535, strict decimal.  Returns 0; -ENOENT for a host name, an
 * address of the other family or a zone index (nothing to expect);
 * -EINVAL for anything else.
 */
int ssdp_url_parse(const uint8_t *text, size_t len, int family, struct ssdp_url *url);

/*
 * The first "<URL>" of a GENA CALLBACK value text[0..len): on 0, the URL
 * is text[*uoff..*uoff + *ulen).  -EINVAL when the value does not start
 * with '<' or the '>' is missing.
 */
int ssdp_callback_first(const uint8_t *text, size_t len, size_t *uoff, size_t *ulen);

/* "M-SEARCH", "NOTIFY", ..., for logs. */
const char *ssdp_kind_name(enum ssdp_kind kind);

#endif
