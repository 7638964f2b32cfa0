/* SPDX-License-Identifier: MIT */
/* A described plugin's wire form (describe_wire.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "describe_wire.h"

#define TERM(a) ((a)[sizeof(a) - 1] = '\0')

static void describe_wire_unpoint(struct plugin *pl);
static void describe_wire_terminate(struct plugin *pl);

void describe_wire_put(struct chan_describe *w, const struct plugin *pl)
{
	memset(w, 0, sizeof(*w));
	w->plugin_size = (uint32_t)sizeof(struct plugin);
	w->fns = loader_desc_fns(pl->desc);
	w->dev = pl->dev;
	w->ino = pl->ino;
	memcpy(&w->pl, pl, sizeof(*pl));
	describe_wire_unpoint(&w->pl);
}

int describe_wire_take(const struct chan_describe *w, const char *path, const char *name,
		       uint64_t dev, uint64_t ino, struct plugin **out, char *err,
		       size_t errlen)
{
	struct cth_plugin_desc *d;
	struct plugin *pl;
	int rc;

	if (w->plugin_size != sizeof(struct plugin)) {
		snprintf(err, errlen, "%s: the sandbox describes it in %u bytes, not %zu",
			 path, w->plugin_size, sizeof(struct plugin));
		return -EPROTO;
	}
	if (w->dev != dev || w->ino != ino) {
		snprintf(err, errlen, "plugin '%s': refused: the file was replaced while it "
			 "was being loaded", path);
		return -ESTALE;
	}
	pl = malloc(sizeof(*pl));
	if (pl) {
		memcpy(pl, &w->pl, sizeof(*pl));
		describe_wire_unpoint(pl);
		pl->path = strdup(path);
	}
	if (!pl || !pl->path) {
		free(pl);
		snprintf(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	d = &pl->copy;
	describe_wire_terminate(pl);
	pl->described = true;
	pl->fns = w->fns & PLUGIN_FN_ALL;
	pl->dev = dev;
	pl->ino = ino;
	/* an ABI 2 descriptor declares nothing of ABI 3, and one of ABI 3's
	 * first size no match rules, as the loader's copy of either (a size
	 * the loader refuses is refused below) */
	if (d->size < sizeof(*d)) {
		memset((char *)d + d->size, 0, sizeof(*d) - d->size);
		pl->has.match = 0;
	}
	if (d->size < PLUGIN_ABI3_FIRST_SIZE) {
		pl->has.keys = pl->has.counters = 0;
		pl->fns &= PLUGIN_FN_CONFIGURE | PLUGIN_FN_PACKET;
	}
	loader_plugin_bind(pl);
	if ((rc = loader_plugin_vet(pl, name, err, errlen)) < 0) {
		loader_unload(pl);
		return rc;
	}
	*out = pl;
	return 0;
}

/* Every pointer of a struct plugin NULL: the sandbox's mean nothing
 * here, and no function of the plugin may be called in the daemon. */
static void describe_wire_unpoint(struct plugin *pl)
{
	struct cth_plugin_desc *d = &pl->copy;

	pl->path = NULL;
	pl->dl = NULL;
	pl->desc = NULL;
	d->name = d->version = d->description = NULL;
	for (unsigned int i = 0; i < CTH_CLASS_MAX; i++)
		d->classes[i].name = NULL;
	d->configure = NULL;
	d->packet = NULL;
	d->check = NULL;
	d->init = NULL;
	d->fini = NULL;
	d->priv_valid = NULL;
	d->keys = NULL;
	d->counters = NULL;
	d->match = NULL;
	for (unsigned int i = 0; i < CTH_KEY_MAX; i++) {
		pl->keys[i].name = pl->keys[i].doc = pl->keys[i].def = NULL;
		pl->keys[i].choices = NULL;
		for (unsigned int j = 0; j < KEYS_CHOICES_MAX + 2; j++)
			pl->key_text[i].choices[j] = NULL;
	}
	for (unsigned int i = 0; i < CTH_COUNTER_MAX; i++)
		pl->counters[i].name = pl->counters[i].help = NULL;
}

/* The loader's copies are terminated within their arrays: these are
 * made so, whatever the sandbox wrote. */
static void describe_wire_terminate(struct plugin *pl)
{
	TERM(pl->name);
	TERM(pl->version);
	TERM(pl->description);
	for (unsigned int i = 0; i < CTH_CLASS_MAX; i++)
		TERM(pl->class_names[i]);
	for (unsigned int i = 0; i < CTH_KEY_MAX; i++) {
		struct plugin_key_text *t = &pl->key_text[i];

		TERM(t->name);
		TERM(t->doc);
		TERM(t->def);
		for (unsigned int j = 0; j < KEYS_CHOICES_MAX + 1; j++)
			TERM(t->choice[j]);
	}
	for (unsigned int i = 0; i < CTH_COUNTER_MAX; i++) {
		TERM(pl->counter_text[i].name);
		TERM(pl->counter_text[i].help);
	}
}
