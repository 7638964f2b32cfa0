/* SPDX-License-Identifier: MIT */
/*
 * A stats answer: the workers' counter blocks summed once into a
 * snapshot, the kernel's own per-queue numbers beside them, and the three
 * renderings (text, JSON, Prometheus) of that snapshot.
 */
#ifndef CTH_STATS_REPORT_H
#define CTH_STATS_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/strbuf.h"
#include "runtime/stats.h"

/* A queue as /proc/net/netfilter/nfnetlink_queue shows it. */
struct stats_kqueue {
	uint32_t queue, portid, waiting, copy_mode, copy_range;
	uint32_t dropped, user_dropped, id_sequence;
};

/* One line of the /proc file: 0, or -EINVAL when malformed. */
int stats_report_kqueue_parse(const char *line, struct stats_kqueue *out);
/* Every well-formed line of f, at most max: how many. */
size_t stats_report_kqueue_read(FILE *f, struct stats_kqueue *out, size_t max);

/* What a stats answer shows: summed and read once, then rendered. */
struct stats_snap {
	size_t n_helpers;
	const char *helper[CFG_MAX_HELPERS];
	uint16_t helper_queue[CFG_MAX_HELPERS];
	unsigned int slot[CFG_MAX_HELPERS];  /* of helper i in the blocks */
	uint64_t h[CFG_MAX_HELPERS][STATS_H_N];
	/* helper i's plugin (its name, may be NULL without counters) and
	 * the counters it declares (SDK 3), summed like h */
	const char *plugin[CFG_MAX_HELPERS];
	unsigned int n_pc[CFG_MAX_HELPERS];
	const struct cth_counter *pc_decl[CFG_MAX_HELPERS];
	uint64_t pc[CFG_MAX_HELPERS][CTH_COUNTER_MAX];
	size_t n_queues;
	uint16_t queue[CFG_MAX_HELPERS];
	uint64_t q[CFG_MAX_HELPERS][STATS_Q_N];
	bool has_kq[CFG_MAX_HELPERS];
	struct stats_kqueue kq[CFG_MAX_HELPERS];
};

/* Add block b's helper counters (slot[i] for helper i) to s->h and put
 * its queue counters at queue index qi. */
void stats_report_snap_add(struct stats_snap *s, const struct stats_block *b, size_t qi);
/* Only b's helper counters (a block without queues: the main thread's). */
void stats_report_snap_add_helpers(struct stats_snap *s, const struct stats_block *b);
/* Match the kernel's queues (from /proc) to s->queue. */
void stats_report_snap_kernel(struct stats_snap *s, const struct stats_kqueue *kq, size_t n);

enum stats_format { STATS_TEXT, STATS_JSON, STATS_PROMETHEUS };
void stats_report_render(struct strbuf *b, const struct stats_snap *s, enum stats_format f);

#endif
