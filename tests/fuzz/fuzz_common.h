/* SPDX-License-Identifier: MIT */
/*
 * Shared by the libFuzzer targets: their entry points and common set-up, a
 * reader over the fuzz input, and the invariants every packet the
 * host hands back must meet (checked independently, tests/fuzz/pktcheck.h).
 * A violated invariant prints why and aborts, which libFuzzer reports as a
 * crash with the input saved.
 */
#ifndef CTH_FUZZ_COMMON_H
#define CTH_FUZZ_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "host/call.h"
#include "host/packet.h"
#include "pktcheck.h"

/* libFuzzer's entry points, defined by each target. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* ------------------------------------------------------------ reader */

struct fz {
	const uint8_t *p;
	size_t n;
};

static inline uint8_t fz_u8(struct fz *f)
{
	uint8_t v;

	if (!f->n)
		return 0;
	v = *f->p++;
	f->n--;
	return v;
}

static inline uint16_t fz_u16(struct fz *f)
{
	uint16_t hi = fz_u8(f);

	return (uint16_t)(hi << 8 | fz_u8(f));
}

static inline uint32_t fz_u32(struct fz *f)
{
	uint32_t hi = fz_u16(f);

	return hi << 16 | fz_u16(f);
}

/* Up to n bytes into dst; the rest zero.  Returns the bytes taken. */
static inline size_t fz_bytes(struct fz *f, void *dst, size_t n)
{
	size_t k = n < f->n ? n : f->n;

	if (k)
		memcpy(dst, f->p, k);
	if (n > k)
		memset((uint8_t *)dst + k, 0, n - k);
	f->p += k;
	f->n -= k;
	return k;
}

/* FUZZ_VERBOSE=1 in the environment: one summary line per input on
 * stderr (to see what a seed reaches).  Set by LLVMFuzzerInitialize. */
static bool fz_verbose;

static inline void fz_verbose_init(void)
{
	const char *v = getenv("FUZZ_VERBOSE");

	fz_verbose = v && *v && *v != '0';
}

/* What every target's LLVMFuzzerInitialize does: plugin log lines (info)
 * not printed, FUZZ_VERBOSE read. */
static inline void fz_init(void)
{
	log_init(LOG_L_ERR, 0);
	fz_verbose_init();
}

/* ------------------------------------------------------------ checks */

#define FZ_ASSERT(cond, ...)                                            \
	do {                                                            \
		if (!(cond)) {                                          \
			fprintf(stderr, "invariant violated: " __VA_ARGS__); \
			fprintf(stderr, "\n");                          \
			abort();                                        \
		}                                                       \
	} while (0)

/* Transport protocol of a parsed view (pkt_view_parse: UDP header 8
 * bytes, TCP header at least 20). */
static inline uint8_t fz_view_proto(const struct cth_packet *p)
{
	return p->payload_offset - p->l4_offset == 8 ? 17 : 6;
}

/* Header bytes the host may change when it rewrites: lengths and
 * checksums. */
static inline bool fz_field_may_change(const struct cth_packet *p, size_t i)
{
	size_t l4 = p->l4_offset;
	bool v6 = (p->data[0] >> 4) == 6;

	if (v6 ? (i == 4 || i == 5) : (i == 2 || i == 3 || i == 10 || i == 11))
		return true;
	if (fz_view_proto(p) == 6)
		return i == l4 + 16 || i == l4 + 17;
	return i >= l4 + 4 && i < l4 + 8;
}

/*
 * The packet the host would send back (r, len) against the original view:
 * at most 65531 bytes, lengths and checksums right (independent sums),
 * every header byte other than lengths and checksums unchanged, and, when
 * want is given, exactly that payload.
 */
static inline void fz_check_result(const struct cth_packet *p,
				   const uint8_t *r, size_t len,
				   const uint8_t *want, size_t want_len)
{
	char why[160];
	size_t i;

	FZ_ASSERT(len <= PC_OUT_MAX, "result %zu bytes > %u", len, PC_OUT_MAX);
	FZ_ASSERT(len >= p->payload_offset, "result %zu shorter than headers", len);
	FZ_ASSERT(pc_packet_ok(r, len, p->l4_offset, fz_view_proto(p), why,
			       sizeof(why)), "%s", why);
	for (i = 0; i < p->payload_offset; i++)
		FZ_ASSERT(r[i] == p->data[i] || fz_field_may_change(p, i),
			  "header byte %zu changed 0x%02x -> 0x%02x", i,
			  p->data[i], r[i]);
	if (want) {
		FZ_ASSERT(len - p->payload_offset == want_len,
			  "payload %zu bytes, model %zu", len - p->payload_offset,
			  want_len);
		for (i = 0; i < want_len; i++)
			FZ_ASSERT(r[p->payload_offset + i] == want[i],
				  "payload byte %zu 0x%02x, model 0x%02x", i,
				  r[p->payload_offset + i], want[i]);
	}
}

/* The packet a call sends back (r, NULL when unchanged): never rewritten
 * without NAT or from part of a packet, and right as fz_check_result
 * says.  Called after the verbose line, so that line shows a failing
 * input's call. */
static inline void fz_check_sent(const struct pkt_call *c, const uint8_t *r, size_t rlen)
{
	if (!r)
		return;
	FZ_ASSERT(c->pkt.nat && !c->truncated, "rewritten without NAT, or truncated");
	fz_check_result(&c->pkt, r, rlen, NULL, 0);
}

#endif
