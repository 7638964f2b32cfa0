/* SPDX-License-Identifier: MIT */
/* Logging to stderr (foreground) or syslog (daemon); safe from any thread. */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <syslog.h>
#include <time.h>

#include "log.h"

static const char *log_prog = "cthelperd";
static int log_cur_level = LOG_L_INFO;
static int log_to_syslog;
static _Thread_local log_capture_fn *log_cap_fn;
static _Thread_local void *log_cap_arg;

static const char *const log_names[] = {
	[LOG_L_ERR] = "error",   [LOG_L_WARNING] = "warning",
	[LOG_L_NOTICE] = "notice", [LOG_L_INFO] = "info",
	[LOG_L_DEBUG] = "debug",
};

static uint64_t (*log_rl_now)(void);

static int log_rl_take(struct log_rl *rl, uint64_t *was);
static uint64_t log_rl_clock(void);

void log_program_set(const char *name)
{
	log_prog = name;
}

const char *log_program(void)
{
	return log_prog;
}

void log_init(int level, int use_syslog)
{
	log_cur_level = level;
	log_to_syslog = use_syslog;
	if (use_syslog)
		openlog(log_prog, LOG_PID | LOG_NDELAY, LOG_DAEMON);
}

void log_level_set(int level)
{
	log_cur_level = level;
}

/* Returns the level for a name, or -1. */
int log_level_parse(const char *name)
{
	for (size_t i = 0; i < sizeof(log_names) / sizeof(log_names[0]); i++)
		if (log_names[i] && strcasecmp(name, log_names[i]) == 0)
			return (int)i;
	return -1;
}

int log_enabled(int level)
{
	return level <= log_cur_level;
}

void log_msg(int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(level, NULL, fmt, ap);
	va_end(ap);
}

void log_vmsg(int level, const char *tag, const char *fmt, va_list ap)
{
	char line[1024];
	int n = 0;

	if (!log_enabled(level) && !(log_cap_fn && level <= LOG_L_WARNING))
		return;
	if (tag)
		n = snprintf(line, sizeof(line), "%s: ", tag);
	vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	if (log_cap_fn && level <= LOG_L_WARNING)
		log_cap_fn(log_cap_arg, level, line);
	if (!log_enabled(level))
		return;
	if (log_to_syslog) {
		syslog(level, "%s", line);
		return;
	}
	/* one fprintf per line keeps lines from different workers whole */
	fprintf(stderr, "%s[%s]: %s\n", log_prog,
		level < (int)(sizeof(log_names) / sizeof(log_names[0])) &&
		log_names[level] ? log_names[level] : "?", line);
}

void log_capture_set(log_capture_fn *fn, void *arg)
{
	log_cap_fn = fn;
	log_cap_arg = arg;
}

int log_capturing(void)
{
	return log_cap_fn != NULL;
}

int log_rl_msg(struct log_rl *rl, int level, const char *fmt, ...)
{
	uint64_t was = 0;
	va_list ap;

	if (!log_enabled(level) && !(log_cap_fn && level <= LOG_L_WARNING))
		return 0;
	if (!log_rl_take(rl, &was))
		return 1;
	if (was)
		log_msg(level, "(%llu lines like the next one suppressed)",
			(unsigned long long)was);
	va_start(ap, fmt);
	log_vmsg(level, NULL, fmt, ap);
	va_end(ap);
	return 0;
}

void log_rl_clock_set(uint64_t (*now_ms)(void))
{
	log_rl_now = now_ms;
}

#define LOG_RL_TOKEN_MS (1000u / LOG_RL_PER_SEC)

/* Take a token: 1 and *was the lines suppressed before, or 0. */
static int log_rl_take(struct log_rl *rl, uint64_t *was)
{
	uint64_t now = log_rl_clock(), full = (uint64_t)LOG_RL_BURST * LOG_RL_TOKEN_MS;
	int ok = 0;

	pthread_mutex_lock(&rl->lock);
	if (!rl->started) {
		rl->started = 1;
		rl->tokens_ms = full;
	} else if (now > rl->last_ms) {
		rl->tokens_ms += now - rl->last_ms;
		if (rl->tokens_ms > full)
			rl->tokens_ms = full;
	}
	rl->last_ms = now;
	if (rl->tokens_ms >= LOG_RL_TOKEN_MS) {
		rl->tokens_ms -= LOG_RL_TOKEN_MS;
		*was = rl->suppressed;
		rl->suppressed = 0;
		ok = 1;
	} else {
		rl->suppressed++;
	}
	pthread_mutex_unlock(&rl->lock);
	return ok;
}

static uint64_t log_rl_clock(void)
{
	struct timespec ts;

	if (log_rl_now)
		return log_rl_now();
	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}
