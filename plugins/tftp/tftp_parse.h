/* SPDX-License-Identifier: MIT */
/*
 * TFTP packets as the helper reads them: the opcode, and a read or write
 * request (RFC 1350) with its option extensions (RFC 2347) checked whole.
 * Pure functions, no host calls, so the unit tests drive them directly.
 */
#ifndef CTH_TFTP_PARSE_H
#define CTH_TFTP_PARSE_H

#include <stddef.h>
#include <stdint.h>

/* Opcodes (RFC 1350; OACK: RFC 2347). */
enum tftp_opcode {
	TFTP_OP_RRQ = 1,
	TFTP_OP_WRQ = 2,
	TFTP_OP_DATA = 3,
	TFTP_OP_ACK = 4,
	TFTP_OP_ERROR = 5,
	TFTP_OP_OACK = 6,
};

/* RFC 2347: a request, options included, is at most 512 octets. */
#define TFTP_REQ_MAX 512u

/* Transfer modes (RFC 1350), in the order tftp_mode_name() knows them. */
enum tftp_mode {
	TFTP_MODE_NETASCII,
	TFTP_MODE_OCTET,
	TFTP_MODE_MAIL,
};

/* What tftp_parse() found. */
struct tftp_req {
	uint16_t opcode;        /* 0 when the payload has no whole opcode */
	size_t file_off;        /* the filename, in the payload */
	size_t file_len;        /* without its NUL */
	enum tftp_mode mode;
	unsigned int n_opts;    /* option name/value pairs */
	const char *why;        /* for a malformed packet: what is wrong */
};

/*
 * Read the datagram buf[0..len).  Returns 1 for a well-formed RRQ or WRQ:
 * filename and mode each NUL-terminated, the filename not empty, the mode
 * netascii, octet or mail in any case, then zero or more option pairs
 * "name\0value\0" (a name not empty), then nothing but zero bytes
 * (padding), the whole at most TFTP_REQ_MAX bytes.  Returns 0 for the
 * other packets of the protocol (DATA, ACK, ERROR, OACK), and -EINVAL for
 * anything else (a request that breaks a rule above, an unknown opcode, a
 * payload shorter than an opcode), with req->why saying what.
 * req->opcode is set whenever the payload holds one, also for a malformed
 * request.
 */
int tftp_parse(const uint8_t *buf, size_t len, struct tftp_req *req);

/* "RRQ", "WRQ", "DATA", ... or "opcode?", for logs. */
const char *tftp_opcode_name(uint16_t opcode);

/* "netascii", "octet", "mail". */
const char *tftp_mode_name(enum tftp_mode mode);

#endif
