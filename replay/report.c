/* SPDX-License-Identifier: MIT */
/*
 * The replay's text: one line per event, "#FRAME " first (frame numbers
 * of the capture), host calls indented under their packet.  The format is
 * a promise to whoever keeps golden files: nothing in it depends on the
 * time of the run, the paths or the versions, and fields are only ever
 * appended at the end of a line (docs/man/cthelper-replay.1).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "replay.h"

int rp_report_open(struct rp_report *r, FILE *out)
{
	memset(r, 0, sizeof(*r));
	r->out = out;
	r->mem = open_memstream(&r->buf, &r->len);
	return r->mem ? 0 : -ENOMEM;
}

void rp_report_line(struct rp_report *r, bool sub, const char *fmt, ...)
{
	char line[4096];
	va_list ap;
	int n;

	if (r->frame)
		n = snprintf(line, sizeof(line), "#%lu %s", r->frame, sub ? "  " : "");
	else
		n = snprintf(line, sizeof(line), "# ");
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	va_end(ap);
	if (r->out)
		fprintf(r->out, "%s\n", line);
	fprintf(r->mem, "%s\n", line);
}

const char *rp_fmt_addr_port(char *buf, size_t len, int family,
			     const union cth_addr *a, uint16_t port)
{
	char addr[INET6_ADDRSTRLEN] = "?", p[8] = "any";

	inet_ntop(family, a->raw, addr, sizeof(addr));
	if (port)
		snprintf(p, sizeof(p), "%u", port);
	snprintf(buf, len, family == AF_INET6 ? "[%s]:%s" : "%s:%s", addr, p);
	return buf;
}

const char *rp_fmt_net_port(char *buf, size_t len, int family, const union cth_addr *a,
			    unsigned int prefix, uint16_t port)
{
	char addr[INET6_ADDRSTRLEN] = "?", p[8] = "any";

	inet_ntop(family, a->raw, addr, sizeof(addr));
	if (port)
		snprintf(p, sizeof(p), "%u", port);
	snprintf(buf, len, family == AF_INET6 ? "[%s/%u]:%s" : "%s/%u:%s", addr, prefix, p);
	return buf;
}

const char *rp_fmt_addr(char *buf, size_t len, int family, const union cth_addr *a)
{
	if (!inet_ntop(family, a->raw, buf, (socklen_t)len))
		snprintf(buf, len, "?");
	return buf;
}

static const char *rp_fmt_proto(uint8_t proto)
{
	return proto == 6 ? "tcp" : proto == 17 ? "udp" : "?";
}

const char *rp_fmt_tuple(char *buf, size_t len, const struct cth_tuple *t)
{
	char s[64], d[64];

	snprintf(buf, len, "%s %s > %s", rp_fmt_proto(t->proto),
		 rp_fmt_addr_port(s, sizeof(s), t->family, &t->src, t->sport),
		 rp_fmt_addr_port(d, sizeof(d), t->family, &t->dst, t->dport));
	return buf;
}

const char *rp_fmt_bytes(char *buf, size_t len, const uint8_t *p, size_t n, size_t max)
{
	size_t o = 0, shown = n < max ? n : max;

	if (len < 16)
		return "";
	buf[o++] = '"';
	for (size_t i = 0; i < shown && o + 8 < len; i++) {
		uint8_t ch = p[i];

		if (ch == '\r' || ch == '\n' || ch == '\t')
			o += (size_t)snprintf(buf + o, len - o, "\\%c",
					      ch == '\r' ? 'r' : ch == '\n' ? 'n' : 't');
		else if (ch == '"' || ch == '\\')
			o += (size_t)snprintf(buf + o, len - o, "\\%c", ch);
		else if (ch >= 0x20 && ch < 0x7f)
			buf[o++] = (char)ch;
		else
			o += (size_t)snprintf(buf + o, len - o, "\\x%02x", ch);
	}
	buf[o++] = '"';
	buf[o] = 0;
	if (shown < n)
		snprintf(buf + o, len - o, "+%zu", n - shown);
	return buf;
}

const char *rp_fmt_errno(char *buf, size_t len, int rc)
{
	static const struct {
		int no;
		const char *name;
	} names[] = {
		{ EBUSY, "EBUSY" }, { EEXIST, "EEXIST" }, { EINVAL, "EINVAL" },
		{ ENOSPC, "ENOSPC" }, { EOPNOTSUPP, "EOPNOTSUPP" }, { ENOENT, "ENOENT" },
		{ ENOMEM, "ENOMEM" }, { EPERM, "EPERM" }, { EMSGSIZE, "EMSGSIZE" },
		{ EMFILE, "EMFILE" },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (-rc == names[i].no)
			return snprintf(buf, len, "-%s", names[i].name), buf;
	snprintf(buf, len, "%d", rc);
	return buf;
}

const char *rp_fmt_expect(char *buf, size_t len, const struct instance *in,
			  const struct cth_tuple *mt, const struct cth_expect *e)
{
	char s[64], d[64], n[64];
	const char *cls = e->class < in->n_classes ? in->classes[e->class].name : "?";
	int o;

	if (e->flags & CTH_EXPECT_SRC_PREFIX)
		rp_fmt_net_port(s, sizeof(s), e->family, &e->src, e->src_prefix, e->sport);
	else if (!(e->flags & CTH_EXPECT_ANY_SRC))
		rp_fmt_addr_port(s, sizeof(s), e->family, &e->src, e->sport);
	else if (e->sport)
		snprintf(s, sizeof(s), "*:%u", e->sport);
	else
		snprintf(s, sizeof(s), "*:any");
	o = snprintf(buf, len, "class %s%s%s%s %s %s > %s", cls,
		     e->flags & CTH_EXPECT_PERMANENT ? " permanent" : "",
		     e->flags & CTH_EXPECT_INACTIVE ? " inactive" : "",
		     e->flags & CTH_EXPECT_HELPER ? " helper" : "",
		     rp_fmt_proto(e->proto), s,
		     rp_fmt_addr_port(d, sizeof(d), e->family, &e->dst, e->dport));
	/* follow-master's target is the master's address, whatever
	 * nat_addr says (the kernel does not read it) */
	if (o > 0 && (size_t)o < len && (e->flags & CTH_EXPECT_NAT))
		o += snprintf(buf + o, len - (size_t)o, " nat %s %s",
			      e->nat_dir == CTH_DIR_REPLY ? "reply" : "orig",
			      rp_fmt_addr_port(n, sizeof(n), e->family,
					       mt && rp_nat_follows(e) ? rp_nat_follow_dst(mt, e)
								       : &e->nat_addr,
					       e->nat_port));
	if (o > 0 && (size_t)o < len && e->fn)
		o += snprintf(buf + o, len - (size_t)o, " fn %s", e->fn);
	if (o > 0 && (size_t)o < len && e->timeout)
		snprintf(buf + o, len - (size_t)o, " timeout %u", e->timeout);
	return buf;
}

static const char *rp_level_name(uint32_t level)
{
	static const char *const names[] = {
		[CTH_LOG_ERR] = "err", [CTH_LOG_WARNING] = "warning",
		[CTH_LOG_NOTICE] = "notice", [CTH_LOG_INFO] = "info",
		[CTH_LOG_DEBUG] = "debug",
	};

	return level < sizeof(names) / sizeof(names[0]) && names[level] ? names[level]
									  : "err";
}

static void rp_trace_expect(struct rp_report *r, struct rp_expects *x,
			    const struct pkt_event *ev)
{
	char e[512], rc[32];
	const char *sync = ev->how & CTH_EXPECT_SYNC ? " sync" : "";

	if (!ev->exp) {
		rp_report_line(r, true, "expect (null): %s", rp_fmt_errno(rc, sizeof(rc), ev->rc));
		return;
	}
	rp_fmt_expect(e, sizeof(e), r->inst, x->conn ? x->conn->t : NULL, ev->exp);
	if (ev->rc < 0)
		rp_report_line(r, true, "expect - %s%s: %s", e, sync,
			       rp_fmt_errno(rc, sizeof(rc), ev->rc));
	else if (x->last_id)
		rp_report_line(r, true, "expect %u %s%s: created%s", x->last_id, e, sync, x->last);
	else
		rp_report_line(r, true, "expect - %s%s: %s", e, sync, x->last);
}

static void rp_trace_expect_ctl(struct rp_report *r, struct rp_expects *x,
				const struct pkt_event *ev)
{
	static const char *const ops[] = {
		[CTH_EXPECT_OP_FLUSH] = "flush", [CTH_EXPECT_OP_REMOVE] = "remove",
		[CTH_EXPECT_OP_REFRESH] = "refresh",
	};
	const char *op = ev->how < 4 && ops[ev->how] ? ops[ev->how] : "?";
	char e[512] = "", rc[32];

	if (ev->exp && ev->how == CTH_EXPECT_OP_FLUSH)
		snprintf(e, sizeof(e), " class %s", ev->exp->class < r->inst->n_classes
			 ? r->inst->classes[ev->exp->class].name : "?");
	else if (ev->exp) {
		e[0] = ' ';
		rp_fmt_expect(e + 1, sizeof(e) - 1, r->inst, x->conn ? x->conn->t : NULL, ev->exp);
	}
	if (ev->rc < 0)
		rp_report_line(r, true, "expect-ctl %s%s: %s", op, e,
			       rp_fmt_errno(rc, sizeof(rc), ev->rc));
	else if (ev->rc > 0 || ev->how == CTH_EXPECT_OP_REFRESH)
		rp_report_line(r, true, "expect-ctl %s%s: %d (%s)", op, e, ev->rc, x->last);
	else
		rp_report_line(r, true, "expect-ctl %s%s: 0", op, e);
}

/* Before and after of an edit: whole up to this many bytes each. */
#define RP_EDIT_SHOWN 512u

static void rp_trace_mangle(struct rp_report *r, const struct pkt_call *c,
			    const struct pkt_event *ev)
{
	static char before[RP_EDIT_SHOWN * 4 + 32], after[RP_EDIT_SHOWN * 4 + 32];
	const struct cth_packet *p = &c->pkt;
	char rc[32] = "";
	size_t n = ev->len;

	/* the plugin may ask for any range: show what exists of it */
	if (ev->off > p->payload_len)
		n = 0;
	else if (n > p->payload_len - ev->off)
		n = p->payload_len - ev->off;
	rp_fmt_bytes(before, sizeof(before), p->payload + (ev->off <= p->payload_len ? ev->off : 0),
		     n, RP_EDIT_SHOWN);
	rp_fmt_bytes(after, sizeof(after), ev->repl, ev->repl ? ev->repl_len : 0, RP_EDIT_SHOWN);
	if (ev->rc < 0) {
		rc[0] = ':', rc[1] = ' ';
		rp_fmt_errno(rc + 2, sizeof(rc) - 2, ev->rc);
	}
	rp_report_line(r, true, "edit %zu+%zu %s > %s%s", ev->off, ev->len, before, after, rc);
}

void rp_report_trace(struct pkt_call *c, const struct pkt_event *ev)
{
	struct rp_expects *x = c->backend;
	struct rp_report *r = x->rep;
	char rc[32];

	rp_fmt_errno(rc, sizeof(rc), ev->rc);
	switch (ev->type) {
	case PKT_EV_EXPECT:
		rp_trace_expect(r, x, ev);
		break;
	case PKT_EV_EXPECT_CTL:
		rp_trace_expect_ctl(r, x, ev);
		break;
	case PKT_EV_MANGLE:
		rp_trace_mangle(r, c, ev);
		break;
	case PKT_EV_KEEP:
		if (ev->rc < 0)
			rp_report_line(r, true, "keep %zu: %s", ev->off, rc);
		else
			rp_report_line(r, true, "keep %zu (%zu bytes)", ev->off,
				       c->pkt.payload_len - ev->off);
		break;
	case PKT_EV_TIMEOUT:
		rp_report_line(r, true, "timeout %u", ev->value);
		break;
	case PKT_EV_MARK:
		rp_report_line(r, true, "mark 0x%x", ev->value);
		break;
	case PKT_EV_DETACH:
		if (ev->rc < 0)
			rp_report_line(r, true, "detach: %s", rc);
		break;   /* a granted one is reported with its outcome */
	case PKT_EV_LOG:
		if (ev->value < CTH_LOG_DEBUG || r->debug)
			rp_report_line(r, true, "log %s %s", rp_level_name(ev->value), ev->text);
		break;
	case PKT_EV_COUNT:	/* shown with the counters, not per call */
		break;
	}
}

/* The first line where a and b differ (1-based), 0 if none. */
static unsigned long rp_first_diff(const char *a, const char *b, const char **la,
				   const char **lb)
{
	unsigned long line = 1;

	*la = a;
	*lb = b;
	for (;;) {
		const char *ea = strchr(*la, '\n'), *eb = strchr(*lb, '\n');
		size_t na = ea ? (size_t)(ea - *la) : strlen(*la);
		size_t nb = eb ? (size_t)(eb - *lb) : strlen(*lb);

		if (na != nb || memcmp(*la, *lb, na) != 0 || !ea != !eb)
			return line;
		if (!ea)
			return 0;
		*la = ea + 1;
		*lb = eb + 1;
		line++;
	}
}

int rp_report_compare(struct rp_report *r, const char *file)
{
	FILE *fp = fopen(file, "r");
	char *want = NULL;
	size_t cap = 0, n;
	const char *lw, *lg;
	unsigned long line;
	int rc;

	if (!fp)
		return -errno;
	fflush(r->mem);
	want = malloc(cap = 1 << 16);
	n = 0;
	while (want) {
		size_t got = fread(want + n, 1, cap - n - 1, fp);

		n += got;
		if (n + 1 < cap)
			break;
		char *bigger = realloc(want, cap *= 2);

		if (!bigger)
			free(want);
		want = bigger;
	}
	rc = ferror(fp) ? -EIO : 0;
	fclose(fp);
	if (!want)
		return -ENOMEM;
	want[n] = 0;
	if (rc == 0 && (line = rp_first_diff(want, r->buf, &lw, &lg))) {
		fprintf(stderr, "%s:%lu: differs\n  expected: %.*s\n  got:      %.*s\n", file,
			line, *lw ? (int)strcspn(lw, "\n") : 13, *lw ? lw : "(end of file)",
			*lg ? (int)strcspn(lg, "\n") : 15, *lg ? lg : "(end of output)");
		rc = 1;
	}
	free(want);
	return rc;
}

void rp_report_close(struct rp_report *r)
{
	if (r->mem)
		fclose(r->mem);
	free(r->buf);
	r->mem = NULL;
	r->buf = NULL;
}
