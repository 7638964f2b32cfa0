/* SPDX-License-Identifier: MIT */
/*
 * The rate limiter of server/base/log.c, on a clock the test moves: a burst
 * of LOG_RL_BURST lines goes out, the rest is suppressed (and said so by
 * the return value), and once tokens come back the first line is
 * preceded by a summary of how many were suppressed.  Two sites do not
 * share a bucket.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "base/log.h"

static uint64_t now;
static unsigned int n_lines;
static char lines[64][160];

static uint64_t clock_fake(void)
{
	return now;
}

static void capture(void *arg, int level, const char *line)
{
	(void)arg;
	(void)level;
	if (n_lines < 64)
		snprintf(lines[n_lines], sizeof(lines[0]), "%s", line);
	n_lines++;
}

static int flood(struct log_rl *rl, unsigned int n)
{
	int suppressed = 0;

	for (unsigned int i = 0; i < n; i++)
		suppressed += log_rl_msg(rl, LOG_L_WARNING, "line %u", i);
	return suppressed;
}

int main(void)
{
	struct log_rl a = LOG_RL_INIT, b = LOG_RL_INIT;
	int sup;

	log_init(LOG_L_ERR, 0);         /* only the capture sees warnings */
	log_rl_clock_set(clock_fake);
	log_capture_set(capture, NULL);
	now = 1000;

	sup = flood(&a, LOG_RL_BURST + 7);
	CHECK("log_rl/burst-then-suppressed", n_lines == LOG_RL_BURST && sup == 7,
	      "%u lines, %d suppressed", n_lines, sup);

	sup = flood(&b, 1);
	CHECK("log_rl/sites-apart", n_lines == LOG_RL_BURST + 1 && sup == 0,
	      "%u lines", n_lines);

	/* less than one token later: still quiet */
	now += 1000 / LOG_RL_PER_SEC - 1;
	sup = flood(&a, 1);
	CHECK("log_rl/no-token-yet", sup == 1 && n_lines == LOG_RL_BURST + 1,
	      "%d %u", sup, n_lines);

	/* one token: the summary, then the line */
	now += 1;
	n_lines = 0;
	sup = flood(&a, 2);
	CHECK("log_rl/summary-on-resume", n_lines == 2 && sup == 1 &&
	      strcmp(lines[0], "(8 lines like the next one suppressed)") == 0 &&
	      strcmp(lines[1], "line 0") == 0, "%u lines: '%s' '%s', %d",
	      n_lines, lines[0], lines[1], sup);

	/* a long pause refills the burst, no more */
	now += 3600 * 1000;
	n_lines = 0;
	sup = flood(&a, LOG_RL_BURST + 1);
	CHECK("log_rl/refill-capped", n_lines == LOG_RL_BURST + 1 && sup == 1 &&
	      strstr(lines[0], "1 lines like") != NULL, "%u lines, %d", n_lines, sup);

	/* a level not logged costs no token */
	n_lines = 0;
	now += 3600 * 1000;
	for (int i = 0; i < 50; i++)
		log_rl_msg(&b, LOG_L_INFO, "quiet");
	sup = flood(&b, LOG_RL_BURST);
	CHECK("log_rl/unlogged-level-free", sup == 0 && n_lines == LOG_RL_BURST,
	      "%d %u", sup, n_lines);
	log_capture_set(NULL, NULL);
	return check_exit();
}
