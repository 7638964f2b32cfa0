/* SPDX-License-Identifier: MIT */
/*
 * The host's interface addresses (addrtab.h): one RTM_GETADDR dump of
 * every family, read into a bounded table.  The socket has a receive
 * timeout, so a worker never waits on rtnetlink for long; the caller
 * decides how often to read (worker/worker_link.c: at most once a second,
 * only when a plugin asks).
 */
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/if_addr.h>
#include <linux/rtnetlink.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>

#include "addrtab.h"

/* A dump answers at once; this bounds a worker's wait if it does not. */
#define ADDRTAB_TIMEOUT_US 200000
#define ADDRTAB_BUF 16384

static int addrtab_open(struct addrtab *t);
static int addrtab_msg(const struct nlmsghdr *nlh, struct addrtab *t);
static int addrtab_attr_cb(const struct nlattr *a, void *data);

int addrtab_read(struct addrtab *t)
{
	char buf[ADDRTAB_BUF];
	struct nlmsghdr *nlh;
	struct ifaddrmsg *ifa;
	int rc;

	t->n = 0;
	t->left_out = 0;
	if (!t->nl && (rc = addrtab_open(t)) < 0)
		return rc;
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_GETADDR;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = ++t->seq;
	ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
	ifa->ifa_family = AF_UNSPEC;
	if (mnl_socket_sendto(t->nl, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	for (;;) {
		ssize_t n = mnl_socket_recvfrom(t->nl, buf, sizeof(buf));
		const struct nlmsghdr *m = (const void *)buf;
		int rem = (int)n;

		if (n < 0) {
			rc = errno == EAGAIN ? -ETIMEDOUT : -errno;
			goto fail;
		}
		for (; mnl_nlmsg_ok(m, rem); m = mnl_nlmsg_next(m, &rem)) {
			rc = addrtab_msg(m, t);
			if (rc < 0)
				goto fail;
			if (rc > 0)
				return 0;
		}
	}
fail:
	/* the rest of a dump may still come: a fresh socket for the next
	 * read, so it is not taken for that one's answer */
	addrtab_close(t);
	t->n = 0;
	return rc;
}

void addrtab_close(struct addrtab *t)
{
	if (t->nl)
		mnl_socket_close(t->nl);
	t->nl = NULL;
}

static int addrtab_open(struct addrtab *t)
{
	struct timeval tv = { .tv_usec = ADDRTAB_TIMEOUT_US };
	int e;

	t->nl = mnl_socket_open(NETLINK_ROUTE);
	if (!t->nl)
		return -errno;
	if (setsockopt(mnl_socket_get_fd(t->nl), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0 ||
	    mnl_socket_bind(t->nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		e = -errno;
		addrtab_close(t);
		return e;
	}
	t->portid = mnl_socket_get_portid(t->nl);
	t->seq = (uint32_t)time(NULL);
	return 0;
}

/* One message of the dump: 1 done, 0 read on, or a negative errno.
 * Messages of another request (sequence, port) are skipped. */
static int addrtab_msg(const struct nlmsghdr *nlh, struct addrtab *t)
{
	const struct ifaddrmsg *ifa = mnl_nlmsg_get_payload(nlh);
	struct nlattr *tb[IFA_MAX + 1] = { 0 };
	const struct nlattr *addr;
	struct addrtab_addr *a;
	size_t alen;
	uint32_t flags;

	if (nlh->nlmsg_seq != t->seq || (nlh->nlmsg_pid && nlh->nlmsg_pid != t->portid))
		return 0;
	if (nlh->nlmsg_type == NLMSG_DONE)
		return 1;
	if (nlh->nlmsg_type == NLMSG_ERROR) {
		const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);

		if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*e)))
			return -EBADMSG;
		return e->error ? e->error : 1;
	}
	if (nlh->nlmsg_type != RTM_NEWADDR || nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*ifa)) ||
	    (ifa->ifa_family != AF_INET && ifa->ifa_family != AF_INET6))
		return 0;
	if (mnl_attr_parse(nlh, sizeof(*ifa), addrtab_attr_cb, tb) < 0)
		return -EBADMSG;
	alen = ifa->ifa_family == AF_INET ? 4 : 16;
	/* IPv4: IFA_LOCAL is the address, IFA_ADDRESS the peer of a
	 * point-to-point link; IPv6 sends IFA_ADDRESS alone */
	addr = tb[IFA_LOCAL] ? tb[IFA_LOCAL] : tb[IFA_ADDRESS];
	if (!addr || mnl_attr_get_payload_len(addr) != alen)
		return 0;
	if (t->n == ADDRTAB_MAX) {
		t->left_out++;
		return 0;
	}
	a = &t->a[t->n++];
	memset(a, 0, sizeof(*a));
	flags = tb[IFA_FLAGS] ? mnl_attr_get_u32(tb[IFA_FLAGS]) : ifa->ifa_flags;
	a->ifindex = ifa->ifa_index;
	a->family = ifa->ifa_family;
	a->prefix = ifa->ifa_prefixlen;
	a->scope = ifa->ifa_scope;
	a->secondary = flags & IFA_F_SECONDARY;
	memcpy(a->addr.raw, mnl_attr_get_payload(addr), alen);
	if (ifa->ifa_family == AF_INET && tb[IFA_BROADCAST] &&
	    mnl_attr_get_payload_len(tb[IFA_BROADCAST]) == 4) {
		a->has_brd = true;
		memcpy(a->brd.raw, mnl_attr_get_payload(tb[IFA_BROADCAST]), 4);
	}
	return 0;
}

static int addrtab_attr_cb(const struct nlattr *a, void *data)
{
	struct nlattr **tb = data;
	uint16_t type = mnl_attr_get_type(a);

	if (mnl_attr_type_valid(a, IFA_MAX) < 0)
		return MNL_CB_OK;
	if (type == IFA_FLAGS && mnl_attr_validate(a, MNL_TYPE_U32) < 0)
		return MNL_CB_OK;
	tb[type] = (struct nlattr *)(uintptr_t)a;
	return MNL_CB_OK;
}
