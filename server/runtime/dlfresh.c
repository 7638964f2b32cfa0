/* SPDX-License-Identifier: MIT */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dlfresh.h"

/*
 * Live handles and the file each was loaded from.  Two runtimes at most
 * are alive (the grace period of a reload) plus those a stuck reload
 * keeps, so a small table does.
 */
#define DLFRESH_MAX 512
#define DLFRESH_TRIES 16

static struct dlfresh_live {
	void *dl;
	dev_t dev;
	ino_t ino;
	unsigned int refs;
} dlfresh_live[DLFRESH_MAX];

static bool dlfresh_stale(const void *dl, const struct stat *st);
static void *dlfresh_by_fd(const char *path, struct stat *st);
static void *dlfresh_note(void *dl, const struct stat *st);
static struct dlfresh_live *dlfresh_find(const void *dl);

void *dlfresh_open(const char *path)
{
	struct stat st;
	void *dl;

	if (stat(path, &st) < 0)
		return dlopen(path, RTLD_NOW | RTLD_LOCAL);  /* its error names the file */
	dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (dl && dlfresh_stale(dl, &st)) {
		dlclose(dl);
		dl = dlfresh_by_fd(path, &st);
	}
	return dl ? dlfresh_note(dl, &st) : NULL;
}

void dlfresh_close(void *dl)
{
	struct dlfresh_live *l = dlfresh_find(dl);

	if (l)
		l->refs--;
	dlclose(dl);
}

/* Is dl an object loaded from another file than st? */
static bool dlfresh_stale(const void *dl, const struct stat *st)
{
	const struct dlfresh_live *l = dlfresh_find(dl);

	return l && (l->dev != st->st_dev || l->ino != st->st_ino);
}

/*
 * The file was replaced under a loaded name: load it through a name no
 * loaded object has, /proc/self/fd/N of a descriptor of the new file (N
 * moves up while a name is taken by an older load).  glibc still shares
 * an object when the file itself is loaded already (it compares device
 * and inode after opening).
 */
static void *dlfresh_by_fd(const char *path, struct stat *st)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char name[64];
	void *dl = NULL;

	if (fd < 0 || fstat(fd, st) < 0)
		goto out;
	for (int i = 0; i < DLFRESH_TRIES; i++) {
		int nfd;

		snprintf(name, sizeof(name), "/proc/self/fd/%d", fd);
		dl = dlopen(name, RTLD_NOW | RTLD_LOCAL);
		if (!dl || !dlfresh_stale(dl, st))
			break;
		dlclose(dl);
		dl = NULL;
		nfd = fcntl(fd, F_DUPFD_CLOEXEC, fd + 1);
		if (nfd < 0)
			break;
		close(fd);
		fd = nfd;
	}
out:
	if (fd >= 0)
		close(fd);
	return dl;
}

static void *dlfresh_note(void *dl, const struct stat *st)
{
	struct dlfresh_live *l = dlfresh_find(dl);

	if (!l) {
		for (size_t i = 0; i < DLFRESH_MAX && !l; i++)
			if (!dlfresh_live[i].refs)
				l = &dlfresh_live[i];
		if (!l) {
			/* not remembered: a later replacement of this file is
			 * then not noticed, nothing worse */
			return dl;
		}
		l->dl = dl;
		l->dev = st->st_dev;
		l->ino = st->st_ino;
	}
	l->refs++;
	return dl;
}

static struct dlfresh_live *dlfresh_find(const void *dl)
{
	for (size_t i = 0; i < DLFRESH_MAX; i++)
		if (dlfresh_live[i].refs && dlfresh_live[i].dl == dl)
			return &dlfresh_live[i];
	return NULL;
}
