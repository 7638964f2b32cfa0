/* SPDX-License-Identifier: MIT */
/*
 * A shared library loaded with dlopen() when a feature needs it, rather
 * than linked: a linked library is mapped and relocated at every start,
 * with everything it needs in turn, whether the feature is used or not
 * (libmicrohttpd and gnutls: ~2.8 MB of RSS; libsystemd ~1 MB).
 *
 * The caller declares a table of function pointers typed from the
 * library's own header, one member per function and named after it, so
 * every call through the table is checked by the compiler as a direct
 * call would be:
 *
 *	struct foo_api {
 *		typeof(&foo_open) foo_open;
 *		typeof(&foo_close) foo_close;
 *	};
 *	static const struct dynlib_sym foo_syms[] = {
 *		DYNLIB_SYM(struct foo_api, foo_open),
 *		DYNLIB_SYM(struct foo_api, foo_close),
 *	};
 *	DYNLIB_TABLE_CHECK(struct foo_api, foo_syms);
 *
 * A loaded library stays loaded for the life of the process (see
 * dynlib.c).
 */
#ifndef CTH_DYNLIB_H
#define CTH_DYNLIB_H

#include <stddef.h>

struct dynlib_sym {
	const char *name;
	size_t offset;                /* of its pointer in the table */
};

/*
 * The entry for member sym of table type: its name is the member's, and
 * the build fails unless the member has the type of &sym as the header
 * declares it (a sizeof of a negative-sized array otherwise).
 */
#define DYNLIB_SYM(type, sym)                                             \
	{ #sym, offsetof(type, sym) +                                      \
		0 * sizeof(char[__builtin_types_compatible_p(              \
			typeof(((type *)0)->sym), typeof(&sym)) ? 1 : -1]) }

/* The table holds one pointer per entry of syms and nothing else, so no
 * member is left unresolved. */
#define DYNLIB_TABLE_CHECK(type, syms)                                    \
	_Static_assert(sizeof(type) == sizeof(syms) / sizeof((syms)[0]) *  \
		       sizeof(void *), #type ": one pointer per entry of " #syms)

/*
 * dlopen(soname, flags), then every syms[i] into table (size bytes): all
 * or nothing.  Returns 0 with each pointer set, or a negative errno with
 * table zeroed and why set to a message naming soname, with dlerror()'s
 * reason: -ELIBACC (no such library, or it cannot be loaded), -ELIBBAD
 * (a function is missing: another version), -EINVAL (an entry outside
 * the table: the caller's bug).
 */
int dynlib_load(const char *soname, int flags, const struct dynlib_sym *syms,
		size_t n, void *table, size_t size, char *why, size_t len);

#endif
