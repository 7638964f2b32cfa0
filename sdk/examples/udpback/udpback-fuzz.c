/* SPDX-License-Identifier: MIT */
/*
 * udpback's libFuzzer target: every input a connection and its packets
 * through the plugin on the daemon's host code (cth_plugtest_fuzz(),
 * <cthelperd/plugtest.h>); a plugin bug the host sees, or a crash, is a
 * finding.
 *
 *     make fuzz            (clang: -fsanitize=fuzzer,address,undefined)
 */
#include <stdio.h>
#include <stdlib.h>

#include <cthelperd/plugtest.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct cth_plugtest *fuzz_test;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	/* the keys away from their defaults, to reach more of the plugin */
	static const char *const settings[] = { "puts=yes", NULL };
	char err[256];

	(void)argc;
	(void)argv;
	fuzz_test = cth_plugtest_new(&cth_plugin, settings, err, sizeof(err));
	if (!fuzz_test) {
		fprintf(stderr, "udpback-fuzz: %s\n", err);
		abort();
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cth_plugtest_fuzz(fuzz_test, data, size);
	return 0;
}
