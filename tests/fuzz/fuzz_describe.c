/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: a described plugin's wire form from the sandbox's
 * side (server/sandbox/describe_wire.c).  The input patches the wire form
 * a sound plugin makes (every key type, choices, counters, the ABI 3
 * functions) where a hostile sandbox would write anything, and the
 * daemon's describe_wire_take() adopts it.
 *
 * Invariants (any violation aborts):
 *  - it returns 0 with a plugin, or a negative errno with a reason and
 *    no plugin;
 *  - a plugin taken is described, has no code (dl NULL, every function
 *    pointer NULL), its fns only known bits; every pointer of its
 *    descriptor, keys, choices and counters leads into the plugin itself
 *    and every string there ends inside its array; and the loader's
 *    checks pass on it again.
 *
 * Input: byte 0 bit 0: another file (dev/ino not the checked ones); then
 * patches, each a 32-bit offset (mod the wire form's size), a length
 * byte and that many bytes.  The empty input is the sound plugin.
 * Seeds: corpus/fuzz_describe/.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sandbox/describe_wire.h"

#define FZD_PATH "/plugins/fzd.so"

static const char *const fzd_modes[] = { "fast", "safe", NULL };
static const struct cth_key fzd_keys[] = {
	{ .name = "flag", .type = CTH_KEY_BOOL, .offset = 0, .def = "yes", .doc = "a switch" },
	{ .name = "level", .type = CTH_KEY_UINT, .offset = 4, .min = 1, .max = 100, .def = "7" },
	{ .name = "ports", .type = CTH_KEY_PORTS, .flags = CTH_KEY_RULE_PORTS, .offset = 8,
	  .def = "7000" },
	{ .name = "mode", .type = CTH_KEY_CHOICE, .offset = 48, .choices = fzd_modes,
	  .def = "safe" },
	{ .name = "label", .type = CTH_KEY_STRING, .offset = 52, .max = 16 },
	{ .name = "custom", .type = CTH_KEY_CUSTOM, .def = "x" },
};
static const struct cth_counter fzd_counters[] = {
	{ .name = "packets", .help = "Packets seen." },
	{ .name = "bytes" },
};

static struct chan_describe fzd_sound, fzd_wire;

static void fzd_abort_unless(bool ok)
{
	if (!ok)
		abort();
}

/* The loader's copy of the descriptor above, as a sandbox has it. */
static void fzd_sound_make(void)
{
	static struct plugin pl;
	struct cth_plugin_desc *d = &pl.copy;

	memset(&pl, 0, sizeof(pl));
	*d = (struct cth_plugin_desc){
		.abi_version = CTH_ABI_VERSION, .size = sizeof(*d), .protocols = CTH_PROTO_TCP,
		.families = CTH_FAMILY_IPV4, .priv_size = 8, .config_size = 80, .n_classes = 2,
		.classes = { { NULL, 2, 30 }, { NULL, 4, 60 } }, .n_keys = 6, .n_counters = 2,
		.priv_version = 1, .priv_version_at = 0,
	};
	strcpy(pl.name, "fzd");
	strcpy(pl.version, "1.0");
	strcpy(pl.description, "the describe fuzzer's plugin");
	strcpy(pl.class_names[0], "data");
	strcpy(pl.class_names[1], "more");
	pl.has.name = pl.has.version = pl.has.description = pl.has.keys = pl.has.counters = 1;
	pl.has.class_name[0] = pl.has.class_name[1] = 1;
	for (unsigned int i = 0; i < 6; i++) {
		const struct cth_key *k = &fzd_keys[i];
		struct plugin_key_text *t = &pl.key_text[i];

		pl.keys[i] = *k;
		strcpy(t->name, k->name);
		pl.has.key[i] = PLUGIN_HAS_NAME;
		if (k->doc)
			strcpy(t->doc, k->doc), pl.has.key[i] |= PLUGIN_HAS_DOC;
		if (k->def)
			strcpy(t->def, k->def), pl.has.key[i] |= PLUGIN_HAS_DEF;
		for (unsigned int j = 0; k->choices && k->choices[j]; j++) {
			strcpy(t->choice[j], k->choices[j]);
			pl.has.n_choices[i] = (uint8_t)(j + 1);
			pl.has.key[i] |= PLUGIN_HAS_CHOICES;
		}
	}
	for (unsigned int i = 0; i < 2; i++) {
		strcpy(pl.counter_text[i].name, fzd_counters[i].name);
		pl.has.counter_name[i] = 1;
	}
	pl.dev = 8;
	pl.ino = 1234;
	loader_plugin_bind(&pl);
	describe_wire_put(&fzd_sound, &pl);
	fzd_sound.fns = PLUGIN_FN_ALL;
}

static bool fzd_inside(const struct plugin *pl, const void *p, size_t len)
{
	const char *c = p;

	return !p || (c >= (const char *)pl && c < (const char *)(pl + 1) &&
		      strnlen(c, len) < len);
}

/* Everything of a taken plugin points into itself, ends there, runs
 * nothing. */
static void fzd_sound_check(const struct plugin *pl)
{
	const struct cth_plugin_desc *d = pl->desc;
	char err[1024];

	fzd_abort_unless(pl->described && !pl->dl && d == &pl->copy &&
			 !(pl->fns & ~(uint32_t)PLUGIN_FN_ALL));
	fzd_abort_unless(!d->configure && !d->packet && !d->check && !d->init && !d->fini &&
			 !d->priv_valid);
	fzd_abort_unless(fzd_inside(pl, d->name, sizeof(pl->name)) &&
			 fzd_inside(pl, d->version, sizeof(pl->version)) &&
			 fzd_inside(pl, d->description, sizeof(pl->description)));
	for (unsigned int i = 0; i < d->n_classes; i++)
		fzd_abort_unless(fzd_inside(pl, d->classes[i].name, sizeof(pl->class_names[i])));
	for (unsigned int i = 0; i < d->n_keys; i++) {
		const struct cth_key *k = &d->keys[i];

		fzd_abort_unless(fzd_inside(pl, k, sizeof(*k)) &&
				 fzd_inside(pl, k->name, CTH_KEY_NAME_LEN + 1) &&
				 fzd_inside(pl, k->doc, PLUGIN_DOC_LEN) &&
				 fzd_inside(pl, k->def, KEYS_DEF_MAX + 2));
		for (unsigned int j = 0; k->choices && k->choices[j]; j++)
			fzd_abort_unless(j <= KEYS_CHOICES_MAX &&
					 fzd_inside(pl, k->choices[j], CTH_KEY_NAME_LEN + 1));
	}
	for (unsigned int i = 0; i < d->n_counters; i++)
		fzd_abort_unless(fzd_inside(pl, d->counters[i].name, CTH_KEY_NAME_LEN + 1) &&
				 fzd_inside(pl, d->counters[i].help, PLUGIN_DOC_LEN));
	fzd_abort_unless(loader_desc_check_fns(d, pl->fns, err, sizeof(err)) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct plugin *pl = NULL;
	char err[1024] = "";
	bool other = size > 0 && (data[0] & 1);
	size_t at = size > 0 ? 1 : 0;
	int rc;

	if (!fzd_sound.plugin_size)
		fzd_sound_make();
	fzd_wire = fzd_sound;
	while (at + 5 <= size) {
		uint32_t off;
		size_t len = data[at + 4];

		memcpy(&off, data + at, 4);
		at += 5;
		if (len > size - at)
			len = size - at;
		off %= (uint32_t)sizeof(fzd_wire);
		if (len > sizeof(fzd_wire) - off)
			len = sizeof(fzd_wire) - off;
		memcpy((uint8_t *)&fzd_wire + off, data + at, len);
		at += len;
	}
	rc = describe_wire_take(&fzd_wire, FZD_PATH, "fzd", other ? 9 : 8, 1234, &pl, err,
				sizeof(err));
	if (rc < 0) {
		fzd_abort_unless(!pl && err[0]);
		return 0;
	}
	fzd_abort_unless(rc == 0 && pl);
	fzd_sound_check(pl);
	loader_unload(pl);
	return 0;
}
