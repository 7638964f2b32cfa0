/* SPDX-License-Identifier: MIT */
/* watchdog.c: a worker busy past the threshold is stuck, counted once per
 * episode; a join never waits longer than asked, even on a thread that
 * loops forever. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#include "worker/watchdog.h"
#include "check.h"

static void test_episodes(void)
{
	struct watchdog wd = { 0 };
	uint64_t ms;
	int n_new = 0;

	CHECK("watchdog idle is ok", watchdog_check(&wd, 100000, 5000, &ms) == WATCHDOG_OK &&
	      ms == 0, "ms %llu", (unsigned long long)ms);
	watchdog_busy(&wd, 100000);
	CHECK("watchdog busy below threshold", watchdog_check(&wd, 104999, 5000, &ms) == WATCHDOG_OK &&
	      !watchdog_stuck(&wd, 104999, 5000, &ms), "stuck early");
	/* the main loop looks every second: one episode, counted once */
	for (uint64_t t = 105000; t < 120000; t += 1000)
		if (watchdog_check(&wd, t, 5000, &ms) == WATCHDOG_STUCK_NEW)
			n_new++;
	CHECK("watchdog one stall per episode", n_new == 1, "%d", n_new);
	CHECK("watchdog stuck for status", watchdog_stuck(&wd, 120000, 5000, &ms) && ms == 20000,
	      "ms %llu", (unsigned long long)ms);
	/* the worker came back and got stuck again: a second episode */
	watchdog_idle(&wd);
	CHECK("watchdog idle again", watchdog_check(&wd, 121000, 5000, &ms) == WATCHDOG_OK &&
	      !watchdog_stuck(&wd, 121000, 5000, &ms), "still stuck");
	watchdog_busy(&wd, 122000);
	CHECK("watchdog second episode", watchdog_check(&wd, 128000, 5000, &ms) == WATCHDOG_STUCK_NEW &&
	      watchdog_check(&wd, 129000, 5000, &ms) == WATCHDOG_STUCK, "not counted once");
	/* busy from one receive to the next (never idle in between) is not
	 * one episode: the stamp moved */
	watchdog_busy(&wd, 129500);
	CHECK("watchdog moving worker not stuck", watchdog_check(&wd, 130000, 5000, &ms) == WATCHDOG_OK,
	      "ms %llu", (unsigned long long)ms);
	/* a clock reading of 0 is still busy */
	watchdog_busy(&wd, 0);
	CHECK("watchdog zero stamp is busy", atomic_load(&wd.busy_since) != 0, "idle");
}

static _Atomic bool spin_go = true;

/* A plugin that never returns (it ignores every request to stop). */
static void *spin(void *arg)
{
	(void)arg;
	while (atomic_load(&spin_go))
		;
	return NULL;
}

static void *quick(void *arg)
{
	(void)arg;
	return NULL;
}

static void test_join(void)
{
	pthread_t t;
	uint64_t t0, el;
	int rc;

	pthread_create(&t, NULL, quick, NULL);
	CHECK("watchdog join of a thread that returns", watchdog_join(t, 2000) == 0, "not joined");
	pthread_create(&t, NULL, spin, NULL);
	t0 = watchdog_now_ms();
	rc = watchdog_join(t, 300);
	el = watchdog_now_ms() - t0;
	CHECK("watchdog join bounded on a looping thread", rc == -ETIMEDOUT &&
	      el >= 250 && el < 2000, "rc %d after %llu ms", rc, (unsigned long long)el);
	/* as worker_stop() does: detach it and go on; here it may end */
	pthread_detach(t);
	atomic_store(&spin_go, false);
}

int main(void)
{
	test_episodes();
	test_join();
	return check_exit();
}
