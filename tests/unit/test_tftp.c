/* SPDX-License-Identifier: MIT */
/*
 * TFTP plugin unit test: the request parser (RFC 1350 requests, RFC 2347
 * options, every way a request can be malformed), and the plugin's packet
 * callback on the daemon's host code (plugrun.h): RRQ and WRQ over IPv4
 * and IPv6, with options, in the reply direction, under SNAT, DNAT and
 * both (the expectation's tuple and its follow-the-master mapping), hostile
 * and other packets (nothing expected, accepted), loose, the transfer
 * itself, expectation errors, the counters.  Deterministic fuzzing of the
 * request.
 *
 * Output: one "PASS name" / "FAIL name: why" line per check; exit status 1
 * when anything failed.
 */
#define PLUGTEST_RNG_SEED 0x7f7b7f7b00690069ull
#include "plugtest.h"

#include "runtime/keys.h"
#include "../../plugins/tftp/tftp.h"
#include "../../plugins/tftp/tftp_parse.h"

/* The VM topology's addresses (tests/lib/topo.sh): the client at its
 * port CPORT asks the server's port 69; the router is 10.0.1.1 on the
 * client's side, 10.0.2.1 on the server's. */
#define CLIENT4 "10.0.1.2"
#define SERVER4 "10.0.2.2"
#define ROUTER_CL4 "10.0.1.1"
#define ROUTER_SV4 "10.0.2.1"
#define CLIENT6 "fd00:1::2"
#define SERVER6 "fd00:2::2"
#define ROUTER_SV6 "fd00:2::1"
#define CPORT 50000
#define NAT_PORT 40001

/* ---------------------------------------------------------------- requests */

struct msg {
	uint8_t b[1024];
	size_t n;
};

static void put(struct msg *m, const void *bytes, size_t n)
{
	if (m->n + n > sizeof(m->b))
		abort();
	memcpy(m->b + m->n, bytes, n);
	m->n += n;
}

/* "STR\0" */
static void put_str(struct msg *m, const char *s)
{
	put(m, s, strlen(s) + 1);
}

/* opcode, filename, mode, then option name/value pairs (NULL-ended). */
static struct msg request(uint16_t op, const char *file, const char *mode, ...)
{
	struct msg m = { .n = 0 };
	uint8_t o[2] = { (uint8_t)(op >> 8), (uint8_t)op };
	const char *s;
	va_list ap;

	put(&m, o, 2);
	put_str(&m, file);
	put_str(&m, mode);
	va_start(ap, mode);
	while ((s = va_arg(ap, const char *)) != NULL)
		put_str(&m, s);
	va_end(ap);
	return m;
}

/* Raw bytes, NULs included (a literal's own terminator not counted). */
#define RAW(lit) raw(lit, sizeof(lit) - 1)
static struct msg raw(const void *bytes, size_t n)
{
	struct msg m = { .n = 0 };

	put(&m, bytes, n);
	return m;
}

/* ---------------------------------------------------------------- parser */

struct parse_case {
	const char *name;
	struct msg m;
	int ret;
	uint16_t opcode;
	const char *why;          /* for ret < 0: a word of req.why */
	enum tftp_mode mode;
	unsigned int n_opts;
	size_t file_len;
};

static void test_parse_case(const struct parse_case *pc)
{
	uint8_t *buf = dup_exact(pc->m.b, pc->m.n);
	struct tftp_req req;
	struct check c;
	int ret;

	check_start(&c, "parse_%s", pc->name);
	ret = tftp_parse(buf, pc->m.n, &req);
	check_ret(&c, ret, pc->ret);
	check_that(&c, req.opcode == pc->opcode, "opcode %u, want %u", req.opcode, pc->opcode);
	if (ret < 0)
		check_that(&c, req.why && strstr(req.why, pc->why), "why '%s', want '%s'",
			   req.why ? req.why : "(none)", pc->why);
	if (ret == 1) {
		check_that(&c, req.mode == pc->mode, "mode %s", tftp_mode_name(req.mode));
		check_that(&c, req.n_opts == pc->n_opts, "%u options, want %u", req.n_opts,
			   pc->n_opts);
		check_that(&c, req.file_off == 2 && req.file_len == pc->file_len,
			   "filename at %zu, %zu bytes", req.file_off, req.file_len);
	}
	check_end(&c);
	free(buf);
}

static void test_parse(void)
{
	char big[600];
	struct check c;

	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	const struct parse_case cases[] = {
		{ "rrq_octet", request(1, "pxelinux.0", "octet", NULL), 1, 1, NULL,
		  TFTP_MODE_OCTET, 0, 10 },
		{ "wrq_netascii", request(2, "upload.txt", "netascii", NULL), 1, 2, NULL,
		  TFTP_MODE_NETASCII, 0, 10 },
		{ "rrq_mail", request(1, "root", "mail", NULL), 1, 1, NULL, TFTP_MODE_MAIL, 0, 4 },
		{ "mode_any_case", request(1, "f", "OcTeT", NULL), 1, 1, NULL, TFTP_MODE_OCTET, 0,
		  1 },
		{ "mode_upper", request(2, "f", "NETASCII", NULL), 1, 2, NULL, TFTP_MODE_NETASCII, 0,
		  1 },
		{ "options_rfc2347", request(1, "boot/vmlinuz", "octet", "blksize", "1468", "tsize",
					     "0", "timeout", "3", "windowsize", "8", NULL),
		  1, 1, NULL, TFTP_MODE_OCTET, 4, 12 },
		{ "option_empty_value", request(1, "f", "octet", "tsize", "", NULL), 1, 1, NULL,
		  TFTP_MODE_OCTET, 1, 1 },
		{ "padding_zeros", RAW("\0\1f\0octet\0blksize\0512\0\0\0\0"), 1, 1, NULL,
		  TFTP_MODE_OCTET, 1, 1 },
		{ "padding_after_mode", RAW("\0\1f\0octet\0\0"), 1, 1, NULL, TFTP_MODE_OCTET, 0, 1 },
		{ "filename_with_spaces_and_dots", request(1, "../x y/z", "octet", NULL), 1, 1,
		  NULL, TFTP_MODE_OCTET, 0, 8 },
		{ "data", RAW("\0\3\0\1hello"), 0, 3, NULL, 0, 0, 0 },
		{ "ack", RAW("\0\4\0\1"), 0, 4, NULL, 0, 0, 0 },
		{ "error", RAW("\0\5\0\1File not found\0"), 0, 5, NULL, 0, 0, 0 },
		{ "oack", RAW("\0\6blksize\0001468\0"), 0, 6, NULL, 0, 0, 0 },
		{ "one_byte", RAW("\1"), -EINVAL, 0, "shorter than an opcode", 0, 0, 0 },
		{ "opcode_0", request(0, "f", "octet", NULL), -EINVAL, 0, "unknown opcode", 0, 0,
		  0 },
		{ "opcode_7", request(7, "f", "octet", NULL), -EINVAL, 7, "unknown opcode", 0, 0,
		  0 },
		{ "opcode_257", request(257, "f", "octet", NULL), -EINVAL, 257, "unknown opcode", 0,
		  0, 0 },
		{ "opcode_ffff", request(0xffff, "f", "octet", NULL), -EINVAL, 0xffff,
		  "unknown opcode", 0, 0, 0 },
		{ "opcode_only", RAW("\0\1"), -EINVAL, 1, "filename not NUL-terminated", 0, 0, 0 },
		{ "filename_no_nul", RAW("\0\1pxelinux.0"), -EINVAL, 1,
		  "filename not NUL-terminated", 0, 0, 0 },
		{ "empty_filename", RAW("\0\1\0octet\0"), -EINVAL, 1, "empty filename", 0, 0, 0 },
		{ "no_mode", RAW("\0\2f\0"), -EINVAL, 2, "no mode", 0, 0, 0 },
		{ "mode_no_nul", RAW("\0\1f\0octet"), -EINVAL, 1, "mode not NUL-terminated", 0, 0,
		  0 },
		{ "mode_binary", request(1, "f", "binary", NULL), -EINVAL, 1, "unknown mode", 0, 0,
		  0 },
		{ "mode_prefix", request(1, "f", "oct", NULL), -EINVAL, 1, "unknown mode", 0, 0, 0 },
		{ "mode_longer", request(1, "f", "octets", NULL), -EINVAL, 1, "unknown mode", 0, 0,
		  0 },
		{ "mode_empty", RAW("\0\1f\0\0"), -EINVAL, 1, "unknown mode", 0, 0, 0 },
		{ "mode_with_nul_inside", RAW("\0\1f\0oct\0et\0"), -EINVAL, 1, "unknown mode", 0, 0,
		  0 },
		{ "option_name_no_nul", RAW("\0\1f\0octet\0blksize"), -EINVAL, 1,
		  "option name not NUL-terminated", 0, 0, 0 },
		{ "option_without_value", RAW("\0\1f\0octet\0blksize\0"), -EINVAL, 1,
		  "option without a value", 0, 0, 0 },
		{ "option_value_no_nul", RAW("\0\1f\0octet\0blksize\0001468"), -EINVAL, 1,
		  "option value not NUL-terminated", 0, 0, 0 },
		{ "bytes_after_padding", RAW("\0\1f\0octet\0\0x"), -EINVAL, 1,
		  "bytes after an empty option name", 0, 0, 0 },
		{ "overlong", request(1, big, "octet", NULL), -EINVAL, 1, "longer than 512", 0, 0,
		  0 },
	};
	struct parse_case max = { "max_512", { .n = 0 }, 1, 1, NULL, TFTP_MODE_OCTET, 0, 0 };
	struct parse_case over = { "max_513", { .n = 0 }, -EINVAL, 1, "longer than 512", 0, 0,
				   0 };

	for (size_t i = 0; i < ARRAY_LEN(cases); i++)
		test_parse_case(&cases[i]);
	/* a request of exactly 512 bytes, and one of 513 */
	big[512 - 2 - 6 - 1] = '\0';
	max.m = request(1, big, "octet", NULL);
	max.file_len = strlen(big);
	test_parse_case(&max);
	big[512 - 2 - 6 - 1] = 'a';
	big[513 - 2 - 6 - 1] = '\0';
	over.m = request(1, big, "octet", NULL);
	test_parse_case(&over);

	check_start(&c, "parse_names");
	check_that(&c, strcmp(tftp_opcode_name(1), "RRQ") == 0 &&
		   strcmp(tftp_opcode_name(2), "WRQ") == 0 &&
		   strcmp(tftp_opcode_name(6), "OACK") == 0, "known opcodes");
	check_that(&c, strcmp(tftp_opcode_name(0), "opcode?") == 0 &&
		   strcmp(tftp_opcode_name(7), "opcode?") == 0 &&
		   strcmp(tftp_opcode_name(0xffff), "opcode?") == 0, "unknown opcodes");
	check_that(&c, strcmp(tftp_mode_name(TFTP_MODE_MAIL), "mail") == 0 &&
		   strcmp(tftp_mode_name((enum tftp_mode)9), "mode?") == 0, "modes");
	check_end(&c);
}

/* ---------------------------------------------------------------- the plugin */

static struct tftp_config *cfg_of(struct conn *c)
{
	return (struct tftp_config *)c->cfg;
}

/* The client (CPORT) asks the server's port 69. */
static void tftp_conn(struct conn *c, int family)
{
	if (family == V6)
		conn_init(c, V6, UDP, CLIENT6, CPORT, SERVER6, 69);
	else
		conn_init(c, V4, UDP, CLIENT4, CPORT, SERVER4, 69);
	/* a request is the flow's first packet: the kernel has not
	 * confirmed the entry, and no reply was seen */
	c->ct_status = 0;
}

/* One datagram; the host's counter block (plugrun::stats, the plugin's
 * cth_count() in slot 0) then holds what this datagram counted. */
static int run_msg(struct plugrun *f, struct conn *c, enum cth_dir dir, const struct msg *m)
{
	uint8_t *buf = dup_exact(m->b, m->n);
	int v;

	memset(&f->stats, 0, sizeof(f->stats));
	v = run_ctinfo(f, c, dir, dir == O ? CTH_CT_NEW : CTH_CT_ESTABLISHED_REPLY, 0, buf, m->n);

	free(buf);
	return v;
}

static void test_desc(void)
{
	const struct cth_plugin_desc *d = &cth_plugin;
	struct check c;

	check_start(&c, "plugin_desc");
	check_that(&c, d->abi_version == CTH_ABI_VERSION && d->size == sizeof(*d),
		   "ABI %u, size %u", d->abi_version, d->size);
	check_that(&c, strcmp(d->name, "tftp") == 0, "name %s", d->name);
	check_that(&c, d->protocols == CTH_PROTO_UDP &&
		   d->families == (CTH_FAMILY_IPV4 | CTH_FAMILY_IPV6), "protocols %#x families %#x",
		   d->protocols, d->families);
	check_that(&c, d->priv_size == 0 && d->priv_version == 0, "private state %zu",
		   d->priv_size);
	check_that(&c, d->config_size == sizeof(struct tftp_config) &&
		   d->config_size <= sizeof(((struct conn *)0)->cfg), "config_size %zu",
		   d->config_size);
	/* the kernel's nf_conntrack_tftp policy: 1 expectation, 5 minutes */
	check_that(&c, d->n_classes == 1 && strcmp(d->classes[TFTP_CLASS].name, "tftp") == 0 &&
		   d->classes[0].max == 1 && d->classes[0].timeout == 300, "class");
	check_that(&c, d->configure == NULL && d->check == NULL && d->init == NULL &&
		   d->fini == NULL, "no custom keys, no lifecycle");
	check_end(&c);

	check_start(&c, "plugin_keys");
	check_that(&c, d->n_keys == 2 && d->keys, "%u keys", d->n_keys);
	if (d->n_keys == 2) {
		const struct cth_key *p = &d->keys[0], *l = &d->keys[1];

		check_that(&c, strcmp(p->name, "ports") == 0 && p->type == CTH_KEY_PORTS &&
			   p->flags == CTH_KEY_RULE_PORTS && strcmp(p->def, "69") == 0 &&
			   p->offset == offsetof(struct tftp_config, ports) && p->doc,
			   "ports");
		check_that(&c, strcmp(l->name, "loose") == 0 && l->type == CTH_KEY_BOOL &&
			   l->flags == 0 && strcmp(l->def, "no") == 0 &&
			   l->offset == offsetof(struct tftp_config, loose) && l->doc, "loose");
	}
	check_end(&c);

	/* the daemon's parser (server/runtime/keys.c) on the declarations:
	 * what a [helper tftp] section's values become */
	check_start(&c, "plugin_keys_parsed");
	{
		struct tftp_config cfg;
		char err[256] = "";
		uint16_t rp[4];

		check_that(&c, keys_decl_check(d, err, sizeof(err)) == 0, "declarations: %s", err);
		memset(&cfg, 0, sizeof(cfg));
		for (unsigned int i = 0; i < d->n_keys; i++)
			check_that(&c, keys_parse(&d->keys[i], d->keys[i].def, &cfg) == 0,
				   "default of %s", d->keys[i].name);
		check_that(&c, cfg.ports.n == 1 && cfg.ports.port[0] == 69 && !cfg.loose,
			   "defaults: %u ports, loose %d", cfg.ports.n, cfg.loose);
		check_that(&c, keys_parse(keys_find(d, "ports"), "69, 6969", &cfg) == 0 &&
			   cfg.ports.n == 2 && cfg.ports.port[1] == 6969, "ports = 69, 6969");
		check_that(&c, keys_parse(keys_find(d, "loose"), "yes", &cfg) == 0 && cfg.loose,
			   "loose = yes");
		check_that(&c, keys_parse(keys_find(d, "ports"), "0", &cfg) == -EINVAL &&
			   keys_parse(keys_find(d, "loose"), "maybe", &cfg) == -EINVAL,
			   "bad values taken");
		check_that(&c, keys_find(d, "rule_ports") == NULL, "a daemon key declared");
		memset(&cfg, 0, sizeof(cfg));
		keys_parse(keys_find(d, "ports"), "69", &cfg);
		check_that(&c, keys_rule_ports(d, &cfg, rp, 4) == 1 && rp[0] == 69,
			   "--print-rules does not read port 69");
	}
	check_end(&c);

	check_start(&c, "plugin_counters");
	{
		static const char *const names[TFTP_C_COUNT] = {
			"rrq", "wrq", "expectations", "expect_errors", "malformed", "other",
		};

		check_that(&c, d->n_counters == TFTP_C_COUNT && d->counters, "%u counters",
			   d->n_counters);
		for (unsigned int i = 0; i < TFTP_C_COUNT && i < d->n_counters; i++)
			check_that(&c, strcmp(d->counters[i].name, names[i]) == 0 &&
				   d->counters[i].help && *d->counters[i].help, "counter %u: %s", i,
				   d->counters[i].name);
	}
	check_end(&c);
}

/* The counters the last run_msg() datagram added, as the host keeps
 * them: exactly the ones named (-1 ends). */
static void tftp_check_counts(struct check *ck, struct plugrun *f, ...)
{
	uint64_t want[TFTP_C_COUNT] = { 0 }, got;
	va_list ap;
	int i;

	va_start(ap, f);
	while ((i = va_arg(ap, int)) >= 0)
		want[i]++;
	va_end(ap);
	for (i = 0; i < (int)TFTP_C_COUNT; i++) {
		got = atomic_load(&f->stats.pc[0][i]);
		check_that(ck, got == want[i], "counter %s %llu, want %llu",
			   cth_plugin.counters[i].name, (unsigned long long)got,
			   (unsigned long long)want[i]);
	}
}

/* One expectation, as plain as the kernel's: UDP, class tftp, from src
 * any port to dst:dport, asked with the verdict, no helper. */
static void check_exp(struct check *ck, const struct plugrun *f, int family, const char *src,
		      const char *dst, uint16_t dport)
{
	const struct cth_expect *e = &f->exp[0];
	char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN];

	if (!check_that(ck, f->n_exp == 1, "%u expectations", f->n_exp))
		return;
	check_that(ck, e->class == TFTP_CLASS && e->family == family && e->proto == UDP &&
		   e->sport == 0 && f->exp_how[0] == 0,
		   "class %u family %u proto %u sport %u how %#x", e->class, e->family, e->proto,
		   e->sport, f->exp_how[0]);
	check_that(ck, addr_is(family, &e->src, src) && addr_is(family, &e->dst, dst) &&
		   e->dport == dport, "expected %s > %s:%u, want %s > %s:%u",
		   addr_str(family, &e->src, a, sizeof(a)), addr_str(family, &e->dst, b, sizeof(b)),
		   e->dport, src, dst, dport);
	check_that(ck, !(e->flags & (CTH_EXPECT_HELPER | CTH_EXPECT_PERMANENT |
				     CTH_EXPECT_INACTIVE | CTH_EXPECT_ANY_SRC)),
		   "flags %#x", e->flags);
	check_that(ck, f->exp_rc[0] == 0, "host answered %d", f->exp_rc[0]);
}

static void check_no_nat(struct check *ck, const struct plugrun *f)
{
	const struct cth_expect *e = &f->exp[0];

	if (f->n_exp)
		check_that(ck, e->flags == 0 && e->fn == NULL, "NAT flags %#x fn %s", e->flags,
			   e->fn ? e->fn : "-");
}

/* Under NAT: follow the master back to the client's real address:port
 * (nf_nat_tftp: dir REPLY, the original source port saved). */
static void check_follow(struct check *ck, const struct plugrun *f, int family,
			 const char *client, uint16_t port)
{
	const struct cth_expect *e = &f->exp[0];
	char a[INET6_ADDRSTRLEN];

	if (!f->n_exp)
		return;
	check_that(ck, (e->flags & CTH_EXPECT_NAT) && e->nat_dir == R &&
		   strcmp(f->exp_fn[0], CTH_EXPECT_FN_NAT_FOLLOW_MASTER) == 0,
		   "flags %#x nat_dir %d fn %s", e->flags, e->nat_dir, f->exp_fn[0]);
	check_that(ck, e->nat_port == port && addr_is(family, &e->nat_addr, client),
		   "maps to %s:%u, want %s:%u", addr_str(family, &e->nat_addr, a, sizeof(a)),
		   e->nat_port, client, port);
}

/* A request the plugin answers with an expectation: accepted, no edit, no
 * state, no log above debug. */
static void check_answered(struct check *ck, struct plugrun *f, int v, int counter)
{
	check_that(ck, v == CTH_VERDICT_ACCEPT, "verdict %d", v);
	check_clean(ck, f);
	check_no_edit(ck, f);
	check_that(ck, !f->state_changed && !f->has_timeout && !f->keep_asked,
		   "state, timeout or keep touched");
	tftp_check_counts(ck, f, counter, TFTP_C_EXPECTATIONS, -1);
}

static const struct plain_case {
	const char *name;
	int family;
	uint16_t op;
	int counter;
} plain_cases[] = {
	{ "rrq_v4", V4, TFTP_OP_RRQ, TFTP_C_RRQ },
	{ "wrq_v4", V4, TFTP_OP_WRQ, TFTP_C_WRQ },
	{ "rrq_v6", V6, TFTP_OP_RRQ, TFTP_C_RRQ },
	{ "wrq_v6", V6, TFTP_OP_WRQ, TFTP_C_WRQ },
};

static void test_plain(struct plugrun *f)
{
	struct conn c;
	struct check ck;
	struct msg m;
	int v;

	for (size_t i = 0; i < ARRAY_LEN(plain_cases); i++) {
		const struct plain_case *t = &plain_cases[i];
		bool v6 = t->family == V6;

		check_start(&ck, "%s", t->name);
		tftp_conn(&c, t->family);
		m = request(t->op, "pxelinux.0", "octet", NULL);
		v = run_msg(f, &c, O, &m);
		check_answered(&ck, f, v, t->counter);
		check_exp(&ck, f, t->family, v6 ? SERVER6 : SERVER4, v6 ? CLIENT6 : CLIENT4, CPORT);
		check_no_nat(&ck, f);
		check_end(&ck);
		conn_free(&c);
	}

	check_start(&ck, "rrq_options");
	tftp_conn(&c, V4);
	m = request(TFTP_OP_RRQ, "boot/grubx64.efi", "octet", "tsize", "0", "blksize", "1468",
		    "windowsize", "16", NULL);
	v = run_msg(f, &c, O, &m);
	check_answered(&ck, f, v, TFTP_C_RRQ);
	check_exp(&ck, f, V4, SERVER4, CLIENT4, CPORT);
	check_end(&ck);

	check_start(&ck, "wrq_netascii_upper_case");
	m = request(TFTP_OP_WRQ, "config.txt", "NetAscii", NULL);
	v = run_msg(f, &c, O, &m);
	check_answered(&ck, f, v, TFTP_C_WRQ);
	check_exp(&ck, f, V4, SERVER4, CLIENT4, CPORT);
	check_end(&ck);

	/* the client retransmits: the same expectation again (the kernel
	 * replaces one of the same master and tuple) */
	check_start(&ck, "rrq_retransmitted");
	m = request(TFTP_OP_RRQ, "pxelinux.0", "octet", NULL);
	run_msg(f, &c, O, &m);
	v = run_msg(f, &c, O, &m);
	check_answered(&ck, f, v, TFTP_C_RRQ);
	check_exp(&ck, f, V4, SERVER4, CLIENT4, CPORT);
	check_end(&ck);

	/* nf_conntrack_tftp opens the same answer for a request coming the
	 * other way: the reply tuple, to the client */
	check_start(&ck, "rrq_reply_direction_same_answer");
	v = run_msg(f, &c, R, &m);
	check_answered(&ck, f, v, TFTP_C_RRQ);
	check_exp(&ck, f, V4, SERVER4, CLIENT4, CPORT);
	check_no_nat(&ck, f);
	check_end(&ck);
	conn_free(&c);
}

/* ---------------------------------------------------------------- NAT */

static void test_nat(struct plugrun *f)
{
	struct msg m = request(TFTP_OP_RRQ, "pxelinux.0", "octet", NULL);
	struct conn c;
	struct check ck;
	int v;

	/* MASQUERADE: the server sees the client as 10.0.2.1:40001 and
	 * answers there; the answer maps back to 10.0.1.2:50000 */
	check_start(&ck, "nat_snat_client");
	tftp_conn(&c, V4);
	conn_snat(&c, ROUTER_SV4, NAT_PORT);
	v = run_msg(f, &c, O, &m);
	check_answered(&ck, f, v, TFTP_C_RRQ);
	check_exp(&ck, f, V4, SERVER4, ROUTER_SV4, NAT_PORT);
	check_follow(&ck, f, V4, CLIENT4, CPORT);
	check_end(&ck);

	/* ports kept (MASQUERADE keeps the client's port when it can) */
	check_start(&ck, "nat_snat_port_kept");
	tftp_conn(&c, V4);
	conn_snat(&c, ROUTER_SV4, CPORT);
	v = run_msg(f, &c, O, &m);
	check_answered(&ck, f, v, TFTP_C_RRQ);
	check_exp(&ck, f, V4, SERVER4, ROUTER_SV4, CPORT);
	check_follow(&ck, f, V4, CLIENT4, CPORT);
	check_end(&ck);

	/* the server behind DNAT: the client dials 10.0.1.1:69; the answer
	 * comes from the server itself to the client's own port, and follows
	 * the master (its source becomes 10.0.1.1) */
	check_start(&ck, "nat_dnat_server");
	tftp_conn(&c, V4);
	conn_dnat(&c, ROUTER_CL4, 69);
	v = run_msg(f, &c, O, &m);
	check_answered(&ck, f, v, TFTP_C_RRQ);
	check_exp(&ck, f, V4, SERVER4, CLIENT4, CPORT);
	check_follow(&ck, f, V4, CLIENT4, CPORT);
	check_end(&ck);

	check_start(&ck, "nat_dnat_server_wrq");
	m = request(TFTP_OP_WRQ, "up.bin", "octet", NULL);
	v = run_msg(f, &c, O, &m);
	check_answered(&ck, f, v, TFTP_C_WRQ);
	check_exp(&ck, f, V4, SERVER4, CLIENT4, CPORT);
	check_follow(&ck, f, V4, CLIENT4, CPORT);
	check_end(&ck);

	/* both: the client dials 192.0.2.100:69 (DNAT to the server) and
	 * shows as 10.0.2.1:40001 */
	check_start(&ck, "nat_snat_and_dnat");
	tftp_conn(&c, V4);
	conn_dnat(&c, "192.0.2.100", 69);
	conn_snat(&c, ROUTER_SV4, NAT_PORT);
	m = request(TFTP_OP_RRQ, "pxelinux.0", "octet", NULL);
	v = run_msg(f, &c, O, &m);
	check_answered(&ck, f, v, TFTP_C_RRQ);
	check_exp(&ck, f, V4, SERVER4, ROUTER_SV4, NAT_PORT);
	check_follow(&ck, f, V4, CLIENT4, CPORT);
	check_end(&ck);

	check_start(&ck, "nat_v6_masquerade");
	tftp_conn(&c, V6);
	conn_snat(&c, ROUTER_SV6, NAT_PORT);
	v = run_msg(f, &c, O, &m);
	check_answered(&ck, f, v, TFTP_C_RRQ);
	check_exp(&ck, f, V6, SERVER6, ROUTER_SV6, NAT_PORT);
	check_follow(&ck, f, V6, CLIENT6, CPORT);
	check_end(&ck);

	/* the reply direction under NAT opens the very same thing */
	check_start(&ck, "nat_snat_reply_direction_same_answer");
	tftp_conn(&c, V4);
	conn_snat(&c, ROUTER_SV4, NAT_PORT);
	v = run_msg(f, &c, R, &m);
	check_answered(&ck, f, v, TFTP_C_RRQ);
	check_exp(&ck, f, V4, SERVER4, ROUTER_SV4, NAT_PORT);
	check_follow(&ck, f, V4, CLIENT4, CPORT);
	check_end(&ck);
	conn_free(&c);
}

/* ---------------------------------------------------------------- what opens nothing */

static void test_hostile(struct plugrun *f)
{
	char big[600];
	struct conn c;
	struct check ck;
	int v;

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	const struct { const char *name; struct msg m; int counter; } cases[] = {
		{ "no_nul", RAW("\0\1pxelinux.0octet"), TFTP_C_MALFORMED },
		{ "truncated_opcode", RAW("\0"), TFTP_C_MALFORMED },
		{ "truncated_after_opcode", RAW("\0\1"), TFTP_C_MALFORMED },
		{ "truncated_in_mode", RAW("\0\1pxelinux.0\0oct"), TFTP_C_MALFORMED },
		{ "bad_mode", request(1, "pxelinux.0", "binary", NULL), TFTP_C_MALFORMED },
		{ "empty_filename", RAW("\0\2\0octet\0"), TFTP_C_MALFORMED },
		{ "overlong", request(1, big, "octet", NULL), TFTP_C_MALFORMED },
		{ "option_cut", RAW("\0\1f\0octet\0blksize\0001468"), TFTP_C_MALFORMED },
		{ "opcode_0", request(0, "f", "octet", NULL), TFTP_C_MALFORMED },
		{ "opcode_7", request(7, "f", "octet", NULL), TFTP_C_MALFORMED },
		{ "all_ones", RAW("\377\377\377\377\377\377"), TFTP_C_MALFORMED },
		{ "data_opcode_3", RAW("\0\3\0\1\0\1f\0octet\0"), TFTP_C_OTHER },
		{ "ack_opcode_4", RAW("\0\4\0\0"), TFTP_C_OTHER },
		{ "error_opcode_5", RAW("\0\5\0\2Access violation\0"), TFTP_C_OTHER },
		{ "oack_opcode_6", RAW("\0\6tsize\0001024\0"), TFTP_C_OTHER },
	};

	tftp_conn(&c, V4);
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		for (int dir = O; dir <= R; dir++) {
			check_start(&ck, "hostile_%s_%s", cases[i].name, dir == O ? "client" : "server");
			v = run_msg(f, &c, (enum cth_dir)dir, &cases[i].m);
			check_that(&ck, v == CTH_VERDICT_ACCEPT, "verdict %d", v);
			check_that(&ck, f->n_exp == 0 && f->n_ctl == 0, "%u expectations, %u ctl",
				   f->n_exp, f->n_ctl);
			check_clean(&ck, f);
			check_no_edit(&ck, f);
			check_that(&ck, !f->state_changed, "state changed");
			tftp_check_counts(&ck, f, cases[i].counter, -1);
			check_end(&ck);
		}
	}
	conn_free(&c);
}

/* loose = yes: the kernel's reading, an RRQ/WRQ opcode is enough. */
static void test_loose(struct plugrun *f)
{
	struct msg bad_mode = request(1, "f", "binary", NULL), cut = RAW("\0\2"),
		   data = RAW("\0\3\0\1data"), unknown = request(9, "f", "octet", NULL);
	struct conn c;
	struct check ck;
	int v;

	tftp_conn(&c, V4);
	cfg_of(&c)->loose = true;
	check_start(&ck, "loose_bad_mode_expected");
	v = run_msg(f, &c, O, &bad_mode);
	check_that(&ck, v == CTH_VERDICT_ACCEPT, "verdict %d", v);
	check_exp(&ck, f, V4, SERVER4, CLIENT4, CPORT);
	tftp_check_counts(&ck, f, TFTP_C_MALFORMED, TFTP_C_EXPECTATIONS, -1);
	check_clean(&ck, f);
	check_end(&ck);

	check_start(&ck, "loose_opcode_only_expected");
	v = run_msg(f, &c, O, &cut);
	check_exp(&ck, f, V4, SERVER4, CLIENT4, CPORT);
	tftp_check_counts(&ck, f, TFTP_C_MALFORMED, TFTP_C_EXPECTATIONS, -1);
	check_end(&ck);

	check_start(&ck, "loose_other_opcodes_nothing");
	v = run_msg(f, &c, O, &data);
	check_that(&ck, v == CTH_VERDICT_ACCEPT && f->n_exp == 0, "DATA: verdict %d, %u exp", v,
		   f->n_exp);
	tftp_check_counts(&ck, f, TFTP_C_OTHER, -1);
	v = run_msg(f, &c, O, &unknown);
	check_that(&ck, v == CTH_VERDICT_ACCEPT && f->n_exp == 0, "opcode 9: verdict %d, %u exp",
		   v, f->n_exp);
	tftp_check_counts(&ck, f, TFTP_C_MALFORMED, -1);
	check_end(&ck);

	check_start(&ck, "loose_no_well_formed_difference");
	bad_mode = request(2, "f", "octet", "blksize", "512", NULL);
	v = run_msg(f, &c, O, &bad_mode);
	check_answered(&ck, f, v, TFTP_C_WRQ);
	check_exp(&ck, f, V4, SERVER4, CLIENT4, CPORT);
	check_end(&ck);
	conn_free(&c);
}

/* The transfer is an expected connection: never read, even if a rule
 * attached the helper to it and its data looks like a request. */
static void test_transfer(struct plugrun *f)
{
	struct msg m = request(TFTP_OP_RRQ, "f", "octet", NULL);
	struct conn c;
	struct check ck;
	int v;

	check_start(&ck, "transfer_not_read");
	conn_init(&c, V4, UDP, SERVER4, 41234, CLIENT4, CPORT);
	c.ct_status |= CTH_CT_EXPECTED;
	for (int dir = O; dir <= R; dir++) {
		v = run_msg(f, &c, (enum cth_dir)dir, &m);
		check_that(&ck, v == CTH_VERDICT_ACCEPT && f->n_exp == 0, "verdict %d, %u exp", v,
			   f->n_exp);
		check_clean(&ck, f);
		tftp_check_counts(&ck, f, -1);
	}
	check_end(&ck);
	conn_free(&c);
}

/* ---------------------------------------------------------------- errors */

static void test_errors(struct plugrun *f)
{
	struct msg m = request(TFTP_OP_RRQ, "pxelinux.0", "octet", NULL);
	struct conn c;
	struct check ck;
	int v;

	/* the kernel drops a request it cannot expect: the client sends it
	 * again.  This host sends the expectation with the verdict, so only
	 * what the host refuses at once is seen here. */
	check_start(&ck, "expect_error_drops");
	tftp_conn(&c, V4);
	f->expect_err = -ENOMEM;
	v = run_msg(f, &c, O, &m);
	check_that(&ck, v == CTH_VERDICT_DROP, "verdict %d", v);
	tftp_check_counts(&ck, f, TFTP_C_RRQ, TFTP_C_EXPECT_ERRORS, -1);
	check_that(&ck, f->n_log == 1 && strstr(f->log, "cannot expect"), "log '%s'", f->log);
	check_end(&ck);
	plugrun_answers_reset(f);

	/* the host's rule is final (cth_expect_verdict()): the request
	 * passes, nothing is opened */
	check_start(&ck, "expect_refused_accepts");
	tftp_conn(&c, V4);
	f->expect_err = -EPERM;
	v = run_msg(f, &c, O, &m);
	check_that(&ck, v == CTH_VERDICT_ACCEPT, "verdict %d", v);
	tftp_check_counts(&ck, f, TFTP_C_RRQ, TFTP_C_EXPECT_ERRORS, -1);
	check_end(&ck);
	plugrun_answers_reset(f);

	/* both ends of the answer are the master's own addresses, which
	 * the host's expect_networks never refuses */
	check_start(&ck, "expect_networks_master_addresses_pass");
	tftp_conn(&c, V4);
	conn_snat(&c, ROUTER_SV4, NAT_PORT);
	check_that(&ck, conn_expect_networks(&c, "192.0.2.0/24") == 0, "expect_networks");
	v = run_msg(f, &c, O, &m);
	check_answered(&ck, f, v, TFTP_C_RRQ);
	check_that(&ck, f->n_refused == 0, "%u refused", f->n_refused);
	check_exp(&ck, f, V4, SERVER4, ROUTER_SV4, NAT_PORT);
	check_end(&ck);
	conn_free(&c);
}

/* ---------------------------------------------------------------- fuzzing */

/* Mutated requests, either direction, with and without NAT and loose:
 * the verdict is ACCEPT, at most the one expectation, exactly when the
 * parser (or loose) says so, and never a host rule broken. */
static void test_fuzz(struct plugrun *f)
{
	static const struct mutate_how how = { "octet\0netascii\0mail\0blksize\0" "0123456789",
					       5, 7, 3 };
	struct msg seeds[] = {
		request(1, "pxelinux.0", "octet", NULL),
		request(2, "a", "netascii", "blksize", "1428", "tsize", "0", NULL),
		RAW("\0\1f\0mail\0\0\0"),
	};
	unsigned int expected = 0, rounds = 30000;
	struct conn c;
	struct check ck;
	struct tftp_req req;
	uint8_t buf[700];

	check_start(&ck, "fuzz_requests_%u", rounds);
	for (unsigned int i = 0; i < rounds && !ck.failed; i++) {
		const struct msg *s = &seeds[rng_below(ARRAY_LEN(seeds))];
		enum cth_dir dir = rng_below(4) ? O : R;
		size_t len = s->n;
		uint8_t *p;
		bool want;
		int v, ret;

		tftp_conn(&c, rng_below(3) ? V4 : V6);
		if (rng_below(2))
			conn_snat(&c, c.t[0].family == V6 ? ROUTER_SV6 : ROUTER_SV4, NAT_PORT);
		if (rng_below(3) == 0)
			conn_dnat(&c, c.t[0].family == V6 ? "fd00:1::1" : ROUTER_CL4, 69);
		cfg_of(&c)->loose = rng_below(4) == 0;
		memcpy(buf, s->b, len);
		fuzz_mutate(&how, buf, &len, sizeof(buf));
		if (len == 0)
			continue;   /* the host calls no plugin for an empty payload */
		p = dup_exact(buf, len);
		ret = tftp_parse(p, len, &req);
		v = run_ctinfo(f, &c, dir, dir == O ? CTH_CT_NEW : CTH_CT_ESTABLISHED_REPLY, 0, p,
			       len);
		free(p);
		check_that(&ck, v == CTH_VERDICT_ACCEPT, "round %u: verdict %d", i, v);
		check_clean(&ck, f);
		check_no_edit(&ck, f);
		want = ret == 1 || (cfg_of(&c)->loose && ret < 0 &&
					 (req.opcode == TFTP_OP_RRQ || req.opcode == TFTP_OP_WRQ));
		check_that(&ck, f->n_exp == (want ? 1u : 0u), "round %u: %u expectations, parse %d",
			   i, f->n_exp, ret);
		if (f->n_exp == 1)
			check_that(&ck, f->exp[0].proto == UDP && f->exp[0].sport == 0 &&
				   !(f->exp[0].flags & CTH_EXPECT_NAT) == !c.nat,
				   "round %u: expectation", i);
		expected += f->n_exp;
		conn_free(&c);
	}
	/* the mutations leave some requests whole: the expectation was reached */
	check_that(&ck, expected > rounds / 20 && expected < rounds, "%u of %u expected", expected,
		   rounds);
	check_end(&ck);

	check_start(&ck, "fuzz_random_bytes");
	tftp_conn(&c, V4);
	for (unsigned int i = 0; i < 20000 && !ck.failed; i++) {
		size_t len = 1 + rng_below(64);
		struct msg m;
		int v;

		for (size_t k = 0; k < len; k++)
			buf[k] = (uint8_t)rng_next();
		/* half of them with a known opcode, so the parser goes on */
		if (rng_below(2) && len >= 2) {
			buf[0] = 0;
			buf[1] = (uint8_t)rng_below(8);
		}
		m = raw(buf, len);
		v = run_msg(f, &c, rng_below(2) ? O : R, &m);
		check_that(&ck, v == CTH_VERDICT_ACCEPT && f->n_exp <= 1, "round %u: %d, %u exp", i,
			   v, f->n_exp);
		check_clean(&ck, f);
	}
	check_end(&ck);
	conn_free(&c);
}

int main(void)
{
	struct plugrun *f;

	test_parse();

	f = plugrun_new();
	test_desc();
	test_plain(f);
	test_nat(f);
	test_hostile(f);
	test_loose(f);
	test_transfer(f);
	test_errors(f);
	test_fuzz(f);
	plugrun_free(f);

	return check_exit();
}
