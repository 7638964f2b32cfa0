/* SPDX-License-Identifier: MIT */
/*
 * The benchmark's floor: a null responder.  It binds one NFQUEUE with the
 * daemon's settings (whole packet, NFQA_CFG_F_CONNTRACK | NFQA_CFG_F_GSO,
 * the same receive buffer) and accepts every packet without reading more
 * than its id.  No helper that answers through the queue can cost less per
 * packet, so "cthelperd / floor" is the daemon's own overhead.
 *
 * The kernel helper must exist and be enabled already: tests/bench/inside.sh
 * lets cthelperd register it and kills it with SIGKILL (helpers stay
 * enabled, docs/architecture.md "Start and stop"), then starts this.
 *
 * Usage: cthbench-floor QUEUE
 * Prints "floor: bound queue N" once bound, then runs until killed.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <libmnl/libmnl.h>
#include <libnetfilter_queue/libnetfilter_queue.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nfnetlink_queue.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

/* as server/worker/worker.c: one GSO packet of 64 KiB plus its attributes fits */
#define FLOOR_RBUF (256u * 1024u)
#define FLOOR_RCVBUF (8 * 1024 * 1024)

static int floor_talk(struct mnl_socket *nl, struct nlmsghdr *nlh)
{
	char buf[8192];
	uint32_t seq = nlh->nlmsg_seq = 1, port = mnl_socket_get_portid(nl);
	ssize_t n;

	nlh->nlmsg_flags |= NLM_F_ACK;
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	n = mnl_socket_recvfrom(nl, buf, sizeof(buf));
	if (n < 0)
		return -errno;
	return mnl_cb_run(buf, (size_t)n, seq, port, NULL, NULL) < 0 ? -errno : 0;
}

static int floor_bind(struct mnl_socket *nl, uint16_t queue)
{
	char buf[8192];
	uint32_t flags = NFQA_CFG_F_CONNTRACK | NFQA_CFG_F_GSO;
	struct nlmsghdr *nlh = nfq_nlmsg_put(buf, NFQNL_MSG_CONFIG, queue);
	int rc, one = 1, sz = FLOOR_RCVBUF;

	nfq_nlmsg_cfg_put_cmd(nlh, AF_INET, NFQNL_CFG_CMD_BIND);
	if ((rc = floor_talk(nl, nlh)) < 0)
		return rc;
	nlh = nfq_nlmsg_put(buf, NFQNL_MSG_CONFIG, queue);
	nfq_nlmsg_cfg_put_params(nlh, NFQNL_COPY_PACKET, 0xffff);
	mnl_attr_put_u32(nlh, NFQA_CFG_FLAGS, htonl(flags));
	mnl_attr_put_u32(nlh, NFQA_CFG_MASK, htonl(flags));
	nfq_nlmsg_cfg_put_qmaxlen(nlh, 4096);
	if ((rc = floor_talk(nl, nlh)) < 0)
		return rc;
	mnl_socket_setsockopt(nl, NETLINK_NO_ENOBUFS, &one, sizeof(one));
	if (setsockopt(mnl_socket_get_fd(nl), SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)) < 0)
		setsockopt(mnl_socket_get_fd(nl), SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	return 0;
}

/* One verdict per packet, as the daemon sends them today. */
static void floor_accept(struct mnl_socket *nl, const struct nlmsghdr *nlh)
{
	char buf[128];
	const struct nfgenmsg *g = mnl_nlmsg_get_payload(nlh);
	struct nlattr *attr[NFQA_MAX + 1] = { 0 };
	const struct nfqnl_msg_packet_hdr *ph;
	struct nlmsghdr *v;

	if (nfq_nlmsg_parse(nlh, attr) < 0 || !attr[NFQA_PACKET_HDR])
		return;
	ph = mnl_attr_get_payload(attr[NFQA_PACKET_HDR]);
	v = nfq_nlmsg_put(buf, NFQNL_MSG_VERDICT, ntohs(g->res_id));
	nfq_nlmsg_verdict_put(v, (int)ntohl(ph->packet_id), NF_ACCEPT);
	mnl_socket_sendto(nl, v, v->nlmsg_len);
}

int main(int argc, char **argv)
{
	struct mnl_socket *nl;
	char *end, *buf;
	unsigned long q;
	int rc;

	if (argc != 2 || (q = strtoul(argv[1], &end, 10)) > 65535 || *end || end == argv[1]) {
		fprintf(stderr, "usage: cthbench-floor QUEUE\n");
		return 2;
	}
	buf = malloc(FLOOR_RBUF);
	nl = mnl_socket_open(NETLINK_NETFILTER);
	if (!buf || !nl || mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		perror("floor: netlink socket");
		return 1;
	}
	if ((rc = floor_bind(nl, (uint16_t)q)) < 0) {
		fprintf(stderr, "floor: cannot bind queue %lu: %s\n", q, strerror(-rc));
		return 1;
	}
	printf("floor: bound queue %lu\n", q);
	fflush(stdout);
	for (;;) {
		ssize_t n = recv(mnl_socket_get_fd(nl), buf, FLOOR_RBUF, 0);
		const struct nlmsghdr *nlh = (const void *)buf;
		int rem = (int)n;

		if (n < 0) {
			if (errno == EINTR || errno == ENOBUFS)
				continue;
			perror("floor: recv");
			return 1;
		}
		for (; mnl_nlmsg_ok(nlh, rem); nlh = mnl_nlmsg_next(nlh, &rem))
			if ((nlh->nlmsg_type & 0xff) == NFQNL_MSG_PACKET)
				floor_accept(nl, nlh);
	}
}
