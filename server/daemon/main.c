/* SPDX-License-Identifier: MIT */
/*
 * cthelperd: the command line.  What each mode does is elsewhere: serving
 * (serve.c, reload.c), --release (release.c), --print-rules (rules.c),
 * --check-kernel (kernel/kcheck.c); -n stops after the configuration and
 * its plugins are loaded (and their instances set up and torn down, as a
 * start would), listing what it found (show.c).
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include "base/log.h"
#include "control/metrics.h"
#include "daemon.h"
#include "kernel/kcheck.h"
#include "release.h"
#include "rules.h"
#include "runtime/config_load.h"
#include "sandbox/describe.h"
#include "sandbox/sandbox.h"
#include "sandbox/spawn.h"
#include "serve.h"
#include "show.h"

#ifndef CTH_VERSION
#define CTH_VERSION "0.0.0"
#endif

/* What the command line asks for. */
struct main_opts {
	const char *file;                /* -c */
	bool check, detach, release;     /* -n, -d, --release */
	int rules;                       /* --print-rules: enum rules_kind, or -1 */
};

static int main_opts_parse(int argc, char **argv, struct main_opts *o);
static void main_usage(FILE *out);
static int main_metrics_check(const struct cfg *cfg);
static int main_spawner_open(struct cfg *cfg);
static int main_sandboxes_check(struct runtime *rt);

int main(int argc, char **argv)
{
	static struct daemon d;
	struct main_opts o = { .file = CTH_DEFAULT_CONFIG, .rules = -1 };
	int rc = main_opts_parse(argc, argv, &o);
	struct cfg *cfg;
	struct runtime *rt;
	int level;

	if (rc >= 0)
		return rc;
	if (cfg_load(o.file, &cfg) < 0)
		return 1;
	/* --release reports every helper at notice: never hide that */
	level = o.release && cfg->log_level < LOG_L_NOTICE ? LOG_L_NOTICE : cfg->log_level;
	log_init(level, false);
	/* first, while this is one thread: the spawner, whose sandboxes
	 * describe the sandboxed helpers' plugins to runtime_build(); -n and
	 * --print-rules say what is wrong, not how the sandboxes started */
	if (o.check || o.rules >= 0)
		log_level_set(level < LOG_L_ERR ? level : LOG_L_ERR);
	rc = main_spawner_open(cfg);
	log_level_set(level);
	if (rc < 0) {
		cfg_free(cfg);
		return 1;
	}
	if (runtime_build(cfg, &rt) < 0)
		return 1;
	if (!o.release && o.rules < 0 && main_metrics_check(rt->cfg) < 0) {
		runtime_free(rt);
		return 1;
	}
	if (o.release)
		return release_run(rt, o.file);
	if (o.rules >= 0) {
		rc = rules_print(stdout, rt, (enum rules_kind)o.rules);
		runtime_free(rt);
		return rc < 0 ? 1 : 0;
	}
	if (o.check) {
		/* as a start would: their configure(), check() and init() */
		if (main_sandboxes_check(rt) < 0) {
			runtime_free(rt);
			return 1;
		}
		printf("%s: configuration OK: %zu helper(s), %zu plugin(s)\n",
		       o.file, rt->n_inst, rt->n_plugins);
		show_print(stdout, rt);
		runtime_free(rt);
		return 0;
	}
	if (o.detach)
		log_init(rt->cfg->log_level, true);
	atomic_store(&d.rt, rt);
	d.file = o.file;
	return serve_run(&d, o.detach);
}

/* -1 to go on with o filled, or the exit status now (--help, --version,
 * --check-kernel, a usage error). */
static int main_opts_parse(int argc, char **argv, struct main_opts *o)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "check", no_argument, NULL, 'n' },
		{ "daemon", no_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "check-kernel", no_argument, NULL, 'K' },
		{ "release", no_argument, NULL, 'R' },
		{ "print-rules", required_argument, NULL, 'P' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "c:ndhV", opts, NULL)) != -1) {
		switch (c) {
		case 'c': o->file = optarg; break;
		case 'n': o->check = true; break;
		case 'd': o->detach = true; break;
		case 'h': main_usage(stdout); return 0;
		case 'K': return kcheck_run();
		case 'R': o->release = true; break;
		case 'P':
			if ((o->rules = rules_kind_parse(optarg)) < 0) {
				fprintf(stderr, "cthelperd: --print-rules: '%s' is not nft or iptables\n", optarg);
				main_usage(stderr);
				return 2;
			}
			break;
		case 'V': printf("cthelperd %s (plugin ABI %u)\n", CTH_VERSION, CTH_ABI_VERSION); return 0;
		default: main_usage(stderr); return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "cthelperd: unexpected argument '%s'\n", argv[optind]);
		main_usage(stderr);
		return 2;
	}
	if (o->release && (o->check || o->detach)) {
		fprintf(stderr, "cthelperd: --release goes without -n and -d\n");
		main_usage(stderr);
		return 2;
	}
	if (o->rules >= 0 && (o->check || o->detach || o->release)) {
		fprintf(stderr, "cthelperd: --print-rules goes without -n, -d and --release\n");
		main_usage(stderr);
		return 2;
	}
	return -1;
}

static void main_usage(FILE *out)
{
	fprintf(out,
		"Usage: cthelperd [-c FILE] [-n] [-d] [-h] [-V] [--check-kernel] [--release]\n"
		"                 [--print-rules nft|iptables]\n"
		"User-space connection tracking helper server for Linux netfilter.\n"
		"\n"
		"  -c, --config FILE  configuration file (default %s)\n"
		"  -n, --check        check the configuration and plugins, list each\n"
		"                     helper (plugin, version, protocols, families,\n"
		"                     queues, classes, keys), then exit\n"
		"                     (0 if good; else print FILE:LINE: message, exit 1)\n"
		"  -d, --daemon       detach and log to syslog (default: foreground, stderr)\n"
		"      --check-kernel report what the running kernel offers and\n"
		"                     what to do about anything missing, and the\n"
		"                     in-kernel helpers loaded (their names are\n"
		"                     taken: EBUSY), then exit\n"
		"      --release      disable, then delete every kernel helper FILE\n"
		"                     configures, whoever registered it, and every\n"
		"                     one a daemon run with FILE recorded (runtime_dir),\n"
		"                     then exit\n"
		"                     (0 when all are gone, or left disabled where a\n"
		"                     rule still names them): after a crash or kill -9\n"
		"                     helpers stay ENABLED and new connections on their\n"
		"                     ports break until this runs or cthelperd restarts\n"
		"      --print-rules KIND\n"
		"                     print the nft or iptables rules (KIND) that\n"
		"                     attach FILE's helpers, then exit; load them\n"
		"                     only while cthelperd runs\n"
		"  -h, --help         this text\n"
		"  -V, --version      print the version\n"
		"\n"
		"Signals: SIGTERM/SIGINT stop cleanly (helpers disabled, then deleted);\n"
		"SIGHUP reloads FILE (and plugins); on any error the running\n"
		"configuration stays.\n"
		"See cthelperd(8) and cthelperd.conf(5).\n",
		CTH_DEFAULT_CONFIG);
}

/* libmicrohttpd is loaded only for a configured endpoint (metrics.c), so
 * its absence is a configuration error like a bad metrics value: found
 * by -n, and at start before anything touches the kernel. */
static int main_metrics_check(const struct cfg *cfg)
{
	char why[512];

	if (!cfg->metrics || metrics_lib_load(why, sizeof(why)) == 0)
		return 0;
	cfg_error(cfg, cfg->metrics_line, "metrics: %s", why);
	return -1;
}

/* With a sandboxed helper, the spawner: its plugin is described by a
 * sandbox, never loaded here (docs/security.md), so without one there is
 * nothing to go on with. */
static int main_spawner_open(struct cfg *cfg)
{
	bool any = false;

	for (size_t i = 0; i < cfg->n_helpers; i++)
		any |= cfg->helpers[i].sandbox.on;
	if (!any)
		return 0;
	if (spawn_open(cfg) < 0) {
		fprintf(stderr, "cthelperd: %s: sandboxed helpers need the sandbox spawner, "
			"which did not start (see above); sandbox = no runs a helper's plugin "
			"in the daemon instead\n", cfg->file);
		return -1;
	}
	cfg->describe = sandbox_describe;
	return 0;
}

/* -n: the sandboxes started and stopped, so that what their plugins
 * refuse is found now, at its line. */
static int main_sandboxes_check(struct runtime *rt)
{
	int rc;

	if (!spawn_is_open())
		return 0;
	log_level_set(rt->cfg->log_level < LOG_L_ERR ? rt->cfg->log_level : LOG_L_ERR);
	rc = sandbox_start_all(rt, NULL);
	sandbox_stop_all(rt);
	spawn_close();
	log_level_set(rt->cfg->log_level);
	return rc;
}
