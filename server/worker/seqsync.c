// SPDX-License-Identifier: MIT
/*
 * Make a connection's TCP sequence adjustment visible to conntrack event
 * listeners, so that conntrackd's state sync carries it to the backup
 * firewall (issue 18, docs/ha.md).
 *
 * When a verdict changes a payload's length, the kernel records the
 * offset in the connection's seqadj extension (6.1 nfqnl_recv_verdict()
 * -> nfnl_ct_hook->seq_adjust -> nf_ct_seqadj_set()).  That path raises
 * no conntrack event: in 6.1 only synproxy caches IPCT_SEQADJ, and
 * ctnetlink_conntrack_event() dumps CTA_SEQ_ADJ_* only for that bit.  So
 * conntrackd, whose cache is fed by events, never learns the offset, and
 * the entry it commits on the backup has none: after failover the peer's
 * sequence numbers are off by the rewrite's length change and the stream
 * is corrupt (the in-kernel nf_nat_ftp has the same gap).
 *
 * An IPCTNL_MSG_CT_NEW for an existing entry without NLM_F_EXCL is an
 * update; with no attribute to change, ctnetlink_change_conntrack() does
 * nothing, and ctnetlink_new_conntrack() then reports an event whose mask
 * includes IPCT_SEQADJ: the event carries the current CTA_SEQ_ADJ_ORIG /
 * _REPLY, conntrackd stores them with the entry and sends them
 * (NTA_NAT_SEQ_ADJ), and ctnetlink_create_conntrack() on the backup
 * applies them on commit.  The request is sent after the verdict that
 * changed the length (the verdict batch is flushed first), so the event
 * carries the offset this packet made.
 */
#include <netinet/in.h>

#include "seqsync.h"

bool seqsync_needed(const struct cth_packet *p, size_t new_len)
{
	return new_len && new_len != p->len &&
	       p->tuple[CTH_DIR_ORIGINAL].proto == IPPROTO_TCP &&
	       (p->ct_status & CTH_CT_CONFIRMED);
}
