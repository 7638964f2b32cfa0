/* SPDX-License-Identifier: MIT */
/*
 * dlopen() that loads what is on disk now.  glibc returns an object that
 * is already loaded when the path names it (_dl_map_object() compares the
 * name before it opens anything), even if the file was replaced since: a
 * reload after "install new/ftp.so plugins/" would get the old code back.
 * Main thread only.
 */
#ifndef CTH_DLFRESH_H
#define CTH_DLFRESH_H

#include <sys/types.h>

/* Open path's current file: a handle (shared with a live one loaded from
 * the very same file), or NULL with dlerror() or errno telling why. */
void *dlfresh_open(const char *path);
/* dlclose() a handle dlfresh_open() gave. */
void dlfresh_close(void *dl);

#endif
