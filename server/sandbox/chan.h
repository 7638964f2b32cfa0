/* SPDX-License-Identifier: MIT */
/*
 * The channel between a worker and a helper's sandbox (docs/security.md):
 * one shared memory file (struct chan_shm, no pointers in it, sizes fixed)
 * and one SOCK_SEQPACKET socket pair, the doorbell.  Turns alternate:
 *
 *   worker: request + packet bytes in, ring   (CHAN_RING_REQ)
 *   sandbox: runs the plugin; a host call that needs the firewall is a
 *            CHAN_CALL (ring, wait for the answer); then CHAN_DONE
 *   worker: answers a call (ring), or takes the result
 *
 * Everything the sandbox writes is hostile to the worker: it copies a
 * result out of shared memory once (chan_res_take()) and checks the copy;
 * the host functions of host/call.c check what the plugin asked for, as
 * they do in process.  A dead sandbox closes its end: the worker's wait
 * (a recv(), or a poll() then a recv()) sees it at once.
 */
#ifndef CTH_CHAN_H
#define CTH_CHAN_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cthelperd/plugin.h>

#include "host/packet.h"
#include "runtime/guard.h"
#include "runtime/loader.h"

#define CHAN_MAGIC 0x43544853u          /* "CTHS" */
/* 2: CHAN_REC_KEEP; 3: describe mode; 4: slots (a batch per turn);
 * 5: chan_res::kept_next */
#define CHAN_VERSION 5u
/* packets one turn carries: a worker's receive is at most 8 datagrams
 * (server/worker/worker.c), each usually one packet; a slot is about
 * 165 KiB of the mapping, touched only as far as used */
#define CHAN_SLOTS 8u
/* the packet bytes: NFQA_PAYLOAD's most (a 16-bit attribute length) */
#define CHAN_PKT_MAX 65536u
/* a plugin's configuration block travels in the packet area at setup */
#define CHAN_CONFIG_MAX CHAN_PKT_MAX
/* recorded host calls of one turn; a full area is sent with a
 * CHAN_OP_FLUSH call first, so this bounds a turn, not a packet */
#define CHAN_REC_BYTES (96u * 1024u)
/* longest setup error carried back (a configure() error quotes a value) */
#define CHAN_ERR_MAX 1536u
/* longest plugin log line carried (the in-process host's too) */
#define CHAN_LOG_MAX 1024u
/* plugin log lines one packet may send; more are counted, not sent */
#define CHAN_LOG_PER_PACKET 32u

/* The doorbell's words (the socket carries a uint32_t a turn). */
enum chan_ring {
	CHAN_RING_READY = 1,    /* sandbox: set up (setup.status says how) */
	CHAN_RING_REQ,          /* worker: a packet is posted */
	CHAN_RING_CALL,         /* sandbox: a host call waits (res.call) */
	CHAN_RING_ANSWER,       /* worker: the call is answered (ans) */
	CHAN_RING_DONE,         /* sandbox: the packet's result is in res */
};

/* A doorbell word: the ring, and a slot (CALL, DONE) or a count (REQ). */
static inline uint32_t chan_word(uint32_t ring, uint32_t arg)
{
	return (ring & 0xffu) | (arg & 0xffu) << 8;
}

static inline uint32_t chan_word_ring(uint32_t word)
{
	return word & 0xffu;
}

/* The slot or count; the bits above it must be clear (0xff: none fits). */
static inline uint32_t chan_word_arg(uint32_t word)
{
	return word >> 16 ? 0xffu : (word >> 8) & 0xffu;
}

/* Host calls that need the worker now (res.call.op). */
enum chan_op {
	CHAN_OP_EXPECT = 1,     /* cth_expect(): how, exp */
	CHAN_OP_EXPECT_CTL,     /* cth_expect_ctl(): how = op, exp if has_exp */
	CHAN_OP_LINK,           /* cth_link(): answered in ans.link */
	CHAN_OP_FLUSH,          /* nothing: the records area was full */
};

/* Host calls answered in the sandbox, recorded for the worker to do
 * (struct chan_rec then its body). */
enum chan_rec_type {
	CHAN_REC_MANGLE = 1,    /* u32 off, len, repl_len, then repl_len bytes */
	CHAN_REC_TIMEOUT,       /* u32 seconds */
	CHAN_REC_MARK,          /* u32 mark */
	CHAN_REC_DETACH,        /* nothing */
	CHAN_REC_COUNT,         /* u32 counter, n */
	CHAN_REC_LOG,           /* i32 level, then the text (no NUL) */
	/* u64 off, i32 rc: cth_keep() as answered here.  The bytes stay in
	 * the sandbox's table; the worker only shows it to its call's trace
	 * (cthelper-replay --sandbox), it does nothing with it. */
	CHAN_REC_KEEP,
};

struct chan_rec {
	uint16_t type;
	uint16_t len;           /* body bytes after this header */
};

/* struct cth_expect without its pointer: the function name inline, one
 * byte longer than the host takes, so that a name it refuses in process
 * still arrives too long and is refused, not cut to one it takes. */
struct chan_expect {
	struct cth_expect e;    /* e.fn: ignored, NULL on the way out */
	uint8_t has_fn;
	char fn[PKT_EXPECT_FN_MAX + 1];
};

/* What a sandbox is started for (chan_setup::mode). */
enum chan_mode {
	CHAN_MODE_SERVE = 0,    /* run one instance: set up, then packets */
	CHAN_MODE_DESCRIBE,     /* load the plugin, answer its descriptor
				 * (struct chan_describe), exit */
};

/*
 * A described plugin (server/sandbox/describe.h): the struct plugin the
 * sandbox's loader made, with every pointer zeroed (pl.has says which
 * were set), the descriptor's functions as PLUGIN_FN_* bits, and the
 * file it loaded.  Written by the sandbox: hostile to the daemon, which
 * copies it once and checks the copy (describe_wire.h).
 */
struct chan_describe {
	uint32_t plugin_size;   /* sizeof(struct plugin) as the sandbox has it */
	uint32_t fns;
	uint64_t dev, ino;
	struct plugin pl;
};

/* The configure() calls a described plugin's sandbox makes, in order,
 * before check() and init() (runtime/keys.h struct keys_defer). */
struct chan_defer_call {
	uint32_t kind;          /* enum keys_call_kind */
	int32_t line;
	char key[KEYS_DEFER_KEY_MAX];
	char value[KEYS_DEFER_VALUE_MAX];
};

struct chan_defer {
	uint32_t n;
	struct chan_defer_call call[KEYS_DEFER_MAX];
};

/* What a sandbox needs to run its instance (written once, before it
 * starts; the configuration block is in the packet area, the deferred
 * configure() calls in chan_shm::defer). */
struct chan_setup {
	uint32_t mode;          /* enum chan_mode */
	int32_t line;           /* of the helper's section: check(), init() */
	char plugin_dir[PATH_MAX];
	char plugin[PLUGIN_NAME_LEN + 1];
	uint64_t dev, ino;      /* of the file the daemon checked */
	char name[CTH_NAME_LEN];
	uint32_t config_len;
	uint32_t n_classes;
	struct cth_expect_class classes[CTH_CLASS_MAX];
	char class_names[CTH_CLASS_MAX][CTH_NAME_LEN + 1];
	struct guard guard;
	uint64_t memory;        /* bytes of address space */
	uint32_t inflight_entries; /* its in-flight table ([server] inflight_entries) */
	/* the sandbox's answer with CHAN_RING_READY */
	int32_t status;         /* 0, or a negative errno */
	int32_t err_line;       /* > 0: err is a configuration error there */
	char err[CHAN_ERR_MAX];
	uint32_t landlock_abi;  /* 0: none */
};

struct chan_req {
	uint32_t family;
	uint32_t pkt_len;
	uint32_t klen;          /* bytes of kpriv the kernel sent */
	uint8_t truncated, gso;
	uint32_t in_ifindex, out_ifindex;
	uint64_t now_ms;
	struct cth_packet view; /* its pointers mean nothing here */
	uint8_t kpriv[CTH_PRIV_MAX];
};

struct chan_call {
	uint32_t op;            /* enum chan_op */
	uint32_t how;
	uint8_t has_exp;
	struct chan_expect exp;
};

/* The sandbox's turn.  rec_used bytes of records were done since its last
 * turn; the rest holds with CHAN_RING_DONE only. */
struct chan_res {
	uint32_t kept;          /* cth_packet::kept the plugin saw */
	uint32_t rec_used;
	int32_t verdict;
	uint8_t priv_changed, state_reset;
	/* this packet evicted an in-flight state or kept bytes from the
	 * sandbox's tables (issue 34: counted by the daemon, which sees
	 * neither table; one each at most per packet) */
	uint8_t overlay_evicted, keep_evicted;
	/* the plugin kept bytes of this packet for the next segment (the
	 * daemon's match rules pass that one: server/worker/prefilter.h) */
	uint8_t kept_next;
	uint32_t n_refused;     /* expectations its host refused itself */
	uint32_t log_dropped;
	uint8_t priv[CTH_PRIV_MAX];
	struct chan_call call;  /* with CHAN_RING_CALL */
	uint8_t rec[CHAN_REC_BYTES];
};

struct chan_ans {
	int32_t rc;
	struct cth_link link;
};

/* One packet of a turn: its request and bytes in, its calls and result
 * out.  Slot 0's areas carry the setup forms before the first packet. */
struct chan_slot {
	struct chan_req req;
	struct chan_ans ans;
	/* at setup (slot 0) for what only a setup carries, then for the
	 * packets' results */
	union {
		struct chan_res res;
		struct chan_describe describe;  /* DESCRIBE: with CHAN_RING_READY */
		struct chan_defer defer;        /* SERVE: before the start */
	};
	uint8_t pkt[CHAN_PKT_MAX];      /* the configuration block at setup */
};

struct chan_shm {
	uint32_t magic, version;
	/* the SIGSYS handler's report (server/sandbox/confine.h): which
	 * system call the filter refused; informational, written by the
	 * dying sandbox */
	volatile uint32_t sigsys_nr;
	struct chan_setup setup;
	struct chan_slot slot[CHAN_SLOTS];
};

/* The setup forms use the results' area: they must never make it grow. */
_Static_assert(sizeof(struct chan_describe) <= sizeof(struct chan_res),
	       "a described plugin must fit the results' area");
_Static_assert(sizeof(struct chan_defer) <= sizeof(struct chan_res),
	       "the deferred configure() calls must fit the results' area");

/* A fresh mapping of a new memfd: 0 and *shm, *fd, or a negative errno. */
int chan_shm_create(struct chan_shm **shm, int *fd);
/* Map what fd holds (the sandbox's side): 0 or a negative errno. */
int chan_shm_map(int fd, struct chan_shm **shm);
void chan_shm_unmap(struct chan_shm *shm);

/* One doorbell word each way: 0, -EPIPE when the other end is gone, or
 * a negative errno.  chan_ring_wait() waits at most ms (-1: forever):
 * -ETIMEDOUT. */
int chan_ring(int fd, uint32_t word);
int chan_ring_wait(int fd, int ms, uint32_t *word);
/* The worker's turns: the socket's own receive timeout (SO_RCVTIMEO),
 * set once, bounds a chan_ring_take(), a single recv() where
 * chan_ring_wait() is a poll() and a recv() (-ETIMEDOUT alike). */
int chan_ring_timeout_set(int fd, unsigned int ms);
int chan_ring_take(int fd, uint32_t *word);

/* Records (sandbox side): append one; -ENOSPC when the area is full. */
int chan_rec_put(struct chan_res *res, uint16_t type, const void *a, size_t alen,
		 const void *b, size_t blen);

/* cth_expect <-> its wire form.  chan_expect_get() points out->fn into w. */
void chan_expect_put(struct chan_expect *w, const struct cth_expect *e);
void chan_expect_get(struct chan_expect *w, struct cth_expect *out);

#endif
