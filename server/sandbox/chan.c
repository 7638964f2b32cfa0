/* SPDX-License-Identifier: MIT */
/* The channel's pieces both sides use (chan.h). */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "chan.h"

int chan_shm_create(struct chan_shm **shm, int *fd)
{
	int f = memfd_create("cthelperd-channel", MFD_CLOEXEC);
	void *m;

	if (f < 0)
		return -errno;
	if (ftruncate(f, sizeof(struct chan_shm)) < 0) {
		int rc = -errno;

		close(f);
		return rc;
	}
	m = mmap(NULL, sizeof(struct chan_shm), PROT_READ | PROT_WRITE, MAP_SHARED, f, 0);
	if (m == MAP_FAILED) {
		int rc = -errno;

		close(f);
		return rc;
	}
	*shm = m;
	(*shm)->magic = CHAN_MAGIC;
	(*shm)->version = CHAN_VERSION;
	*fd = f;
	return 0;
}

int chan_shm_map(int fd, struct chan_shm **shm)
{
	struct stat st;
	void *m;

	if (fstat(fd, &st) < 0)
		return -errno;
	if ((size_t)st.st_size != sizeof(struct chan_shm))
		return -EPROTO;
	m = mmap(NULL, sizeof(struct chan_shm), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return -errno;
	*shm = m;
	if ((*shm)->magic != CHAN_MAGIC || (*shm)->version != CHAN_VERSION) {
		munmap(m, sizeof(struct chan_shm));
		return -EPROTO;
	}
	return 0;
}

void chan_shm_unmap(struct chan_shm *shm)
{
	if (shm)
		munmap(shm, sizeof(*shm));
}

int chan_ring(int fd, uint32_t word)
{
	ssize_t n = send(fd, &word, sizeof(word), MSG_NOSIGNAL);

	if (n == (ssize_t)sizeof(word))
		return 0;
	if (n < 0 && (errno == EPIPE || errno == ECONNRESET))
		return -EPIPE;
	return n < 0 ? -errno : -EIO;
}

int chan_ring_wait(int fd, int ms, uint32_t *word)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int r;

	if (ms >= 0) {
		do
			r = poll(&p, 1, ms);
		while (r < 0 && errno == EINTR);
		if (r < 0)
			return -errno;
		if (r == 0)
			return -ETIMEDOUT;
	}
	return chan_ring_take(fd, word);
}

int chan_ring_timeout_set(int fd, unsigned int ms)
{
	struct timeval tv = { .tv_sec = ms / 1000u, .tv_usec = (ms % 1000u) * 1000 };

	return setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0 ? -errno : 0;
}

int chan_ring_take(int fd, uint32_t *word)
{
	ssize_t n;

	do
		n = recv(fd, word, sizeof(*word), 0);
	while (n < 0 && errno == EINTR);
	if (n == (ssize_t)sizeof(*word))
		return 0;
	/* 0: the other end closed (a sandbox that died); a short word is
	 * no word of ours */
	if (n == 0 || (n < 0 && errno == ECONNRESET))
		return -EPIPE;
	/* SO_RCVTIMEO ran out (socket(7)) */
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return -ETIMEDOUT;
	return n < 0 ? -errno : -EPROTO;
}

int chan_rec_put(struct chan_res *res, uint16_t type, const void *a, size_t alen,
		 const void *b, size_t blen)
{
	struct chan_rec h = { .type = type, .len = (uint16_t)(alen + blen) };
	size_t need = sizeof(h) + alen + blen;

	if (alen + blen > UINT16_MAX || res->rec_used > CHAN_REC_BYTES ||
	    need > CHAN_REC_BYTES - res->rec_used)
		return -ENOSPC;
	memcpy(res->rec + res->rec_used, &h, sizeof(h));
	if (alen)
		memcpy(res->rec + res->rec_used + sizeof(h), a, alen);
	if (blen)
		memcpy(res->rec + res->rec_used + sizeof(h) + alen, b, blen);
	res->rec_used += (uint32_t)need;
	return 0;
}

void chan_expect_put(struct chan_expect *w, const struct cth_expect *e)
{
	memset(w, 0, sizeof(*w));
	w->e = *e;
	w->e.fn = NULL;
	if (e->fn) {
		w->has_fn = 1;
		strncpy(w->fn, e->fn, sizeof(w->fn) - 1);
	}
}

/* w is the worker's own copy: the name is cut one byte past the host's
 * limit, and a name that long is refused there (PKT_EXPECT_FN_MAX). */
void chan_expect_get(struct chan_expect *w, struct cth_expect *out)
{
	w->fn[sizeof(w->fn) - 1] = '\0';
	*out = w->e;
	out->fn = w->has_fn ? w->fn : NULL;
}
