/* SPDX-License-Identifier: MIT */
/* A runtime from configuration text, its sandboxed helpers' plugins
 * described through the spawner as the daemon does (sandbox/describe.h):
 * for test_sandbox, test_whelp and tests/bench/chanbench.c, which run sandboxes
 * without a daemon.  The spawner's program is set first when it is not
 * the installed one (spawn_program_set()). */
#ifndef CTH_TEST_SBXRT_H
#define CTH_TEST_SBXRT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfgload.h"
#include "runtime/runtime.h"
#include "sandbox/describe.h"
#include "sandbox/spawn.h"

/* NULL, with why on stderr, when the text or a plugin is refused. */
static inline struct runtime *sbxrt_build(const char *text)
{
	char path[CFGLOAD_PATH], err[2048];
	struct runtime *rt;
	struct cfg *cfg;

	if (cfgload_text(text, strlen(text), path, &cfg, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s", err);
		return NULL;
	}
	if (spawn_open(cfg) < 0)
		return NULL;
	cfg->describe = sandbox_describe;
	if (runtime_build(cfg, &rt) < 0)
		return NULL;
	return rt;
}

/* The instance called name: the test's own configuration has it. */
static inline const struct instance *sbxrt_inst(const struct runtime *rt, const char *name)
{
	for (size_t i = 0; i < rt->n_inst; i++)
		if (strcmp(rt->inst[i].name, name) == 0)
			return &rt->inst[i];
	abort();
}

#endif
