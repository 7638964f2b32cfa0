/* SPDX-License-Identifier: (GPL-2.0 OR MIT) */
/*
 * The packet filter of kmod/ (issue 34): which packets of a helped
 * connection are worth the trip to user space.  A plugin declares up to
 * CTHD_MATCH_MAX rules (plugin.h struct cth_match); the daemon carries
 * them to the module in its own attribute of NFNL_MSG_CTHELPER_NEW; the
 * module queues a packet with payload only when one rule's prefix starts
 * the payload or a line of it.
 *
 * One source of truth: pure C, no kernel or libc function, included by
 * the module (cthelperd_nfnl.c), by the daemon (the wire numbers), by
 * cthelper-replay (--filter: only what the module would queue reaches
 * the plugin), and by the unit and fuzz tests of the matcher.
 */
#ifndef CTHD_MATCH_H
#define CTHD_MATCH_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#endif

/* Most rules per helper, and the longest prefix (plugin.h has the same). */
#define CTHD_MATCH_MAX 16
#define CTHD_MATCH_LEN 16

/*
 * kmod/ keeps two bytes of its own per connection, one per direction, at
 * the end of the conntrack's helper area (32 bytes: nf_conn_help::data);
 * a helper whose private state is longer gets no filter.
 */
#define CTHD_HELP_AREA 32
#define CTHD_MATCH_PRIV_MAX (CTHD_HELP_AREA - 2)

/*
 * The attribute on NFNL_MSG_CTHELPER_NEW, far above the uapi's NFCTH_MAX
 * (6 in Linux 6.1), so that a later in-tree attribute does not collide;
 * nfnetlink parses at most NFNL_MAX_ATTR_COUNT (32) types.  The in-tree
 * module ignores it (docs/architecture.md, "The filter attribute").
 */
#define CTHD_NFCTH_MATCH 24

/* Inside CTHD_NFCTH_MATCH (NLA_F_NESTED). */
enum cthd_match_attr {
	CTHD_MATCH_A_UNSPEC,
	CTHD_MATCH_A_FLAGS,	/* u32, network order: CTHD_MATCH_F_* */
	CTHD_MATCH_A_RULE,	/* nested, once per rule, in order */
	__CTHD_MATCH_A_MAX
};
#define CTHD_MATCH_A_MAX (__CTHD_MATCH_A_MAX - 1)

/* Inside each CTHD_MATCH_A_RULE (NLA_F_NESTED). */
enum cthd_rule_attr {
	CTHD_RULE_A_UNSPEC,
	CTHD_RULE_A_PREFIX,	/* 1..CTHD_MATCH_LEN bytes, no NUL */
	CTHD_RULE_A_AT,		/* u8: CTHD_AT_* */
	CTHD_RULE_A_DIRS,	/* u8: CTHD_DIR_* bits */
	__CTHD_RULE_A_MAX
};
#define CTHD_RULE_A_MAX (__CTHD_RULE_A_MAX - 1)

/* Where a prefix must appear (the SDK's CTH_MATCH_AT_* values). */
enum cthd_at {
	CTHD_AT_START = 0,	/* the payload's first bytes */
	CTHD_AT_LINE = 1,	/* the payload's start, or right after a '\n' */
};

/* Directions a rule applies to (the SDK's CTH_MATCH_* bits). */
enum cthd_dir_bits {
	CTHD_DIR_ORIGINAL = 1u << 0,
	CTHD_DIR_REPLY = 1u << 1,
};

/* Bits of CTHD_MATCH_A_FLAGS (the SDK's CTH_MATCH_NAT_ALL). */
enum cthd_match_flags {
	/* a NATed connection queues every packet with payload */
	CTHD_MATCH_F_NAT_ALL = 1u << 0,
};
#define CTHD_MATCH_F_ALL CTHD_MATCH_F_NAT_ALL

/* One rule as the matcher holds it: the prefix lower-cased. */
struct cthd_rule {
	uint8_t len;
	uint8_t at;
	uint8_t dirs;
	uint8_t prefix[CTHD_MATCH_LEN];
};

struct cthd_rules {
	uint32_t flags;
	unsigned int n;
	struct cthd_rule rule[CTHD_MATCH_MAX];
};

/*
 * The scan of one payload, fed in chunks of any size: the rules that can
 * still match the bytes read since the last candidate start, and how
 * many bytes of it were read.
 */
struct cthd_scan {
	uint16_t line;		/* rules tried at a line start after '\n' */
	uint16_t alive;		/* rules still matching the current candidate */
	uint8_t idx;		/* bytes of the candidate read, <= CTHD_MATCH_LEN */
	bool matched;
};

static inline uint8_t cthd_lower(uint8_t c)
{
	return c >= 'A' && c <= 'Z' ? (uint8_t)(c + ('a' - 'A')) : c;
}

/*
 * Check and store one rule: printable ASCII only (no '\n' can be part of
 * a prefix, so a candidate never spans a line end), 1..CTHD_MATCH_LEN
 * bytes, a known place and a non-empty set of directions.
 */
static inline bool cthd_rule_set(struct cthd_rule *r, const void *prefix,
				 unsigned int len, unsigned int at,
				 unsigned int dirs)
{
	const uint8_t *p = (const uint8_t *)prefix;
	unsigned int i;

	if (len < 1 || len > CTHD_MATCH_LEN || at > CTHD_AT_LINE ||
	    dirs == 0 || (dirs & ~(unsigned int)(CTHD_DIR_ORIGINAL | CTHD_DIR_REPLY)))
		return false;
	for (i = 0; i < len; i++) {
		if (p[i] < 0x20 || p[i] > 0x7e)
			return false;
		r->prefix[i] = cthd_lower(p[i]);
	}
	for (; i < CTHD_MATCH_LEN; i++)
		r->prefix[i] = 0;
	r->len = (uint8_t)len;
	r->at = (uint8_t)at;
	r->dirs = (uint8_t)dirs;
	return true;
}

/*
 * Start the scan of a payload in direction @dir (0 original, 1 reply).
 * @line_start: the payload starts a line (a datagram; a segment after
 * one that ended in '\n'); when false, line rules wait for a '\n'.
 */
static inline void cthd_scan_init(struct cthd_scan *s,
				  const struct cthd_rules *rs,
				  unsigned int dir, bool line_start)
{
	uint16_t start = 0, line = 0;
	unsigned int i, bit = dir ? CTHD_DIR_REPLY : CTHD_DIR_ORIGINAL;

	for (i = 0; i < rs->n && i < CTHD_MATCH_MAX; i++) {
		if (!(rs->rule[i].dirs & bit))
			continue;
		if (rs->rule[i].at == CTHD_AT_LINE)
			line |= (uint16_t)(1u << i);
		else
			start |= (uint16_t)(1u << i);
	}
	s->line = line;
	s->alive = (uint16_t)(start | (line_start ? line : 0));
	s->idx = 0;
	s->matched = false;
}

/* One byte of a candidate against the rules still alive. */
static inline void cthd_scan_byte(struct cthd_scan *s,
				  const struct cthd_rules *rs, uint8_t c)
{
	uint16_t alive = s->alive;
	unsigned int i;

	c = cthd_lower(c);
	for (i = 0; alive >> i; i++) {
		const struct cthd_rule *r = &rs->rule[i];

		if (!(alive & (1u << i)))
			continue;
		if (r->prefix[s->idx] != c) {
			alive &= (uint16_t)~(1u << i);
		} else if (s->idx + 1u == r->len) {
			s->matched = true;
			return;
		}
	}
	s->alive = alive;
	s->idx++;
}

/*
 * Feed @n more payload bytes; true once a rule matched (the caller may
 * stop).  Cost: one comparison per byte, plus the alive rules' for the
 * first CTHD_MATCH_LEN bytes of each candidate.
 */
static inline bool cthd_scan_feed(struct cthd_scan *s,
				  const struct cthd_rules *rs,
				  const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n && !s->matched; i++) {
		if (s->alive && s->idx < CTHD_MATCH_LEN)
			cthd_scan_byte(s, rs, p[i]);
		if (p[i] == '\n') {
			s->alive = s->line;
			s->idx = 0;
		}
	}
	return s->matched;
}

/*
 * The answer once every byte was fed: a match, or a payload that ends
 * inside a prefix that may still match ("POR" then "T 1,2,..." in the
 * next segment): queue when unsure.
 */
static inline bool cthd_scan_end(const struct cthd_scan *s)
{
	return s->matched || (s->alive && s->idx > 0);
}

/* The whole filter on a flat payload (cthelper-replay and the tests). */
static inline bool cthd_match_flat(const struct cthd_rules *rs,
				   unsigned int dir, bool line_start,
				   const uint8_t *p, size_t n)
{
	struct cthd_scan s;

	cthd_scan_init(&s, rs, dir, line_start);
	cthd_scan_feed(&s, rs, p, n);
	return cthd_scan_end(&s);
}

/*
 * The module's byte per connection direction (TCP only: a datagram is a
 * message of its own).  A queued segment that ends inside a line makes the
 * next segment with payload go too: it holds the rest of that line ("PORT
 * 1,2,3," then "4,5,6\r\n"), which the plugin keeps waiting for
 * (cth_keep()).  A segment after one that ended inside a line does not
 * start a line, whatever its first bytes say.
 */
enum cthd_st_bits {
	CTHD_ST_OPEN = 1u << 0,		/* the last payload did not end in '\n' */
	CTHD_ST_QUEUED = 1u << 1,	/* and its packet was queued */
};

/* The segment after a queued one that ended inside a line goes too. */
static inline bool cthd_st_continues(uint8_t st)
{
	return (st & (CTHD_ST_OPEN | CTHD_ST_QUEUED)) ==
	       (CTHD_ST_OPEN | CTHD_ST_QUEUED);
}

static inline bool cthd_st_line_start(uint8_t st, bool tcp)
{
	return !tcp || !(st & CTHD_ST_OPEN);
}

static inline uint8_t cthd_st_next(bool ends_in_nl, bool queued)
{
	return (uint8_t)((ends_in_nl ? 0 : CTHD_ST_OPEN) |
			 (queued ? CTHD_ST_QUEUED : 0));
}

#endif /* CTHD_MATCH_H */
