/* SPDX-License-Identifier: MIT */
/*
 * Payload edits (server/host/edit.c): exact bytes of rewritten IPv4 and IPv6
 * packets (extension headers, IPv4 options), lengths and checksums checked
 * with an independent RFC 1071 implementation (tests/fuzz/pktcheck.h),
 * growth far beyond any fixed tailroom (ASan catches an overrun), the
 * 65531-byte verdict limit, refusal on truncated and GSO packets, UDP
 * checksum 0 sent as 0xffff, several edits in any order, overlaps, and the
 * TCP length rule without NAT.  One case runs through pkt_call_run() with a
 * plugin, the way the worker does.
 *
 * Every packet is copied into a heap block of exactly its length so that
 * AddressSanitizer catches a read past its end.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "check.h"
#include "host/call.h"
#include "host/edit.h"
#include "host/packet.h"
#include "../fuzz/pktcheck.h"

/* ---------------------------------------------------------------- packets */

/* What a test packet looks like, apart from its payload. */
struct shape {
	bool v6;
	uint8_t proto;             /* IPPROTO_TCP or IPPROTO_UDP */
	size_t ip_opts;            /* IPv4 option bytes (NOPs), multiple of 4 */
	const uint8_t *ext;        /* IPv6 extension headers, formatted */
	size_t ext_len;
	uint8_t ext_first;         /* next header of the IPv6 header when ext */
	uint32_t seq;
};

static size_t shape_l4(const struct shape *s)
{
	return s->v6 ? 40 + s->ext_len : 20 + s->ip_opts;
}

/* Build a packet with correct lengths and checksums (computed here). */
static uint8_t *build(const struct shape *s, const void *payload, size_t plen,
		      size_t *len)
{
	size_t l4 = shape_l4(s), hl = s->proto == IPPROTO_TCP ? 20 : 8;
	size_t n = l4 + hl + plen;
	uint8_t *p = calloc(1, n);

	if (!p)
		abort();
	if (s->v6) {
		p[0] = 0x60;
		p[4] = (uint8_t)((n - 40) >> 8);
		p[5] = (uint8_t)(n - 40);
		p[6] = s->ext_len ? s->ext_first : s->proto;
		p[7] = 64;
		p[8] = 0x20; p[9] = 0x01; p[10] = 0x0d; p[11] = 0xb8; p[23] = 1;
		p[24] = 0x20; p[25] = 0x01; p[26] = 0x0d; p[27] = 0xb8; p[39] = 2;
		if (s->ext_len)
			memcpy(p + 40, s->ext, s->ext_len);
	} else {
		p[0] = (uint8_t)(0x40 | (l4 / 4));
		p[2] = (uint8_t)(n >> 8);
		p[3] = (uint8_t)n;
		p[4] = 0x12; p[5] = 0x34;
		p[6] = 0x40;            /* DF */
		p[8] = 64;
		p[9] = s->proto;
		p[12] = 10; p[15] = 1;
		p[16] = 192; p[17] = 168; p[18] = 7; p[19] = 9;
		memset(p + 20, 1, s->ip_opts);
		uint16_t c = (uint16_t)~pc_sum(0, p, l4);
		p[10] = (uint8_t)(c >> 8);
		p[11] = (uint8_t)c;
	}
	p[l4] = 0x9c; p[l4 + 1] = 0x41;  /* 40001 */
	p[l4 + 2] = 0; p[l4 + 3] = 21;
	if (s->proto == IPPROTO_TCP) {
		p[l4 + 4] = (uint8_t)(s->seq >> 24);
		p[l4 + 5] = (uint8_t)(s->seq >> 16);
		p[l4 + 6] = (uint8_t)(s->seq >> 8);
		p[l4 + 7] = (uint8_t)s->seq;
		p[l4 + 11] = 1;        /* ack */
		p[l4 + 12] = 0x50;
		p[l4 + 13] = 0x18;     /* PSH ACK */
		p[l4 + 14] = 0xfa;
	} else {
		p[l4 + 4] = (uint8_t)((n - l4) >> 8);
		p[l4 + 5] = (uint8_t)(n - l4);
	}
	if (plen)
		memcpy(p + l4 + hl, payload, plen);
	uint16_t c = pc_l4_csum(p, n, l4, s->proto);
	size_t co = l4 + (s->proto == IPPROTO_TCP ? 16 : 6);
	p[co] = (uint8_t)(c >> 8);
	p[co + 1] = (uint8_t)c;
	*len = n;
	return p;
}

/* A call on a freshly built packet: view parsed, NAT bits as given. */
struct tcall {
	struct pkt_call c;
	uint8_t *pkt;
	size_t len;
	const struct shape *s;
};

static bool tcall_init(struct tcall *t, const struct shape *s,
		       const void *payload, size_t plen, unsigned int nat)
{
	memset(t, 0, sizeof(*t));
	t->s = s;
	t->pkt = build(s, payload, plen, &t->len);
	if (pkt_view_parse(&t->c.pkt, t->pkt, t->len, s->v6 ? AF_INET6 : AF_INET) < 0)
		return false;
	t->c.pkt.nat = nat;
	t->c.pkt.tuple[0].family = t->c.pkt.tuple[1].family =
		(uint8_t)(s->v6 ? AF_INET6 : AF_INET);
	t->c.pkt.tuple[0].proto = t->c.pkt.tuple[1].proto = s->proto;
	return true;
}

static void tcall_free(struct tcall *t)
{
	edit_release(&t->c);
	free(t->pkt);
}

static int edit(struct tcall *t, size_t off, size_t len, const char *repl)
{
	return edit_add(&t->c, off, len, repl, repl ? strlen(repl) : 0);
}

/*
 * The result must be byte for byte the packet built with the expected
 * payload (same headers; lengths and checksums computed independently)
 * and pass the independent checks.
 */
static bool result_is(struct tcall *t, const void *want, size_t want_len,
		      char *why, size_t whylen)
{
	size_t len = 0, elen, i;
	const uint8_t *r = edit_result(&t->c, &len);
	uint8_t *e;
	bool ok = true;

	if (!r) {
		snprintf(why, whylen, "no result");
		return false;
	}
	e = build(t->s, want, want_len, &elen);
	if (len != elen) {
		snprintf(why, whylen, "length %zu, want %zu", len, elen);
		ok = false;
	} else {
		for (i = 0; i < len && r[i] == e[i]; i++)
			;
		if (i < len) {
			snprintf(why, whylen, "byte %zu is 0x%02x, want 0x%02x",
				 i, r[i], e[i]);
			ok = false;
		}
	}
	if (ok)
		ok = pc_packet_ok(r, len, shape_l4(t->s), t->s->proto, why, whylen);
	free(e);
	return ok;
}

/* -------------------------------------------------------------- shapes */

/* Destination Options, 8 bytes: next header TCP, length 0, PadN(4). */
static const uint8_t dstopts_tcp[8] = { 6, 0, 1, 4, 0, 0, 0, 0 };
/* Hop-by-hop 16 bytes (length 1) then Destination Options 8 bytes, UDP. */
static const uint8_t hbh_dst_udp[24] = {
	60, 1, 1, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	17, 0, 1, 4, 0, 0, 0, 0,
};

static const struct shape v4_tcp = { .proto = IPPROTO_TCP, .seq = 0x01020304 };
static const struct shape v4_opt_tcp = { .proto = IPPROTO_TCP, .ip_opts = 4,
					 .seq = 0xfedcba98 };
static const struct shape v4_udp = { .proto = IPPROTO_UDP };
/* High sequence byte: read 8 bytes early it is a TCP data offset of 60. */
static const struct shape v6_dst_tcp = {
	.v6 = true, .proto = IPPROTO_TCP, .ext = dstopts_tcp,
	.ext_len = sizeof(dstopts_tcp), .ext_first = 60, .seq = 0xfedcba98,
};
static const struct shape v6_ext_udp = {
	.v6 = true, .proto = IPPROTO_UDP, .ext = hbh_dst_udp,
	.ext_len = sizeof(hbh_dst_udp), .ext_first = 0,
};
static const struct shape v6_udp = { .v6 = true, .proto = IPPROTO_UDP };

/* --------------------------------------------------------------- tests */

static void test_rewrites(void)
{
	static const char eprt[] = "EPRT |2|2001:db8::1|4000|\r\n";
	static const char eprt_nat[] = "EPRT |2|2001:db8:ffff:ffff::abcd|40123|\r\n";
	static const char port[] = "PORT 10,0,0,1,15,160\r\n";
	static const char port_nat[] = "PORT 192,168,100,200,156,65\r\n";
	char why[256] = "";
	struct tcall t;
	int rc;

	rc = -1;
	if (tcall_init(&t, &v6_dst_tcp, eprt, strlen(eprt), CTH_NAT_SRC)) {
		rc = edit(&t, 5, 20, "|2|2001:db8:ffff:ffff::abcd|40123|");
		CHECK("mangle/ipv6-dstopts-eprt-nat", rc == 0 &&
		      t.c.pkt.l4_offset == 48 &&
		      result_is(&t, eprt_nat, strlen(eprt_nat), why, sizeof(why)),
		      "rc=%d l4=%zu %s", rc, t.c.pkt.l4_offset, why);
	} else {
		CHECK("mangle/ipv6-dstopts-eprt-nat", 0, "view");
	}
	tcall_free(&t);

	why[0] = 0;
	if (tcall_init(&t, &v4_tcp, port, strlen(port), CTH_NAT_DST)) {
		rc = edit(&t, 5, 15, "192,168,100,200,156,65");
		CHECK("mangle/ipv4-port-nat", rc == 0 &&
		      result_is(&t, port_nat, strlen(port_nat), why, sizeof(why)),
		      "rc=%d %s", rc, why);
	}
	tcall_free(&t);

	why[0] = 0;
	if (tcall_init(&t, &v4_opt_tcp, port, strlen(port), CTH_NAT_SRC)) {
		rc = edit(&t, 5, 15, "192,168,100,200,156,65");
		CHECK("mangle/ipv4-options-port-nat", rc == 0 &&
		      result_is(&t, port_nat, strlen(port_nat), why, sizeof(why)),
		      "rc=%d %s", rc, why);
	}
	tcall_free(&t);

	/* shrink, odd length, IPv6 with two extension headers, UDP */
	why[0] = 0;
	if (tcall_init(&t, &v6_ext_udp, "INVITE sip:x@[2001:db8::1] SIP/2.0",
		       34, 0)) {
		rc = edit(&t, 13, 13, "[::2]");
		CHECK("mangle/ipv6-hbh-dstopts-udp-shrink", rc == 0 &&
		      result_is(&t, "INVITE sip:x@[::2] SIP/2.0", 26, why, sizeof(why)),
		      "rc=%d %s", rc, why);
	}
	tcall_free(&t);

	/* same length on TCP without NAT is allowed */
	why[0] = 0;
	if (tcall_init(&t, &v4_tcp, port, strlen(port), 0)) {
		rc = edit(&t, 5, 15, "10,0,0,2,15,161");
		CHECK("mangle/tcp-same-length-no-nat", rc == 0 &&
		      result_is(&t, "PORT 10,0,0,2,15,161\r\n", 22, why, sizeof(why)),
		      "rc=%d %s", rc, why);
	}
	tcall_free(&t);
}

/* Payload of n bytes 'a'..'z' repeating. */
static char *alpha(size_t n)
{
	char *p = malloc(n + 1);
	size_t i;

	if (!p)
		abort();
	for (i = 0; i < n; i++)
		p[i] = (char)('a' + i % 26);
	p[n] = 0;
	return p;
}

static char *filled(size_t n, char ch)
{
	char *p = malloc(n + 1);

	if (!p)
		abort();
	memset(p, ch, n);
	p[n] = 0;
	return p;
}

/* One edit growing the packet by `grow` bytes in the middle of a small one. */
static void growth_one(const struct shape *s, size_t grow, const char *name)
{
	char *pl = alpha(64), *rep = filled(grow + 4, 'X'), *want, why[256] = "";
	struct tcall t;
	int rc = -1;
	bool ok = false;

	want = malloc(64 + grow + 1);
	if (!want)
		abort();
	memcpy(want, pl, 30);
	memcpy(want + 30, rep, grow + 4);
	memcpy(want + 30 + grow + 4, pl + 34, 30);
	if (tcall_init(&t, s, pl, 64, CTH_NAT_SRC)) {
		rc = edit(&t, 30, 4, rep);
		ok = rc == 0 && result_is(&t, want, 64 + grow, why, sizeof(why));
	}
	CHECK(name, ok, "rc=%d %s", rc, why);
	tcall_free(&t);
	free(pl);
	free(rep);
	free(want);
}

static void test_growth(void)
{
	char why[256] = "", *pl, *want, name[64];
	size_t grow, i, w;
	struct tcall t;
	int rc = 0;
	bool ok;

	growth_one(&v4_tcp, 2100, "mangle/grow-2100");
	growth_one(&v4_tcp, 3000, "mangle/grow-3000");
	growth_one(&v6_dst_tcp, 4000, "mangle/grow-4000-ipv6");
	growth_one(&v4_udp, 4000, "mangle/grow-4000-udp");

	/* many edits, each growing, cumulative: 32 x +1 and 32 x +300 */
	for (grow = 1; grow <= 300; grow += 299) {
		char rep[400];

		pl = alpha(200);
		want = malloc(200 + 32 * (grow + 1) + 1);
		if (!want)
			abort();
		memset(rep, 'Y', grow + 1);
		rep[grow + 1] = 0;
		ok = tcall_init(&t, &v4_tcp, pl, 200, CTH_NAT_SRC);
		/* edit i replaces byte 6i by grow+1 bytes, recorded last to first */
		for (i = EDIT_MAX; ok && i-- > 0;) {
			rc = edit(&t, 6 * i, 1, rep);
			ok = rc == 0;
		}
		for (i = 0, w = 0; i < 200; i++) {
			if (i % 6 == 0 && i / 6 < EDIT_MAX) {
				memcpy(want + w, rep, grow + 1);
				w += grow + 1;
			} else {
				want[w++] = pl[i];
			}
		}
		snprintf(name, sizeof(name), "mangle/grow-cumulative-32x%zu", grow);
		CHECK(name, ok && result_is(&t, want, w, why, sizeof(why)),
		      "rc=%d %s", rc, why);
		rc = edit(&t, 199, 1, "z");
		snprintf(name, sizeof(name), "mangle/frozen-after-result-%zu", grow);
		CHECK(name, rc == -EBUSY, "rc=%d", rc);
		tcall_free(&t);
		free(pl);
		free(want);
	}
}

static void test_limits(void)
{
	size_t big = 60000, room, len;
	char *pl = alpha(big), *rep, why[256] = "";
	struct tcall t;
	int rc1 = -1, rc2 = -1, rc3 = -1, rc4 = -1;
	const uint8_t *r = NULL;
	bool ok = false;

	/* exactly 65531 bytes is fine, one more is not */
	if (tcall_init(&t, &v4_tcp, pl, big, CTH_NAT_SRC)) {
		room = PC_OUT_MAX - t.len;
		rep = filled(room + 1, 'Z');
		rc1 = edit_add(&t.c, 10, 0, rep, room + 1);
		rc2 = edit_add(&t.c, 10, 0, rep, room - 4);
		rc3 = edit_add(&t.c, 20, 0, rep, 4);
		rc4 = edit_add(&t.c, 30, 0, rep, 1);
		r = edit_result(&t.c, &len);
		ok = r && len == PC_OUT_MAX &&
		     pc_packet_ok(r, len, 20, IPPROTO_TCP, why, sizeof(why));
		free(rep);
	}
	CHECK("mangle/limit-65531", rc1 == -ENOSPC && rc2 == 0 && rc3 == 0 &&
	      rc4 == -ENOSPC && ok, "rc %d %d %d %d, len %zu %s",
	      rc1, rc2, rc3, rc4, r ? len : 0, why);
	tcall_free(&t);

	/* a shrinking edit makes room again */
	rc1 = rc2 = rc3 = -1;
	if (tcall_init(&t, &v6_udp, pl, big, 0)) {
		room = PC_OUT_MAX - t.len;
		rep = filled(room + 100, 'Q');
		rc1 = edit_add(&t.c, 0, 0, rep, room + 100);
		rc2 = edit_add(&t.c, 1000, 100, "", 0);
		rc3 = edit_add(&t.c, 0, 0, rep, room + 100);
		r = edit_result(&t.c, &len);
		ok = r && len == PC_OUT_MAX &&
		     pc_packet_ok(r, len, 40, IPPROTO_UDP, why, sizeof(why));
		free(rep);
	}
	CHECK("mangle/limit-after-shrink", rc1 == -ENOSPC && rc2 == 0 &&
	      rc3 == 0 && ok, "rc %d %d %d %s", rc1, rc2, rc3, why);
	tcall_free(&t);
	free(pl);

	/* EDIT_MAX edits, then -ENOSPC */
	pl = alpha(100);
	rc1 = rc2 = 0;
	if (tcall_init(&t, &v4_udp, pl, 100, 0)) {
		for (unsigned int i = 0; i < EDIT_MAX && rc1 == 0; i++)
			rc1 = edit(&t, i * 2, 1, "#");
		rc2 = edit(&t, 90, 1, "#");
	}
	CHECK("mangle/edit-count", rc1 == 0 && rc2 == -ENOSPC, "rc %d %d", rc1, rc2);
	tcall_free(&t);
	free(pl);
}

static void test_refusals(void)
{
	static const char port[] = "PORT 10,0,0,1,15,160\r\n";
	uint8_t *cut;
	size_t len;
	struct tcall t;
	int rc = 0, rc2 = 0;

	if (tcall_init(&t, &v4_tcp, port, strlen(port), CTH_NAT_SRC)) {
		t.c.truncated = true;
		rc = edit(&t, 5, 15, "1,2,3,4,5,6");
		rc2 = edit(&t, 5, 2, "xx");
	}
	CHECK("mangle/truncated-refused", rc == -EMSGSIZE && rc2 == -EMSGSIZE &&
	      !edit_result(&t.c, &len), "rc %d %d", rc, rc2);
	tcall_free(&t);

	/* TCP GSO: edited (the kernel redoes the checksum when it segments) */
	if (tcall_init(&t, &v6_dst_tcp, port, strlen(port), CTH_NAT_SRC)) {
		t.c.gso = true;
		rc = edit(&t, 5, 15, "1,2,3,4,5,6");
	}
	CHECK("mangle/gso-tcp-edited", rc == 0 && edit_result(&t.c, &len),
	      "rc %d", rc);
	tcall_free(&t);

	/* UDP GSO: refused (UDP segmentation wants CHECKSUM_PARTIAL) */
	if (tcall_init(&t, &v4_udp, port, strlen(port), 0)) {
		t.c.gso = true;
		rc = edit(&t, 5, 15, "1,2,3,4,5,6");
	}
	CHECK("mangle/gso-udp-refused", rc == -EMSGSIZE && !edit_result(&t.c, &len),
	      "rc %d", rc);
	tcall_free(&t);

	/* the IP header says more than we hold: truncated without the flag */
	if (tcall_init(&t, &v4_udp, port, strlen(port), 0)) {
		cut = malloc(t.len - 4);
		if (!cut)
			abort();
		memcpy(cut, t.pkt, t.len - 4);
		free(t.pkt);
		t.pkt = cut;
		t.len -= 4;
		rc = pkt_view_parse(&t.c.pkt, t.pkt, t.len, AF_INET);
		if (rc == 0)
			rc = edit(&t, 0, 2, "xx");
	}
	CHECK("mangle/short-ipv4-refused", rc == -EMSGSIZE, "rc %d", rc);
	tcall_free(&t);

	if (tcall_init(&t, &v4_tcp, port, strlen(port), 0)) {
		rc = edit(&t, 5, 15, "1,2,3,4,5,6");
		rc2 = edit(&t, 0, 0, "PASV\r\n");
	}
	CHECK("mangle/tcp-length-change-no-nat", rc == -EPERM && rc2 == -EPERM &&
	      !edit_result(&t.c, &len), "rc %d %d", rc, rc2);
	tcall_free(&t);

	if (tcall_init(&t, &v4_tcp, port, strlen(port), CTH_NAT_SRC)) {
		size_t n = strlen(port);

		rc = edit(&t, n + 1, 0, "") == -EINVAL;
		rc += edit(&t, n, 1, "") == -EINVAL;
		rc += edit(&t, 1, SIZE_MAX, "") == -EINVAL;
		rc += edit_add(&t.c, 0, 1, NULL, 1) == -EINVAL;
		rc += edit(&t, n, 0, "") == 0;      /* no-op */
		rc += edit(&t, n, 0, "!") == 0;     /* append */
	}
	CHECK("mangle/range-checks", rc == 6, "%d of 6", rc);
	tcall_free(&t);

	if (tcall_init(&t, &v4_tcp, port, strlen(port), CTH_NAT_SRC))
		rc = edit_result(&t.c, &len) == NULL;
	CHECK("mangle/no-edit-no-result", rc == 1, "result without an edit");
	tcall_free(&t);
}

static void test_udp_zero(void)
{
	const struct shape *shapes[] = { &v4_udp, &v6_udp, &v6_ext_udp };
	const char *names[] = { "mangle/udp-csum-zero-ipv4",
				"mangle/udp-csum-zero-ipv6",
				"mangle/udp-csum-zero-ipv6-ext" };

	for (size_t k = 0; k < 3; k++) {
		char pl[16] = "hello, world!!", rep[8] = "AB", why[256] = "";
		size_t len = 0, elen;
		const uint8_t *r = NULL;
		uint8_t *e;
		uint16_t x;
		struct tcall t;
		int rc = -1;

		/* pick the last two bytes so that the whole sum is 0xffff:
		 * the checksum computes to 0 */
		memcpy(rep, "AB\0\0", 4);
		e = build(shapes[k], "ABllo, world!!\0\0", 16, &elen);
		size_t l4 = shape_l4(shapes[k]);
		e[l4 + 6] = e[l4 + 7] = 0;
		x = (uint16_t)(0xffff - pc_l4_sum(e, elen, l4, IPPROTO_UDP));
		free(e);
		if (tcall_init(&t, shapes[k], pl, 14, 0)) {
			rep[2] = (char)(x >> 8);
			rep[3] = (char)x;
			rc = edit_add(&t.c, 0, 2, "AB", 2);
			if (rc == 0)
				rc = edit_add(&t.c, 14, 0, rep + 2, 2);
			r = edit_result(&t.c, &len);
		}
		CHECK(names[k], rc == 0 && r && pc_get16(r + l4 + 6) == 0xffff &&
		      pc_packet_ok(r, len, l4, IPPROTO_UDP, why, sizeof(why)),
		      "rc=%d checksum 0x%04x %s", rc, r ? pc_get16(r + l4 + 6) : 0, why);
		tcall_free(&t);
	}
}

static void test_order(void)
{
	char why[256] = "";
	struct tcall t;
	int rc = -1, ov = 0;

	/* recorded out of order, growing and shrinking; an insertion at the
	 * start of a replaced range and one at the end of another */
	if (tcall_init(&t, &v4_tcp, "0123456789abcdefghij", 20, CTH_NAT_SRC)) {
		rc = edit(&t, 15, 3, "F");
		rc |= edit(&t, 2, 2, "<two>");
		rc |= edit(&t, 10, 0, "^");
		rc |= edit(&t, 10, 2, "AB");
		rc |= edit(&t, 4, 0, "|");
		rc |= edit(&t, 0, 1, "");
		CHECK("mangle/out-of-order", rc == 0 &&
		      result_is(&t, "1<two>|456789^ABcdeFij", 22, why, sizeof(why)),
		      "rc=%d %s", rc, why);
	}
	tcall_free(&t);

	if (tcall_init(&t, &v6_dst_tcp, "0123456789abcdefghij", 20, CTH_NAT_SRC)) {
		rc = edit(&t, 5, 5, "12345");
		ov += edit(&t, 8, 4, "x") == -EINVAL;   /* overlaps the end */
		ov += edit(&t, 3, 3, "x") == -EINVAL;   /* overlaps the start */
		ov += edit(&t, 0, 20, "x") == -EINVAL;  /* covers it */
		ov += edit(&t, 6, 2, "x") == -EINVAL;   /* inside it */
		ov += edit(&t, 7, 0, "x") == -EINVAL;   /* insertion inside */
		ov += edit(&t, 5, 5, "x") == -EINVAL;   /* the same range */
		ov += edit(&t, 12, 0, "x") == 0;
		ov += edit(&t, 12, 0, "y") == -EINVAL;  /* same insertion point */
		ov += edit(&t, 10, 2, "AB") == 0;       /* touches the end */
		ov += edit(&t, 3, 2, "CD") == 0;        /* touches the start */
		CHECK("mangle/overlap-refused", rc == 0 && ov == 10 &&
		      result_is(&t, "012CD12345ABxcdefghij", 21, why, sizeof(why)),
		      "rc=%d %d of 10 %s", rc, ov, why);
	}
	tcall_free(&t);
}

/* -------------------------------------------- through pkt_call_run() */

static int plugin_packet(struct cth_ctx *ctx, const struct cth_packet *pkt,
			 void *priv, const void *config)
{
	(void)priv;
	(void)config;
	/* EPRT argument, rewritten under NAT: second edit recorded first */
	if (cth_mangle(ctx, pkt->payload_len - 2, 0, " ", 1) != 0 ||
	    cth_mangle(ctx, 5, 20, "|2|2001:db8::abcd:1|2121|", 25) != 0)
		return CTH_VERDICT_DROP;
	return CTH_VERDICT_ACCEPT;
}

static const struct cth_plugin_desc plugin_desc = {
	.abi_version = CTH_ABI_VERSION,
	.size = sizeof(struct cth_plugin_desc),
	.name = "mtest",
	.protocols = CTH_PROTO_TCP,
	.families = CTH_FAMILY_IPV4 | CTH_FAMILY_IPV6,
	.n_classes = 1,
	.classes = { { .name = "m", .max = 1, .timeout = 10 } },
	.packet = plugin_packet,
};

static void test_host_path(void)
{
	static const char eprt[] = "EPRT |2|2001:db8::1|4000|\r\n";
	static const char want[] = "EPRT |2|2001:db8::abcd:1|2121| \r\n";
	struct plugin pl = { .desc = &plugin_desc };
	struct instance in = { .name = "mtest", .pl = &pl, .n_classes = 1 };
	const uint8_t *r;
	size_t len = 0;
	char why[256] = "";
	struct tcall t;
	int v = -1;

	if (tcall_init(&t, &v6_dst_tcp, eprt, strlen(eprt), CTH_NAT_DST)) {
		t.c.inst = &in;
		v = pkt_call_run(&t.c, NULL, 0);
		r = pkt_call_mangled(&t.c, &len);
		CHECK("mangle/host-path", v == CTH_VERDICT_ACCEPT && r &&
		      result_is(&t, want, strlen(want), why, sizeof(why)) &&
		      pkt_call_mangled(&t.c, &len) == r,
		      "verdict %d %s", v, why);
		pkt_call_release(&t.c);
	}
	tcall_free(&t);
}

/* With an argument, only the groups whose name contains it (to look at
 * one group alone, e.g. under a debugger or against older code). */
int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		void (*fn)(void);
	} groups[] = {
		{ "rewrites", test_rewrites }, { "growth", test_growth },
		{ "limits", test_limits },     { "refusals", test_refusals },
		{ "udp-zero", test_udp_zero }, { "order", test_order },
		{ "host-path", test_host_path },
	};

	/* line by line: the lines before a crash are not lost */
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (size_t i = 0; i < sizeof(groups) / sizeof(groups[0]); i++)
		if (argc < 2 || strstr(groups[i].name, argv[1])) {
			groups[i].fn();
			fflush(stdout);
		}
	return check_exit();
}
