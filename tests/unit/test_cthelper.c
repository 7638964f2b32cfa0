/* SPDX-License-Identifier: MIT */
/*
 * Registration without a kernel: the parser of a GET answer (built here
 * the way nfnl_cthelper_fill_info() builds it), and the decision taken
 * for every kind of helper found under our name and tuple.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_cthelper.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "check.h"
#include "kernel/cthelper_decide.h"
#include "kernel/cthelper_msg.h"
#include "../../kmod/cthd_match.h"

/* ------------------------------------------------------------ parsing */

struct fake_class {
	const char *name;
	uint32_t max, timeout;
};

/* A GET answer as the kernel writes it; skip names one attribute to
 * leave out (0: none), n_sets how many class nests follow the count. */
static struct nlmsghdr *answer_put(char *buf, const char *name, uint32_t n_classes,
				   unsigned int n_sets, const struct fake_class *cls,
				   int skip)
{
	struct nlmsghdr *nlh = nlreq_msg_put(buf, NFNL_SUBSYS_CTHELPER,
					     NFNL_MSG_CTHELPER_NEW, NLM_F_MULTI, AF_UNSPEC);
	struct nlattr *nest, *set;

	if (skip != NFCTH_NAME)
		mnl_attr_put_strz(nlh, NFCTH_NAME, name);
	if (skip != NFCTH_QUEUE_NUM)
		mnl_attr_put_u32(nlh, NFCTH_QUEUE_NUM, htonl(5));
	if (skip != NFCTH_TUPLE) {
		nest = mnl_attr_nest_start(nlh, NFCTH_TUPLE);
		mnl_attr_put_u16(nlh, NFCTH_TUPLE_L3PROTONUM, htons(AF_INET6));
		mnl_attr_put_u8(nlh, NFCTH_TUPLE_L4PROTONUM, IPPROTO_UDP);
		mnl_attr_nest_end(nlh, nest);
	}
	if (skip != NFCTH_POLICY) {
		nest = mnl_attr_nest_start(nlh, NFCTH_POLICY);
		mnl_attr_put_u32(nlh, NFCTH_POLICY_SET_NUM, htonl(n_classes));
		for (unsigned int i = 0; i < n_sets; i++) {
			set = mnl_attr_nest_start(nlh, NFCTH_POLICY_SET + i);
			mnl_attr_put_strz(nlh, NFCTH_POLICY_NAME, cls[i].name);
			mnl_attr_put_u32(nlh, NFCTH_POLICY_EXPECT_MAX, htonl(cls[i].max));
			mnl_attr_put_u32(nlh, NFCTH_POLICY_EXPECT_TIMEOUT, htonl(cls[i].timeout));
			mnl_attr_nest_end(nlh, set);
		}
		mnl_attr_nest_end(nlh, nest);
	}
	if (skip != NFCTH_PRIV_DATA_LEN)
		mnl_attr_put_u32(nlh, NFCTH_PRIV_DATA_LEN, htonl(12));
	if (skip != NFCTH_STATUS)
		mnl_attr_put_u32(nlh, NFCTH_STATUS, htonl(NFCT_HELPER_STATUS_ENABLED));
	/* an attribute a newer kernel might add: skipped, not an error */
	mnl_attr_put_u32(nlh, NFCTH_MAX + 1, 0);
	return nlh;
}

static void test_parse(void)
{
	static const struct fake_class cls[] = {
		{ "sip", 3, 60 }, { "rtp", 2, 180 }, { "c", 1, 1 }, { "d", 1, 1 },
		{ "e", 1, 1 }, { "f", 1, 1 },
	};
	char buf[NLREQ_BUF];
	struct cthelper_state st;
	int rc;

	rc = cthelper_msg_parse(answer_put(buf, "sip", 2, 2, cls, 0), &st);
	CHECK("parse/answer", rc == 0 && strcmp(st.name, "sip") == 0 &&
	      st.family == AF_INET6 && st.proto == IPPROTO_UDP && st.queue == 5 &&
	      st.priv_len == 12 && st.status == NFCT_HELPER_STATUS_ENABLED &&
	      st.n_classes == 2 && strcmp(st.classes[1].name, "rtp") == 0 &&
	      st.classes[1].max == 2 && st.classes[1].timeout == 180 &&
	      st.classes[0].max == 3, "rc=%d", rc);
	for (int a = NFCTH_NAME; a <= NFCTH_STATUS; a++) {
		char name[64];

		snprintf(name, sizeof(name), "parse/missing-attribute-%d", a);
		rc = cthelper_msg_parse(answer_put(buf, "sip", 2, 2, cls, a), &st);
		CHECK(name, rc == -EINVAL, "rc=%d", rc);
	}
	rc = cthelper_msg_parse(answer_put(buf, "sip", 2, 1, cls, 0), &st);
	CHECK("parse/missing-class-nest", rc == -EINVAL, "rc=%d", rc);
	rc = cthelper_msg_parse(answer_put(buf, "a_name_too_long_for_us", 2, 2, cls, 0), &st);
	CHECK("parse/name-too-long", rc == -EINVAL, "rc=%d", rc);
	/* more classes than we can hold: kept as a count, never read past */
	rc = cthelper_msg_parse(answer_put(buf, "sip", 6, 6, cls, 0), &st);
	CHECK("parse/class-count-beyond-ours", rc == 0 && st.n_classes == 6 &&
	      strcmp(st.classes[3].name, "d") == 0, "rc=%d", rc);
}

/* ----------------------------------------------------------- decision */

static struct plugin pl;
static struct instance in;

/* Our instance: "ftp", 8 bytes of state, queue 0, class ftp (1, 300 s). */
static void ours_init(void)
{
	pl.copy.name = "ftp";
	pl.copy.priv_size = 8;
	pl.desc = &pl.copy;
	memset(&in, 0, sizeof(in));
	strcpy(in.name, "ftp");
	in.pl = &pl;
	in.queue = 0;
	in.n_classes = 1;
	in.classes[0] = (struct cth_expect_class){ "ftp", 1, 300 };
}

/* The kernel's copy of exactly that. */
static struct cthelper_state same(uint32_t status)
{
	struct cthelper_state st = {
		.name = "ftp", .family = AF_INET, .proto = IPPROTO_TCP,
		.queue = 0, .status = status, .priv_len = 8, .n_classes = 1,
		.classes = { { "ftp", 1, 300 } },
	};
	return st;
}

static void expect_decision(const char *name, const struct cthelper_state *old,
			    enum cthelper_action want, const char *w1, const char *w2)
{
	char msg[2048];
	enum cthelper_action got = cthelper_decide(old, &in, AF_INET, IPPROTO_TCP,
						   "/etc/cth.conf", msg, sizeof(msg));

	CHECK(name, got == want && (!w1 || strstr(msg, w1)) && (!w2 || strstr(msg, w2)),
	      "action %d (want %d), wanted '%s' and '%s' in: %s", got, want,
	      w1 ? w1 : "", w2 ? w2 : "", msg);
}

static void test_decide(void)
{
	struct cthelper_state st;
	char msg[2048];

	ours_init();
	expect_decision("decide/none-creates", NULL, CTHELPER_CREATE, NULL, NULL);
	cthelper_decide(NULL, &in, AF_INET, IPPROTO_TCP, "f", msg, sizeof(msg));
	CHECK("decide/create-says-nothing", msg[0] == '\0', "msg: %s", msg);

	st = same(NFCT_HELPER_STATUS_ENABLED);
	expect_decision("decide/same-enabled-reuses", &st, CTHELPER_REUSE,
			"helper 'ftp' (ipv4/tcp) was already registered (enabled)", "reusing it");
	st = same(NFCT_HELPER_STATUS_DISABLED);
	expect_decision("decide/same-disabled-reuses", &st, CTHELPER_REUSE,
			"already registered (disabled)", "reusing it");

	/* conntrackd's helper on another queue, enabled */
	st = same(NFCT_HELPER_STATUS_ENABLED);
	st.queue = 5;
	expect_decision("decide/enabled-other-queue-refused", &st, CTHELPER_REFUSE,
			"helper 'ftp' (ipv4/tcp) is already registered by another program "
			"with queue 5 (we want queue 0): stop that program or delete it with "
			"'nfct helper delete ftp inet tcp', or run 'cthelperd --release -c "
			"/etc/cth.conf' if it is a leftover", NULL);
	st = same(NFCT_HELPER_STATUS_ENABLED);
	st.priv_len = 12;
	st.classes[0].timeout = 5;
	expect_decision("decide/enabled-names-every-difference", &st, CTHELPER_REFUSE,
			"with 12 bytes of private state (we want 8), class 'ftp' timeout 5 s (we want 300 s)",
			"already registered");
	st = same(NFCT_HELPER_STATUS_ENABLED);
	st.classes[0].max = 4;
	expect_decision("decide/enabled-other-max-refused", &st, CTHELPER_REFUSE,
			"class 'ftp' max 4 (we want 1)", "already registered");

	/* disabled, and the kernel can update it in place: take it over */
	st = same(NFCT_HELPER_STATUS_DISABLED);
	st.queue = 7;
	expect_decision("decide/disabled-other-queue-taken-over", &st, CTHELPER_TAKEOVER,
			"was already registered but disabled, with queue 7 (we want queue 0)",
			"taking it over");
	st = same(NFCT_HELPER_STATUS_DISABLED);
	st.classes[0].timeout = 120;
	expect_decision("decide/disabled-other-timeout-taken-over", &st, CTHELPER_TAKEOVER,
			"class 'ftp' timeout 120 s (we want 300 s)", "taking it over");

	/* disabled, but an update could not change it (EBUSY): refused */
	st = same(NFCT_HELPER_STATUS_DISABLED);
	st.priv_len = 12;
	expect_decision("decide/disabled-other-state-size-refused", &st, CTHELPER_REFUSE,
			"already registered (disabled) by another program with 12 bytes of private state",
			"the kernel cannot change that in place");
	st = same(NFCT_HELPER_STATUS_DISABLED);
	strcpy(st.classes[0].name, "data");
	expect_decision("decide/disabled-other-class-name-refused", &st, CTHELPER_REFUSE,
			"class 0 named 'data' (we want 'ftp')", "already registered");
	st = same(NFCT_HELPER_STATUS_DISABLED);
	st.n_classes = 2;
	st.queue = 3;
	expect_decision("decide/disabled-other-class-count-refused", &st, CTHELPER_REFUSE,
			"2 expectation classes (we want 1), queue 3 (we want queue 0)",
			"already registered");

	/* the tuple in the message and in the suggested nfct command */
	st = same(NFCT_HELPER_STATUS_ENABLED);
	st.queue = 1;
	cthelper_decide(&st, &in, AF_INET6, IPPROTO_UDP, "c", msg, sizeof(msg));
	CHECK("decide/ipv6-udp-named", strstr(msg, "helper 'ftp' (ipv6/udp)") &&
	      strstr(msg, "nfct helper delete ftp inet6 udp"), "msg: %s", msg);

	/* every class differing, into a small buffer: cut, never overrun */
	in.n_classes = CTH_CLASS_MAX;
	for (unsigned int i = 0; i < CTH_CLASS_MAX; i++)
		in.classes[i] = (struct cth_expect_class){ "class_name_15ch", 255, 604800 };
	st = same(NFCT_HELPER_STATUS_ENABLED);
	st.n_classes = CTH_CLASS_MAX;
	for (unsigned int i = 0; i < CTH_CLASS_MAX; i++)
		st.classes[i] = (struct cthelper_class){ "class_name_15ch", 1, 1 };
	st.queue = 65535;
	{
		char small[64];
		enum cthelper_action a = cthelper_decide(&st, &in, AF_INET, IPPROTO_TCP,
							 "/a/long/configuration/path.conf",
							 small, sizeof(small));

		CHECK("decide/message-cut-safely", a == CTHELPER_REFUSE &&
		      strlen(small) == sizeof(small) - 1, "len %zu", strlen(small));
	}
	cthelper_decide(&st, &in, AF_INET, IPPROTO_TCP, "c", msg, sizeof(msg));
	CHECK("decide/long-message-whole", strstr(msg, "class 'class_name_15ch' timeout 1 s "
	      "(we want 604800 s)") && strstr(msg, "--release -c c'"), "msg: %s", msg);
}

/* ------------------------------------------------------ match rules */

/* The CTHD_NFCTH_MATCH nest of a NEW, or NULL. */
static const struct nlattr *new_match(const struct nlmsghdr *nlh)
{
	const struct nlattr *a;

	mnl_attr_for_each(a, nlh, sizeof(struct nfgenmsg))
		if (mnl_attr_get_type(a) == CTHD_NFCTH_MATCH)
			return a;
	return NULL;
}

/* "FLAGS;PREFIX/AT/DIRS,..." of a CTHD_NFCTH_MATCH nest. */
static void match_text(const struct nlattr *nest, char *out, size_t len)
{
	const struct nlattr *a, *b;
	size_t n = 0;

	out[0] = '\0';
	mnl_attr_for_each_nested(a, nest) {
		if (mnl_attr_get_type(a) == CTHD_MATCH_A_FLAGS)
			n += (size_t)snprintf(out + n, len - n, "%u;", ntohl(mnl_attr_get_u32(a)));
		if (mnl_attr_get_type(a) != CTHD_MATCH_A_RULE)
			continue;
		mnl_attr_for_each_nested(b, a) {
			switch (mnl_attr_get_type(b)) {
			case CTHD_RULE_A_PREFIX:
				n += (size_t)snprintf(out + n, len - n, "%.*s",
						      (int)mnl_attr_get_payload_len(b),
						      (const char *)mnl_attr_get_payload(b));
				break;
			case CTHD_RULE_A_AT:
			case CTHD_RULE_A_DIRS:
				n += (size_t)snprintf(out + n, len - n, "/%u", mnl_attr_get_u8(b));
				break;
			}
		}
		n += (size_t)snprintf(out + n, len - n, ",");
	}
}

/* Every NEW with a definition carries the plugin's rules as they are, an
 * empty nest without rules (a reload that drops them clears them). */
static void test_match(void)
{
	static const struct cth_match rules[] = {
		{ .prefix = "PORT", .at = CTH_MATCH_AT_LINE, .dirs = CTH_MATCH_ORIGINAL },
		{ .prefix = "SIP/2.0 ", .at = CTH_MATCH_AT_START, .dirs = CTH_MATCH_BOTH },
	};
	static char buf[NLREQ_BUF];
	const struct nlattr *m;
	struct nlmsghdr *nlh;
	char text[256];

	ours_init();
	nlh = cthelper_msg_new_put(buf, &in, AF_INET, IPPROTO_TCP, NFCT_HELPER_STATUS_ENABLED);
	m = new_match(nlh);
	CHECK("match/new-without-rules-empty-nest", m && (m->nla_type & NLA_F_NESTED) &&
	      mnl_attr_get_payload_len(m) == 0, "nest %p", (const void *)m);
	pl.copy.match = rules;
	pl.copy.n_match = 2;
	pl.copy.match_flags = CTH_MATCH_NAT_ALL;
	nlh = cthelper_msg_new_put(buf, &in, AF_INET, IPPROTO_TCP, NFCT_HELPER_STATUS_ENABLED);
	m = new_match(nlh);
	if (m)
		match_text(m, text, sizeof(text));
	CHECK("match/new-carries-rules", m && strcmp(text, "1;PORT/1/1,SIP/2.0 /0/3,") == 0,
	      "got '%s'", m ? text : "(none)");
	pl.copy.match = NULL;
	pl.copy.n_match = 0;
	pl.copy.match_flags = 0;
}

int main(void)
{
	test_parse();
	test_decide();
	test_match();
	return check_exit();
}
