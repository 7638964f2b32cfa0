/* SPDX-License-Identifier: MIT */
/*
 * Describe a plugin in a sandbox (describe.h).  The file is checked here
 * as the loader checks it (the sandbox's user is not the daemon's: its
 * own check would let a file that user owns through), the sandbox must
 * have loaded that very file, and its answer is copied out of shared
 * memory once, after it was killed: nothing it writes later is read.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "chan.h"
#include "confine.h"
#include "describe.h"
#include "describe_wire.h"
#include "sandbox.h"
#include "spawn.h"

static int describe_run(const char *dir, const char *name, uint64_t dev, uint64_t ino,
			struct chan_describe *copy, char *why, size_t len);
static void describe_death(const struct chan_shm *shm, const char *name, int status,
			   char *why, size_t len);

int sandbox_describe(const char *dir, const char *name, struct plugin **out, char *err,
		     size_t errlen)
{
	struct chan_describe *copy;
	char path[4096], why[CHAN_ERR_MAX];
	uint64_t dev, ino;
	int rc;

	snprintf(path, sizeof(path), "%s/%s.so", dir, name);
	if ((rc = loader_file_vet(path, &dev, &ino, err, errlen)) < 0)
		return rc;
	copy = malloc(sizeof(*copy));
	if (!copy) {
		snprintf(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	rc = describe_run(dir, name, dev, ino, copy, why, sizeof(why));
	if (rc < 0)
		snprintf(err, errlen, "%s", why);
	else
		rc = describe_wire_take(copy, path, name, dev, ino, out, err, errlen);
	free(copy);
	return rc;
}

/* A describing sandbox started, its answer copied, the sandbox ended. */
static int describe_run(const char *dir, const char *name, uint64_t dev, uint64_t ino,
			struct chan_describe *copy, char *why, size_t len)
{
	struct chan_shm *shm;
	struct chan_setup *s;
	int sv[2], memfd, rc, status = 0;
	bool ready = false;
	uint32_t word = 0;
	pid_t pid;

	why[0] = '\0';
	if ((rc = chan_shm_create(&shm, &memfd)) < 0) {
		snprintf(why, len, "cannot describe plugin '%s': %s", name, strerror(-rc));
		return rc;
	}
	s = &shm->setup;
	s->mode = CHAN_MODE_DESCRIBE;
	snprintf(s->plugin_dir, sizeof(s->plugin_dir), "%s", dir);
	snprintf(s->plugin, sizeof(s->plugin), "%s", name);
	s->dev = dev;
	s->ino = ino;
	s->memory = (uint64_t)CFG_SANDBOX_MEMORY_MB << 20;
	s->status = -EINPROGRESS;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		rc = -errno;
		close(memfd);
		chan_shm_unmap(shm);
		snprintf(why, len, "cannot describe plugin '%s': %s", name, strerror(-rc));
		return rc;
	}
	rc = spawn_start(sv[1], memfd, &pid);
	close(sv[1]);
	close(memfd);
	if (rc == 0) {
		rc = chan_ring_wait(sv[0], SANDBOX_SETUP_MS, &word);
		if (rc == 0 && word != CHAN_RING_READY)
			rc = -EPROTO;
		close(sv[0]);
		spawn_kill(pid);
		if (spawn_reap(pid, &status) < 0)
			status = 0;
		/* read once, from a process that is gone */
		if (rc == 0) {
			ready = true;
			rc = shm->setup.status;
			memcpy(why, shm->setup.err, len < CHAN_ERR_MAX ? len : CHAN_ERR_MAX);
			why[len - 1] = '\0';
			memcpy(copy, &shm->slot[0].describe, sizeof(*copy));
			if (rc > 0)
				rc = -EPROTO;
		}
	} else {
		close(sv[0]);
		snprintf(why, len, "plugin '%s': cannot start a sandbox to describe it: %s",
			 name, strerror(-rc));
		ready = true;
	}
	if (rc == 0) {
		chan_shm_unmap(shm);
		return 0;
	}
	if (rc == -ETIMEDOUT)
		snprintf(why, len, "plugin '%s': its sandbox took more than %u ms to load it",
			 name, SANDBOX_SETUP_MS);
	else if (!ready)
		describe_death(shm, name, status, why, len);
	else
		/* the sandbox's own words: shown, never interpreted */
		for (char *p = why; *p; p++)
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				*p = '?';
	if (!why[0])
		snprintf(why, len, "plugin '%s': its sandbox could not load it: %s", name,
			 strerror(-rc));
	chan_shm_unmap(shm);
	return rc;
}

/* Why a describing sandbox died before it answered. */
static void describe_death(const struct chan_shm *shm, const char *name, int status,
			   char *why, size_t len)
{
	const char *sys;

	if (WIFEXITED(status) && WEXITSTATUS(status) == CONFINE_EXIT_SYSCALL) {
		sys = confine_syscall_name(shm->sigsys_nr);
		snprintf(why, len, "plugin '%s': its sandbox refused system call %s%s%u "
			 "while loading it", name, sys ? sys : "",
			 sys ? " " : "", (unsigned)shm->sigsys_nr);
	} else if (WIFSIGNALED(status)) {
		snprintf(why, len, "plugin '%s': its sandbox died loading it: signal %d (%s)",
			 name, WTERMSIG(status), strsignal(WTERMSIG(status)));
	} else {
		snprintf(why, len, "plugin '%s': its sandbox died loading it", name);
	}
}
