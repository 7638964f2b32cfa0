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
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "kernel/record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fz_check(bool ok)
{
	if (!ok)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct record r, again;
	static char out[RECORD_MAX_BYTES];
	int rc, len;

	if (size > RECORD_MAX_BYTES)
		return 0;
	rc = record_parse((const char *)data, size, &r);
	if (rc) {
		fz_check(r.n == 0);
		return 0;
	}
	fz_check(r.n <= RECORD_MAX);
	for (size_t i = 0; i < r.n; i++) {
		fz_check(memchr(r.e[i].name, '\0', CTH_NAME_LEN) != NULL);
		fz_check(r.e[i].name[0] != '\0');
		fz_check(r.e[i].family == AF_INET || r.e[i].family == AF_INET6);
		fz_check(r.e[i].proto == IPPROTO_TCP || r.e[i].proto == IPPROTO_UDP);
	}
	len = record_format(&r, out, sizeof(out));
	fz_check(len > 0);
	fz_check(record_parse(out, (size_t)len, &again) == 0 && again.n == r.n);
	for (size_t i = 0; i < r.n; i++)
		fz_check(strcmp(r.e[i].name, again.e[i].name) == 0 &&
			 r.e[i].family == again.e[i].family &&
			 r.e[i].proto == again.e[i].proto &&
			 r.e[i].queue == again.e[i].queue);
	return 0;
}
