/* SPDX-License-Identifier: MIT */
/*
 * The DCC offer in one IRC line (RFC 2812 message framing, the CTCP DCC
 * convention):
 *
 *   [@tags ][:prefix ]PRIVMSG|NOTICE target :\1DCC TYPE ARG ADDR PORT [...]\1
 *
 * ARG is a file name (a token, or in double quotes with spaces) or "chat".
 * ADDR is one 32-bit decimal number (IPv4, the DCC norm), an IPv6 address
 * in text form, or an IPv4 dotted quad; PORT is 0..65535, strictly: a
 * number out of range is malformed, never cut to its low bits.
 */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include <cthelperd/util.h>

#include "irc_parse.h"

/* The offers that name an address this side listens on. */
static const char *const irc_dcc_types[] = {
	"SEND", "CHAT", "TSEND", "SCHAT", "SSEND", "TSSEND", "MOVE", NULL,
};

/* Where the parse is in the line; end excludes the "\r\n". */
struct irc_cur {
	const uint8_t *buf;
	size_t at;
	size_t end;
	bool complete;
};

static int irc_header(struct irc_cur *c);
static int irc_dcc_args(struct irc_cur *c, struct irc_dcc *dcc);

int irc_parse_line(const uint8_t *buf, size_t off, size_t len, bool complete,
		   struct irc_dcc *dcc)
{
	struct irc_cur c = { .buf = buf, .at = off, .end = off + len, .complete = complete };
	int ret;

	memset(dcc, 0, sizeof(*dcc));
	if (complete && c.end > c.at && buf[c.end - 1] == '\r')
		c.end--;
	ret = irc_header(&c);
	if (ret == IRC_PARSE_DCC)
		ret = irc_dcc_args(&c, dcc);
	/* an offer is read once its line is whole, as the kernel waits for
	 * its '\n' */
	return !complete && ret != IRC_PARSE_NONE ? IRC_PARSE_MORE : ret;
}

/* The line ended here: for an incomplete one that means "wait". */
static int irc_out(const struct irc_cur *c)
{
	return c->complete ? IRC_PARSE_NONE : IRC_PARSE_MORE;
}

static void irc_spaces(struct irc_cur *c)
{
	while (c->at < c->end && c->buf[c->at] == ' ')
		c->at++;
}

/* A token ends at a space, a CTCP delimiter or the line's end. */
static size_t irc_token(struct irc_cur *c)
{
	size_t start = c->at;

	while (c->at < c->end && c->buf[c->at] != ' ' && c->buf[c->at] != '\1')
		c->at++;
	return c->at - start;
}

/* Does the line go on with word (ASCII case ignored) and a space? */
static int irc_word(struct irc_cur *c, const char *word)
{
	size_t n = strlen(word);
	enum cth_prefix p;

	if (c->at == c->end)
		return irc_out(c);
	p = cth_prefix_match(c->buf + c->at, c->end - c->at, word);
	if (p == CTH_PREFIX_TRUNCATED || (p == CTH_PREFIX_YES && c->at + n == c->end))
		return irc_out(c);
	if (p != CTH_PREFIX_YES || c->buf[c->at + n] != ' ')
		return IRC_PARSE_NONE;
	c->at += n;
	irc_spaces(c);
	return IRC_PARSE_DCC;
}

/* Up to the DCC type: tags, prefix, command, target, ":\1DCC ". */
static int irc_header(struct irc_cur *c)
{
	int ret;

	irc_spaces(c);
	for (unsigned int i = 0; i < 2; i++) {
		/* tags first (IRCv3), then the prefix */
		if (c->at < c->end && c->buf[c->at] == (i == 0 ? '@' : ':')) {
			irc_token(c);
			if (c->at == c->end)
				return irc_out(c);
			irc_spaces(c);
		}
	}
	ret = irc_word(c, "PRIVMSG");
	if (ret == IRC_PARSE_NONE)
		ret = irc_word(c, "NOTICE");
	if (ret != IRC_PARSE_DCC)
		return ret;
	if (irc_token(c) == 0 || c->at == c->end)
		return irc_out(c);
	irc_spaces(c);
	if (c->at == c->end)
		return irc_out(c);
	if (c->buf[c->at] != ':')
		return IRC_PARSE_NONE;
	c->at++;
	if (c->at == c->end)
		return irc_out(c);
	if (c->buf[c->at] != '\1')
		return IRC_PARSE_NONE;
	c->at++;
	return irc_word(c, "DCC");
}

static int irc_malformed(struct irc_dcc *dcc, const char *why)
{
	dcc->why = why;
	return -EINVAL;
}

static int irc_dcc_type(struct irc_cur *c, struct irc_dcc *dcc)
{
	size_t start = c->at, n = irc_token(c);

	if (c->at == c->end)
		return irc_out(c);
	for (unsigned int i = 0; irc_dcc_types[i]; i++) {
		if (strlen(irc_dcc_types[i]) == n &&
		    cth_prefix_match(c->buf + start, n, irc_dcc_types[i]) == CTH_PREFIX_YES) {
			memcpy(dcc->type, irc_dcc_types[i], n + 1);
			return IRC_PARSE_DCC;
		}
	}
	/* RESUME, ACCEPT, GET and the rest name no address to open */
	return IRC_PARSE_NONE;
}

/* The file name (or "chat"): a token, or "..." that may hold spaces. */
static int irc_dcc_arg(struct irc_cur *c, struct irc_dcc *dcc)
{
	if (c->at < c->end && c->buf[c->at] == '"') {
		const uint8_t *q = memchr(c->buf + c->at + 1, '"', c->end - c->at - 1);

		if (!q)
			return c->complete ? irc_malformed(dcc, "unterminated quoted file name")
					   : IRC_PARSE_MORE;
		c->at = (size_t)(q - c->buf) + 1;
		if (c->at < c->end && c->buf[c->at] != ' ')
			return irc_malformed(dcc, "text after a quoted file name");
	} else if (irc_token(c) == 0) {
		return c->at == c->end ? irc_out(c) : irc_malformed(dcc, "no file name");
	}
	if (c->at == c->end)
		return c->complete ? irc_malformed(dcc, "no address") : IRC_PARSE_MORE;
	irc_spaces(c);
	return IRC_PARSE_DCC;
}

static int irc_dcc_addr(struct irc_dcc *dcc, const uint8_t *text, size_t n)
{
	uint32_t v;
	size_t used;

	if (memchr(text, ':', n)) {
		dcc->family = AF_INET6;
		dcc->form = IRC_ADDR_TEXT6;
		return cth_addr_parse(AF_INET6, text, n, &dcc->addr) < 0
			       ? irc_malformed(dcc, "bad IPv6 address") : 0;
	}
	dcc->family = AF_INET;
	if (memchr(text, '.', n)) {
		dcc->form = IRC_ADDR_DOTTED;
		return cth_addr_parse(AF_INET, text, n, &dcc->addr) < 0
			       ? irc_malformed(dcc, "bad IPv4 address") : 0;
	}
	dcc->form = IRC_ADDR_DECIMAL;
	/* the kernel's simple_strtoul() keeps the low 32 bits of any number */
	if (cth_parse_uint(text, n, UINT32_MAX, &v, &used) < 0 || used != n)
		return irc_malformed(dcc, "address is not a 32-bit number");
	dcc->addr.ip = htonl(v);
	return 0;
}

static int irc_dcc_port(struct irc_dcc *dcc, const uint8_t *text, size_t n)
{
	uint32_t v;
	size_t used;

	/* the kernel's parse keeps the low 16 bits: 70000 became 4464 */
	if (cth_parse_uint(text, n, 65535, &v, &used) < 0 || used != n)
		return irc_malformed(dcc, "port is not a number 0..65535");
	dcc->port = (uint16_t)v;
	return 0;
}

static int irc_dcc_args(struct irc_cur *c, struct irc_dcc *dcc)
{
	int ret = irc_dcc_type(c, dcc);

	if (ret != IRC_PARSE_DCC)
		return ret;
	irc_spaces(c);
	ret = irc_dcc_arg(c, dcc);
	if (ret != IRC_PARSE_DCC)
		return ret;
	dcc->addr_text.off = c->at;
	dcc->addr_text.len = irc_token(c);
	if (c->at == c->end)
		return c->complete ? irc_malformed(dcc, "no port") : IRC_PARSE_MORE;
	if (dcc->addr_text.len == 0 || c->buf[c->at] != ' ')
		return irc_malformed(dcc, "no address");
	irc_spaces(c);
	dcc->port_text.off = c->at;
	dcc->port_text.len = irc_token(c);
	if (c->at == c->end && !c->complete)
		return IRC_PARSE_MORE;
	if (dcc->port_text.len == 0)
		return irc_malformed(dcc, "no port");
	ret = irc_dcc_addr(dcc, c->buf + dcc->addr_text.off, dcc->addr_text.len);
	if (ret < 0)
		return ret;
	ret = irc_dcc_port(dcc, c->buf + dcc->port_text.off, dcc->port_text.len);
	return ret < 0 ? ret : IRC_PARSE_DCC;
}
