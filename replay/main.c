/* SPDX-License-Identifier: MIT */
/*
 * cthelper-replay: run a plugin on a capture, offline, and show every
 * action it takes.  The plugin is loaded and configured by the daemon's
 * own loader and config parser (a [helper] section is built from the
 * options), and called through the daemon's own host code
 * (pkt_call_run, cth_mangle's edits and checksums, cth_keep's table);
 * what the kernel adds is emulated in conn.c, nat.c, view.c, expect.c and
 * related.c.  The exit status tells a run that went as it should (0) from
 * output that differs (1), a usage or configuration error (2), a crash
 * (3, crash.c) and, with --strict, a NAT that delivers wrong (4).
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "runtime/config_load.h"
#include "sandbox/describe.h"
#include "sandbox/sandbox.h"
#include "sandbox/spawn.h"
#include "runtime/keys.h"
#include "base/log.h"
#include "replay.h"

#ifndef CTH_VERSION
#define CTH_VERSION "dev"
#endif

#define RP_MAX_OPTS CFG_MAX_OPTS

struct rp_opts {
	const char *plugin, *capture, *write, *expect, *helper;
	const char *opts[RP_MAX_OPTS];
	unsigned int n_opts;
	uint16_t ports[RP_PORTS_MAX];
	size_t n_ports;
	uint8_t proto;               /* 0: the plugin's, or the first flow's */
	bool quiet, debug, strict, filter;
	const char *snat, *dnat;
	const char *link;            /* --link ADDR/PREFIX[,...] */
	bool sandbox;                /* --sandbox: the plugin as the daemon runs it */
};

/* The [helper] section the options become, and what each of its lines
 * stands for in the messages of the daemon's parser (rp_cfg_say). */
#define RP_CFG_NAME "<options>"

struct rp_cfg_text {
	const struct rp_opts *o;
	char helper[CTH_NAME_LEN];
};

struct rp_tool {
	struct rp_opts *o;
	struct rp_capture *cap;
	struct rp_engine e;
};

static int rp_opts_parse(int argc, char **argv, struct rp_opts *o);
static int rp_port_add(struct rp_opts *o, const char *v);
static void rp_usage(FILE *fp);
static int rp_open(struct rp_tool *t, struct runtime **rt);
static int rp_nat_opt(const char *name, const char *v, struct rp_nat *n);
static int rp_runtime_build(const struct rp_opts *o, struct runtime **rt);
static int rp_sandbox_start(struct runtime *rt);
static int rp_sandbox_run(const struct instance *inst, struct pkt_call *call,
			  const uint8_t *priv, size_t priv_len, uint64_t now_ms);
static int rp_helper_name(const struct rp_opts *o, const char *plugin, char *out);
static void rp_cfg_say(void *arg, int level, const char *line);
static void rp_tool_emit(void *arg, const struct rp_frame *f, const uint8_t *l3, size_t len);
static void rp_header(struct rp_tool *t);

int main(int argc, char **argv)
{
	static struct rp_tool tool;
	struct rp_opts o = { 0 };
	struct runtime *rt = NULL;
	struct rp_frame f;
	int rc, status = RP_EXIT_OK;

	/* the daemon's code run here (log lines, the loader's refusals)
	 * names this tool, not the daemon; every message of ours too */
	log_program_set("cthelper-replay");
	if ((rc = rp_opts_parse(argc, argv, &o)) != 0)
		return rc;
	log_init(LOG_L_WARNING, 0);
	tool.o = &o;
	if (rp_report_open(&tool.e.rep, o.quiet ? NULL : stdout) < 0)
		return RP_EXIT_USAGE;
	if (rp_open(&tool, &rt) < 0) {
		status = RP_EXIT_USAGE;
		goto out;
	}
	rp_crash_arm(&tool.e.frames);
	rp_header(&tool);
	while ((rc = rp_capture_next(tool.cap, &f)) > 0)
		rp_engine_frame(&tool.e, &f);
	if (rc < 0) {
		fprintf(stderr, "%s: %s: read error after frame %lu\n", log_program(), o.capture,
			tool.e.frames);
		status = RP_EXIT_USAGE;
		goto out;
	}
	rp_engine_summary(&tool.e);
	if (o.expect) {
		rc = rp_report_compare(&tool.e.rep, o.expect);
		if (rc < 0) {
			fprintf(stderr, "%s: %s: %s\n", log_program(), o.expect, strerror(-rc));
			status = RP_EXIT_USAGE;
		} else {
			status = rc ? RP_EXIT_DIFFERS : RP_EXIT_OK;
		}
	}
	if (status == RP_EXIT_OK && o.strict && tool.e.wrong) {
		fprintf(stderr, "%s: --strict: %lu expected connection%s delivered wrong\n",
			log_program(), tool.e.wrong, tool.e.wrong == 1 ? "" : "s");
		status = RP_EXIT_WRONG;
	}
out:
	rp_capture_close(tool.cap);
	rp_report_close(&tool.e.rep);
	rp_engine_free(&tool.e);
	if (rt)
		sandbox_stop_all(rt);
	spawn_close();
	runtime_free(rt);
	return status;
}

/* 0, or the exit status to leave with. */
static int rp_opts_parse(int argc, char **argv, struct rp_opts *o)
{
	enum { OPT_SNAT = 256, OPT_DNAT, OPT_EXPECT, OPT_STRICT, OPT_HELPER, OPT_LINK,
	       OPT_SANDBOX, OPT_FILTER };
	static const struct option longs[] = {
		{ "port", required_argument, NULL, 'p' },
		{ "proto", required_argument, NULL, 'P' },
		{ "option", required_argument, NULL, 'o' },
		{ "snat", required_argument, NULL, OPT_SNAT },
		{ "dnat", required_argument, NULL, OPT_DNAT },
		{ "write", required_argument, NULL, 'w' },
		{ "expect", required_argument, NULL, OPT_EXPECT },
		{ "strict", no_argument, NULL, OPT_STRICT },
		{ "helper", required_argument, NULL, OPT_HELPER },
		{ "link", required_argument, NULL, OPT_LINK },
		{ "sandbox", no_argument, NULL, OPT_SANDBOX },
		{ "filter", no_argument, NULL, OPT_FILTER },
		{ "debug", no_argument, NULL, 'd' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	while ((ch = getopt_long(argc, argv, "p:P:o:w:dqVh", longs, NULL)) != -1) {
		switch (ch) {
		case 'p':
			if (rp_port_add(o, optarg) < 0) {
				fprintf(stderr, "%s: -p %s: a port 1..65535 (at most %u)\n",
					log_program(), optarg, RP_PORTS_MAX);
				return RP_EXIT_USAGE;
			}
			break;
		case 'P':
			if (strcmp(optarg, "tcp") && strcmp(optarg, "udp")) {
				fprintf(stderr, "%s: -P %s: tcp or udp\n", log_program(), optarg);
				return RP_EXIT_USAGE;
			}
			o->proto = optarg[0] == 't' ? IPPROTO_TCP : IPPROTO_UDP;
			break;
		case 'o':
			if (!strchr(optarg, '=') || optarg[0] == '=' || strchr(optarg, '\n')) {
				fprintf(stderr, "%s: -o %s: KEY=VALUE\n", log_program(), optarg);
				return RP_EXIT_USAGE;
			}
			if (o->n_opts == RP_MAX_OPTS) {
				fprintf(stderr, "%s: at most %u -o options\n", log_program(),
					RP_MAX_OPTS);
				return RP_EXIT_USAGE;
			}
			o->opts[o->n_opts++] = optarg;
			break;
		case OPT_SNAT:
			o->snat = optarg;
			break;
		case OPT_DNAT:
			o->dnat = optarg;
			break;
		case 'w':
			o->write = optarg;
			break;
		case OPT_EXPECT:
			o->expect = optarg;
			break;
		case OPT_STRICT:
			o->strict = true;
			break;
		case OPT_HELPER:
			o->helper = optarg;
			break;
		case OPT_LINK:
			o->link = optarg;
			break;
		case OPT_SANDBOX:
			o->sandbox = true;
			break;
		case OPT_FILTER:
			o->filter = true;
			break;
		case 'd':
			o->debug = true;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'V':
			printf("%s %s (plugin ABI %u)\n", log_program(), CTH_VERSION, CTH_ABI_VERSION);
			exit(RP_EXIT_OK);
		case 'h':
			rp_usage(stdout);
			exit(RP_EXIT_OK);
		default:
			rp_usage(stderr);
			return RP_EXIT_USAGE;
		}
	}
	if (argc - optind != 2) {
		rp_usage(stderr);
		return RP_EXIT_USAGE;
	}
	o->plugin = argv[optind];
	o->capture = argv[optind + 1];
	return 0;
}

static int rp_port_add(struct rp_opts *o, const char *v)
{
	char *end;
	unsigned long p;

	/* digits only: strtoul() would take " 80" and "+80" */
	if (!*v || strspn(v, "0123456789") != strlen(v))
		return -EINVAL;
	p = strtoul(v, &end, 10);
	if (p < 1 || p > 65535 || o->n_ports == RP_PORTS_MAX)
		return -EINVAL;
	o->ports[o->n_ports++] = (uint16_t)p;
	return 0;
}

static void rp_usage(FILE *fp)
{
	fprintf(fp,
		"usage: cthelper-replay [options] PLUGIN.so CAPTURE\n"
		"Run a cthelperd plugin on the packets of a pcap or pcapng capture, with an\n"
		"emulated conntrack, and print every action it takes.\n"
		"\n"
		"  -p, --port PORT          destination port of the connections the helper\n"
		"                           is attached to (repeatable; default: rule_ports,\n"
		"                           else the capture's first packet's)\n"
		"  -P, --proto tcp|udp      only connections of this protocol (default: any\n"
		"                           the plugin speaks)\n"
		"  -o, --option KEY=VALUE   a key of the helper's config section (repeatable)\n"
		"      --snat ADDR[:PORT]   the firewall source-NATs the helped connections\n"
		"                           (and others from behind it) to ADDR, ports from\n"
		"                           PORT up (default: kept while free)\n"
		"      --dnat ADDR[:PORT]   the firewall destination-NATs the helped\n"
		"                           connections to ADDR\n"
		"      --link ADDR/PREFIX[,ADDR/PREFIX...]\n"
		"                           the firewall's addresses on its one link (lan):\n"
		"                           packets from them are its own, the others came\n"
		"                           in on the lan (what cth_link() tells the plugin)\n"
		"      --sandbox            run the plugin in its sandbox, as the daemon does\n"
		"                           (docs/security.md): a system call the sandbox\n"
		"                           refuses, a crash or a call past its budget shows\n"
		"                           as a 'sandbox:' line, the packet passed unhelped\n"
		"      --filter             only the packets kmod/ would queue reach the\n"
		"                           plugin (its match rules; the others pass as\n"
		"                           the kernel passes them, counted on 'filter:')\n"
		"      --helper NAME        the helper's name (default: the plugin's file name,\n"
		"                           within the kernel's 15 characters)\n"
		"  -w, --write OUT.pcap     write the packets as their verdicts leave them\n"
		"      --expect FILE        compare the output with FILE; exit 1 if it differs\n"
		"      --strict             exit 4 when an expected connection is delivered\n"
		"                           where the capture's endpoint is not (WRONG)\n"
		"  -d, --debug              show the plugin's debug log lines too\n"
		"  -q, --quiet              print nothing on standard output\n"
		"  -V, --version            print the version and the plugin ABI\n"
		"  -h, --help               this text\n"
		"\n"
		"Exit status: 0 done (and equal to --expect), 1 the output differs from\n"
		"--expect, 2 bad usage, an unreadable capture or golden file, a refused\n"
		"plugin or one whose sanitizer runtime is missing, 3 the plugin crashed or\n"
		"a sanitizer reported an error, 4 --strict and an expected connection was\n"
		"delivered wrong.  See cthelper-replay(1).\n");
}

static int rp_open(struct rp_tool *t, struct runtime **rt)
{
	const struct rp_opts *o = t->o;
	struct rp_engine *e = &t->e;
	char err[512];

	if (rp_nat_opt("snat", o->snat, &e->ct.snat) ||
	    rp_nat_opt("dnat", o->dnat, &e->ct.dnat))
		return -EINVAL;
	/* the loader's and parser's own messages reach stderr */
	if (rp_runtime_build(o, rt) < 0)
		return -EINVAL;
	rp_engine_init(e, &(*rt)->inst[0]);
	if (o->link && rp_engine_link_parse(e, o->link) < 0) {
		fprintf(stderr, "%s: --link %s: ADDR/PREFIX[,ADDR/PREFIX...] (at most %u)\n",
			log_program(), o->link, RP_LINK_MAX);
		return -EINVAL;
	}
	e->rep.debug = o->debug;
	e->proto = o->proto;
	if (o->filter)
		rp_engine_filter_set(e);
	memcpy(e->ports, o->ports, sizeof(e->ports));
	e->n_ports = o->n_ports;
	if (!e->n_ports) {
		const struct cfg_helper *h = &(*rt)->cfg->helpers[0];

		for (size_t i = 0; i < h->n_rule_ports && e->n_ports < RP_PORTS_MAX; i++)
			e->ports[e->n_ports++] = h->rule_ports[i];
	}
	/* as --print-rules: the plugin's declared rule ports (SDK 3) */
	if (!e->n_ports)
		e->n_ports = keys_rule_ports(e->inst->pl->desc, e->inst->config, e->ports,
					     RP_PORTS_MAX);
	if (rp_capture_open(o->capture, &t->cap, err, sizeof(err)) < 0 ||
	    (o->write && rp_capture_dump_open(t->cap, o->write, err, sizeof(err)) < 0)) {
		fprintf(stderr, "%s: %s\n", log_program(), err);
		return -EINVAL;
	}
	e->emit = rp_tool_emit;
	e->emit_arg = t->cap;
	if (o->sandbox)
		e->sandboxed = rp_sandbox_run;
	return 0;
}

static int rp_nat_opt(const char *name, const char *v, struct rp_nat *n)
{
	if (!v)
		return 0;
	if (rp_nat_parse(v, n) == 0)
		return 0;
	fprintf(stderr, "%s: --%s %s: ADDR[:PORT] or [ADDR6][:PORT]\n", log_program(), name, v);
	return -EINVAL;
}

/*
 * The plugin as the daemon would run it: a [helper NAME] section with the
 * -o keys, parsed by the daemon's parser and built by its runtime (loader
 * checks, ABI, configure(), policy keys).  Their messages name a line of
 * that section: rp_cfg_say() says which option or file it stands for.
 */
static int rp_runtime_build(const struct rp_opts *o, struct runtime **rt)
{
	char dir[PATH_MAX], copy[PATH_MAX], name[PATH_MAX], *text = NULL;
	struct rp_cfg_text ct = { .o = o };
	size_t len = 0, blen;
	struct cfg *cfg;
	FILE *fp;
	int rc;

	/* basename() and dirname() may write into what they are given */
	snprintf(copy, sizeof(copy), "%s", o->plugin);
	snprintf(name, sizeof(name), "%s", basename(copy));
	blen = strlen(name);
	if (blen < 4 || strcmp(name + blen - 3, ".so") != 0) {
		fprintf(stderr, "%s: %s: a plugin file NAME.so\n", log_program(), o->plugin);
		return -EINVAL;
	}
	name[blen - 3] = 0;
	snprintf(copy, sizeof(copy), "%s", o->plugin);
	if (!realpath(dirname(copy), dir)) {
		rc = -errno;
		fprintf(stderr, "%s: %s: %s\n", log_program(), o->plugin, strerror(-rc));
		return rc;
	}
	if ((rc = rp_helper_name(o, name, ct.helper)) < 0 ||
	    (rc = rp_crash_runtime_check(o->plugin)) < 0)
		return rc;
	fp = open_memstream(&text, &len);
	if (!fp)
		return -ENOMEM;
	fprintf(fp, "[helper %s]\n", ct.helper);
	for (unsigned int i = 0; i < o->n_opts; i++) {
		const char *eq = strchr(o->opts[i], '=');

		fprintf(fp, "%.*s = %s\n", (int)(eq - o->opts[i]), o->opts[i], eq + 1);
	}
	fprintf(fp, "plugin = %s\n[server]\nplugin_dir = %s\n", name, dir);
	fclose(fp);
	fp = fmemopen(text, len, "r");
	if (!fp) {
		free(text);
		return -ENOMEM;
	}
	/* the parser's and the loader's lines go to rp_cfg_say() alone */
	log_capture_set(rp_cfg_say, &ct);
	log_level_set(0);
	rc = cfg_load_fp(RP_CFG_NAME, fp, &cfg);
	fclose(fp);
	free(text);
	/* sandboxed, as in the daemon: the plugin is described by a sandbox
	 * (none of its code runs here), and set up in its own */
	if (rc == 0 && o->sandbox && cfg->helpers[0].sandbox.on) {
		if (spawn_open(cfg) < 0) {
			fprintf(stderr, "%s: --sandbox: the spawner did not start\n",
				log_program());
			cfg_free(cfg);
			rc = -EINVAL;
		} else {
			cfg->describe = sandbox_describe;
		}
	}
	if (rc == 0)
		rc = runtime_build(cfg, rt);
	/* its configure(), check() and init() refusals name a line too */
	if (rc == 0 && o->sandbox)
		rc = rp_sandbox_start(*rt);
	log_level_set(LOG_L_WARNING);
	log_capture_set(NULL, NULL);
	return rc;
}

static int rp_sandbox_run(const struct instance *inst, struct pkt_call *call,
			  const uint8_t *priv, size_t priv_len, uint64_t now_ms)
{
	/* now_ms is the clock's (the engine's copy of the kept bytes runs on
	 * it too); a dead sandbox is started again at once, not after the
	 * backoff */
	sandbox_revive(inst->sb);
	return sandbox_run(inst->sb, call, priv, priv_len, now_ms, NULL);
}

/* The spawner and the plugin's sandbox, as the daemon starts them (as
 * this user: no user to change to); without --sandbox the instance has
 * none and the engine calls the plugin in process. */
static int rp_sandbox_start(struct runtime *rt)
{
	struct instance *in = &rt->inst[0];

	if (!in->sandbox.on) {
		fprintf(stderr, "%s: --sandbox with -o sandbox=no\n", log_program());
		return -EINVAL;
	}
	if (spawn_open(rt->cfg) < 0 || sandbox_start_all(rt, NULL) < 0) {
		fprintf(stderr, "%s: the plugin's sandbox did not start%s%s\n", log_program(),
			in->sb_status.reason[0] ? ": " : "", in->sb_status.reason);
		return -EINVAL;
	}
	return 0;
}

/*
 * The helper's name: --helper's, else the plugin's file name where it is
 * one (the kernel's 15 characters of [A-Za-z0-9_-]), else that name made
 * one and said so: a name is never cut silently.
 */
static int rp_helper_name(const struct rp_opts *o, const char *plugin, char *out)
{
	size_t n = 0;

	if (o->helper) {
		/* its characters are the parser's to check (rp_cfg_say) */
		if (!*o->helper || strlen(o->helper) >= CTH_NAME_LEN ||
		    strcspn(o->helper, "]\n") != strlen(o->helper)) {
			fprintf(stderr, "%s: --helper %s: 1..%u characters of [A-Za-z0-9_-] "
				"(kernel limit)\n", log_program(), o->helper, CTH_NAME_LEN - 1);
			return -EINVAL;
		}
		snprintf(out, CTH_NAME_LEN, "%s", o->helper);
		return 0;
	}
	for (const char *p = plugin; *p && n < CTH_NAME_LEN - 1; p++)
		out[n++] = isalnum((unsigned char)*p) || *p == '-' || *p == '_' ? *p : '_';
	out[n] = 0;
	if (strcmp(out, plugin) != 0)
		fprintf(stderr, "%s: %s: the helper is named '%s': '%s' is no helper name "
			"(1..%u characters of [A-Za-z0-9_-], the kernel's limit); --helper "
			"NAME names it\n", log_program(), o->plugin, out, plugin, CTH_NAME_LEN - 1);
	return 0;
}

/*
 * A line of the daemon's parser or loader, "RP_CFG_NAME:LINE: message",
 * said as what that line stands for: line 1 the helper (the plugin file,
 * or --helper), then one line per -o, then the plugin file again.
 */
static void rp_cfg_say(void *arg, int level, const char *line)
{
	const struct rp_cfg_text *ct = arg;
	const struct rp_opts *o = ct->o;
	size_t nlen = strlen(RP_CFG_NAME);
	char where[512];
	unsigned long n = 0;
	char *end = NULL;

	(void)level;
	if (strncmp(line, RP_CFG_NAME ":", nlen + 1) == 0)
		n = strtoul(line + nlen + 1, &end, 10);
	if (!end || strncmp(end, ": ", 2) != 0) {
		fprintf(stderr, "%s: %s\n", log_program(), line);
		return;
	}
	if (n >= 2 && n - 2 < o->n_opts)
		snprintf(where, sizeof(where), "-o %s", o->opts[n - 2]);
	else if (n == 1 && o->helper)
		snprintf(where, sizeof(where), "--helper %s", o->helper);
	else
		snprintf(where, sizeof(where), "%s", o->plugin);
	fprintf(stderr, "%s: %s: %s\n", log_program(), where, end + 2);
}

static void rp_tool_emit(void *arg, const struct rp_frame *f, const uint8_t *l3, size_t len)
{
	rp_capture_dump(arg, f, l3, len);
}

/* The header names the helper as the run sees it: no path, no version,
 * nothing that differs between two runs of one case; nor the sandbox_*
 * keys, which say how the plugin is run, not what it does (a --sandbox
 * run's trace is the in-process one's). */
static void rp_header(struct rp_tool *t)
{
	const struct instance *in = t->e.inst;
	const struct rp_opts *opt = t->o;
	char line[1024];
	size_t o = 0;

	o += (size_t)snprintf(line + o, sizeof(line) - o, "plugin %s, helper %s, classes",
			      in->pl->desc->name, in->name);
	for (unsigned int i = 0; i < in->n_classes && o < sizeof(line); i++)
		o += (size_t)snprintf(line + o, sizeof(line) - o, "%s %s %u/%us", i ? "," : "",
				      in->classes[i].name, in->classes[i].max,
				      in->classes[i].timeout);
	for (unsigned int i = 0; i < opt->n_opts && o < sizeof(line); i++)
		if (strncmp(opt->opts[i], "sandbox", 7) != 0)
			o += (size_t)snprintf(line + o, sizeof(line) - o, ", -o %s",
					      opt->opts[i]);
	if (opt->snat && o < sizeof(line))
		o += (size_t)snprintf(line + o, sizeof(line) - o, ", snat %s", opt->snat);
	if (opt->dnat && o < sizeof(line))
		o += (size_t)snprintf(line + o, sizeof(line) - o, ", dnat %s", opt->dnat);
	if (opt->link && o < sizeof(line))
		snprintf(line + o, sizeof(line) - o, ", link %s", opt->link);
	rp_report_line(&t->e.rep, false, "%s", line);
	if (t->e.n_ports)
		rp_engine_header_ports(&t->e);
}
