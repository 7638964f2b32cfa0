/* SPDX-License-Identifier: MIT */
/*
 * The manuals keep up with the code: every long option `cthelperd --help`
 * lists is in cthelperd(8), every one of `cthelper-replay --help` in
 * cthelper-replay(1), and every key the config parser accepts (its
 * own key tables, not a copy) is in cthelperd.conf(5).  Run from the
 * repository root with $CTH_BUILD the build under test (tests/run.sh).
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "runtime/config.h"
#include "runtime/config_helper.h"
#include "runtime/config_server.h"

#define MAN8 "docs/man/cthelperd.8"
#define MAN5 "docs/man/cthelperd.conf.5"
#define MAN1_REPLAY "docs/man/cthelper-replay.1"

/* A whole file with the roff escape "\-" read as "-". */
static char *man_read(const char *file)
{
	FILE *f = fopen(file, "r");
	char *buf = NULL;
	size_t n = 0;
	int c, prev = 0;

	if (!f)
		return NULL;
	buf = malloc(1 << 20);
	while (buf && (c = fgetc(f)) != EOF && n < (1 << 20) - 1) {
		if (c == '-' && prev == '\\')
			n--;
		buf[n++] = (char)c;
		prev = c;
	}
	if (buf)
		buf[n] = '\0';
	fclose(f);
	return buf;
}

static bool is_opt_char(char c)
{
	return isalnum((unsigned char)c) || c == '-';
}

/* The option as a word of its own ("--check" is not "--check-kernel"). */
static bool man_has_option(const char *man, const char *opt)
{
	size_t n = strlen(opt);

	for (const char *p = man; (p = strstr(p, opt)) != NULL; p++)
		if ((p == man || !is_opt_char(p[-1])) && !is_opt_char(p[n]))
			return true;
	return false;
}

/* Every long option PROG --help lists is in its manual MAN. */
static void test_options(const char *prog, const char *man_file, const char *tag)
{
	char cmd[1024], line[512], opts[64][64], name[128];
	size_t n_opts = 0;
	const char *build = getenv("CTH_BUILD") ? getenv("CTH_BUILD") : "build";
	char *man = man_read(man_file);
	FILE *p;

	snprintf(cmd, sizeof(cmd), "%s/%s --help", build, prog);
	p = popen(cmd, "r");
	while (p && fgets(line, sizeof(line), p)) {
		for (char *s = line; (s = strstr(s, "--")) != NULL; ) {
			size_t len = 2;

			while (is_opt_char(s[len]) && len < sizeof(opts[0]) - 1)
				len++;
			if (len > 2 && n_opts < 64) {
				bool seen = false;

				for (size_t i = 0; i < n_opts; i++)
					seen |= strncmp(opts[i], s, len) == 0 && opts[i][len] == '\0';
				if (!seen)
					snprintf(opts[n_opts++], sizeof(opts[0]), "%.*s", (int)len, s);
			}
			s += len;
		}
	}
	snprintf(name, sizeof(name), "docs/%s-help-runs", prog);
	CHECK(name, p && pclose(p) == 0 && n_opts > 0, "'%s' failed or listed no option", cmd);
	snprintf(name, sizeof(name), "docs/%s-readable", tag);
	CHECK(name, man != NULL, "cannot read %s", man_file);
	for (size_t i = 0; man && i < n_opts; i++) {
		snprintf(name, sizeof(name), "docs/%s-option%s", tag, opts[i]);
		CHECK(name, man_has_option(man, opts[i]),
		      "%s is in --help but not in %s", opts[i], man_file);
	}
	free(man);
}

/* A key is documented where a tagged paragraph names it: a line
 * ".B KEY", ".BR KEY ..." or ".BI KEY ...". */
static bool man_has_key(const char *man, const char *key)
{
	static const char *const macros[] = { ".B ", ".BR ", ".BI " };
	char want[128];

	for (size_t i = 0; i < 3; i++) {
		size_t n = (size_t)snprintf(want, sizeof(want), "\n%s%s", macros[i], key);

		for (const char *p = man; (p = strstr(p, want)) != NULL; p++)
			if (p[n] == '\n' || p[n] == ' ')
				return true;
	}
	return false;
}

static void check_keys(const char *man, const char *section,
		       const struct cfg_key *keys)
{
	for (; keys->name; keys++) {
		char name[128];

		snprintf(name, sizeof(name), "docs/man5-%s-%s", section, keys->name);
		CHECK(name, man_has_key(man, keys->name),
		      "[%s] key '%s' is accepted but not in " MAN5, section, keys->name);
	}
}

static void test_keys(void)
{
	char *man = man_read(MAN5);
	static const char *const policy[] = { "max", "timeout" };

	CHECK("docs/man5-readable", man != NULL, "cannot read " MAN5);
	if (!man)
		return;
	check_keys(man, "server", cfg_server_keys);
	check_keys(man, "helper", cfg_helper_keys);
	for (size_t i = 0; i < 2; i++) {
		char key[64], name[128];

		snprintf(key, sizeof(key), CFG_POLICY_PREFIX " CLASS .%s", policy[i]);
		snprintf(name, sizeof(name), "docs/man5-helper-" CFG_POLICY_PREFIX "CLASS.%s",
			 policy[i]);
		CHECK(name, man_has_key(man, key), "'%s' is not in " MAN5, key);
	}
	free(man);
}

int main(void)
{
	test_options("cthelperd", MAN8, "man8");
	test_options("cthelper-replay", MAN1_REPLAY, "man1-replay");
	test_keys();
	return check_exit();
}
