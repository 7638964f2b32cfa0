/* SPDX-License-Identifier: MIT */
/*
 * The plugin under test (linked in as cth_plugin) run on the daemon's own
 * host code, as the queue worker and cthelper-replay run it: each packet
 * built as IP and read by pkt_view_parse(), kept bytes joined and stored
 * by keep.c, the plugin called by pkt_call_run() (host/call.c) with the host-call table
 * of server/host/packet.c (argument checks, the expectation rule of
 * runtime/guard.c), its edits made by edit.c into the packet sent.
 *
 * What stands in for the kernel records and answers as a test sets: every
 * expectation and expectation control that reaches it (busy ports,
 * errors), and, through the host's trace, every host call with the host's
 * answer (edits, keeps, timeout, mark, detach, log lines).  A request the
 * host refuses as malformed is a plugin bug, counted in n_bad.
 *
 *   conn_*     a connection as the kernel shows it to the daemon;
 *   run_*      hand it one packet;
 *   plugrun_*  the record of one packet's call, and the answers.
 */
#ifndef CTH_TEST_PLUGRUN_H
#define CTH_TEST_PLUGRUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cthelperd/plugin.h>

#include "host/keep.h"
#include "host/call.h"
#include "host/edit.h"
#include "host/packet.h"
#include "runtime/stats.h"

#define PLUGRUN_MAX_EXP 1024u
#define PLUGRUN_MAX_CTL 256u
/* The largest payload one packet carries here, whatever its family and
 * protocol: an IPv4 TCP packet's (a 16-bit total length). */
#define PLUGRUN_PAYLOAD_MAX (65535u - 20u - 20u)

struct plugrun_edit {
	size_t off, len;        /* in the payload as shown, kept bytes included */
	char repl[128];         /* the replacement's first bytes */
	size_t repl_len;
};

struct plugrun_ctl {
	unsigned int op;
	bool has_exp;
	struct cth_expect exp;      /* fn points at fn */
	char fn[PKT_EXPECT_FN_MAX];
	unsigned int order;
};

/* Answers a test sets, and what the plugin asked during one packet. */
struct plugrun {
	/* the kernel's answers to expectations (plugrun_answers_reset()) */
	uint16_t busy[16];           /* SYNC expectations to these ports: -EBUSY */
	unsigned int n_busy;
	unsigned int busy_left;      /* the next SYNC expectations: busy_err */
	int busy_err;                /* -EBUSY unless set */
	int expect_err;              /* then every expectation answers this */
	bool table_full;             /* every expectation: -EMFILE, until a flush */
	int refresh_ret;
	/* answers the host gives in conditions a test cannot make (out of
	 * memory, a connection the kernel will not detach): cth_mangle()
	 * and cth_detach() answer these without the host */
	int mangle_err;
	int detach_err;
	bool old_host;               /* a host from before cth_keep() */
	bool has_link;               /* cth_link() answers #link (else -EOPNOTSUPP) */
	struct cth_link link;
	/* cth_detach() is expected of the plugin: counted in n_detach;
	 * otherwise a detach is counted in n_bad too */
	bool detach_ok;
	/* what the plugin asked, that passed the host's argument checks */
	unsigned int order;          /* call counter across kinds */
	unsigned int n_exp;
	struct cth_expect exp[PLUGRUN_MAX_EXP];     /* fn points at exp_fn */
	unsigned int exp_how[PLUGRUN_MAX_EXP];
	unsigned int exp_order[PLUGRUN_MAX_EXP];
	char exp_fn[PLUGRUN_MAX_EXP][PKT_EXPECT_FN_MAX];
	int exp_rc[PLUGRUN_MAX_EXP];
	unsigned int n_ctl;
	struct plugrun_ctl ctl[PLUGRUN_MAX_CTL];
	/* refused by the host's expectation rule (guard.h), recorded above */
	unsigned int n_refused;
	unsigned int n_mangle;       /* cth_mangle() calls */
	unsigned int n_edit;         /* the ones the host took */
	struct plugrun_edit edit[EDIT_MAX];
	bool keep_asked;             /* a cth_keep() the host took */
	size_t keep_off;
	int keep_ret;                /* the last cth_keep()'s answer, 1: none */
	bool has_timeout;
	uint32_t timeout;
	/* the plugin changed its state (the verdict writes it, but not for
	 * an expected connection: the kernel keeps none) */
	bool state_changed;
	unsigned int n_detach;
	unsigned int n_log;
	char log[256];               /* the last line */
	/* refused as malformed by the host (a plugin bug), or a call the
	 * plugin is not expected to make (set_mark; cth_detach() unless
	 * detach_ok); the verdict not one of the two */
	unsigned int n_bad;
	char bad[256];
	/* this segment's own payload as sent, edits applied */
	uint8_t out[65536];
	size_t out_len;
	/* the state's address for the plugin (run_state()), NULL: the host's */
	uint8_t *state_at;
	bool reached;                /* the kernel side was asked */
	/* the host handed the plugin its state zeroed (another version, or
	 * refused by priv_valid: plugin.h priv_version) */
	bool state_reset;
	/* what the host counts itself, as the worker's block: the helper's
	 * counters (state_reset) and the plugin's (cth_count()), slot 0;
	 * kept across packets */
	struct stats_block stats;
};

/* A connection as the daemon is shown it: tuples, NAT bits, status,
 * configuration, private state, and the bytes the plugin kept (the
 * daemon's table, host/keep.c). */
struct conn {
	struct cth_tuple t[2];
	unsigned int nat;
	unsigned int ct_status;
	uint64_t cfg[32];       /* the configuration block, aligned */
	uint8_t priv[CTH_PRIV_MAX];
	struct keep keep;
	uint32_t seq[2];        /* run_stream(): the next segment's */
	struct guard guard;     /* the helper's expect_networks, mark_mask */
};

struct plugrun *plugrun_new(void);
void plugrun_free(struct plugrun *f);
/* A test address in text; aborts on a typo. */
union cth_addr addr_of(int family, const char *text);
/* Clears the answers a test set. */
void plugrun_answers_reset(struct plugrun *f);

/* a (original source) at aport talks to b at bport. */
void conn_init(struct conn *c, int family, uint8_t proto, const char *a, uint16_t aport,
	       const char *b, uint16_t bport);
/* The original source appears as pub:port to the other side. */
void conn_snat(struct conn *c, const char *pub, uint16_t port);
/* The original source connects to pub:port, forwarded to the server. */
void conn_dnat(struct conn *c, const char *pub, uint16_t port);
/* conn_init() gives the configuration block the plugin's declared
 * defaults, as the daemon does.  conn_configure() sets one key as the
 * daemon parses it: 0, -ENOENT for a key the plugin does not know, or
 * -EINVAL (the value unchanged) for a bad value. */
int conn_configure(struct conn *c, const char *key, const char *val);
/* The helper's expect_networks (runtime/guard.h): 0 or -EINVAL. */
int conn_expect_networks(struct conn *c, const char *nets);
/* The bytes the host holds for the plugin in direction dir. */
size_t conn_kept(const struct conn *c, enum cth_dir dir);
/* The kept bytes (the connection itself is the caller's). */
void conn_free(struct conn *c);

/* What an established connection's packet in direction dir is. */
static inline enum cth_ctinfo established(enum cth_dir dir)
{
	return dir == CTH_DIR_ORIGINAL ? CTH_CT_ESTABLISHED : CTH_CT_ESTABLISHED_REPLY;
}

/*
 * Hand one packet with len payload bytes to the plugin, its private
 * state at priv (c->priv but for alignment tests): the daemon's host code
 * shows it the payload behind the bytes it kept from the segment before,
 * when seq follows that one.  Returns the verdict; f records the call,
 * f->out is this segment's payload as sent.
 */
int run_state(struct plugrun *f, struct conn *c, enum cth_dir dir, enum cth_ctinfo ctinfo,
	      uint32_t seq, const void *text, size_t len, void *priv);
int run_ctinfo(struct plugrun *f, struct conn *c, enum cth_dir dir, enum cth_ctinfo ctinfo,
	       uint32_t seq, const void *text, size_t len);
/* An established connection's next segment in direction dir: at c->seq[dir],
 * which an accepted segment moves on (a dropped one is sent again). */
int run_stream(struct plugrun *f, struct conn *c, enum cth_dir dir, const void *text,
	       size_t len);

#endif
