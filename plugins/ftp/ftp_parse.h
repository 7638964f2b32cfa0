/* SPDX-License-Identifier: MIT */
/*
 * FTP control channel text: recognise the commands and replies that announce
 * a data connection, and format their NAT replacements.  Pure functions, no
 * host calls, so the unit tests drive them directly.
 */
#ifndef CTH_FTP_PARSE_H
#define CTH_FTP_PARSE_H

#include <stddef.h>
#include <stdint.h>

#include <cthelperd/plugin.h>
#include <cthelperd/util.h>

/* What announced the data connection. */
enum ftp_cmd_type {
	FTP_CMD_PORT, /* client: PORT h1,h2,h3,h4,p1,p2 */
	FTP_CMD_EPRT, /* client: EPRT |af|addr|port| (RFC 2428) */
	FTP_CMD_PASV, /* server: 227 ... h1,h2,h3,h4,p1,p2 */
	FTP_CMD_EPSV, /* server: 229 ... (|||port|) (RFC 2428) */
};

/* A recognised announcement. */
struct ftp_cmd {
	enum ftp_cmd_type type;
	int family;          /* of addr; 0 for EPSV, which names no address */
	union cth_addr addr; /* announced address, network byte order */
	uint16_t port;       /* announced port, host order, never 0 */
	size_t off;          /* payload offset of the text NAT rewrites */
	size_t len;          /* and its length */
};

/* Big enough for any text ftp_format() writes, NUL included. */
#define FTP_FORMAT_MAX (sizeof("|2||65535|") + CTH_ADDR_STRLEN)

/*
 * Parse the command (dir ORIGINAL) or reply (dir REPLY) at the very start
 * of buf, like the kernel helper, which only looks at a packet's first line.
 * family is the connection's: an EPRT must announce the same family.
 *
 * Returns 1 with *cmd filled; 0 when buf does not start with anything this
 * helper tracks; -EAGAIN when buf ends inside a tracked command (split over
 * packets); -EINVAL when a tracked command is malformed.  The kernel drops
 * the packet in both error cases.
 */
int ftp_parse(const uint8_t *buf, size_t len, enum cth_dir dir, int family,
	      struct ftp_cmd *cmd);

/*
 * Write the argument text for a command of this type announcing addr:port,
 * the way the NAT helper rewrites it: "h1,h2,h3,h4,p1,p2" for PORT/227,
 * "|1|a.b.c.d|port|" or "|2|v6addr|port|" for EPRT, "|||port|" for 229.
 * Returns the length written (NUL not counted), -EINVAL for an address
 * family the command cannot carry, -ENOSPC when size is too small.
 */
int ftp_format(enum ftp_cmd_type type, int family, const union cth_addr *addr,
	       uint16_t port, char *buf, size_t size);

/* Printable name of a command type, for logs. */
const char *ftp_cmd_name(enum ftp_cmd_type type);

#endif /* CTH_FTP_PARSE_H */
