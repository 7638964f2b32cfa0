/* SPDX-License-Identifier: MIT */
/*
 * A stats answer (stats_report.h): the kernel's per-queue numbers, the
 * snapshot, and its three renderings; what each counter means is in
 * runtime/stats.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "stats_report.h"

/* The kernel's numbers: names below cthelperd_queue_, and their type. */
enum { STATS_K_QUEUED, STATS_K_DROPPED, STATS_K_USER_DROPPED, STATS_K_WAITING, STATS_K_N };
static const struct {
	struct stats_info info;
	bool gauge;
} stats_report_kernel_info[STATS_K_N] = {
	[STATS_K_QUEUED] = { { "queued",
		"Packets the kernel queued since the queue was bound (id_sequence, 32 bits)." }, false },
	[STATS_K_DROPPED] = { { "dropped",
		"Packets the kernel dropped because the queue was full (queue_dropped)." }, false },
	[STATS_K_USER_DROPPED] = { { "user_dropped",
		"Packets the kernel could not deliver to the daemon's socket (user_dropped)." }, false },
	[STATS_K_WAITING] = { { "waiting",
		"Packets waiting in the queue for a verdict now (queue_total)." }, true },
};

static int stats_report_field(const char **s, uint32_t *out);
static uint32_t stats_report_kernel_value(const struct stats_kqueue *k, int i);
static void stats_report_text(struct strbuf *b, const struct stats_snap *s);
static void stats_report_text_head(struct strbuf *b, const char *what, size_t n,
				   const char *const *names, const uint16_t *nums);
static void stats_report_text_plugin(struct strbuf *b, const struct stats_snap *s);
static bool stats_report_pc_first(const struct stats_snap *s, size_t i, size_t k);
static int stats_report_pc_find(const struct stats_snap *s, size_t j, const char *name);
static void stats_report_json(struct strbuf *b, const struct stats_snap *s);
static void stats_report_prometheus(struct strbuf *b, const struct stats_snap *s);
static void stats_report_prom_plugin(struct strbuf *b, const struct stats_snap *s);
static void stats_report_prom_family(struct strbuf *b, const char *name,
				     const char *help, bool gauge);
static void stats_report_prom_label(struct strbuf *b, const char *v);

/* "%5u %6u %5u %1u %5u %5u %5u %8u %2d" (Linux nfqnl seq_show): queue,
 * portid, queue_total, copy_mode, copy_range, queue_dropped,
 * user_dropped, id_sequence, 1.  Exactly nine fields. */
int stats_report_kqueue_parse(const char *line, struct stats_kqueue *out)
{
	uint32_t f[9];
	const char *s = line;

	for (size_t i = 0; i < 9; i++)
		if (stats_report_field(&s, &f[i]) < 0)
			return -EINVAL;
	if (s[strspn(s, " \t\n")] != '\0')
		return -EINVAL;
	*out = (struct stats_kqueue){
		.queue = f[0], .portid = f[1], .waiting = f[2], .copy_mode = f[3],
		.copy_range = f[4], .dropped = f[5], .user_dropped = f[6],
		.id_sequence = f[7],
	};
	return 0;
}

size_t stats_report_kqueue_read(FILE *f, struct stats_kqueue *out, size_t max)
{
	char line[256];
	size_t n = 0;

	while (n < max && fgets(line, sizeof(line), f)) {
		bool whole = strchr(line, '\n') || feof(f);

		if (!whole) {          /* too long to be ours: skip the rest */
			int c;

			while ((c = fgetc(f)) != EOF && c != '\n')
				;
			continue;
		}
		if (stats_report_kqueue_parse(line, &out[n]) == 0)
			n++;
	}
	return n;
}

void stats_report_snap_add(struct stats_snap *s, const struct stats_block *b, size_t qi)
{
	stats_report_snap_add_helpers(s, b);
	for (size_t k = 0; k < STATS_Q_N; k++)
		s->q[qi][k] = atomic_load_explicit(&b->q[k], memory_order_relaxed);
}

void stats_report_snap_add_helpers(struct stats_snap *s, const struct stats_block *b)
{
	for (size_t i = 0; i < s->n_helpers; i++) {
		for (size_t k = 0; k < STATS_H_N; k++)
			s->h[i][k] += atomic_load_explicit(&b->h[s->slot[i]][k],
							   memory_order_relaxed);
		for (size_t k = 0; k < s->n_pc[i] && k < CTH_COUNTER_MAX; k++)
			s->pc[i][k] += atomic_load_explicit(&b->pc[s->slot[i]][k],
							    memory_order_relaxed);
	}
}

void stats_report_snap_kernel(struct stats_snap *s, const struct stats_kqueue *kq, size_t n)
{
	for (size_t i = 0; i < s->n_queues; i++)
		for (size_t j = 0; j < n; j++)
			if (kq[j].queue == s->queue[i]) {
				s->kq[i] = kq[j];
				s->has_kq[i] = true;
			}
}

void stats_report_render(struct strbuf *b, const struct stats_snap *s, enum stats_format f)
{
	switch (f) {
	case STATS_TEXT: stats_report_text(b, s); break;
	case STATS_JSON: stats_report_json(b, s); break;
	case STATS_PROMETHEUS: stats_report_prometheus(b, s); break;
	}
}

/* An unsigned 32-bit decimal field and the blanks after it. */
static int stats_report_field(const char **s, uint32_t *out)
{
	unsigned long long v = 0;
	const char *p = *s + strspn(*s, " \t");

	if (*p < '0' || *p > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		v = v * 10 + (unsigned)(*p - '0');
		if (v > UINT32_MAX)
			return -EINVAL;
	}
	if (*p && *p != ' ' && *p != '\t' && *p != '\n')
		return -EINVAL;
	*out = (uint32_t)v;
	*s = p;
	return 0;
}

/* ---- text: one column per helper / queue, one row per counter ---- */

static void stats_report_text(struct strbuf *b, const struct stats_snap *s)
{
	stats_report_text_head(b, "helper", s->n_helpers, s->helper, NULL);
	for (size_t k = 0; k < STATS_H_N; k++) {
		strbuf_printf(b, "%-22s", stats_helper_info[k].name);
		for (size_t i = 0; i < s->n_helpers; i++)
			strbuf_printf(b, " %15llu", (unsigned long long)s->h[i][k]);
		strbuf_printf(b, "\n");
	}
	stats_report_text_plugin(b, s);
	strbuf_printf(b, "\n");
	stats_report_text_head(b, "queue", s->n_queues, NULL, s->queue);
	for (size_t k = 0; k < STATS_Q_N; k++) {
		strbuf_printf(b, "%-22s", stats_queue_info[k].name);
		for (size_t i = 0; i < s->n_queues; i++)
			strbuf_printf(b, " %15llu", (unsigned long long)s->q[i][k]);
		strbuf_printf(b, "\n");
	}
	for (int k = 0; k < STATS_K_N; k++) {
		strbuf_printf(b, "kernel_%-15s", stats_report_kernel_info[k].info.name);
		for (size_t i = 0; i < s->n_queues; i++) {
			if (s->has_kq[i])
				strbuf_printf(b, " %15u", stats_report_kernel_value(&s->kq[i], k));
			else
				strbuf_printf(b, " %15s", "-");
		}
		strbuf_printf(b, "\n");
	}
}

/* The plugins' own counters, one row per name ("plugin_NAME"), in the
 * helpers' columns; "-" where the helper's plugin has no such counter. */
static void stats_report_text_plugin(struct strbuf *b, const struct stats_snap *s)
{
	char row[64];

	for (size_t i = 0; i < s->n_helpers; i++)
		for (size_t k = 0; k < s->n_pc[i]; k++) {
			if (!stats_report_pc_first(s, i, k))
				continue;
			snprintf(row, sizeof(row), "plugin_%s", s->pc_decl[i][k].name);
			strbuf_printf(b, "%-22s", row);
			for (size_t j = 0; j < s->n_helpers; j++) {
				int c = stats_report_pc_find(s, j, s->pc_decl[i][k].name);

				if (c < 0)
					strbuf_printf(b, " %15s", "-");
				else
					strbuf_printf(b, " %15llu", (unsigned long long)s->pc[j][c]);
			}
			strbuf_printf(b, "\n");
		}
}

/* Is counter k of helper i the first of its name (one row, one metric
 * family per name, whichever helpers' plugins declare it)? */
static bool stats_report_pc_first(const struct stats_snap *s, size_t i, size_t k)
{
	for (size_t j = 0; j < i; j++)
		if (stats_report_pc_find(s, j, s->pc_decl[i][k].name) >= 0)
			return false;
	for (size_t m = 0; m < k; m++)
		if (strcmp(s->pc_decl[i][m].name, s->pc_decl[i][k].name) == 0)
			return false;
	return true;
}

/* Helper j's counter called name: its index, or -1. */
static int stats_report_pc_find(const struct stats_snap *s, size_t j, const char *name)
{
	for (size_t k = 0; k < s->n_pc[j]; k++)
		if (strcmp(s->pc_decl[j][k].name, name) == 0)
			return (int)k;
	return -1;
}

static void stats_report_text_head(struct strbuf *b, const char *what, size_t n,
				   const char *const *names, const uint16_t *nums)
{
	strbuf_printf(b, "%-22s", what);
	for (size_t i = 0; i < n; i++) {
		if (names)
			strbuf_printf(b, " %15s", names[i]);
		else
			strbuf_printf(b, " %15u", nums[i]);
	}
	strbuf_printf(b, "\n");
}

/* ---- JSON ---- */

static void stats_report_json(struct strbuf *b, const struct stats_snap *s)
{
	strbuf_printf(b, "{\"helpers\":[");
	for (size_t i = 0; i < s->n_helpers; i++) {
		strbuf_printf(b, "%s{\"name\":", i ? "," : "");
		strbuf_json_str(b, s->helper[i]);
		strbuf_printf(b, ",\"queue\":%u", s->helper_queue[i]);
		for (size_t k = 0; k < STATS_H_N; k++)
			strbuf_printf(b, ",\"%s\":%llu", stats_helper_info[k].name,
				      (unsigned long long)s->h[i][k]);
		strbuf_printf(b, ",\"plugin_counters\":{");
		for (size_t k = 0; k < s->n_pc[i]; k++) {
			strbuf_printf(b, "%s", k ? "," : "");
			strbuf_json_str(b, s->pc_decl[i][k].name);
			strbuf_printf(b, ":%llu", (unsigned long long)s->pc[i][k]);
		}
		strbuf_printf(b, "}}");
	}
	strbuf_printf(b, "],\"queues\":[");
	for (size_t i = 0; i < s->n_queues; i++) {
		strbuf_printf(b, "%s{\"queue\":%u", i ? "," : "", s->queue[i]);
		for (size_t k = 0; k < STATS_Q_N; k++)
			strbuf_printf(b, ",\"%s\":%llu", stats_queue_info[k].name,
				      (unsigned long long)s->q[i][k]);
		strbuf_printf(b, ",\"kernel\":");
		if (!s->has_kq[i]) {
			strbuf_printf(b, "null}");
			continue;
		}
		strbuf_printf(b, "{\"portid\":%u", s->kq[i].portid);
		for (int k = 0; k < STATS_K_N; k++)
			strbuf_printf(b, ",\"%s\":%u", stats_report_kernel_info[k].info.name,
				      stats_report_kernel_value(&s->kq[i], k));
		strbuf_printf(b, "}}");
	}
	strbuf_printf(b, "]}\n");
}

/* ---- Prometheus text exposition format 0.0.4 ---- */

static void stats_report_prometheus(struct strbuf *b, const struct stats_snap *s)
{
	char name[96];

	for (size_t k = 0; k < STATS_H_N; k++) {
		snprintf(name, sizeof(name), "cthelperd_%s_total", stats_helper_info[k].name);
		stats_report_prom_family(b, name, stats_helper_info[k].help, false);
		for (size_t i = 0; i < s->n_helpers; i++) {
			strbuf_printf(b, "%s{helper=\"", name);
			stats_report_prom_label(b, s->helper[i]);
			strbuf_printf(b, "\"} %llu\n", (unsigned long long)s->h[i][k]);
		}
	}
	stats_report_prom_plugin(b, s);
	for (size_t k = 0; k < STATS_Q_N; k++) {
		snprintf(name, sizeof(name), "cthelperd_queue_%s_total", stats_queue_info[k].name);
		stats_report_prom_family(b, name, stats_queue_info[k].help, false);
		for (size_t i = 0; i < s->n_queues; i++)
			strbuf_printf(b, "%s{queue=\"%u\"} %llu\n", name, s->queue[i],
				      (unsigned long long)s->q[i][k]);
	}
	for (int k = 0; k < STATS_K_N; k++) {
		bool gauge = stats_report_kernel_info[k].gauge;

		snprintf(name, sizeof(name), "cthelperd_queue_%s%s",
			 stats_report_kernel_info[k].info.name, gauge ? "" : "_total");
		stats_report_prom_family(b, name, stats_report_kernel_info[k].info.help, gauge);
		for (size_t i = 0; i < s->n_queues; i++)
			if (s->has_kq[i])
				strbuf_printf(b, "%s{queue=\"%u\"} %u\n", name, s->queue[i],
					      stats_report_kernel_value(&s->kq[i], k));
	}
}

/*
 * cthelperd_plugin_NAME_total{helper,plugin}: one family per counter
 * name, its samples together (the format wants a family's lines in one
 * block), HELP from the first plugin that declares the name.
 */
static void stats_report_prom_plugin(struct strbuf *b, const struct stats_snap *s)
{
	char name[96];

	for (size_t i = 0; i < s->n_helpers; i++)
		for (size_t k = 0; k < s->n_pc[i]; k++) {
			const struct cth_counter *pc = &s->pc_decl[i][k];

			if (!stats_report_pc_first(s, i, k))
				continue;
			snprintf(name, sizeof(name), "cthelperd_plugin_%s_total", pc->name);
			stats_report_prom_family(b, name, pc->help && *pc->help ? pc->help :
						 "A counter of the helper's plugin.", false);
			for (size_t j = i; j < s->n_helpers; j++) {
				int c = stats_report_pc_find(s, j, pc->name);

				if (c < 0)
					continue;
				strbuf_printf(b, "%s{helper=\"", name);
				stats_report_prom_label(b, s->helper[j]);
				strbuf_printf(b, "\",plugin=\"");
				stats_report_prom_label(b, s->plugin[j] ? s->plugin[j] : "");
				strbuf_printf(b, "\"} %llu\n", (unsigned long long)s->pc[j][c]);
			}
		}
}

/* HELP text: backslash and newline escaped. */
static void stats_report_prom_family(struct strbuf *b, const char *name,
				     const char *help, bool gauge)
{
	strbuf_printf(b, "# HELP %s ", name);
	for (; *help; help++) {
		if (*help == '\\')
			strbuf_printf(b, "\\\\");
		else if (*help == '\n')
			strbuf_printf(b, "\\n");
		else
			strbuf_printf(b, "%c", *help);
	}
	strbuf_printf(b, "\n# TYPE %s %s\n", name, gauge ? "gauge" : "counter");
}

/* A label value: backslash, double quote and newline escaped. */
static void stats_report_prom_label(struct strbuf *b, const char *v)
{
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			strbuf_printf(b, "\\%c", *v);
		else if (*v == '\n')
			strbuf_printf(b, "\\n");
		else
			strbuf_printf(b, "%c", *v);
	}
}

/* ---- the kernel's numbers, in every format ---- */

static uint32_t stats_report_kernel_value(const struct stats_kqueue *k, int i)
{
	switch (i) {
	case STATS_K_QUEUED: return k->id_sequence;
	case STATS_K_DROPPED: return k->dropped;
	case STATS_K_USER_DROPPED: return k->user_dropped;
	default: return k->waiting;
	}
}
