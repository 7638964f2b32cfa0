/* SPDX-License-Identifier: MIT */
/*
 * The replay's account of a connection's first packet (replay/related.c)
 * through its packet loop (replay/engine.c) and the daemon's host code,
 * with a plugin of this file: "ANN DPORT NATPORT" from the client asks
 * for the server's connection back to the client's port NATPORT, told to
 * the server as DPORT (cth_expect_to(), then the port moved as
 * cth_expect_free_port() would).  Checked on both kinds of capture: a
 * moved port confirmed by the client's answer, a wrong NAT port caught
 * at the answer, a moved port followed in a capture without NAT, and a
 * connection nothing expects said blocked.  "QUERY" asks for the answers
 * from the link's network (cth_link(), --link): any host of it gets
 * through, one outside does not.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <cthelperd/util.h>

#include "check.h"
#include "runtime/runtime.h"
#include "../../replay/replay.h"

static int annc_packet(struct cth_ctx *ctx, const struct cth_packet *pkt, void *priv,
		       const void *config)
{
	unsigned int dport, natport;
	char text[64];
	struct cth_expect e;

	(void)priv;
	(void)config;
	snprintf(text, sizeof(text), "%.*s", (int)pkt->payload_len, (const char *)pkt->payload);
	if (pkt->dir == CTH_DIR_ORIGINAL && strcmp(text, "QUERY") == 0) {
		struct cth_link l;

		/* a query to the link: answers from any host of its network */
		cth_expect_back(&e, pkt, 0, IPPROTO_UDP);
		e.flags |= CTH_EXPECT_PERMANENT;
		if (cth_link(ctx, &l) == 0 && cth_expect_src_net(&e, &l) == 0)
			cth_expect(ctx, &e, 0);
		return CTH_VERDICT_ACCEPT;
	}
	if (pkt->dir != CTH_DIR_ORIGINAL || sscanf(text, "ANN %u %u", &dport, &natport) != 2)
		return CTH_VERDICT_ACCEPT;
	cth_expect_to(&e, pkt, 0, IPPROTO_UDP, &pkt->tuple[pkt->dir].src, (uint16_t)natport);
	e.dport = (uint16_t)dport;
	return cth_expect(ctx, &e, CTH_EXPECT_SYNC) < 0 ? CTH_VERDICT_DROP : CTH_VERDICT_ACCEPT;
}

static const struct cth_plugin_desc annc = {
	.abi_version = CTH_ABI_VERSION,
	.size = sizeof(struct cth_plugin_desc),
	.name = "annc",
	.version = "1",
	.protocols = CTH_PROTO_UDP,
	.families = CTH_FAMILY_IPV4,
	.n_classes = 1,
	.classes = { { .name = "data", .max = 4, .timeout = 30 } },
	.packet = annc_packet,
};

struct run {
	struct plugin pl;
	struct instance in;
	struct rp_engine e;
	unsigned long no;
};

static struct run *run_new(const char *snat)
{
	static struct run r;

	memset(&r, 0, sizeof(r));
	r.pl.desc = &annc;
	snprintf(r.in.name, sizeof(r.in.name), "annc");
	r.in.pl = &r.pl;
	r.in.families = annc.families;
	r.in.protocols = annc.protocols;
	r.in.n_classes = 1;
	r.in.classes[0] = annc.classes[0];
	if (rp_report_open(&r.e.rep, NULL) < 0)
		abort();
	rp_engine_init(&r.e, &r.in);
	r.e.ports[0] = 7777;
	r.e.n_ports = 1;
	if (snat && rp_nat_parse(snat, &r.e.ct.snat) < 0)
		abort();
	return &r;
}

/* One IPv4 UDP datagram through the engine. */
static void send_udp(struct run *r, const char *src, uint16_t sport, const char *dst,
		     uint16_t dport, const char *payload)
{
	uint8_t b[128] = { 0x45 };
	size_t n = strlen(payload), len = 28 + n;
	struct rp_frame f;
	uint32_t sum = 0;

	b[2] = (uint8_t)(len >> 8);
	b[3] = (uint8_t)len;
	b[8] = 64;
	b[9] = IPPROTO_UDP;
	inet_pton(AF_INET, src, b + 12);
	inet_pton(AF_INET, dst, b + 16);
	for (size_t i = 0; i < 20; i += 2)
		sum += (uint32_t)b[i] << 8 | b[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	b[10] = (uint8_t)(~sum >> 8);
	b[11] = (uint8_t)~sum;
	b[20] = (uint8_t)(sport >> 8);
	b[21] = (uint8_t)sport;
	b[22] = (uint8_t)(dport >> 8);
	b[23] = (uint8_t)dport;
	b[24] = (uint8_t)((8 + n) >> 8);
	b[25] = (uint8_t)(8 + n);
	memcpy(b + 28, payload, n);
	memset(&f, 0, sizeof(f));
	f.no = ++r->no;
	f.ms = r->no;
	f.data = b;
	f.caplen = f.wirelen = len;
	f.family = AF_INET;
	rp_engine_frame(&r->e, &f);
}

/* Does the report hold text (want) or not (!want)? */
static void has(const char *name, struct run *r, const char *text, bool want)
{
	const char *got;

	fflush(r->e.rep.mem);
	got = r->e.rep.buf ? strstr(r->e.rep.buf, text) : NULL;
	CHECK(name, !got == !want, "%s '%s' in:\n%s", want ? "no" : "a", text,
	      r->e.rep.buf ? r->e.rep.buf : "");
}

static void run_end(struct run *r)
{
	rp_report_close(&r->e.rep);
	rp_engine_free(&r->e);
}

int main(void)
{
	struct run *r;

	/* the helper's view under SNAT: the plugin told the server 40005 for
	 * the client's 40001; the client's answer from 40001 confirms it */
	r = run_new("203.0.113.5");
	send_udp(r, "10.0.1.2", 40000, "10.0.2.2", 7777, "ANN 40005 40001");
	send_udp(r, "10.0.2.2", 20, "203.0.113.5", 40005, "data");
	send_udp(r, "10.0.1.2", 40001, "10.0.2.2", 20, "ack");
	has("replay-engine/moved-port-related", r, "#2 conn 2 related udp 10.0.2.2:20 > "
	    "203.0.113.5:40005 to conn 1 by expectation 1 (class data): delivered to "
	    "10.0.1.2:40001 (the plugin moved the port: checked at the answer)\n", true);
	has("replay-engine/moved-port-answer-right", r, "WRONG", false);
	has("replay-engine/moved-port-answer-found", r, "not related", false);
	run_end(r);

	/* the same with a wrong NAT port: the answer shows where the client is */
	r = run_new("203.0.113.5");
	send_udp(r, "10.0.1.2", 40000, "10.0.2.2", 7777, "ANN 40005 40009");
	send_udp(r, "10.0.2.2", 20, "203.0.113.5", 40005, "data");
	send_udp(r, "10.0.1.2", 40001, "10.0.2.2", 20, "ack");
	send_udp(r, "10.0.1.2", 40001, "10.0.2.2", 20, "ack again");
	rp_engine_summary(&r->e);
	has("replay-engine/wrong-port-at-answer", r, "#3 conn 2 answered from 10.0.1.2:40001, "
	    "NAT delivered it to 10.0.1.2:40009: WRONG\n", true);
	has("replay-engine/wrong-port-counted", r, "delivered wrong 1, not related 0\n", true);
	run_end(r);

	/* a capture without NAT: the server dials the client's own 40001,
	 * which reaches the firewall as the port the plugin told it */
	r = run_new("203.0.113.5");
	send_udp(r, "10.0.1.2", 40000, "10.0.2.2", 7777, "ANN 40005 40001");
	send_udp(r, "10.0.2.2", 20, "10.0.1.2", 40001, "data");
	send_udp(r, "10.0.1.2", 40001, "10.0.2.2", 20, "ack");
	rp_engine_summary(&r->e);
	has("replay-engine/told-port-without-nat", r, "#2 conn 2 related udp 10.0.2.2:20 > "
	    "203.0.113.5:40005 to conn 1 by expectation 1 (class data): delivered to "
	    "10.0.1.2:40001\n", true);
	has("replay-engine/told-port-counted", r, "delivered wrong 0, not related 0\n", true);
	run_end(r);

	/* without NAT the expectation is for 40005: the server's connection
	 * to 40001 is nobody's, and blocked */
	r = run_new(NULL);
	send_udp(r, "10.0.1.2", 40000, "10.0.2.2", 7777, "ANN 40005 40001");
	send_udp(r, "10.0.2.2", 20, "10.0.1.2", 40001, "data");
	has("replay-engine/blocked", r, "#2 conn 2 new udp 10.0.2.2:20 > 10.0.1.2:40001: not "
	    "related: a firewall that admits only helped traffic blocks it\n", true);
	run_end(r);
	/* the firewall's own broadcast query on its link 10.0.1.1/24 */
	r = run_new(NULL);
	if (rp_engine_link_parse(&r->e, "10.0.1.1/24,fd00:1::1/64") < 0)
		abort();
	send_udp(r, "10.0.1.1", 40000, "10.0.1.255", 7777, "QUERY");
	send_udp(r, "10.0.1.7", 7777, "10.0.1.1", 40000, "answer");
	send_udp(r, "10.0.1.9", 7777, "10.0.1.1", 40000, "answer");
	send_udp(r, "10.0.2.9", 7777, "10.0.1.1", 40000, "answer");
	has("replay-engine/link-expect-network", r, "class data permanent udp 10.0.1.0/24:any > "
	    "10.0.1.1:40000", true);
	has("replay-engine/link-answers-related", r, "#3 conn 3 related udp 10.0.1.9:7777 > "
	    "10.0.1.1:40000 to conn 1", true);
	has("replay-engine/link-outside-blocked", r, "#4 conn 4 new udp 10.0.2.9:7777 > "
	    "10.0.1.1:40000: not related", true);
	run_end(r);
	CHECK("replay-engine/link-parse-refused", rp_engine_link_parse(&r->e, "10.0.1.1/33") < 0 &&
	      rp_engine_link_parse(&r->e, "10.0.1.1") < 0 &&
	      rp_engine_link_parse(&r->e, "") < 0 &&
	      rp_engine_link_parse(&r->e, "10.0.1.1/24,,") < 0, "accepted");
	return check_exit();
}
