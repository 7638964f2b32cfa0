/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the record of registered kernel helpers
 * (server/kernel/record.c), which `cthelperd --release` reads as root after a
 * crash.  Input: the file's bytes.
 *
 * Invariants: what is accepted has at most RECORD_MAX entries, each a
 * NUL-terminated name shorter than CTH_NAME_LEN, a known family and
 * protocol; written out again it reads back the same; what is refused
 * leaves no entry.
 */
#include <netinet/in.h>
#include <sys/socket.h>

#include "fuzz_common.h"
#include "kernel/record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct record r, again;
	static char out[RECORD_MAX_BYTES];
	int rc, len;

	if (size > RECORD_MAX_BYTES)
		return 0;
	rc = record_parse((const char *)data, size, &r);
	if (rc) {
		FZ_CHECK(r.n == 0);
		return 0;
	}
	FZ_CHECK(r.n <= RECORD_MAX);
	for (size_t i = 0; i < r.n; i++) {
		FZ_CHECK(memchr(r.e[i].name, '\0', CTH_NAME_LEN) != NULL);
		FZ_CHECK(r.e[i].name[0] != '\0');
		FZ_CHECK(r.e[i].family == AF_INET || r.e[i].family == AF_INET6);
		FZ_CHECK(r.e[i].proto == IPPROTO_TCP || r.e[i].proto == IPPROTO_UDP);
	}
	len = record_format(&r, out, sizeof(out));
	FZ_CHECK(len > 0);
	FZ_CHECK(record_parse(out, (size_t)len, &again) == 0 && again.n == r.n);
	for (size_t i = 0; i < r.n; i++)
		FZ_CHECK(strcmp(r.e[i].name, again.e[i].name) == 0 &&
			 r.e[i].family == again.e[i].family &&
			 r.e[i].proto == again.e[i].proto &&
			 r.e[i].queue == again.e[i].queue);
	return 0;
}
