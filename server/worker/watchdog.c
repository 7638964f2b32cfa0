// SPDX-License-Identifier: MIT
/* Stuck workers and bounded joins (watchdog.h has the why). */
#include <errno.h>
#include <time.h>

#include "watchdog.h"

uint64_t watchdog_now_ms(void)
{
	struct timespec ts;

	/* the workers' clock (worker_mono_ms()): the same one, coarse */
	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

bool watchdog_stuck(const struct watchdog *wd, uint64_t now_ms, uint64_t stuck_ms,
		    uint64_t *for_ms)
{
	uint64_t since = atomic_load_explicit(&wd->busy_since, memory_order_acquire);

	*for_ms = since && now_ms > since ? now_ms - since : 0;
	return since && *for_ms >= stuck_ms;
}

enum watchdog_state watchdog_check(struct watchdog *wd, uint64_t now_ms,
				   uint64_t stuck_ms, uint64_t *for_ms)
{
	uint64_t since = atomic_load_explicit(&wd->busy_since, memory_order_acquire);

	*for_ms = since && now_ms > since ? now_ms - since : 0;
	if (!since || *for_ms < stuck_ms)
		return WATCHDOG_OK;
	if (wd->reported == since)
		return WATCHDOG_STUCK;
	wd->reported = since;
	return WATCHDOG_STUCK_NEW;
}

int watchdog_join(pthread_t t, unsigned int ms)
{
	struct timespec dl;
	int rc;

	/* pthread_timedjoin_np() takes an absolute CLOCK_REALTIME deadline:
	 * a clock step can shorten or lengthen the wait, never unbound it */
	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += ms / 1000u;
	dl.tv_nsec += (long)(ms % 1000u) * 1000000L;
	if (dl.tv_nsec >= 1000000000L) {
		dl.tv_sec++;
		dl.tv_nsec -= 1000000000L;
	}
	while ((rc = pthread_timedjoin_np(t, NULL, &dl)) == EINTR)
		;
	return -rc;
}
