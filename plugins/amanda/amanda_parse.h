/* SPDX-License-Identifier: MIT */
/*
 * Amanda's UDP packets as the helper reads them: the header line
 * ("Amanda MAJOR.MINOR TYPE HANDLE ..."), and in a reply the first
 * "CONNECT NAME PORT ..." line, which names the TCP ports the client's
 * amandad listens on for the server.  Pure functions, no host calls, so
 * the unit tests and the fuzz target drive them directly.
 */
#ifndef CTH_AMANDA_PARSE_H
#define CTH_AMANDA_PARSE_H

#include <stddef.h>
#include <stdint.h>

/* The streams the kernel's nf_conntrack_amanda opens, in its order. */
enum amanda_stream_id {
	AMANDA_DATA,
	AMANDA_MESG,
	AMANDA_INDEX,
	AMANDA_STREAMS
};

/* Most digits of a port: amandad writes them with "%d", never padded. */
#define AMANDA_PORT_DIGITS 5u

/* Longest stream name read (amandad's are 4 or 5 letters). */
#define AMANDA_NAME_MAX 16u

/* One announced stream: port 0 when the line does not name it. */
struct amanda_stream {
	uint16_t port;
	size_t off;             /* the digits, in the datagram */
	size_t len;
};

/* What amanda_parse() found. */
struct amanda_msg {
	struct amanda_stream stream[AMANDA_STREAMS];
	unsigned int n_streams; /* of the three, named on the line */
	unsigned int n_other;   /* other NAME PORT pairs, valid but not opened */
	const char *why;        /* for a malformed packet: what is wrong */
};

/*
 * Read the datagram buf[0..len).  Returns 1 for an Amanda reply (REP or
 * PREP) with a valid CONNECT line naming at least one stream; 0 for
 * another Amanda packet (a request, an ACK, a reply without CONNECT);
 * -EINVAL for anything else, with msg->why saying what: no Amanda header,
 * or a CONNECT line that breaks a rule (pairs of an upper-case NAME and
 * a PORT of 1..5 digits, 1..65535, separated by spaces or tabs; no name
 * twice; nothing else up to the line's end, "\n", "\r\n" or the end of
 * the datagram).  Only the first line starting with "CONNECT " counts.
 */
int amanda_parse(const uint8_t *buf, size_t len, struct amanda_msg *msg);

/* "DATA", "MESG", "INDEX", for logs. */
const char *amanda_stream_name(enum amanda_stream_id id);

#endif
