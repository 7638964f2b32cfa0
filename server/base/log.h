/* SPDX-License-Identifier: MIT */
#ifndef CTH_LOG_H
#define CTH_LOG_H

#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>

/* syslog numbering, shared with the SDK's cth_log_level */
enum { LOG_L_ERR = 3, LOG_L_WARNING = 4, LOG_L_NOTICE = 5, LOG_L_INFO = 6,
       LOG_L_DEBUG = 7 };

/*
 * The program whose lines these are: its name starts every line on stderr
 * ("cthelperd[info]: ...") and is syslog's ident, and a message that
 * compares the program with something names it (the loader's refusal of a
 * plugin built for another ABI).  "cthelperd" unless set; the replay tool,
 * which runs the same code, sets its own before anything logs.  name must
 * outlive every line.
 */
void log_program_set(const char *name);
const char *log_program(void);

void log_init(int level, int use_syslog);
/* A reload's new log_level (the destination stays). */
void log_level_set(int level);
int log_level_parse(const char *name);
int log_enabled(int level);
void log_vmsg(int level, const char *tag, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
void log_msg(int level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * While set, every line this thread logs at warning or above is also
 * handed to fn (a reload collects its errors for cthelperctl this way);
 * other threads are not affected.  NULL ends it.
 */
typedef void log_capture_fn(void *arg, int level, const char *line);
void log_capture_set(log_capture_fn *fn, void *arg);
int log_capturing(void);

/*
 * Rate-limited lines, for everything network input can trigger (a flood
 * of bad packets must not become a flood of log lines): a token bucket
 * per call site, LOG_RL_BURST lines at once, then LOG_RL_PER_SEC a
 * second.  The first line let through after some were suppressed is
 * preceded by a line saying how many.  The site's state is shared by
 * every thread that logs there, under its own lock (taken only when
 * the line's level is logged at all).
 */
#define LOG_RL_BURST 10u
#define LOG_RL_PER_SEC 5u

struct log_rl {
	pthread_mutex_t lock;
	uint64_t last_ms;           /* the bucket was last filled */
	uint64_t tokens_ms;         /* tokens, in ms of refill (1000 / PER_SEC each) */
	uint64_t suppressed;        /* since the last line let through */
	int started;
};
#define LOG_RL_INIT { .lock = PTHREAD_MUTEX_INITIALIZER }

/* 1: the line was suppressed (for a counter), 0: logged or below the
 * log level. */
int log_rl_msg(struct log_rl *rl, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The clock the limiter reads, in ms (tests; NULL: CLOCK_MONOTONIC_COARSE). */
void log_rl_clock_set(uint64_t (*now_ms)(void));

/* A site of its own at each use. */
#define log_rl(level, ...) __extension__ ({                                   \
		static struct log_rl log_rl_site_ = LOG_RL_INIT;               \
		log_rl_msg(&log_rl_site_, (level), __VA_ARGS__); })
#define log_rl_err(...)   log_rl(LOG_L_ERR, __VA_ARGS__)
#define log_rl_warn(...)  log_rl(LOG_L_WARNING, __VA_ARGS__)
#define log_rl_info(...)  log_rl(LOG_L_INFO, __VA_ARGS__)
#define log_rl_debug(...) (log_enabled(LOG_L_DEBUG) ? log_rl(LOG_L_DEBUG, __VA_ARGS__) : 0)

#define log_err(...)    log_msg(LOG_L_ERR, __VA_ARGS__)
#define log_warn(...)   log_msg(LOG_L_WARNING, __VA_ARGS__)
#define log_notice(...) log_msg(LOG_L_NOTICE, __VA_ARGS__)
#define log_info(...)   log_msg(LOG_L_INFO, __VA_ARGS__)
#define log_debug(...)  do { if (log_enabled(LOG_L_DEBUG)) \
				log_msg(LOG_L_DEBUG, __VA_ARGS__); } while (0)

#endif
