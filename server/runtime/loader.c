/* SPDX-License-Identifier: MIT */
/*
 * Plugin loading.  RTLD_NOW makes a missing symbol fail here, at start-up
 * or reload, instead of in the packet path; RTLD_LOCAL keeps two plugins'
 * internal symbols from resolving to each other.  The ABI version and the
 * descriptor size are checked before any other field is read, because a
 * plugin built for another ABI may have a different layout after them.
 *
 * The descriptor is then copied into daemon memory, strings, declared
 * keys and counters included, and only the copy is checked and used: the
 * plugin's own descriptor lives in memory the plugin can write, and a
 * change after the check (a larger priv_size, a renamed class, a key's
 * offset) must not reach the daemon.
 *
 * ABI 3 and ABI 2 (CTH_ABI_OLDEST) descriptors are taken: an ABI 2 one is
 * the ABI 3 layout cut after packet, and its copy gets the ABI 3 fields
 * zeroed, which is what "declares nothing of SDK 3" means everywhere
 * else.  This promise holds for as long as cthelperd's major version
 * stays 1 (plugin.h).
 *
 * A plugin runs as root at start (constructors and configure() run before
 * the privilege drop), so before dlopen() its file and directory must be
 * writable by root or the daemon's user only (loader_file_check()).
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/log.h"
#include "config.h"
#include "dlfresh.h"
#include "loader.h"
#include "../../kmod/cthd_match.h"

#define SAME(a, b) ((unsigned int)(a) == (unsigned int)(b))
_Static_assert(SAME(CTH_MATCH_MAX, CTHD_MATCH_MAX) && SAME(CTH_MATCH_LEN, CTHD_MATCH_LEN) &&
	       SAME(CTH_MATCH_PRIV_MAX, CTHD_MATCH_PRIV_MAX) &&
	       SAME(CTH_MATCH_AT_START, CTHD_AT_START) && SAME(CTH_MATCH_AT_LINE, CTHD_AT_LINE) &&
	       SAME(CTH_MATCH_ORIGINAL, CTHD_DIR_ORIGINAL) &&
	       SAME(CTH_MATCH_REPLY, CTHD_DIR_REPLY) &&
	       SAME(CTH_MATCH_NAT_ALL, CTHD_MATCH_F_NAT_ALL),
	       "the SDK's match rules are the kernel module's");

#define ERR(...) (snprintf(err, errlen, __VA_ARGS__), -EINVAL)
#define PLUGIN_RULE "plugins must be writable by root or the daemon's user only"

static int loader_file_open(struct plugin *pl, char *err, size_t errlen);
static int loader_file_check(const char *path, int *fd, struct stat *st,
			     char *err, size_t errlen);
static int loader_stat_check(const char *path, const char *what,
			     const struct stat *st, char *err, size_t errlen);
static int loader_dir_check(const char *path, const char *file, char *err,
			    size_t errlen);
static int loader_file_same(const char *path, const struct stat *was,
			    char *err, size_t errlen);
static int loader_desc_take(struct plugin *pl, char *err, size_t errlen);
static int loader_name_check(const struct plugin *pl, const char *name, char *err,
			     size_t errlen);
static void loader_key_bind(struct cth_key *k, struct plugin_key_text *t, uint8_t has,
			    uint8_t n_choices);
static int loader_header_check(const struct cth_plugin_desc *d, char *err,
			       size_t errlen);
static size_t loader_abi_size(uint32_t abi);
static void loader_desc_copy(struct plugin *pl, const struct cth_plugin_desc *src);
static void loader_keys_copy(struct plugin *pl, const struct cth_plugin_desc *src);
static void loader_key_copy(struct cth_key *k, struct plugin_key_text *t,
			    uint8_t *has, uint8_t *n_choices, const struct cth_key *src);
static void loader_counters_copy(struct plugin *pl, const struct cth_plugin_desc *src);
static uint8_t loader_str_copy(char *dst, size_t len, const char *src);
static int loader_name_ok(const struct cth_plugin_desc *d, char *err, size_t errlen);
static int loader_class_check(const struct cth_expect_class *c, unsigned i,
			      char *err, size_t errlen);
static int loader_counters_check(const struct cth_plugin_desc *d, char *err,
				 size_t errlen);
static int loader_priv_check(const struct cth_plugin_desc *d, uint32_t fns, char *err,
			     size_t errlen);
static void loader_match_copy(struct plugin *pl, const struct cth_plugin_desc *src);
static int loader_match_check(const struct cth_plugin_desc *d, char *err, size_t errlen);

int loader_load(const char *dir, const char *name, struct plugin **out,
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
	if ((rc = loader_file_open(pl, err, errlen)) < 0) {
		loader_unload(pl);
		return rc;
	}
	rc = loader_desc_take(pl, err, errlen);
	if (rc) {
		char why[512];

		snprintf(why, sizeof(why), "%s", err);
		snprintf(err, errlen, "%s: %s", path, why);
		loader_unload(pl);
		return rc;
	}
	if ((rc = loader_plugin_vet(pl, name, err, errlen))) {
		loader_unload(pl);
		return rc;
	}
	*out = pl;
	return 0;
}

int loader_plugin_vet(const struct plugin *pl, const char *name, char *err,
		      size_t errlen)
{
	int rc = loader_desc_check_fns(pl->desc, pl->fns, err, errlen);

	if (rc) {
		char why[512];

		snprintf(why, sizeof(why), "%s", err);
		snprintf(err, errlen, "%s: %s", pl->path, why);
		return rc;
	}
	return loader_name_check(pl, name, err, errlen);
}

int loader_file_vet(const char *path, uint64_t *dev, uint64_t *ino, char *err,
		    size_t errlen)
{
	struct stat st = { 0 };
	int fd, rc = loader_file_check(path, &fd, &st, err, errlen);

	if (fd >= 0)
		close(fd);
	*dev = (uint64_t)st.st_dev;
	*ino = (uint64_t)st.st_ino;
	return rc;
}

void loader_unload(struct plugin *pl)
{
	if (!pl)
		return;
	if (pl->dl)
		dlfresh_close(pl->dl);
	free(pl->path);
	free(pl);
}

int loader_desc_check(const struct cth_plugin_desc *d, char *err, size_t errlen)
{
	return loader_desc_check_fns(d, loader_desc_fns(d), err, errlen);
}

uint32_t loader_desc_fns(const struct cth_plugin_desc *d)
{
	return (d->configure ? PLUGIN_FN_CONFIGURE : 0u) | (d->packet ? PLUGIN_FN_PACKET : 0u) |
	       (d->check ? PLUGIN_FN_CHECK : 0u) | (d->init ? PLUGIN_FN_INIT : 0u) |
	       (d->fini ? PLUGIN_FN_FINI : 0u) | (d->priv_valid ? PLUGIN_FN_PRIV_VALID : 0u);
}

int loader_desc_check_fns(const struct cth_plugin_desc *d, uint32_t fns, char *err,
			  size_t errlen)
{
	int rc = loader_header_check(d, err, errlen);

	if (rc || (rc = loader_name_ok(d, err, errlen)))
		return rc;
	if (!(fns & PLUGIN_FN_PACKET))
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
		rc = loader_class_check(&d->classes[i], i, err, errlen);
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
	if ((rc = keys_decl_check_fns(d, fns, err, errlen)) ||
	    (rc = loader_counters_check(d, err, errlen)) ||
	    (rc = loader_match_check(d, err, errlen)))
		return rc;
	return loader_priv_check(d, fns, err, errlen);
}

/* ---- the file, and who may have written it ---- */

/* Checked file → handle in pl->dl; err says why not. */
static int loader_file_open(struct plugin *pl, char *err, size_t errlen)
{
	struct stat st;
	int fd, rc = loader_file_check(pl->path, &fd, &st, err, errlen);

	if (rc == 0) {
		pl->dl = dlfresh_open(pl->path);
		/* dlerror() names the file and the missing symbol or library */
		if (!pl->dl)
			rc = -ENOENT, snprintf(err, errlen, "cannot load plugin: %s", dlerror());
		else
			rc = loader_file_same(pl->path, &st, err, errlen);
		pl->dev = (uint64_t)st.st_dev;
		pl->ino = (uint64_t)st.st_ino;
	}
	if (fd >= 0)
		close(fd);
	return rc;
}

/*
 * Open the file and check what was opened, its directory, and, for a
 * symbolic link, the directory of the file it leads to.  *fd stays open
 * until loader_file_same(): an open file keeps its inode number, so a
 * match there cannot be a new file that got the old number.
 */
static int loader_file_check(const char *path, int *fd, struct stat *st,
			     char *err, size_t errlen)
{
	char real[PATH_MAX];
	int rc;

	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0 || fstat(*fd, st) < 0) {
		rc = -errno;
		snprintf(err, errlen, "cannot load plugin: %s: %s", path, strerror(errno));
		return rc;
	}
	if (!S_ISREG(st->st_mode))
		return ERR("plugin '%s': refused: not a regular file", path);
	if ((rc = loader_stat_check(path, "the file", st, err, errlen)) ||
	    (rc = loader_dir_check(path, path, err, errlen)))
		return rc;
	if (!realpath(path, real)) {
		rc = -errno;
		snprintf(err, errlen, "plugin '%s': %s", path, strerror(errno));
		return rc;
	}
	return loader_dir_check(path, real, err, errlen);
}

/* Root, or the user the daemon runs as (after the drop, or started so). */
static int loader_stat_check(const char *path, const char *what,
			     const struct stat *st, char *err, size_t errlen)
{
	unsigned int mode = (unsigned int)st->st_mode & 07777;

	if (st->st_uid != 0 && st->st_uid != geteuid())
		return ERR("plugin '%s': refused: %s is owned by uid %u, neither root nor "
			   "the daemon's user (uid %u); " PLUGIN_RULE, path, what,
			   (unsigned)st->st_uid, (unsigned)geteuid());
	if (mode & S_IWOTH)
		return ERR("plugin '%s': refused: %s is world-writable (mode %04o); "
			   PLUGIN_RULE, path, what, mode);
	if (mode & S_IWGRP)
		return ERR("plugin '%s': refused: %s is group-writable (mode %04o); "
			   PLUGIN_RULE, path, what, mode);
	return 0;
}

/* Whoever may write the directory may put another file at the name. */
static int loader_dir_check(const char *path, const char *file, char *err,
			    size_t errlen)
{
	char copy[PATH_MAX], what[PATH_MAX + 32];
	struct stat st;
	const char *dir;

	snprintf(copy, sizeof(copy), "%s", file);
	dir = dirname(copy);
	if (stat(dir, &st) < 0) {
		int rc = -errno;

		snprintf(err, errlen, "plugin '%s': cannot check its directory %s: %s",
			 path, dir, strerror(-rc));
		return rc;
	}
	snprintf(what, sizeof(what), "its directory %s", dir);
	return loader_stat_check(path, what, &st, err, errlen);
}

/*
 * dlopen() opens the path again: the file it mapped must be the one
 * checked.  Residual races, which this does not close:
 *  - between the checks and dlopen() the name can lead elsewhere only for
 *    someone who may write the plugin's directory (checked above) or one
 *    of its ancestors (not checked): a swap still in place after dlopen()
 *    is refused here, but one undone in between (A, B, A) is not seen, and
 *    B's constructors have run by then anyway;
 *  - the file's bytes can change after the check, by its owner (root or
 *    the daemon's user) or through a descriptor opened for writing before
 *    its mode was tightened.
 * dlopen("/proc/self/fd/N") would map exactly the checked file, but glibc
 * matches an already-loaded object by the name given before it opens
 * anything, and fd numbers are reused: a later plugin could get an
 * earlier one's handle (an object dlclose() left loaded keeps its name).
 * The same name match would hand a reload the old build of a replaced
 * file: dlfresh_open() (server/runtime/dlfresh.c) notices that and loads the
 * file now on disk.
 */
static int loader_file_same(const char *path, const struct stat *was,
			    char *err, size_t errlen)
{
	struct stat now;

	if (stat(path, &now) < 0 || now.st_dev != was->st_dev ||
	    now.st_ino != was->st_ino)
		return ERR("plugin '%s': refused: the file was replaced while it was "
			   "being loaded", path);
	return 0;
}

/* ---- the descriptor ---- */

/* Look the descriptor up, copy it, check the copy. */
static int loader_desc_take(struct plugin *pl, char *err, size_t errlen)
{
	const struct cth_plugin_desc *src = dlsym(pl->dl, CTH_PLUGIN_SYMBOL);
	int rc;

	if (!src) {
		snprintf(err, errlen, "no '%s' symbol: not a cthelperd plugin (export it with CTH_PLUGIN_EXPORT)",
			 CTH_PLUGIN_SYMBOL);
		return -ENOENT;
	}
	rc = loader_header_check(src, err, errlen);
	if (rc)
		return rc;
	loader_desc_copy(pl, src);
	return 0;
}

/*
 * The file-name rule: a configuration names a plugin, the daemon opens
 * NAME.so, and the descriptor must agree, so that one name means one
 * plugin in the configuration, the logs, status and stats.
 */
static int loader_name_check(const struct plugin *pl, const char *name, char *err,
			     size_t errlen)
{
	const char *has = pl->desc->name;

	if (strcmp(has, name) == 0)
		return 0;
	return ERR("plugin file %s declares the name '%s': a plugin is loaded as NAME.so "
		   "with NAME its descriptor's name; rename the file to %s.so or declare "
		   ".name = \"%s\"", pl->path, has, has, name);
}

/* ABI version and size: the only fields that may be read before we know
 * the descriptor has a layout we know. */
static int loader_header_check(const struct cth_plugin_desc *d, char *err,
			       size_t errlen)
{
	size_t want = loader_abi_size(d->abi_version);

	if (d->abi_version == CTH_ABI_VERSION && d->size == PLUGIN_ABI3_FIRST_SIZE)
		return 0;
	if (!want)
		return ERR("plugin ABI version %u, %s speaks %u (and loads %u..%u): rebuild "
			   "the plugin against this SDK", d->abi_version, log_program(),
			   CTH_ABI_VERSION, CTH_ABI_OLDEST, CTH_ABI_VERSION);
	if (d->size != want)
		return ERR("plugin descriptor is %u bytes, %s expects %zu for ABI %u: rebuild "
			   "the plugin against this SDK", d->size, log_program(), want,
			   d->abi_version);
	return 0;
}

/* The descriptor size of an ABI the loader takes, else 0. */
static size_t loader_abi_size(uint32_t abi)
{
	if (abi == CTH_ABI_VERSION)
		return sizeof(struct cth_plugin_desc);
	if (abi == CTH_ABI_OLDEST)
		return PLUGIN_ABI2_SIZE;
	return 0;
}

/* The descriptor, strings included, into pl: from now on pl->desc.  Only
 * the plugin's own size is read (loader_header_check() checked it). */
static void loader_desc_copy(struct plugin *pl, const struct cth_plugin_desc *src)
{
	struct cth_plugin_desc *d = &pl->copy;
	struct plugin_has *h = &pl->has;

	memset(d, 0, sizeof(*d));
	memcpy(d, src, src->size);
	pl->fns = loader_desc_fns(d);
	h->name = loader_str_copy(pl->name, sizeof(pl->name), src->name);
	h->version = loader_str_copy(pl->version, sizeof(pl->version), src->version);
	h->description = loader_str_copy(pl->description, sizeof(pl->description),
					 src->description);
	/* slots past n_classes are not the plugin's to fill: not read */
	for (unsigned i = 0; i < CTH_CLASS_MAX && i < d->n_classes; i++)
		h->class_name[i] = loader_str_copy(pl->class_names[i],
						   sizeof(pl->class_names[i]),
						   src->classes[i].name);
	if (src->abi_version >= 3) {
		loader_keys_copy(pl, src);
		loader_counters_copy(pl, src);
	}
	if (src->size > PLUGIN_ABI3_FIRST_SIZE)
		loader_match_copy(pl, src);
	loader_plugin_bind(pl);
}

/* More than CTH_KEY_MAX keys are not read (the table may not be that
 * long): the check refuses them by n_keys alone. */
static void loader_keys_copy(struct plugin *pl, const struct cth_plugin_desc *src)
{
	pl->has.keys = src->keys != NULL;
	if (!src->keys)
		return;
	for (unsigned int i = 0; i < src->n_keys && src->n_keys <= CTH_KEY_MAX; i++)
		loader_key_copy(&pl->keys[i], &pl->key_text[i], &pl->has.key[i],
				&pl->has.n_choices[i], &src->keys[i]);
}

static void loader_key_copy(struct cth_key *k, struct plugin_key_text *t,
			    uint8_t *has, uint8_t *n_choices, const struct cth_key *src)
{
	unsigned int j;

	*k = *src;
	*has = (uint8_t)(loader_str_copy(t->name, sizeof(t->name), src->name) ?
			 PLUGIN_HAS_NAME : 0);
	*has |= loader_str_copy(t->doc, sizeof(t->doc), src->doc) ? PLUGIN_HAS_DOC : 0;
	*has |= loader_str_copy(t->def, sizeof(t->def), src->def) ? PLUGIN_HAS_DEF : 0;
	/* the other types' choices are not the plugin's to fill */
	if (src->type != CTH_KEY_CHOICE || !src->choices)
		return;
	for (j = 0; j <= KEYS_CHOICES_MAX && src->choices[j]; j++)
		loader_str_copy(t->choice[j], sizeof(t->choice[j]), src->choices[j]);
	*has |= PLUGIN_HAS_CHOICES;
	*n_choices = (uint8_t)j;
}

static void loader_counters_copy(struct plugin *pl, const struct cth_plugin_desc *src)
{
	pl->has.counters = src->counters != NULL;
	if (!src->counters)
		return;
	for (unsigned int i = 0; i < src->n_counters && src->n_counters <= CTH_COUNTER_MAX; i++) {
		struct plugin_counter_text *t = &pl->counter_text[i];

		pl->has.counter_name[i] = loader_str_copy(t->name, sizeof(t->name),
							  src->counters[i].name);
		loader_str_copy(t->help, sizeof(t->help),
				src->counters[i].help ? src->counters[i].help : "");
	}
}

/*
 * Copy a plugin string into a daemon buffer, reading at most len - 1
 * bytes of it: 1, or 0 for a NULL one.  A string that does not fit is
 * cut; the checks that follow see the cut copy, and every limit they
 * enforce is shorter than the buffer, so an over-long name is still
 * refused.
 */
static uint8_t loader_str_copy(char *dst, size_t len, const char *src)
{
	size_t n;

	if (!src)
		return 0;
	n = strnlen(src, len - 1);
	memcpy(dst, src, n);
	dst[n] = '\0';
	return 1;
}

/* More than CTH_MATCH_MAX rules are not read: refused by n_match alone. */
static void loader_match_copy(struct plugin *pl, const struct cth_plugin_desc *src)
{
	pl->has.match = src->match != NULL;
	if (!src->match || src->n_match > CTH_MATCH_MAX)
		return;
	memcpy(pl->match, src->match, src->n_match * sizeof(pl->match[0]));
}

/* ---- binding a copy ---- */

void loader_plugin_bind(struct plugin *pl)
{
	struct cth_plugin_desc *d = &pl->copy;
	const struct plugin_has *h = &pl->has;

	d->name = h->name ? pl->name : NULL;
	d->version = h->version ? pl->version : NULL;
	d->description = h->description ? pl->description : NULL;
	for (unsigned int i = 0; i < CTH_CLASS_MAX; i++)
		d->classes[i].name = i < d->n_classes && h->class_name[i] ?
				     pl->class_names[i] : NULL;
	d->keys = h->keys ? pl->keys : NULL;
	for (unsigned int i = 0; h->keys && d->n_keys <= CTH_KEY_MAX && i < d->n_keys; i++)
		loader_key_bind(&pl->keys[i], &pl->key_text[i], h->key[i], h->n_choices[i]);
	d->counters = h->counters ? pl->counters : NULL;
	for (unsigned int i = 0; h->counters && d->n_counters <= CTH_COUNTER_MAX &&
	     i < d->n_counters; i++) {
		pl->counters[i].name = h->counter_name[i] ? pl->counter_text[i].name : NULL;
		pl->counters[i].help = pl->counter_text[i].help;
	}
	d->match = h->match ? pl->match : NULL;
	pl->desc = d;
}

static void loader_key_bind(struct cth_key *k, struct plugin_key_text *t, uint8_t has,
			    uint8_t n_choices)
{
	unsigned int n = n_choices <= KEYS_CHOICES_MAX + 1 ? n_choices : KEYS_CHOICES_MAX + 1;

	k->name = has & PLUGIN_HAS_NAME ? t->name : NULL;
	k->doc = has & PLUGIN_HAS_DOC ? t->doc : NULL;
	k->def = has & PLUGIN_HAS_DEF ? t->def : NULL;
	k->choices = NULL;
	if (!(has & PLUGIN_HAS_CHOICES))
		return;
	for (unsigned int j = 0; j < n; j++)
		t->choices[j] = t->choice[j];
	t->choices[n] = NULL;
	k->choices = t->choices;
}

/* What the configuration's plugin key can name (config_helper.c). */
static int loader_name_ok(const struct cth_plugin_desc *d, char *err, size_t errlen)
{
	if (!d->name || !*d->name)
		return ERR("plugin declares no name");
	if (strlen(d->name) >= PLUGIN_NAME_LEN)
		return ERR("plugin declares the name '%s', longer than %u characters",
			   d->name, PLUGIN_NAME_LEN - 1);
	if (!cfg_name_ok(d->name, PLUGIN_NAME_LEN))
		return ERR("plugin declares the name '%s': only A-Z, a-z, 0-9, _ and - may "
			   "be used", d->name);
	return 0;
}

static int loader_class_check(const struct cth_expect_class *c, unsigned i,
			      char *err, size_t errlen)
{
	if (!c->name || !*c->name || strlen(c->name) >= CTH_NAME_LEN)
		return ERR("expectation class %u: name must be 1..%u characters",
			   i, CTH_NAME_LEN - 1);
	if (c->max < 1 || c->max > PLUGIN_EXPECT_MAX)
		return ERR("expectation class '%s': max %u is not in 1..%u",
			   c->name, c->max, PLUGIN_EXPECT_MAX);
	if (c->timeout < 1 || c->timeout > PLUGIN_TIMEOUT_MAX)
		return ERR("expectation class '%s': default timeout %u s is not in 1..%u "
			   "(the kernel counts it in 32-bit jiffies)",
			   c->name, c->timeout, PLUGIN_TIMEOUT_MAX);
	return 0;
}

static int loader_counters_check(const struct cth_plugin_desc *d, char *err,
				 size_t errlen)
{
	if (d->n_counters > CTH_COUNTER_MAX)
		return ERR("plugin declares %u counters; at most %u", d->n_counters,
			   CTH_COUNTER_MAX);
	if (d->n_counters && !d->counters)
		return ERR("plugin declares %u counters but no counter table (counters is NULL)",
			   d->n_counters);
	for (unsigned int i = 0; i < d->n_counters; i++) {
		const char *name = d->counters[i].name;

		if (!name || !keys_name_ok(name))
			return ERR("counter %u: name '%s' must be 1..%u characters of a-z, 0-9 "
				   "and _", i, name ? name : "(null)", CTH_KEY_NAME_LEN - 1);
		for (unsigned int j = 0; j < i; j++)
			if (strcmp(name, d->counters[j].name) == 0)
				return ERR("counter '%s' declared twice", name);
	}
	return 0;
}

/* The host keeps the version byte inside the state (call.c). */
static int loader_priv_check(const struct cth_plugin_desc *d, uint32_t fns, char *err,
			     size_t errlen)
{
	if (d->priv_version && d->priv_version_at >= d->priv_size)
		return ERR("priv_version_at %u is not inside the %zu bytes of private state",
			   d->priv_version_at, d->priv_size);
	if (!d->priv_version && (fns & PLUGIN_FN_PRIV_VALID))
		return ERR("priv_valid needs a priv_version (the host calls it only for "
			   "state of that version)");
	return 0;
}

/*
 * The match rules (plugin.h struct cth_match), by the rule the kernel
 * module applies itself (kmod/cthd_match.h cthd_rule_set()), so that a
 * table the daemon takes is one the module takes.
 */
static int loader_match_check(const struct cth_plugin_desc *d, char *err, size_t errlen)
{
	struct cthd_rule r;

	if (d->n_match > CTH_MATCH_MAX)
		return ERR("plugin declares %u match rules; at most %u", d->n_match,
			   CTH_MATCH_MAX);
	if (d->n_match && !d->match)
		return ERR("plugin declares %u match rules but no rule table (match is NULL)",
			   d->n_match);
	if (d->match_flags & ~(unsigned int)CTH_MATCH_NAT_ALL)
		return ERR("plugin match_flags 0x%x: only CTH_MATCH_NAT_ALL is defined",
			   d->match_flags);
	if (d->match_flags && !d->n_match)
		return ERR("plugin match_flags 0x%x without match rules: they only qualify rules",
			   d->match_flags);
	if (d->n_match && d->priv_size > CTH_MATCH_PRIV_MAX)
		return ERR("plugin declares match rules and %zu bytes of private state: with "
			   "rules at most %u (the kernel module keeps 2 bytes of its own)",
			   d->priv_size, CTH_MATCH_PRIV_MAX);
	for (unsigned int i = 0; i < d->n_match; i++) {
		const struct cth_match *m = &d->match[i];
		size_t len = strnlen(m->prefix, sizeof(m->prefix));

		if (len == sizeof(m->prefix))
			return ERR("match rule %u: prefix is not NUL-terminated within %u bytes",
				   i, CTH_MATCH_LEN);
		if (!cthd_rule_set(&r, m->prefix, (unsigned int)len, m->at, m->dirs))
			return ERR("match rule %u ('%s'): prefix must be 1..%u printable ASCII "
				   "characters, at CTH_MATCH_AT_START or CTH_MATCH_AT_LINE (is %u), "
				   "dirs a non-empty set of CTH_MATCH_ORIGINAL|CTH_MATCH_REPLY "
				   "(is 0x%x)", i, len ? m->prefix : "", CTH_MATCH_LEN,
				   m->at, m->dirs);
	}
	return 0;
}
