/* SPDX-License-Identifier: MIT */
/* Load a configuration from text, for the unit tests that check what the
 * parser says: the text goes to a fresh file under /tmp (its name in
 * path, for the FILE:LINE the errors start with), stderr is captured. */
#ifndef CTH_TEST_CFGLOAD_H
#define CTH_TEST_CFGLOAD_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/config_load.h"

#define CFGLOAD_PATH 64

/* cfg_load() of len bytes of text: its return, *out, stderr in err. */
static inline int cfgload_text(const char *text, size_t len, char *path,
			       struct cfg **out, char *err, size_t elen)
{
	char epath[] = "/tmp/cth-test-cerr-XXXXXX";
	int fd, efd, saved, rc;
	ssize_t n;

	snprintf(path, CFGLOAD_PATH, "/tmp/cth-test-conf-XXXXXX");
	fd = mkstemp(path);
	efd = mkstemp(epath);
	if (fd < 0 || efd < 0 || write(fd, text, len) != (ssize_t)len)
		abort();
	close(fd);
	fflush(stderr);
	saved = dup(2);
	dup2(efd, 2);
	*out = NULL;
	rc = cfg_load(path, out);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	lseek(efd, 0, SEEK_SET);
	n = read(efd, err, elen - 1);
	err[n > 0 ? n : 0] = '\0';
	close(efd);
	unlink(epath);
	unlink(path);
	return rc;
}

#endif
