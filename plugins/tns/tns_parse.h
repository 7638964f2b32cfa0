/* SPDX-License-Identifier: MIT */
/*
 * Oracle TNS framing and connect descriptors: the 8-byte packet header in
 * its 2-byte and 4-byte length forms, the REDIRECT body, the address of a
 * descriptor such as (ADDRESS=(PROTOCOL=tcp)(HOST=10.0.0.5)(PORT=40123)),
 * and the text NAT writes.  Pure functions over untrusted bytes, no host
 * calls, so the unit tests and the fuzzer drive them directly.
 *
 * Every span is an offset and a length inside the buffer the function was
 * given; nothing is ever read past that buffer's length.
 */
#ifndef CTH_TNS_PARSE_H
#define CTH_TNS_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cthelperd/plugin.h>
#include <cthelperd/util.h>

/* The listener's well-known port (documentation and tests only: the
 * ruleset decides which connections reach the helper). */
#define TNS_DEFAULT_PORT 1521u

/* Header: length, packet checksum, type, flags, header checksum. */
#define TNS_HDR_LEN 8u

/* REDIRECT: the header, then the descriptor's length (2 bytes). */
#define TNS_REDIRECT_BODY 10u

/* DATA: the header, then the data flags (2 bytes), then the data. */
#define TNS_DATA_BODY 10u

/* Nesting of a descriptor followed before giving up: real ones use 4. */
#define TNS_DESC_DEPTH 16u

/* Longest text tns_format_*() writes, NUL included. */
#define TNS_FORMAT_MAX CTH_ADDR_STRLEN

/* Packet types (Net8 / SQL*Net v2). */
enum tns_type {
	TNS_TYPE_CONNECT = 1,
	TNS_TYPE_ACCEPT = 2,
	TNS_TYPE_ACK = 3,
	TNS_TYPE_REFUSE = 4,
	TNS_TYPE_REDIRECT = 5,
	TNS_TYPE_DATA = 6,
	TNS_TYPE_NULL = 7,
	TNS_TYPE_ABORT = 9,
	TNS_TYPE_RESEND = 11,
	TNS_TYPE_MARKER = 12,
	TNS_TYPE_ATTENTION = 13,
	TNS_TYPE_CONTROL = 14,
	TNS_TYPE_MAX = 19,
};

/* One packet header. */
struct tns_hdr {
	uint32_t len;      /* the whole packet, header included */
	uint8_t type;      /* enum tns_type */
	uint8_t flags;
	bool wide;         /* 4-byte length (no packet checksum field) */
};

/* A byte range: off from the start of the buffer it was found in. */
struct tns_span {
	size_t off;
	size_t len;
};

/* The address of a connect descriptor. */
struct tns_addr {
	struct tns_span host;  /* HOST's value, spaces and [ ] left out */
	struct tns_span port;  /* PORT's digits */
	int family;            /* AF_INET, AF_INET6, or 0 for a host name */
	union cth_addr addr;   /* when family is not 0 */
	uint16_t port_val;
};

/*
 * The packet header at the start of buf.  The length is the 2-byte form
 * unless its first two bytes are 0 (no packet is that short): then the
 * first four bytes are one length (TNS 315 and later).  A 4-byte length of
 * 64 KiB or more cannot be told from a 2-byte one and reads as the latter:
 * framing is lost until a segment starts a packet again.
 * @return 0, -EAGAIN when len < TNS_HDR_LEN, -EINVAL when it cannot be a
 *         TNS header (length below 8, unknown type)
 */
int tns_hdr_parse(const uint8_t *buf, size_t len, struct tns_hdr *h);

/* Big-endian reads and writes. */
uint16_t tns_get16(const uint8_t *p);
void tns_put16(uint8_t *p, uint32_t v);
void tns_put32(uint8_t *p, uint32_t v);

/*
 * The first TCP address of a connect descriptor: the first parenthesised
 * group holding both (HOST=...) and (PORT=...), with no (PROTOCOL=...)
 * other than tcp or tcps.  Keys are matched without regard to case;
 * spaces around keys, '=' and values are skipped.  A group naming HOST,
 * PORT or PROTOCOL twice is passed over.
 * @return 1 found (*a filled), 0 none, -EINVAL for a descriptor nested
 *         deeper than TNS_DESC_DEPTH
 */
int tns_desc_parse(const uint8_t *buf, size_t len, struct tns_addr *a);

/* An address as HOST= carries it (IPv6 compressed, no brackets).
 * @return its length, or a negative errno */
int tns_format_addr(int family, const union cth_addr *addr, char *buf,
		    size_t size);

/* A port as PORT= carries it.  @return its length, or a negative errno */
int tns_format_port(uint16_t port, char *buf, size_t size);

/* A type's name for logs. */
const char *tns_type_name(uint8_t type);

#endif /* CTH_TNS_PARSE_H */
