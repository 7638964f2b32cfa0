/* SPDX-License-Identifier: MIT */
/*
 * The receive vector (server/worker/rxvec.c) over an AF_UNIX datagram socket
 * pair, which cuts a datagram larger than the buffer the way netlink
 * does (MSG_TRUNC, the rest gone): as many datagrams per receive as
 * there are slots, fewer when fewer wait, -EAGAIN when none, and a
 * datagram larger than its slot reported cut, not lost.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check.h"
#include "worker/rxvec.h"

static void dgram_send(int fd, unsigned char tag, size_t len)
{
	static unsigned char b[4096];

	memset(b, tag, len);
	if (send(fd, b, len, 0) != (ssize_t)len)
		printf("send failed\n");
}

/* Is datagram i of the last receive len bytes of tag? */
static bool dgram_is(const struct rxvec *v, unsigned int i, unsigned char tag,
		     size_t len, bool cut)
{
	size_t n;
	bool c;
	const unsigned char *p = (const unsigned char *)rxvec_get(v, i, &n, &c);

	if (n != len || c != cut)
		return false;
	for (size_t k = 0; k < n; k++)
		if (p[k] != tag)
			return false;
	return true;
}

int main(void)
{
	struct rxvec v;
	int sv[2], n, n2;

	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) < 0 || rxvec_init(&v, 4, 256) < 0) {
		printf("FAIL rxvec/setup: %s\n", strerror(errno));
		return 1;
	}
	n = rxvec_recv(&v, sv[1], false);
	CHECK("rxvec/empty-is-eagain", n == -EAGAIN, "n %d", n);

	dgram_send(sv[0], 1, 10);
	dgram_send(sv[0], 2, 256);
	dgram_send(sv[0], 3, 1);
	n = rxvec_recv(&v, sv[1], false);
	CHECK("rxvec/fewer-than-slots", n == 3 && dgram_is(&v, 0, 1, 10, false) &&
	      dgram_is(&v, 1, 2, 256, false) && dgram_is(&v, 2, 3, 1, false), "n %d", n);

	for (unsigned char t = 1; t <= 6; t++)
		dgram_send(sv[0], t, 20u * t);
	n = rxvec_recv(&v, sv[1], false);
	n2 = rxvec_recv(&v, sv[1], false);
	CHECK("rxvec/full-then-rest", n == 4 && n2 == 2 && dgram_is(&v, 0, 5, 100, false) &&
	      dgram_is(&v, 1, 6, 120, false), "n %d then %d", n, n2);

	dgram_send(sv[0], 7, 300);
	dgram_send(sv[0], 8, 30);
	n = rxvec_recv(&v, sv[1], false);
	CHECK("rxvec/larger-than-slot-flagged-cut", n == 2 &&
	      dgram_is(&v, 0, 7, 256, true) && dgram_is(&v, 1, 8, 30, false), "n %d", n);
	n = rxvec_recv(&v, sv[1], false);
	CHECK("rxvec/drained", n == -EAGAIN, "n %d", n);

	rxvec_free(&v);
	close(sv[0]);
	close(sv[1]);
	return check_exit();
}
