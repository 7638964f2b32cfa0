/* SPDX-License-Identifier: MIT */
/*
 * Shared by the targets on the host path around a plugin call (fuzz_host,
 * fuzz_ftp, fuzz_replay and, through fuzz_plugin.h, fuzz_sip, fuzz_tns,
 * fuzz_rpc, fuzz_tftp, fuzz_rtsp): their start-up, a plugin instance as the runtime builds it,
 * the packet from the input, and the invariants every packet the host
 * hands back must meet (checked independently, tests/fuzz/pktcheck.h).
 */
#ifndef CTH_FUZZ_HOSTPATH_H
#define CTH_FUZZ_HOSTPATH_H

#include <sys/socket.h>

#include "fuzz_common.h"
#include "host/call.h"
#include "host/packet.h"
#include "runtime/keys.h"
#include "pktcheck.h"

/* ------------------------------------------------------------ start-up */

/* A target's own start-up, run after fz_init() when the target defines
 * one. */
void fz_setup(void) __attribute__((weak));

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fz_init();
	if (fz_setup)
		fz_setup();
	return 0;
}

/* ------------------------------------------------------------ the plugin */

static inline void fz_config_defaults(const struct cth_plugin_desc *d, void *config);

/* The instance the loader and runtime would make of pl's descriptor:
 * its name, families, protocols and classes, configuration block
 * config (zeroed by the caller) with the plugin's declared defaults. */
static inline void fz_instance_init(struct instance *in, const struct plugin *pl, void *config)
{
	const struct cth_plugin_desc *d = pl->desc;

	memset(in, 0, sizeof(*in));
	snprintf(in->name, sizeof(in->name), "%s", d->name);
	in->pl = pl;
	in->config = config;
	in->families = d->families;
	in->protocols = d->protocols;
	in->n_classes = d->n_classes;
	memcpy(in->classes, d->classes, sizeof(in->classes));
	fz_config_defaults(d, config);
}

/* Every declared default, as the daemon sets them for a section that
 * names none of the plugin's keys (runtime/keys.c). */
static inline void fz_config_defaults(const struct cth_plugin_desc *d, void *config)
{
	static char file[] = "fuzz";
	static struct cfg cfg = { .file = file };
	static struct cfg_helper h = { .name = "fuzz", .line = 1 };

	FZ_ASSERT(keys_apply(&cfg, &h, d, config) == 0, "plugin %s: its defaults refused",
		  d->name);
}

/* One "key=value" setting into a configuration block as the daemon
 * applies a section's key (runtime/keys.c): by its declaration, a
 * CTH_KEY_CUSTOM one (and every key of a plugin that declares none) by
 * the plugin's configure(); a setting refused is the target's mistake. */
static inline void fz_configure(const struct cth_plugin_desc *d, void *config,
				const char *setting)
{
	const char *eq = strchr(setting, '=');
	const struct cth_key *k;
	char key[64];
	int rc;

	FZ_ASSERT(eq && (size_t)(eq - setting) < sizeof(key), "setting %s", setting);
	snprintf(key, sizeof(key), "%.*s", (int)(eq - setting), setting);
	k = keys_find(d, key);
	if (!d->n_keys || (k && k->type == CTH_KEY_CUSTOM))
		rc = d->configure ? d->configure(config, key, eq + 1) : -ENOENT;
	else
		rc = k ? keys_parse(k, eq + 1, config) : -ENOENT;
	FZ_ASSERT(rc == 0, "%s refused (%d)", setting, rc);
}

/* ------------------------------------------------------------ the packet */

/* The flags byte of the targets that take a raw packet (fuzz_host,
 * fuzz_ftp). */
enum {
	FZ_F_IPV6 = 1u << 0,
	FZ_F_NAT_SHIFT = 1,     /* bits 1-2: CTH_NAT_SRC, CTH_NAT_DST */
	FZ_F_TRUNCATED = 1u << 3,
	FZ_F_GSO = 1u << 4,
	FZ_F_REPLY = 1u << 5,
};

/* len bytes of the input (as many as are left) as a packet, in a heap
 * block of exactly its size, and c zeroed but for its view of it.
 * Returns the packet to free() after the call, NULL when it does not
 * parse. */
static inline uint8_t *fz_packet_view(struct fz *in, size_t len, uint8_t flags,
				      struct pkt_call *c)
{
	uint8_t *pkt;

	if (len > in->n)
		len = in->n;
	pkt = fz_heap(in, len);
	memset(c, 0, sizeof(*c));
	if (pkt_view_parse(&c->pkt, pkt, len, flags & FZ_F_IPV6 ? AF_INET6 : AF_INET) < 0) {
		free(pkt);
		return NULL;
	}
	return pkt;
}

/* What the flags byte says of the call: NAT, a truncated or GSO packet,
 * the direction. */
static inline void fz_call_flags(struct pkt_call *c, uint8_t flags)
{
	c->truncated = flags & FZ_F_TRUNCATED;
	c->gso = flags & FZ_F_GSO;
	c->pkt.nat = (flags >> FZ_F_NAT_SHIFT) & 3;
	c->pkt.dir = flags & FZ_F_REPLY ? CTH_DIR_REPLY : CTH_DIR_ORIGINAL;
}

/* ------------------------------------------------------------ the result */

/* Transport protocol of a parsed view (pkt_view_parse: UDP header 8
 * bytes, TCP header at least 20). */
static inline uint8_t fz_view_proto(const struct cth_packet *p)
{
	return p->payload_offset - p->l4_offset == 8 ? 17 : 6;
}

/* Header bytes the host may change when it rewrites: lengths and
 * checksums. */
static inline bool fz_field_may_change(const struct cth_packet *p, size_t i)
{
	size_t l4 = p->l4_offset;
	bool v6 = (p->data[0] >> 4) == 6;

	if (v6 ? (i == 4 || i == 5) : (i == 2 || i == 3 || i == 10 || i == 11))
		return true;
	if (fz_view_proto(p) == 6)
		return i == l4 + 16 || i == l4 + 17;
	return i >= l4 + 4 && i < l4 + 8;
}

/*
 * The packet the host would send back (r, len) against the original view:
 * at most 65531 bytes, lengths and checksums right (independent sums),
 * every header byte other than lengths and checksums unchanged, and, when
 * want is given, exactly that payload.
 */
static inline void fz_check_result(const struct cth_packet *p,
				   const uint8_t *r, size_t len,
				   const uint8_t *want, size_t want_len)
{
	char why[160];
	size_t i;

	FZ_ASSERT(len <= PC_OUT_MAX, "result %zu bytes > %u", len, PC_OUT_MAX);
	FZ_ASSERT(len >= p->payload_offset, "result %zu shorter than headers", len);
	FZ_ASSERT(pc_packet_ok(r, len, p->l4_offset, fz_view_proto(p), why,
			       sizeof(why)), "%s", why);
	for (i = 0; i < p->payload_offset; i++)
		FZ_ASSERT(r[i] == p->data[i] || fz_field_may_change(p, i),
			  "header byte %zu changed 0x%02x -> 0x%02x", i,
			  p->data[i], r[i]);
	if (want) {
		FZ_ASSERT(len - p->payload_offset == want_len,
			  "payload %zu bytes, model %zu", len - p->payload_offset,
			  want_len);
		for (i = 0; i < want_len; i++)
			FZ_ASSERT(r[p->payload_offset + i] == want[i],
				  "payload byte %zu 0x%02x, model 0x%02x", i,
				  r[p->payload_offset + i], want[i]);
	}
}

/* The packet a call sends back (r, NULL when unchanged): never rewritten
 * without NAT or from part of a packet, and right as fz_check_result
 * says.  Called after the verbose line, so that line shows a failing
 * input's call. */
static inline void fz_check_sent(const struct pkt_call *c, const uint8_t *r, size_t rlen)
{
	if (!r)
		return;
	FZ_ASSERT(c->pkt.nat && !c->truncated, "rewritten without NAT, or truncated");
	fz_check_result(&c->pkt, r, rlen, NULL, 0);
}

#endif
