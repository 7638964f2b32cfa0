/* SPDX-License-Identifier: MIT */
/*
 * The manuals keep up with the code: every long option `cthelperd --help`
 * lists is in cthelperd(8), every one of `cthelper-replay --help` in
 * cthelper-replay(1), every key the config parser accepts (its
 * own key tables, not a copy) is in cthelperd.conf(5), and every key and
 * counter a shipped plugin declares (read from the built plugin's
 * descriptor) is in its manual, docs/plugins/NAME.md, and in its section
 * of cthelperd.conf(5) (the SDK example's in its README).  Run from the
 * repository root with $CTH_BUILD the build under test (tests/run.sh).
 */
#include <ctype.h>
#include <dlfcn.h>
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

/* The plugin's section of cthelperd.conf(5), ".SH "THE NAME PLUGIN"" up
 * to the next section (written over man), or NULL. */
static const char *man_plugin_section(char *man, const char *section)
{
	char want[64];
	char *start, *end;

	snprintf(want, sizeof(want), "\n.SH \"%s\"", section);
	start = strstr(man, want);
	if (!start)
		return NULL;
	end = strstr(start + 1, "\n.SH ");
	if (end)
		*end = '\0';
	return start;
}

/* A plain-text manual names the word as code: "`word`" (a table cell,
 * or the text). */
static bool md_has_word(const char *md, const char *word)
{
	char want[128];

	snprintf(want, sizeof(want), "`%s`", word);
	return strstr(md, want) != NULL;
}

/* The descriptor of a built plugin; its handle is kept open (the test
 * reads the tables it points to). */
static const struct cth_plugin_desc *plugin_desc(const char *file)
{
	void *h = dlopen(file, RTLD_NOW | RTLD_LOCAL);
	const struct cth_plugin_desc *d = h ? dlsym(h, CTH_PLUGIN_SYMBOL) : NULL;

	/* the key and counter tables come with ABI 3 */
	if (d && (d->abi_version < 3 ||
		  d->size < offsetof(struct cth_plugin_desc, n_counters) + sizeof(d->n_counters)))
		return NULL;
	return d;
}

/* One shipped plugin: every declared key and counter in its manual md
 * and, when it has one, its section of cthelperd.conf(5). */
static void test_plugin(const char *name, const char *so, const char *md_file,
			const char *man_section)
{
	const char *build = getenv("CTH_BUILD") ? getenv("CTH_BUILD") : "build";
	char file[512], cname[128];
	const struct cth_plugin_desc *d;
	char *md = man_read(md_file), *man = man_section ? man_read(MAN5) : NULL;
	const char *sec = man ? man_plugin_section(man, man_section) : NULL;

	snprintf(file, sizeof(file), "%s/%s", build, so);
	d = plugin_desc(file);
	snprintf(cname, sizeof(cname), "docs/plugin-%s-declares", name);
	CHECK(cname, d && d->n_keys > 0 && d->n_counters > 0,
	      "%s: no ABI 3 descriptor with keys and counters", file);
	snprintf(cname, sizeof(cname), "docs/plugin-%s-manuals-readable", name);
	CHECK(cname, md && (!man_section || sec), "cannot read %s%s%s", md_file,
	      man_section ? " or its section of " MAN5 ": " : "", man_section ? man_section : "");
	for (unsigned int i = 0; d && md && i < d->n_keys; i++) {
		const char *k = d->keys[i].name;

		snprintf(cname, sizeof(cname), "docs/plugin-%s-key-%s", name, k);
		CHECK(cname, md_has_word(md, k) && (!sec || man_has_key(sec, k)),
		      "%s declares key '%s': not in %s%s%s", name, k, md_file,
		      man_section ? " or " MAN5 " " : "", man_section ? man_section : "");
	}
	for (unsigned int i = 0; d && md && i < d->n_counters; i++) {
		const char *c = d->counters[i].name;

		snprintf(cname, sizeof(cname), "docs/plugin-%s-counter-%s", name, c);
		CHECK(cname, md_has_word(md, c) && (!sec || man_has_key(sec, c)),
		      "%s declares counter '%s': not in %s%s%s", name, c, md_file,
		      man_section ? " or " MAN5 " " : "", man_section ? man_section : "");
	}
	free(md);
	free(man);
}

static void test_plugins(void)
{
	static const struct {
		const char *name, *so, *md, *man;
	} plugins[] = {
		{ "ftp", "plugins/ftp.so", "docs/plugins/ftp.md", "THE FTP PLUGIN" },
		{ "sip", "plugins/sip.so", "docs/plugins/sip.md", "THE SIP PLUGIN" },
		{ "tns", "plugins/tns.so", "docs/plugins/tns.md", "THE TNS PLUGIN" },
		{ "rpc", "plugins/rpc.so", "docs/plugins/rpc.md", "THE RPC PLUGIN" },
		{ "tftp", "plugins/tftp.so", "docs/plugins/tftp.md", "THE TFTP PLUGIN" },
		{ "rtsp", "plugins/rtsp.so", "docs/plugins/rtsp.md", "THE RTSP PLUGIN" },
		{ "mdns", "plugins/mdns.so", "docs/plugins/mdns.md", "THE MDNS PLUGIN" },
		{ "slp", "plugins/slp.so", "docs/plugins/slp.md", "THE SLP PLUGIN" },
		{ "dhcpv6", "plugins/dhcpv6.so", "docs/plugins/dhcpv6.md", "THE DHCPV6 PLUGIN" },
		{ "netbios-ns", "plugins/netbios-ns.so", "docs/plugins/netbios-ns.md",
		  "THE NETBIOS-NS PLUGIN" },
		{ "ssdp", "plugins/ssdp.so", "docs/plugins/ssdp.md", "THE SSDP PLUGIN" },
		{ "amanda", "plugins/amanda.so", "docs/plugins/amanda.md", "THE AMANDA PLUGIN" },
		{ "sane", "plugins/sane.so", "docs/plugins/sane.md", "THE SANE PLUGIN" },
		{ "toydata", "tests/toydata/toydata.so", "sdk/examples/toydata/README.md", NULL },
	};

	for (size_t i = 0; i < sizeof(plugins) / sizeof(plugins[0]); i++)
		test_plugin(plugins[i].name, plugins[i].so, plugins[i].md, plugins[i].man);
}

int main(void)
{
	test_options("cthelperd", MAN8, "man8");
	test_options("cthelper-replay", MAN1_REPLAY, "man1-replay");
	test_keys();
	test_plugins();
	return check_exit();
}
