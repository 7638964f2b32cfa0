/* SPDX-License-Identifier: MIT */
/* The receive vector of a queue worker: see rxvec.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rxvec.h"

int rxvec_init(struct rxvec *v, unsigned int slots, size_t size)
{
	memset(v, 0, sizeof(*v));
	v->buf = malloc(slots * size);
	v->msg = calloc(slots, sizeof(*v->msg));
	v->iov = calloc(slots, sizeof(*v->iov));
	if (!v->buf || !v->msg || !v->iov)
		return -ENOMEM;
	v->slots = slots;
	v->size = size;
	for (unsigned int i = 0; i < slots; i++) {
		v->iov[i].iov_base = v->buf + (size_t)i * size;
		v->iov[i].iov_len = size;
		v->msg[i].msg_hdr.msg_iov = &v->iov[i];
		v->msg[i].msg_hdr.msg_iovlen = 1;
	}
	return 0;
}

void rxvec_free(struct rxvec *v)
{
	free(v->buf);
	free(v->msg);
	free(v->iov);
	memset(v, 0, sizeof(*v));
}

int rxvec_recv(struct rxvec *v, int fd, bool wait)
{
	int n = recvmmsg(fd, v->msg, v->slots, wait ? MSG_WAITFORONE : MSG_DONTWAIT, NULL);

	if (n < 0)
		return -errno;
	return n ? n : -EAGAIN;
}

char *rxvec_get(const struct rxvec *v, unsigned int i, size_t *len, bool *cut)
{
	*len = v->msg[i].msg_len;
	*cut = v->msg[i].msg_hdr.msg_flags & MSG_TRUNC;
	return v->iov[i].iov_base;
}
