/* SPDX-License-Identifier: MIT */
/*
 * The match rules as the worker applies them (server/worker/prefilter.c):
 * what reaches the plugin over UDP and TCP, the open-line rule that keeps
 * the plugin's "a segment after skipped ones starts a line" true, the
 * segment that continues a passed open line, NAT_ALL, and the table's
 * bound and age.
 */
#include <netinet/in.h>
#include <string.h>

#include "check.h"
#include "worker/prefilter.h"

static struct cthd_rules rules;

static void rules_ftp(void)
{
	static const char *const pre[] = { "PORT ", "227 " };

	memset(&rules, 0, sizeof(rules));
	for (unsigned int i = 0; i < 2; i++)
		cthd_rule_set(&rules.rule[rules.n++], pre[i], (unsigned int)strlen(pre[i]),
			      CTHD_AT_LINE, CTHD_DIR_ORIGINAL | CTHD_DIR_REPLY);
}

/* A packet of connection id, direction dir, at seq, carrying text. */
static struct cth_packet pkt(uint32_t id, enum cth_dir dir, uint8_t proto, uint32_t seq,
			     const char *text)
{
	struct cth_packet p = { 0 };

	p.payload = (const uint8_t *)text;
	p.payload_len = strlen(text);
	p.dir = dir;
	p.seq = seq;
	p.ct_id = id;
	p.tuple[CTH_DIR_ORIGINAL].proto = proto;
	p.tuple[CTH_DIR_ORIGINAL].family = 2;
	p.tuple[CTH_DIR_ORIGINAL].sport = (uint16_t)id;
	return p;
}

static bool wanted(struct prefilter *f, struct cth_packet p, uint64_t now)
{
	bool ev;

	return prefilter_wanted(f, &rules, &p, now, &ev);
}

int main(void)
{
	struct prefilter f = { 0 };
	struct cth_packet p;
	bool ev;
	unsigned int passed;

	rules_ftp();
	CHECK("prefilter/no-rules", prefilter_wanted(&f, NULL, &(struct cth_packet){ 0 }, 0, &ev),
	      "a helper without rules must see every packet");
	CHECK("prefilter/udp-match", wanted(&f, pkt(1, CTH_DIR_ORIGINAL, IPPROTO_UDP, 0, "port 1,2"), 0),
	      "a datagram starting with a prefix, case-insensitively");
	CHECK("prefilter/udp-skip", !wanted(&f, pkt(1, CTH_DIR_ORIGINAL, IPPROTO_UDP, 0, "NOOP"), 0),
	      "a datagram of no rule (no line end needed)");
	CHECK("prefilter/tcp-line-skip", !wanted(&f, pkt(2, CTH_DIR_ORIGINAL, IPPROTO_TCP, 100, "NOOP\r\n"), 0),
	      "a whole line of no rule");
	CHECK("prefilter/tcp-later-line", wanted(&f, pkt(2, CTH_DIR_ORIGINAL, IPPROTO_TCP, 106,
						       "NOOP\r\nPORT 1,2,3,4,5,6\r\n"), 0),
	      "a rule at a later line start");
	CHECK("prefilter/tcp-reply", wanted(&f, pkt(2, CTH_DIR_REPLY, IPPROTO_TCP, 7,
						  "227 Entering Passive Mode (1,2,3,4,5,6)\r\n"), 0),
	      "the reply direction");

	/* a line left open: passed, and so is its rest; then filtering again */
	CHECK("prefilter/tcp-open-passed", wanted(&f, pkt(3, CTH_DIR_ORIGINAL, IPPROTO_TCP, 1000, "SITE x"), 0),
	      "a segment ending inside a line goes to the plugin");
	CHECK("prefilter/tcp-open-other-dir", !wanted(&f, pkt(3, CTH_DIR_REPLY, IPPROTO_TCP, 50, "200 ok\r\n"), 0),
	      "the other direction's lines are its own");
	CHECK("prefilter/tcp-open-other-conn", !wanted(&f, pkt(4, CTH_DIR_ORIGINAL, IPPROTO_TCP, 1006, "NOOP\r\n"), 0),
	      "another connection's lines are its own");
	CHECK("prefilter/tcp-continuation", wanted(&f, pkt(3, CTH_DIR_ORIGINAL, IPPROTO_TCP, 1006, "yz\r\n"), 0),
	      "the rest of an open line goes too");
	CHECK("prefilter/tcp-after-continuation", !wanted(&f, pkt(3, CTH_DIR_ORIGINAL, IPPROTO_TCP, 1010, "NOOP\r\n"), 0),
	      "the line after it is filtered again");
	CHECK("prefilter/tcp-partial-prefix", wanted(&f, pkt(5, CTH_DIR_ORIGINAL, IPPROTO_TCP, 1, "NOOP\r\nPO"), 0),
	      "an open line that may become a rule's");

	/* kept bytes: the next segment goes whatever it holds, once */
	memset(&f, 0, sizeof(f));
	p = pkt(8, CTH_DIR_ORIGINAL, IPPROTO_TCP, 500, "227 x\r\nVia: a\r\n");
	passed = wanted(&f, p, 0);
	prefilter_kept(&f, &p, 0);
	passed += wanted(&f, pkt(8, CTH_DIR_ORIGINAL, IPPROTO_TCP, 500 + (uint32_t)p.payload_len,
				 "From: b\r\nContent-Length: 0\r\n\r\n"), 0);
	passed += !wanted(&f, pkt(8, CTH_DIR_ORIGINAL, IPPROTO_TCP, 900, "From: c\r\n"), 0);
	CHECK("prefilter/tcp-kept-next", passed == 3,
	      "the start line, the rest of the headers the plugin kept, then filtered (%u of 3)",
	      passed);
	memset(&f, 0, sizeof(f));
	CHECK("prefilter/udp-kept-nothing", !prefilter_kept(&f, &(struct cth_packet){ 0 }, 0) &&
	      f.used == 0, "a datagram leaves no entry (used %u)", f.used);

	/* the table: entries age out, the oldest goes when full */
	memset(&f, 0, sizeof(f));
	wanted(&f, pkt(6, CTH_DIR_ORIGINAL, IPPROTO_TCP, 0, "SITE"), 0);
	CHECK("prefilter/ttl", !wanted(&f, pkt(6, CTH_DIR_ORIGINAL, IPPROTO_TCP, 4, "x\r\n"),
				      PREFILTER_TTL_MS + 1) && f.used == 0,
	      "an open line waits PREFILTER_TTL_MS at most (used %u)", f.used);
	memset(&f, 0, sizeof(f));
	for (unsigned int i = 0; i < PREFILTER_ENTRIES; i++) {
		p = pkt(100 + i, CTH_DIR_ORIGINAL, IPPROTO_TCP, 0, "SITE");
		prefilter_wanted(&f, &rules, &p, 10 + i, &ev);
	}
	p = pkt(99, CTH_DIR_ORIGINAL, IPPROTO_TCP, 0, "SITE");
	prefilter_wanted(&f, &rules, &p, 1000, &ev);
	CHECK("prefilter/full-evicts-oldest", ev && f.used == PREFILTER_ENTRIES && f.evictions == 1 &&
	      !wanted(&f, pkt(100, CTH_DIR_ORIGINAL, IPPROTO_TCP, 4, "x\r\n"), 1001) &&
	      wanted(&f, pkt(101, CTH_DIR_ORIGINAL, IPPROTO_TCP, 4, "x\r\n"), 1001),
	      "evicted %d used %u evictions %lu", ev, f.used, f.evictions);

	/* NAT_ALL: every packet of a NATed connection */
	rules.flags = CTHD_MATCH_F_NAT_ALL;
	p = pkt(7, CTH_DIR_ORIGINAL, IPPROTO_UDP, 0, "OPTIONS sip:x SIP/2.0\r\n");
	passed = prefilter_wanted(&f, &rules, &p, 0, &ev);
	p.nat = CTH_NAT_SRC;
	passed += prefilter_wanted(&f, &rules, &p, 0, &ev);
	CHECK("prefilter/nat-all", passed == 1, "un-NATed skipped, NATed passed (%u passed)", passed);
	return check_exit();
}
