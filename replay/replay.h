/* SPDX-License-Identifier: MIT */
/*
 * cthelper-replay: a plugin run offline on the packets of a capture, with
 * the daemon's own host code (server/host/call.c, packet.c, edit.c, keep.c, the
 * loader and the config parser) and an emulation of what the kernel adds:
 * conntrack entries, expectations, NAT tuples, sequence adjustment.
 *
 * One concern per file:
 *   capture.c  pcap/pcapng in (libpcap), link layers, pcap out
 *   conn.c     emulated conntrack: connections, ctinfo, seq adjustment
 *   nat.c      emulated NAT: the --snat/--dnat rules, their ports,
 *              nf_nat_follow_master for an expected connection
 *   view.c     the two kinds of capture: a first packet as the firewall
 *              sees it, and where the capture says its receiver is
 *   expect.c   emulated expectations: the plugin's expect backend
 *   related.c  a connection's first packet: expected (where the kernel
 *              delivers it, right or wrong), helped, or blocked
 *   report.c   the stable text output and the golden comparison
 *   crash.c    a plugin that cannot run here (a sanitizer runtime) or
 *              crashes: said, and a distinct exit status
 *   engine.c   the packet loop (shared with the fuzz targets)
 *   main.c     options, the instance, the run
 */
#ifndef CTH_REPLAY_H
#define CTH_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cthelperd/plugin.h>

#include "host/call.h"
#include "host/keep.h"
#include "host/link.h"
#include "host/packet.h"
#include "runtime/runtime.h"
#include "../kmod/cthd_match.h"

/* ------------------------------------------------------------ capture.c */

/* Largest frame read; a larger one is counted and skipped. */
#define RP_FRAME_MAX 262144u

struct rp_frame {
	unsigned long no;           /* 1-based frame number in the capture */
	uint64_t ms;                /* capture time, milliseconds */
	long sec, usec;             /* and as captured, for -w */
	const uint8_t *data;        /* the whole frame as captured */
	size_t caplen, wirelen;
	size_t l3;                  /* offset of the IP header, when ip */
	int family;                 /* AF_INET, AF_INET6, 0: not IP */
};

struct rp_capture;

/* Open FILE (pcap or pcapng); err says why not.  0 or negative errno. */
int rp_capture_open(const char *file, struct rp_capture **out, char *err, size_t errlen);
/* The same from an open stream (a capture in memory: fmemopen), named
 * name in err; the capture owns fp from here on, closed with it or now
 * when it cannot be read. */
int rp_capture_open_fp(FILE *fp, const char *name, struct rp_capture **out, char *err,
		       size_t errlen);
/* The next frame: 1, 0 at the end, negative errno on a read error. */
int rp_capture_next(struct rp_capture *cap, struct rp_frame *f);
/* Open OUT for frames of the same link type as cap (NULL: none). */
int rp_capture_dump_open(struct rp_capture *cap, const char *file, char *err, size_t errlen);
/* Write frame f with its IP packet replaced by l3 (l3len bytes). */
void rp_capture_dump(struct rp_capture *cap, const struct rp_frame *f,
		     const uint8_t *l3, size_t l3len);
unsigned long rp_capture_skipped(const struct rp_capture *cap);
void rp_capture_close(struct rp_capture *cap);

/* ------------------------------------------------------------ conn.c */

/* TCP sequence adjustment of one direction, as the kernel keeps it
 * (nf_ct_seqadj: one correction position, the offsets before and after). */
struct rp_seqadj {
	bool set;
	uint32_t pos;
	int32_t before, after;
};

struct rp_conn {
	unsigned int id;
	struct cth_tuple t[2];      /* what the plugin sees (NAT applied) */
	struct cth_tuple seen[2];   /* header tuples that find it (capture) */
	unsigned int nat;           /* CTH_NAT_* */
	unsigned int status;        /* CTH_CT_* */
	bool helped;                /* packets go to the plugin */
	uint8_t filter_st[2];       /* --filter: kmod/'s byte per direction */
	bool detach_wait;           /* detach once its expectations are gone */
	bool closed;                /* TCP FIN both ways, or RST */
	/*
	 * Replies were taken where they carry the NATed tuple: the capture
	 * is the helper's view (each direction before the router), so the
	 * acknowledgements in it count the bytes as the other side saw them
	 * and move back by the adjustment on the way.  In a capture without
	 * NAT both ends saw the same bytes, so there the acknowledgements
	 * already count what the receiving end got and stay.
	 */
	bool helper_view;
	uint8_t fin;                /* bit per direction */
	unsigned int packets[2];
	unsigned int master;        /* conn id, 0: none */
	struct cth_tuple master_tuple;
	unsigned int expectation;   /* the one it matched */
	/*
	 * An expected connection's account: where the capture says its
	 * receiver is (want), whether the kernel's delivery missed it
	 * (wrong), and whether the port is still to be checked at the
	 * receiver's first answer (want.dport 0, view.c).
	 */
	struct rp_endpoint {
		union cth_addr dst;
		uint16_t dport;          /* 0: known at the answer only */
		union cth_addr src;      /* the sender as the receiver knows it */
	} want;
	bool wrong;
	uint8_t priv[CTH_PRIV_MAX];
	struct rp_seqadj adj[2];
	struct rp_conn *next;
};

/* A --snat or --dnat rule: 0 address family = none. */
struct rp_nat {
	int family;
	union cth_addr addr;
	uint16_t port;              /* 0: keep the port when free */
};

struct rp_conns {
	struct rp_conn *head;
	unsigned int n;
	struct rp_nat snat, dnat;
};

/* The connection a packet belongs to and its direction, or NULL. */
struct rp_conn *rp_conn_find(struct rp_conns *ct, const struct cth_tuple *hdr,
			     enum cth_dir *dir);
/* A new connection from its first packet's header tuple; NATed by the
 * --snat/--dnat rules when nat is set (the helped ones). */
struct rp_conn *rp_conn_new(struct rp_conns *ct, const struct cth_tuple *hdr, bool nat);
/* A new connection found by hdr (as captured) whose first packet reached
 * the firewall as arrival (view.c); not NATed yet. */
struct rp_conn *rp_conn_add(struct rp_conns *ct, const struct cth_tuple *hdr,
			    const struct cth_tuple *arrival);
/* Is a tuple some connection's, either way (nf_conntrack_tuple_taken)? */
bool rp_conn_taken(const struct rp_conns *ct, const struct rp_conn *self,
		   const struct cth_tuple *t);
void rp_tuple_invert(struct cth_tuple *out, const struct cth_tuple *t);
void rp_conn_forget(struct rp_conns *ct, struct rp_conn *c);
void rp_conns_free(struct rp_conns *ct);
/* The conntrack state the kernel would give this packet (before it). */
enum cth_ctinfo rp_conn_ctinfo(const struct rp_conn *c, enum cth_dir dir);
/* After a packet passed: SEEN_REPLY, ASSURED, CONFIRMED, TCP close. */
void rp_conn_seen(struct rp_conn *c, enum cth_dir dir, uint8_t tcp_flags);
/* A payload length change of delta at seq in dir (nf_ct_seqadj_set). */
void rp_seqadj_set(struct rp_conn *c, enum cth_dir dir, uint32_t seq, int32_t delta);
/* Rewrite a TCP packet's seq (and, in a helper's-view capture, its ack)
 * for the adjustments; true when it changed (checksums then need fixing). */
bool rp_seqadj_apply(const struct rp_conn *c, enum cth_dir dir, uint8_t *l4);
/* Header tuple of a raw IP packet; tcp_flags set for TCP.  0 or -EINVAL. */
int rp_tuple_of(const struct cth_packet *p, int family, struct cth_tuple *t,
		uint8_t *tcp_flags);
bool rp_addr_eq(const union cth_addr *a, const union cth_addr *b);

/* ------------------------------------------------------------ nat.c */

struct rp_exp;
struct rp_expects;

/* "ADDR[:PORT]" or "[ADDR6][:PORT]" into n; 0 or -EINVAL. */
int rp_nat_parse(const char *s, struct rp_nat *n);
/* The rules a new connection meets (rp_nat_rules). */
enum { RP_RULE_SNAT = 1u << 0, RP_RULE_DNAT = 1u << 1 };
/* The --snat and --dnat rules applied to the new connection c (its
 * reply tuple and nat bits), as the nat table's rules would. */
void rp_nat_rules(struct rp_conns *ct, struct rp_conn *c, unsigned int rules);
/* Is a the source, behind the --snat rule, of a helped connection? */
bool rp_nat_inside(const struct rp_conns *ct, int family, const union cth_addr *a);
/* Does e name the one expectation function the replay emulates? */
bool rp_nat_follows(const struct cth_expect *e);
/* Where nf_nat_follow_master sends e's connection, for a master whose
 * tuples are mt: the address (the port is e->nat_port). */
const union cth_addr *rp_nat_follow_dst(const struct cth_tuple mt[2],
					const struct cth_expect *e);
/* The expected connection c of e mapped as nf_nat_follow_master does. */
void rp_nat_follow_master(struct rp_conns *ct, struct rp_conn *c, const struct rp_exp *e);

/* ------------------------------------------------------------ view.c */

/* How a reading of a first packet was made from the capture. */
enum rp_view {
	RP_VIEW_CAPTURED,       /* as captured */
	RP_VIEW_SERVER,         /* a capture without NAT: the server side's
				 * packet as it would reach the firewall */
	RP_VIEW_CLIENT,         /* a capture without NAT: the client's packet
				 * to a port the plugin moved, as told */
};

struct rp_arrival {
	struct cth_tuple t;
	enum rp_view view;
};

#define RP_ARRIVALS_MAX 8u

/* The readings of a new connection's first packet hdr as it reaches the
 * firewall, the likeliest first; how many (1..RP_ARRIVALS_MAX). */
size_t rp_view_arrivals(const struct rp_conns *ct, const struct rp_expects *x,
			const struct cth_tuple *hdr, struct rp_arrival *out);
/* Where the capture says the receiver of e's connection is, and whom it
 * knows as the sender, for its first packet hdr read as a. */
void rp_view_endpoint(const struct rp_exp *e, const struct rp_arrival *a,
		      const struct cth_tuple *hdr, struct rp_endpoint *want);

/* ------------------------------------------------------------ expect.c */

struct rp_exp {
	unsigned int id;
	unsigned int master;        /* conn id */
	struct cth_tuple master_t[2];
	struct cth_expect e;
	char fn[PKT_EXPECT_FN_MAX];
	uint64_t expires_ms;        /* 0: never (INACTIVE waits for refresh) */
	uint64_t created_ms;
	struct rp_exp *next;
};

struct rp_report;

struct rp_expects {
	struct rp_exp *head;
	unsigned int next_id;
	unsigned int created, matched, expired, evicted, removed;
	const struct instance *inst;
	struct rp_conns *ct;
	struct rp_report *rep;
	/* the running call */
	struct rp_conn *conn;
	uint64_t now_ms;
	unsigned int helped_in_call;
	unsigned int last_id;       /* the expectation the last call created */
	char last[160];             /* what else it did, for the report */
};

/* The backends for pkt_call (c->backend is the struct rp_expects). */
int rp_expect_fn(struct pkt_call *c, const struct cth_expect *e, unsigned int how);
int rp_expect_ctl_fn(struct pkt_call *c, unsigned int op, const struct cth_expect *e);
/* Drop expectations whose time is over (reported). */
void rp_expect_age(struct rp_expects *x, unsigned long frame, uint64_t now_ms);
/* The expectation a new connection's first packet matches by its own
 * tuple, as it reaches the firewall (used up unless permanent), or NULL. */
struct rp_exp *rp_expect_match(struct rp_expects *x, const struct cth_tuple *t,
			       struct rp_exp *out);
/* The port a master's NAT expectation tells the receiver for a
 * connection the kernel sends to dst:port (its dport for that nat_port),
 * or port when none says otherwise. */
uint16_t rp_expect_told_port(const struct rp_expects *x, const struct rp_conn *m,
			     const union cth_addr *dst, uint16_t port);
unsigned int rp_expect_count(const struct rp_expects *x, unsigned int master);
/* Remove a master's expectations (it is destroyed); how many. */
unsigned int rp_expect_forget_master(struct rp_expects *x, unsigned int master);
void rp_expects_free(struct rp_expects *x);

/* ------------------------------------------------------------ report.c */


struct rp_report {
	FILE *out;                  /* NULL: quiet */
	char *buf;                  /* everything written, for --expect */
	size_t len;
	FILE *mem;
	bool debug;                 /* plugin debug lines too */
	unsigned long frame;        /* of the current line */
	const struct instance *inst;
};

int rp_report_open(struct rp_report *r, FILE *out);
void rp_report_line(struct rp_report *r, bool sub, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Text of a tuple "tcp A:P > B:P" ([v6]:port, any for 0). */
const char *rp_fmt_tuple(char *buf, size_t len, const struct cth_tuple *t);
const char *rp_fmt_addr_port(char *buf, size_t len, int family,
			     const union cth_addr *a, uint16_t port);
/* A source network: "10.0.1.0/24:any", "[fd00:1::/64]:1900". */
const char *rp_fmt_net_port(char *buf, size_t len, int family, const union cth_addr *a,
			    unsigned int prefix, uint16_t port);
/* The address alone, IPv6 without brackets. */
const char *rp_fmt_addr(char *buf, size_t len, int family, const union cth_addr *a);
/* Quoted and escaped, at most max bytes shown ("..." after). */
const char *rp_fmt_bytes(char *buf, size_t len, const uint8_t *p, size_t n, size_t max);
const char *rp_fmt_errno(char *buf, size_t len, int rc);
/* An expectation of the master whose tuples are mt (NULL: unknown), its
 * NAT said as where the kernel sends the connection. */
const char *rp_fmt_expect(char *buf, size_t len, const struct instance *in,
			  const struct cth_tuple *mt, const struct cth_expect *e);
/* The trace of every host call (pkt_call::trace). */
void rp_report_trace(struct pkt_call *c, const struct pkt_event *ev);
/* Compare everything written with FILE; 0 same, 1 differs (said on
 * stderr), negative errno when FILE cannot be read. */
int rp_report_compare(struct rp_report *r, const char *file);
void rp_report_close(struct rp_report *r);

/* ------------------------------------------------------------ engine.c */

#define RP_PORTS_MAX 16u

/* The emulated host's one link (--link): ifindex 2 "lan"; the other side
 * of the firewall is ifindex 3 "wan", without addresses. */
#define RP_LINK_MAX 8u
#define RP_LINK_LAN 2u
#define RP_LINK_WAN 3u

struct rp_engine {
	const struct instance *inst;
	struct link_addr link[RP_LINK_MAX];
	size_t n_link;
	uint16_t ports[RP_PORTS_MAX];   /* 0 of them: the first flow's */
	size_t n_ports;
	uint8_t proto;                  /* 0: any of the plugin's */
	struct rp_conns ct;
	struct rp_expects x;
	struct rp_report rep;
	struct keep keep;
	/* every packet as its verdict leaves it (l3 NULL: unchanged, as
	 * captured; a dropped packet is not emitted) */
	void (*emit)(void *arg, const struct rp_frame *f, const uint8_t *l3, size_t len);
	void *emit_arg;
	/* --sandbox (main.c): the plugin's call made in its sandbox instead,
	 * at now_ms of the monotonic clock; returns the verdict or a negative
	 * errno (sandbox.h sandbox_run()) */
	int (*sandboxed)(const struct instance *inst, struct pkt_call *call,
			 const uint8_t *priv, size_t priv_len, uint64_t now_ms);
	/* --sandbox: kept bytes the replay's copy of the sandbox's table
	 * showed the current call (engine.c rp_help_sandboxed()) */
	size_t kept_shown;
	/* --filter: only the packets kmod/ would queue reach the plugin (the
	 * plugin's match rules as the runtime compiled them, inst->match,
	 * through kmod/cthd_match.h); filtered counts the others */
	bool filter;
	unsigned long filtered;
	unsigned long frames, not_ip, calls, edits_packets, drops, related, helped;
	unsigned long wrong, blocked;   /* expected ones delivered wrong; neither */
	uint8_t buf[RP_FRAME_MAX];
};

/* Set up for one instance (rep opened by the caller, NAT and ports set). */
void rp_engine_init(struct rp_engine *r, const struct instance *inst);
/* Is a first packet's tuple one the helper is attached to (-p, -P)? */
bool rp_engine_helps(const struct rp_engine *r, const struct cth_tuple *t);
void rp_engine_frame(struct rp_engine *r, const struct rp_frame *f);
void rp_engine_header_ports(struct rp_engine *r);
/* --link "ADDR/PREFIX[,ADDR/PREFIX...]": the host's addresses on its
 * link.  0 or -EINVAL. */
int rp_engine_link_parse(struct rp_engine *r, const char *list);
void rp_engine_summary(struct rp_engine *r);
/* --filter: take the instance's plugin's match rules (none: every packet
 * still reaches the plugin). */
void rp_engine_filter_set(struct rp_engine *r);
void rp_engine_free(struct rp_engine *r);

/* ------------------------------------------------------------ crash.c */

/* The exit statuses (cthelper-replay(1), EXIT STATUS). */
enum {
	RP_EXIT_OK = 0,
	RP_EXIT_DIFFERS = 1,        /* the output differs from --expect */
	RP_EXIT_USAGE = 2,          /* usage, capture, golden file, plugin refused */
	RP_EXIT_CRASH = 3,          /* a crash, an abort, a sanitizer's report */
	RP_EXIT_WRONG = 4,          /* --strict: an expected connection delivered wrong */
};

/* Before plugin is loaded: a sanitizer runtime it needs that this process
 * lacks is said on stderr, with the fix; 0, or -ENOEXEC. */
int rp_crash_runtime_check(const char *plugin);
/* From here on a fatal signal or a sanitizer's report ends the process
 * with RP_EXIT_CRASH, naming the frame *frame (read then). */
void rp_crash_arm(const unsigned long *frame);

/* ------------------------------------------------------------ related.c */

/* The connection of a first packet hdr that no connection knows: an
 * expected one, a helped one or a blocked one, said in the report. */
struct rp_conn *rp_related_new(struct rp_engine *r, const struct cth_tuple *hdr);
/* A helper's-view capture's answer of an expected connection that the
 * kernel delivered somewhere else (said, once); NULL when hdr is not. */
struct rp_conn *rp_related_answer(struct rp_engine *r, const struct cth_tuple *hdr);

#endif
