/* SPDX-License-Identifier: MIT */
/*
 * FTP plugin unit test: the pure parser (every command form, bad numbers,
 * truncation, garbage, huge lines, deterministic fuzzing), the SDK text
 * utilities it uses, and the plugin's packet callback run on the daemon's
 * host code with a kernel side that records expectations (plugrun.h), the
 * edits read back from the packet the host would send.
 *
 * Every payload is copied into a heap block of exactly its length so that
 * AddressSanitizer catches any read past the end.
 *
 * Output: one "PASS name" / "FAIL name: why" line per check; exit status 1
 * when anything failed.
 */
#define PLUGTEST_RNG_SEED 0x9e3779b97f4a7c15ull
#include "plugtest.h"

#include "../../plugins/ftp/ftp_parse.h"

/* ---------------------------------------------------------------- helpers */

/* Parse a copy of exactly len bytes so ASan sees any overread. */
static int parse_exact(const void *text, size_t len, enum cth_dir dir,
		       int family, struct ftp_cmd *cmd)
{
	uint8_t *buf = dup_exact(text, len);
	int ret = ftp_parse(len ? buf : NULL, len, dir, family, cmd);

	free(buf);
	return ret;
}

/* ---------------------------------------------------------------- parser */

struct parse_case {
	const char *name;
	enum cth_dir dir;
	int family;      /* the connection's */
	const char *text;
	int ret;         /* expected ftp_parse() result */
	enum ftp_cmd_type type;
	int cmd_family;  /* expected cmd.family (0 for EPSV) */
	const char *addr;
	uint16_t port;
	const char *match; /* expected text at cmd.off, cmd.len */
};

static const struct parse_case parse_cases[] = {
	/* PORT */
	{ "port", O, V4, "PORT 192,168,1,2,19,137\r\n", 1, FTP_CMD_PORT, V4,
	  "192.168.1.2", 5001, "192,168,1,2,19,137" },
	{ "port_lowercase", O, V4, "port 10,0,0,1,4,1\r\n", 1, FTP_CMD_PORT,
	  V4, "10.0.0.1", 1025, "10,0,0,1,4,1" },
	{ "port_mixedcase", O, V4, "pOrT 10,0,0,1,4,1\r\n", 1, FTP_CMD_PORT,
	  V4, "10.0.0.1", 1025, "10,0,0,1,4,1" },
	{ "port_leading_zeros", O, V4, "PORT 010,000,000,001,004,001\r\n", 1,
	  FTP_CMD_PORT, V4, "10.0.0.1", 1025, "010,000,000,001,004,001" },
	{ "port_max", O, V4, "PORT 255,255,255,255,255,255\r\n", 1,
	  FTP_CMD_PORT, V4, "255.255.255.255", 65535, "255,255,255,255,255,255" },
	{ "port_no_lf", O, V4, "PORT 10,0,0,1,4,1\r", 1, FTP_CMD_PORT, V4,
	  "10.0.0.1", 1025, "10,0,0,1,4,1" },
	{ "port_then_more_lines", O, V4, "PORT 10,0,0,1,4,1\r\nLIST\r\n", 1,
	  FTP_CMD_PORT, V4, "10.0.0.1", 1025, "10,0,0,1,4,1" },
	{ "port_word_suffix", O, V4, "PORTX 10,0,0,1,4,1\r\n", 1, FTP_CMD_PORT,
	  V4, "10.0.0.1", 1025, "10,0,0,1,4,1" },
	{ "port_octet_256", O, V4, "PORT 256,0,0,1,4,1\r\n", -EINVAL, 0, 0,
	  NULL, 0, NULL },
	{ "port_p1_256", O, V4, "PORT 10,0,0,1,256,1\r\n", -EINVAL, 0, 0,
	  NULL, 0, NULL },
	{ "port_zero", O, V4, "PORT 10,0,0,1,0,0\r\n", -EINVAL, 0, 0, NULL, 0,
	  NULL },
	{ "port_overflow_u32", O, V4, "PORT 4294967297,0,0,1,4,1\r\n", -EINVAL,
	  0, 0, NULL, 0, NULL },
	{ "port_overflow_long", O, V4,
	  "PORT 99999999999999999999999999999999,0,0,1,4,1\r\n", -EINVAL, 0, 0,
	  NULL, 0, NULL },
	{ "port_five_numbers", O, V4, "PORT 10,0,0,1,4\r\n", -EINVAL, 0, 0,
	  NULL, 0, NULL },
	{ "port_seven_numbers", O, V4, "PORT 10,0,0,1,4,1,5\r\n", -EINVAL, 0,
	  0, NULL, 0, NULL },
	{ "port_empty_field", O, V4, "PORT 10,,0,1,4,1\r\n", -EINVAL, 0, 0,
	  NULL, 0, NULL },
	{ "port_negative", O, V4, "PORT -1,0,0,1,4,1\r\n", -EINVAL, 0, 0, NULL,
	  0, NULL },
	{ "port_spaces", O, V4, "PORT 10, 0,0,1,4,1\r\n", -EINVAL, 0, 0, NULL,
	  0, NULL },
	{ "port_two_spaces", O, V4, "PORT  10,0,0,1,4,1\r\n", -EINVAL, 0, 0,
	  NULL, 0, NULL },
	{ "port_bare_lf", O, V4, "PORT 10,0,0,1,4,1\n", -EINVAL, 0, 0, NULL, 0,
	  NULL },
	{ "port_trailing_space", O, V4, "PORT 10,0,0,1,4,1 \r\n", -EINVAL, 0,
	  0, NULL, 0, NULL },
	{ "port_no_args", O, V4, "PORT\r\n", -EINVAL, 0, 0, NULL, 0, NULL },
	{ "port_portal", O, V4, "PORTAL 1\r\n", -EINVAL, 0, 0, NULL, 0, NULL },
	{ "port_truncated_p", O, V4, "P", -EAGAIN, 0, 0, NULL, 0, NULL },
	{ "port_truncated_po", O, V4, "Po", -EAGAIN, 0, 0, NULL, 0, NULL },
	{ "port_truncated_word", O, V4, "PORT", -EAGAIN, 0, 0, NULL, 0, NULL },
	{ "port_truncated_space", O, V4, "PORT ", -EAGAIN, 0, 0, NULL, 0,
	  NULL },
	{ "port_truncated_numbers", O, V4, "PORT 10,0,0,", -EAGAIN, 0, 0, NULL,
	  0, NULL },
	{ "port_truncated_last", O, V4, "PORT 10,0,0,1,4,1", -EAGAIN, 0, 0,
	  NULL, 0, NULL },
	{ "port_nul_inside", O, V4, "PORT 10,0\0,0,1,4,1\r\n", -EINVAL, 0, 0,
	  NULL, 0, NULL },
	{ "port_not_at_start", O, V4, " PORT 10,0,0,1,4,1\r\n", 0, 0, 0, NULL,
	  0, NULL },
	{ "port_second_line", O, V4, "NOOP\r\nPORT 10,0,0,1,4,1\r\n", 0, 0, 0,
	  NULL, 0, NULL },
	{ "port_from_server", R, V4, "PORT 10,0,0,1,4,1\r\n", 0, 0, 0, NULL, 0,
	  NULL },
	{ "port_on_ipv6_conn", O, V6, "PORT 10,0,0,1,4,1\r\n", 1, FTP_CMD_PORT,
	  V4, "10.0.0.1", 1025, "10,0,0,1,4,1" },
	{ "p_not_port", O, V4, "PASV\r\n", 0, 0, 0, NULL, 0, NULL },
	{ "user", O, V4, "USER anonymous\r\n", 0, 0, 0, NULL, 0, NULL },
	{ "p_newline", O, V4, "p\r\n", 0, 0, 0, NULL, 0, NULL },
	/* EPRT */
	{ "eprt_v4", O, V4, "EPRT |1|132.235.1.2|6275|\r\n", 1, FTP_CMD_EPRT,
	  V4, "132.235.1.2", 6275, "|1|132.235.1.2|6275|" },
	{ "eprt_v6", O, V6, "EPRT |2|1080::8:800:200C:417A|5282|\r\n", 1,
	  FTP_CMD_EPRT, V6, "1080::8:800:200c:417a", 5282,
	  "|2|1080::8:800:200C:417A|5282|" },
	{ "eprt_v6_mapped", O, V6, "EPRT |2|::ffff:10.0.0.1|5282|\r\n", 1,
	  FTP_CMD_EPRT, V6, "::ffff:10.0.0.1", 5282,
	  "|2|::ffff:10.0.0.1|5282|" },
	{ "eprt_lowercase", O, V4, "eprt |1|10.0.0.1|2000|\r\n", 1,
	  FTP_CMD_EPRT, V4, "10.0.0.1", 2000, "|1|10.0.0.1|2000|" },
	{ "eprt_other_delim", O, V4, "EPRT !1!10.0.0.1!2000!\r\n", 1,
	  FTP_CMD_EPRT, V4, "10.0.0.1", 2000, "!1!10.0.0.1!2000!" },
	{ "eprt_leading_zeros", O, V4, "EPRT |1|010.0.0.001|02000|\r\n", 1,
	  FTP_CMD_EPRT, V4, "10.0.0.1", 2000, "|1|010.0.0.001|02000|" },
	{ "eprt_port_max", O, V4, "EPRT |1|10.0.0.1|65535|\r\n", 1,
	  FTP_CMD_EPRT, V4, "10.0.0.1", 65535, "|1|10.0.0.1|65535|" },
	{ "eprt_no_crlf_needed", O, V4, "EPRT |1|10.0.0.1|2000|", 1,
	  FTP_CMD_EPRT, V4, "10.0.0.1", 2000, "|1|10.0.0.1|2000|" },
	{ "eprt_v6_on_v4", O, V4, "EPRT |2|::1|5282|\r\n", -EINVAL, 0, 0,
	  NULL, 0, NULL },
	{ "eprt_v4_on_v6", O, V6, "EPRT |1|10.0.0.1|5282|\r\n", -EINVAL, 0, 0,
	  NULL, 0, NULL },
	{ "eprt_af_3", O, V4, "EPRT |3|10.0.0.1|5282|\r\n", -EINVAL, 0, 0,
	  NULL, 0, NULL },
	{ "eprt_digit_delim", O, V4, "EPRT 5150.0.0.152825\r\n", -EINVAL, 0, 0,
	  NULL, 0, NULL },
	{ "eprt_space_delim", O, V4, "EPRT  1 10.0.0.1 5282 \r\n", -EINVAL, 0,
	  0, NULL, 0, NULL },
	{ "eprt_mixed_delim", O, V4, "EPRT |1!10.0.0.1|5282|\r\n", -EINVAL, 0,
	  0, NULL, 0, NULL },
	{ "eprt_port_zero", O, V4, "EPRT |1|10.0.0.1|0|\r\n", -EINVAL, 0, 0,
	  NULL, 0, NULL },
	{ "eprt_port_65536", O, V4, "EPRT |1|10.0.0.1|65536|\r\n", -EINVAL, 0,
	  0, NULL, 0, NULL },
	{ "eprt_port_huge", O, V4,
	  "EPRT |1|10.0.0.1|18446744073709551617|\r\n", -EINVAL, 0, 0, NULL, 0,
	  NULL },
	{ "eprt_port_missing", O, V4, "EPRT |1|10.0.0.1||\r\n", -EINVAL, 0, 0,
	  NULL, 0, NULL },
	{ "eprt_port_unclosed", O, V4, "EPRT |1|10.0.0.1|2000\r\n", -EINVAL, 0,
	  0, NULL, 0, NULL },
	{ "eprt_v4_octet_300", O, V4, "EPRT |1|10.0.0.300|2000|\r\n", -EINVAL,
	  0, 0, NULL, 0, NULL },
	{ "eprt_v4_three_octets", O, V4, "EPRT |1|10.0.1|2000|\r\n", -EINVAL,
	  0, 0, NULL, 0, NULL },
	{ "eprt_v4_five_octets", O, V4, "EPRT |1|10.0.0.1.5|2000|\r\n",
	  -EINVAL, 0, 0, NULL, 0, NULL },
	{ "eprt_v6_bad", O, V6, "EPRT |2|1080:::1|5282|\r\n", -EINVAL, 0, 0,
	  NULL, 0, NULL },
	{ "eprt_v6_empty", O, V6, "EPRT |2||5282|\r\n", -EINVAL, 0, 0, NULL, 0,
	  NULL },
	{ "eprt_v6_too_long", O, V6,
	  "EPRT |2|aaaa:aaaa:aaaa:aaaa:aaaa:aaaa:aaaa:aaaa:aaaa:aaaa:aaaa|1|\r\n",
	  -EINVAL, 0, 0, NULL, 0, NULL },
	{ "eprt_truncated_v6", O, V6, "EPRT |2|1080::8:8", -EAGAIN, 0, 0, NULL,
	  0, NULL },
	{ "eprt_truncated_port", O, V4, "EPRT |1|10.0.0.1|20", -EAGAIN, 0, 0,
	  NULL, 0, NULL },
	{ "eprt_truncated_delim", O, V4, "EPRT |", -EAGAIN, 0, 0, NULL, 0,
	  NULL },
	{ "eprt_truncated_word", O, V4, "EPR", -EAGAIN, 0, 0, NULL, 0, NULL },
	{ "eprt_from_server", R, V4, "EPRT |1|10.0.0.1|2000|\r\n", 0, 0, 0,
	  NULL, 0, NULL },
	/* 227 */
	{ "pasv", R, V4, "227 Entering Passive Mode (192,168,1,2,19,137).\r\n",
	  1, FTP_CMD_PASV, V4, "192.168.1.2", 5001, "192,168,1,2,19,137" },
	{ "pasv_no_parens", R, V4,
	  "227 Entering Passive Mode 192,168,1,2,19,137\r\n", 1, FTP_CMD_PASV,
	  V4, "192.168.1.2", 5001, "192,168,1,2,19,137" },
	{ "pasv_equals", R, V4, "227 =10,0,0,1,4,1\r\n", 1, FTP_CMD_PASV, V4,
	  "10.0.0.1", 1025, "10,0,0,1,4,1" },
	{ "pasv_lowercase_text", R, V4,
	  "227 entering passive mode (10,0,0,1,4,1)\r\n", 1, FTP_CMD_PASV, V4,
	  "10.0.0.1", 1025, "10,0,0,1,4,1" },
	{ "pasv_bare_lf", R, V4, "227 (10,0,0,1,4,1)\n", 1, FTP_CMD_PASV, V4,
	  "10.0.0.1", 1025, "10,0,0,1,4,1" },
	{ "pasv_no_digits", R, V4, "227 Entering Passive Mode\r\n", -EINVAL, 0,
	  0, NULL, 0, NULL },
	{ "pasv_digits_next_line", R, V4, "227 Passive\r\n1,2,3,4,5,6)\r\n",
	  -EINVAL, 0, 0, NULL, 0, NULL },
	{ "pasv_truncated_text", R, V4, "227 Entering Pass", -EAGAIN, 0, 0,
	  NULL, 0, NULL },
	{ "pasv_truncated_numbers", R, V4, "227 (10,0,0,1,4", -EAGAIN, 0, 0,
	  NULL, 0, NULL },
	{ "pasv_truncated_code", R, V4, "22", -EAGAIN, 0, 0, NULL, 0, NULL },
	{ "pasv_code_only", R, V4, "227", -EAGAIN, 0, 0, NULL, 0, NULL },
	{ "pasv_seven", R, V4, "227 (10,0,0,1,4,1,7)\r\n", -EINVAL, 0, 0, NULL,
	  0, NULL },
	{ "pasv_octet_256", R, V4, "227 (10,0,0,1,4,256)\r\n", -EINVAL, 0, 0,
	  NULL, 0, NULL },
	{ "pasv_port_zero", R, V4, "227 (10,0,0,1,0,0)\r\n", -EINVAL, 0, 0,
	  NULL, 0, NULL },
	{ "pasv_continuation", R, V4, "227-Entering (10,0,0,1,4,1)\r\n", 0, 0,
	  0, NULL, 0, NULL },
	{ "pasv_other_code", R, V4, "226 Transfer complete\r\n", 0, 0, 0, NULL,
	  0, NULL },
	{ "pasv_from_client", O, V4, "227 (10,0,0,1,4,1)\r\n", 0, 0, 0, NULL,
	  0, NULL },
	/* 229 */
	{ "epsv", R, V4, "229 Entering Extended Passive Mode (|||6446|)\r\n", 1,
	  FTP_CMD_EPSV, 0, "0.0.0.0", 6446, "|||6446|" },
	{ "epsv_v6", R, V6, "229 Entering Extended Passive Mode (|||6446|)\r\n",
	  1, FTP_CMD_EPSV, 0, "0.0.0.0", 6446, "|||6446|" },
	{ "epsv_other_delim", R, V4, "229 ok (!!!6446!)\r\n", 1, FTP_CMD_EPSV,
	  0, "0.0.0.0", 6446, "!!!6446!" },
	{ "epsv_no_paren", R, V4, "229 Entering Extended Passive Mode\r\n",
	  -EINVAL, 0, 0, NULL, 0, NULL },
	{ "epsv_two_delims", R, V4, "229 (||6446|)\r\n", -EINVAL, 0, 0, NULL,
	  0, NULL },
	{ "epsv_digit_delim", R, V4, "229 (1116446)\r\n", -EINVAL, 0, 0, NULL,
	  0, NULL },
	{ "epsv_port_zero", R, V4, "229 (|||0|)\r\n", -EINVAL, 0, 0, NULL, 0,
	  NULL },
	{ "epsv_port_70000", R, V4, "229 (|||70000|)\r\n", -EINVAL, 0, 0, NULL,
	  0, NULL },
	{ "epsv_truncated", R, V4, "229 (|||64", -EAGAIN, 0, 0, NULL, 0, NULL },
	{ "epsv_truncated_paren", R, V4, "229 Entering Ext", -EAGAIN, 0, 0,
	  NULL, 0, NULL },
	{ "epsv_paren_next_line", R, V4, "229 x\r\n(|||6446|)\r\n", -EINVAL, 0,
	  0, NULL, 0, NULL },
	{ "epsv_from_client", O, V4, "229 (|||6446|)\r\n", 0, 0, 0, NULL, 0,
	  NULL },
	/* neither */
	{ "greeting", R, V4, "220 Welcome\r\n", 0, 0, 0, NULL, 0, NULL },
	{ "binary", O, V4, "\x00\xff\x80PORT\r\n", 0, 0, 0, NULL, 0, NULL },
};

/* Test texts are C strings except the ones with an embedded NUL. */
static size_t case_len(const struct parse_case *pc)
{
	if (strcmp(pc->name, "port_nul_inside") == 0)
		return sizeof("PORT 10,0\0,0,1,4,1\r\n") - 1;
	if (strcmp(pc->name, "binary") == 0)
		return sizeof("\x00\xff\x80PORT\r\n") - 1;
	return strlen(pc->text);
}

static void test_parse_case(const struct parse_case *pc)
{
	size_t len = case_len(pc);
	struct ftp_cmd cmd;
	struct check c;
	char buf[64];
	union cth_addr want;
	int ret;

	check_start(&c, "parse_%s", pc->name);
	memset(&cmd, 0xa5, sizeof(cmd));
	ret = parse_exact(pc->text, len, pc->dir, pc->family, &cmd);
	if (check_ret(&c, ret, pc->ret) && ret == 1) {
		int fam = pc->cmd_family ? pc->cmd_family : AF_INET;

		want = addr_of(fam, pc->addr);
		check_that(&c, cmd.type == pc->type, "type %d, want %d",
			   cmd.type, pc->type);
		check_that(&c, cmd.family == pc->cmd_family,
			   "family %d, want %d", cmd.family, pc->cmd_family);
		check_that(&c, memcmp(&cmd.addr, &want, sizeof(want)) == 0,
			   "address %s, want %s",
			   addr_str(fam, &cmd.addr, buf, sizeof(buf)), pc->addr);
		check_that(&c, cmd.port == pc->port, "port %u, want %u",
			   cmd.port, pc->port);
		check_that(&c, cmd.off + cmd.len <= len,
			   "match %zu+%zu past %zu", cmd.off, cmd.len, len);
		check_that(&c, cmd.len == strlen(pc->match) &&
			   cmd.off + cmd.len <= len &&
			   memcmp(pc->text + cmd.off, pc->match, cmd.len) == 0,
			   "match '%.*s', want '%s'", (int)cmd.len,
			   cmd.off + cmd.len <= len ? pc->text + cmd.off : "",
			   pc->match);
	}
	check_end(&c);
}

/* What the text must contain for the parser to decide, for prefix tests. */
static size_t decisive_len(const struct ftp_cmd *cmd)
{
	/* PORT and 227 need the byte after the numbers (the terminator). */
	if (cmd->type == FTP_CMD_PORT || cmd->type == FTP_CMD_PASV)
		return cmd->off + cmd->len + 1;
	return cmd->off + cmd->len;
}

/*
 * A command split over packets: every proper prefix of a valid command must
 * be reported as truncated, never as malformed, nothing, or a wrong match.
 */
static void test_parse_prefixes(void)
{
	struct check c;
	size_t i, k;

	check_start(&c, "parse_every_prefix_is_truncated");
	for (i = 0; i < sizeof(parse_cases) / sizeof(parse_cases[0]); i++) {
		const struct parse_case *pc = &parse_cases[i];
		size_t len = case_len(pc);
		struct ftp_cmd full, part;
		size_t need;

		if (pc->ret != 1)
			continue;
		if (parse_exact(pc->text, len, pc->dir, pc->family, &full) != 1)
			continue; /* reported by its own case */
		need = decisive_len(&full);
		for (k = 1; k <= len; k++) {
			int ret = parse_exact(pc->text, k, pc->dir, pc->family,
					      &part);

			if (k < need)
				check_that(&c, ret == -EAGAIN,
					   "%s: prefix %zu returned %d",
					   pc->name, k, ret);
			else
				check_that(&c, ret == 1 &&
					   part.port == full.port &&
					   part.off == full.off &&
					   part.len == full.len,
					   "%s: prefix %zu returned %d",
					   pc->name, k, ret);
		}
	}
	check_end(&c);
}

/*
 * Lines of 64 KiB: head, fill bytes, tail.  Rows that share a name are
 * one check.  Leading zeros never overflow, however many there are.
 */
#define HUGE (64u * 1024u)
static const struct huge_case {
	const char *name;
	const char *head;
	char fill;
	size_t fill_n;
	const char *tail;
	enum cth_dir dir;
	int family;
	int ret;
	uint16_t port;          /* when found */
} huge_cases[] = {
	{ "parse_huge_digits", "PORT ", '1', HUGE, "", O, V4, -EINVAL, 0 },
	{ "parse_huge_zeros_then_valid", "PORT ", '0', HUGE, "1,0,0,1,4,1\r\n", O, V4, 1, 1025 },
	{ "parse_huge_no_space", "PORT", 'x', HUGE, "", O, V4, -EAGAIN, 0 },
	{ "parse_huge_no_space", "PORT", 'x', HUGE - 1, "\n", O, V4, -EINVAL, 0 },
	{ "parse_huge_pasv_text", "227 ", 'x', HUGE, "", R, V4, -EAGAIN, 0 },
	{ "parse_huge_eprt_v6", "EPRT |2|", 'a', HUGE, "", O, V6, -EINVAL, 0 },
	{ "parse_huge_other_line", "", 'A', HUGE - 2, "\r\n", O, V4, 0, 0 },
	{ "parse_huge_other_line", "", 'A', HUGE - 2, "\r\n", R, V4, 0, 0 },
};

static void test_parse_huge(void)
{
	const size_t n_cases = ARRAY_LEN(huge_cases);
	struct check c;

	for (size_t i = 0; i < n_cases; i++) {
		const struct huge_case *h = &huge_cases[i];
		size_t hl = strlen(h->head), tl = strlen(h->tail), len = hl + h->fill_n + tl;
		char *big = malloc(len);
		struct ftp_cmd cmd;
		int ret;

		if (!big)
			abort();
		check_row_start(&c, h->name, i ? huge_cases[i - 1].name : NULL);
		memcpy(big, h->head, hl);
		memset(big + hl, h->fill, h->fill_n);
		memcpy(big + hl + h->fill_n, h->tail, tl);
		ret = parse_exact(big, len, h->dir, h->family, &cmd);
		check_that(&c, ret == h->ret && (ret != 1 || cmd.port == h->port),
			   "%s %zu bytes: returned %d port %u, want %d port %u",
			   h->dir == O ? "client" : "server", len, ret, ret == 1 ? cmd.port : 0,
			   h->ret, h->port);
		check_row_end(&c, h->name, i + 1 < n_cases ? huge_cases[i + 1].name : NULL);
		free(big);
	}
}

/* Valid samples the fuzzer mutates. */
static const char *const fuzz_seeds[][2] = {
	{ "O", "PORT 192,168,1,2,19,137\r\n" },
	{ "O", "EPRT |1|132.235.1.2|6275|\r\n" },
	{ "O", "EPRT |2|1080::8:800:200C:417A|5282|\r\n" },
	{ "R", "227 Entering Passive Mode (192,168,1,2,19,137).\r\n" },
	{ "R", "229 Entering Extended Passive Mode (|||6446|)\r\n" },
};

/* Up to 4 edits, the first five kinds, every chosen truncation done. */
static const struct mutate_how ftp_mutate = {
	.alphabet = "0123456789,.|()!:abcdefPORTEPRT227 9\r\n",
	.max_edits = 4,
	.n_ops = 5,
	.trunc_one_in = 0,
};

/* Whatever comes in, the result is one of the four and always in range. */
static void test_parse_fuzz(void)
{
	enum { ROUNDS = 200000, CAP = 300 };
	unsigned int counts[4] = { 0 };
	uint8_t buf[CAP];
	struct check c;
	unsigned int r;

	check_start(&c, "parse_fuzz_200k");
	for (r = 0; r < ROUNDS; r++) {
		enum cth_dir dir = rng_below(2) ? O : R;
		int family = rng_below(2) ? V4 : V6;
		struct ftp_cmd cmd;
		size_t len;
		int ret;

		if (rng_below(4) == 0) {
			size_t i;

			len = rng_below(CAP);
			for (i = 0; i < len; i++)
				buf[i] = (uint8_t)rng_next();
		} else {
			size_t s = rng_below(sizeof(fuzz_seeds) /
					     sizeof(fuzz_seeds[0]));

			len = strlen(fuzz_seeds[s][1]);
			memcpy(buf, fuzz_seeds[s][1], len);
			dir = fuzz_seeds[s][0][0] == 'O' ? O : R;
			fuzz_mutate(&ftp_mutate, buf, &len, CAP);
		}
		ret = parse_exact(buf, len, dir, family, &cmd);
		if (!check_that(&c, ret == 1 || ret == 0 || ret == -EAGAIN ||
				ret == -EINVAL, "round %u: returned %d", r, ret))
			break;
		counts[ret == 1 ? 0 : ret == 0 ? 1 : ret == -EAGAIN ? 2 : 3]++;
		if (ret != 1)
			continue;
		check_that(&c, cmd.off + cmd.len <= len && cmd.len > 0,
			   "round %u: match %zu+%zu past %zu", r, cmd.off,
			   cmd.len, len);
		check_that(&c, cmd.port != 0, "round %u: port 0", r);
		check_that(&c, cmd.type == FTP_CMD_EPSV ? cmd.family == 0 :
			   cmd.family == AF_INET || cmd.family == AF_INET6,
			   "round %u: family %d", r, cmd.family);
		check_that(&c, cmd.type != FTP_CMD_EPRT || cmd.family == family,
			   "round %u: EPRT family %d on %d", r, cmd.family,
			   family);
	}
	/* The mutations must reach every outcome, or the fuzzer is blind. */
	check_that(&c, counts[0] && counts[1] && counts[2] && counts[3],
		   "outcomes found %u, none %u, truncated %u, malformed %u",
		   counts[0], counts[1], counts[2], counts[3]);
	printf("# fuzz outcomes: found %u, none %u, truncated %u, malformed %u\n",
	       counts[0], counts[1], counts[2], counts[3]);
	check_end(&c);
}

/* ---------------------------------------------------------------- format */

/* ftp_format() of an address and port into size bytes (0: the whole
 * buffer): the text, or the error.  Rows that share a name are one
 * check. */
static const struct format_case {
	const char *name;
	enum ftp_cmd_type type;
	int family;
	const char *addr;
	uint16_t port;
	size_t size;
	int ret;                /* 0: the text's length */
	const char *text;
} format_cases[] = {
	{ "format_port", FTP_CMD_PORT, V4, "10.0.0.1", 1025, 0, 0, "10,0,0,1,4,1" },
	{ "format_port", FTP_CMD_PASV, V4, "10.0.0.1", 65535, 0, 0, "10,0,0,1,255,255" },
	{ "format_eprt", FTP_CMD_EPRT, V4, "10.0.0.1", 2000, 0, 0, "|1|10.0.0.1|2000|" },
	{ "format_eprt", FTP_CMD_EPRT, V6, "2001:db8::1", 2000, 0, 0, "|2|2001:db8::1|2000|" },
	{ "format_epsv", FTP_CMD_EPSV, V6, "2001:db8::1", 6446, 0, 0, "|||6446|" },
	{ "format_errors", FTP_CMD_PORT, V6, "2001:db8::1", 1025, 0, -EINVAL, NULL },
	{ "format_errors", FTP_CMD_EPRT, 99, NULL, 1025, 0, -EINVAL, NULL },
	{ "format_errors", FTP_CMD_PORT, V4, "10.0.0.1", 1025, 12, -ENOSPC, NULL },
	{ "format_errors", (enum ftp_cmd_type)42, V4, "10.0.0.1", 1025, 0, -EINVAL, NULL },
	/* the longest possible text fits */
	{ "format_errors", FTP_CMD_EPRT, V6, "ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe", 65535, 0, 0,
	  "|2|ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe|65535|" },
};

static void test_format(void)
{
	const size_t n_cases = ARRAY_LEN(format_cases);
	char buf[FTP_FORMAT_MAX];
	struct check c;

	for (size_t i = 0; i < n_cases; i++) {
		const struct format_case *t = &format_cases[i];
		union cth_addr a = addr_of(t->family == V6 ? V6 : V4, t->addr ? t->addr : "10.0.0.1");
		int want = t->text ? (int)strlen(t->text) : t->ret;
		int n;

		check_row_start(&c, t->name, i ? format_cases[i - 1].name : NULL);
		buf[0] = '\0';
		n = ftp_format(t->type, t->family, &a, t->port, buf, t->size ? t->size : sizeof(buf));
		check_that(&c, n == want && (!t->text || strcmp(buf, t->text) == 0),
			   "type %d family %d port %u: got %d '%s', want %d '%s'", t->type,
			   t->family, t->port, n, n > 0 ? buf : "", want, t->text ? t->text : "");
		check_row_end(&c, t->name, i + 1 < n_cases ? format_cases[i + 1].name : NULL);
	}
}

/* parse(format(x)) == x for random addresses and ports. */
static void test_format_roundtrip(void)
{
	static const char *const words[] = {
		[FTP_CMD_PORT] = "PORT ", [FTP_CMD_EPRT] = "EPRT ",
		[FTP_CMD_PASV] = "227 Entering Passive Mode (",
		[FTP_CMD_EPSV] = "229 Entering Extended Passive Mode (",
	};
	struct check c;
	unsigned int r;

	check_start(&c, "format_parse_roundtrip");
	for (r = 0; r < 20000; r++) {
		enum ftp_cmd_type type = (enum ftp_cmd_type)rng_below(4);
		int family = (type == FTP_CMD_PORT || type == FTP_CMD_PASV ||
			      rng_below(2)) ? V4 : V6;
		enum cth_dir dir = (type == FTP_CMD_PORT ||
				    type == FTP_CMD_EPRT) ? O : R;
		char text[FTP_FORMAT_MAX + 64];
		char arg[FTP_FORMAT_MAX];
		union cth_addr a;
		uint16_t port = (uint16_t)(1 + rng_below(65535));
		struct ftp_cmd cmd;
		unsigned int i;
		int n, ret;

		memset(&a, 0, sizeof(a));
		for (i = 0; i < (family == V4 ? 4u : 16u); i++)
			a.raw[i] = (uint8_t)rng_next();
		n = ftp_format(type, family, &a, port, arg, sizeof(arg));
		if (!check_that(&c, n > 0, "format returned %d", n))
			break;
		snprintf(text, sizeof(text), "%s%s%s", words[type], arg,
			 dir == O ? "\r\n" : ")\r\n");
		ret = parse_exact(text, strlen(text), dir, family, &cmd);
		if (!check_that(&c, ret == 1, "'%s' returned %d", text, ret))
			break;
		check_that(&c, cmd.type == type && cmd.port == port,
			   "'%s': type %d port %u", text, cmd.type, cmd.port);
		check_that(&c, type == FTP_CMD_EPSV ||
			   cth_addr_equal(family, &cmd.addr, &a),
			   "'%s': address differs", text);
		check_that(&c, cmd.len == (size_t)n &&
			   memcmp(text + cmd.off, arg, cmd.len) == 0,
			   "'%s': match at %zu+%zu", text, cmd.off, cmd.len);
	}
	check_end(&c);
}

/* ---------------------------------------------------------------- util */

static const struct prefix_case {
	const char *text;
	size_t len;
	const char *word;
	enum cth_prefix want;
	const char *why;
} prefix_cases[] = {
	{ "PORT 1", 6, "port", CTH_PREFIX_YES, "PORT 1" },
	{ "pOrT", 4, "PORT", CTH_PREFIX_YES, "pOrT" },
	{ "po", 2, "PORT", CTH_PREFIX_TRUNCATED, "po" },
	{ "px", 2, "PORT", CTH_PREFIX_NO, "px" },
	{ "", 0, "PORT", CTH_PREFIX_NO, "empty" },
	{ "P\0RT", 4, "PORT", CTH_PREFIX_NO, "NUL" },
	/* 0xd0 lowercases to 0xf0 in Latin-1 locales; ASCII only here */
	{ "\xd0", 1, "\xf0", CTH_PREFIX_NO, "non-ASCII" },
	{ "[", 1, "{", CTH_PREFIX_NO, "punctuation is not case" },
};

/* cth_parse_uint(text, len, max): its return, the value, the bytes used
 * (0: used passed as NULL). */
static const struct uint_case {
	const char *text;
	size_t len;
	uint32_t max;
	int ret;
	uint32_t v;
	size_t used;
	const char *why;
} uint_cases[] = {
	{ "255,", 4, 255, 0, 255, 3, "255" },
	{ "256", 3, 255, -ERANGE, 0, 1, "256" },
	{ "0", 1, 0, 0, 0, 1, "0 max 0" },
	{ "5", 1, 0, -ERANGE, 0, 1, "5 max 0" },
	{ "4294967295", 10, UINT32_MAX, 0, UINT32_MAX, 10, "UINT32_MAX" },
	{ "4294967296", 10, UINT32_MAX, -ERANGE, 0, 1, "UINT32_MAX + 1" },
	{ "42949672950", 11, UINT32_MAX, -ERANGE, 0, 1, "10 * UINT32_MAX" },
	{ "", 0, 9, -EINVAL, 0, 1, "empty" },
	{ "x1", 2, 9, -EINVAL, 0, 1, "x1" },
	{ "+1", 2, 9, -EINVAL, 0, 1, "+1" },
	{ "12345", 3, 999, 0, 123, 3, "bounded by len" },
	{ "0007x", 5, 9, 0, 7, 0, "leading zeros, used NULL" },
};

static const struct bool_case {
	const char *text;
	int ret;
	bool yes;
} bool_cases[] = {
	{ "YES", 0, true }, { "on", 0, true }, { "1", 0, true },
	{ "False", 0, false }, { "off", 0, false },
	{ "yess", -EINVAL, false }, { "ye", -EINVAL, false }, { "", -EINVAL, false },
};

static void test_util(void)
{
	union cth_addr a, b;
	char buf[CTH_ADDR_STRLEN];
	uint32_t v = 0;
	size_t used = 0;
	struct check c;
	bool yes;

	check_start(&c, "util_prefix_match");
	for (size_t i = 0; i < ARRAY_LEN(prefix_cases); i++) {
		const struct prefix_case *t = &prefix_cases[i];

		check_that(&c, cth_prefix_match(t->text, t->len, t->word) == t->want, "%s",
			   t->why);
	}
	check_end(&c);

	check_start(&c, "util_parse_uint");
	for (size_t i = 0; i < ARRAY_LEN(uint_cases); i++) {
		const struct uint_case *t = &uint_cases[i];
		int ret;

		v = 0xdeadbeef;
		used = 0;
		ret = cth_parse_uint(t->text, t->len, t->max, &v, t->used ? &used : NULL);
		check_that(&c, ret == t->ret && (ret < 0 || v == t->v) &&
			   (ret < 0 || !t->used || used == t->used), "%s: returned %d, v %u used %zu",
			   t->why, ret, v, used);
	}
	check_end(&c);

	check_start(&c, "util_line_len");
	check_that(&c, cth_line_len("ab\ncd\n", 6) == 2, "first line");
	check_that(&c, cth_line_len("abcd", 4) == 4, "no newline");
	check_that(&c, cth_line_len("abcd\n", 3) == 3, "bounded");
	check_that(&c, cth_line_len(NULL, 0) == 0, "empty");
	check_end(&c);

	check_start(&c, "util_addr_parse");
	check_that(&c, cth_addr_parse(V4, "10.0.0.1|", 8, &a) == 0 &&
		   a.ip == htonl(0x0a000001) && a.ip6[1] == 0, "10.0.0.1");
	check_that(&c, cth_addr_parse(V6, "::1]", 3, &a) == 0 &&
		   a.raw[15] == 1, "::1");
	check_that(&c, cth_addr_parse(V4, "10.0.0", 6, &a) == -EINVAL,
		   "10.0.0");
	check_that(&c, cth_addr_parse(V6, "1:::1", 5, &a) == -EINVAL, "1:::1");
	check_that(&c, cth_addr_parse(V4, "", 0, &a) == -EINVAL, "empty");
	check_that(&c, cth_addr_parse(V6,
		   "0000:0000:0000:0000:0000:0000:0000:0000:0000", 44, &a) ==
		   -EINVAL, "nine groups");
	check_that(&c, cth_addr_parse(V6,
		   "0000:0000:0000:0000:0000:0000:0000:0000:00000", 46, &a) ==
		   -EINVAL, "too long");
	check_that(&c, cth_addr_parse(V4, "1.2.3.4\0", 8, &a) == -EINVAL,
		   "embedded NUL");
	check_that(&c, cth_addr_parse(AF_UNIX, "1.2.3.4", 7, &a) ==
		   -EAFNOSUPPORT, "AF_UNIX");
	check_end(&c);

	/* IPv4 is parsed by hand: it must take exactly what inet_pton() takes */
	check_start(&c, "util_addr_parse_v4_as_inet_pton");
	{
		static const char *const texts[] = {
			"0.0.0.0", "255.255.255.255", "256.1.1.1", "1.2.3.04", "01.2.3.4",
			"1.2.3.0", "1.2.3.00", "1.2.3", "1.2.3.4.", ".1.2.3.4", "1..2.3",
			"1.2.3.4.5", "1.2.3.4 ", " 1.2.3.4", "1.2.3.-4", "1.2.3.4a",
			"1.2.3.1000", "1.2.3.255", "1.2.3.999", "0x1.2.3.4", "1.2.3.4/24",
		};
		char text[64];
		unsigned int bad = 0;

		for (unsigned int i = 0; i < 200000 && !bad; i++) {
			size_t len;
			uint8_t want[4];
			int r, w;

			if (i < sizeof(texts) / sizeof(texts[0])) {
				snprintf(text, sizeof(text), "%s", texts[i]);
			} else {
				/* short strings over the bytes that matter */
				static const char alpha[] = "0123456789..0125x";

				len = 1 + rng_below(17);
				for (size_t k = 0; k < len; k++)
					text[k] = alpha[rng_below(sizeof(alpha) - 1)];
				text[len] = '\0';
			}
			len = strlen(text);
			memset(&a, 0x5a, sizeof(a));
			r = cth_addr_parse(V4, text, len, &a);
			w = inet_pton(V4, text, want);
			if ((w == 1) != (r == 0) ||
			    (w == 1 && (memcmp(a.raw, want, 4) != 0 || a.raw[4] != 0)) ||
			    (w != 1 && a.raw[0] != 0x5a))
				bad = i + 1;
		}
		check_that(&c, !bad, "differs from inet_pton for '%s'", text);
	}
	check_end(&c);

	check_start(&c, "util_addr_format");
	a = addr_of(V6, "2001:db8::1");
	check_that(&c, cth_addr_format(V6, &a, buf, sizeof(buf)) == 11 &&
		   strcmp(buf, "2001:db8::1") == 0, "v6 '%s'", buf);
	a = addr_of(V4, "192.0.2.1");
	check_that(&c, cth_addr_format(V4, &a, buf, sizeof(buf)) == 9 &&
		   strcmp(buf, "192.0.2.1") == 0, "v4 '%s'", buf);
	check_that(&c, cth_addr_format(V4, &a, buf, 9) == -ENOSPC, "short");
	check_that(&c, cth_addr_format(AF_UNIX, &a, buf, sizeof(buf)) ==
		   -EAFNOSUPPORT, "AF_UNIX");
	/* IPv4 is written by hand: the same text as inet_ntop() */
	for (unsigned int i = 0; i < 4000; i++) {
		char want[CTH_ADDR_STRLEN];
		uint32_t x = i * 2654435761u;

		if (i < 2)
			x = i ? 0xffffffffu : 0;
		memcpy(a.raw, &x, 4);
		if (!inet_ntop(V4, a.raw, want, sizeof(want)) ||
		    cth_addr_format(V4, &a, buf, sizeof(buf)) != (int)strlen(want) ||
		    strcmp(buf, want) != 0) {
			check_that(&c, false, "v4 '%s', inet_ntop '%s'", buf, want);
			break;
		}
	}
	a = addr_of(V4, "255.255.255.255");
	strcpy(buf, "x");
	check_that(&c, cth_addr_format(V4, &a, buf, 15) == -ENOSPC &&
		   strcmp(buf, "x") == 0, "one short: untouched");
	check_that(&c, cth_addr_format(V4, &a, buf, 16) == 15 &&
		   strcmp(buf, "255.255.255.255") == 0, "exact size");
	check_end(&c);

	check_start(&c, "util_format_uint");
	{
		static const uint32_t vals[] = { 0, 1, 9, 10, 99, 100, 65535, 65536,
						 999999999, 1000000000, 4294967295u };
		char want[16];

		for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
			snprintf(want, sizeof(want), "%u", (unsigned int)vals[i]);
			check_that(&c, cth_format_uint(vals[i], buf, sizeof(buf)) ==
				   (int)strlen(want) && strcmp(buf, want) == 0,
				   "%s: '%s'", want, buf);
		}
		strcpy(buf, "x");
		check_that(&c, cth_format_uint(65535, buf, 5) == -ENOSPC &&
			   strcmp(buf, "x") == 0, "no room for the NUL: untouched");
		check_that(&c, cth_format_uint(65535, buf, 6) == 5 &&
			   strcmp(buf, "65535") == 0, "exact size");
		check_that(&c, cth_format_uint(7, buf, 0) == -ENOSPC, "size 0");
	}
	check_end(&c);

	check_start(&c, "util_addr_equal_copy");
	a = addr_of(V4, "192.0.2.1");
	b = a;
	b.raw[7] = 0x55; /* junk after an IPv4 address does not count */
	check_that(&c, cth_addr_equal(V4, &a, &b), "v4 ignores tail");
	check_that(&c, !cth_addr_equal(V6, &a, &b), "v6 sees tail");
	check_that(&c, !cth_addr_equal(AF_UNIX, &a, &a), "unknown family");
	cth_addr_copy(V4, &a, &b);
	check_that(&c, a.raw[7] == 0 && a.raw[3] == 1, "copy zeroes tail");
	check_end(&c);

	check_start(&c, "util_parse_bool");
	for (size_t i = 0; i < ARRAY_LEN(bool_cases); i++) {
		const struct bool_case *t = &bool_cases[i];
		int ret;

		yes = !t->yes;
		ret = cth_parse_bool(t->text, &yes);
		check_that(&c, ret == t->ret && (ret < 0 || yes == t->yes), "'%s': returned %d",
			   t->text, ret);
	}
	check_end(&c);
}

/* ---------------------------------------------------------------- connections */

/* The client at CLIENT_PORT has its control connection to the server's
 * port 21. */
#define CLIENT_PORT 40000
#define CLIENT4 "192.168.1.10"
#define SERVER4 "10.0.0.2"
#define CLIENT6 "2001:db8::10"
#define SERVER6 "2001:db8:1::2"

/* c is zeroed or an earlier connection: bytes the plugin kept there
 * (cth_keep(): a partial command read at a loose start) are freed. */
static void ftp_conn(struct conn *c, int family, const char *client,
		     const char *server)
{
	conn_free(c);
	conn_init(c, family, TCP, client, CLIENT_PORT, server, 21);
}

/* One packet, exactly as given: with no line start known for dir (a new
 * connection, lost state) it is not parsed. */
static int run_raw(struct plugrun *f, struct conn *c, enum cth_dir dir, uint32_t seq,
		   const char *text)
{
	return run_ctinfo(f, c, dir, established(dir), seq, text, strlen(text));
}

/* Offsets in the state (docs/plugins/ftp.md, "Per-connection state"). */
#define FTP_PRIV_NL_NUM 16u
#define FTP_PRIV_VERSION_OFF 18u

/*
 * One packet of a session under way: when no line start is known yet
 * for dir, a line ending right before seq goes first (what a session's
 * greeting or login would have been), so the packet starts a known line.
 * Tests of the state's own rules use run_raw().
 */
static int run(struct plugrun *f, struct conn *c, enum cth_dir dir, uint32_t seq,
	       const char *text)
{
	if (c->priv[FTP_PRIV_VERSION_OFF] == 0 || c->priv[FTP_PRIV_NL_NUM + dir] == 0)
		run_raw(f, c, dir, seq - 6u, dir == O ? "NOOP\r\n" : "200 x\n");
	return run_raw(f, c, dir, seq, text);
}

/* One expectation, checked field by field. */
static void check_exp(struct check *ck, const struct plugrun *f, unsigned int i,
		      int family, const char *src, const char *dst,
		      uint16_t dport)
{
	const struct cth_expect *e = &f->exp[i];
	union cth_addr want_src = addr_of(family, src);
	union cth_addr want_dst = addr_of(family, dst);
	char b1[64], b2[64];

	check_that(ck, i < f->n_exp, "no expectation %u (have %u)", i,
		   f->n_exp);
	check_that(ck, e->class == 0 && e->family == family &&
		   e->proto == IPPROTO_TCP && e->sport == 0,
		   "class %u family %u proto %u sport %u", e->class, e->family,
		   e->proto, e->sport);
	check_that(ck, memcmp(&e->src, &want_src, sizeof(want_src)) == 0,
		   "src %s, want %s", addr_str(family, &e->src, b1, sizeof(b1)),
		   src);
	check_that(ck, memcmp(&e->dst, &want_dst, sizeof(want_dst)) == 0,
		   "dst %s, want %s", addr_str(family, &e->dst, b2, sizeof(b2)),
		   dst);
	check_that(ck, e->dport == dport, "dport %u, want %u", e->dport,
		   dport);
}

static void check_plain_exp(struct check *ck, const struct plugrun *f)
{
	check_that(ck, f->n_exp == 1, "%u expectations", f->n_exp);
	check_that(ck, f->exp[0].flags == 0 && f->exp_how[0] == 0 &&
		   f->exp_fn[0][0] == '\0',
		   "flags %#x how %#x fn '%s'", f->exp[0].flags, f->exp_how[0],
		   f->exp_fn[0]);
	check_that(ck, f->n_mangle == 0, "mangled without NAT");
}

static void check_nat_exp(struct check *ck, const struct plugrun *f,
			  unsigned int i, enum cth_dir nat_dir, int family,
			  const char *nat_addr, uint16_t nat_port)
{
	const struct cth_expect *e = &f->exp[i];
	union cth_addr want = addr_of(family, nat_addr);
	char b[64];

	check_that(ck, (e->flags & CTH_EXPECT_NAT) &&
		   !(e->flags & CTH_EXPECT_ANY_SRC),
		   "exp %u flags %#x", i, e->flags);
	check_that(ck, f->exp_how[i] == CTH_EXPECT_SYNC, "exp %u how %#x", i,
		   f->exp_how[i]);
	check_that(ck, strcmp(f->exp_fn[i], CTH_EXPECT_FN_NAT_FOLLOW_MASTER) == 0,
		   "exp %u fn '%s'", i, f->exp_fn[i]);
	check_that(ck, e->nat_dir == nat_dir, "exp %u nat_dir %d", i,
		   e->nat_dir);
	check_that(ck, memcmp(&e->nat_addr, &want, sizeof(want)) == 0,
		   "exp %u nat_addr %s, want %s", i,
		   addr_str(family, &e->nat_addr, b, sizeof(b)), nat_addr);
	check_that(ck, e->nat_port == nat_port, "exp %u nat_port %u", i,
		   e->nat_port);
}

/* ---------------------------------------------------------------- sessions */

/*
 * One packet of a session and what it must give: the verdict ('A'ccept,
 * 'D'rop, 0: not checked), the number of expectations (-1: not checked),
 * the first one's port (0: not checked), a log line when logs is set.
 */
struct ftp_step {
	enum cth_dir dir;
	uint32_t seq;
	const char *text;
	char verdict;
	int n_exp;
	uint16_t dport;
	bool logs;
};

/* A step with its verdict and expectations checked; with the first
 * expectation's port; that must say why it drops; that only sets the
 * scene (nothing checked). */
#define STEP(d, s, t, v, n)             { d, s, t, v, n, 0, false }
#define STEP_PORT(d, s, t, v, n, p)     { d, s, t, v, n, p, false }
#define STEP_LOGS(d, s, t, v, n)        { d, s, t, v, n, 0, true }
#define SCENE(d, s, t)                  { d, s, t, 0, -1, 0, false }

/* What the kernel side answers during a case (plugrun.h). */
struct ftp_answers {
	unsigned int busy_left;
	int busy_err, expect_err, mangle_err;
};

/*
 * A session on one connection between CLIENT and SERVER of family (plain,
 * or loose = yes), step by step, each packet made to start a known line
 * (run()) unless raw; then, when src is set, the last packet's one
 * expectation: plain, from src to dst:port.  No host rule is broken.
 */
struct ftp_session {
	const char *name;
	int family;
	bool loose, raw;
	struct ftp_answers answers;
	struct ftp_step steps[9];       /* up to the first without text */
	const char *src, *dst;
	uint16_t port;
};

static void answers_set(struct plugrun *f, const struct ftp_answers *a)
{
	f->busy_left = a->busy_left;
	f->busy_err = a->busy_err;
	f->expect_err = a->expect_err;
	f->mangle_err = a->mangle_err;
}

static void check_step(struct check *ck, const struct plugrun *f, unsigned int i,
		       const struct ftp_step *s, int v)
{
	int want = s->verdict == 'A' ? CTH_VERDICT_ACCEPT : CTH_VERDICT_DROP;
	/* the step's first line, for the why */
	int n = (int)strcspn(s->text, "\r\n");

	check_that(ck, !s->verdict || v == want, "step %u '%.*s': verdict %d, want %c", i, n,
		   s->text, v, s->verdict);
	check_that(ck, s->n_exp < 0 || f->n_exp == (unsigned int)s->n_exp,
		   "step %u '%.*s': %u expectations, want %d", i, n, s->text, f->n_exp, s->n_exp);
	check_that(ck, !s->dport || (f->n_exp && f->exp[0].dport == s->dport),
		   "step %u '%.*s': port %u, want %u", i, n, s->text,
		   f->n_exp ? f->exp[0].dport : 0, s->dport);
	check_that(ck, !s->logs || f->n_log > 0, "step %u '%.*s': not logged", i, n, s->text);
}

static void session_run(struct check *ck, struct plugrun *f, const struct ftp_session *t)
{
	bool v4 = t->family == V4;
	struct conn c = { 0 };
	int v;

	ftp_conn(&c, t->family, v4 ? CLIENT4 : CLIENT6, v4 ? SERVER4 : SERVER6);
	if (t->loose)
		conn_configure(&c, "loose", "yes");
	answers_set(f, &t->answers);
	for (unsigned int i = 0; i < ARRAY_LEN(t->steps) && t->steps[i].text; i++) {
		const struct ftp_step *s = &t->steps[i];

		v = t->raw ? run_raw(f, &c, s->dir, s->seq, s->text) :
			     run(f, &c, s->dir, s->seq, s->text);
		check_step(ck, f, i, s, v);
		check_clean(ck, f);
	}
	plugrun_answers_reset(f);
	if (t->src) {
		check_plain_exp(ck, f);
		check_exp(ck, f, 0, t->family, t->src, t->dst, t->port);
	}
	conn_free(&c);
}

static void sessions_run(struct plugrun *f, const struct ftp_session *t, size_t n)
{
	struct check ck;

	for (size_t i = 0; i < n; i++) {
		check_row_start(&ck, t[i].name, i ? t[i - 1].name : NULL);
		session_run(&ck, f, &t[i]);
		check_row_end(&ck, t[i].name, i + 1 < n ? t[i + 1].name : NULL);
	}
}

#define PORT1 "PORT 192,168,1,10,19,137\r\n"    /* 26 bytes, port 5001 */
#define PORT2 "PORT 192,168,1,10,19,138\r\n"    /* port 5002 */

/* Each announcement form gives its expectation. */
static const struct ftp_session port_sessions[] = {
	{ "plugin_port_expectation", V4, .steps = {
		STEP(O, 1000, "USER anonymous\r\n", 'A', 0),
		STEP(O, 1016, PORT1, 'A', -1) },
	  .src = SERVER4, .dst = CLIENT4, .port = 5001 },
	{ "plugin_after_first_line", V4, .steps = {
		STEP(O, 77, "port 192,168,1,10,19,137\r\n", 'A', -1) },
	  .src = SERVER4, .dst = CLIENT4, .port = 5001 },
	{ "plugin_pasv_expectation", V4, .steps = {
		SCENE(R, 5000, "220 ready\r\n"),
		STEP(R, 5011, "227 Entering Passive Mode (10,0,0,2,200,10).\r\n", 'A', -1) },
	  .src = CLIENT4, .dst = SERVER4, .port = 51210 },
	{ "plugin_epsv_expectation_v4", V4, .steps = {
		STEP(R, 5000, "229 Entering Extended Passive Mode (|||50000|)\r\n", 'A', -1) },
	  .src = CLIENT4, .dst = SERVER4, .port = 50000 },
	{ "plugin_epsv_expectation_v6", V6, .steps = {
		STEP(R, 5000, "229 Entering Extended Passive Mode (|||50000|)\r\n", 'A', -1) },
	  .src = CLIENT6, .dst = SERVER6, .port = 50000 },
	{ "plugin_eprt_expectation_v6", V6, .steps = {
		STEP(O, 1, "EPRT |2|2001:DB8::10|50001|\r\n", 'A', -1) },
	  .src = SERVER6, .dst = CLIENT6, .port = 50001 },
	{ "plugin_eprt_expectation_v4", V4, .steps = {
		STEP(O, 1, "EPRT |1|192.168.1.10|50001|\r\n", 'A', -1) },
	  .src = SERVER4, .dst = CLIENT4, .port = 50001 },
};

/* Addresses that are not the client's, the wrong family, the kernel's
 * refusal. */
static const struct ftp_session address_sessions[] = {
	{ "plugin_foreign_address_ignored", V4, .steps = {
		STEP(O, 1, "PORT 10,9,8,7,19,137\r\n", 'A', 0) } },
	{ "plugin_foreign_address_ignored", V6, .steps = {
		STEP(R, 1, "EPRT |2|2001:db8::99|50001|\r\n", 'A', 0),       /* from the server */
		STEP(O, 1, "EPRT |2|2001:db8::99|50001|\r\n", 'A', 0) } },
	{ "plugin_foreign_address_loose", V4, .loose = true, .steps = {
		STEP(O, 1, "PORT 10,9,8,7,19,137\r\n", 'A', -1) },
	  .src = SERVER4, .dst = "10.9.8.7", .port = 5001 },
	{ "plugin_foreign_address_loose", V6, .loose = true, .steps = {
		SCENE(R, 1, "220 hi\r\n"),
		SCENE(O, 1, "EPRT |2|2001:db8::99|50001|\r\n") },
	  .src = SERVER6, .dst = "2001:db8::99", .port = 50001 },
	{ "plugin_port_on_ipv6_ignored", V6, .loose = true, .steps = {
		STEP(O, 1, PORT1, 'A', 0) } },
	{ "plugin_eprt_wrong_family_dropped", V4, .steps = {
		STEP(O, 1, "EPRT |2|2001:db8::10|50001|\r\n", 'D', 0) } },
	{ "plugin_expect_error_drops", V4, .answers = { .expect_err = -ENOSPC }, .steps = {
		STEP(O, 1, PORT1, 'D', 1) } },
};

/* Only a line start is parsed: the state remembers where lines start. */
static const struct ftp_session line_sessions[] = {
	{ "plugin_mid_line_not_parsed", V4, .steps = {
		SCENE(O, 100, "USER a\r\n"),                /* -> 108 */
		SCENE(O, 108, "PASS no-newline-yet"),       /* 19 bytes */
		STEP(O, 127, PORT1, 'A', 0),                      /* mid-line */
		STEP_PORT(O, 127 + 26, PORT2, 'A', 1, 5002) } },       /* line start */
	{ "plugin_only_first_line_parsed", V4, .steps = {
		STEP(O, 100, "NOOP\r\n" PORT1, 'A', 0) } },
	{ "plugin_directions_independent", V4, .steps = {
		SCENE(O, 100, "USER a\r\n"),                /* client: 100, 108 */
		SCENE(R, 9000, "220 hi\r\n"),               /* server: 9000, 9008 */
		STEP(R, 108, "227 (10,0,0,2,200,10)\r\n", 'A', 0),
		STEP(R, 9008, "227 (10,0,0,2,200,10)\r\n", 0, 1) } },
	{ "plugin_two_line_starts_remembered", V4, .steps = {
		SCENE(O, 100, "USER a\r\n"),                /* {100, 108} */
		SCENE(O, 108, "PASS b\r\n"),                /* {116, 108} */
		SCENE(O, 116, "NOOP\r\n"),                  /* {116, 122} */
		STEP(O, 108, PORT1, 0, 0),                        /* forgotten: oldest evicted */
		/* like the kernel, that packet's end (134) is still recorded,
		 * replacing the older 116: {134, 122} */
		STEP(O, 122, PORT1, 0, 1),                        /* {134, 148} */
		/* an old retransmission ending in \n must not evict newer starts */
		SCENE(O, 100, "USER a\r\n"),
		STEP(O, 108, PORT2, 0, 0),
		STEP(O, 148, PORT2, 'A', 1) } },
	{ "plugin_seq_wraparound", V4, .steps = {
		SCENE(O, 0xfffffffcu, "USER a\r\n"),        /* next: 4 */
		SCENE(O, 4, "PASS b\r\n"),                  /* next: 12, evicts the first */
		STEP(O, 12, PORT1, 0, 1),
		STEP(O, 0xfffffffcu, PORT2, 0, 0) } },            /* the pre-wrap start kept */
	{ "plugin_retransmission_reexpects", V4, .steps = {
		SCENE(O, 100, PORT1),
		STEP(O, 100, PORT1, 'A', 1) } },
};

/* The kernel does not reassemble: a split command is dropped, and the
 * sender's retransmission (normally carrying the whole line) is parsed. */
static const struct ftp_session split_sessions[] = {
	{ "plugin_split_command_dropped_then_retransmitted", V4, .steps = {
		SCENE(O, 100, "USER a\r\n"),
		STEP(O, 108, "PORT 192,168,1,10,", 'D', 0),
		STEP(O, 126, "19,137\r\n", 'A', 0),
		STEP_PORT(O, 108, PORT1, 'A', 1, 5001) } },
	{ "plugin_split_keyword_dropped", V4, .steps = {
		SCENE(O, 100, "USER a\r\n"),
		STEP(O, 108, "PO", 'D', -1),
		STEP(O, 108, PORT1, 'A', 1) } },
	/* the drop does not record 120: a line starting there is mid-line */
	/* the dropped line's state is not stored: the packet after it
	 * comes after a line start the plugin knows and holds one line, so
	 * it is read as after skipped packets (a filtering kernel module,
	 * issue 34) */
	{ "plugin_malformed_dropped_line_kept", V4, .steps = {
		SCENE(O, 100, "USER a\r\n"),
		STEP_LOGS(O, 108, "PORT 1,2,3\r\n", 'D', 0),
		STEP(O, 120, PORT1, 0, 1) } },
};

/*
 * Failover (issue 18): conntrackd gives the backup the helper's name but
 * not its state, which the kernel zeroes.  The plugin then knows no line
 * start: the first packet of each direction is picked up if it is a whole
 * announcement (often the PORT is the first command after a failover);
 * otherwise nothing is parsed until a packet ending in '\n' shows where
 * the next line starts.  And state that lags the stream.
 */
static const struct ftp_session failover_sessions[] = {
	{ "plugin_failover_zero_state_port_picked_up", V4, .raw = true, .steps = {
		STEP_PORT(O, 70000, PORT1, 'A', 1, 5001),
		STEP_PORT(O, 70026, PORT2, 'A', 1, 5002) } },
	/* the second half of a line split before the failover: not acted
	 * upon, not dropped; the line after it is parsed */
	{ "plugin_failover_mid_line_then_next_line", V4, .raw = true, .steps = {
		STEP(O, 500, "1,10,19,137\r\n", 'A', 0),         /* 13 bytes */
		STEP(O, 513, "NOOP\r\n", 'A', 0),
		STEP(O, 519, PORT2, 'A', 1) } },
	/* a packet not ending in '\n' uses the pickup and gives no line
	 * start: the next packet, which may continue that line, is not
	 * parsed even if it looks like a command */
	{ "plugin_failover_partial_line_no_resync", V4, .raw = true, .steps = {
		SCENE(O, 10, "STOR name-without-end"),      /* 21 bytes */
		STEP(O, 31, PORT1, 0, 0),
		STEP(O, 57, PORT2, 'A', 1) } },
	/* a half command (would be dropped at a line start) passes untouched:
	 * dropping what may be mid-line could stall a session for nothing */
	{ "plugin_failover_partial_command_passes", V4, .raw = true, .steps = {
		STEP(O, 10, "PORT 192,168,1,10,", 'A', 0) } },
	/* each direction picks up and resynchronises on its own */
	{ "plugin_failover_directions", V4, .raw = true, .steps = {
		SCENE(O, 100, "TYPE I\r\n"),                /* client: 108 */
		STEP(R, 9000, "227 (10,0,0,2,200,10)\r\n", 0, 1), /* the server's first */
		STEP(O, 108, PORT1, 0, 1),
		STEP_PORT(R, 9023, "227 (10,0,0,2,200,11)\r\n", 'A', 1, 51211) } },
	/* stale state: line starts of an older packet (behind) are simply not
	 * this packet's; the stream's own are recorded again */
	/* state that lags: a packet of one line ahead of every known line
	 * start, the last packet seen having ended one, is read as after
	 * skipped packets (issue 34); one of two lines is not */
	{ "plugin_stale_state_behind", V4, .steps = {
		SCENE(O, 100, "USER a\r\n"),                /* {100, 108} */
		STEP(O, 50000, PORT1, 0, 1),                      /* state lags */
		STEP(O, 50026, PORT2, 0, 1) } },
	{ "plugin_stale_state_behind_two_lines", V4, .steps = {
		SCENE(O, 100, "USER a\r\n"),
		STEP(O, 50000, "NOOP\r\n" PORT1, 0, 0),
		STEP(O, 50032, PORT2, 0, 1) } },
	/* issue 34: what a filtering kernel module shows the plugin */
	{ "plugin_filter_skipped_then_port", V4, .steps = {
		SCENE(O, 100, "USER a\r\n"),
		STEP(O, 400, PORT1, 0, 1),                  /* 108..400 skipped */
		STEP(O, 480, PORT2, 0, 1) } },
	{ "plugin_filter_skipped_retransmission", V4, .steps = {
		SCENE(O, 100, "USER a\r\n"),
		STEP(O, 400, PORT1, 0, 1),
		STEP(O, 400, PORT1, 0, 1) } },              /* read again */
	{ "plugin_filter_open_line_not_read", V4, .steps = {
		SCENE(O, 100, "STOR x"),                    /* ends inside a line */
		STEP(O, 300, PORT1, 0, 0) } },
	/* a retransmission of older bytes (line starts just ahead of it)
	 * keeps the recorded line starts */
	{ "plugin_retransmission_keeps_line_starts", V4, .steps = {
		SCENE(O, 100, "USER a\r\n"),
		SCENE(O, 108, "PASS b\r\n"),                /* {116, 108} */
		SCENE(O, 100, "USER a\r\n"),                /* again */
		STEP(O, 116, PORT1, 0, 1) } },
};

/* ---------------------------------------------------------------- NAT */

/*
 * One announcement on a NATed connection (client: CLIENT4 unless set;
 * snat or dnat the public address) and what it must give: the verdict,
 * the number of expectations (MANY: more than one, at most the record's
 * bound), of edits (-1: not checked), the edit when edit_len is set, the
 * payload sent (NULL: not checked).  When dst is set, the last
 * expectation is from src to dst:port, and every try before it one port
 * below the next, all mapped back to nat_addr:nat_port in nat_dir.
 */
#define MANY (-2)
struct ftp_nat_case {
	const char *name;
	int family;
	const char *client, *snat, *dnat;
	struct ftp_answers answers;
	enum cth_dir dir;
	const char *text;
	char verdict;
	int n_exp, n_mangle;
	size_t edit_off, edit_len;
	const char *src, *dst;
	uint16_t port;
	enum cth_dir nat_dir;
	const char *nat_addr;
	uint16_t nat_port;
	const char *out;
};

static const struct ftp_nat_case nat_cases[] = {
	{ "plugin_nat_port_mangled", V4, .snat = "203.0.113.5", .dir = O, .text = PORT1,
	  .verdict = 'A', .n_exp = 1, .n_mangle = 1, .edit_off = 5, .edit_len = 19,
	  .src = SERVER4, .dst = "203.0.113.5", .port = 5001,
	  .nat_dir = R, .nat_addr = CLIENT4, .nat_port = 5001,
	  .out = "PORT 203,0,113,5,19,137\r\n" },
	{ "plugin_nat_busy_tries_next_port", V4, .snat = "203.0.113.5",
	  .answers = { .busy_left = 3 }, .dir = O, .text = PORT1,
	  .verdict = 'A', .n_exp = 4, .n_mangle = -1,
	  .src = SERVER4, .dst = "203.0.113.5", .port = 5004,
	  .nat_dir = R, .nat_addr = CLIENT4, .nat_port = 5001,
	  .out = "PORT 203,0,113,5,19,140\r\n" },
	{ "plugin_nat_eexist_tries_next_port", V4, .snat = "203.0.113.5",
	  .answers = { .busy_left = 1, .busy_err = -EEXIST }, .dir = O, .text = PORT1,
	  .verdict = 'A', .n_exp = 2, .n_mangle = -1,
	  .out = "PORT 203,0,113,5,19,138\r\n" },
	{ "plugin_nat_no_free_port_drops", V4, .snat = "203.0.113.5",
	  .answers = { .busy_left = 100000 }, .dir = O, .text = PORT1,
	  .verdict = 'D', .n_exp = MANY, .n_mangle = 0 },
	{ "plugin_nat_port_search_stops_at_65535", V4, .snat = "203.0.113.5",
	  .answers = { .busy_left = 100000 }, .dir = O, .text = "PORT 192,168,1,10,255,253\r\n",
	  .verdict = 'D', .n_exp = 3, .n_mangle = -1 },
	{ "plugin_nat_expect_error_drops", V4, .snat = "203.0.113.5",
	  .answers = { .expect_err = -ENOMEM }, .dir = O, .text = PORT1,
	  .verdict = 'D', .n_exp = 1, .n_mangle = 0 },
	{ "plugin_nat_mangle_error_drops", V4, .snat = "203.0.113.5",
	  .answers = { .mangle_err = -ENOMEM }, .dir = O, .text = PORT1,
	  .verdict = 'D', .n_exp = -1, .n_mangle = 1 },
	{ "plugin_nat_pasv_dnat", V4, .client = "192.0.2.7", .dnat = "198.51.100.1",
	  .dir = R, .text = "227 Entering Passive Mode (10,0,0,2,200,10).\r\n",
	  .verdict = 'A', .n_exp = 1, .n_mangle = -1,
	  .src = "192.0.2.7", .dst = "198.51.100.1", .port = 51210,
	  .nat_dir = O, .nat_addr = SERVER4, .nat_port = 51210,
	  .out = "227 Entering Passive Mode (198,51,100,1,200,10).\r\n" },
	{ "plugin_nat_epsv", V4, .client = "192.0.2.7", .dnat = "198.51.100.1",
	  .answers = { .busy_left = 1 }, .dir = R, .text = "229 Extended Passive (|||50000|)\r\n",
	  .verdict = 'A', .n_exp = 2, .n_mangle = -1,
	  .src = "192.0.2.7", .dst = "198.51.100.1", .port = 50001,
	  .nat_dir = O, .nat_addr = SERVER4, .nat_port = 50000,
	  .out = "229 Extended Passive (|||50001|)\r\n" },
	{ "plugin_nat_eprt_v6", V6, .snat = "2001:db8:ffff::1",
	  .dir = O, .text = "EPRT |2|2001:db8::10|50001|\r\n",
	  .verdict = 'A', .n_exp = 1, .n_mangle = -1,
	  .src = SERVER6, .dst = "2001:db8:ffff::1", .port = 50001,
	  .nat_dir = R, .nat_addr = CLIENT6, .nat_port = 50001,
	  .out = "EPRT |2|2001:db8:ffff::1|50001|\r\n" },
	{ "plugin_nat_eprt_v4", V4, .snat = "203.0.113.5",
	  .dir = O, .text = "eprt !1!192.168.1.10!2000!\r\n",
	  .verdict = 'A', .n_exp = 1, .n_mangle = -1,
	  .out = "eprt |1|203.0.113.5|2000|\r\n" },
	{ "plugin_nat_foreign_address_ignored", V4, .snat = "203.0.113.5",
	  .dir = O, .text = "PORT 10,9,8,7,19,137\r\n",
	  .verdict = 'A', .n_exp = 0, .n_mangle = 0 },
};

static void check_nat_case(struct check *ck, const struct plugrun *f,
			   const struct ftp_nat_case *t, int v)
{
	unsigned int last = f->n_exp - 1;
	bool many = t->n_exp == MANY;

	check_that(ck, v == (t->verdict == 'A' ? CTH_VERDICT_ACCEPT : CTH_VERDICT_DROP),
		   "verdict %d, want %c", v, t->verdict);
	check_that(ck, many ? f->n_exp > 1 && f->n_exp <= PLUGRUN_MAX_EXP :
		   t->n_exp < 0 || f->n_exp == (unsigned int)t->n_exp,
		   "%u expectations, want %d", f->n_exp, t->n_exp);
	check_that(ck, t->n_mangle < 0 || f->n_mangle == (unsigned int)t->n_mangle,
		   "%u edits, want %d", f->n_mangle, t->n_mangle);
	check_that(ck, !t->edit_len || (f->n_edit == 1 && f->edit[0].off == t->edit_off &&
					f->edit[0].len == t->edit_len),
		   "%u edits, at %zu+%zu", f->n_edit, f->edit[0].off, f->edit[0].len);
	if (t->out)
		check_out(ck, f, t->out);
	if (!t->dst || !f->n_exp)
		return;
	check_exp(ck, f, last, t->family, t->src, t->dst, t->port);
	for (unsigned int i = 0; i <= last && i < PLUGRUN_MAX_EXP; i++) {
		check_that(ck, f->exp[i].dport == t->port - (last - i), "try %u port %u", i,
			   f->exp[i].dport);
		check_nat_exp(ck, f, i, t->nat_dir, t->family, t->nat_addr, t->nat_port);
	}
}

/* ---------------------------------------------------------------- plugin */

static void test_plugin_desc(void)
{
	const struct cth_plugin_desc *d = &cth_plugin;
	struct conn c = { 0 };
	struct check ck;

	check_start(&ck, "plugin_descriptor");
	check_that(&ck, d->abi_version == CTH_ABI_VERSION &&
		   d->size == sizeof(*d), "abi %u size %u", d->abi_version,
		   d->size);
	check_that(&ck, strcmp(d->name, "ftp") == 0, "name %s", d->name);
	check_that(&ck, d->protocols == CTH_PROTO_TCP, "protocols %#x",
		   d->protocols);
	check_that(&ck, d->families == (CTH_FAMILY_IPV4 | CTH_FAMILY_IPV6),
		   "families %#x", d->families);
	check_that(&ck, d->priv_size > 0 && d->priv_size <= CTH_PRIV_MAX,
		   "priv_size %zu", d->priv_size);
	check_that(&ck, d->config_size <= sizeof(c.cfg), "config_size %zu",
		   d->config_size);
	check_that(&ck, d->n_classes == 1 && strcmp(d->classes[0].name,
						    "ftp") == 0 &&
		   d->classes[0].max == 1 && d->classes[0].timeout == 300,
		   "class %s max %u timeout %u", d->classes[0].name,
		   d->classes[0].max, d->classes[0].timeout);
	/* SDK 3: declared keys (no configure()), counters, state version */
	check_that(&ck, d->packet && !d->configure, "callbacks");
	check_that(&ck, d->n_keys == 2 && plug_key("loose") && plug_key("ports") &&
		   (plug_key("ports")->flags & CTH_KEY_RULE_PORTS), "%u keys", d->n_keys);
	check_that(&ck, d->n_counters == 4, "%u counters", d->n_counters);
	check_that(&ck, d->priv_version == 1 && d->priv_version_at == 18 && d->priv_valid,
		   "state version %u at %u", d->priv_version, d->priv_version_at);
	check_end(&ck);

	/* through the daemon's parser of declared keys (conn_configure()) */
	check_start(&ck, "plugin_configure");
	ftp_conn(&c, V4, CLIENT4, SERVER4);
	check_that(&ck, conn_configure(&c, "loose", "yes") == 0 &&
		   *(const bool *)conn_key_at(&c, "loose"), "loose=yes");
	check_that(&ck, conn_configure(&c, "loose", "no") == 0 &&
		   !*(const bool *)conn_key_at(&c, "loose"), "loose=no");
	check_that(&ck, conn_configure(&c, "loose", "maybe") == -EINVAL,
		   "loose=maybe");
	check_that(&ck, conn_configure(&c, "loose", "") == -EINVAL, "loose empty");
	/* the port --print-rules attaches the helper to, since SDK 3 */
	check_that(&ck, conn_configure(&c, "ports", "21,2121") == 0, "ports");
	check_that(&ck, conn_configure(&c, "ports", "0") == -EINVAL, "ports 0");
	check_that(&ck, conn_configure(&c, "ports", "ftp") == -EINVAL, "ports word");
	check_that(&ck, conn_configure(&c, "port", "21") == -ENOENT, "unknown key");
	check_that(&ck, conn_configure(&c, "rule_ports", "21") == -ENOENT, "daemon key");
	check_end(&ck);

	check_start(&ck, "plugin_configure_defaults");
	ftp_conn(&c, V4, CLIENT4, SERVER4);
	{
		char ports[64];

		check_that(&ck, !*(const bool *)conn_key_at(&c, "loose"), "loose default yes");
		check_that(&ck, strcmp(conn_ports_str(&c, "ports", ports, sizeof(ports)), "21") == 0,
			   "ports default %s", ports);
	}
	check_end(&ck);
}

static void test_plugin_port(struct plugrun *f)
{
	sessions_run(f, port_sessions, ARRAY_LEN(port_sessions));
}

static void test_plugin_address_checks(struct plugrun *f)
{
	struct check ck;
	struct conn c = { 0 };
	int v;

	sessions_run(f, address_sessions, ARRAY_LEN(address_sessions));

	check_start(&ck, "plugin_not_established_ignored");
	ftp_conn(&c, V4, CLIENT4, SERVER4);
	v = run_ctinfo(f, &c, O, CTH_CT_NEW, 1, "PORT 192,168,1,10,19,137\r\n",
		       26);
	check_that(&ck, v == CTH_VERDICT_ACCEPT && f->n_exp == 0,
		   "NEW: verdict %d, %u expectations", v, f->n_exp);
	v = run_ctinfo(f, &c, O, CTH_CT_RELATED, 1,
		       "PORT 192,168,1,10,19,137\r\n", 26);
	check_that(&ck, v == CTH_VERDICT_ACCEPT && f->n_exp == 0,
		   "RELATED: verdict %d, %u expectations", v, f->n_exp);
	{
		static const uint8_t zero[CTH_PRIV_MAX];

		check_that(&ck, memcmp(c.priv, zero, sizeof(zero)) == 0,
			   "state touched");
	}
	check_end(&ck);

	/* the host's rule refuses for good: the PORT passes (a dropped one
	 * would be dropped again at each retransmission), nothing opens */
	check_start(&ck, "plugin_host_refusal_passes");
	ftp_conn(&c, V4, CLIENT4, SERVER4);
	conn_configure(&c, "loose", "yes");
	check_that(&ck, conn_expect_networks(&c, "192.0.2.0/24") == 0, "expect_networks");
	v = run(f, &c, O, 1, "PORT 10,9,8,7,19,137\r\n");
	check_that(&ck, v == CTH_VERDICT_ACCEPT && f->n_exp == 1 && f->n_refused == 1 &&
		   f->exp_rc[0] == -EPERM && f->n_log > 0,
		   "verdict %d, %u asked, %u refused", v, f->n_exp, f->n_refused);
	check_clean(&ck, f);
	check_end(&ck);
	conn_free(&c);
}

static void test_plugin_line_starts(struct plugrun *f)
{
	sessions_run(f, line_sessions, ARRAY_LEN(line_sessions));
}

static void test_plugin_split(struct plugrun *f)
{
	sessions_run(f, split_sessions, ARRAY_LEN(split_sessions));
}

/* The state is plain data: copied out and back (a daemon restart, the
 * kernel keeping it meanwhile) it works the same, at any alignment. */
static void test_plugin_restart(struct plugrun *f)
{
	uint8_t saved[CTH_PRIV_MAX];
	uint8_t twin[CTH_PRIV_MAX];
	struct conn c = { 0 }, d = { 0 };
	struct check ck;
	int v;

	check_start(&ck, "plugin_state_survives_restart");
	ftp_conn(&c, V4, CLIENT4, SERVER4);
	run(f, &c, O, 100, "USER a\r\n");
	run(f, &c, O, 108, "PASS b\r\n");
	memcpy(saved, c.priv, sizeof(saved));
	memset(c.priv, 0xee, sizeof(c.priv)); /* the daemon's memory is gone */
	d = c;
	memset(d.priv, 0, sizeof(d.priv));
	memcpy(d.priv, saved, cth_plugin.priv_size);
	v = run(f, &d, O, 116, "PORT 192,168,1,10,19,137\r\n");
	check_that(&ck, v == CTH_VERDICT_ACCEPT && f->n_exp == 1,
		   "restored: %u expectations", f->n_exp);
	/* Restored state still knows what is mid-line. */
	v = run(f, &d, O, 130, "PORT 192,168,1,10,19,137\r\n");
	check_that(&ck, f->n_exp == 0, "restored mid-line: %u expectations",
		   f->n_exp);
	check_end(&ck);

	check_start(&ck, "plugin_state_deterministic");
	ftp_conn(&c, V4, CLIENT4, SERVER4);
	ftp_conn(&d, V4, CLIENT4, SERVER4);
	run(f, &c, O, 100, "USER a\r\n");
	run(f, &c, R, 7, "220 x\r\n");
	memcpy(twin, c.priv, sizeof(twin));
	run(f, &d, O, 100, "USER a\r\n");
	run(f, &d, R, 7, "220 x\r\n");
	check_that(&ck, memcmp(twin, d.priv, sizeof(twin)) == 0,
		   "same packets, different state");
	check_that(&ck, memcmp(twin + cth_plugin.priv_size,
			       (uint8_t[CTH_PRIV_MAX]){ 0 },
			       CTH_PRIV_MAX - cth_plugin.priv_size) == 0,
		   "wrote past priv_size");
	check_end(&ck);

	check_start(&ck, "plugin_state_unaligned");
	{
		uint8_t raw[CTH_PRIV_MAX + 8] = { 0 };
		static const char text[] = "PORT 192,168,1,10,19,137\r\n";

		ftp_conn(&c, V4, CLIENT4, SERVER4);
		run_state(f, &c, O, CTH_CT_ESTABLISHED, 1, "AB\n", 3, raw + 1);
		v = run_state(f, &c, O, CTH_CT_ESTABLISHED, 4, text,
			      sizeof(text) - 1, raw + 1);
		check_that(&ck, v == CTH_VERDICT_ACCEPT && f->n_exp == 1,
			   "verdict %d, %u expectations", v, f->n_exp);
	}
	check_end(&ck);

	check_start(&ck, "plugin_state_garbage_recovers");
	ftp_conn(&c, V4, CLIENT4, SERVER4);
	memset(c.priv, 0xff, sizeof(c.priv));
	/* reset to empty: a whole command is picked up */
	v = run_raw(f, &c, O, 5, "PORT 192,168,1,10,19,137\r\n");
	check_that(&ck, v == CTH_VERDICT_ACCEPT && f->n_exp == 1,
		   "garbage: verdict %d, %u expectations", v, f->n_exp);
	v = run_raw(f, &c, O, 31, "PORT 192,168,1,10,19,137\r\n");
	check_that(&ck, v == CTH_VERDICT_ACCEPT && f->n_exp == 1,
		   "next line: verdict %d, %u expectations", v, f->n_exp);
	check_end(&ck);
}

/* Failover and stale state (failover_sessions), then states set by
 * hand. */
static void test_plugin_failover(struct plugrun *f)
{
	static const uint8_t zero[CTH_PRIV_MAX];
	struct check ck;
	struct conn c = { 0 };
	int v;

	sessions_run(f, failover_sessions, ARRAY_LEN(failover_sessions));

	/* under NAT: a fragment is passed unrewritten; the PORT after it is
	 * rewritten and expected */
	check_start(&ck, "plugin_failover_nat");
	ftp_conn(&c, V4, CLIENT4, SERVER4);
	conn_snat(&c, "203.0.113.5", CLIENT_PORT);
	v = run_raw(f, &c, O, 1, "168,1,10,19,137\r\n");   /* 17 bytes */
	check_that(&ck, v == CTH_VERDICT_ACCEPT && f->n_exp == 0 && f->n_mangle == 0,
		   "first: verdict %d, %u exp, %u mangles", v, f->n_exp, f->n_mangle);
	check_out(&ck, f, "168,1,10,19,137\r\n");
	v = run_raw(f, &c, O, 18, PORT1);
	check_that(&ck, v == CTH_VERDICT_ACCEPT && f->n_exp == 1 && f->n_mangle == 1,
		   "next: verdict %d, %u exp, %u mangles", v, f->n_exp, f->n_mangle);
	check_clean(&ck, f);
	check_end(&ck);

	/* garbage of the right version: line starts far ahead of the stream
	 * are forgotten, else they would block recording for up to 2 GiB */
	check_start(&ck, "plugin_stale_state_ahead_forgotten");
	ftp_conn(&c, V4, CLIENT4, SERVER4);
	{
		uint32_t ahead[4] = { 0x40000000u, 0x40000010u, 0x50000000u, 0x50000010u };

		memcpy(c.priv, ahead, sizeof(ahead));
		c.priv[FTP_PRIV_NL_NUM] = 2;
		c.priv[FTP_PRIV_NL_NUM + 1] = 2;
		c.priv[FTP_PRIV_VERSION_OFF] = 1;
	}
	run_raw(f, &c, O, 1000, "NOOP\r\n");
	v = run_raw(f, &c, O, 1006, PORT1);
	check_that(&ck, v == CTH_VERDICT_ACCEPT && f->n_exp == 1,
		   "after resync: %u expectations", f->n_exp);
	check_end(&ck);

	/* a version-0 state is no state, whatever else it holds */
	check_start(&ck, "plugin_state_version_zero_is_empty");
	ftp_conn(&c, V4, CLIENT4, SERVER4);
	{
		uint32_t starts[4] = { 7, 7, 7, 7 };

		memcpy(c.priv, starts, sizeof(starts));
		c.priv[FTP_PRIV_NL_NUM] = 1;
		c.priv[FTP_PRIV_NL_NUM + 1] = 1;
	}
	/* the line starts it holds are ignored: a fragment at one of them
	 * is not parsed as a line start (it is the pickup, and fails) */
	v = run_raw(f, &c, O, 7, "PORT 192,168,1,");
	check_that(&ck, v == CTH_VERDICT_ACCEPT && f->n_exp == 0,
		   "version 0: verdict %d, %u expectations", v, f->n_exp);
	check_end(&ck);

	/* a new connection behaves like the kernel's helper: the first
	 * packet of each direction is not parsed; the state says so */
	check_start(&ck, "plugin_zero_state_written_back");
	ftp_conn(&c, V4, CLIENT4, SERVER4);
	run_raw(f, &c, O, 1, "USER a");               /* no '\n' */
	check_that(&ck, c.priv[FTP_PRIV_VERSION_OFF] == 1 && c.priv[FTP_PRIV_NL_NUM] == 0 &&
		   memcmp(c.priv, zero, 16) == 0, "state after a partial line");
	check_end(&ck);

	/* random states of every kind: no crash, no host rule broken */
	check_start(&ck, "plugin_state_random_50k");
	for (unsigned int r = 0; r < 50000; r++) {
		enum cth_dir dir = rng_below(2) ? O : R;
		const char *text = dir == O ? PORT1 : "227 (10,0,0,2,200,10)\r\n";

		ftp_conn(&c, V4, CLIENT4, SERVER4);
		for (size_t i = 0; i < sizeof(c.priv); i++)
			c.priv[i] = (uint8_t)rng_next();
		if (rng_below(2))
			c.priv[FTP_PRIV_VERSION_OFF] = 1;
		if (rng_below(2))
			c.priv[FTP_PRIV_NL_NUM + dir] = (uint8_t)rng_below(3);
		v = run_raw(f, &c, dir, rng_next(), text);
		check_that(&ck, v == CTH_VERDICT_ACCEPT || v == CTH_VERDICT_DROP,
			   "round %u: verdict %d", r, v);
		check_clean(&ck, f);
		check_that(&ck, c.priv[FTP_PRIV_VERSION_OFF] == 1 &&
			   c.priv[FTP_PRIV_NL_NUM] <= 2 && c.priv[FTP_PRIV_NL_NUM + 1] <= 2,
			   "round %u: state not sane after the packet", r);
	}
	check_end(&ck);
}

static void test_plugin_nat(struct plugrun *f)
{
	for (size_t i = 0; i < ARRAY_LEN(nat_cases); i++) {
		const struct ftp_nat_case *t = &nat_cases[i];
		bool v4 = t->family == V4;
		struct check ck;
		struct conn c = { 0 };
		int v;

		check_start(&ck, "%s", t->name);
		ftp_conn(&c, t->family, t->client ? t->client : v4 ? CLIENT4 : CLIENT6,
			 v4 ? SERVER4 : SERVER6);
		if (t->snat)
			conn_snat(&c, t->snat, CLIENT_PORT);
		if (t->dnat)
			conn_dnat(&c, t->dnat, 21);
		answers_set(f, &t->answers);
		v = run(f, &c, t->dir, 1, t->text);
		plugrun_answers_reset(f);
		check_nat_case(&ck, f, t, v);
		check_clean(&ck, f);
		check_end(&ck);
		conn_free(&c);
	}
}

/* Garbage of every size through the whole callback, NAT or not. */
static void test_plugin_fuzz(struct plugrun *f)
{
	enum { ROUNDS = 50000, CAP = 200 };
	uint8_t buf[CAP];
	struct check ck;
	struct conn c = { 0 };
	unsigned int r;
	uint32_t seq = 1000;

	check_start(&ck, "plugin_fuzz_50k");
	ftp_conn(&c, V4, CLIENT4, SERVER4);
	for (r = 0; r < ROUNDS; r++) {
		enum cth_dir dir = rng_below(2) ? O : R;
		size_t s = rng_below(sizeof(fuzz_seeds) / sizeof(fuzz_seeds[0]));
		size_t len;
		int v;

		if (r % 1000 == 0) {
			int family = rng_below(2) ? V4 : V6;

			ftp_conn(&c, family, family == V4 ? CLIENT4 : CLIENT6,
				 family == V4 ? SERVER4 : SERVER6);
			if (rng_below(2))
				conn_snat(&c, family == V4 ? "203.0.113.5" :
							     "2001:db8:ffff::1",
					  CLIENT_PORT);
			if (rng_below(2))
				conn_configure(&c, "loose", "yes");
		}
		len = strlen(fuzz_seeds[s][1]);
		memcpy(buf, fuzz_seeds[s][1], len);
		if (rng_below(3))
			fuzz_mutate(&ftp_mutate, buf, &len, CAP);
		if (len == 0)
			continue;
		f->busy_left = rng_below(8) == 0 ? rng_below(300) : 0;
		f->expect_err = rng_below(16) == 0 ? -ENOMEM : 0;
		f->mangle_err = rng_below(16) == 0 ? -ENOMEM : 0;
		/* Mostly at a line start, sometimes anywhere. */
		if (rng_below(4) == 0)
			seq = rng_next();
		v = run_ctinfo(f, &c, dir,
			       dir == O ? CTH_CT_ESTABLISHED :
					  CTH_CT_ESTABLISHED_REPLY,
			       seq, buf, len);
		if (buf[len - 1] == '\n')
			seq += (uint32_t)len;
		if (!check_that(&ck, v == CTH_VERDICT_ACCEPT ||
				v == CTH_VERDICT_DROP, "round %u: verdict %d",
				r, v))
			break;
		check_that(&ck, f->n_mangle <= 1, "round %u: %u mangles", r,
			   f->n_mangle);
		check_that(&ck, f->n_exp <= 300, "round %u: %u expectations",
			   r, f->n_exp);
		check_that(&ck, c.nat || f->out_len == len,
			   "round %u: length changed without NAT", r);
	}
	f->busy_left = 0;
	f->expect_err = 0;
	f->mangle_err = 0;
	check_end(&ck);

	check_start(&ck, "plugin_huge_packet");
	{
		const size_t n = PLUGRUN_PAYLOAD_MAX;   /* a whole IPv4 packet */
		char *big = malloc(n);
		int v;

		if (!big)
			abort();
		ftp_conn(&c, V4, CLIENT4, SERVER4);
		run(f, &c, O, 1, "NOOP\r\n");
		memcpy(big, "PORT ", 5);
		memset(big + 5, '7', n - 5);
		v = run_ctinfo(f, &c, O, CTH_CT_ESTABLISHED, 7, big, n);
		check_that(&ck, v == CTH_VERDICT_DROP && f->n_exp == 0,
			   "digits: verdict %d", v);
		memset(big, 'x', n);
		big[n - 1] = '\n';
		v = run_ctinfo(f, &c, O, CTH_CT_ESTABLISHED, 7, big, n);
		check_that(&ck, v == CTH_VERDICT_ACCEPT && f->n_exp == 0,
			   "text: verdict %d", v);
		v = run(f, &c, O, 7 + (uint32_t)n, "PORT 192,168,1,10,19,137\r\n");
		check_that(&ck, f->n_exp == 1, "after huge line: %u exp",
			   f->n_exp);
		free(big);
	}
	check_end(&ck);
}

/* ---------------------------------------------------------------- plugin: counters */

/* What the plugin counts (cth_count()), as the host keeps it: one
 * announcement of each outcome, every other counter unmoved. */
static void test_plugin_counters(struct plugrun *f)
{
	static const struct {
		const char *name;
		const char *text;
		bool snat, loose;
		int verdict;
		const char *counts;
	} cases[] = {
		{ "counters_port", PORT1, false, false, CTH_VERDICT_ACCEPT,
		  "commands_seen=1,expectations=1" },
		{ "counters_pasv", "227 Entering Passive Mode (10,0,0,2,200,10).\r\n", false, false,
		  CTH_VERDICT_ACCEPT, "commands_seen=1,expectations=1" },
		{ "counters_nat", PORT1, true, false, CTH_VERDICT_ACCEPT,
		  "commands_seen=1,expectations=1" },
		{ "counters_malformed", "PORT 192,168,1,10,19\r\n", false, false, CTH_VERDICT_DROP,
		  "parse_errors=1" },
		{ "counters_partial", "PORT 192,168,1", false, false, CTH_VERDICT_DROP,
		  "parse_errors=1" },
		{ "counters_foreign", "PORT 10,9,9,9,19,137\r\n", false, false, CTH_VERDICT_ACCEPT,
		  "commands_seen=1,foreign_ignored=1" },
		{ "counters_foreign_loose", "PORT 10,9,9,9,19,137\r\n", false, true,
		  CTH_VERDICT_ACCEPT, "commands_seen=1,expectations=1" },
		{ "counters_other_line", "NOOP\r\n", false, false, CTH_VERDICT_ACCEPT, "" },
	};

	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		bool server = cases[i].text[0] == '2';
		struct counts before;
		struct check ck;
		struct conn c = { 0 };
		int v;

		check_start(&ck, "%s", cases[i].name);
		plugrun_answers_reset(f);
		ftp_conn(&c, V4, CLIENT4, SERVER4);
		if (cases[i].snat)
			conn_snat(&c, "203.0.113.5", CLIENT_PORT);
		if (cases[i].loose)
			conn_configure(&c, "loose", "yes");
		/* the line before, which counts nothing */
		run_raw(f, &c, server ? R : O, 2000 - 6, server ? "200 x\n" : "NOOP\r\n");
		counts_take(f, &before);
		v = run_raw(f, &c, server ? R : O, 2000, cases[i].text);
		check_that(&ck, v == cases[i].verdict, "verdict %d", v);
		check_counts(&ck, f, &before, cases[i].counts);
		check_end(&ck);
		conn_free(&c);
	}
}

int main(void)
{
	struct plugrun *f;
	size_t i;

	for (i = 0; i < sizeof(parse_cases) / sizeof(parse_cases[0]); i++)
		test_parse_case(&parse_cases[i]);
	test_parse_prefixes();
	test_parse_huge();
	test_parse_fuzz();
	test_format();
	test_format_roundtrip();
	test_util();

	f = plugrun_new();
	test_plugin_desc();
	test_plugin_port(f);
	test_plugin_address_checks(f);
	test_plugin_line_starts(f);
	test_plugin_split(f);
	test_plugin_restart(f);
	test_plugin_failover(f);
	test_plugin_nat(f);
	test_plugin_counters(f);
	test_plugin_fuzz(f);
	plugrun_free(f);

	return check_exit();
}
