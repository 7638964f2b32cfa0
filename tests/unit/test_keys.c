/* SPDX-License-Identifier: MIT */
/*
 * Declared configuration keys (keys.c) without a plugin file: each type's
 * parser on good and bad values, what a value's error says it should be,
 * the effective value as -n prints it, the declaration checks on
 * hand-built descriptors, the rule ports, and a section applied: defaults
 * first, custom keys through configure(), the FILE:LINE errors.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "runtime/keys.h"

/* a block whose fields sit at odd offsets: the host must not need them
 * aligned (it copies), nor write outside each one */
struct blk {
	uint8_t pad0;
	uint8_t b;                  /* bool */
	uint8_t u[4];               /* uint32_t */
	uint8_t p[sizeof(struct cth_ports)];
	uint8_t c[sizeof(unsigned int)];
	char s[9];                  /* max 8 */
	uint8_t guard[7];
};

static const char *const modes[] = { "strict", "Loose", NULL };
static const struct cth_key k_bool = { .name = "on", .type = CTH_KEY_BOOL,
				       .offset = offsetof(struct blk, b) };
static const struct cth_key k_uint = { .name = "n", .type = CTH_KEY_UINT,
				       .offset = offsetof(struct blk, u), .min = 5, .max = 4000000000u };
static const struct cth_key k_ports = { .name = "ports", .type = CTH_KEY_PORTS,
					.flags = CTH_KEY_RULE_PORTS,
					.offset = offsetof(struct blk, p), .max = 0 };
static const struct cth_key k_ports2 = { .name = "two", .type = CTH_KEY_PORTS,
					 .offset = offsetof(struct blk, p), .max = 2 };
static const struct cth_key k_choice = { .name = "mode", .type = CTH_KEY_CHOICE,
					 .offset = offsetof(struct blk, c), .choices = modes };
static const struct cth_key k_str = { .name = "tag", .type = CTH_KEY_STRING,
				      .offset = offsetof(struct blk, s), .max = 8 };

static bool guard_ok(const struct blk *x)
{
	for (size_t i = 0; i < sizeof(x->guard); i++)
		if (x->guard[i] != 0xee)
			return false;
	return x->pad0 == 0xee;
}

static void blk_init(struct blk *x)
{
	memset(x, 0, sizeof(*x));
	x->pad0 = 0xee;
	memset(x->guard, 0xee, sizeof(x->guard));
}

static void test_parse(void)
{
	struct blk x;
	struct cth_ports p;
	uint32_t u;
	unsigned int c;
	char out[128];

	blk_init(&x);
	CHECK("keys/bool", keys_parse(&k_bool, "On", &x) == 0 && x.b == 1 &&
	      keys_parse(&k_bool, "0", &x) == 0 && x.b == 0 &&
	      keys_parse(&k_bool, "maybe", &x) == -EINVAL && x.b == 0, "b %u", x.b);
	CHECK("keys/uint-range", keys_parse(&k_uint, "4000000000", &x) == 0 &&
	      keys_parse(&k_uint, "4", &x) == -EINVAL && keys_parse(&k_uint, "4000000001", &x) == -EINVAL &&
	      keys_parse(&k_uint, "-5", &x) == -EINVAL && keys_parse(&k_uint, "5x", &x) == -EINVAL &&
	      keys_parse(&k_uint, "", &x) == -EINVAL, "range");
	memcpy(&u, x.u, sizeof(u));
	CHECK("keys/uint-stored", u == 4000000000u, "%u", u);
	CHECK("keys/ports-16-by-default", keys_parse(&k_ports, "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16", &x) == 0 &&
	      keys_parse(&k_ports, "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17", &x) == -EINVAL, "max");
	memcpy(&p, x.p, sizeof(p));
	CHECK("keys/ports-stored", p.n == 16 && p.port[15] == 16, "n %u", p.n);
	CHECK("keys/ports-max", keys_parse(&k_ports2, "80 443", &x) == 0 &&
	      keys_parse(&k_ports2, "80,443,8080", &x) == -EINVAL && keys_parse(&k_ports2, "", &x) == -EINVAL &&
	      keys_parse(&k_ports2, "0", &x) == -EINVAL && keys_parse(&k_ports2, "65536", &x) == -EINVAL,
	      "two");
	memcpy(&p, x.p, sizeof(p));
	CHECK("keys/ports-replaced-whole", p.n == 2 && p.port[0] == 80 && p.port[1] == 443 &&
	      p.port[2] == 0, "n %u [2] %u", p.n, p.port[2]);
	CHECK("keys/choice", keys_parse(&k_choice, "LOOSE", &x) == 0 &&
	      keys_parse(&k_choice, "lax", &x) == -EINVAL, "choice");
	memcpy(&c, x.c, sizeof(c));
	CHECK("keys/choice-index", c == 1, "%u", c);
	CHECK("keys/string", keys_parse(&k_str, "12345678", &x) == 0 && strcmp(x.s, "12345678") == 0 &&
	      keys_parse(&k_str, "123456789", &x) == -EINVAL &&
	      keys_parse(&k_str, "a\tb", &x) == -EINVAL && keys_parse(&k_str, "a\x7f", &x) == -EINVAL &&
	      keys_parse(&k_str, "ab", &x) == 0 && memcmp(x.s, "ab\0\0\0\0\0\0", 9) == 0, "'%s'", x.s);
	CHECK("keys/nothing-written-outside", guard_ok(&x), "a neighbour byte changed");

	keys_format(&k_bool, &x, out, sizeof(out));
	CHECK("keys/format-bool", strcmp(out, "no") == 0, "%s", out);
	keys_format(&k_uint, &x, out, sizeof(out));
	CHECK("keys/format-uint", strcmp(out, "4000000000") == 0, "%s", out);
	keys_format(&k_ports2, &x, out, sizeof(out));
	CHECK("keys/format-ports", strcmp(out, "80,443") == 0, "%s", out);
	keys_format(&k_choice, &x, out, sizeof(out));
	CHECK("keys/format-choice-as-declared", strcmp(out, "Loose") == 0, "%s", out);
	keys_format(&k_str, &x, out, sizeof(out));
	CHECK("keys/format-string", strcmp(out, "ab") == 0, "%s", out);

	keys_describe(&k_uint, out, sizeof(out));
	CHECK("keys/describe-uint", strcmp(out, "a number in 5..4000000000") == 0, "%s", out);
	keys_describe(&k_ports, out, sizeof(out));
	CHECK("keys/describe-ports", strcmp(out, "a port list of 1..16 ports 1..65535") == 0, "%s", out);
	keys_describe(&k_choice, out, sizeof(out));
	CHECK("keys/describe-choice", strcmp(out, "one of strict, Loose") == 0, "%s", out);
	keys_describe(&k_choice, out, 8);
	CHECK("keys/describe-cut", strlen(out) == 7, "%s", out);
}

static int custom_configure(void *config, const char *key, const char *value)
{
	(void)config;
	if (strcmp(key, "extra") != 0)
		return -ENOENT;
	return strcmp(value, "ok") == 0 ? 0 : strcmp(value, "oom") == 0 ? -ENOMEM : -EINVAL;
}

static int noop_packet(struct cth_ctx *ctx, const struct cth_packet *pkt, void *priv,
		       const void *config)
{
	(void)ctx; (void)pkt; (void)priv; (void)config;
	return CTH_VERDICT_ACCEPT;
}

static void test_decl(void)
{
	struct cth_key keys[3] = { k_bool, k_uint, k_ports };
	struct cth_plugin_desc d = { .name = "t", .config_size = sizeof(struct blk), .keys = keys,
				     .n_keys = 3, .packet = noop_packet };
	char err[256] = "";
	int rc;

	rc = keys_decl_check(&d, err, sizeof(err));
	CHECK("keys/decl-good", rc == 0, "%s", err);
	d.config_size = offsetof(struct blk, p) + sizeof(struct cth_ports) - 1;
	rc = keys_decl_check(&d, err, sizeof(err));
	CHECK("keys/decl-one-byte-short", rc == -EINVAL &&
	      strstr(err, "key 'ports': its 34 bytes at offset 6 do not fit the 39-byte"), "%s", err);
	d.config_size = sizeof(struct blk);
	keys[1].def = "4";
	rc = keys_decl_check(&d, err, sizeof(err));
	CHECK("keys/decl-default-out-of-range", rc == -EINVAL &&
	      strstr(err, "key 'n': default '4' is not a number in 5..4000000000"), "%s", err);
	keys[1].def = "5";
	keys[0].flags = 8;
	rc = keys_decl_check(&d, err, sizeof(err));
	CHECK("keys/decl-unknown-flag", rc == -EINVAL && strstr(err, "key 'on': unknown flags 0x8"),
	      "%s", err);
	/* the link view's hook flags: on a bool key, one key each */
	keys[0].flags = CTH_KEY_RULE_OUTPUT;
	rc = keys_decl_check(&d, err, sizeof(err));
	CHECK("keys/decl-rule-output", rc == 0, "%s", err);
	keys[0].flags = CTH_KEY_RULE_PREROUTING;
	rc = keys_decl_check(&d, err, sizeof(err));
	CHECK("keys/decl-rule-prerouting", rc == 0, "%s", err);
	keys[1].flags = CTH_KEY_RULE_OUTPUT;
	rc = keys_decl_check(&d, err, sizeof(err));
	CHECK("keys/decl-rule-output-not-bool", rc == -EINVAL &&
	      strstr(err, "key 'n': CTH_KEY_RULE_OUTPUT is for a CTH_KEY_BOOL key only"), "%s", err);
	keys[1].flags = 0;
	keys[2].flags = CTH_KEY_RULE_PREROUTING;
	rc = keys_decl_check(&d, err, sizeof(err));
	CHECK("keys/decl-rule-prerouting-not-bool", rc == -EINVAL &&
	      strstr(err, "CTH_KEY_RULE_PREROUTING is for a CTH_KEY_BOOL key only"), "%s", err);
	keys[2].flags = 0;
	keys[0].flags = 0;
	keys[0].name = "plugin";
	rc = keys_decl_check(&d, err, sizeof(err));
	CHECK("keys/decl-daemon-name", rc == -EINVAL && strstr(err, "a daemon key"), "%s", err);
	keys[0].name = "";
	rc = keys_decl_check(&d, err, sizeof(err));
	CHECK("keys/decl-empty-name", rc == -EINVAL && strstr(err, "key 0: name ''"), "%s", err);
	keys[0].name = NULL;
	rc = keys_decl_check(&d, err, sizeof(err));
	CHECK("keys/decl-no-name", rc == -EINVAL && strstr(err, "key 0: name '(null)'"), "%s", err);
	keys[0].name = "on";
	d.keys = NULL;
	rc = keys_decl_check(&d, err, sizeof(err));
	CHECK("keys/decl-no-table", rc == -EINVAL && strstr(err, "no key table"), "%s", err);
	d.keys = keys;
	CHECK("keys/name-ok", keys_name_ok("a_1") && !keys_name_ok("A") && !keys_name_ok("a-b") &&
	      !keys_name_ok("") && keys_name_ok("abcdefghijklmnopqrstuvwxyz01234") &&
	      !keys_name_ok("abcdefghijklmnopqrstuvwxyz012345"), "name rule");
	{
		struct cth_key ck = { .name = "extra", .type = CTH_KEY_CUSTOM, .def = "ok" };
		struct cth_plugin_desc cd = { .name = "c", .keys = &ck, .n_keys = 1 };

		rc = keys_decl_check(&cd, err, sizeof(err));
		CHECK("keys/decl-custom-needs-configure", rc == -EINVAL &&
		      strstr(err, "CTH_KEY_CUSTOM needs the plugin's configure()"), "%s", err);
		cd.configure = custom_configure;
		rc = keys_decl_check(&cd, err, sizeof(err));
		CHECK("keys/decl-custom-no-block-needed", rc == 0, "%s", err);
	}
}

static void test_rule_ports(void)
{
	struct cth_key keys[2] = { k_ports2, k_ports };
	struct cth_plugin_desc d = { .keys = keys, .n_keys = 2 };
	struct cth_ports p = { .n = 3, .port = { 21, 2121, 990 } };
	struct blk x;
	uint16_t got[4];
	size_t n;

	blk_init(&x);
	memcpy(x.p, &p, sizeof(p));
	n = keys_rule_ports(&d, &x, got, 4);
	CHECK("keys/rule-ports", n == 3 && got[0] == 21 && got[2] == 990, "n %zu", n);
	n = keys_rule_ports(&d, &x, got, 2);
	CHECK("keys/rule-ports-bounded", n == 2, "n %zu", n);
	d.n_keys = 1;
	n = keys_rule_ports(&d, &x, got, 4);
	CHECK("keys/rule-ports-none-declared", n == 0, "n %zu", n);
}

/* A section applied, its errors on stderr as FILE:LINE. */
static void test_apply(void)
{
	struct cth_key keys[3] = { k_uint, k_str,
				   { .name = "extra", .type = CTH_KEY_CUSTOM, .def = "ok" } };
	struct cth_plugin_desc d = { .name = "t", .config_size = sizeof(struct blk), .keys = keys,
				     .n_keys = 3, .configure = custom_configure };
	struct cfg cfg = { .file = (char *)"/etc/t.conf" };
	struct cfg_helper h = { .name = "t", .line = 3, .n_opts = 3, .opts = {
		{ .key = (char *)"tag", .value = (char *)"x", .line = 4 },
		{ .key = (char *)"extra", .value = (char *)"oom", .line = 5 },
		{ .key = (char *)"extra", .value = (char *)"bad", .line = 6 },
	} };
	char path[] = "/tmp/cth-test-keys-XXXXXX", text[2048];
	int fd = mkstemp(path), saved;
	struct blk x;
	uint32_t u;
	ssize_t n;
	int rc;

	keys[0].def = "77";
	blk_init(&x);
	fflush(stderr);
	saved = dup(2);
	dup2(fd, 2);
	rc = keys_apply(&cfg, &h, &d, &x);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	lseek(fd, 0, SEEK_SET);
	n = read(fd, text, sizeof(text) - 1);
	text[n > 0 ? n : 0] = '\0';
	close(fd);
	unlink(path);
	memcpy(&u, x.u, sizeof(u));
	CHECK("keys/apply-fails", rc == -EINVAL, "rc=%d", rc);
	CHECK("keys/apply-default-and-value", u == 77 && strcmp(x.s, "x") == 0, "u %u s '%s'", u, x.s);
	CHECK("keys/apply-custom-error", strstr(text, "/etc/t.conf:5: extra = oom: plugin 't' failed: "
						  "Cannot allocate memory") != NULL, "%s", text);
	CHECK("keys/apply-custom-invalid", strstr(text, "/etc/t.conf:6: extra: invalid value 'bad' "
						    "(plugin 't' refused it)") != NULL, "%s", text);
	CHECK("keys/apply-counted", cfg.n_errors == 2, "%zu errors", cfg.n_errors);
}

int main(void)
{
	test_parse();
	test_decl();
	test_rule_ports();
	test_apply();
	return check_exit();
}
