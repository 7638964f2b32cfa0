/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: a SANE control connection (TCP to 6566, IPv4 or IPv6, SNAT, DNAT, the kernel's answers) and its segments both ways through the plugin on the daemon's host code (cth_plugtest_fuzz()): kept bytes, the state machine, rewrites under NAT.
 * A plugin bug the host sees (a malformed request to it, a bad verdict,
 * a packet sent with a bad length or checksum) or a crash is a finding.
 *
 * Input: cth_plugtest_fuzz()'s (plugtest.h): byte 0 the connection,
 * then packets (a byte: bit 7 the reply direction, bits 0-6 and the next
 * byte the length; the payload).  Seeds: tests/fuzz/mkseeds_sane.py.
 */
#include <stdio.h>
#include <stdlib.h>

#include <cthelperd/plugtest.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct cth_plugtest *fuzz_test;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char err[256];

	(void)argc;
	(void)argv;
	fuzz_test = cth_plugtest_new(&cth_plugin, NULL, err, sizeof(err));
	if (!fuzz_test) {
		fprintf(stderr, "fuzz_sane: %s\n", err);
		abort();
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cth_plugtest_fuzz(fuzz_test, data, size);
	return 0;
}
