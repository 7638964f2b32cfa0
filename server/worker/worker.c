/* SPDX-License-Identifier: MIT */
/*
 * Queue workers: receive queued packets with their conntrack, run the
 * helper's plugin, send the verdict with the updated conntrack (private
 * state, timeout, mark, helper detach) and at most one expectation.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_conntrack.h>
#include <linux/netfilter/nfnetlink_queue.h>
#include <linux/netfilter/nf_conntrack_common.h>
#include <linux/if_ether.h>
#include <libnetfilter_conntrack/libnetfilter_conntrack.h>
#include <libnetfilter_queue/libnetfilter_queue.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "detach.h"
#include "kernel/expect.h"
#include "wdetach.h"
#include "wexpect.h"
#include "host/keep.h"
#include "host/overlay.h"
#include "base/log.h"
#include "host/mangle.h"
#include "seqsync.h"
#include "host/packet.h"
#include "kernel/portids.h"
#include "qmsg.h"
#include "verdict.h"
#include "worker.h"

/*
 * Queue messages are received WORKER_RX_SLOTS at a time (recvmmsg), each
 * slot large enough for the largest message nfnetlink_queue sends, which
 * must never be cut (its packet would wait for a verdict for ever): a GSO
 * packet's NFQA_PAYLOAD holds at most 65531 bytes (NFQNL_MAX_COPY_RANGE,
 * nfqnl_set_mode() clamps our 0xffff to it), and the header plus every
 * other attribute (NFQA_CT is a few hundred bytes, then interfaces,
 * hardware address, timestamp, mark, uid/gid, skb info, cap len) stay far
 * below 4 KiB.  Only the pages a message is written to are touched: a
 * queue of small packets touches a page or two per slot, one busy with
 * 64 KiB GSO packets up to 8 x 68 KiB.  Eight slots take 1/8 of a
 * receive per packet under load; more would save little and could touch
 * more memory.
 */
#define WORKER_RX_SLOTS 8u
#define WORKER_RX_SLOT ((64u + 4u) * 1024u)
/* Verdicts leave together, a datagram of several within 3 KiB (below
 * NLMSG_GOODSIZE with 4 KiB pages: vbatch.h); the buffer holds the
 * largest single verdict, a rewritten GSO packet with an expectation. */
#define WORKER_VB_GOAL 3072u
#define WORKER_SO_RCVBUF (8 * 1024 * 1024)

static void worker_qcount(struct worker *w, enum stats_queue_counter k)
{
	stats_add(&w->stats.q[k], 1);
}

/* The queue socket's send, for vbatch_send(). */
static int worker_nfq_send(void *arg, const void *buf, size_t len)
{
	struct worker *w = arg;

	return mnl_socket_sendto(w->nfq.nl, buf, len) < 0 ? -errno : 0;
}

/* What a failed batch cost (vbatch.h: no verdict of it was applied). */
static void worker_verdict_failed(struct worker *w, const struct vbatch_sent *r)
{
	stats_add(&w->stats.q[STATS_Q_VERDICT_RETRIES], r->retried);
	stats_add(&w->stats.q[STATS_Q_VERDICT_ERRORS], r->dropped + r->lost);
	if (r->dropped || r->lost)
		log_err("queue %u: %u verdicts could not be sent (%s): %u dropped instead, "
			"%u lost (their packets stay queued)", w->queue,
			r->dropped + r->lost, strerror(-r->err), r->dropped, r->lost);
}

/*
 * Send the verdicts collected so far, in one datagram (vbatch.h); when
 * that fails, one by one.  A refusal of one verdict comes back later as
 * its own error message (worker_batch()).
 */
void worker_verdict_flush(struct worker *w)
{
	struct vbatch *b = &w->vb;
	struct vbatch_sent r;

	if (!b->n)
		return;
	vbatch_send(b, worker_nfq_send, w, &r);
	if (r.err)
		worker_verdict_failed(w, &r);
	for (unsigned int i = 0; i < b->n; i++)
		if (r.ok[i] && b->tag[i] >= 0)  /* a rewritten packet: its helper's slot */
			stats_add(&w->stats.h[b->tag[i]][STATS_H_MANGLED], 1);
	vbatch_clear(b);
}

/* The queue's copy mode, flags and length, in one CONFIG message. */
static struct nlmsghdr *worker_params_put(struct worker *w, char *buf,
					  uint32_t queue_len, bool fail_open)
{
	struct nlmsghdr *nlh = nfq_nlmsg_put(buf, NFQNL_MSG_CONFIG, w->queue);
	uint32_t flags = NFQA_CFG_F_CONNTRACK | NFQA_CFG_F_GSO |
			 (fail_open ? NFQA_CFG_F_FAIL_OPEN : 0);

	nfq_nlmsg_cfg_put_params(nlh, NFQNL_COPY_PACKET, 0xffff);
	/* the mask names every flag we set or clear: fail-open may go */
	mnl_attr_put_u32(nlh, NFQA_CFG_FLAGS, htonl(flags));
	mnl_attr_put_u32(nlh, NFQA_CFG_MASK, htonl(NFQA_CFG_F_CONNTRACK | NFQA_CFG_F_GSO |
						   NFQA_CFG_F_FAIL_OPEN));
	nfq_nlmsg_cfg_put_qmaxlen(nlh, queue_len);
	return nlh;
}

static int worker_queue_bind(struct worker *w, uint32_t queue_len,
			     bool fail_open)
{
	char buf[NLREQ_BUF];
	struct nlmsghdr *nlh;
	int rc;

	nlh = nfq_nlmsg_put(buf, NFQNL_MSG_CONFIG, w->queue);
	nfq_nlmsg_cfg_put_cmd(nlh, AF_INET, NFQNL_CFG_CMD_BIND);
	if ((rc = nlreq_talk(&w->nfq, nlh)) < 0)
		return rc;
	w->queue_len = queue_len;
	w->fail_open = fail_open;
	return nlreq_talk(&w->nfq, worker_params_put(w, buf, queue_len, fail_open));
}

/*
 * From the main thread, while the worker runs: only the socket that bound
 * a queue may configure it (nfqnl_recv_config() checks the port id), and
 * the worker reads that socket, so no ack is asked for; a refusal still
 * comes back as an error message, which the worker logs.
 */
int worker_params_set(struct worker *w, uint32_t queue_len, bool fail_open)
{
	char buf[NLREQ_BUF];
	struct nlmsghdr *nlh;

	if (w->queue_len == queue_len && w->fail_open == fail_open)
		return 0;
	nlh = worker_params_put(w, buf, queue_len, fail_open);
	nlh->nlmsg_flags &= (uint16_t)~NLM_F_ACK;
	if (mnl_socket_sendto(w->nfq.nl, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	log_info("queue %u: length %u, fail-open %s (was %u, %s)", w->queue, queue_len,
		 fail_open ? "yes" : "no", w->queue_len, w->fail_open ? "yes" : "no");
	w->queue_len = queue_len;
	w->fail_open = fail_open;
	return 1;
}

static void worker_sock_tune(struct worker *w)
{
	int fd = mnl_socket_get_fd(w->nfq.nl), one = 1, sz = WORKER_SO_RCVBUF;

	/* losing a queued packet's verdict is worse than an overrun report:
	 * overruns are counted by the kernel (nfnetlink_queue stats) */
	mnl_socket_setsockopt(w->nfq.nl, NETLINK_NO_ENOBUFS, &one, sizeof(one));
	/* a refused verdict's error message carries the verdict's header
	 * only, not the verdict (up to a 64 KiB payload): it stays far
	 * below a receive slot (netlink_ack(), NLM_F_CAPPED) */
	mnl_socket_setsockopt(w->nfq.nl, NETLINK_CAP_ACK, &one, sizeof(one));
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
}

int worker_init(struct worker *w, uint16_t queue, uint32_t queue_len,
		bool fail_open, struct runtime *_Atomic *rtp)
{
	int rc;

	memset(w, 0, sizeof(*w));
	w->queue = queue;
	w->rtp = rtp;
	w->xlist = malloc(sizeof(*w->xlist));
	w->keep.stats = w->overlay.stats = w->detach.stats = &w->stats;
	if (rxvec_init(&w->rx, WORKER_RX_SLOTS, WORKER_RX_SLOT) < 0 ||
	    vbatch_init(&w->vb, verdict_size_max(PKT_OUT_MAX, true), WORKER_VB_GOAL) < 0 ||
	    !w->xlist)
		return -ENOMEM;
	if ((rc = nlreq_open(&w->nfq)) < 0 || (rc = nlreq_open(&w->ctnl)) < 0) {
		log_err("queue %u: cannot open netlink socket: %s", queue, strerror(-rc));
		return rc;
	}
	/* the expectation events these cause are ours (exprepair.c) */
	if (portids_add(w->nfq.portid, PORTID_QUEUE) < 0 ||
	    portids_add(w->ctnl.portid, PORTID_REQUEST) < 0)
		log_warn("queue %u: too many sockets to tell our expectation events "
			 "from others'", queue);
	rc = worker_queue_bind(w, queue_len, fail_open);
	if (rc < 0) {
		log_err("queue %u: cannot bind: %s%s", queue, strerror(-rc),
			rc == -EBUSY ? " (another process, e.g. conntrackd, owns this queue)" :
			rc == -EPERM ? " (needs CAP_NET_ADMIN)" :
			rc == -EINVAL || rc == -EOPNOTSUPP ? " (kernel lacks nfnetlink_queue or its conntrack glue)" : "");
		return rc;
	}
	worker_sock_tune(w);
	return 0;
}

/*
 * Add the packet's verdict to the batch (sent at the end of this receive,
 * before any ctnetlink request, or now when the batch is full).  A
 * dropped packet needs no new payload.
 */
static size_t worker_verdict(struct worker *w, uint16_t queue, uint32_t id,
			     int verdict, struct pkt_call *c,
			     const struct cth_expect *exp)
{
	bool drop = verdict == CTH_VERDICT_DROP;
	const uint8_t *pkt = NULL;
	size_t len = 0, need;
	char *buf;

	if (c && !drop)
		pkt = pkt_call_mangled(c, &len);
	need = verdict_size_max(pkt ? len : 0, exp != NULL);
	if (!(buf = vbatch_room(&w->vb, need))) {
		worker_verdict_flush(w);
		buf = vbatch_room(&w->vb, need);
	}
	verdict_put(buf, queue, id, drop, c, pkt, len, exp);
	vbatch_add(&w->vb, id, pkt ? (int)c->inst->slot : -1);
	return pkt ? len : 0;
}

/* After a verdict that changed a TCP payload's length: a no-op update,
 * whose event lets conntrackd see the sequence adjustment (seqsync.c).
 * A connection gone meanwhile has nothing to sync. */
static void worker_seqsync(struct worker *w, const struct pkt_call *c)
{
	int rc = worker_ct_update(w, &c->pkt.tuple[CTH_DIR_ORIGINAL], c->pkt.zone, NULL);

	if (rc == 0)
		worker_count(w, c->inst, STATS_H_SEQADJ_SYNCED);
	else if (rc != -ENOENT)
		log_warn("%s: cannot announce a sequence adjustment (a backup firewall "
			 "would not learn it): %s", c->inst->name, strerror(-rc));
}

/* Kept bytes, detaches and in-flight state age by a clock that never
 * jumps (ev_now() follows the wall clock).  The coarse one: their ages are
 * seconds, and it is always read in the vDSO, while CLOCK_MONOTONIC costs
 * a system call where the clock source cannot be read from user space
 * (hpet: the test VM, measured by tests/bench). */
static uint64_t worker_mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void worker_detach_poll_cb(struct ev_loop *loop, ev_timer *t, int revents)
{
	struct worker *w = t->data;

	(void)revents;
	worker_detach_poll(w, worker_mono_ms());
	if (!w->detach.waiting)
		ev_timer_stop(loop, t);
}

/* Run the plugin for a packet with payload and send its verdict. */
static void worker_packet_help(struct worker *w, struct qmsg *m)
{
	const struct runtime *rt = atomic_load(w->rtp);
	/* only the counters are cleared: the arrays behind them are large
	 * and filled as used, and this runs for every payload packet */
	struct worker_pkt wp;
	struct pkt_call c = { .backend = &wp, .expect_fn = worker_expect,
			      .expect_ctl_fn = worker_expect_ctl };
	const struct instance *in = NULL;
	int verdict = CTH_VERDICT_ACCEPT;
	uint64_t now;
	size_t sent_len;

	worker_pkt_init(&wp, w);
	if (qmsg_conn_read(m) < 0) {
		log_debug("queue %u: packet %u: incomplete conntrack, accepted",
			  m->queue, m->id);
		worker_qcount(w, STATS_Q_PARSE_ERRORS);
		goto out;
	}
	if (m->helper[0])
		in = runtime_find(rt, m->helper, m->family, m->view.tuple[0].proto);
	if (!in) {
		log_debug("queue %u: packet %u: helper '%s' is not ours, accepted",
			  m->queue, m->id, m->helper[0] ? m->helper : "(none)");
		worker_qcount(w, STATS_Q_NOT_OURS);
		goto out;
	}
	now = w->now_ms;
	if (w->detach.used && detach_lookup(&w->detach, &m->view, now) == DETACH_DONE) {
		log_debug("queue %u: packet %u: queued before its connection was detached, accepted",
			  m->queue, m->id);
		worker_qcount(w, STATS_Q_NOT_OURS);
		in = NULL;
		goto out;
	}
	c.pkt = m->view;
	c.inst = in;
	c.truncated = m->truncated;
	c.gso = m->gso;
	c.keep = &w->keep;
	worker_kreq_begin(w, in);
	keep_join(&w->keep, &c, now);
	verdict = overlay_call_run(&w->overlay, &c, m->kpriv, m->klen, now);
	keep_done(&w->keep, &c, verdict, now);
	worker_count(w, in, STATS_H_PAYLOAD);
	worker_count(w, in, verdict == CTH_VERDICT_DROP ? STATS_H_DROPS : STATS_H_ACCEPTS);
	if (c.n_refused)
		stats_add(&w->stats.h[in->slot][STATS_H_EXPECT_REFUSED], c.n_refused);
	if (c.mark_masked)
		worker_count(w, in, STATS_H_MARK_MASKED);
	if (c.detach && worker_detach_decide(w, &wp, &c, now) &&
	    !ev_is_active(&w->detach_poll))
		ev_timer_start(w->loop, &w->detach_poll);
out:
	sent_len = worker_verdict(w, m->queue, m->id, verdict, in ? &c : NULL,
				  wp.has_exp ? &wp.exp : NULL);
	if (in) {
		worker_expect_sent(&wp, &c);
		worker_expect_later(&wp, &c, verdict);
	}
	if (in && seqsync_needed(&c.pkt, sent_len))
		worker_seqsync(w, &c);
	worker_kreq_end(w);
	pkt_call_release(&c);
}

/* Every packet with an id: counted, and ids skipped since the last one. */
static void worker_packet_count(struct worker *w, uint32_t id)
{
	worker_qcount(w, STATS_Q_PACKETS);
	stats_add(&w->stats.q[STATS_Q_UNDELIVERED], stats_id_gap(w->last_id, id));
	w->last_id = id;
}

static void worker_packet(struct worker *w, const struct nlmsghdr *nlh)
{
	struct qmsg m;
	int kind = qmsg_read(nlh, &m);

	if (kind == QMSG_NO_ID) {
		log_err("queue %u: malformed queue message without packet id", m.queue);
		return;
	}
	worker_packet_count(w, m.id);
	switch (kind) {
	case QMSG_MALFORMED:
		worker_qcount(w, STATS_Q_PARSE_ERRORS);
		log_warn("queue %u: packet %u: malformed queue message, accepted", m.queue, m.id);
		worker_verdict(w, m.queue, m.id, CTH_VERDICT_ACCEPT, NULL, NULL);
		return;
	case QMSG_ACCEPT:
		/* no payload (pure ACK), no conntrack, or not IP: cheaply */
		worker_qcount(w, STATS_Q_NO_PAYLOAD);
		worker_verdict(w, m.queue, m.id, CTH_VERDICT_ACCEPT, NULL, NULL);
		return;
	default:
		worker_packet_help(w, &m);
	}
}

/*
 * A message cut to its receive slot (never expected: rxvec.h, the slot
 * size above) lost the end of its packet: that packet is answered
 * ACCEPT, unread, if its id made it, and counted as a parse error.
 */
static void worker_packet_cut(struct worker *w, struct nlmsghdr *nlh, size_t len)
{
	struct qmsg m;

	if (len < sizeof(*nlh)) {
		log_err("queue %u: a datagram was cut (receive slot too small)", w->queue);
		return;
	}
	nlh->nlmsg_len = (uint32_t)len;
	if ((nlh->nlmsg_type & 0xff) != NFQNL_MSG_PACKET ||
	    (nlh->nlmsg_type >> 8) != NFNL_SUBSYS_QUEUE ||
	    qmsg_read(nlh, &m) == QMSG_NO_ID) {
		log_err("queue %u: a message was cut to %zu bytes (receive slot too small)",
			w->queue, len);
		return;
	}
	worker_packet_count(w, m.id);
	worker_qcount(w, STATS_Q_PARSE_ERRORS);
	log_err("queue %u: packet %u: message cut to %zu bytes (receive slot too small), accepted",
		m.queue, m.id, len);
	worker_verdict(w, m.queue, m.id, CTH_VERDICT_ACCEPT, NULL, NULL);
}

/* Walk every message ourselves: mnl_cb_run() stops at the first error
 * message, which would strand the packets queued behind it.  In a cut
 * datagram the message left over is the cut one. */
static void worker_batch(struct worker *w, char *buf, size_t len, bool cut)
{
	struct nlmsghdr *nlh = (void *)buf;
	int rem = (int)len;

	for (; mnl_nlmsg_ok(nlh, rem); nlh = mnl_nlmsg_next(nlh, &rem)) {
		if (nlh->nlmsg_type == NLMSG_ERROR) {
			const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);

			if (e->error) {
				worker_qcount(w, STATS_Q_VERDICT_ERRORS);
				log_warn("queue %u: kernel refused a verdict or setting: %s",
					 w->queue, strerror(-e->error));
			}
			continue;
		}
		if ((nlh->nlmsg_type & 0xff) == NFQNL_MSG_PACKET &&
		    (nlh->nlmsg_type >> 8) == NFNL_SUBSYS_QUEUE)
			worker_packet(w, nlh);
	}
	if (cut)
		worker_packet_cut(w, nlh, (size_t)rem);
}

/* Handle the messages of one receive; their verdicts leave together. */
static int worker_receive(struct worker *w, bool wait)
{
	int n = rxvec_recv(&w->rx, mnl_socket_get_fd(w->nfq.nl), wait);

	if (n < 0) {
		if (n != -EAGAIN && n != -EWOULDBLOCK && n != -EINTR)
			log_err("queue %u: receive: %s", w->queue, strerror(-n));
		return n;
	}
	/* one reading for the receive's packets: they arrived together */
	w->now_ms = worker_mono_ms();
	watchdog_busy(&w->wd, w->now_ms);
	for (unsigned int i = 0; i < (unsigned int)n; i++) {
		size_t len;
		bool cut;
		char *buf = rxvec_get(&w->rx, i, &len, &cut);

		worker_batch(w, buf, len, cut);
	}
	worker_verdict_flush(w);
	watchdog_idle(&w->wd);
	return n;
}

/* Everything queued now, without waiting (the stop's last look). */
static void worker_drain(struct worker *w)
{
	int n;

	while ((n = worker_receive(w, false)) == (int)w->rx.slots || n == -EINTR)
		;
}

/* Packets queued just before the helper was disabled may still be on
 * their way: give them a moment, then leave. */
static void worker_drain_cb(struct ev_loop *loop, ev_timer *t, int revents)
{
	struct worker *w = t->data;

	(void)revents;
	worker_drain(w);
	w->done = true;
	ev_break(loop, EVBREAK_ALL);
}

static void worker_stop_cb(struct ev_loop *loop, ev_async *a, int revents)
{
	struct worker *w = a->data;

	(void)revents;
	worker_drain(w);
	ev_timer_init(&w->drain, worker_drain_cb, 0.2, 0.);
	w->drain.data = w;
	ev_timer_start(loop, &w->drain);
}

/* Nothing to do: waking the loop is the point (worker_poke()). */
static void worker_wake_cb(struct ev_loop *loop, ev_async *a, int revents)
{
	(void)loop;
	(void)a;
	(void)revents;
}

uint64_t worker_quiescent(const struct worker *w)
{
	return atomic_load_explicit(&w->quiescent, memory_order_acquire);
}

/*
 * End the worker's blocking receive now: a no-op request with NLM_F_ACK
 * on its own socket, whose answer is a message like any other (Linux 6.1
 * netlink_rcv_skb() acks a control-type message without calling
 * nfnetlink; the worker skips error messages with error 0).  Sending on
 * the socket another thread reads is safe: sendmsg() and recvmsg() on one
 * socket do not share state in user space.
 */
static void worker_wake_send(struct worker *w)
{
	struct nlmsghdr nlh = { .nlmsg_len = NLMSG_HDRLEN, .nlmsg_type = NLMSG_NOOP,
				.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK };

	if (mnl_socket_sendto(w->nfq.nl, &nlh, nlh.nlmsg_len) < 0)
		log_warn("queue %u: cannot wake the worker: %s", w->queue, strerror(errno));
}

static void worker_events_send(struct worker *w, ev_async *a)
{
	atomic_store_explicit(&w->events, true, memory_order_release);
	ev_async_send(w->loop, a);
	worker_wake_send(w);
}

void worker_poke(struct worker *w)
{
	if (w->loop)
		worker_events_send(w, &w->wake);
}

/* The receive waits at most until the loop's next timer could be due
 * (only the detach poll and the stop's drain are timers): no timeout
 * while neither runs. */
static void worker_rcvtimeo_set(struct worker *w)
{
	int ms = ev_is_active(&w->detach_poll) || ev_is_active(&w->drain) ? (int)DETACH_POLL_MS : 0;
	struct timeval tv = { .tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000 };

	if (ms == w->rcvtimeo_ms)
		return;
	if (setsockopt(mnl_socket_get_fd(w->nfq.nl), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0) {
		log_err("queue %u: receive timeout: %s", w->queue, strerror(errno));
		return;
	}
	w->rcvtimeo_ms = ms;
}

/*
 * The worker waits in recvmmsg() on the queue socket itself, not in the
 * event loop: per wake-up that is one system call instead of epoll_wait()
 * plus a receive, and no clock reading by the loop (two more system calls
 * per packet where the clock source has no vDSO; measured by tests/bench,
 * where a packet then costs the floor's two calls: receive and verdict).
 * The loop runs, without waiting, for what it still does: a stop or wake
 * (worker_events_send() also ends the receive), and the timers, for which
 * the receive times out (worker_rcvtimeo_set()).  Before each receive the
 * worker holds nothing of the runtime: a quiescent state for the reload's
 * grace period.
 */
static void *worker_main(void *arg)
{
	struct worker *w = arg;

	while (!w->done) {
		int n;

		atomic_fetch_add_explicit(&w->quiescent, 1, memory_order_release);
		n = worker_receive(w, true);
		if (n <= 0 || atomic_exchange_explicit(&w->events, false, memory_order_acq_rel) ||
		    (w->rcvtimeo_ms && w->now_ms - w->loop_ms >= (uint64_t)w->rcvtimeo_ms)) {
			w->loop_ms = worker_mono_ms();
			ev_run(w->loop, EVRUN_NOWAIT);
		}
		/* a packet may have started the detach poll */
		worker_rcvtimeo_set(w);
	}
	return NULL;
}

int worker_start(struct worker *w)
{
	sigset_t all, old;
	int rc;

	w->loop = ev_loop_new(EVFLAG_AUTO | EVFLAG_NOSIGMASK);
	if (!w->loop)
		return -ENOMEM;
	ev_timer_init(&w->detach_poll, worker_detach_poll_cb, DETACH_POLL_MS / 1000.,
		      DETACH_POLL_MS / 1000.);
	w->detach_poll.data = w;
	ev_async_init(&w->stop, worker_stop_cb);
	w->stop.data = w;
	ev_async_start(w->loop, &w->stop);
	ev_async_init(&w->wake, worker_wake_cb);
	ev_async_start(w->loop, &w->wake);
	/* signals belong to the main loop */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&w->thread, NULL, worker_main, w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return -rc;
}

void worker_stop(struct worker *w)
{
	uint64_t for_ms;
	int rc;

	if (!w->loop || w->abandoned)
		return;
	worker_events_send(w, &w->stop);
	rc = watchdog_join(w->thread, WATCHDOG_JOIN_MS);
	if (rc) {
		watchdog_stuck(&w->wd, watchdog_now_ms(), 0, &for_ms);
		log_err("queue %u: worker did not stop within %u ms (%s; busy with one "
			"receive's packets for %llu ms: a plugin that does not return?): "
			"left running, its queue and memory are not freed",
			w->queue, WATCHDOG_JOIN_MS, strerror(-rc), (unsigned long long)for_ms);
		/* the thread still uses its loop, sockets and buffers: leak
		 * them all on purpose (worker_free() and the owner skip an
		 * abandoned worker); detached, the thread's own resources go
		 * if it ever returns */
		pthread_detach(w->thread);
		w->abandoned = true;
		return;
	}
	ev_loop_destroy(w->loop);
	w->loop = NULL;
}

void worker_free(struct worker *w)
{
	if (w->abandoned)
		return;
	keep_free(&w->keep);
	portids_del(w->nfq.portid);
	portids_del(w->ctnl.portid);
	nlreq_close(&w->nfq);
	nlreq_close(&w->ctnl);
	rxvec_free(&w->rx);
	free(w->xlist);
	w->xlist = NULL;
	vbatch_free(&w->vb);
}
