/* SPDX-License-Identifier: MIT */
/*
 * Issue 34's match rules: the matcher kmod/ runs (kmod/cthd_match.h, the
 * very header the module compiles), fed whole and in chunks of every size;
 * the loader's checks of a plugin's table (refusals with their reason, an
 * ABI 3 descriptor of the first size still loading with no rules); the
 * table through the sandbox's describe wire; the shipped ftp.so's rules.
 * $CTH_BUILD is the build directory under test.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "runtime/loader.h"
#include "sandbox/describe_wire.h"
#include "../../kmod/cthd_match.h"

static struct cthd_rules ftp_rules(void)
{
	struct cthd_rules rs = { .n = 4 };

	cthd_rule_set(&rs.rule[0], "PORT", 4, CTHD_AT_LINE, CTHD_DIR_ORIGINAL);
	cthd_rule_set(&rs.rule[1], "EPRT", 4, CTHD_AT_LINE, CTHD_DIR_ORIGINAL);
	cthd_rule_set(&rs.rule[2], "227", 3, CTHD_AT_LINE, CTHD_DIR_REPLY);
	cthd_rule_set(&rs.rule[3], "229", 3, CTHD_AT_LINE, CTHD_DIR_REPLY);
	return rs;
}

static bool flat(const struct cthd_rules *rs, unsigned int dir, bool line, const char *s)
{
	return cthd_match_flat(rs, dir, line, (const uint8_t *)s, strlen(s));
}

/* The same payload fed in chunks of n bytes. */
static bool chunked(const struct cthd_rules *rs, unsigned int dir, bool line,
		    const uint8_t *p, size_t len, size_t n)
{
	struct cthd_scan s;

	cthd_scan_init(&s, rs, dir, line);
	for (size_t off = 0; off < len; off += n)
		if (cthd_scan_feed(&s, rs, p + off, off + n <= len ? n : len - off))
			return true;
	return cthd_scan_end(&s);
}

static void test_matcher(void)
{
	struct cthd_rules rs = ftp_rules(), st = { .n = 1 };
	struct cthd_rule r;

	CHECK("match/port", flat(&rs, 0, true, "PORT 10,0,0,5,4,1\r\n"), "no match");
	CHECK("match/case", flat(&rs, 0, true, "pOrT 10,0,0,5,4,1\r\n"), "no match");
	CHECK("match/user-not", !flat(&rs, 0, true, "USER anonymous\r\n"), "matched");
	CHECK("match/dir", !flat(&rs, 1, true, "PORT 1,2,3,4,5,6\r\n"), "matched the reply");
	CHECK("match/reply-227", flat(&rs, 1, true, "227 Entering Passive Mode (1,2,3,4,5,6)\r\n"),
	      "no match");
	CHECK("match/reply-230-not", !flat(&rs, 1, true, "230 Login successful.\r\n"), "matched");
	CHECK("match/second-line", flat(&rs, 1, true, "150 ok\r\n226 done\r\n229 (|||5|)\r\n"),
	      "no match");
	CHECK("match/mid-line-not", !flat(&rs, 0, false, "PORT 1,2,3,4,5,6\r\n"),
	      "a segment after an open line matched at its start");
	CHECK("match/mid-line-then-line", flat(&rs, 0, false, "x\r\nEPRT |1|1.2.3.4|5|\r\n"),
	      "no match after the line end");
	CHECK("match/partial-at-end", flat(&rs, 0, true, "NOOP\r\nPOR"), "not unsure");
	CHECK("match/partial-1", flat(&rs, 1, true, "2"), "not unsure");
	CHECK("match/ends-at-line-start", !flat(&rs, 0, true, "NOOP\r\n"), "unsure");
	CHECK("match/empty", !flat(&rs, 0, true, ""), "matched nothing");
	CHECK("match/near-miss", !flat(&rs, 0, true, "PORX\r\nPOR\r\nEPR\n"), "matched");
	CHECK("match/long-line", !flat(&rs, 0, true,
	      "STOR PORT.txtPORTPORTPORTPORTPORTPORTPORT\r\n"), "matched inside a line");
	/* AT_START: the payload's first bytes only, whatever came before */
	cthd_rule_set(&st.rule[0], "SIP/2.0 ", 8, CTHD_AT_START, CTHD_DIR_ORIGINAL | CTHD_DIR_REPLY);
	CHECK("match/start", flat(&st, 1, false, "sip/2.0 200 OK\r\n"), "no match");
	CHECK("match/start-not-line", !flat(&st, 1, true, "x\r\nSIP/2.0 200 OK\r\n"), "matched");
	CHECK("match/rule-set-refuses",
	      !cthd_rule_set(&r, "", 0, 0, 1) && !cthd_rule_set(&r, "0123456789abcdefg", 17, 0, 1) &&
	      !cthd_rule_set(&r, "A\nB", 3, 0, 1) && !cthd_rule_set(&r, "AB", 2, 2, 1) &&
	      !cthd_rule_set(&r, "AB", 2, 0, 0) && !cthd_rule_set(&r, "AB", 2, 0, 4) &&
	      !cthd_rule_set(&r, "\x80", 1, 0, 1) && cthd_rule_set(&r, "0123456789abcdef", 16, 1, 3),
	      "a bad rule was taken, or a good one refused");
	CHECK("match/state",
	      cthd_st_continues(cthd_st_next(false, true)) &&
	      !cthd_st_continues(cthd_st_next(false, false)) &&
	      !cthd_st_continues(cthd_st_next(true, true)) &&
	      cthd_st_line_start(cthd_st_next(true, false), true) &&
	      !cthd_st_line_start(cthd_st_next(false, false), true) &&
	      cthd_st_line_start(cthd_st_next(false, false), false), "state bits");
}

/* Chunked == flat for random payloads over a small alphabet, every chunk
 * size from 1 to 9, both directions, both line starts. */
static void test_chunks(void)
{
	static const char alpha[] = "PORTEprt2279\r\n x";
	struct cthd_rules rs = ftp_rules();
	unsigned int bad = 0, seed = 34;
	uint8_t p[64];

	for (int round = 0; round < 20000; round++) {
		size_t len = (size_t)(rand_r(&seed) % sizeof(p));

		for (size_t i = 0; i < len; i++)
			p[i] = (uint8_t)alpha[rand_r(&seed) % (sizeof(alpha) - 1)];
		for (unsigned int dir = 0; dir < 2; dir++)
			for (int line = 0; line < 2; line++) {
				bool want = cthd_match_flat(&rs, dir, line, p, len);

				for (size_t n = 1; n <= 9; n++)
					bad += chunked(&rs, dir, line, p, len, n) != want;
			}
	}
	CHECK("match/chunked-equals-flat", bad == 0, "%u differences", bad);
}

static const struct cth_match good_match[] = {
	{ .prefix = "PORT", .at = CTH_MATCH_AT_LINE, .dirs = CTH_MATCH_ORIGINAL },
	{ .prefix = "227", .at = CTH_MATCH_AT_LINE, .dirs = CTH_MATCH_REPLY },
};

static int noop_packet(struct cth_ctx *ctx, const struct cth_packet *pkt, void *priv,
		       const void *config)
{
	(void)ctx, (void)pkt, (void)priv, (void)config;
	return CTH_VERDICT_ACCEPT;
}

static struct cth_plugin_desc base_desc(void)
{
	struct cth_plugin_desc d = {
		.abi_version = CTH_ABI_VERSION, .size = sizeof(struct cth_plugin_desc),
		.name = "mt", .version = "1", .description = "match test",
		.protocols = CTH_PROTO_TCP, .families = CTH_FAMILY_IPV4,
		.priv_size = 20, .n_classes = 1,
		.classes = { { .name = "c", .max = 1, .timeout = 30 } },
		.packet = noop_packet,
		.match = good_match, .n_match = 2,
	};
	return d;
}

static void refused(const char *name, const struct cth_plugin_desc *d, const char *words)
{
	char err[1024] = "", test[96];
	int rc = loader_desc_check(d, err, sizeof(err));

	snprintf(test, sizeof(test), "match/loader-refuses-%s", name);
	CHECK(test, rc == -EINVAL && strstr(err, words), "rc=%d, wanted '%s' in: %s", rc,
	      words, err);
}

static void test_loader(void)
{
	static struct cth_match many[CTH_MATCH_MAX + 1], bad[1];
	struct cth_plugin_desc d = base_desc();
	char err[1024] = "";
	int rc = loader_desc_check(&d, err, sizeof(err));

	CHECK("match/loader-takes-good", rc == 0, "rc=%d: %s", rc, err);
	d.match_flags = CTH_MATCH_NAT_ALL;
	rc = loader_desc_check(&d, err, sizeof(err));
	CHECK("match/loader-takes-nat-all", rc == 0, "rc=%d: %s", rc, err);
	d.size = PLUGIN_ABI3_FIRST_SIZE;
	rc = loader_desc_check(&d, err, sizeof(err));
	CHECK("match/loader-takes-first-abi3-size", rc == 0, "rc=%d: %s", rc, err);

	for (unsigned int i = 0; i <= CTH_MATCH_MAX; i++) {
		snprintf(many[i].prefix, sizeof(many[i].prefix), "R%u", i);
		many[i].at = CTH_MATCH_AT_LINE;
		many[i].dirs = CTH_MATCH_BOTH;
	}
	d = base_desc();
	d.match = many, d.n_match = CTH_MATCH_MAX;
	rc = loader_desc_check(&d, err, sizeof(err));
	CHECK("match/loader-takes-16", rc == 0, "rc=%d: %s", rc, err);
	d.n_match = CTH_MATCH_MAX + 1;
	refused("17", &d, "17 match rules; at most 16");
	d = base_desc();
	d.match = NULL;
	refused("null-table", &d, "2 match rules but no rule table");
	d = base_desc();
	d.match_flags = 2;
	refused("flags", &d, "match_flags 0x2");
	d = base_desc();
	d.n_match = 0, d.match = NULL, d.match_flags = CTH_MATCH_NAT_ALL;
	refused("flags-alone", &d, "without match rules");
	d = base_desc();
	d.priv_size = 31;
	refused("priv-31", &d, "31 bytes of private state: with rules at most 30");
	d = base_desc();
	d.match = bad, d.n_match = 1;
	memcpy(bad[0].prefix, "0123456789abcdefg", 17);
	bad[0].at = 0, bad[0].dirs = 1;
	refused("unterminated", &d, "not NUL-terminated");
	memcpy(bad[0].prefix, "", 1);
	refused("empty", &d, "match rule 0 (''): prefix must be 1..16");
	memcpy(bad[0].prefix, "A\r", 3);
	refused("control", &d, "printable ASCII");
	memcpy(bad[0].prefix, "PORT", 5);
	bad[0].at = 2;
	refused("at", &d, "(is 2)");
	bad[0].at = 1, bad[0].dirs = 0;
	refused("dirs", &d, "(is 0x0)");
}

/* A loaded plugin's rules are the daemon's copy, and cross the wire. */
static void test_ftp(const char *plugin_dir)
{
	static struct chan_describe w;
	struct plugin *pl = NULL, *back = NULL;
	const struct cth_plugin_desc *d;
	char err[1024] = "";
	int rc = loader_load(plugin_dir, "ftp", &pl, err, sizeof(err));

	CHECK("match/ftp-loads", rc == 0 && pl, "rc=%d: %s", rc, err);
	if (!pl)
		return;
	d = pl->desc;
	CHECK("match/ftp-rules", d->n_match == 4 && d->match == pl->match &&
	      strcmp(d->match[0].prefix, "PORT") == 0 && d->match[2].dirs == CTH_MATCH_REPLY &&
	      d->match[3].at == CTH_MATCH_AT_LINE && !d->match_flags, "n_match %u", d->n_match);
	describe_wire_put(&w, pl);
	rc = describe_wire_take(&w, pl->path, "ftp", pl->dev, pl->ino, &back, err, sizeof(err));
	CHECK("match/describe-carries-rules", rc == 0 && back && back->desc->n_match == 4 &&
	      back->desc->match == back->match &&
	      strcmp(back->desc->match[1].prefix, "EPRT") == 0, "rc=%d: %s", rc, err);
	w.pl.copy.size = (uint32_t)PLUGIN_ABI3_FIRST_SIZE;
	loader_unload(back);
	back = NULL;
	rc = describe_wire_take(&w, pl->path, "ftp", pl->dev, pl->ino, &back, err, sizeof(err));
	CHECK("match/describe-first-abi3-size", rc == 0 && back && back->desc->n_match == 0 &&
	      !back->desc->match && back->desc->n_keys == 2, "rc=%d: %s", rc, err);
	loader_unload(back);
	loader_unload(pl);
}

int main(void)
{
	const char *b = getenv("CTH_BUILD");
	char cwd[512], plugin_dir[1024];

	if (!b)
		b = "build";
	if (!getcwd(cwd, sizeof(cwd)))
		return 1;
	snprintf(plugin_dir, sizeof(plugin_dir), "%s/%s/plugins", cwd, b);
	test_matcher();
	test_chunks();
	test_loader();
	test_ftp(plugin_dir);
	return check_exit();
}
