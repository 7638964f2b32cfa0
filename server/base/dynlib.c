/* SPDX-License-Identifier: MIT */
/*
 * dlopen() and a table of symbols (server/base/dynlib.h).
 *
 * Nothing is ever dlclose()d, not even a library that lacks a function:
 * the callers load once and keep calling, and unloading libmicrohttpd
 * would unload gnutls, whose destructors are meant for the process's end,
 * not its middle.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "dynlib.h"

/* dlsym() gives a void *; POSIX makes it convertible to a function
 * pointer, which is stored by its bytes so the table's real types stay
 * the caller's business. */
_Static_assert(sizeof(void *) == sizeof(void (*)(void)),
	       "function pointers are stored as void *");

static int dynlib_syms_check(const struct dynlib_sym *syms, size_t n, size_t size,
			     char *why, size_t len);
static int dynlib_syms_resolve(void *dl, const char *soname, const struct dynlib_sym *syms,
			       size_t n, unsigned char *table, char *why, size_t len);
static void dynlib_why_set(char *why, size_t len, const char *soname);

int dynlib_load(const char *soname, int flags, const struct dynlib_sym *syms,
		size_t n, void *table, size_t size, char *why, size_t len)
{
	void *dl;
	int rc;

	memset(table, 0, size);
	if ((rc = dynlib_syms_check(syms, n, size, why, len)) < 0)
		return rc;
	dl = dlopen(soname, flags);
	if (!dl) {
		dynlib_why_set(why, len, soname);
		return -ELIBACC;
	}
	rc = dynlib_syms_resolve(dl, soname, syms, n, table, why, len);
	if (rc < 0)
		memset(table, 0, size);  /* another version: none of it is used */
	return rc;
}

static int dynlib_syms_check(const struct dynlib_sym *syms, size_t n, size_t size,
			     char *why, size_t len)
{
	for (size_t i = 0; i < n; i++) {
		if (syms[i].offset > size || size - syms[i].offset < sizeof(void *)) {
			snprintf(why, len, "%s: outside its table of %zu bytes", syms[i].name, size);
			return -EINVAL;
		}
	}
	return 0;
}

/* Every entry into table, or -ELIBBAD at the first one missing. */
static int dynlib_syms_resolve(void *dl, const char *soname, const struct dynlib_sym *syms,
			       size_t n, unsigned char *table, char *why, size_t len)
{
	for (size_t i = 0; i < n; i++) {
		void *p;

		dlerror();
		p = dlsym(dl, syms[i].name);
		if (!p) {
			dynlib_why_set(why, len, soname);
			return -ELIBBAD;
		}
		memcpy(table + syms[i].offset, &p, sizeof(p));
	}
	return 0;
}

static void dynlib_why_set(char *why, size_t len, const char *soname)
{
	const char *e = dlerror();

	snprintf(why, len, "cannot load %s: %s", soname, e ? e : "unknown dlerror()");
}
