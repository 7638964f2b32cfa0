/* SPDX-License-Identifier: MIT */
/*
 * Queue workers: one thread per NFQUEUE receives the queued packets with
 * their conntrack, runs the helper's plugin, and sends each verdict with
 * the updated conntrack (private state, timeout, mark, helper detach) and
 * at most one expectation.
 *
 * The path of one packet, top-down:
 *   worker_main()                 the thread: receive, run the loop when asked
 *    worker_receive()             one recvmmsg(), several datagrams (rxvec.c)
 *     worker_help_datagram()      worker_help.c: each message of a datagram
 *      qmsg_read()                qmsg.c: packet id and packet view
 *      worker_help_payload()      a packet with payload:
 *       qmsg_conn_read()            its conntrack (NFQA_CT)
 *       runtime_find()              the helper named there, if ours
 *       pkt_call_run_newest()       host/call.c: the plugin, with the newest
 *                                   private state; its cth_expect() and
 *                                   cth_expect_ctl() land in worker_expect.c
 *       sandbox_post()              or, sandboxed: into its sandbox's batch
 *       worker_verdict_add()        worker_verdict.c: into the batch
 *       worker_expect_later()       what waited for the verdict
 *     worker_help_flush()          the sandbox's batch: rung once, each
 *                                  result taken in order (sandbox_take()),
 *                                  then as above from worker_verdict_add()
 *     worker_verdict_flush()       the batch, in one sendmsg()
 * The rest of this file is the worker's life: its sockets, its loop (stop,
 * wake-ups, the detach poll) and its end.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nfnetlink_queue.h>
#include <libnetfilter_queue/libnetfilter_queue.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "worker.h"
#include "base/log.h"
#include "kernel/portids.h"

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
#define WORKER_SO_RCVBUF (8 * 1024 * 1024)

static void *worker_main(void *arg);
static int worker_receive(struct worker *w, bool wait);
static void worker_detach_poll_update(struct worker *w);
static void worker_rcvtimeo_set(struct worker *w);
static uint64_t worker_mono_ms(void);
static void worker_detach_poll_cb(struct ev_loop *loop, ev_timer *t, int revents);
static void worker_stop_cb(struct ev_loop *loop, ev_async *a, int revents);
static void worker_drain(struct worker *w);
static void worker_drain_cb(struct ev_loop *loop, ev_timer *t, int revents);
static void worker_wake_cb(struct ev_loop *loop, ev_async *a, int revents);
static int worker_queue_bind(struct worker *w, uint32_t queue_len, bool fail_open);
static struct nlmsghdr *worker_params_put(struct worker *w, char *buf,
					  uint32_t queue_len, bool fail_open);
static void worker_sock_tune(struct worker *w);
static void worker_events_send(struct worker *w, ev_async *a);
static void worker_wake_send(struct worker *w);

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

		worker_help_datagram(&w->help, buf, len, cut, w->now_ms);
	}
	worker_help_flush(&w->help);
	worker_verdict_flush(&w->help.verdict);
	worker_detach_poll_update(w);
	watchdog_idle(&w->wd);
	return n;
}

/* The detach poll runs while connections wait to detach: one that a
 * packet made wait starts it, the last one settled stops it. */
static void worker_detach_poll_update(struct worker *w)
{
	bool waiting = w->help.detach.table.waiting;

	if (waiting && !ev_is_active(&w->detach_poll))
		ev_timer_start(w->loop, &w->detach_poll);
	else if (!waiting && ev_is_active(&w->detach_poll))
		ev_timer_stop(w->loop, &w->detach_poll);
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

	(void)loop;
	(void)revents;
	worker_detach_poll(&w->help.detach, worker_mono_ms());
	worker_detach_poll_update(w);
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

/* Nothing to do: waking the loop is the point (worker_poke()). */
static void worker_wake_cb(struct ev_loop *loop, ev_async *a, int revents)
{
	(void)loop;
	(void)a;
	(void)revents;
}

int worker_init(struct worker *w, uint16_t queue, uint32_t queue_len,
		bool fail_open, unsigned int inflight_entries,
		struct runtime *_Atomic *rtp)
{
	int rc;

	memset(w, 0, sizeof(*w));
	w->queue = queue;
	if (worker_help_init(&w->help, queue, inflight_entries, rtp, &w->stats, &w->nfq,
			     &w->ctnl) < 0 ||
	    rxvec_init(&w->rx, WORKER_RX_SLOTS, WORKER_RX_SLOT) < 0)
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

uint64_t worker_quiescent(const struct worker *w)
{
	return atomic_load_explicit(&w->quiescent, memory_order_acquire);
}

void worker_poke(struct worker *w)
{
	if (w->loop)
		worker_events_send(w, &w->wake);
}

static void worker_events_send(struct worker *w, ev_async *a)
{
	atomic_store_explicit(&w->events, true, memory_order_release);
	ev_async_send(w->loop, a);
	worker_wake_send(w);
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
	worker_help_free(&w->help);
	portids_del(w->nfq.portid);
	portids_del(w->ctnl.portid);
	nlreq_close(&w->nfq);
	nlreq_close(&w->ctnl);
	rxvec_free(&w->rx);
}
