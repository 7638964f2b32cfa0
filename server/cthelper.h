/* SPDX-License-Identifier: MIT */
#ifndef CTH_CTHELPER_H
#define CTH_CTHELPER_H

#include <libmnl/libmnl.h>
#include <stdint.h>

#include "runtime.h"

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

/* Create or update (a NEW for an existing name is an update) the kernel
 * helper for one (family, protocol) of an instance. */
int cthelper_register(struct nlreq *r, const struct instance *in, int family,
		      int proto, uint32_t status);
int cthelper_delete(struct nlreq *r, const char *name, int family, int proto);
/* Why a registration failed, in operator terms. */
const char *cthelper_explain(int err);

/* Register/disable/delete every kernel helper of a runtime. */
int cthelper_register_all(struct nlreq *r, const struct runtime *rt);
void cthelper_disable_all(struct nlreq *r, const struct runtime *rt);
void cthelper_delete_all(struct nlreq *r, const struct runtime *rt);

#endif
