/* What the running kernel offers a sandbox (issue 32), printed one fact a
 * line: the landlock ABI and which seccomp filter returns it implements.
 * Built and run by tests/vm/measure/issue32.sh inside the test VM. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>

static void probe_landlock(void)
{
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0,
			   LANDLOCK_CREATE_RULESET_VERSION);

	if (abi < 0)
		printf("landlock abi: none (%s)\n", strerrorname_np(errno));
	else
		printf("landlock abi: %ld\n", abi);
}

static void probe_seccomp_action(const char *name, unsigned int action)
{
	long rc = syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action);

	printf("seccomp action %s: %s\n", name,
	       rc == 0 ? "available" : strerrorname_np(errno));
}

int main(void)
{
	probe_landlock();
	/* a NULL program: EFAULT means the filter mode exists (EINVAL: no) */
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, NULL) < 0)
		printf("seccomp filter mode: %s\n",
		       errno == EFAULT ? "available (EFAULT on a NULL program)"
				       : strerrorname_np(errno));
	probe_seccomp_action("KILL_PROCESS", SECCOMP_RET_KILL_PROCESS);
	probe_seccomp_action("TRAP", SECCOMP_RET_TRAP);
	probe_seccomp_action("ERRNO", SECCOMP_RET_ERRNO);
	probe_seccomp_action("USER_NOTIF", SECCOMP_RET_USER_NOTIF);
	return 0;
}
