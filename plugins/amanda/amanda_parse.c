/* SPDX-License-Identifier: MIT */
/*
 * Amanda packet parsing (amanda_parse.h).  The datagram is untrusted:
 * every token is bounded by the datagram's end and its line's end, and
 * numbers are read digit by digit against their limit, so a port never
 * wraps (the kernel reads five characters with simple_strtoul() and
 * keeps the low 16 bits).
 */
#include <errno.h>
#include <string.h>

#include <cthelperd/util.h>

#include "amanda_parse.h"

static int amanda_header(const uint8_t *buf, size_t len, size_t *body);
static int amanda_connect_find(const uint8_t *buf, size_t len, size_t off, size_t *at,
			       size_t *end);
static int amanda_connect_parse(const uint8_t *buf, size_t off, size_t end,
				struct amanda_msg *msg);
static int amanda_pair(const uint8_t *buf, size_t *off, size_t end, struct amanda_msg *msg);
static size_t amanda_token(const uint8_t *buf, size_t off, size_t end);
static size_t amanda_blanks(const uint8_t *buf, size_t off, size_t end);
static int amanda_bad(struct amanda_msg *msg, const char *why);

static const char *const amanda_names[AMANDA_STREAMS] = {
	[AMANDA_DATA] = "DATA",
	[AMANDA_MESG] = "MESG",
	[AMANDA_INDEX] = "INDEX",
};

int amanda_parse(const uint8_t *buf, size_t len, struct amanda_msg *msg)
{
	size_t body, at, end;
	int ret;

	memset(msg, 0, sizeof(*msg));
	ret = amanda_header(buf, len, &body);
	if (ret < 0)
		return amanda_bad(msg, "no Amanda header");
	if (ret == 0)
		return 0;
	if (amanda_connect_find(buf, len, body, &at, &end) < 0)
		return 0;
	ret = amanda_connect_parse(buf, at, end, msg);
	/* a refused line names no stream, whatever came before the fault */
	if (ret < 0) {
		memset(msg->stream, 0, sizeof(msg->stream));
		msg->n_streams = 0;
	}
	return ret;
}

const char *amanda_stream_name(enum amanda_stream_id id)
{
	return (unsigned int)id < AMANDA_STREAMS ? amanda_names[id] : "stream?";
}

/*
 * "Amanda MAJOR.MINOR TYPE ": 1 for a reply (REP, or PREP, a partial
 * one), 0 for another type, -EINVAL when it is not there.  *body is the
 * offset of the next line.
 */
static int amanda_header(const uint8_t *buf, size_t len, size_t *body)
{
	size_t line = cth_line_len(buf, len), off = 7, used;
	uint32_t v;

	if (line < 7 || memcmp(buf, "Amanda ", 7) != 0)
		return -EINVAL;
	if (cth_parse_uint(buf + off, line - off, 999, &v, &used) < 0)
		return -EINVAL;
	off += used;
	if (off >= line || buf[off] != '.')
		return -EINVAL;
	off++;
	if (cth_parse_uint(buf + off, line - off, 999, &v, &used) < 0)
		return -EINVAL;
	off += used;
	if (off >= line || buf[off] != ' ')
		return -EINVAL;
	off++;
	*body = line < len ? line + 1 : len;
	if (line - off >= 4 && memcmp(buf + off, "REP ", 4) == 0)
		return 1;
	if (line - off >= 5 && memcmp(buf + off, "PREP ", 5) == 0)
		return 1;
	return 0;
}

/* The first body line starting with "CONNECT ": its words from *at, up
 * to *end (the line without its "\n" or "\r\n"). */
static int amanda_connect_find(const uint8_t *buf, size_t len, size_t off, size_t *at,
			       size_t *end)
{
	while (off < len) {
		size_t line = cth_line_len(buf + off, len - off);

		if (line >= 8 && memcmp(buf + off, "CONNECT ", 8) == 0) {
			*at = off + 8;
			*end = off + line;
			if (*end > *at && buf[*end - 1] == '\r')
				(*end)--;
			return 0;
		}
		off += line + 1;
	}
	return -ENOENT;
}

static int amanda_connect_parse(const uint8_t *buf, size_t off, size_t end,
				struct amanda_msg *msg)
{
	int ret;

	off = amanda_blanks(buf, off, end);
	while (off < end) {
		ret = amanda_pair(buf, &off, end, msg);
		if (ret < 0)
			return ret;
		off = amanda_blanks(buf, off, end);
	}
	if (msg->n_streams == 0)
		return amanda_bad(msg, msg->n_other ? "no DATA, MESG or INDEX stream" :
				  "CONNECT without a stream");
	return 1;
}

/* "NAME PORT" at *off, moved past it. */
static int amanda_pair(const uint8_t *buf, size_t *off, size_t end, struct amanda_msg *msg)
{
	size_t name = *off, nlen = amanda_token(buf, name, end) - name;
	size_t num, dlen;
	unsigned int id;
	uint32_t port;

	if (nlen > AMANDA_NAME_MAX)
		return amanda_bad(msg, "stream name too long");
	for (size_t i = 0; i < nlen; i++)
		if (buf[name + i] < 'A' || buf[name + i] > 'Z')
			return amanda_bad(msg, "stream name not upper-case letters");
	num = amanda_blanks(buf, name + nlen, end);
	if (num == name + nlen || num >= end)
		return amanda_bad(msg, "stream name without a port");
	dlen = amanda_token(buf, num, end) - num;
	for (size_t i = 0; i < dlen; i++)
		if (buf[num + i] < '0' || buf[num + i] > '9')
			return amanda_bad(msg, "port not a decimal number");
	if (dlen > AMANDA_PORT_DIGITS)
		return amanda_bad(msg, "port of more than 5 digits");
	if (cth_parse_uint(buf + num, dlen, 65535, &port, NULL) < 0)
		return amanda_bad(msg, "port above 65535");
	if (port == 0)
		return amanda_bad(msg, "port 0");
	*off = num + dlen;
	for (id = 0; id < AMANDA_STREAMS; id++)
		if (nlen == strlen(amanda_names[id]) &&
		    memcmp(buf + name, amanda_names[id], nlen) == 0)
			break;
	if (id == AMANDA_STREAMS) {
		msg->n_other++;
		return 0;
	}
	if (msg->stream[id].port)
		return amanda_bad(msg, "a stream named twice");
	msg->stream[id] = (struct amanda_stream){ .port = (uint16_t)port, .off = num,
						  .len = dlen };
	msg->n_streams++;
	return 0;
}

/* The end of the word at off: the next blank or the line's end. */
static size_t amanda_token(const uint8_t *buf, size_t off, size_t end)
{
	while (off < end && buf[off] != ' ' && buf[off] != '\t')
		off++;
	return off;
}

static size_t amanda_blanks(const uint8_t *buf, size_t off, size_t end)
{
	while (off < end && (buf[off] == ' ' || buf[off] == '\t'))
		off++;
	return off;
}

static int amanda_bad(struct amanda_msg *msg, const char *why)
{
	msg->why = why;
	return -EINVAL;
}
