/* SPDX-License-Identifier: MIT */
/*
 * One IRC line: is it a CTCP DCC offer (PRIVMSG or NOTICE whose text is
 * "\1DCC TYPE ARGUMENT ADDRESS PORT ...\1"), and where are its address and
 * port.  Behaviour is described in docs/plugins/irc.md.
 */
#ifndef CTH_IRC_PARSE_H
#define CTH_IRC_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cthelperd/plugin.h>

/* How the offer wrote its address: a NAT rewrite writes it the same way. */
enum irc_addr_form {
	IRC_ADDR_DECIMAL, /* IPv4 as one 32-bit decimal number (the DCC norm) */
	IRC_ADDR_DOTTED,  /* IPv4 dotted quad (some clients) */
	IRC_ADDR_TEXT6,   /* IPv6 in its text form */
};

/* What irc_parse_line() returns besides a negative errno. */
enum irc_parse_ret {
	IRC_PARSE_NONE = 0,  /* not a DCC offer that names an address */
	IRC_PARSE_DCC = 1,   /* a DCC offer: the struct irc_dcc is filled */
	IRC_PARSE_MORE = 2,  /* incomplete line: it may still become one */
};

/* Bytes [off, off + len) of the payload. */
struct irc_span {
	size_t off;
	size_t len;
};

struct irc_dcc {
	char type[8];            /* SEND, CHAT, ... as the table spells it */
	int family;              /* AF_INET or AF_INET6: the address text's */
	enum irc_addr_form form;
	union cth_addr addr;     /* network byte order */
	uint16_t port;           /* 0: a passive (reverse) offer */
	struct irc_span addr_text;
	struct irc_span port_text;
	const char *why;         /* for -EINVAL: what is wrong */
};

/*
 * Parse the line at buf[off], len bytes without its '\n' (a '\r' before it
 * is ignored).  complete: false when the line's end has not arrived yet.
 * Returns enum irc_parse_ret, or -EINVAL for a DCC offer that is malformed
 * (dcc->why says how).  Offsets in dcc count from buf.
 */
int irc_parse_line(const uint8_t *buf, size_t off, size_t len, bool complete,
		   struct irc_dcc *dcc);

#endif
