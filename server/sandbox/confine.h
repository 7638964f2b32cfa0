/* SPDX-License-Identifier: MIT */
/*
 * The sandbox's confinement (issue 32): resource limits, landlock and a
 * seccomp filter, each applied by the process to itself.  Nothing here
 * can be undone: every call only narrows what the process may do.
 *
 * The order the sandbox program applies them in (each step needs what
 * the ones before still allow):
 *
 *	confine_sigsys_report(&nr)        the handler, before any filter
 *	confine_limits_load(mem)          address space and the limits
 *	                                  loading does not need lifted:
 *	                                  before any plugin code (its
 *	                                  constructors) runs
 *	confine_landlock_paths(dirs)      read+exec beneath the plugin's dirs
 *	confine_seccomp(CONFINE_LOAD)     what dlopen() needs
 *	dlopen(), dlsym(), init()
 *	confine_landlock_none()           no file system at all
 *	confine_limits_serve()            NOFILE leaves no free fd: after
 *	                                  every step that opens one
 *	confine_seccomp(CONFINE_SERVE)    the channel and memory only
 *
 * The LOAD filter allows what the steps after it need (prctl
 * PR_SET_NO_NEW_PRIVS, seccomp SET_MODE_FILTER, the landlock calls,
 * prlimit64 on itself): each of them can only take rights away.
 */
#ifndef CTH_SANDBOX_CONFINE_H
#define CTH_SANDBOX_CONFINE_H

#include <stdint.h>

/* 1 in an ASan build (build-asan: the unit tests, replay-asan): its
 * shadow memory is address space, so no address-space limit is set, and
 * the filters meet its own calls.  The tests read it too. */
#if defined(__SANITIZE_ADDRESS__)
#define CONFINE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CONFINE_ASAN 1
#endif
#endif
#ifndef CONFINE_ASAN
#define CONFINE_ASAN 0
#endif

enum confine_phase { CONFINE_LOAD, CONFINE_SERVE };

#define CONFINE_CHAN_FD 3           /* the only fd recvfrom/sendto may use */
#define CONFINE_EXIT_SYSCALL 159    /* exit code of a process the SIGSYS handler ended */
/* stored by the SIGSYS handler when the signal did not come from seccomp */
#define CONFINE_NR_UNKNOWN UINT32_MAX

/* Resource limits, in two steps (the order above): the address space
 * (mem_bytes, > 0) and every limit loading does not need lifted; then
 * the descriptors.  0 or a negative errno. */
int confine_limits_load(uint64_t mem_bytes);
int confine_limits_serve(void);
int confine_landlock_abi(void);
/* Read (and map) beneath each of paths, a NULL-terminated list, and
 * nothing else; a path that does not exist is skipped.  0 or a negative
 * errno (-ENOSYS, -EOPNOTSUPP: no landlock). */
int confine_landlock_paths(const char *const *paths);
int confine_landlock_none(void);
int confine_seccomp(enum confine_phase phase);
void confine_sigsys_report(volatile uint32_t *nr);
const char *confine_syscall_name(uint32_t nr);

#endif
