// SPDX-License-Identifier: MIT
/*
 * exprepair.c's event path (issue 27): one NFNLGRP_CONNTRACK_EXP_NEW
 * message per input, from one of our sockets or another program's,
 * against the emulated kernel of the unit tests (tests/unit/nlfake.c for
 * nlreq.c).  Byte 0: the sender (0 the kernel, our queue, our ctnetlink
 * socket, a foreign program); the rest an expectation built from the
 * input (addresses, ports, flags, NAT, helper) with the master known or
 * not, SNATed, DNATed or neither.  Messages are of the kernel's shape,
 * not raw bytes: libnetfilter_conntrack 1.0.9's nfexp_nlmsg_parse()
 * calls exit() (__abi_breakage()) on an attribute that fails its own
 * validation, which only a kernel that is not Linux would send.
 * Checks: our own events never make a kernel request, and a repair
 * makes at most a master lookup, a delete and a create.
 */
#include <arpa/inet.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_conntrack.h>

#include "fuzz_common.h"
#include "kernel/expect.h"
#include "kernel/exprepair.h"
#include "../unit/nlfake.h"
#include "kernel/portids.h"

#define FZ_QUEUE 1001u
#define FZ_REQUEST 1002u
#define FZ_FOREIGN 4242u

static struct runtime rt;
static struct runtime *_Atomic rtp = &rt;
static struct stats_block host;
static struct nlreq req;
static struct exprepair x = { .req = &req, .rtp = &rtp, .stats = &host };

static void fz_runtime_init(void)
{
	static bool done;

	if (done)
		return;
	done = true;
	rt.n_inst = 1;
	snprintf(rt.inst[0].name, sizeof(rt.inst[0].name), "sip");
	rt.inst[0].families = CTH_FAMILY_IPV4 | CTH_FAMILY_IPV6;
	rt.inst[0].protocols = CTH_PROTO_UDP | CTH_PROTO_TCP;
	rt.inst[0].guard = GUARD_DEFAULT;
	portids_add(FZ_QUEUE, PORTID_QUEUE);
	portids_add(FZ_REQUEST, PORTID_REQUEST);
}

static void fz_addr(struct fz *in, int family, union cth_addr *a)
{
	memset(a, 0, sizeof(*a));
	/* few distinct addresses, so that tuples meet */
	for (size_t i = 0; i < (family == AF_INET ? 4u : 16u); i++)
		a->raw[i] = (uint8_t)(i == 0 ? 10 : (fz_u8(in) & 3));
}

static void fz_tuple(struct fz *in, int family, int proto, struct cth_tuple *t)
{
	memset(t, 0, sizeof(*t));
	t->family = (uint8_t)family;
	t->proto = (uint8_t)proto;
	fz_addr(in, family, &t->src);
	fz_addr(in, family, &t->dst);
	t->sport = (uint16_t)(5060 + (fz_u8(in) & 3));
	t->dport = (uint16_t)(5060 + (fz_u8(in) & 3));
}

static size_t fz_structured(struct fz *in, char *buf, uint8_t ctl)
{
	int family = (ctl & 0x10) ? AF_INET6 : AF_INET;
	int proto = (ctl & 0x20) ? IPPROTO_TCP : IPPROTO_UDP;
	struct cth_packet pkt = { 0 };
	struct cth_expect e = { 0 };
	struct nlmsghdr *nlh;
	uint8_t f = fz_u8(in);

	fz_tuple(in, family, proto, &pkt.tuple[0]);
	fz_tuple(in, family, proto, &pkt.tuple[1]);
	if (f & 0x80)
		nlfake_master_add_nat(&pkt.tuple[0], &pkt.tuple[1]);
	e.family = (uint8_t)family;
	e.proto = (uint8_t)proto;
	e.flags = f & (CTH_EXPECT_ANY_SRC | CTH_EXPECT_PERMANENT | CTH_EXPECT_INACTIVE |
		       CTH_EXPECT_NAT);
	fz_addr(in, family, &e.src);
	fz_addr(in, family, &e.dst);
	e.sport = fz_u8(in) & 1 ? 5060 : 0;
	e.dport = (uint16_t)(3000 + fz_u8(in));
	e.class = fz_u8(in) & 3;
	e.nat_dir = fz_u8(in) & 1 ? CTH_DIR_REPLY : CTH_DIR_ORIGINAL;
	fz_addr(in, family, &e.nat_addr);
	e.nat_port = e.dport;
	e.fn = (f & 0x40) ? CTH_EXPECT_FN_NAT_FOLLOW_MASTER : NULL;
	nlh = nlreq_msg_put(buf, NFNL_SUBSYS_CTNETLINK_EXP, IPCTNL_MSG_EXP_NEW,
			    NLM_F_CREATE, (uint8_t)family);
	if (expect_put(nlh, &e, &pkt, "sip", true) < 0)
		return 0;
	mnl_attr_put_strz(nlh, CTA_EXPECT_HELP_NAME, (f & 0x20) ? "other" : "sip");
	return nlh->nlmsg_len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint32_t pids[] = { 0, FZ_QUEUE, FZ_REQUEST, FZ_FOREIGN };
	struct fz in = { data, size };
	char buf[NLREQ_BUF];
	uint8_t ctl = fz_u8(&in);
	uint32_t pid = pids[ctl & 3];
	size_t len;

	fz_runtime_init();
	nlfake_reset();
	len = fz_structured(&in, buf, ctl);
	if (len == 0)
		return 0;
	((struct nlmsghdr *)buf)->nlmsg_pid = pid;
	mnl_cb_run(buf, len, 0, 0, exprepair_event, &x);
	if (portids_kind(pid) != PORTID_NONE || pid == 0)
		FZ_ASSERT(!nlfake.requests, "%u requests for an event of ours or the kernel's",
			  nlfake.requests);
	else
		FZ_ASSERT(nlfake.requests <= 3 && nlfake.gets <= 1 && nlfake.news <= 1,
			  "a repair: %u requests, %u lookups, %u creates", nlfake.requests,
			  nlfake.gets, nlfake.news);
	return 0;
}
