/* SPDX-License-Identifier: MIT */
/* A helper instance's sandbox, the daemon's side (sandbox.h). */
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "chan.h"
#include "chan_check.h"
#include "confine.h"
#include "host/call.h"
#include "host/keep.h"
#include "sandbox.h"
#include "spawn.h"

_Static_assert(SANDBOX_BATCH_MAX == CHAN_SLOTS, "a batch is the channel's slots");

enum sandbox_state {
	SANDBOX_DOWN,           /* none running: retry_ms says when */
	SANDBOX_STARTING,       /* started, not set up yet */
	SANDBOX_UP,
};

struct sandbox {
	pthread_mutex_t lock;
	struct instance *in;
	const char *plugin_dir;
	enum sandbox_state state;
	int sock;               /* our end of the doorbell, -1: none */
	struct chan_shm *shm;
	pid_t pid;
	uint64_t started_ms, retry_ms;
	uint32_t backoff_ms;
	unsigned int starts;
	struct chan_check chk;  /* what the worker read of shared memory */
	uint32_t rcvtimeo_ms;   /* sock's SO_RCVTIMEO, 0: none */
	/* the batch posted now (sandbox_post() to sandbox_batch_close(), the
	 * lock held throughout): slots posted, taken, whether rung, and the
	 * failure that ended it (every slot not taken yet is lost) */
	unsigned int batch_n, batch_taken;
	bool batch_open, batch_rung;
	int batch_err;
	uint64_t turn_ms;       /* when the slot taken next began: its budget's start */
	/* the first start's answer when the plugin refused its configuration:
	 * printed as the daemon prints configuration errors */
	int cfg_line;
	char cfg_err[CHAN_ERR_MAX];
};

/* Why a sandbox is ended, for the counter and the log. */
enum sandbox_end {
	SANDBOX_END_DIED,       /* on its own: a signal, an exit */
	SANDBOX_END_TIMEOUT,
	SANDBOX_END_CHANNEL,
	SANDBOX_END_SETUP,
	SANDBOX_END_CONFIG,     /* the first setup: the configuration refused */
	SANDBOX_END_STOP,
};

static int sandbox_spawn(struct sandbox *sb, uint64_t now);
static int sandbox_setup_write(struct sandbox *sb);
static void sandbox_defer_write(struct chan_defer *w, const struct keys_defer *df);
static int sandbox_ready_take(struct sandbox *sb, int ms, uint64_t now, struct stats_block *st);
static bool sandbox_usable(struct sandbox *sb, uint64_t now, struct stats_block *st);
static void sandbox_slot_write(struct chan_slot *sl, const struct pkt_call *c,
			       const uint8_t *kpriv, size_t klen, uint64_t now);
static void sandbox_ring(struct sandbox *sb, struct stats_block *st);
static int sandbox_turns(struct sandbox *sb, unsigned int slot, struct pkt_call *c,
			 bool skip, const char **why);
static void sandbox_fail(struct sandbox *sb, int rc, const char *why,
			 struct stats_block *st);
static void sandbox_end(struct sandbox *sb, enum sandbox_end how, const char *why,
			uint64_t now, struct stats_block *st);
static void sandbox_reason(struct sandbox *sb, enum sandbox_end how, const char *why,
			   int status, char *out, size_t len);
static void sandbox_status_set(struct sandbox *sb, const char *reason, uint64_t now);
static void sandbox_count(struct stats_block *st, const struct instance *in,
			  enum stats_helper_counter k);
static uint64_t sandbox_now_ms(void);
static uint32_t sandbox_tick_ms(void);

int sandbox_start_all(struct runtime *rt, struct stats_block *st)
{
	uint64_t now = sandbox_now_ms();
	int rc = 0;

	for (size_t i = 0; i < rt->n_inst && !rc; i++) {
		struct instance *in = &rt->inst[i];
		struct sandbox *sb;

		if (!in->sandbox.on)
			continue;
		sb = calloc(1, sizeof(*sb));
		if (!sb) {
			rc = -ENOMEM;
			break;
		}
		pthread_mutex_init(&sb->lock, NULL);
		sb->in = in;
		sb->plugin_dir = rt->cfg->plugin_dir;
		sb->sock = -1;
		sb->backoff_ms = SANDBOX_BACKOFF_FIRST_MS;
		in->sb = sb;
		rc = sandbox_spawn(sb, now);
	}
	/* all started first: they load in parallel */
	for (size_t i = 0; i < rt->n_inst && !rc; i++) {
		struct sandbox *sb = rt->inst[i].sb;

		if (sb)
			rc = sandbox_ready_take(sb, SANDBOX_SETUP_MS, now, st);
	}
	if (rc) {
		for (size_t i = 0; i < rt->n_inst; i++) {
			struct sandbox *sb = rt->inst[i].sb;

			if (sb && sb->cfg_line > 0)
				cfg_error(rt->cfg, sb->cfg_line, "%s", sb->cfg_err);
			else if (sb && sb->state != SANDBOX_UP && sb->in->sb_status.reason[0])
				log_err("helper '%s': sandbox not started: %s", rt->inst[i].name,
					rt->inst[i].sb_status.reason);
		}
		sandbox_stop_all(rt);
	}
	return rc;
}

void sandbox_stop_all(struct runtime *rt)
{
	for (size_t i = 0; i < rt->n_inst; i++) {
		struct sandbox *sb = rt->inst[i].sb;

		if (!sb)
			continue;
		pthread_mutex_lock(&sb->lock);
		sandbox_end(sb, SANDBOX_END_STOP, "stopped", sandbox_now_ms(), NULL);
		pthread_mutex_unlock(&sb->lock);
		pthread_mutex_destroy(&sb->lock);
		chan_shm_unmap(sb->shm);
		rt->inst[i].sb = NULL;
		free(sb);
	}
}

void sandbox_tick_all(struct runtime *rt, uint64_t now, struct stats_block *st)
{
	for (size_t i = 0; i < rt->n_inst; i++) {
		struct sandbox *sb = rt->inst[i].sb;

		if (!sb || pthread_mutex_trylock(&sb->lock) != 0)
			continue;
		sandbox_usable(sb, now, st);
		pthread_mutex_unlock(&sb->lock);
	}
}

int sandbox_revive(struct sandbox *sb)
{
	uint64_t now = sandbox_now_ms();
	int rc;

	pthread_mutex_lock(&sb->lock);
	if (sb->state == SANDBOX_DOWN)
		sandbox_spawn(sb, now);
	if (sb->state == SANDBOX_STARTING)
		sandbox_ready_take(sb, SANDBOX_SETUP_MS, now, NULL);
	rc = sb->state == SANDBOX_UP ? 0 : -EAGAIN;
	pthread_mutex_unlock(&sb->lock);
	return rc;
}

int sandbox_run(struct sandbox *sb, struct pkt_call *c, const uint8_t *kpriv,
		size_t klen, uint64_t now, struct stats_block *st)
{
	int rc = sandbox_post(sb, c, kpriv, klen, now, st);

	if (rc < 0)
		return rc;
	rc = sandbox_take(sb, (unsigned int)rc, c, kpriv, klen, false, st);
	sandbox_batch_close(sb, st);
	return rc;
}

int sandbox_post(struct sandbox *sb, struct pkt_call *c, const uint8_t *kpriv,
		 size_t klen, uint64_t now, struct stats_block *st)
{
	if (!sb->batch_open) {
		pthread_mutex_lock(&sb->lock);
		if (!sandbox_usable(sb, now, st)) {
			pthread_mutex_unlock(&sb->lock);
			sandbox_count(st, c->inst, STATS_H_SANDBOX_LOST);
			return -EAGAIN;
		}
		sb->batch_open = true;
		sb->batch_rung = false;
		sb->batch_n = sb->batch_taken = 0;
		sb->batch_err = 0;
	}
	if (sb->batch_n >= CHAN_SLOTS || sb->batch_rung)
		return -ENOSPC;
	pkt_call_host(c);
	sandbox_slot_write(&sb->shm->slot[sb->batch_n], c, kpriv, klen, now);
	return (int)sb->batch_n++;
}

/*
 * A slot's result, the batch rung first if it was not.  Its budget began
 * when the slot before it was done (the sandbox starts the next slot
 * right after that DONE; slot 0 at the ring).  A sandbox that fails here
 * is ended, and this slot and every later one of the batch is lost
 * (counted each) -- except a skipped one, which its caller answers as it
 * would have without the sandbox.
 */
int sandbox_take(struct sandbox *sb, unsigned int slot, struct pkt_call *c,
		 const uint8_t *kpriv, size_t klen, bool skip, struct stats_block *st)
{
	const char *why = NULL;
	int rc;

	if (!sb->batch_open || slot != sb->batch_taken || slot >= sb->batch_n)
		return -EINVAL;
	sb->batch_taken++;
	if (!sb->batch_rung)
		sandbox_ring(sb, st);
	rc = sb->batch_err;
	if (rc == 0) {
		rc = sandbox_turns(sb, slot, c, skip, &why);
		if (rc == 0 && !skip)
			rc = chan_check_done(&sb->chk, &sb->shm->slot[slot], c, kpriv, klen, st,
					     &why);
		/* it serves: the next death starts the backoff over (a crash
		 * loop is one that never gets this far) */
		if (rc >= 0)
			sb->backoff_ms = SANDBOX_BACKOFF_FIRST_MS;
		else
			sandbox_fail(sb, rc, why, st);
	}
	if (rc < 0 && !skip)
		sandbox_count(st, c->inst, STATS_H_SANDBOX_LOST);
	return rc;
}

void sandbox_batch_close(struct sandbox *sb, struct stats_block *st)
{
	if (!sb->batch_open)
		return;
	/* results nobody will read: the next batch would take them for
	 * its own (never, from the worker: it takes every slot it posts) */
	if (sb->batch_taken < sb->batch_n && sb->batch_err == 0)
		sandbox_fail(sb, -EPROTO, "a batch left unread", st);
	sb->batch_open = false;
	pthread_mutex_unlock(&sb->lock);
}

/* A batch's end by failure: the sandbox ended (why: the log's), the
 * slots not taken yet lost. */
static void sandbox_fail(struct sandbox *sb, int rc, const char *why,
			 struct stats_block *st)
{
	enum sandbox_end how = rc == -ETIMEDOUT ? SANDBOX_END_TIMEOUT :
			       rc == -EPIPE ? SANDBOX_END_DIED : SANDBOX_END_CHANNEL;

	sandbox_end(sb, how, why, sandbox_now_ms(), st);
	sb->batch_err = -EPIPE;
}

/* A new process on a new channel: nothing of the last one is reused, so
 * whatever a dead sandbox left in its memory is gone with it. */
static int sandbox_spawn(struct sandbox *sb, uint64_t now)
{
	int sv[2], memfd, rc;

	chan_shm_unmap(sb->shm);
	sb->shm = NULL;
	if ((rc = chan_shm_create(&sb->shm, &memfd)) < 0)
		goto fail;
	if ((rc = sandbox_setup_write(sb)) < 0) {
		close(memfd);
		goto fail;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		rc = -errno;
		close(memfd);
		goto fail;
	}
	/* a turn's wait is then one recv() (sandbox_turns()) */
	sb->rcvtimeo_ms = chan_ring_timeout_set(sv[0], sb->in->sandbox.timeout_ms) == 0 ?
			  sb->in->sandbox.timeout_ms : 0;
	rc = spawn_start(sv[1], memfd, &sb->pid);
	close(sv[1]);
	close(memfd);
	if (rc < 0) {
		close(sv[0]);
		goto fail;
	}
	sb->sock = sv[0];
	sb->state = SANDBOX_STARTING;
	sb->started_ms = now;
	return 0;
fail:
	sb->state = SANDBOX_DOWN;
	sb->retry_ms = now + sb->backoff_ms;
	log_err("helper '%s': cannot start its sandbox: %s", sb->in->name, strerror(-rc));
	return rc;
}

/* What the sandbox needs to run this instance (chan.h struct chan_setup). */
static int sandbox_setup_write(struct sandbox *sb)
{
	const struct instance *in = sb->in;
	const struct cth_plugin_desc *d = in->pl->desc;
	struct chan_setup *s = &sb->shm->setup;

	if (d->config_size > CHAN_CONFIG_MAX)
		return -E2BIG;
	s->mode = CHAN_MODE_SERVE;
	s->line = in->line;
	snprintf(s->plugin_dir, sizeof(s->plugin_dir), "%s", sb->plugin_dir);
	snprintf(s->plugin, sizeof(s->plugin), "%s", in->pl->name);
	/* the file the daemon checked and described (or loaded) */
	s->dev = in->pl->dev;
	s->ino = in->pl->ino;
	snprintf(s->name, sizeof(s->name), "%s", in->name);
	sandbox_defer_write(&sb->shm->slot[0].defer, in->defer);
	s->config_len = (uint32_t)d->config_size;
	memcpy(sb->shm->slot[0].pkt, in->config, d->config_size);
	s->n_classes = in->n_classes;
	memcpy(s->classes, in->classes, sizeof(s->classes));
	for (unsigned int i = 0; i < in->n_classes; i++) {
		snprintf(s->class_names[i], sizeof(s->class_names[i]), "%s",
			 in->classes[i].name ? in->classes[i].name : "");
		s->classes[i].name = NULL;
	}
	s->guard = in->guard;
	s->memory = (uint64_t)in->sandbox.memory_mb << 20;
	s->inflight_entries = in->sandbox.inflight_entries;
	s->status = -EINPROGRESS;
	return 0;
}

/* The configure() calls runtime_build() left (keys.h bounds them as the
 * channel does). */
static void sandbox_defer_write(struct chan_defer *w, const struct keys_defer *df)
{
	w->n = 0;
	for (size_t i = 0; df && i < df->n && i < KEYS_DEFER_MAX; i++) {
		struct chan_defer_call *c = &w->call[w->n++];

		c->kind = df->call[i].kind;
		c->line = df->call[i].line;
		snprintf(c->key, sizeof(c->key), "%s", df->call[i].key);
		snprintf(c->value, sizeof(c->value), "%s", df->call[i].value);
	}
}

/* The sandbox's word that it is set up (or why not), waiting at most ms. */
static int sandbox_ready_take(struct sandbox *sb, int ms, uint64_t now, struct stats_block *st)
{
	char err[sizeof(sb->shm->setup.err)];
	uint32_t word;
	int32_t status, line;
	int rc = chan_ring_wait(sb->sock, ms, &word);

	if (rc == -ETIMEDOUT && now - sb->started_ms < SANDBOX_SETUP_MS && ms < (int)SANDBOX_SETUP_MS)
		return rc;
	if (rc == 0 && word != CHAN_RING_READY)
		rc = -EPROTO;
	if (rc < 0) {
		sandbox_end(sb, rc == -EPIPE ? SANDBOX_END_DIED : SANDBOX_END_SETUP,
			    rc == -ETIMEDOUT ? "setting up took too long" : "died setting up",
			    now, st);
		return rc;
	}
	status = sb->shm->setup.status;
	line = sb->shm->setup.err_line;
	memcpy(err, (const char *)sb->shm->setup.err, sizeof(err));
	err[sizeof(err) - 1] = '\0';
	for (char *p = err; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	if (status != 0 && line > 0 && sb->starts == 0) {
		sb->cfg_line = line;
		snprintf(sb->cfg_err, sizeof(sb->cfg_err), "%s", err);
		sandbox_end(sb, SANDBOX_END_CONFIG, "its plugin refused the configuration",
			    now, st);
		return status < 0 ? status : -EINVAL;
	}
	if (status != 0) {
		sandbox_end(sb, SANDBOX_END_SETUP, err[0] ? err : "setup failed", now, st);
		return status < 0 ? status : -EINVAL;
	}
	sb->state = SANDBOX_UP;
	sb->starts++;
	sandbox_count(st, sb->in, STATS_H_SANDBOX_STARTS);
	if (sb->starts > 1)
		sandbox_count(st, sb->in, STATS_H_SANDBOX_RESTARTS);
	sandbox_status_set(sb, NULL, now);
	log_msg(sb->starts > 1 ? LOG_L_NOTICE : LOG_L_INFO,
		"helper '%s': sandbox %s (pid %d, user %s, landlock ABI %u)", sb->in->name,
		sb->starts > 1 ? "restarted" : "started", (int)sb->pid, spawn_user(),
		(unsigned)sb->shm->setup.landlock_abi);
	return 0;
}

/* Up, or brought up if its time has come (without waiting for it). */
static bool sandbox_usable(struct sandbox *sb, uint64_t now, struct stats_block *st)
{
	if (sb->state == SANDBOX_DOWN && now >= sb->retry_ms)
		sandbox_spawn(sb, now);
	if (sb->state == SANDBOX_STARTING)
		sandbox_ready_take(sb, 0, now, st);
	return sb->state == SANDBOX_UP;
}

/* The request: the worker's view and bytes of the packet. */
static void sandbox_slot_write(struct chan_slot *sl, const struct pkt_call *c,
			       const uint8_t *kpriv, size_t klen, uint64_t now)
{
	struct chan_req *r = &sl->req;
	size_t len = c->pkt.len < CHAN_PKT_MAX ? c->pkt.len : CHAN_PKT_MAX;

	r->family = c->pkt.tuple[CTH_DIR_ORIGINAL].family;
	r->pkt_len = (uint32_t)len;
	r->klen = (uint32_t)(klen < CTH_PRIV_MAX ? klen : CTH_PRIV_MAX);
	if (kpriv)
		memcpy(r->kpriv, kpriv, r->klen);
	else
		r->klen = 0;
	r->truncated = c->truncated;
	r->gso = c->gso;
	r->in_ifindex = c->in_ifindex;
	r->out_ifindex = c->out_ifindex;
	r->now_ms = now;
	r->view = c->pkt;
	/* the daemon's addresses are none of the sandbox's business */
	r->view.data = NULL;
	r->view.payload = NULL;
	/* the sandbox's own table says what it keeps (the replay's copy of
	 * it has joined its bytes here already) */
	r->view.kept = 0;
	memcpy(sl->pkt, c->pkt.data, len);
}

/* One word for the batch: its slots are written. */
static void sandbox_ring(struct sandbox *sb, struct stats_block *st)
{
	sb->batch_rung = true;
	sb->turn_ms = sandbox_now_ms();
	if (chan_ring(sb->sock, chan_word(CHAN_RING_REQ, sb->batch_n)) < 0)
		sandbox_fail(sb, -EPIPE, NULL, st);
}

/*
 * Answer the slot's calls until its result comes, within the budget
 * (from sb->turn_ms).  The first wait has all of it when no time has
 * passed (within a tick of the coarse clock: a batch's ring and its
 * first take are apart by the posting of its other packets): the
 * socket's own timeout, one recv() (most packets make no call: one
 * receive a packet); a wait after a call, or for a slot whose time
 * began earlier, has what is left, a poll() first.  A skipped
 * slot's calls are answered -ESRCH (its connection is detached), nothing
 * done.  Any word but this slot's CALL or DONE breaks the channel.
 */
static int sandbox_turns(struct sandbox *sb, unsigned int slot, struct pkt_call *c,
			 bool skip, const char **why)
{
	struct chan_slot *sl = &sb->shm->slot[slot];
	uint32_t budget = c->inst->sandbox.timeout_ms;
	uint64_t start = sb->turn_ms, deadline = start + budget;
	bool first = sb->rcvtimeo_ms && sb->rcvtimeo_ms == budget;
	uint32_t word;
	int rc;

	for (;; first = false) {
		uint64_t now = sandbox_now_ms();

		if (now >= deadline)
			return -ETIMEDOUT;
		/* within a tick of the coarse clock it cannot tell "no time
		 * passed" from "some": the budget may run over by that much */
		if (first && now - start <= sandbox_tick_ms())
			rc = chan_ring_take(sb->sock, &word);
		else
			rc = chan_ring_wait(sb->sock, (int)(deadline - now), &word);
		if (rc == -ETIMEDOUT)
			return rc;
		if (rc < 0)
			return -EPIPE;
		if ((rc = chan_check_word(word, slot, why)) < 0)
			return rc;
		if (rc == CHAN_RING_DONE) {
			sb->turn_ms = sandbox_now_ms();
			return 0;
		}
		if (skip) {
			memset(&sl->ans, 0, sizeof(sl->ans));
			sl->ans.rc = -ESRCH;
		} else if ((rc = chan_check_call(&sb->chk, sl, c, why)) < 0) {
			return rc;
		}
		if (chan_ring(sb->sock, chan_word(CHAN_RING_ANSWER, slot)) < 0)
			return -EPIPE;
	}
}

/*
 * Kill (whatever state it is in), reap, and say why once: the reason
 * comes from its wait status unless we ended it.  Then down until the
 * backoff has passed; a sandbox that lived long starts over from the
 * first backoff.
 */
static void sandbox_end(struct sandbox *sb, enum sandbox_end how, const char *why,
			uint64_t now, struct stats_block *st)
{
	char reason[96];
	int status = 0;

	if (sb->sock >= 0) {
		close(sb->sock);
		sb->sock = -1;
	}
	if (sb->pid > 0) {
		spawn_kill(sb->pid);
		if (spawn_reap(sb->pid, &status) < 0)
			status = 0;
		sb->pid = 0;
	}
	if (sb->state == SANDBOX_DOWN && how != SANDBOX_END_SETUP)
		return;
	sandbox_reason(sb, how, why, status, reason, sizeof(reason));
	if (sb->state == SANDBOX_UP && now - sb->started_ms >= SANDBOX_BACKOFF_RESET_MS)
		sb->backoff_ms = SANDBOX_BACKOFF_FIRST_MS;
	sb->state = SANDBOX_DOWN;
	sb->retry_ms = now + sb->backoff_ms;
	/* a refused configuration is the caller's to print, at its line */
	if (how == SANDBOX_END_STOP || how == SANDBOX_END_CONFIG) {
		sandbox_status_set(sb, how == SANDBOX_END_STOP ? "" : reason, now);
		return;
	}
	log_err("helper '%s': sandbox ended (%s): its packets get sandbox_verdict %s; "
		"restart in %u ms", sb->in->name, reason,
		sb->in->sandbox.drop ? "drop" : "accept", sb->backoff_ms);
	sandbox_status_set(sb, reason, now);
	sb->backoff_ms = sb->backoff_ms * 2 > SANDBOX_BACKOFF_MAX_MS ?
			 SANDBOX_BACKOFF_MAX_MS : sb->backoff_ms * 2;
	switch (how) {
	case SANDBOX_END_TIMEOUT:
		sandbox_count(st, sb->in, STATS_H_SANDBOX_TIMEOUTS);
		break;
	case SANDBOX_END_CHANNEL:
		sandbox_count(st, sb->in, STATS_H_SANDBOX_CHANNEL);
		break;
	default:
		sandbox_count(st, sb->in, WIFEXITED(status) &&
			      WEXITSTATUS(status) == CONFINE_EXIT_SYSCALL ?
			      STATS_H_SANDBOX_SECCOMP : STATS_H_SANDBOX_CRASHES);
	}
}

static void sandbox_reason(struct sandbox *sb, enum sandbox_end how, const char *why,
			   int status, char *out, size_t len)
{
	const char *name;

	switch (how) {
	case SANDBOX_END_TIMEOUT:
		snprintf(out, len, "timeout: a call took more than %u ms",
			 sb->in->sandbox.timeout_ms);
		return;
	case SANDBOX_END_CHANNEL:
		snprintf(out, len, "channel: %s", why ? why : "broken");
		return;
	case SANDBOX_END_SETUP:
	case SANDBOX_END_CONFIG:
	case SANDBOX_END_STOP:
		snprintf(out, len, "%s", why);
		return;
	default:
		break;
	}
	if (WIFSIGNALED(status)) {
		snprintf(out, len, "signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
	} else if (WIFEXITED(status) && WEXITSTATUS(status) == CONFINE_EXIT_SYSCALL) {
		/* written by the dying sandbox: a name to log, nothing more */
		uint32_t nr = sb->shm ? sb->shm->sigsys_nr : 0;

		name = confine_syscall_name(nr);
		if (name)
			snprintf(out, len, "seccomp: refused system call %s", name);
		else
			snprintf(out, len, "seccomp: refused system call %u", nr);
	} else if (WIFEXITED(status)) {
		snprintf(out, len, "exited with status %d", WEXITSTATUS(status));
	} else {
		snprintf(out, len, "%s", why ? why : "gone");
	}
}

static void sandbox_status_set(struct sandbox *sb, const char *reason, uint64_t now)
{
	struct instance_sandbox *s = &sb->in->sb_status;

	pthread_mutex_lock(&s->lock);
	s->up = sb->state == SANDBOX_UP;
	s->pid = s->up ? (int)sb->pid : 0;
	s->since_ms = now;
	s->retry_ms = s->up ? 0 : sb->retry_ms;
	if (reason) {
		snprintf(s->reason, sizeof(s->reason), "%s", reason);
		s->reason_ms = now;
	}
	pthread_mutex_unlock(&s->lock);
}

/* Counted by the thread that saw it, into its own block (stats.h). */
static void sandbox_count(struct stats_block *st, const struct instance *in,
			  enum stats_helper_counter k)
{
	if (st)
		stats_add(&st->h[in->slot][k], 1);
}

/* Coarse: read per turn, and where the clock source is not one the vDSO
 * can read (the test VM's hpet) CLOCK_MONOTONIC is a system call each
 * time (measured by the bench, tests/bench/README.md); a budget of
 * milliseconds does not need better than a tick. */
static uint64_t sandbox_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* The coarse clock's step (the kernel's tick: 4 ms at HZ=250), in ms
 * rounded up; read once, it does not change while the system runs. */
static uint32_t sandbox_tick_ms(void)
{
	static _Atomic uint32_t tick;
	uint32_t t = atomic_load_explicit(&tick, memory_order_relaxed);
	struct timespec res;

	if (t)
		return t;
	t = 1;
	if (clock_getres(CLOCK_MONOTONIC_COARSE, &res) == 0 && res.tv_sec == 0)
		t = (uint32_t)((res.tv_nsec + 999999) / 1000000);
	if (!t)
		t = 1;
	atomic_store_explicit(&tick, t, memory_order_relaxed);
	return t;
}
