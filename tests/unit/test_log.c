/* SPDX-License-Identifier: MIT */
/*
 * The rate limiter of server/base/log.c, on a clock the test moves: a burst
 * of LOG_RL_BURST lines goes out, the rest is suppressed (and said so by
 * the return value), and once tokens come back the first line is
 * preceded by a summary of how many were suppressed.  Two sites do not
 * share a bucket.  A line on stderr starts with the program's name, the
 * daemon's unless the program set its own (the replay tool).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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

/* What one log_msg() writes to stderr. */
static void stderr_line(int level, const char *msg, char *out, size_t len)
{
	FILE *tmp = tmpfile();
	int saved = dup(2);

	out[0] = '\0';
	if (!tmp || saved < 0)
		return;
	fflush(stderr);
	dup2(fileno(tmp), 2);
	log_msg(level, "%s", msg);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	if (!fgets(out, (int)len, tmp))
		out[0] = '\0';
	fclose(tmp);
}

static void test_program_name(void)
{
	char line[160];

	stderr_line(LOG_L_ERR, "hello", line, sizeof(line));
	CHECK("log/line-names-cthelperd", strcmp(line, "cthelperd[error]: hello\n") == 0 &&
	      strcmp(log_program(), "cthelperd") == 0, "wrote '%s'", line);
	log_program_set("cthelper-replay");
	stderr_line(LOG_L_ERR, "hello", line, sizeof(line));
	CHECK("log/line-names-the-program", strcmp(line, "cthelper-replay[error]: hello\n") == 0 &&
	      strcmp(log_program(), "cthelper-replay") == 0, "wrote '%s'", line);
	log_program_set("cthelperd");
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
	test_program_name();
	return check_exit();
}
