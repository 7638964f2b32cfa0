/* SPDX-License-Identifier: MIT */
/*
 * Kernel capability report.  Each item is probed the way the daemon will
 * use it (a netlink request to the subsystem), so a module that the kernel
 * can autoload counts as present; /sys/module tells which module answered.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_conntrack.h>
#include <linux/netfilter/nfnetlink_cthelper.h>
#include <linux/netfilter/nfnetlink_queue.h>
#include <libnetfilter_queue/libnetfilter_queue.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kcheck.h"
#include "nlreq.h"

/* A queue number unlikely to be in use, borrowed for the glue probe. */
#define KCHECK_PROBE_QUEUE 65535

static int kcheck_queue(struct nlreq *r, bool with_ct);
static int kcheck_ctnetlink(struct nlreq *r);
static int kcheck_cthelper(struct nlreq *r);
static int kcheck_report(const char *what, int rc, const char *fix);
static void kcheck_kernel_helpers(void);
static bool kcheck_is_helper_module(const char *name);

int kcheck_run(void)
{
	struct nlreq r;
	int bad = 0, rc;

	printf("cthelperd kernel check:\n");
	if ((rc = nlreq_open(&r)) < 0) {
		kcheck_report("netfilter netlink socket", rc,
			      "the kernel has no nfnetlink (CONFIG_NETFILTER_NETLINK)");
		return 1;
	}
	rc = kcheck_queue(&r, false);
	bad |= kcheck_report("nfnetlink_queue (NFQUEUE to user space)", rc,
			     rc == -EPERM ? "run as root (CAP_NET_ADMIN)" :
			     rc == -EBUSY ? "queue 65535 is in use; the probe could not run" :
			     "modprobe nfnetlink_queue (CONFIG_NETFILTER_NETLINK_QUEUE)");
	rc = kcheck_ctnetlink(&r);
	bad |= kcheck_report("ctnetlink (expectations, conntrack)", rc,
			     "modprobe nf_conntrack_netlink (CONFIG_NF_CT_NETLINK)");
	if (rc == 0) {
		rc = kcheck_queue(&r, true);
		bad |= kcheck_report("queue/conntrack glue (NFQA_CT)", rc,
				     "rebuild the kernel with CONFIG_NETFILTER_NETLINK_GLUE_CT=y");
	}
	rc = kcheck_cthelper(&r);
	bad |= kcheck_report("cthelper subsystem (user-space helpers)", rc,
			     "modprobe nfnetlink_cthelper, or build and load kmod/ "
			     "(make -C kmod; insmod kmod/cthelperd_nfnl.ko)");
	if (rc == 0)
		printf("           provided by %s\n",
		       kcheck_module_loaded("cthelperd_nfnl") ? "cthelperd_nfnl (kmod/)" :
		       kcheck_module_loaded("nfnetlink_cthelper") ? "nfnetlink_cthelper (in-tree)" :
		       "the kernel image");
	rc = kcheck_module_loaded("nf_nat") ? 0 : -ENOENT;
	bad |= kcheck_report("NAT (nf_nat: nat-follow-master expectations)", rc,
			     "modprobe nf_nat, or load a NAT table (only needed for NAT)");
	nlreq_close(&r);
	kcheck_kernel_helpers();
	printf("%s\n", bad ? "some pieces are missing (see above)" : "everything cthelperd needs is there");
	return bad ? 1 : 0;
}

bool kcheck_module_loaded(const char *name)
{
	char path[128];
	struct stat st;

	snprintf(path, sizeof(path), "/sys/module/%s", name);
	return stat(path, &st) == 0;
}

bool kcheck_kernel_helper_loaded(const char *name, char *module, size_t size)
{
	int n = snprintf(module, size, "nf_conntrack_%s", name);

	return n > 0 && (size_t)n < size && kcheck_module_loaded(module);
}

/* Binding with NFQA_CFG_F_CONNTRACK fails with EOPNOTSUPP when the queue
 * to conntrack glue (CONFIG_NETFILTER_NETLINK_GLUE_CT) is missing. */
static int kcheck_queue(struct nlreq *r, bool with_ct)
{
	char buf[NLREQ_BUF];
	struct nlmsghdr *nlh;
	int rc;

	nlh = nfq_nlmsg_put(buf, NFQNL_MSG_CONFIG, KCHECK_PROBE_QUEUE);
	nfq_nlmsg_cfg_put_cmd(nlh, AF_INET, NFQNL_CFG_CMD_BIND);
	if ((rc = nlreq_talk(r, nlh)) < 0)
		return rc;
	if (with_ct) {
		nlh = nfq_nlmsg_put(buf, NFQNL_MSG_CONFIG, KCHECK_PROBE_QUEUE);
		mnl_attr_put_u32(nlh, NFQA_CFG_FLAGS, htonl(NFQA_CFG_F_CONNTRACK));
		mnl_attr_put_u32(nlh, NFQA_CFG_MASK, htonl(NFQA_CFG_F_CONNTRACK));
		rc = nlreq_talk(r, nlh);
	}
	nlh = nfq_nlmsg_put(buf, NFQNL_MSG_CONFIG, KCHECK_PROBE_QUEUE);
	nfq_nlmsg_cfg_put_cmd(nlh, AF_INET, NFQNL_CFG_CMD_UNBIND);
	nlreq_talk(r, nlh);
	return rc;
}

static int kcheck_ctnetlink(struct nlreq *r)
{
	char buf[NLREQ_BUF];
	struct nlmsghdr *nlh = nlreq_msg_put(buf, NFNL_SUBSYS_CTNETLINK,
					  IPCTNL_MSG_CT_GET_STATS, 0, AF_UNSPEC);

	return nlreq_talk(r, nlh);
}

/* A GET of the helper list answers EOPNOTSUPP when no module provides the
 * subsystem.  A dump reply is drained by nlreq_talk() until its DONE. */
static int kcheck_cthelper(struct nlreq *r)
{
	char buf[NLREQ_BUF];
	struct nlmsghdr *nlh = nlreq_msg_put(buf, NFNL_SUBSYS_CTHELPER,
					  NFNL_MSG_CTHELPER_GET, NLM_F_DUMP,
					  AF_UNSPEC);

	return nlreq_talk(r, nlh);
}

static int kcheck_report(const char *what, int rc, const char *fix)
{
	if (rc == 0) {
		printf("  ok       %s\n", what);
		return 0;
	}
	printf("  MISSING  %s: %s\n           -> %s\n", what, strerror(-rc), fix);
	return 1;
}

/* In-kernel helpers take their names: say which are loaded. */
static void kcheck_kernel_helpers(void)
{
	struct dirent *de;
	DIR *d = opendir("/sys/module");
	unsigned int n = 0;

	if (!d)
		return;
	while ((de = readdir(d)) != NULL) {
		if (!kcheck_is_helper_module(de->d_name))
			continue;
		if (n++ == 0)
			printf("  note     in-kernel helpers loaded (cthelperd cannot register "
			       "helpers of their names, EBUSY; 'modprobe -r' them first):\n");
		printf("           %s: helper name '%s'\n", de->d_name, de->d_name + 13);
	}
	closedir(d);
}

/* Modules called nf_conntrack_* that are not protocol helpers. */
static bool kcheck_is_helper_module(const char *name)
{
	static const char *const not_helpers[] = {
		"nf_conntrack", "nf_conntrack_netlink", "nf_conntrack_bridge",
		"nf_conntrack_ipv4", "nf_conntrack_ipv6",
	};

	if (strncmp(name, "nf_conntrack_", 13) != 0)
		return false;
	for (size_t i = 0; i < sizeof(not_helpers) / sizeof(not_helpers[0]); i++)
		if (strcmp(name, not_helpers[i]) == 0)
			return false;
	return true;
}
