/* SPDX-License-Identifier: MIT */
/*
 * The daemon's side of the spawner (sandboxd/spawner.c): the one process
 * that may start a sandbox under another user and kill it.  The daemon
 * starts it first thing, while it is still one thread and root; it keeps
 * only CAP_SETUID, CAP_SETGID and CAP_KILL, so the daemon itself never
 * needs them after its privilege drop.  Requests are answered in order,
 * one at a time (a lock: workers and the main thread both ask).
 */
#ifndef CTH_SPAWN_H
#define CTH_SPAWN_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "runtime/config.h"

/* The requests, as the spawner reads them. */
enum spawn_op {
	SPAWN_OP_START = 1,     /* SCM_RIGHTS: channel socket, channel memfd */
	SPAWN_OP_KILL,          /* pid: SIGKILL */
	SPAWN_OP_REAP,          /* pid: wait for it; status in the answer */
};

struct spawn_msg {
	uint32_t op;
	int32_t pid;
	int32_t rc;             /* answer: 0 or a negative errno */
	int32_t status;         /* answer to REAP: the wait status */
};

/* The program, the spawner and sandboxes run (also the name the spawner
 * finds next to the daemon: a build tree runs its own). */
#define SPAWN_PROGRAM_NAME "cthelperd-sandbox"

/* Start the spawner for cfg's sandbox_user (or the default user): 0, or
 * a negative errno, logged.  Only while the process is one thread. */
int spawn_open(const struct cfg *cfg);
bool spawn_is_open(void);
/* Close the spawner's socket: it kills what is left and exits. */
void spawn_close(void);

/* Start a sandbox on the channel (sock: its end, memfd): 0 and *pid. */
int spawn_start(int sock, int memfd, pid_t *pid);
int spawn_kill(pid_t pid);
/* After spawn_kill() or a death: 0 and *status (waitpid's). */
int spawn_reap(pid_t pid, int *status);
/* Tests: the program to run instead of the one found (spawn_open()). */
void spawn_program_set(const char *path);
/* The user sandboxes run as, for the log ("nobody", "(the daemon's)"). */
const char *spawn_user(void);

#endif
