/* SPDX-License-Identifier: MIT */
/*
 * Plugin loading.  RTLD_NOW makes a missing symbol fail here, at start-up
 * or reload, instead of in the packet path; RTLD_LOCAL keeps two plugins'
 * internal symbols from resolving to each other.  The ABI version and the
 * descriptor size are checked before any other field is read, because a
 * plugin built for another ABI may have a different layout after them.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader.h"

#define ERR(...) (snprintf(err, errlen, __VA_ARGS__), -EINVAL)

static int plugin_class_check(const struct cth_expect_class *c, unsigned i,
			      char *err, size_t errlen)
{
	if (!c->name || !*c->name || strlen(c->name) >= CTH_NAME_LEN)
		return ERR("expectation class %u: name must be 1..%u characters",
			   i, CTH_NAME_LEN - 1);
	if (c->max < 1 || c->max > 255)
		return ERR("expectation class '%s': max %u is not in 1..255",
			   c->name, c->max);
	if (c->timeout < 1)
		return ERR("expectation class '%s': timeout must be at least 1 second",
			   c->name);
	return 0;
}

int plugin_desc_check(const struct cth_plugin_desc *d, const char *name,
		      char *err, size_t errlen)
{
	if (d->abi_version != CTH_ABI_VERSION)
		return ERR("plugin ABI version %u, cthelperd speaks %u: rebuild the plugin against this SDK",
			   d->abi_version, CTH_ABI_VERSION);
	if (d->size != sizeof(*d))
		return ERR("plugin descriptor is %u bytes, cthelperd expects %zu: rebuild the plugin against this SDK",
			   d->size, sizeof(*d));
	if (!d->name || strcmp(d->name, name) != 0)
		return ERR("plugin declares the name '%s', but was loaded as '%s'",
			   d->name ? d->name : "(null)", name);
	if (!d->packet)
		return ERR("plugin has no packet callback");
	if (d->priv_size > CTH_PRIV_MAX)
		return ERR("plugin needs %zu bytes of private state per connection; the kernel keeps at most %u",
			   d->priv_size, CTH_PRIV_MAX);
	if (!d->protocols || (d->protocols & ~(unsigned)(CTH_PROTO_TCP | CTH_PROTO_UDP)))
		return ERR("plugin protocols 0x%x: must be a non-empty set of CTH_PROTO_TCP|CTH_PROTO_UDP",
			   d->protocols);
	if (!d->families || (d->families & ~(unsigned)(CTH_FAMILY_IPV4 | CTH_FAMILY_IPV6)))
		return ERR("plugin families 0x%x: must be a non-empty set of CTH_FAMILY_IPV4|CTH_FAMILY_IPV6",
			   d->families);
	if (d->n_classes < 1 || d->n_classes > CTH_CLASS_MAX)
		return ERR("plugin declares %u expectation classes; 1..%u allowed",
			   d->n_classes, CTH_CLASS_MAX);
	for (unsigned i = 0; i < d->n_classes; i++) {
		int rc = plugin_class_check(&d->classes[i], i, err, errlen);

		if (rc)
			return rc;
		for (unsigned j = 0; j < i; j++)
			if (strcmp(d->classes[i].name, d->classes[j].name) == 0)
				return ERR("expectation class '%s' declared twice",
					   d->classes[i].name);
	}
	if (d->config_size > 65536)
		return ERR("plugin configuration block of %zu bytes is unreasonably large",
			   d->config_size);
	return 0;
}

int plugin_load(const char *dir, const char *name, struct plugin **out,
		char *err, size_t errlen)
{
	struct plugin *pl;
	char path[4096];
	int rc;

	snprintf(path, sizeof(path), "%s/%s.so", dir, name);
	pl = calloc(1, sizeof(*pl));
	if (!pl || !(pl->path = strdup(path))) {
		free(pl);
		snprintf(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	pl->dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!pl->dl) {
		/* dlerror() names the file and the missing symbol or library */
		snprintf(err, errlen, "cannot load plugin: %s", dlerror());
		plugin_unload(pl);
		return -ENOENT;
	}
	pl->desc = dlsym(pl->dl, CTH_PLUGIN_SYMBOL);
	if (!pl->desc) {
		snprintf(err, errlen, "%s: no '%s' symbol: not a cthelperd plugin (export it with CTH_PLUGIN_EXPORT)",
			 path, CTH_PLUGIN_SYMBOL);
		plugin_unload(pl);
		return -ENOENT;
	}
	rc = plugin_desc_check(pl->desc, name, err, errlen);
	if (rc) {
		char why[512];

		snprintf(why, sizeof(why), "%s", err);
		snprintf(err, errlen, "%s: %s", path, why);
		plugin_unload(pl);
		return rc;
	}
	*out = pl;
	return 0;
}

void plugin_unload(struct plugin *pl)
{
	if (!pl)
		return;
	if (pl->dl)
		dlclose(pl->dl);
	free(pl->path);
	free(pl);
}
