/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: kmod/'s packet filter (kmod/cthd_match.h, the header
 * the module compiles).  Input: a rule count, then per rule its length,
 * place, directions and CTHD_MATCH_LEN prefix bytes (refused rules are
 * dropped, as the module refuses them), then the direction, whether the
 * payload starts a line and a chunk size; the rest is the payload.
 *
 * Invariants: fed in chunks of any size the answer is the flat one; the
 * answer is a naive reference's (a rule of the direction whose prefix,
 * compared case-insensitively, starts the payload (AT_START), or a line
 * (AT_LINE: after each '\n', and the start when it starts a line), or is
 * cut by the payload's end); no read outside the payload (ASan).
 */
#include "fuzz_common.h"
#include "../../kmod/cthd_match.h"

static uint8_t fz_lower(uint8_t c)
{
	return c >= 'A' && c <= 'Z' ? (uint8_t)(c + 32) : c;
}

/* Does rule r match (or is it cut) at pos? */
static bool fz_at(const struct cthd_rule *r, const uint8_t *p, size_t n, size_t pos)
{
	for (size_t i = 0; i < r->len; i++) {
		if (pos + i >= n)
			return i > 0;	/* cut by the end: unsure */
		if (fz_lower(p[pos + i]) != r->prefix[i])
			return false;
	}
	return true;
}

static bool fz_naive(const struct cthd_rules *rs, unsigned int dir, bool line,
		     const uint8_t *p, size_t n)
{
	unsigned int bit = dir ? CTHD_DIR_REPLY : CTHD_DIR_ORIGINAL;

	for (unsigned int k = 0; k < rs->n; k++) {
		const struct cthd_rule *r = &rs->rule[k];

		if (!(r->dirs & bit))
			continue;
		if ((r->at == CTHD_AT_START || line) && fz_at(r, p, n, 0))
			return true;
		if (r->at != CTHD_AT_LINE)
			continue;
		for (size_t i = 0; i < n; i++)
			if (p[i] == '\n' && fz_at(r, p, n, i + 1))
				return true;
	}
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cthd_rules rs = { 0 };
	unsigned int want_rules, dir, chunk;
	struct cthd_scan s;
	bool line, flat, fed = false;
	size_t off = 0;

	if (size < 4)
		return 0;
	want_rules = data[off++] % (CTHD_MATCH_MAX + 1);
	/* a record holds CTHD_MATCH_LEN prefix bytes; a length up to one
	 * more than the longest allowed is tried (and refused) */
	for (unsigned int i = 0; i < want_rules && off + 3 + CTHD_MATCH_LEN <= size;
	     i++, off += 3 + CTHD_MATCH_LEN) {
		const uint8_t *d = data + off;
		unsigned int len = d[0] % (CTHD_MATCH_LEN + 2);

		if (cthd_rule_set(&rs.rule[rs.n], d + 3, len, d[1] % 3, d[2] % 5))
			rs.n++;
	}
	if (off + 3 > size)
		return 0;
	dir = data[off] & 1;
	line = data[off + 1] & 1;
	chunk = 1 + data[off + 2] % 300;
	off += 3;
	flat = cthd_match_flat(&rs, dir, line, data + off, size - off);
	FZ_CHECK(flat == fz_naive(&rs, dir, line, data + off, size - off));
	cthd_scan_init(&s, &rs, dir, line);
	for (size_t p = off; p < size && !fed; p += chunk)
		fed = cthd_scan_feed(&s, &rs, data + p, p + chunk <= size ? chunk : size - p);
	FZ_CHECK((fed || cthd_scan_end(&s)) == flat);
	return 0;
}
