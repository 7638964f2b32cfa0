/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: an Amanda request flow (UDP to 10080, IPv4 or IPv6, SNAT, DNAT, the kernel's answers) and its datagrams through the plugin on the daemon's host code (cth_plugtest_fuzz()); on top, each input's bytes go through amanda_parse(), whose streams must be in range and inside the input.
 * A plugin bug the host sees (a malformed request to it, a bad verdict,
 * a packet sent with a bad length or checksum) or a crash is a finding.
 *
 * Input: cth_plugtest_fuzz()'s (plugtest.h): byte 0 the connection,
 * then packets (a byte: bit 7 the reply direction, bits 0-6 and the next
 * byte the length; the payload).  Seeds: tests/fuzz/mkseeds_amanda.py.
 */
#include <stdio.h>
#include <stdlib.h>

#include <cthelperd/plugtest.h>

#include "../../plugins/amanda/amanda_parse.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct cth_plugtest *fuzz_test;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	/* a master timeout away from its default, to see it set */
	static const char *const settings[] = { "master_timeout=60", NULL };
	char err[256];

	(void)argc;
	(void)argv;
	fuzz_test = cth_plugtest_new(&cth_plugin, settings, err, sizeof(err));
	if (!fuzz_test) {
		fprintf(stderr, "fuzz_amanda: %s\n", err);
		abort();
	}
	return 0;
}

/* The parser alone on the whole input: a stream it reports has a port
 * and its digits lie inside the datagram. */
static void fuzz_parse(const uint8_t *data, size_t size)
{
	struct amanda_msg m;
	int ret = amanda_parse(data, size, &m);

	for (unsigned int i = 0; i < AMANDA_STREAMS; i++) {
		const struct amanda_stream *s = &m.stream[i];

		if (ret != 1 && s->port)
			abort();
		if (s->port && (s->len == 0 || s->len > AMANDA_PORT_DIGITS ||
				s->off + s->len > size))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_parse(data, size);
	cth_plugtest_fuzz(fuzz_test, data, size);
	return 0;
}
