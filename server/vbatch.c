/* SPDX-License-Identifier: MIT */
/* Verdicts collected for one sendmsg() (see vbatch.h). */
#include <errno.h>
#include <libmnl/libmnl.h>
#include <stdlib.h>
#include <string.h>

#include "vbatch.h"

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
