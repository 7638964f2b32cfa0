/* SPDX-License-Identifier: MIT */
/* Verdicts collected for one sendmsg() (see vbatch.h). */
#include <errno.h>
#include <libmnl/libmnl.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nfnetlink.h>

#include "vbatch.h"
#include "verdict.h"

static int vbatch_send_tries(vbatch_send_fn *send, void *arg, const void *buf,
			     size_t len);
static bool vbatch_transient(int err);
static int vbatch_send_drop(const struct nlmsghdr *nlh, uint32_t id,
			    vbatch_send_fn *send, void *arg);

int vbatch_init(struct vbatch *b, size_t cap, size_t goal)
{
	memset(b, 0, sizeof(*b));
	b->buf = malloc(cap);
	if (!b->buf)
		return -ENOMEM;
	b->cap = cap;
	b->goal = goal < cap ? goal : cap;
	return 0;
}

void vbatch_free(struct vbatch *b)
{
	free(b->buf);
	memset(b, 0, sizeof(*b));
}

char *vbatch_room(const struct vbatch *b, size_t need)
{
	if (b->n == 0)
		return need <= b->cap ? b->buf : NULL;
	if (b->n == VBATCH_MAX || b->len + need > b->goal)
		return NULL;
	return b->buf + b->len;
}

void vbatch_add(struct vbatch *b, uint32_t id, int tag)
{
	const struct nlmsghdr *nlh = (const void *)(b->buf + b->len);

	b->id[b->n] = id;
	b->tag[b->n] = tag;
	b->n++;
	/* mnl keeps nlmsg_len aligned; the next message starts aligned */
	b->len += MNL_ALIGN(nlh->nlmsg_len);
}

void vbatch_clear(struct vbatch *b)
{
	b->len = 0;
	b->n = 0;
}

void vbatch_send(const struct vbatch *b, vbatch_send_fn *send, void *arg,
		 struct vbatch_sent *r)
{
	const char *at = b->buf;

	memset(r, 0, sizeof(*r));
	if (!b->n)
		return;
	r->err = send(arg, b->buf, b->len);
	if (r->err == 0) {
		for (unsigned int i = 0; i < b->n; i++)
			r->ok[i] = true;
		return;
	}
	for (unsigned int i = 0; i < b->n; i++) {
		const struct nlmsghdr *nlh = (const void *)at;

		at += MNL_ALIGN(nlh->nlmsg_len);
		r->retried++;
		if (vbatch_send_tries(send, arg, nlh, nlh->nlmsg_len) == 0)
			r->ok[i] = true;
		else if (vbatch_send_drop(nlh, b->id[i], send, arg) == 0)
			r->dropped++;
		else
			r->lost++;
	}
}

/* One datagram, again while it fails for want of memory. */
static int vbatch_send_tries(vbatch_send_fn *send, void *arg, const void *buf,
			     size_t len)
{
	int rc = 0;

	for (unsigned int t = 0; t < VBATCH_TRIES; t++)
		if (!vbatch_transient(rc = send(arg, buf, len)))
			break;
	return rc;
}

static bool vbatch_transient(int err)
{
	return err == -ENOBUFS || err == -ENOMEM || err == -EAGAIN || err == -EINTR;
}

/* The last resort for the verdict message nlh: a DROP of its packet. */
static int vbatch_send_drop(const struct nlmsghdr *nlh, uint32_t id,
			    vbatch_send_fn *send, void *arg)
{
	char buf[VERDICT_HEAD_MAX];
	const struct nfgenmsg *g = mnl_nlmsg_get_payload(nlh);
	struct nlmsghdr *d = verdict_put(buf, ntohs(g->res_id), id, true, NULL,
					 NULL, 0, NULL);

	return vbatch_send_tries(send, arg, d, d->nlmsg_len);
}
