/* SPDX-License-Identifier: MIT */
/*
 * Shared by the libFuzzer targets of the helpers of queries to a group or
 * broadcast address (fuzz_mdns.c, fuzz_slp.c, fuzz_dhcpv6.c,
 * fuzz_netbios_ns.c): the real plugin (linked in) through the plugin
 * kit's harness (<cthelperd/plugtest.h>, the daemon's host code) with the
 * link view the input chooses (cth_plugtest_link()).
 *
 * Each target defines, before including this: lanq_conns[] (flows, as
 * cthelper-mkpcap writes them), lanq_links[] (link views), lanq_settings[]
 * (instances, each a NULL-ended "key=value" list) and lanq_any[] (which
 * of them has answers = any), then LANQ_FUZZ_NAME.
 *
 * Input: a byte choosing the flow (bits 0-2), the link view (bits 3-5)
 * and the instance (bits 6-7), each modulo its count; then datagrams,
 * each a byte (bit 7: the reply direction; bits 0-6 with the next byte:
 * the length, cut to what the input has) and the payload.
 *
 * After every datagram: accepted (these helpers never drop), no request
 * the host refuses as malformed, nothing rewritten, at most one
 * expectation, and that one of the one shape: UDP, class 0, PERMANENT,
 * to the flow's original source (the querier), from the link's network
 * (SRC_PREFIX) or, only with answers = any, from anywhere (ANY_SRC).
 */
#ifndef CTH_FUZZ_LANQ_H
#define CTH_FUZZ_LANQ_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cthelperd/plugtest.h>
#include <cthelperd/util.h>

#include "fuzz_common.h"

#define LANQ_N(a) (sizeof(a) / sizeof((a)[0]))

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct cth_plugtest *lanq_t[LANQ_N(lanq_settings)];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char err[256];

	(void)argc;
	(void)argv;
	for (size_t i = 0; i < LANQ_N(lanq_settings); i++) {
		lanq_t[i] = cth_plugtest_new(&cth_plugin, lanq_settings[i], err, sizeof(err));
		if (!lanq_t[i]) {
			fprintf(stderr, "%s: %s\n", LANQ_FUZZ_NAME, err);
			abort();
		}
	}
	return 0;
}

/* The querier: the flow's first address ("udp ADDR:PORT > ..."). */
static void lanq_querier(const char *conn, int *family, union cth_addr *addr, uint16_t *port)
{
	char text[64];
	const char *p = conn + 4, *end;
	size_t n;

	memset(addr, 0, sizeof(*addr));
	*family = *p == '[' ? AF_INET6 : AF_INET;
	if (*p == '[')
		p++;
	end = *family == AF_INET6 ? strchr(p, ']') : strchr(p, ':');
	n = (size_t)(end - p);
	memcpy(text, p, n);
	text[n] = '\0';
	FZ_ASSERT(inet_pton(*family, text, addr->raw) == 1, "flow %s", conn);
	*port = (uint16_t)atoi(end + (*family == AF_INET6 ? 2 : 1));
}

static void lanq_check(const struct cth_plugtest_result *r, const char *conn, bool any)
{
	const struct cth_expect *e = &r->expect[0];
	union cth_addr q;
	uint16_t qport;
	int family;

	FZ_ASSERT(r->verdict == CTH_VERDICT_ACCEPT, "verdict %d", r->verdict);
	FZ_ASSERT(r->n_bug == 0, "plugin bug: %s", r->bug);
	FZ_ASSERT(!r->rewritten && r->n_edit == 0 && !r->keep, "payload touched");
	FZ_ASSERT(r->n_expect <= 1, "%u expectations", r->n_expect);
	if (!r->n_expect)
		return;
	lanq_querier(conn, &family, &q, &qport);
	FZ_ASSERT(e->class == 0 && e->proto == IPPROTO_UDP && e->family == family &&
		  r->expect_how[0] == 0, "class %u proto %u family %u how %#x", e->class,
		  e->proto, e->family, r->expect_how[0]);
	FZ_ASSERT(cth_addr_equal(family, &e->dst, &q), "not to the querier");
	FZ_ASSERT(e->flags == (CTH_EXPECT_PERMANENT |
			       (any ? CTH_EXPECT_ANY_SRC : CTH_EXPECT_SRC_PREFIX)),
		  "flags %#x, answers %s", e->flags, any ? "any" : "link");
	FZ_ASSERT(any || (e->src_prefix >= 1 && e->src_prefix <= (family == AF_INET ? 32 : 128)),
		  "prefix %u", e->src_prefix);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cth_plugtest *t;
	const char *conn, *link;
	size_t inst;

	if (size < 1)
		return 0;
	conn = lanq_conns[(data[0] & 7) % LANQ_N(lanq_conns)];
	link = lanq_links[((data[0] >> 3) & 7) % LANQ_N(lanq_links)];
	inst = (size_t)(data[0] >> 6) % LANQ_N(lanq_settings);
	t = lanq_t[inst];
	FZ_ASSERT(cth_plugtest_conn(t, conn) == 0 && cth_plugtest_link(t, link) == 0,
		  "harness: %s", cth_plugtest_error(t));
	data++;
	size--;
	for (unsigned int i = 0; i < 8 && size >= 2; i++) {
		enum cth_dir dir = data[0] & 0x80 ? CTH_DIR_REPLY : CTH_DIR_ORIGINAL;
		size_t n = (size_t)(data[0] & 0x7f) << 8 | data[1];
		uint8_t *copy;

		data += 2;
		size -= 2;
		if (n > size)
			n = size;
		if (n == 0)
			continue;
		/* exactly n bytes on the heap: AddressSanitizer sees a read past */
		copy = malloc(n);
		if (!copy)
			abort();
		memcpy(copy, data, n);
		if (cth_plugtest_packet(t, dir, copy, n) >= 0)
			lanq_check(cth_plugtest_result(t), conn, lanq_any[inst]);
		free(copy);
		data += n;
		size -= n;
	}
	return 0;
}

#endif
