/* SPDX-License-Identifier: MIT */
#ifndef CTH_NLREQ_H
#define CTH_NLREQ_H

#include <libmnl/libmnl.h>
#include <stdint.h>

/* Big enough for any request we build or ack we read (not a VLA like
 * MNL_SOCKET_BUFFER_SIZE). */
#define NLREQ_BUF 8192

/* A netlink socket for nfnetlink requests that want an ack. */
struct nlreq {
	struct mnl_socket *nl;
	uint32_t portid;
	uint32_t seq;
};

int nlreq_open(struct nlreq *r);
void nlreq_close(struct nlreq *r);
/* Start an nfnetlink request: netlink header for subsys/type, then the
 * nfgenmsg with family; attributes follow. */
struct nlmsghdr *nlreq_msg_put(char *buf, uint8_t subsys, uint8_t type,
			       uint16_t flags, uint8_t family);
/* Send nlh (NLM_F_ACK is added) and wait for its ack: 0 or -errno. */
int nlreq_talk(struct nlreq *r, struct nlmsghdr *nlh);
/* The same, handing every answer message of the request to cb (a GET). */
int nlreq_talk_cb(struct nlreq *r, struct nlmsghdr *nlh, mnl_cb_t cb,
		  void *data);

#endif
