/* SPDX-License-Identifier: MIT */
#ifndef CTH_LOG_H
#define CTH_LOG_H

#include <stdarg.h>

/* syslog numbering, shared with the SDK's cth_log_level */
enum { LOG_L_ERR = 3, LOG_L_WARNING = 4, LOG_L_NOTICE = 5, LOG_L_INFO = 6,
       LOG_L_DEBUG = 7 };

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

#define log_err(...)    log_msg(LOG_L_ERR, __VA_ARGS__)
#define log_warn(...)   log_msg(LOG_L_WARNING, __VA_ARGS__)
#define log_notice(...) log_msg(LOG_L_NOTICE, __VA_ARGS__)
#define log_info(...)   log_msg(LOG_L_INFO, __VA_ARGS__)
#define log_debug(...)  do { if (log_enabled(LOG_L_DEBUG)) \
				log_msg(LOG_L_DEBUG, __VA_ARGS__); } while (0)

#endif
