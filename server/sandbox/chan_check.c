/* SPDX-License-Identifier: MIT */
/*
 * What a sandbox sends back, checked (chan.h): its turn copied out of
 * shared memory once, then each recorded host call and each call it
 * waits on done through host/call.c's host functions, which check it as
 * they check an in-process plugin's call, on the worker's own pkt_call
 * (its packet, its backends); a cth_keep() answer, whose bytes stay in
 * the sandbox, is checked and shown to the call's trace only.  No
 * process here: the fuzz target and the unit tests drive it directly.
 */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>

#include "chan_check.h"
#include "host/call.h"
#include "host/keep.h"

static int chan_check_take(struct chan_check *k, const struct chan_slot *sl,
			   struct pkt_call *c, const char **why);
static int chan_check_recs(struct chan_check *k, struct pkt_call *c, const char **why);
static bool chan_check_keep(const struct pkt_call *c, uint64_t off, int32_t rc);

/* Shared memory is read once, into the worker's copy, and only the
 * copy is checked and used: the sandbox may change it meanwhile. */
static int chan_check_take(struct chan_check *k, const struct chan_slot *sl,
			   struct pkt_call *c, const char **why)
{
	struct chan_res *r = &k->res;

	memcpy(r, &sl->res, offsetof(struct chan_res, rec));
	if (r->rec_used > CHAN_REC_BYTES) {
		*why = "records past their area";
		return -EPROTO;
	}
	memcpy(r->rec, sl->res.rec, r->rec_used);
	/* the view the plugin's offsets are in: this packet's payload after
	 * the bytes it kept (keep.h), which never exceed KEEP_BYTES_MAX */
	if (r->kept > KEEP_BYTES_MAX ||
	    (r->kept && c->pkt.tuple[CTH_DIR_ORIGINAL].proto != IPPROTO_TCP)) {
		*why = "kept bytes it cannot have";
		return -EPROTO;
	}
	c->pkt.payload_len = c->pkt.len - c->pkt.payload_offset + r->kept;
	c->pkt.kept = r->kept;
	return chan_check_recs(k, c, why);
}

/* The recorded host calls, through the host's own functions. */
static int chan_check_recs(struct chan_check *k, struct pkt_call *c, const char **why)
{
	const struct cth_host *h = c->pub.host;
	const uint8_t *p = k->res.rec, *end = p + k->res.rec_used;

	while (p < end) {
		struct chan_rec rec;
		uint32_t v[3];
		int32_t level, rc;
		uint64_t off;
		char line[CHAN_LOG_MAX];
		size_t n;

		if ((size_t)(end - p) < sizeof(rec))
			goto bad;
		memcpy(&rec, p, sizeof(rec));
		p += sizeof(rec);
		if (rec.len > (size_t)(end - p))
			goto bad;
		switch (rec.type) {
		case CHAN_REC_MANGLE:
			if (rec.len < sizeof(v))
				goto bad;
			memcpy(v, p, sizeof(v));
			if (v[2] != rec.len - sizeof(v))
				goto bad;
			h->mangle(&c->pub, v[0], v[1], v[2] ? p + sizeof(v) : NULL, v[2]);
			break;
		case CHAN_REC_TIMEOUT:
		case CHAN_REC_MARK:
			if (rec.len != sizeof(v[0]))
				goto bad;
			memcpy(v, p, sizeof(v[0]));
			if (rec.type == CHAN_REC_TIMEOUT)
				h->set_timeout(&c->pub, v[0]);
			else
				h->set_mark(&c->pub, v[0]);
			break;
		case CHAN_REC_DETACH:
			if (rec.len != 0)
				goto bad;
			h->detach(&c->pub);
			break;
		case CHAN_REC_COUNT:
			if (rec.len != 2 * sizeof(v[0]))
				goto bad;
			memcpy(v, p, 2 * sizeof(v[0]));
			h->count(&c->pub, v[0], v[1]);
			break;
		case CHAN_REC_LOG:
			if (rec.len < sizeof(level) || rec.len - sizeof(level) >= CHAN_LOG_MAX)
				goto bad;
			memcpy(&level, p, sizeof(level));
			n = rec.len - sizeof(level);
			memcpy(line, p + sizeof(level), n);
			line[n] = '\0';
			/* a line is the plugin's text: no escape sequences or
			 * forged lines in the operator's log */
			for (size_t i = 0; i < n; i++)
				if ((unsigned char)line[i] < 0x20 || line[i] == 0x7f)
					line[i] = '?';
			if (level < CTH_LOG_ERR)
				level = CTH_LOG_ERR;
			if (level > CTH_LOG_DEBUG)
				level = CTH_LOG_DEBUG;
			pkt_call_log(c, level, line);
			break;
		case CHAN_REC_KEEP:
			if (rec.len != sizeof(off) + sizeof(rc))
				goto bad;
			memcpy(&off, p, sizeof(off));
			memcpy(&rc, p + sizeof(off), sizeof(rc));
			if (!chan_check_keep(c, off, rc))
				goto bad;
			/* shown, nothing done: the kept bytes are the sandbox's */
			if (c->trace)
				c->trace(c, &(struct pkt_event){ .type = PKT_EV_KEEP, .rc = rc,
								 .off = (size_t)off });
			break;
		default:
			goto bad;
		}
		p += rec.len;
	}
	return 0;
bad:
	*why = "a malformed record";
	return -EPROTO;
}

/* An answer call.c's cth_keep() can give on this packet: an error it
 * has, or bytes kept of a TCP payload that fit the table. */
static bool chan_check_keep(const struct pkt_call *c, uint64_t off, int32_t rc)
{
	switch (rc) {
	case 0:
		return c->pkt.tuple[CTH_DIR_ORIGINAL].proto == IPPROTO_TCP &&
		       off <= c->pkt.payload_len && c->pkt.payload_len - off <= KEEP_BYTES_MAX;
	case -EOPNOTSUPP:
	case -EMSGSIZE:
	case -EINVAL:
	case -ENOSPC:
	case -ENOMEM:
		return true;
	default:
		return false;
	}
}

/* The words of a batch come in the slots' order: while the worker waits
 * on one slot, only that slot's CALL or DONE is in turn, with no bit
 * set beyond it (chan.h chan_word()). */
int chan_check_word(uint32_t word, unsigned int slot, const char **why)
{
	uint32_t ring = chan_word_ring(word);

	if ((ring != CHAN_RING_CALL && ring != CHAN_RING_DONE) || word >> 16) {
		*why = "a word out of turn";
		return -EPROTO;
	}
	if (slot >= CHAN_SLOTS || chan_word_arg(word) != slot) {
		*why = "a slot out of turn";
		return -EPROTO;
	}
	return (int)ring;
}

/* A call the plugin waits for: the records before it first, in order. */
int chan_check_call(struct chan_check *k, struct chan_slot *sl, struct pkt_call *c,
		    const char **why)
{
	const struct cth_host *h = c->pub.host;
	struct chan_call *call = &k->res.call;
	struct cth_expect e;
	struct cth_link link;
	int rc;

	if ((rc = chan_check_take(k, sl, c, why)) < 0)
		return rc;
	if (call->has_exp)
		chan_expect_get(&call->exp, &e);
	switch (call->op) {
	case CHAN_OP_EXPECT:
		rc = h->expect(&c->pub, call->has_exp ? &e : NULL, call->how);
		break;
	case CHAN_OP_EXPECT_CTL:
		rc = h->expect_ctl(&c->pub, call->how, call->has_exp ? &e : NULL);
		break;
	case CHAN_OP_LINK:
		rc = h->link(&c->pub, &link, sizeof(link));
		sl->ans.link = link;
		break;
	case CHAN_OP_FLUSH:
		rc = 0;
		break;
	default:
		*why = "an unknown call";
		return -EPROTO;
	}
	sl->ans.rc = rc;
	return 0;
}

/* The result: the records left, then verdict and state (its size is the
 * daemon's copy of the descriptor's, whatever the sandbox says). */
int chan_check_done(struct chan_check *k, const struct chan_slot *sl, struct pkt_call *c,
		    const uint8_t *kpriv, size_t klen, struct stats_block *st,
		    const char **why)
{
	const struct chan_res *r = &k->res;
	size_t n = c->inst->pl->desc->priv_size;
	int rc = chan_check_take(k, sl, c, why);

	if (rc < 0)
		return rc;
	if (r->verdict != CTH_VERDICT_ACCEPT && r->verdict != CTH_VERDICT_DROP) {
		*why = "a verdict that is neither accept nor drop";
		return -EPROTO;
	}
	memset(c->priv, 0, sizeof(c->priv));
	memcpy(c->priv, r->priv, n);
	/* the sandbox's word that its in-flight state was used, or the
	 * state differs from the kernel's: either way the verdict writes it */
	c->priv_changed = r->priv_changed || pkt_call_priv_differs(c, kpriv, klen);
	if (r->state_reset) {
		c->state_reset = true;
		if (st)
			stats_add(&st->h[c->inst->slot][STATS_H_STATE_RESET], 1);
	}
	c->n_refused += r->n_refused < PKT_EXPECT_PER_CALL ? r->n_refused : PKT_EXPECT_PER_CALL;
	if (r->log_dropped && st)
		stats_add(&st->q[STATS_Q_LOG_SUPPRESSED], r->log_dropped);
	/* the sandbox's tables (inflight.h, keep.h) as the worker's count
	 * them; its word, so one each at most */
	if (r->overlay_evicted && st)
		stats_add(&st->q[STATS_Q_OVERLAY_EVICTED], 1);
	if (r->keep_evicted && st)
		stats_add(&st->q[STATS_Q_KEEP_EVICTED], 1);
	c->kept_next = r->kept_next != 0;
	return r->verdict;
}

