/* SPDX-License-Identifier: MIT */
/*
 * The SDK 3 test plugin: every key type, counters, a state version with
 * a deeper check, a whole-instance check and init/fini.  Built once as
 * it is (sdk3.so) and once per declaration the loader must refuse, each
 * variant differing in one way (SDK3_PLUGIN_DEFS_* in tests/tests.mk),
 * like bad_plugin.c.
 *
 * init and fini count into sdk3_inits / sdk3_finis, and note the last
 * helper name, for the test to read with dlsym(): a [helper] whose label
 * is "fail-init" makes init fail.  check refuses flag = no with mode =
 * fast.  The packet callback counts packets and payload bytes, asks for
 * a counter that does not exist, and keeps in its state: byte 0 the
 * host's version byte, byte 1 0xff marks a state priv_valid refuses,
 * byte 2 the packets seen, byte 3 what byte 0 held when it was called
 * (a payload "keep" leaves the state alone).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <cthelperd/plugin.h>

#include "sdk3_plugin.h"

#ifndef NAME
#define NAME "sdk3"
#endif
#define EXPORT __attribute__((visibility("default")))

EXPORT unsigned int sdk3_inits, sdk3_finis;
EXPORT char sdk3_last_helper[CTH_NAME_LEN];

#ifndef PORTS_MAX
#define PORTS_MAX 4
#endif
#ifndef UINT_MIN
#define UINT_MIN 1
#endif
#ifndef STRING_MAX
#define STRING_MAX 16
#endif
#ifndef LEVEL_DEF
#define LEVEL_DEF "10"
#endif
#ifndef LABEL_OFFSET
#define LABEL_OFFSET offsetof(struct sdk3_config, label)
#endif
#ifndef FLAG_NAME
#define FLAG_NAME "flag"
#endif
#ifndef LEVEL_TYPE
#define LEVEL_TYPE CTH_KEY_UINT
#endif
#ifndef LEVEL_FLAGS
#define LEVEL_FLAGS 0
#endif
#ifndef LABEL_FLAGS
#define LABEL_FLAGS 0
#endif
#ifndef CONFIGURE
#define CONFIGURE sdk3_configure
#endif
#ifndef N_KEYS
#define N_KEYS (sizeof(sdk3_keys) / sizeof(sdk3_keys[0]))
#endif
#ifndef N_COUNTERS
#define N_COUNTERS 2
#endif
#ifndef COUNTER2
#define COUNTER2 "bytes"
#endif
#ifndef PRIV_AT
#define PRIV_AT 0
#endif
#ifndef PRIV_VERSION
#define PRIV_VERSION 3
#endif
#ifndef CUSTOM_DEF
#define CUSTOM_DEF "x"
#endif

#ifdef NO_CHOICES
static const char *const sdk3_modes[] = { NULL };
#else
static const char *const sdk3_modes[] = { "fast", "safe", NULL };
#endif

static int sdk3_configure(void *config, const char *key, const char *value)
	__attribute__((unused));
static int sdk3_check(const void *config, char *err, size_t errlen);
static int sdk3_init(void *config, const char *helper);
static void sdk3_fini(void *config, const char *helper);
static bool sdk3_priv_valid(const void *priv) __attribute__((unused));
static int sdk3_packet(struct cth_ctx *ctx, const struct cth_packet *pkt, void *priv,
		       const void *config);

static const struct cth_key sdk3_keys[] = {
	{ .name = FLAG_NAME, .type = CTH_KEY_BOOL, .offset = offsetof(struct sdk3_config, flag),
	  .def = "yes", .doc = "a switch" },
	{ .name = "level", .type = LEVEL_TYPE, .flags = LEVEL_FLAGS,
	  .offset = offsetof(struct sdk3_config, level), .min = UINT_MIN, .max = 100,
	  .def = LEVEL_DEF, .doc = "a number" },
	{ .name = "ports", .type = CTH_KEY_PORTS, .flags = CTH_KEY_RULE_PORTS,
	  .offset = offsetof(struct sdk3_config, ports), .max = PORTS_MAX, .def = "7000,7001",
	  .doc = "where the server listens" },
	{ .name = "mode", .type = CTH_KEY_CHOICE, .offset = offsetof(struct sdk3_config, mode),
	  .choices = sdk3_modes, .def = "safe", .doc = "how careful" },
	{ .name = "label", .type = CTH_KEY_STRING, .flags = LABEL_FLAGS, .offset = LABEL_OFFSET,
	  .max = STRING_MAX, .doc = "a name" },
	{ .name = "custom", .type = CTH_KEY_CUSTOM, .def = CUSTOM_DEF,
	  .doc = "one letter, parsed by the plugin" },
#ifdef DUP_KEY
	{ .name = "level", .type = CTH_KEY_BOOL, .offset = 0 },
#endif
#ifdef DAEMON_KEY
	{ .name = "queue_len", .type = CTH_KEY_BOOL, .offset = 0 },
#endif
#ifdef BAD_TYPE
	{ .name = "odd", .type = 9, .offset = 0 },
#endif
#ifdef RULE_TWICE
	{ .name = "more_ports", .type = CTH_KEY_PORTS, .flags = CTH_KEY_RULE_PORTS,
	  .offset = offsetof(struct sdk3_config, ports) },
#endif
#ifdef LONG_NAME
	{ .name = "a_key_name_of_thirty_two_chars_x", .type = CTH_KEY_BOOL, .offset = 0 },
#endif
#ifdef TOO_MANY_CHOICES
	{ .name = "many", .type = CTH_KEY_CHOICE, .offset = 0,
	  .choices = (const char *const[]){ "a", "b", "c", "d", "e", "f", "g", "h", "i",
					     "j", "k", "l", "m", "n", "o", "p", "q", NULL } },
#endif
};

static const struct cth_counter sdk3_counters[] = {
	{ .name = "packets", .help = "Packets seen." },
	{ .name = COUNTER2, .help = "Payload bytes seen." },
	{ .name = "spare", .help = "Never counted." },
};

EXPORT const struct cth_plugin_desc cth_plugin = {
	.abi_version = CTH_ABI_VERSION,
	.size = sizeof(struct cth_plugin_desc),
	.name = NAME,
	.version = "3.0",
	.description = "SDK 3 test plugin",
	.protocols = CTH_PROTO_TCP | CTH_PROTO_UDP,
	.families = CTH_FAMILY_IPV4 | CTH_FAMILY_IPV6,
	.priv_size = 8,
	.config_size = sizeof(struct sdk3_config),
	.n_classes = 1,
	.classes = { { "data", 2, 30 } },
	.configure = CONFIGURE,
	.packet = sdk3_packet,
	.keys = sdk3_keys,
	.n_keys = N_KEYS,
	.check = sdk3_check,
	.init = sdk3_init,
	.fini = sdk3_fini,
	.counters = sdk3_counters,
	.n_counters = N_COUNTERS,
	.priv_version = PRIV_VERSION,
	.priv_version_at = PRIV_AT,
#ifndef NO_PRIV_VALID
	.priv_valid = sdk3_priv_valid,
#endif
};

/* custom: one lower-case letter */
static int sdk3_configure(void *config, const char *key, const char *value)
{
	struct sdk3_config *c = config;

	if (strcmp(key, "custom") != 0)
		return -ENOENT;
	if (strlen(value) != 1 || value[0] < 'a' || value[0] > 'z')
		return -EINVAL;
	c->custom = value[0];
	return 0;
}

static int sdk3_check(const void *config, char *err, size_t errlen)
{
	const struct sdk3_config *c = config;

	if (!c->flag && c->mode == SDK3_MODE_FAST) {
		strncpy(err, "flag = no needs mode = safe", errlen - 1);
		err[errlen - 1] = '\0';
		return -EINVAL;
	}
	return 0;
}

static int sdk3_init(void *config, const char *helper)
{
	struct sdk3_config *c = config;

	if (strcmp(c->label, "fail-init") == 0)
		return -EIO;
	c->inited = true;
	sdk3_inits++;
	strncpy(sdk3_last_helper, helper, sizeof(sdk3_last_helper) - 1);
	return 0;
}

static void sdk3_fini(void *config, const char *helper)
{
	struct sdk3_config *c = config;

	(void)helper;
	if (c->inited)
		sdk3_finis++;
	c->inited = false;
}

static bool sdk3_priv_valid(const void *priv)
{
	return ((const uint8_t *)priv)[1] != 0xff;
}

static int sdk3_packet(struct cth_ctx *ctx, const struct cth_packet *pkt, void *priv,
		       const void *config)
{
	uint8_t *s = priv;

	(void)config;
	cth_count(ctx, SDK3_C_PACKETS);
	cth_count_add(ctx, SDK3_C_BYTES, (uint32_t)pkt->payload_len);
	cth_count(ctx, 99);
	/* "keep" as the payload: the plugin leaves its state as it got it */
	if (pkt->payload_len >= 4 && memcmp(pkt->payload, "keep", 4) == 0)
		return CTH_VERDICT_ACCEPT;
	s[3] = s[0];
	s[2]++;
	return CTH_VERDICT_ACCEPT;
}
