/* SPDX-License-Identifier: MIT */
/*
 * TFTP request parsing (tftp_parse.h).  The payload is untrusted: every
 * string is found with memchr() within the datagram, never read as a C
 * string, and nothing is copied.
 */
#include <errno.h>
#include <string.h>

#include <cthelperd/util.h>

#include "tftp_parse.h"

static int tftp_request_parse(const uint8_t *buf, size_t len, struct tftp_req *req);
static int tftp_options_parse(const uint8_t *buf, size_t len, size_t off,
			      struct tftp_req *req);
static int tftp_string(const uint8_t *buf, size_t len, size_t off, size_t *slen);
static int tftp_bad(struct tftp_req *req, const char *why);

static const char *const tftp_modes[] = {
	[TFTP_MODE_NETASCII] = "netascii",
	[TFTP_MODE_OCTET] = "octet",
	[TFTP_MODE_MAIL] = "mail",
};

static const char *const tftp_opcodes[] = {
	[TFTP_OP_RRQ] = "RRQ", [TFTP_OP_WRQ] = "WRQ", [TFTP_OP_DATA] = "DATA",
	[TFTP_OP_ACK] = "ACK", [TFTP_OP_ERROR] = "ERROR", [TFTP_OP_OACK] = "OACK",
};

int tftp_parse(const uint8_t *buf, size_t len, struct tftp_req *req)
{
	memset(req, 0, sizeof(*req));
	if (len < 2)
		return tftp_bad(req, "shorter than an opcode");
	req->opcode = (uint16_t)(buf[0] << 8 | buf[1]);
	switch (req->opcode) {
	case TFTP_OP_RRQ:
	case TFTP_OP_WRQ:
		return tftp_request_parse(buf, len, req);
	case TFTP_OP_DATA:
	case TFTP_OP_ACK:
	case TFTP_OP_ERROR:
	case TFTP_OP_OACK:
		return 0;
	default:
		return tftp_bad(req, "unknown opcode");
	}
}

const char *tftp_opcode_name(uint16_t opcode)
{
	if (opcode < sizeof(tftp_opcodes) / sizeof(tftp_opcodes[0]) && tftp_opcodes[opcode])
		return tftp_opcodes[opcode];
	return "opcode?";
}

const char *tftp_mode_name(enum tftp_mode mode)
{
	return (size_t)mode < sizeof(tftp_modes) / sizeof(tftp_modes[0]) ?
	       tftp_modes[mode] : "mode?";
}

/* opcode, filename\0, mode\0, options: RFC 1350 section 5, RFC 2347. */
static int tftp_request_parse(const uint8_t *buf, size_t len, struct tftp_req *req)
{
	size_t off = 2, mlen;
	size_t i;

	if (len > TFTP_REQ_MAX)
		return tftp_bad(req, "longer than 512 bytes");
	if (tftp_string(buf, len, off, &req->file_len) < 0)
		return tftp_bad(req, "filename not NUL-terminated");
	if (req->file_len == 0)
		return tftp_bad(req, "empty filename");
	req->file_off = off;
	off += req->file_len + 1;
	if (tftp_string(buf, len, off, &mlen) < 0)
		return tftp_bad(req, off == len ? "no mode" : "mode not NUL-terminated");
	for (i = 0; i < sizeof(tftp_modes) / sizeof(tftp_modes[0]); i++)
		if (mlen == strlen(tftp_modes[i]) &&
		    cth_prefix_match(buf + off, mlen, tftp_modes[i]) == CTH_PREFIX_YES)
			break;
	if (i == sizeof(tftp_modes) / sizeof(tftp_modes[0]))
		return tftp_bad(req, "unknown mode");
	req->mode = (enum tftp_mode)i;
	return tftp_options_parse(buf, len, off + mlen + 1, req);
}

/*
 * name\0value\0 pairs up to the end (RFC 2347; the helper needs none of
 * them, it only refuses what is not a request).  An empty name ends them:
 * what follows may only be zeros, the padding some clients add.
 */
static int tftp_options_parse(const uint8_t *buf, size_t len, size_t off,
			      struct tftp_req *req)
{
	size_t nlen, vlen;

	while (off < len) {
		if (tftp_string(buf, len, off, &nlen) < 0)
			return tftp_bad(req, "option name not NUL-terminated");
		if (nlen == 0) {
			for (; off < len; off++)
				if (buf[off] != 0)
					return tftp_bad(req, "bytes after an empty option name");
			break;
		}
		off += nlen + 1;
		if (tftp_string(buf, len, off, &vlen) < 0)
			return tftp_bad(req, off == len ? "option without a value" :
					"option value not NUL-terminated");
		off += vlen + 1;
		req->n_opts++;
	}
	return 1;
}

/* The NUL-terminated string at off: its length without the NUL, or
 * -EINVAL when no NUL follows within the datagram. */
static int tftp_string(const uint8_t *buf, size_t len, size_t off, size_t *slen)
{
	const uint8_t *nul;

	if (off >= len)
		return -EINVAL;
	nul = memchr(buf + off, 0, len - off);
	if (!nul)
		return -EINVAL;
	*slen = (size_t)(nul - (buf + off));
	return 0;
}

static int tftp_bad(struct tftp_req *req, const char *why)
{
	req->why = why;
	return -EINVAL;
}
