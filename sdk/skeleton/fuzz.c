/* SPDX-License-Identifier: MIT */
/*
 * @NAME@'s libFuzzer target: every input a connection and its packets
 * through the plugin on the daemon's host code (cth_plugtest_fuzz(),
 * <cthelperd/plugtest.h> has the input's layout); a plugin bug the host
 * sees, or a crash, is a finding.  `make fuzz` builds and runs it
 * (clang: -fsanitize=fuzzer,address,undefined); fuzz-seeds/ holds the
 * inputs it starts from.
 */
#include <stdio.h>
#include <stdlib.h>

#include <cthelperd/plugtest.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct cth_plugtest *fuzz_test;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	/* TODO: keys away from their defaults, to reach more of the plugin */
	static const char *const settings[] = { NULL };
	char err[256];

	(void)argc;
	(void)argv;
	fuzz_test = cth_plugtest_new(&cth_plugin, settings, err, sizeof(err));
	if (!fuzz_test) {
		fprintf(stderr, "@NAME@-fuzz: %s\n", err);
		abort();
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cth_plugtest_fuzz(fuzz_test, data, size);
	return 0;
}
