/* SPDX-License-Identifier: MIT */
/*
 * cthelper-replay: run a plugin on a capture, offline, and show every
 * action it takes.  The plugin is loaded and configured by the daemon's
 * own loader and config parser (a [helper] section is built from the
 * options), and called through the daemon's own host code
 * (pkt_call_run, cth_mangle's edits and checksums, cth_keep's table);
 * what the kernel adds is emulated in conn.c and expect.c.
 */
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

#include "config.h"
#include "keep.h"
#include "log.h"
#include "replay.h"

#ifndef CTH_VERSION
#define CTH_VERSION "dev"
#endif

#define RP_MAX_OPTS CFG_MAX_OPTS
#define RP_MAX_PORTS 16u

struct rp_opts {
	const char *plugin, *capture, *write, *expect;
	const char *opts[RP_MAX_OPTS];
	unsigned int n_opts;
	uint16_t ports[RP_MAX_PORTS];
	size_t n_ports;
	uint8_t proto;               /* 0: the plugin's, or the first flow's */
	bool quiet, debug;
	const char *snat, *dnat;
};

struct rp_run {
	struct rp_opts *o;
	const struct instance *inst;
	struct rp_capture *cap;
	struct rp_conns ct;
	struct rp_expects x;
	struct rp_report rep;
	struct keep keep;
	unsigned long frames, not_ip, calls, edits_packets, drops, related, helped;
	uint8_t buf[RP_FRAME_MAX];
};

static void rp_usage(FILE *fp)
{
	fprintf(fp,
		"usage: cthelper-replay [options] PLUGIN.so CAPTURE\n"
		"Run a cthelperd plugin on the packets of a pcap or pcapng capture, with an\n"
		"emulated conntrack, and print every action it takes.\n"
		"\n"
		"  -p, --port PORT      destination port of the connections the helper is\n"
		"                       attached to (repeatable; default: rule_ports, else\n"
		"                       the first connection's)\n"
		"  -P, --proto tcp|udp  their protocol (default: the plugin's, else the first\n"
		"                       connection's)\n"
		"  -o KEY=VALUE         a key of the helper's config section (repeatable)\n"
		"      --snat ADDR[:PORT]  the helped connections are source-NATed to ADDR\n"
		"      --dnat ADDR[:PORT]  the helped connections are destination-NATed to ADDR\n"
		"  -w OUT.pcap          write the packets as the verdicts leave them\n"
		"      --expect FILE    compare the output with FILE; exit 1 if it differs\n"
		"  -d, --debug          show the plugin's debug log lines too\n"
		"  -q, --quiet          print nothing on standard output\n"
		"  -V, --version        print the version and the plugin ABI\n"
		"  -h, --help           this text\n"
		"\n"
		"Exit status: 0 done (and equal to --expect), 1 the output differs from\n"
		"--expect, 2 bad usage, an unreadable capture or a refused plugin.\n"
		"See cthelper-replay(1).\n");
}

static int rp_port_add(struct rp_opts *o, const char *v)
{
	char *end;
	unsigned long p = strtoul(v, &end, 10);

	if (!*v || *end || p < 1 || p > 65535 || o->n_ports == RP_MAX_PORTS)
		return -EINVAL;
	o->ports[o->n_ports++] = (uint16_t)p;
	return 0;
}

/* 0, or the exit status to leave with. */
static int rp_opts_parse(int argc, char **argv, struct rp_opts *o)
{
	enum { OPT_SNAT = 256, OPT_DNAT, OPT_EXPECT };
	static const struct option longs[] = {
		{ "port", required_argument, NULL, 'p' },
		{ "proto", required_argument, NULL, 'P' },
		{ "option", required_argument, NULL, 'o' },
		{ "snat", required_argument, NULL, OPT_SNAT },
		{ "dnat", required_argument, NULL, OPT_DNAT },
		{ "write", required_argument, NULL, 'w' },
		{ "expect", required_argument, NULL, OPT_EXPECT },
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
				fprintf(stderr, "cthelper-replay: -p %s: a port 1..65535 (at most %u)\n",
					optarg, RP_MAX_PORTS);
				return 2;
			}
			break;
		case 'P':
			if (strcmp(optarg, "tcp") && strcmp(optarg, "udp")) {
				fprintf(stderr, "cthelper-replay: -P %s: tcp or udp\n", optarg);
				return 2;
			}
			o->proto = optarg[0] == 't' ? IPPROTO_TCP : IPPROTO_UDP;
			break;
		case 'o':
			if (!strchr(optarg, '=') || optarg[0] == '=' || strchr(optarg, '\n')) {
				fprintf(stderr, "cthelper-replay: -o %s: KEY=VALUE\n", optarg);
				return 2;
			}
			if (o->n_opts == RP_MAX_OPTS) {
				fprintf(stderr, "cthelper-replay: at most %u -o options\n", RP_MAX_OPTS);
				return 2;
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
		case 'd':
			o->debug = true;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'V':
			printf("cthelper-replay %s (plugin ABI %u)\n", CTH_VERSION, CTH_ABI_VERSION);
			exit(0);
		case 'h':
			rp_usage(stdout);
			exit(0);
		default:
			rp_usage(stderr);
			return 2;
		}
	}
	if (argc - optind != 2) {
		rp_usage(stderr);
		return 2;
	}
	o->plugin = argv[optind];
	o->capture = argv[optind + 1];
	return 0;
}

/*
 * The plugin as the daemon would run it: a [helper NAME] section with the
 * -o keys, parsed by the daemon's parser and built by its runtime (loader
 * checks, ABI, configure(), policy keys).  Errors name "-o:LINE": the
 * first -o is line 2.
 */
static int rp_runtime_build(const struct rp_opts *o, struct runtime **rt)
{
	char dir[PATH_MAX], base[PATH_MAX], *text = NULL, *name;
	size_t len = 0, blen;
	struct cfg *cfg;
	FILE *fp;
	int rc;

	snprintf(base, sizeof(base), "%s", o->plugin);
	name = basename(base);
	blen = strlen(name);
	if (blen < 4 || strcmp(name + blen - 3, ".so") != 0) {
		fprintf(stderr, "cthelper-replay: %s: a plugin file NAME.so\n", o->plugin);
		return -EINVAL;
	}
	name[blen - 3] = 0;
	snprintf(base, sizeof(base), "%s", o->plugin);
	if (!realpath(dirname(base), dir)) {
		fprintf(stderr, "cthelper-replay: %s: %s\n", o->plugin, strerror(errno));
		return -errno;
	}
	snprintf(base, sizeof(base), "%s", o->plugin);
	name = basename(base);
	name[strlen(name) - 3] = 0;
	fp = open_memstream(&text, &len);
	if (!fp)
		return -ENOMEM;
	fprintf(fp, "[helper %.15s]\n", name);
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
	rc = cfg_load_fp("-o", fp, &cfg);
	fclose(fp);
	free(text);
	if (rc < 0)
		return rc;
	return runtime_build(cfg, rt);
}

/* ------------------------------------------------------------ the loop */

/* A flow of the helper's families and protocol? */
static bool rp_proto_ok(const struct rp_run *r, const struct cth_tuple *t)
{
	const struct instance *in = r->inst;
	unsigned int fam = t->family == AF_INET6 ? CTH_FAMILY_IPV6 : CTH_FAMILY_IPV4;
	unsigned int pr = t->proto == IPPROTO_UDP ? CTH_PROTO_UDP : CTH_PROTO_TCP;

	return (in->families & fam) && (in->protocols & pr) &&
	       (!r->o->proto || r->o->proto == t->proto);
}

static bool rp_port_helped(const struct rp_run *r, const struct cth_tuple *t)
{
	if (!rp_proto_ok(r, t))
		return false;
	for (size_t i = 0; i < r->o->n_ports; i++)
		if (r->o->ports[i] == t->dport)
			return true;
	return false;
}

/* The expected connection is sent where its expectation says (DNAT of
 * nf_nat_follow_master, or the NAT fields), unless it already goes there
 * in the capture (taken behind the NAT). */
static void rp_conn_expected(struct rp_conn *c, const struct rp_exp *e)
{
	const union cth_addr *to = rp_expect_target(e);
	struct cth_tuple *rt = &c->t[CTH_DIR_REPLY];

	c->status |= CTH_CT_EXPECTED;
	c->master = e->master;
	c->master_tuple = e->master_t[CTH_DIR_ORIGINAL];
	c->expectation = e->id;
	c->helped = e->e.flags & CTH_EXPECT_HELPER;
	if (!(e->e.flags & CTH_EXPECT_NAT))
		return;
	if (memcmp(rt->src.raw, to->raw, sizeof(to->raw)) == 0 && rt->sport == e->e.nat_port)
		return;
	memcpy(rt->src.raw, to->raw, sizeof(to->raw));
	rt->sport = e->e.nat_port;
	c->nat |= CTH_NAT_DST;
}

static void rp_conn_show(struct rp_run *r, const struct rp_conn *c, const char *what)
{
	char t[160], n[160] = "", tail[64] = "";

	rp_fmt_tuple(t, sizeof(t), &c->t[CTH_DIR_ORIGINAL]);
	if (c->nat) {
		n[0] = ' ';
		memcpy(n + 1, "nat reply ", 10);
		rp_fmt_tuple(n + 11, sizeof(n) - 11, &c->t[CTH_DIR_REPLY]);
		/* the protocol was said once */
		memmove(n + 11, n + 15, strlen(n + 15) + 1);
	}
	if (c->master)
		snprintf(tail, sizeof(tail), " expectation %u of conn %u", c->expectation, c->master);
	rp_report_line(&r->rep, false, "conn %u %s %s%s%s%s", c->id, what, t, tail,
		       c->helped ? " helped" : "", n);
}

/* Detaches waiting for expectations: done once the master has none. */
static void rp_detach_settle(struct rp_run *r)
{
	for (struct rp_conn *c = r->ct.head; c; c = c->next) {
		if (!c->detach_wait || rp_expect_count(&r->x, c->id))
			continue;
		c->detach_wait = false;
		c->helped = false;
		rp_report_line(&r->rep, false, "conn %u detached (its expectations are gone)", c->id);
	}
}

static struct rp_conn *rp_conn_lookup(struct rp_run *r, const struct cth_tuple *hdr,
				      uint8_t flags, enum cth_dir *dir)
{
	struct rp_conn *c = rp_conn_find(&r->ct, hdr, dir);
	struct rp_exp e;
	bool syn = (flags & (TH_SYN | TH_ACK)) == TH_SYN;

	/* a new SYN on a finished connection starts a new one (TIME_WAIT
	 * reuse); its packets' helper and state start over */
	if (c && c->closed && syn && *dir == CTH_DIR_ORIGINAL) {
		rp_conn_forget(&r->ct, c);
		c = NULL;
	}
	if (c)
		return c;
	*dir = CTH_DIR_ORIGINAL;
	if (rp_expect_match(&r->x, hdr, &e)) {
		c = rp_conn_new(&r->ct, hdr, false);
		if (!c)
			return NULL;
		rp_conn_expected(c, &e);
		r->related++;
		rp_conn_show(r, c, "related");
		rp_detach_settle(r);
		return c;
	}
	c = rp_conn_new(&r->ct, hdr, rp_port_helped(r, hdr));
	if (c && rp_port_helped(r, hdr)) {
		c->helped = true;
		r->helped++;
		rp_conn_show(r, c, "new");
	}
	return c;
}

static void rp_view_fill(struct cth_packet *p, const struct rp_conn *c, enum cth_dir dir)
{
	p->dir = dir;
	p->ctinfo = rp_conn_ctinfo(c, dir);
	p->tuple[0] = c->t[0];
	p->tuple[1] = c->t[1];
	p->nat = c->nat;
	p->ct_id = c->id;
	p->ct_status = c->status;
	if (c->status & CTH_CT_EXPECTED)
		p->master = c->master_tuple;
}

static const char *const rp_ctinfo_names[] = {
	[CTH_CT_ESTABLISHED] = "ESTABLISHED", [CTH_CT_RELATED] = "RELATED",
	[CTH_CT_NEW] = "NEW", [CTH_CT_ESTABLISHED_REPLY] = "ESTABLISHED_REPLY",
	[CTH_CT_RELATED_REPLY] = "RELATED_REPLY",
};

static void rp_hex(char *buf, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sprintf(buf + 2 * i, "%02x", p[i]);
	buf[2 * n] = 0;
}

/* The plugin's call for one packet with payload; returns the verdict and
 * leaves a rewritten packet in r->buf (*mangled, *out_len). */
static int rp_help(struct rp_run *r, const struct rp_frame *f, struct rp_conn *c,
		   const struct cth_packet *view, bool *mangled, size_t *out_len)
{
	const struct cth_plugin_desc *d = r->inst->pl->desc;
	bool expected = c->status & CTH_CT_EXPECTED;
	struct pkt_call call = {
		.inst = r->inst, .backend = &r->x, .expect_fn = rp_expect_fn,
		.expect_ctl_fn = rp_expect_ctl_fn, .trace = rp_report_trace,
		.pkt = *view, .truncated = f->caplen < f->wirelen, .keep = &r->keep,
	};
	char pre[256], kept[32] = "", seq[32] = "", a[2 * CTH_PRIV_MAX + 1], b[2 * CTH_PRIV_MAX + 1];
	const uint8_t *m;
	size_t mlen;
	int verdict;

	keep_join(&r->keep, &call, f->ms);
	if (call.pkt.kept)
		snprintf(kept, sizeof(kept), " kept %zu", call.pkt.kept);
	if (c->t[0].proto == IPPROTO_TCP)
		snprintf(seq, sizeof(seq), " seq %u", call.pkt.seq);
	rp_report_line(&r->rep, false, "pkt %u %s %s%s len %zu%s %s", c->id,
		       view->dir == CTH_DIR_ORIGINAL ? "orig" : "reply",
		       rp_ctinfo_names[view->ctinfo], seq, call.pkt.payload_len, kept,
		       rp_fmt_bytes(pre, sizeof(pre), call.pkt.payload, call.pkt.payload_len, 48));
	r->x.conn = c;
	r->x.now_ms = f->ms;
	r->x.helped_in_call = 0;
	r->calls++;
	/* the kernel keeps no private state for an expected connection */
	verdict = pkt_call_run(&call, expected ? NULL : c->priv, d->priv_size);
	keep_done(&r->keep, &call, verdict, f->ms);
	if (!expected && pkt_call_priv_differs(&call, c->priv, d->priv_size)) {
		rp_hex(a, c->priv, d->priv_size);
		rp_hex(b, call.priv, d->priv_size);
		rp_report_line(&r->rep, true, "state %s > %s", a, b);
		memcpy(c->priv, call.priv, d->priv_size);
	}
	if (call.detach) {
		unsigned int n = rp_expect_count(&r->x, c->id);

		if (n) {
			c->detach_wait = true;
			rp_report_line(&r->rep, true, "detach: waits for %u expectation%s", n,
				       n == 1 ? "" : "s");
		} else {
			c->helped = false;
			rp_report_line(&r->rep, true, "detach: done");
		}
	}
	m = verdict == CTH_VERDICT_ACCEPT ? pkt_call_mangled(&call, &mlen) : NULL;
	if (m) {
		/* the kernel moves later sequence numbers by the change */
		if (c->t[0].proto == IPPROTO_TCP)
			rp_seqadj_set(c, view->dir, view->seq,
				      (int32_t)((long)mlen - (long)view->len));
		memcpy(r->buf, m, mlen);
		*out_len = mlen;
		*mangled = true;
		r->edits_packets++;
		rp_report_line(&r->rep, true, "verdict ACCEPT mangled %zu>%zu", view->len, mlen);
	} else {
		rp_report_line(&r->rep, true, "verdict %s",
			       verdict == CTH_VERDICT_ACCEPT ? "ACCEPT" : "DROP");
	}
	r->drops += verdict != CTH_VERDICT_ACCEPT;
	pkt_call_release(&call);
	return verdict;
}

/* The ports, said once they are known (the first flow's: at its packet). */
static void rp_header_ports(struct rp_run *r)
{
	char line[160];
	size_t o = 0;

	for (size_t i = 0; i < r->o->n_ports; i++)
		o += (size_t)snprintf(line + o, sizeof(line) - o, "%s%u", i ? "," : "",
				      r->o->ports[i]);
	rp_report_line(&r->rep, false, "helped: %s port%s %s",
		       r->o->proto == IPPROTO_UDP ? "udp" : r->o->proto ? "tcp"
		       : r->inst->protocols == CTH_PROTO_UDP ? "udp"
		       : r->inst->protocols == CTH_PROTO_TCP ? "tcp" : "tcp/udp",
		       r->o->n_ports == 1 ? "" : "s", line);
}

static void rp_frame_run(struct rp_run *r, const struct rp_frame *f)
{
	struct cth_packet view = { 0 };
	struct cth_tuple hdr;
	struct rp_conn *c;
	enum cth_dir dir;
	size_t len = f->caplen - f->l3;
	bool mangled = false;
	uint8_t flags;
	int verdict = CTH_VERDICT_ACCEPT;

	r->frames++;
	r->rep.frame = f->no;
	rp_expect_age(&r->x, f->no, f->ms);
	rp_detach_settle(r);
	memcpy(r->buf, f->data + f->l3, len);
	if (!f->family || pkt_view_parse(&view, r->buf, len, f->family) < 0 ||
	    rp_tuple_of(&view, f->family, &hdr, &flags) < 0) {
		r->not_ip++;
		rp_capture_dump(r->cap, f, NULL, 0);
		return;
	}
	len = view.len;
	if (!r->o->n_ports && rp_proto_ok(r, &hdr)) {
		r->o->ports[r->o->n_ports++] = hdr.dport;
		rp_header_ports(r);
	}
	c = rp_conn_lookup(r, &hdr, flags, &dir);
	if (!c) {
		rp_capture_dump(r->cap, f, NULL, 0);
		return;
	}
	rp_view_fill(&view, c, dir);
	if (c->helped && view.payload_len)
		verdict = rp_help(r, f, c, &view, &mangled, &len);
	if (verdict != CTH_VERDICT_ACCEPT) {
		/* a dropped first packet leaves no connection behind */
		if (!(c->status & CTH_CT_CONFIRMED))
			rp_conn_forget(&r->ct, c);
		return;
	}
	rp_conn_seen(c, dir, flags);
	/* the checksums of a rewritten packet are right already */
	if (c->t[0].proto == IPPROTO_TCP &&
	    rp_seqadj_apply(c, dir, r->buf + view.l4_offset))
		pkt_sums_fix(r->buf, len, view.l4_offset, true);
	rp_capture_dump(r->cap, f, r->buf, len);
}

/* The header names the helper as the run sees it: no path, no version,
 * nothing that differs between two runs of one case. */
static void rp_header(struct rp_run *r)
{
	const struct instance *in = r->inst;
	char line[1024];
	size_t o = 0;

	o += (size_t)snprintf(line + o, sizeof(line) - o, "plugin %s, helper %s, classes",
			      in->pl->desc->name, in->name);
	for (unsigned int i = 0; i < in->n_classes; i++)
		o += (size_t)snprintf(line + o, sizeof(line) - o, "%s %s %u/%us", i ? "," : "",
				      in->classes[i].name, in->classes[i].max,
				      in->classes[i].timeout);
	for (unsigned int i = 0; i < r->o->n_opts && o < sizeof(line); i++)
		o += (size_t)snprintf(line + o, sizeof(line) - o, ", -o %s", r->o->opts[i]);
	if (r->o->snat && o < sizeof(line))
		o += (size_t)snprintf(line + o, sizeof(line) - o, ", snat %s", r->o->snat);
	if (r->o->dnat && o < sizeof(line))
		snprintf(line + o, sizeof(line) - o, ", dnat %s", r->o->dnat);
	rp_report_line(&r->rep, false, "%s", line);
	if (r->o->n_ports)
		rp_header_ports(r);
}

static void rp_summary(struct rp_run *r)
{
	r->rep.frame = 0;
	rp_report_line(&r->rep, false,
		       "frames %lu (not TCP/UDP over IP %lu), connections %u (helped %lu, "
		       "related %lu), plugin calls %lu, drops %lu, rewritten %lu, expectations "
		       "created %u, matched %u, expired %u, evicted %u, removed %u",
		       r->frames, r->not_ip, r->ct.n, r->helped, r->related, r->calls,
		       r->drops, r->edits_packets, r->x.created, r->x.matched, r->x.expired,
		       r->x.evicted, r->x.removed);
}

static int rp_nat_opt(const char *name, const char *v, struct rp_nat *n)
{
	if (!v)
		return 0;
	if (rp_nat_parse(v, n) == 0)
		return 0;
	fprintf(stderr, "cthelper-replay: --%s %s: ADDR[:PORT] or [ADDR6][:PORT]\n", name, v);
	return -EINVAL;
}

static int rp_open(struct rp_run *r, struct runtime **rt)
{
	char err[512];

	if (rp_nat_opt("snat", r->o->snat, &r->ct.snat) ||
	    rp_nat_opt("dnat", r->o->dnat, &r->ct.dnat))
		return -EINVAL;
	/* the loader's and parser's own messages reach stderr */
	if (rp_runtime_build(r->o, rt) < 0)
		return -EINVAL;
	r->inst = &(*rt)->inst[0];
	if (!r->o->n_ports) {
		const struct cfg_helper *h = &(*rt)->cfg->helpers[0];

		for (size_t i = 0; i < h->n_rule_ports && r->o->n_ports < RP_MAX_PORTS; i++)
			r->o->ports[r->o->n_ports++] = h->rule_ports[i];
	}
	if (rp_capture_open(r->o->capture, &r->cap, err, sizeof(err)) < 0 ||
	    (r->o->write && rp_capture_dump_open(r->cap, r->o->write, err, sizeof(err)) < 0)) {
		fprintf(stderr, "cthelper-replay: %s\n", err);
		return -EINVAL;
	}
	r->x.inst = r->inst;
	r->x.ct = &r->ct;
	r->x.rep = &r->rep;
	r->rep.inst = r->inst;
	r->rep.debug = r->o->debug;
	return 0;
}

int main(int argc, char **argv)
{
	static struct rp_run run;
	struct rp_opts o = { 0 };
	struct runtime *rt = NULL;
	struct rp_frame f;
	int rc, status = 0;

	if ((rc = rp_opts_parse(argc, argv, &o)) != 0)
		return rc;
	log_init(LOG_L_WARNING, 0);
	run.o = &o;
	if (rp_report_open(&run.rep, o.quiet ? NULL : stdout) < 0)
		return 2;
	if (rp_open(&run, &rt) < 0) {
		status = 2;
		goto out;
	}
	rp_header(&run);
	while ((rc = rp_capture_next(run.cap, &f)) > 0)
		rp_frame_run(&run, &f);
	if (rc < 0) {
		fprintf(stderr, "cthelper-replay: %s: read error after frame %lu\n", o.capture,
			run.frames);
		status = 2;
		goto out;
	}
	rp_summary(&run);
	if (o.expect) {
		rc = rp_report_compare(&run.rep, o.expect);
		if (rc < 0) {
			fprintf(stderr, "cthelper-replay: %s: %s\n", o.expect, strerror(-rc));
			status = 2;
		} else {
			status = rc;
		}
	}
out:
	rp_capture_close(run.cap);
	rp_report_close(&run.rep);
	keep_free(&run.keep);
	rp_expects_free(&run.x);
	rp_conns_free(&run.ct);
	runtime_free(rt);
	return status;
}
