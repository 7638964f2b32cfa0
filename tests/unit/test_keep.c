/* SPDX-License-Identifier: MIT */
/*
 * Kept bytes (cth_keep, server/host/keep.c) through the host code the worker
 * runs: keep_join(), the plugin call (pkt_call_run), keep_done().  A
 * scripted plugin records what it was shown and keeps, edits, detaches or
 * drops as each case asks.  Covers the concatenation, the sequence rule
 * (a segment that does not follow drops the bytes), single use, expiry,
 * the table bound, edits around the kept bytes (refused inside them,
 * offsets translated after them, the packet checked independently), the
 * refusals (UDP, truncated, too large, bad offset, a host without it), a
 * dropped packet, detach, SYN data and chaining over three segments.
 *
 * Every packet is a heap block of exactly its length (AddressSanitizer
 * sees a read past it).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <netinet/udp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "check.h"
#include "host/call.h"
#include "host/keep.h"
#include "host/packet.h"
#include "runtime/stats.h"
#include "../fuzz/pktcheck.h"

/* ------------------------------------------------------------ plugin */

/* What the plugin does with the next packet. */
static struct act {
	long keep;             /* offset for cth_keep(), -1: none */
	bool mangle;
	size_t m_off, m_len;
	const char *m_repl;
	bool detach;
	bool drop;
} act;

/* What it saw and got. */
static struct seen {
	bool called;
	size_t kept, kept_read, len;
	uint32_t seq;
	char text[KEEP_BYTES_MAX + 256];
	bool own_at_data;      /* payload + kept == data + payload_offset bytes */
	int keep_rc, mangle_rc;
} seen;

static int keeping_packet(struct cth_ctx *ctx, const struct cth_packet *pkt,
			  void *priv, const void *config)
{
	(void)priv;
	(void)config;
	seen.called = true;
	seen.kept = pkt->kept;
	seen.kept_read = cth_kept(ctx, pkt);
	seen.len = pkt->payload_len;
	seen.seq = pkt->seq;
	memcpy(seen.text, pkt->payload, pkt->payload_len);
	seen.text[pkt->payload_len] = '\0';
	seen.own_at_data = pkt->len - pkt->payload_offset == pkt->payload_len - pkt->kept &&
			   memcmp(pkt->payload + pkt->kept, pkt->data + pkt->payload_offset,
				  pkt->payload_len - pkt->kept) == 0;
	seen.mangle_rc = act.mangle ? cth_mangle(ctx, act.m_off, act.m_len, act.m_repl,
						 strlen(act.m_repl)) : 0;
	seen.keep_rc = act.keep >= 0 ? cth_keep(ctx, (size_t)act.keep) : 0;
	if (act.detach)
		cth_detach(ctx);
	return act.drop ? CTH_VERDICT_DROP : CTH_VERDICT_ACCEPT;
}

static const struct cth_plugin_desc keeping_desc = {
	.abi_version = CTH_ABI_VERSION, .size = sizeof(keeping_desc),
	.name = "keeping", .n_classes = 1, .packet = keeping_packet,
};
static const struct plugin keeping_pl = { .desc = &keeping_desc };
static const struct instance keeping_inst = { .name = "keeping",
					      .pl = &keeping_pl, .n_classes = 1 };

/* ------------------------------------------------------------ packets */

/* How a test packet differs from the default (TCP, conntrack id 1,
 * original direction, no NAT, ACK only). */
struct seg {
	uint32_t id;
	enum cth_dir dir;
	bool udp, truncated, syn, nat;
	size_t ip_len_extra;      /* the IP length claims this much more */
};

/* An IPv4 TCP/UDP packet client -> server (or back) carrying n bytes. */
static uint8_t *seg_build(const struct seg *s, uint32_t seq, const void *text,
			  size_t n, size_t *lenp)
{
	size_t hl = s->udp ? sizeof(struct udphdr) : sizeof(struct tcphdr);
	size_t len = sizeof(struct iphdr) + hl + n;
	uint8_t *buf = calloc(1, len);
	struct iphdr *ip = (void *)buf;
	bool reply = s->dir == CTH_DIR_REPLY;

	if (!buf)
		abort();
	ip->version = 4;
	ip->ihl = 5;
	ip->ttl = 64;
	ip->protocol = s->udp ? IPPROTO_UDP : IPPROTO_TCP;
	ip->tot_len = htons((uint16_t)(len + s->ip_len_extra));
	ip->saddr = inet_addr(reply ? "10.0.2.2" : "10.0.1.2");
	ip->daddr = inet_addr(reply ? "10.0.1.2" : "10.0.2.2");
	if (s->udp) {
		struct udphdr *uh = (void *)(buf + sizeof(*ip));

		uh->source = htons(reply ? 5060 : 40000);
		uh->dest = htons(reply ? 40000 : 5060);
		uh->len = htons((uint16_t)(hl + n));
	} else {
		struct tcphdr *th = (void *)(buf + sizeof(*ip));

		th->source = htons(reply ? 5060 : 40000);
		th->dest = htons(reply ? 40000 : 5060);
		th->seq = htonl(seq);
		th->doff = 5;
		th->ack = !s->syn;
		th->syn = s->syn;
	}
	memcpy(buf + sizeof(*ip) + hl, text, n);
	*lenp = len;
	return buf;
}

/* The packet the verdict would carry, when mangled. */
static uint8_t out[2048];
static size_t out_len;

/*
 * One queued packet through the worker's steps: join, plugin call with
 * act, done.  now is the monotonic time in ms.  Returns the verdict.
 */
static int deliver_n(struct keep *k, const struct seg *s, uint32_t seq,
		     const void *text, size_t n, uint64_t now)
{
	struct pkt_call c = { .inst = &keeping_inst, .keep = k };
	struct cth_tuple *t = c.pkt.tuple;
	size_t len;
	uint8_t *buf = seg_build(s, seq, text, n, &len);
	const uint8_t *r;
	int v;

	if (pkt_view_parse(&c.pkt, buf, len, AF_INET) < 0)
		abort();
	t[0].family = t[1].family = AF_INET;
	t[0].proto = t[1].proto = s->udp ? IPPROTO_UDP : IPPROTO_TCP;
	t[0].src.ip = t[1].dst.ip = inet_addr("10.0.1.2");
	t[0].dst.ip = t[1].src.ip = inet_addr("10.0.2.2");
	t[0].sport = t[1].dport = 40000;
	t[0].dport = t[1].sport = 5060;
	c.pkt.dir = s->dir;
	c.pkt.ctinfo = s->dir == CTH_DIR_REPLY ? CTH_CT_ESTABLISHED_REPLY
					       : CTH_CT_ESTABLISHED;
	c.pkt.ct_id = s->id ? s->id : 1;
	c.pkt.ct_status = CTH_CT_CONFIRMED | CTH_CT_SEEN_REPLY;
	c.pkt.nat = s->nat ? CTH_NAT_DST : 0;
	c.truncated = s->truncated;
	memset(&seen, 0, sizeof(seen));
	keep_join(k, &c, now);
	v = pkt_call_run(&c, NULL, 0);
	keep_done(k, &c, v, now);
	out_len = 0;
	r = pkt_call_mangled(&c, &len);
	if (r && len <= sizeof(out)) {
		memcpy(out, r, len);
		out_len = len;
	}
	pkt_call_release(&c);
	free(buf);
	act = (struct act){ .keep = -1 };
	return v;
}

static int deliver(struct keep *k, const struct seg *s, uint32_t seq,
		   const char *text, uint64_t now)
{
	return deliver_n(k, s, seq, text, strlen(text), now);
}

static const struct seg tcp = { 0 };

/* ------------------------------------------------------------ cases */

static void test_join(void)
{
	struct keep k = { 0 };

	act = (struct act){ .keep = 6 };
	deliver(&k, &tcp, 1000, "OK 1\r\nINVITE sip:a", 1);
	CHECK("keep/returns-0", seen.keep_rc == 0 && k.used == 1,
	      "rc %d, %u entries", seen.keep_rc, k.used);
	deliver(&k, &tcp, 1018, "@b SIP/2.0\r\n", 2);
	CHECK("keep/next-segment-sees-concatenation",
	      strcmp(seen.text, "INVITE sip:a@b SIP/2.0\r\n") == 0 && seen.kept == 12 &&
	      seen.len == 24, "saw '%s', kept %zu, len %zu", seen.text, seen.kept, seen.len);
	CHECK("keep/seq-is-the-segment's", seen.seq == 1018, "seq %u", seen.seq);
	CHECK("keep/own-payload-after-kept", seen.own_at_data,
	      "payload + kept is not the segment's own payload");
	CHECK("keep/cth_kept-reads-it", seen.kept_read == 12, "cth_kept %zu", seen.kept_read);
	CHECK("keep/used-up", k.used == 0, "%u entries left", k.used);
	deliver(&k, &tcp, 1030, "more\r\n", 3);
	CHECK("keep/shown-once", seen.kept == 0 && strcmp(seen.text, "more\r\n") == 0,
	      "third segment saw '%s' (kept %zu)", seen.text, seen.kept);
	keep_free(&k);
}

/* Only the very next segment: a retransmission (same seq), a gap or a
 * reordering drops the bytes, and the segment is shown alone. */
static void test_seq(void)
{
	struct keep k = { 0 };
	static const struct { const char *name; uint32_t seq; } cases[] = {
		{ "keep/retransmission-drops", 1000 },
		{ "keep/gap-drops", 1015 },
		{ "keep/earlier-drops", 1009 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		act = (struct act){ .keep = 4 };
		deliver(&k, &tcp, 1000, "abcdefghij", 1);
		deliver(&k, &tcp, cases[i].seq, "XYZ", 2);
		CHECK(cases[i].name, seen.kept == 0 && strcmp(seen.text, "XYZ") == 0 &&
		      k.used == 0, "seq %u saw '%s' (kept %zu), %u entries",
		      cases[i].seq, seen.text, seen.kept, k.used);
		/* and the segment that would have followed no longer joins */
		deliver(&k, &tcp, 1010, "klm", 3);
		CHECK("keep/dropped-for-good", seen.kept == 0,
		      "kept %zu after a drop", seen.kept);
	}
	CHECK("keep/misses-counted", k.misses == 3, "misses %lu", k.misses);
	/* sequence numbers wrap */
	act = (struct act){ .keep = 0 };
	deliver(&k, &tcp, 0xfffffffeu, "abcd", 1);
	deliver(&k, &tcp, 2, "ef", 2);
	CHECK("keep/seq-wraps", seen.kept == 4 && strcmp(seen.text, "abcdef") == 0,
	      "saw '%s'", seen.text);
	keep_free(&k);
}

/* The other direction and other connections do not see the bytes. */
static void test_key(void)
{
	struct keep k = { 0 };
	struct seg reply = { .dir = CTH_DIR_REPLY }, other = { .id = 2 };

	act = (struct act){ .keep = 0 };
	deliver(&k, &tcp, 500, "half", 1);
	deliver(&k, &reply, 504, "answer", 2);
	CHECK("keep/other-direction-not-joined", seen.kept == 0, "kept %zu", seen.kept);
	deliver(&k, &other, 504, "other", 3);
	CHECK("keep/other-connection-not-joined", seen.kept == 0, "kept %zu", seen.kept);
	deliver(&k, &tcp, 504, "-done", 4);
	CHECK("keep/own-direction-joined", strcmp(seen.text, "half-done") == 0,
	      "saw '%s'", seen.text);
	keep_free(&k);
}

static void test_expiry(void)
{
	struct keep k = { 0 };

	act = (struct act){ .keep = 0 };
	deliver(&k, &tcp, 1, "abc", 1000);
	deliver(&k, &tcp, 4, "d", 1000 + KEEP_TTL_MS);
	CHECK("keep/within-ttl-joined", seen.kept == 3, "kept %zu", seen.kept);
	act = (struct act){ .keep = 0 };
	deliver(&k, &tcp, 1, "abc", 1000);
	deliver(&k, &tcp, 4, "d", 1000 + KEEP_TTL_MS + 1);
	CHECK("keep/expired-not-joined", seen.kept == 0 && k.used == 0 && k.expired == 1,
	      "kept %zu, %u entries, %lu expired", seen.kept, k.used, k.expired);
	keep_free(&k);
}

/* KEEP_ENTRIES connection directions at most: the oldest goes. */
static void test_bound(void)
{
	static struct stats_block st;
	struct keep k = { .stats = &st };
	struct seg s = { 0 };
	uint32_t id;

	for (id = 1; id <= KEEP_ENTRIES + 1; id++) {
		s.id = id;
		act = (struct act){ .keep = 0 };
		deliver(&k, &s, 100, "x", 1000 + id);
	}
	CHECK("keep/bounded", k.used == KEEP_ENTRIES && k.evictions == 1,
	      "%u entries, %lu evictions", k.used, k.evictions);
	CHECK("keep/eviction-counted", st.q[STATS_Q_KEEP_EVICTED] == 1,
	      "STATS_Q_KEEP_EVICTED %llu", (unsigned long long)st.q[STATS_Q_KEEP_EVICTED]);
	s.id = 1;
	deliver(&k, &s, 101, "y", 2000);
	CHECK("keep/oldest-evicted", seen.kept == 0, "the oldest entry was kept");
	s.id = 2;
	deliver(&k, &s, 101, "y", 2000);
	CHECK("keep/others-stay", seen.kept == 1 && strcmp(seen.text, "xy") == 0,
	      "saw '%s'", seen.text);
	s.id = KEEP_ENTRIES + 1;
	deliver(&k, &s, 101, "y", 2000);
	CHECK("keep/newest-stays", seen.kept == 1, "kept %zu", seen.kept);
	keep_free(&k);
}

/* Edits: offsets in the payload as shown; kept bytes cannot change. */
static void test_mangle(void)
{
	static const char want[] = "E SIP:x\r\n";
	struct keep k = { 0 };
	struct seg nat = { .nat = true };
	char why[160];

	act = (struct act){ .keep = 0 };
	deliver(&k, &tcp, 7, "INVIT", 1);
	act = (struct act){ .keep = -1, .mangle = true, .m_off = 2, .m_len = 1, .m_repl = "V" };
	deliver(&k, &tcp, 12, "E sip:x\r\n", 2);
	CHECK("keep/mangle-in-kept-refused", seen.kept == 5 && seen.mangle_rc == -EPERM &&
	      out_len == 0, "kept %zu, rc %d, %zu bytes out", seen.kept, seen.mangle_rc, out_len);

	act = (struct act){ .keep = 0 };
	deliver(&k, &tcp, 7, "INVIT", 1);
	act = (struct act){ .keep = -1, .mangle = true, .m_off = 4, .m_len = 2, .m_repl = "TE" };
	deliver(&k, &tcp, 12, "E sip:x\r\n", 2);
	CHECK("keep/mangle-across-kept-refused", seen.mangle_rc == -EPERM,
	      "rc %d", seen.mangle_rc);

	act = (struct act){ .keep = 0 };
	deliver(&k, &tcp, 7, "INVIT", 1);
	act = (struct act){ .keep = -1, .mangle = true, .m_off = 7, .m_len = 3, .m_repl = "SIP" };
	deliver(&k, &tcp, 12, "E sip:x\r\n", 2);
	CHECK("keep/mangle-after-kept-translated",
	      seen.mangle_rc == 0 && out_len == 40 + sizeof(want) - 1 &&
	      memcmp(out + 40, want, sizeof(want) - 1) == 0,
	      "rc %d, %zu bytes out, payload '%.*s'", seen.mangle_rc, out_len,
	      (int)(out_len > 40 ? out_len - 40 : 0), (const char *)out + 40);
	CHECK("keep/mangled-packet-valid",
	      out_len && pc_packet_ok(out, out_len, 20, IPPROTO_TCP, why, sizeof(why)),
	      "%s", out_len ? why : "no packet");

	/* an insertion right at the kept bytes' end goes in front of this
	 * segment's payload (a length change: NAT only) */
	act = (struct act){ .keep = 0 };
	deliver(&k, &nat, 7, "INVIT", 1);
	act = (struct act){ .keep = -1, .mangle = true, .m_off = 5, .m_len = 0, .m_repl = ">" };
	deliver(&k, &nat, 12, "E", 2);
	CHECK("keep/insert-at-kept-end", seen.mangle_rc == 0 && out_len == 42 &&
	      memcmp(out + 40, ">E", 2) == 0, "rc %d, %zu bytes out",
	      seen.mangle_rc, out_len);

	/* the copy holds the bytes as shown, not as edited */
	act = (struct act){ .keep = 2, .mangle = true, .m_off = 2, .m_len = 2, .m_repl = "XY" };
	deliver(&k, &tcp, 30, "abcd", 1);
	deliver(&k, &tcp, 34, "e", 2);
	CHECK("keep/copy-as-shown", strcmp(seen.text, "cde") == 0, "saw '%s'", seen.text);
	keep_free(&k);
}

static void test_refused(void)
{
	struct keep k = { 0 };
	struct seg udp = { .udp = true }, cut = { .truncated = true },
		   partial = { .ip_len_extra = 100 };
	static char big[KEEP_BYTES_MAX + 2];

	act = (struct act){ .keep = 0 };
	deliver(&k, &udp, 0, "INVITE", 1);
	CHECK("keep/udp-refused", seen.keep_rc == -EOPNOTSUPP && k.used == 0,
	      "rc %d", seen.keep_rc);
	act = (struct act){ .keep = 0 };
	deliver(&k, &cut, 1, "INVITE", 1);
	CHECK("keep/truncated-refused", seen.keep_rc == -EMSGSIZE && k.used == 0,
	      "rc %d", seen.keep_rc);
	act = (struct act){ .keep = 0 };
	deliver(&k, &partial, 1, "INVITE", 1);
	CHECK("keep/partial-copy-refused", seen.keep_rc == -EMSGSIZE && k.used == 0,
	      "rc %d", seen.keep_rc);
	act = (struct act){ .keep = 7 };
	deliver(&k, &tcp, 1, "INVITE", 1);
	CHECK("keep/offset-past-end-refused", seen.keep_rc == -EINVAL && k.used == 0,
	      "rc %d", seen.keep_rc);
	act = (struct act){ .keep = 6 };
	deliver(&k, &tcp, 1, "INVITE", 1);
	CHECK("keep/offset-at-end-keeps-nothing", seen.keep_rc == 0 && k.used == 0,
	      "rc %d, %u entries", seen.keep_rc, k.used);

	memset(big, 'b', sizeof(big));
	act = (struct act){ .keep = 1 };
	deliver_n(&k, &tcp, 1, big, KEEP_BYTES_MAX + 2, 1);
	CHECK("keep/too-large-refused", seen.keep_rc == -ENOSPC && k.used == 0,
	      "rc %d", seen.keep_rc);
	act = (struct act){ .keep = 2 };
	deliver_n(&k, &tcp, 1, big, KEEP_BYTES_MAX + 2, 1);
	CHECK("keep/at-the-bound", seen.keep_rc == 0 && k.used == 1,
	      "rc %d", seen.keep_rc);
	deliver(&k, &tcp, 1 + KEEP_BYTES_MAX + 2, "c", 2);
	CHECK("keep/at-the-bound-joined", seen.kept == KEEP_BYTES_MAX &&
	      seen.len == KEEP_BYTES_MAX + 1 && seen.text[KEEP_BYTES_MAX] == 'c',
	      "kept %zu", seen.kept);
	keep_free(&k);
}

/* A host without the table (the replay tool may offer none), and a host
 * older than cth_keep() (its table ends before keep). */
static void test_unsupported(void)
{
	struct keep k = { 0 };
	struct pkt_call c = { .inst = &keeping_inst };
	const struct cth_host old = { .abi_version = CTH_ABI_VERSION,
				      .size = offsetof(struct cth_host, keep) };
	struct cth_ctx ctx = { .host = &old };
	struct cth_packet p = { .kept = 99 };
	size_t len;
	uint8_t *buf = seg_build(&tcp, 1, "abc", 3, &len);

	pkt_view_parse(&c.pkt, buf, len, AF_INET);
	c.pkt.tuple[0].proto = IPPROTO_TCP;
	act = (struct act){ .keep = 0 };
	pkt_call_run(&c, NULL, 0);
	CHECK("keep/no-table-unsupported", seen.keep_rc == -EOPNOTSUPP,
	      "rc %d", seen.keep_rc);
	pkt_call_release(&c);
	free(buf);
	CHECK("keep/old-host-unsupported", cth_keep(&ctx, 0) == -EOPNOTSUPP,
	      "cth_keep on a host without it");
	CHECK("keep/old-host-kept-0", cth_kept(&ctx, &p) == 0,
	      "cth_kept read a field an old host does not have");
	act = (struct act){ .keep = -1 };
	keep_free(&k);
}

/* A dropped packet keeps nothing; bytes it was shown wait for its
 * retransmission.  A detach drops both directions. */
static void test_drop_detach(void)
{
	struct keep k = { 0 };
	struct seg reply = { .dir = CTH_DIR_REPLY };

	act = (struct act){ .keep = 0, .drop = true };
	deliver(&k, &tcp, 1, "abc", 1);
	CHECK("keep/dropped-packet-keeps-nothing", seen.keep_rc == 0 && k.used == 0,
	      "rc %d, %u entries", seen.keep_rc, k.used);

	act = (struct act){ .keep = 0 };
	deliver(&k, &tcp, 1, "abc", 1);
	act = (struct act){ .keep = -1, .drop = true };
	deliver(&k, &tcp, 4, "def", 2);
	CHECK("keep/dropped-packet-was-joined", seen.kept == 3, "kept %zu", seen.kept);
	deliver(&k, &tcp, 4, "def", 3);
	CHECK("keep/retransmission-of-dropped-joins", seen.kept == 3 &&
	      strcmp(seen.text, "abcdef") == 0 && k.used == 0, "saw '%s'", seen.text);

	act = (struct act){ .keep = 0 };
	deliver(&k, &tcp, 10, "req", 1);
	act = (struct act){ .keep = 0 };
	deliver(&k, &reply, 50, "ans", 1);
	act = (struct act){ .keep = -1, .detach = true };
	deliver(&k, &tcp, 13, "x", 2);
	CHECK("keep/detach-drops-both-directions", k.used == 0, "%u entries", k.used);
	keep_free(&k);
}

/* A SYN's data (TCP Fast Open) starts one after its sequence number. */
static void test_syn(void)
{
	struct keep k = { 0 };
	struct seg syn = { .syn = true };

	act = (struct act){ .keep = 0 };
	deliver(&k, &syn, 100, "REG", 1);
	deliver(&k, &tcp, 104, "ISTER", 2);
	CHECK("keep/syn-data-next-seq", strcmp(seen.text, "REGISTER") == 0,
	      "saw '%s'", seen.text);
	keep_free(&k);
}

/* A message over three segments: keep, then keep everything again. */
static void test_chain(void)
{
	struct keep k = { 0 };

	act = (struct act){ .keep = 4 };
	deliver(&k, &tcp, 1, "end\nMES", 1);
	act = (struct act){ .keep = 0 };
	deliver(&k, &tcp, 8, "SAGE ", 2);
	CHECK("keep/chain-second", seen.kept == 3 && strcmp(seen.text, "MESSAGE ") == 0,
	      "saw '%s'", seen.text);
	deliver(&k, &tcp, 13, "done\n", 3);
	CHECK("keep/chain-third", seen.kept == 8 &&
	      strcmp(seen.text, "MESSAGE done\n") == 0, "saw '%s'", seen.text);
	keep_free(&k);
}

int main(void)
{
	act = (struct act){ .keep = -1 };
	test_join();
	test_seq();
	test_key();
	test_expiry();
	test_bound();
	test_mangle();
	test_refused();
	test_unsupported();
	test_drop_detach();
	test_syn();
	test_chain();
	return check_exit();
}
