/* SPDX-License-Identifier: MIT */
/*
 * A test-only plugin that does what its payload tells it, so the VM tests
 * can drive every host function against the real kernel:
 *
 *   EXP <port> <class> [flags]   expect client -> server:<port> (TCP, any
 *                                source port); flags: h = CTH_EXPECT_HELPER,
 *                                s = CTH_EXPECT_SYNC, p = permanent; the
 *                                destination is, with r, the reply
 *                                direction's (the master's SNAT address),
 *                                with x, PROBE_THIRD_PARTY (neither end
 *                                the master's: the host refuses it)
 *   MARK <n>                     cth_set_mark(n)
 *   DETACH                       cth_detach()
 *   FLUSH [class]                cth_expect_ctl(FLUSH): all, or one class
 *   REMOVE <port>                cth_expect_ctl(REMOVE) of EXP <port>
 *   REFRESH <port> <class> <s>   cth_expect_ctl(REFRESH): activate EXP <port>,
 *                                timeout <s> seconds
 *   KEEP                         a message starts here and runs to the end
 *                                of the payload: when the payload does not
 *                                end with a newline the message is not
 *                                complete, so cth_keep() from this line on
 *                                and its lines wait (the next in-order
 *                                segment shows them again, completed)
 *   HANG                         never return (a plugin caught in a loop:
 *                                the daemon's watchdog, worker_stop()'s
 *                                bounded join)
 *   SLEEP <ms>                   take that long, then go on (a sandbox's
 *                                budget per packet of a batch)
 *   CRASH                        abort() (a sandbox dying mid-batch)
 *
 * One command per line, in packets of the original direction (TCP or
 * UDP; expectations use the master's protocol).  Every
 * result is logged at notice level ("probe: EXP 7101 class 1 hs: 0").
 * Packets of helped expected connections are logged, change the private
 * state, set mark 77 on their connection and try cth_detach().
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cthelperd/plugin.h>

#define PROBE_DATA_MARK 77u
/* TEST-NET-3: no end of any master in the VM's topology */
#define PROBE_THIRD_PARTY "203.0.113.77"
#define PROBE_THIRD_PARTY6 "2001:db8:77::77"

static void probe_exp(struct cth_ctx *ctx, const struct cth_packet *pkt,
		      const char *line)
{
	const struct cth_tuple *t = &pkt->tuple[CTH_DIR_ORIGINAL];
	struct cth_expect e = { 0 };
	unsigned int port, cls, how = 0;
	char flags[8] = "";

	if (sscanf(line, "EXP %u %u %7s", &port, &cls, flags) < 2 || port > 65535)
		return;
	e.class = cls;
	e.family = t->family;
	e.proto = t->proto;
	e.flags = CTH_EXPECT_ANY_SRC;
	e.dport = (uint16_t)port;
	e.dst = t->dst;
	if (strchr(flags, 'h'))
		e.flags |= CTH_EXPECT_HELPER;
	if (strchr(flags, 'p'))
		e.flags |= CTH_EXPECT_PERMANENT;
	if (strchr(flags, 'i'))
		e.flags |= CTH_EXPECT_INACTIVE;
	if (strchr(flags, 's'))
		how = CTH_EXPECT_SYNC;
	if (strchr(flags, 'r'))
		e.dst = pkt->tuple[CTH_DIR_REPLY].dst;
	if (strchr(flags, 'x') &&
	    inet_pton(t->family, t->family == AF_INET ? PROBE_THIRD_PARTY : PROBE_THIRD_PARTY6,
		      e.dst.raw) != 1)
		return;
	cth_log(ctx, CTH_LOG_NOTICE, "EXP %u class %u %s: %d", port, cls, flags,
		cth_expect(ctx, &e, how));
}

/* FLUSH [class] */
static void probe_flush(struct cth_ctx *ctx, const char *line)
{
	struct cth_expect e = { 0 };
	unsigned int cls;

	if (sscanf(line, "FLUSH %u", &cls) == 1) {
		e.class = cls;
		cth_log(ctx, CTH_LOG_NOTICE, "FLUSH %u: %d", cls,
			cth_expect_ctl(ctx, CTH_EXPECT_OP_FLUSH, &e));
	} else {
		cth_log(ctx, CTH_LOG_NOTICE, "FLUSH: %d",
			cth_expect_ctl(ctx, CTH_EXPECT_OP_FLUSH, NULL));
	}
}

/* The expectation "EXP <port> <class>" made (flags aside). */
static void probe_exp_of(struct cth_expect *e, const struct cth_packet *pkt,
			 unsigned int port, unsigned int cls)
{
	const struct cth_tuple *t = &pkt->tuple[CTH_DIR_ORIGINAL];

	memset(e, 0, sizeof(*e));
	e->class = cls;
	e->family = t->family;
	e->proto = t->proto;
	e->flags = CTH_EXPECT_ANY_SRC;
	e->dport = (uint16_t)port;
	e->dst = t->dst;
}

/* REMOVE <port>: the expectation EXP <port> made */
static void probe_remove(struct cth_ctx *ctx, const struct cth_packet *pkt,
			 const char *line)
{
	struct cth_expect e;
	unsigned int port;

	if (sscanf(line, "REMOVE %u", &port) != 1 || port > 65535)
		return;
	probe_exp_of(&e, pkt, port, 0);
	cth_log(ctx, CTH_LOG_NOTICE, "REMOVE %u: %d", port,
		cth_expect_ctl(ctx, CTH_EXPECT_OP_REMOVE, &e));
}

/* REFRESH <port> <class> <timeout>: activate EXP <port>, set its timeout */
static void probe_refresh(struct cth_ctx *ctx, const struct cth_packet *pkt,
			  const char *line)
{
	struct cth_expect e;
	unsigned int port, cls, timeout;

	if (sscanf(line, "REFRESH %u %u %u", &port, &cls, &timeout) != 3 || port > 65535)
		return;
	probe_exp_of(&e, pkt, port, cls);
	e.timeout = timeout;
	cth_log(ctx, CTH_LOG_NOTICE, "REFRESH %u: %d", port,
		cth_expect_ctl(ctx, CTH_EXPECT_OP_REFRESH, &e));
}

/* Sleeping rather than spinning: the same to the daemon (the call does
 * not return), without burning a core of the test VM. */
static void probe_hang(struct cth_ctx *ctx)
{
	cth_log(ctx, CTH_LOG_NOTICE, "HANG: not returning");
	for (;;)
		sleep(1);
}

/*
 * How much of the payload to run now: all of it, or, when the last KEEP
 * line starts a message the payload does not complete (no newline at
 * its end), the text before it, after keeping the rest.  The payload is
 * what the plugin sees, bytes kept from earlier segments included.
 */
static size_t probe_keep(struct cth_ctx *ctx, const struct cth_packet *pkt)
{
	const uint8_t *p = pkt->payload;
	size_t n = pkt->payload_len, at = n;
	int rc;

	if (n == 0 || p[n - 1] == '\n')
		return n;
	for (size_t i = 0; i + 4 <= n; i++)
		if ((i == 0 || p[i - 1] == '\n') && memcmp(p + i, "KEEP", 4) == 0 &&
		    (i + 4 == n || p[i + 4] == '\n' || p[i + 4] == '\r'))
			at = i;
	if (at == n)
		return n;
	rc = cth_keep(ctx, at);
	cth_log(ctx, CTH_LOG_NOTICE, "KEEP %zu of %zu (kept %zu): %d", at, n,
		cth_kept(ctx, pkt), rc);
	return rc == 0 ? at : n;
}

static int probe_packet(struct cth_ctx *ctx, const struct cth_packet *pkt,
			void *priv, const void *config)
{
	char text[512];
	size_t n;

	(void)config;
	/* On a helped expected connection: change the state, set a mark and
	 * try to detach.  The kernel refuses a helper change for a connection
	 * with a master, and that would void the whole NFQA_CT, mark
	 * included: the mark shows that the host did not send it. */
	if (pkt->ct_status & CTH_CT_EXPECTED) {
		(*(uint8_t *)priv)++;
		cth_set_mark(ctx, PROBE_DATA_MARK);
		cth_log(ctx, CTH_LOG_NOTICE, "data packet on an expected connection, detach: %d",
			cth_detach(ctx));
		return CTH_VERDICT_ACCEPT;
	}
	if (pkt->dir != CTH_DIR_ORIGINAL)
		return CTH_VERDICT_ACCEPT;
	n = probe_keep(ctx, pkt);
	if (n > sizeof(text) - 1)
		n = sizeof(text) - 1;
	memcpy(text, pkt->payload, n);
	text[n] = '\0';
	for (char *line = strtok(text, "\r\n"); line; line = strtok(NULL, "\r\n")) {
		if (strncmp(line, "EXP ", 4) == 0)
			probe_exp(ctx, pkt, line);
		else if (strcmp(line, "DETACH") == 0)
			cth_log(ctx, CTH_LOG_NOTICE, "DETACH: %d", cth_detach(ctx));
		else if (strncmp(line, "FLUSH", 5) == 0)
			probe_flush(ctx, line);
		else if (strncmp(line, "REMOVE ", 7) == 0)
			probe_remove(ctx, pkt, line);
		else if (strncmp(line, "REFRESH ", 8) == 0)
			probe_refresh(ctx, pkt, line);
		else if (strcmp(line, "HANG") == 0)
			probe_hang(ctx);
		else if (strncmp(line, "SLEEP ", 6) == 0)
			usleep((useconds_t)strtoul(line + 6, NULL, 10) * 1000u);
		else if (strcmp(line, "CRASH") == 0)
			abort();
		else if (strncmp(line, "MARK ", 5) == 0)
			cth_log(ctx, CTH_LOG_NOTICE, "MARK: %d",
				cth_set_mark(ctx, (uint32_t)strtoul(line + 5, NULL, 0)));
	}
	return CTH_VERDICT_ACCEPT;
}

CTH_PLUGIN_EXPORT const struct cth_plugin_desc cth_plugin = {
	.abi_version = CTH_ABI_VERSION,
	.size = sizeof(struct cth_plugin_desc),
	.name = "probe",
	.version = "0",
	.description = "test plugin driven by its payload",
	.protocols = CTH_PROTO_TCP | CTH_PROTO_UDP,
	.families = CTH_FAMILY_IPV4 | CTH_FAMILY_IPV6,
	.priv_size = 4,
	.n_classes = 2,
	.classes = {
		{ .name = "zero", .max = 8, .timeout = 300 },
		{ .name = "one", .max = 8, .timeout = 77 },
	},
	.packet = probe_packet,
};
