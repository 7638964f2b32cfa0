/* SPDX-License-Identifier: MIT */
/*
 * One helper's sandbox (server/sandbox/chan.h, docs/security.md).  In this
 * order: confined for loading (address space and the other limits,
 * landlock to the library paths, seccomp's loading set), the plugin
 * loaded and its init() run, confined for serving (no file system, no
 * new fd, seccomp's serving set), then packets until the worker's end
 * closes.
 *
 * The plugin runs through host/call.c as in the daemon: the host
 * functions a plugin can be answered here (edits, kept bytes, marks,
 * timeouts, counters, logs) are answered here and recorded for the
 * worker, which does them again through its own checks; the ones that
 * need the firewall (expectations, the link view) are calls the worker
 * answers while the plugin waits.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/log.h"
#include "host/call.h"
#include "host/inflight.h"
#include "host/keep.h"
#include "runtime/runtime.h"
#include "sandbox/chan.h"
#include "sandbox/confine.h"
#include "sandbox/describe_wire.h"
#include "sbx.h"

#define SBX_CHAN_FD 3
#define SBX_MEM_FD 4

struct sbx {
	struct chan_shm *shm;
	struct chan_slot *slot; /* the packet running now (records, calls) */
	struct instance inst;
	struct plugin *pl;
	struct inflight inflight;
	struct keep keep;
	int err_line;           /* a setup error's configuration line */
	unsigned int n_log;     /* lines of this packet sent */
	uint32_t log_dropped;
	bool in_packet;         /* records have somewhere to go */
};

static struct sbx sbx;

static int sbx_setup(struct sbx *s, struct chan_setup *set, char *err, size_t len);
static int sbx_load(struct sbx *s, const struct chan_setup *set, char *err, size_t len);
static int sbx_configure(struct sbx *s, char *err, size_t len);
static void sbx_ready(struct sbx *s, int status, const char *err);
static void sbx_packet(struct sbx *s, uint32_t i);
static int sbx_expect(struct pkt_call *c, const struct cth_expect *e, unsigned int how);
static int sbx_expect_ctl(struct pkt_call *c, unsigned int op, const struct cth_expect *e);
static int sbx_link(struct pkt_call *c, struct cth_link *link);
static int sbx_call(struct sbx *s, uint32_t op, uint32_t how, const struct cth_expect *e);
static void sbx_trace(struct pkt_call *c, const struct pkt_event *ev);
static void sbx_rec(struct sbx *s, uint16_t type, const void *a, size_t alen,
		    const void *b, size_t blen);
static void sbx_log(void *arg, int level, const char *line);

/*
 * The spawner execs /proc/self/exe, so the kernel names every sandbox
 * "exe" (comm is the exec'd path's last part): ps, top and pidstat would
 * show a row of "exe" as the sandbox user.  "sbx-" and the helper's
 * instance name instead, cut to the 15 characters comm holds.
 */
static void sbx_comm_set(const char *name)
{
	char comm[16] = "sbx-";
	size_t n = strnlen(name, sizeof(comm) - 5);

	memcpy(comm + 4, name, n);
	comm[4 + n] = '\0';
	prctl(PR_SET_NAME, comm, 0, 0, 0);
}

int sbx_serve_main(void)
{
	struct chan_setup set;
	char err[CHAN_ERR_MAX] = "";
	int rc;

	/* the host code's own warnings (kept bytes evicted, a full in-flight
	 * set) would be a write() to stderr, which the filter refuses: they
	 * go to the worker as log lines, nothing else is logged here */
	log_level_set(0);
	log_capture_set(sbx_log, &sbx);
	if (chan_shm_map(SBX_MEM_FD, &sbx.shm) < 0)
		return 2;
	sbx.slot = &sbx.shm->slot[0];
	close(SBX_MEM_FD);
	/* read once: the daemon wrote it before the start */
	memcpy(&set, &sbx.shm->setup, sizeof(set));
	set.plugin_dir[sizeof(set.plugin_dir) - 1] = '\0';
	set.plugin[sizeof(set.plugin) - 1] = '\0';
	set.name[sizeof(set.name) - 1] = '\0';
	sbx_comm_set(set.name);
	rc = sbx_setup(&sbx, &set, err, sizeof(err));
	sbx_ready(&sbx, rc, err);
	if (rc < 0)
		return 1;
	/* described: the daemon has what it asked for */
	if (set.mode == CHAN_MODE_DESCRIBE)
		return 0;
	/* a batch: its slots in order, a DONE each, so the worker takes
	 * slot k's calls after slot k-1's result */
	for (;;) {
		uint32_t word, n;

		if (chan_ring_wait(SBX_CHAN_FD, -1, &word) < 0)
			return 0;        /* the worker's end closed: stop */
		n = chan_word_arg(word);
		if (chan_word_ring(word) != CHAN_RING_REQ || n == 0 || n > CHAN_SLOTS)
			return 3;
		for (uint32_t i = 0; i < n; i++) {
			sbx_packet(&sbx, i);
			if (chan_ring(SBX_CHAN_FD, chan_word(CHAN_RING_DONE, i)) < 0)
				return 0;
		}
	}
}

/*
 * Confined before any plugin code runs (its constructors included), in
 * confine.h's order: the address space and the other limits first, so a
 * constructor's or init()'s allocation meets sandbox_memory; the
 * descriptor limit leaves no fd to open, so it comes once the plugin is
 * loaded.
 */
static int sbx_setup(struct sbx *s, struct chan_setup *set, char *err, size_t len)
{
	const char *const lib_paths[] = { set->plugin_dir, "/lib", "/lib64", "/usr/lib",
					  "/usr/lib64", "/etc/ld.so.cache", NULL };
	int abi, rc;

	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	confine_sigsys_report(&s->shm->sigsys_nr);
	abi = confine_landlock_abi();
	s->shm->setup.landlock_abi = abi > 0 ? (uint32_t)abi : 0;
	if ((rc = confine_limits_load(set->memory)) < 0) {
		snprintf(err, len, "limits: %s", strerror(-rc));
		return rc;
	}
	if (abi > 0 && (rc = confine_landlock_paths(lib_paths)) < 0) {
		snprintf(err, len, "landlock: %s", strerror(-rc));
		return rc;
	}
	if ((rc = confine_seccomp(CONFINE_LOAD)) < 0) {
		snprintf(err, len, "seccomp: %s", strerror(-rc));
		return rc;
	}
	if ((rc = sbx_load(s, set, err, len)) < 0 || set->mode == CHAN_MODE_DESCRIBE)
		return rc;
	/* within sandbox_memory, before the serving filter; the size is the
	 * daemon's, checked at its load (0: a setup that does not say) */
	if ((rc = inflight_init(&s->inflight, set->inflight_entries ? set->inflight_entries
							      : CFG_INFLIGHT_ENTRIES)) < 0) {
		snprintf(err, len, "in-flight table of %u entries: %s", set->inflight_entries,
			 strerror(-rc));
		return rc;
	}
	if ((abi > 0 && (rc = confine_landlock_none()) < 0) ||
	    (rc = confine_limits_serve()) < 0 ||
	    (rc = confine_seccomp(CONFINE_SERVE)) < 0) {
		snprintf(err, len, "confining for serving: %s", strerror(-rc));
		return rc;
	}
	return 0;
}

/* The plugin the daemon checked (same file); described for the daemon,
 * or set up: its configuration block as the daemon built it, the
 * configure() calls the daemon left to it, check() and init(). */
static int sbx_load(struct sbx *s, const struct chan_setup *set, char *err, size_t len)
{
	struct instance *in = &s->inst;
	const struct cth_plugin_desc *d;
	struct stat st;
	int rc;

	if ((rc = loader_load(set->plugin_dir, set->plugin, &s->pl, err, len)) < 0)
		return rc;
	if (stat(s->pl->path, &st) < 0 || (uint64_t)st.st_dev != set->dev ||
	    (uint64_t)st.st_ino != set->ino) {
		snprintf(err, len, "%s is not the file the daemon checked (replaced meanwhile?)",
			 s->pl->path);
		return -ESTALE;
	}
	if (set->mode == CHAN_MODE_DESCRIBE) {
		describe_wire_put(&s->shm->slot[0].describe, s->pl);
		return 0;
	}
	d = s->pl->desc;
	if (set->config_len != d->config_size || set->config_len > CHAN_CONFIG_MAX ||
	    set->n_classes > CTH_CLASS_MAX) {
		snprintf(err, len, "configuration block of %u bytes, the plugin's is %zu",
			 set->config_len, d->config_size);
		return -EPROTO;
	}
	snprintf(in->name, sizeof(in->name), "%s", set->name);
	in->pl = s->pl;
	in->config = calloc(1, d->config_size ? d->config_size : 1);
	if (!in->config)
		return -ENOMEM;
	memcpy(in->config, s->shm->slot[0].pkt, set->config_len);
	in->guard = set->guard;
	in->n_classes = set->n_classes;
	memcpy(in->classes, set->classes, sizeof(in->classes));
	for (unsigned int i = 0; i < in->n_classes; i++)
		in->classes[i].name = set->class_names[i];
	if ((rc = sbx_configure(s, err, len)) < 0)
		return rc;
	/* their failures are the section's, as in the daemon */
	s->err_line = set->line;
	if ((rc = runtime_inst_check(in, err, len)) < 0 ||
	    (rc = runtime_inst_init(in, err, len)) < 0)
		return rc;
	s->err_line = 0;
	return 0;
}

/* The configure() calls, in order, each read once from the daemon's
 * list; the first that fails is the answer, at its line. */
static int sbx_configure(struct sbx *s, char *err, size_t len)
{
	const struct chan_defer *df = &s->shm->slot[0].defer;
	uint32_t n = df->n < KEYS_DEFER_MAX ? df->n : KEYS_DEFER_MAX;

	for (uint32_t i = 0; i < n; i++) {
		struct chan_defer_call w = df->call[i];
		struct keys_call c = { .kind = w.kind, .line = w.line, .key = w.key,
				       .value = w.value };
		int rc;

		w.key[sizeof(w.key) - 1] = '\0';
		w.value[sizeof(w.value) - 1] = '\0';
		if ((rc = keys_call_run(s->pl->desc, s->inst.name, s->inst.config, &c, err,
					len)) < 0) {
			s->err_line = w.line;
			return rc;
		}
	}
	return 0;
}

static void sbx_ready(struct sbx *s, int status, const char *err)
{
	s->shm->setup.status = status;
	s->shm->setup.err_line = status < 0 ? s->err_line : 0;
	snprintf(s->shm->setup.err, sizeof(s->shm->setup.err), "%s", err);
	chan_ring(SBX_CHAN_FD, CHAN_RING_READY);
}

static void sbx_packet(struct sbx *s, uint32_t i)
{
	const struct chan_req *r = &s->shm->slot[i].req;
	struct chan_res *res = &s->shm->slot[i].res;
	struct pkt_call c = { .inst = &s->inst, .expect_fn = sbx_expect,
			      .expect_ctl_fn = sbx_expect_ctl, .link_fn = sbx_link,
			      .trace = sbx_trace, .keep = &s->keep };
	size_t n = s->pl->desc->priv_size;
	uint32_t klen = r->klen < CTH_PRIV_MAX ? r->klen : CTH_PRIV_MAX;
	int verdict = CTH_VERDICT_ACCEPT;
	unsigned long ov = s->inflight.evictions, kv = s->keep.evictions;

	s->slot = &s->shm->slot[i];
	res->rec_used = 0;
	res->kept = 0;
	res->n_refused = 0;
	s->n_log = 0;
	s->log_dropped = 0;
	s->in_packet = true;
	c.pkt = r->view;
	c.truncated = r->truncated;
	c.gso = r->gso;
	c.in_ifindex = r->in_ifindex;
	c.out_ifindex = r->out_ifindex;
	if (r->pkt_len <= CHAN_PKT_MAX &&
	    pkt_view_parse(&c.pkt, s->slot->pkt, r->pkt_len, (int)r->family) == 0) {
		keep_join(&s->keep, &c, r->now_ms);
		res->kept = (uint32_t)c.pkt.kept;
		verdict = pkt_call_run_newest(&c, &s->inflight, r->kpriv, klen, r->now_ms);
		keep_done(&s->keep, &c, verdict, r->now_ms);
	} else {
		memcpy(c.priv, r->kpriv, klen < n ? klen : n);
	}
	res->kept = (uint32_t)c.pkt.kept;
	res->verdict = verdict;
	memcpy(res->priv, c.priv, n);
	res->priv_changed = c.priv_changed;
	res->state_reset = c.state_reset;
	res->n_refused = c.n_refused;
	res->overlay_evicted = s->inflight.evictions != ov;
	res->keep_evicted = s->keep.evictions != kv;
	res->kept_next = c.kept_next;
	pkt_call_release(&c);
	res->log_dropped = s->log_dropped;
	s->in_packet = false;
}

static int sbx_expect(struct pkt_call *c, const struct cth_expect *e, unsigned int how)
{
	(void)c;
	return sbx_call(&sbx, CHAN_OP_EXPECT, how, e);
}

static int sbx_expect_ctl(struct pkt_call *c, unsigned int op, const struct cth_expect *e)
{
	(void)c;
	return sbx_call(&sbx, CHAN_OP_EXPECT_CTL, op, e);
}

static int sbx_link(struct pkt_call *c, struct cth_link *link)
{
	int rc;

	(void)c;
	rc = sbx_call(&sbx, CHAN_OP_LINK, 0, NULL);
	*link = sbx.slot->ans.link;
	return rc;
}

/* The worker does what was recorded so far, then this call; the plugin
 * waits for the answer. */
static int sbx_call(struct sbx *s, uint32_t op, uint32_t how, const struct cth_expect *e)
{
	struct chan_res *res = &s->slot->res;
	uint32_t word, i = (uint32_t)(s->slot - s->shm->slot);

	memset(&res->call, 0, sizeof(res->call));
	res->call.op = op;
	res->call.how = how;
	if (e) {
		res->call.has_exp = 1;
		chan_expect_put(&res->call.exp, e);
	}
	if (chan_ring(SBX_CHAN_FD, chan_word(CHAN_RING_CALL, i)) < 0 ||
	    chan_ring_wait(SBX_CHAN_FD, -1, &word) < 0 ||
	    word != chan_word(CHAN_RING_ANSWER, i))
		_exit(0);               /* the worker is gone or gave up on us */
	res->rec_used = 0;
	return s->slot->ans.rc;
}

/* What the worker must do again, in order: whatever the plugin was told
 * here, the worker's own checks decide what happens. */
static void sbx_trace(struct pkt_call *c, const struct pkt_event *ev)
{
	struct sbx *s = &sbx;
	uint32_t v[3];
	int32_t level, rc;
	uint64_t off;

	(void)c;
	switch (ev->type) {
	case PKT_EV_MANGLE:
		if (ev->rc != 0)
			break;
		v[0] = (uint32_t)ev->off;
		v[1] = (uint32_t)ev->len;
		v[2] = (uint32_t)ev->repl_len;
		sbx_rec(s, CHAN_REC_MANGLE, v, sizeof(v), ev->repl, ev->repl_len);
		break;
	case PKT_EV_TIMEOUT:
		sbx_rec(s, CHAN_REC_TIMEOUT, &ev->value, sizeof(ev->value), NULL, 0);
		break;
	case PKT_EV_MARK:
		sbx_rec(s, CHAN_REC_MARK, &ev->value, sizeof(ev->value), NULL, 0);
		break;
	case PKT_EV_DETACH:
		if (ev->rc == 0)
			sbx_rec(s, CHAN_REC_DETACH, NULL, 0, NULL, 0);
		break;
	case PKT_EV_COUNT:
		v[0] = ev->value;
		v[1] = (uint32_t)ev->len;
		sbx_rec(s, CHAN_REC_COUNT, v, 2 * sizeof(v[0]), NULL, 0);
		break;
	case PKT_EV_LOG:
		if (s->n_log >= CHAN_LOG_PER_PACKET) {
			s->log_dropped++;
			break;
		}
		s->n_log++;
		level = (int32_t)ev->value;
		sbx_rec(s, CHAN_REC_LOG, &level, sizeof(level), ev->text,
			strnlen(ev->text, CHAN_LOG_MAX - 1));
		break;
	case PKT_EV_KEEP:
		/* the bytes stay here; the answer is for a trace (the
		 * replay's), which shows it where the plugin asked */
		off = ev->off;
		rc = ev->rc;
		sbx_rec(s, CHAN_REC_KEEP, &off, sizeof(off), &rc, sizeof(rc));
		break;
	default:
		/* expectations and the link view went to the worker as
		 * calls */
		break;
	}
}

/* A warning of the host code in here, sent as the plugin's log lines are
 * (within a packet only: at setup the error text says what failed). */
static void sbx_log(void *arg, int level, const char *line)
{
	struct sbx *s = arg;
	int32_t lv = level;

	if (!s->in_packet || s->n_log >= CHAN_LOG_PER_PACKET) {
		s->log_dropped++;
		return;
	}
	s->n_log++;
	sbx_rec(s, CHAN_REC_LOG, &lv, sizeof(lv), line, strnlen(line, CHAN_LOG_MAX - 1));
}

/* A full area goes to the worker first (a call with nothing to do). */
static void sbx_rec(struct sbx *s, uint16_t type, const void *a, size_t alen,
		    const void *b, size_t blen)
{
	if (chan_rec_put(&s->slot->res, type, a, alen, b, blen) == 0)
		return;
	sbx_call(s, CHAN_OP_FLUSH, 0, NULL);
	chan_rec_put(&s->slot->res, type, a, alen, b, blen);
}
