/* SPDX-License-Identifier: MIT */
/*
 * Pure parsing for the rpc plugin: ONC RPC call and reply headers (RFC
 * 5531), the portmapper v2 GETPORT and rpcbind v3/v4 GETADDR/GETVERSADDR
 * arguments and results (RFC 1833), universal addresses (RFC 5665) and
 * the TCP record marking (RFC 5531 section 11).  No host calls: unit
 * tested and fuzzed on their own.  Every length read from the wire is
 * checked against the bytes really there before it is used.
 */
#ifndef CTH_RPC_PARSE_H
#define CTH_RPC_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cthelperd/plugin.h>

#define RPC_PMAP_PROG 100000u /* portmapper / rpcbind */
#define RPC_PROC_GETADDR 3u   /* v2 GETPORT has the same number */
#define RPC_PROC_GETVERSADDR 9u
#define RPC_AUTH_MAX 400u     /* RFC 5531: opaque_auth body<400> */

/* Largest message looked into.  Calls carry at most 2 x 400 bytes of
 * authentication plus short strings; replies are smaller still.  Longer
 * messages (DUMP replies, other procedures) are skipped unread. */
#define RPC_MSG_MAX 2048u

/* Longest universal address accepted: IPv6 text (45) + ".255.255". */
#define RPC_UADDR_MAX 64u

/* A TCP record declaring more than this is not taken as RPC at all. */
#define RPC_RECORD_MAX (1u << 24)

#define RPC_MARK_LAST 0x80000000u

enum rpc_msg_type {
	RPC_CALL = 0,
	RPC_REPLY = 1,
};

/* The calls whose replies open something.  Stored in the private state:
 * values fixed. */
enum rpc_kind {
	RPC_KIND_NONE = 0,
	RPC_KIND_GETPORT = 1,     /* portmapper v2 GETPORT: a port number */
	RPC_KIND_GETADDR3 = 2,    /* rpcbind v3 GETADDR: a universal address */
	RPC_KIND_GETADDR4 = 3,    /* rpcbind v4 GETADDR */
	RPC_KIND_GETVERSADDR = 4, /* rpcbind v4 GETVERSADDR */
	RPC_KIND_MAX = RPC_KIND_GETVERSADDR,
};

/* A call of interest. */
struct rpc_call {
	uint32_t xid;
	enum rpc_kind kind;
	uint8_t proto;   /* IPPROTO_TCP or IPPROTO_UDP, as the call asks */
	uint8_t family;  /* the netid's AF_INET / AF_INET6; 0 for GETPORT */
	uint32_t prog;   /* the program asked about (for logs) */
	uint32_t vers;
};

/* A reply's header. */
struct rpc_reply {
	uint32_t xid;
	bool success;    /* MSG_ACCEPTED and SUCCESS: a result follows */
	uint32_t stat;   /* reply_stat, or accept_stat when accepted */
	size_t res_off;  /* the result's offset in the message (success) */
};

/* A universal address result. */
struct rpc_uaddr {
	size_t len_off;  /* offset of the string's XDR length word */
	size_t str_off;  /* offset of the text */
	size_t str_len;  /* its length; 0: the program is not registered */
	size_t padded;   /* str_len rounded up to 4: the bytes it occupies */
	union cth_addr addr;
	uint16_t port;
};

/* One record of a TCP stream, from the mark at start. */
struct rpc_record {
	size_t start;     /* offset of its first mark */
	size_t end;       /* complete: offset after its last fragment */
	size_t msg_len;   /* bytes the marks seen so far declare */
	unsigned int n_frag;
	/* incomplete: */
	bool mark_cut;    /* the stream ends inside a mark, at frag_end */
	size_t frag_end;  /* where the cut fragment (or the cut mark) ends/starts */
	bool frag_last;   /* the cut fragment is the record's last */
};

/* Big-endian 32-bit word at p. */
uint32_t rpc_get32(const uint8_t *p);
void rpc_put32(uint8_t *p, uint32_t v);

/* xid and msg_type of a message.  0 or -EINVAL (shorter than 8 bytes). */
int rpc_msg_head(const uint8_t *msg, size_t len, uint32_t *xid, uint32_t *type);

/* A CALL: 1 one of ours (c filled), 0 another call, -EINVAL malformed
 * (a length beyond the message, or bytes left after the arguments). */
int rpc_call_parse(const uint8_t *msg, size_t len, struct rpc_call *c);

/* A REPLY's header.  0 (r filled; r->success says whether a result
 * follows), -EINVAL malformed or not a reply. */
int rpc_reply_parse(const uint8_t *msg, size_t len, struct rpc_reply *r);

/* GETPORT's result: exactly one word up to the end, at most 65535.
 * 0 or -EINVAL. */
int rpc_port_result(const uint8_t *msg, size_t len, const struct rpc_reply *r,
		    uint16_t *port);

/* GETADDR's result: one string up to the end, empty or a universal
 * address of family.  0 or -EINVAL. */
int rpc_uaddr_result(const uint8_t *msg, size_t len, const struct rpc_reply *r,
		     int family, struct rpc_uaddr *u);

/* "h1.h2.h3.h4.p1.p2" or "x:x::x.p1.p2" of exactly len bytes. 0 or -EINVAL. */
int rpc_uaddr_parse(int family, const char *text, size_t len, union cth_addr *addr,
		    uint16_t *port);

/* The universal address of addr:port.  Its length, or a negative errno. */
int rpc_uaddr_format(int family, const union cth_addr *addr, uint16_t port, char *buf,
		     size_t size);

/* The netid string of an rpcbind call: 0 (proto and family set) for
 * "tcp", "udp", "tcp6", "udp6"; -ENOENT for any other. */
int rpc_netid_parse(const uint8_t *text, size_t len, uint8_t *proto, uint8_t *family);

/* The record whose first mark is at off: 0 complete, -EAGAIN it goes on
 * past len (r says how), -EINVAL a length no RPC peer sends. */
int rpc_record_scan(const uint8_t *buf, size_t len, size_t off, struct rpc_record *r);

/* Copy a complete record's message (its fragments without their marks)
 * into dst; returns the bytes copied (at most size). */
size_t rpc_record_copy(const uint8_t *buf, const struct rpc_record *r, uint8_t *dst,
		       size_t size);

/* "GETPORT", "GETADDR v3", ... */
const char *rpc_kind_name(enum rpc_kind kind);

#endif /* CTH_RPC_PARSE_H */
