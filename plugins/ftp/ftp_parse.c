/* SPDX-License-Identifier: MIT */
/*
 * FTP control channel parsing.  Behaviour follows the in-kernel FTP helper
 * (see docs/plugins/ftp.md for the few deliberate differences): a command is
 * only recognised at the very start of the data handed in, the command word
 * is matched without regard to case, and a command that is cut short by the
 * end of the packet or does not parse is reported as an error, because the
 * kernel drops such packets so that the sender retransmits them.
 *
 * Every index is checked against len before the byte is read: the payload
 * is attacker-controlled and has no terminating NUL.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "ftp_parse.h"

typedef int (*ftp_args_fn)(const uint8_t *buf, size_t len, size_t pos,
			   int family, struct ftp_cmd *cmd);

/* One thing to look for at the start of a packet. */
struct ftp_pattern {
	const char *word;       /* matched case-insensitively at offset 0 */
	char skip;              /* arguments start after the first of these
				 * on the line; 0: right after the word */
	enum ftp_cmd_type type;
	ftp_args_fn parse_args;
};

static int ftp_args_port(const uint8_t *buf, size_t len, size_t pos,
			 int family, struct ftp_cmd *cmd);
static int ftp_args_eprt(const uint8_t *buf, size_t len, size_t pos,
			 int family, struct ftp_cmd *cmd);
static int ftp_args_pasv(const uint8_t *buf, size_t len, size_t pos,
			 int family, struct ftp_cmd *cmd);
static int ftp_args_epsv(const uint8_t *buf, size_t len, size_t pos,
			 int family, struct ftp_cmd *cmd);

/* Commands come from the client, replies from the server; tried in order. */
static const struct ftp_pattern ftp_patterns[2][2] = {
	[CTH_DIR_ORIGINAL] = {
		{ "PORT", ' ', FTP_CMD_PORT, ftp_args_port },
		{ "EPRT", ' ', FTP_CMD_EPRT, ftp_args_eprt },
	},
	[CTH_DIR_REPLY] = {
		{ "227 ", 0, FTP_CMD_PASV, ftp_args_pasv },
		{ "229 ", '(', FTP_CMD_EPSV, ftp_args_epsv },
	},
};

static const char *const ftp_cmd_names[] = {
	[FTP_CMD_PORT] = "PORT",
	[FTP_CMD_EPRT] = "EPRT",
	[FTP_CMD_PASV] = "227",
	[FTP_CMD_EPSV] = "229",
};

const char *ftp_cmd_name(enum ftp_cmd_type type)
{
	if ((unsigned int)type >= sizeof(ftp_cmd_names) / sizeof(ftp_cmd_names[0]))
		return "?";
	return ftp_cmd_names[type];
}

/* Running out of bytes may just mean the rest is in the next segment. */
static int ftp_short_or_bad(size_t pos, size_t len)
{
	return pos >= len ? -EAGAIN : -EINVAL;
}

static bool ftp_is_digit(uint8_t c)
{
	return c >= '0' && c <= '9';
}

/*
 * count numbers 0..255 separated by sep, starting at pos.  *end is the
 * offset just after the last digit, where the caller expects a terminator,
 * so it is only returned when that byte exists.
 */
static int ftp_parse_bytes(const uint8_t *buf, size_t len, size_t pos,
			   char sep, uint8_t *vals, size_t count, size_t *end)
{
	uint32_t v;
	size_t used;
	size_t i;
	int ret;

	for (i = 0; i < count; i++) {
		if (i > 0) {
			if (pos >= len)
				return -EAGAIN;
			if (buf[pos] != (uint8_t)sep)
				return -EINVAL;
			pos++;
		}
		ret = cth_parse_uint(buf + pos, len - pos, 255, &v, &used);
		if (ret == -EINVAL)
			return ftp_short_or_bad(pos, len);
		if (ret < 0)
			return -EINVAL;
		vals[i] = (uint8_t)v;
		pos += used;
	}
	if (pos >= len)
		return -EAGAIN;
	*end = pos;
	return 0;
}

/* A port 1..65535 closed by delim; *end is just past the delimiter. */
static int ftp_parse_port_delim(const uint8_t *buf, size_t len, size_t pos,
				uint8_t delim, uint16_t *port, size_t *end)
{
	uint32_t v;
	size_t used;
	int ret;

	ret = cth_parse_uint(buf + pos, len - pos, 65535, &v, &used);
	if (ret == -EINVAL)
		return ftp_short_or_bad(pos, len);
	if (ret < 0)
		return -EINVAL;
	pos += used;
	if (pos >= len)
		return -EAGAIN;
	if (buf[pos] != delim || v == 0)
		return -EINVAL;
	*port = (uint16_t)v;
	*end = pos + 1;
	return 0;
}

/* h1,h2,h3,h4,p1,p2 already split into bytes, text at [start, end). */
static int ftp_set_rfc959(struct ftp_cmd *cmd, const uint8_t v[6],
			  size_t start, size_t end)
{
	uint16_t port = (uint16_t)(v[4] << 8 | v[5]);

	/* The kernel would expect port 0; nobody can listen there. */
	if (port == 0)
		return -EINVAL;
	cmd->family = AF_INET;
	memset(&cmd->addr, 0, sizeof(cmd->addr));
	memcpy(cmd->addr.raw, v, 4);
	cmd->port = port;
	cmd->off = start;
	cmd->len = end - start;
	return 0;
}

static int ftp_args_port(const uint8_t *buf, size_t len, size_t pos,
			 int family, struct ftp_cmd *cmd)
{
	uint8_t v[6];
	size_t end;
	int ret;

	(void)family;
	ret = ftp_parse_bytes(buf, len, pos, ',', v, 6, &end);
	if (ret < 0)
		return ret;
	/* Like the kernel: the numbers must end the command (CRLF). */
	if (buf[end] != '\r')
		return -EINVAL;
	return ftp_set_rfc959(cmd, v, pos, end);
}

/*
 * RFC 1123 4.1.2.6: the 227 text is not standardised, parentheses may be
 * missing, so the numbers start at the first digit after "227 ".
 */
static int ftp_args_pasv(const uint8_t *buf, size_t len, size_t pos,
			 int family, struct ftp_cmd *cmd)
{
	size_t line = pos + cth_line_len(buf + pos, len - pos);
	size_t start = pos;
	uint8_t v[6];
	size_t end;
	int ret;

	(void)family;
	while (start < line && !ftp_is_digit(buf[start]))
		start++;
	if (start == line)
		return ftp_short_or_bad(line, len);
	ret = ftp_parse_bytes(buf, len, start, ',', v, 6, &end);
	if (ret < 0)
		return ret;
	/* Any terminator will do, but not a seventh number. */
	if (buf[end] == ',')
		return -EINVAL;
	return ftp_set_rfc959(cmd, v, start, end);
}

/* RFC 2428: any printable ASCII but digits may delimit. */
static bool ftp_delim_ok(uint8_t c)
{
	return c >= 33 && c <= 126 && !ftp_is_digit(c);
}

/* The address of an EPRT, from pos up to delim; *end is at the delim. */
static int ftp_parse_eprt_addr(const uint8_t *buf, size_t len, size_t pos,
			       uint8_t delim, int family, union cth_addr *addr,
			       size_t *end)
{
	size_t avail = len - pos;
	size_t span = avail < CTH_ADDR_STRLEN ? avail : CTH_ADDR_STRLEN;
	const uint8_t *d;
	uint8_t v[4];
	int ret;

	if (family == AF_INET) {
		/* Numbers, not inet_pton(): the kernel takes leading zeros. */
		ret = ftp_parse_bytes(buf, len, pos, '.', v, 4, end);
		if (ret < 0)
			return ret;
		if (buf[*end] != delim)
			return -EINVAL;
		memset(addr, 0, sizeof(*addr));
		memcpy(addr->raw, v, 4);
		return 0;
	}
	d = span ? memchr(buf + pos, delim, span) : NULL;
	if (!d)
		return avail < CTH_ADDR_STRLEN ? -EAGAIN : -EINVAL;
	*end = (size_t)(d - buf);
	if (cth_addr_parse(AF_INET6, buf + pos, *end - pos, addr) < 0)
		return -EINVAL;
	return 0;
}

/* |1|a.b.c.d|port| or |2|v6|port| with any delimiter. */
static int ftp_args_eprt(const uint8_t *buf, size_t len, size_t pos,
			 int family, struct ftp_cmd *cmd)
{
	uint8_t delim;
	int af;
	size_t end;
	int ret;

	if (pos >= len)
		return -EAGAIN;
	delim = buf[pos];
	if (!ftp_delim_ok(delim))
		return -EINVAL;
	if (pos + 1 >= len)
		return -EAGAIN;
	af = buf[pos + 1] == '1' ? AF_INET : buf[pos + 1] == '2' ? AF_INET6 : 0;
	/* The kernel refuses an address of the other family, too. */
	if (af == 0 || af != family)
		return -EINVAL;
	if (pos + 2 >= len)
		return -EAGAIN;
	if (buf[pos + 2] != delim)
		return -EINVAL;
	ret = ftp_parse_eprt_addr(buf, len, pos + 3, delim, af, &cmd->addr,
				  &end);
	if (ret < 0)
		return ret;
	ret = ftp_parse_port_delim(buf, len, end + 1, delim, &cmd->port, &end);
	if (ret < 0)
		return ret;
	cmd->family = af;
	cmd->off = pos;
	cmd->len = end - pos;
	return 0;
}

/* |||port| with any delimiter; the address is the server's own. */
static int ftp_args_epsv(const uint8_t *buf, size_t len, size_t pos,
			 int family, struct ftp_cmd *cmd)
{
	uint8_t delim;
	size_t end;
	size_t i;
	int ret;

	(void)family;
	if (pos >= len)
		return -EAGAIN;
	delim = buf[pos];
	if (!ftp_delim_ok(delim))
		return -EINVAL;
	for (i = 1; i < 3; i++) {
		if (pos + i >= len)
			return -EAGAIN;
		if (buf[pos + i] != delim)
			return -EINVAL;
	}
	ret = ftp_parse_port_delim(buf, len, pos + 3, delim, &cmd->port, &end);
	if (ret < 0)
		return ret;
	cmd->family = 0;
	memset(&cmd->addr, 0, sizeof(cmd->addr));
	cmd->off = pos;
	cmd->len = end - pos;
	return 0;
}

/* The word matched; find where the arguments start and parse them. */
static int ftp_parse_pattern(const uint8_t *buf, size_t len,
			     const struct ftp_pattern *pat, int family,
			     struct ftp_cmd *cmd)
{
	size_t pos = strlen(pat->word);
	struct ftp_cmd tmp;
	int ret;

	if (pat->skip) {
		size_t line = cth_line_len(buf, len);
		const uint8_t *s = NULL;

		if (line > pos)
			s = memchr(buf + pos, pat->skip, line - pos);
		if (!s)
			return ftp_short_or_bad(line, len);
		pos = (size_t)(s - buf) + 1;
	}
	memset(&tmp, 0, sizeof(tmp));
	tmp.type = pat->type;
	ret = pat->parse_args(buf, len, pos, family, &tmp);
	if (ret < 0)
		return ret;
	*cmd = tmp;
	return 1;
}

int ftp_parse(const uint8_t *buf, size_t len, enum cth_dir dir, int family,
	      struct ftp_cmd *cmd)
{
	const struct ftp_pattern *pats;
	size_t i;

	if (dir != CTH_DIR_ORIGINAL && dir != CTH_DIR_REPLY)
		return 0;
	pats = ftp_patterns[dir];
	for (i = 0; i < sizeof(ftp_patterns[0]) / sizeof(ftp_patterns[0][0]); i++) {
		switch (cth_prefix_match(buf, len, pats[i].word)) {
		case CTH_PREFIX_YES:
			return ftp_parse_pattern(buf, len, &pats[i], family,
						 cmd);
		case CTH_PREFIX_TRUNCATED:
			return -EAGAIN;
		case CTH_PREFIX_NO:
			break;
		}
	}
	return 0;
}

/* Append v in decimal to text[*n..], which holds FTP_FORMAT_MAX bytes. */
static bool ftp_put_uint(char *text, size_t *n, unsigned int v)
{
	int len = cth_format_uint(v, text + *n, FTP_FORMAT_MAX - *n);

	if (len < 0)
		return false;
	*n += (size_t)len;
	return true;
}

/* Written by hand, not with snprintf(): this runs for every announcement
 * under NAT, and stdio costs more than the whole parse. */
int ftp_format(enum ftp_cmd_type type, int family, const union cth_addr *addr,
	       uint16_t port, char *buf, size_t size)
{
	char text[FTP_FORMAT_MAX];
	size_t n = 0;
	int len;

	switch (type) {
	case FTP_CMD_PORT:
	case FTP_CMD_PASV:
		/* h1,h2,h3,h4,p1,p2 */
		if (family != AF_INET)
			return -EINVAL;
		for (size_t i = 0; i < 6; i++) {
			unsigned int v = i < 4 ? addr->raw[i] :
					 i == 4 ? (unsigned int)port >> 8 :
					 (unsigned int)port & 0xffu;

			if (i)
				text[n++] = ',';
			if (!ftp_put_uint(text, &n, v))
				return -EINVAL;
		}
		break;
	case FTP_CMD_EPRT:
		/* |1|a.b.c.d|port| or |2|v6|port| */
		text[n++] = '|';
		text[n++] = family == AF_INET ? '1' : '2';
		text[n++] = '|';
		len = cth_addr_format(family, addr, text + n, sizeof(text) - n);
		if (len < 0)
			return -EINVAL;
		n += (size_t)len;
		text[n++] = '|';
		if (!ftp_put_uint(text, &n, port))
			return -EINVAL;
		text[n++] = '|';
		break;
	case FTP_CMD_EPSV:
		/* |||port| */
		memcpy(text, "|||", 3);
		n = 3;
		if (!ftp_put_uint(text, &n, port))
			return -EINVAL;
		text[n++] = '|';
		break;
	default:
		return -EINVAL;
	}
	if (n >= size)
		return -ENOSPC;
	memcpy(buf, text, n);
	buf[n] = '\0';
	return (int)n;
}
