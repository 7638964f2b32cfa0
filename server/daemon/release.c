/* SPDX-License-Identifier: MIT */
/*
 * --release: the configured helpers out of the kernel, for after a crash
 * (plugins are loaded as for a start: they decide the default families
 * and protocols, hence which kernel helpers the config stands for).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "kernel/cthelper_release.h"
#include "kernel/record.h"
#include "release.h"

static void release_record_read(const struct runtime *rt, const char *file,
				char *path, size_t len, struct record *rec);

int release_run(struct runtime *rt, const char *file)
{
	struct record *rec = calloc(1, sizeof(*rec));
	char path[4096];
	struct nlreq ctl;
	int rc;

	if (!rec || (rc = nlreq_open(&ctl)) < 0) {
		log_err("cannot open a netfilter netlink socket: %s",
			strerror(rec ? -rc : ENOMEM));
		free(rec);
		runtime_free(rt);
		return 1;
	}
	release_record_read(rt, file, path, sizeof(path), rec);
	rc = cthelper_release_all(&ctl, rt, rec);
	nlreq_close(&ctl);
	/* kept when something is left: a second --release tries again */
	if (!rc && path[0] && (rc = record_remove(path)) < 0)
		log_err("%s: cannot remove the record: %s", path, strerror(-rc));
	free(rec);
	runtime_free(rt);
	if (rc)
		log_err("release incomplete: see above");
	else
		log_notice("release done: no configured helper is enabled (each is deleted, or disabled where a rule still names it)");
	return rc ? 1 : 0;
}

/* The record a daemon run with file keeps (record.h), if any: into rec
 * (empty when none), its path into path ("" when none). */
static void release_record_read(const struct runtime *rt, const char *file,
				char *path, size_t len, struct record *rec)
{
	int rc;

	path[0] = '\0';
	if (!rt->cfg->runtime_dir ||
	    record_path(path, len, rt->cfg->runtime_dir, file) < 0) {
		path[0] = '\0';
		return;
	}
	rc = record_read(path, rec);
	if (rc == -ENOENT)
		return;
	if (rc)
		log_warn("%s: record refused (%s): releasing what the configuration "
			 "names only", path, strerror(-rc));
	else
		log_notice("%s: %zu kernel helper(s) recorded as registered", path, rec->n);
}
