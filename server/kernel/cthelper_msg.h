/* SPDX-License-Identifier: MIT */
#ifndef CTH_CTHELPER_MSG_H
#define CTH_CTHELPER_MSG_H

#include <libmnl/libmnl.h>
#include <stdint.h>

#include "nlreq.h"
#include "runtime/runtime.h"

/* One expectation class of a kernel helper. */
struct cthelper_class {
	char name[CTH_NAME_LEN];
	uint32_t max, timeout;
};

/* A kernel helper as NFNL_MSG_CTHELPER_GET reports it. */
struct cthelper_state {
	char name[CTH_NAME_LEN];
	int family, proto;
	uint32_t queue;
	uint32_t status;      /* NFCT_HELPER_STATUS_* */
	uint32_t priv_len;
	uint32_t n_classes;   /* as reported; at most CTH_CLASS_MAX are kept */
	struct cthelper_class classes[CTH_CLASS_MAX];
};

/* Create or update (a NEW for an existing name is an update) the kernel
 * helper for one (family, protocol) of an instance, with its whole
 * definition and status. */
int cthelper_msg_new(struct nlreq *r, const struct instance *in, int family,
		     int proto, uint32_t status);
/* The same NEW built into buf (NLREQ_BUF bytes), not sent: the helper's
 * definition and kmod/'s CTHD_NFCTH_MATCH with the plugin's rules. */
struct nlmsghdr *cthelper_msg_new_put(char *buf, const struct instance *in, int family,
				      int proto, uint32_t status);
/* Set only the status (NFCT_HELPER_STATUS_*) of an existing helper,
 * whatever its definition. */
int cthelper_msg_status(struct nlreq *r, const char *name, int family,
			int proto, uint32_t status);
int cthelper_msg_del(struct nlreq *r, const char *name, int family, int proto);
/* The user-space kernel helper NAME for (family, proto): 0, -ENOENT when
 * there is none, or another negative errno. */
int cthelper_msg_get(struct nlreq *r, const char *name, int family, int proto,
		     struct cthelper_state *out);
/* Parse one NFNL_MSG_CTHELPER_NEW message (a GET answer): 0 or -EINVAL. */
int cthelper_msg_parse(const struct nlmsghdr *nlh, struct cthelper_state *out);
/* Why a request failed, in operator terms. */
const char *cthelper_msg_explain(int err);

#endif
