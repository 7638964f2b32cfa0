// SPDX-License-Identifier: MIT
/*
 * The record of registered kernel helpers (record.h has the why).
 *
 * Kernel facts relied on: a user-space helper is named by at most
 * NF_CT_HELPER_NAME_LEN (16) bytes with the NUL, and looked up by name
 * plus (l3num, l4num) (nfnetlink_cthelper.c, nfnl_cthelper_new()); the
 * queue number is 16 bits wide in NFQUEUE but 32 in NFCTH_QUEUE_NUM, and
 * cthelperd only ever registers 16-bit ones.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <netinet/in.h>

#include "record.h"

#define RECORD_MAGIC "cthelperd-registered 1\n"

static bool record_name_ok(const char *name);
static uint64_t record_hash(const char *s);
static const char *record_fam(int f);
static const char *record_pr(int p);
static int record_line_parse(char *line, struct record *r);
static int record_write_all(int fd, const char *buf, size_t len);

int record_add(struct record *r, const char *name, int family, int proto,
	       uint16_t queue)
{
	struct record_entry *e;
	int at;

	if (!record_name_ok(name) || (family != AF_INET && family != AF_INET6) ||
	    (proto != IPPROTO_TCP && proto != IPPROTO_UDP))
		return -EINVAL;
	at = record_find(r, name, family, proto);
	if (at >= 0) {
		r->e[at].queue = queue;
		return 0;
	}
	if (r->n >= RECORD_MAX)
		return -ENOSPC;
	e = &r->e[r->n++];
	snprintf(e->name, sizeof(e->name), "%s", name);
	e->family = family;
	e->proto = proto;
	e->queue = queue;
	return 0;
}

int record_find(const struct record *r, const char *name, int family, int proto)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->e[i].family == family && r->e[i].proto == proto &&
		    strcmp(r->e[i].name, name) == 0)
			return (int)i;
	return -1;
}

int record_merge(struct record *dst, const struct record *src)
{
	for (size_t i = 0; i < src->n; i++) {
		const struct record_entry *e = &src->e[i];
		int rc = record_add(dst, e->name, e->family, e->proto, e->queue);

		if (rc)
			return rc;
	}
	return 0;
}

/* The file is named after the configuration's absolute path (what a
 * --release with the same -c finds again, edited or not) and, for the
 * operator, its base name with anything odd replaced. */
int record_path(char *buf, size_t len, const char *dir, const char *conf)
{
	char abs[PATH_MAX], base[48];
	const char *b, *key = realpath(conf, abs) ? abs : conf;
	size_t n = 0;
	int w;

	if (!dir || dir[0] != '/' || !conf || !conf[0])
		return -EINVAL;
	b = strrchr(key, '/');
	b = b ? b + 1 : key;
	for (; b[n] && n < sizeof(base) - 1; n++) {
		char c = b[n];

		base[n] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '.' || c == '-' ? c : '_';
	}
	base[n] = '\0';
	w = snprintf(buf, len, "%s/" RECORD_SUBDIR "/%s.%016llx", dir, base,
		     (unsigned long long)record_hash(key));
	return w < 0 || (size_t)w >= len ? -ENAMETOOLONG : 0;
}

int record_dir_make(const char *dir, long gid)
{
	char sub[PATH_MAX];
	struct stat st;
	int w = snprintf(sub, sizeof(sub), "%s/" RECORD_SUBDIR, dir);

	if (w < 0 || (size_t)w >= sizeof(sub))
		return -ENAMETOOLONG;
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return -errno;
	if (mkdir(sub, 0700) < 0 && errno != EEXIST)
		return -errno;
	if (lstat(sub, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	if (gid < 0)
		return 0;
	/* A daemon that drops to `user` replaces its record on reload, so
	 * that user's group may write here; but the directory stays root's:
	 * root under the shipped unit has no CAP_DAC_OVERRIDE, and its
	 * start and its --release must still write and remove records in
	 * a directory an older version gave to the user.  chmod, since the
	 * unit's UMask=0077 took the group's bits from mkdir's mode. */
	if (chown(sub, geteuid(), (gid_t)gid) < 0 || chmod(sub, 0770) < 0)
		return -errno;
	return 0;
}

int record_format(const struct record *r, char *buf, size_t len)
{
	size_t off = 0;
	int w = snprintf(buf, len, "%s", RECORD_MAGIC);

	if (w < 0 || (size_t)w >= len)
		return -ENOSPC;
	off = (size_t)w;
	for (size_t i = 0; i < r->n; i++) {
		const struct record_entry *e = &r->e[i];

		w = snprintf(buf + off, len - off, "%s %s %s %u\n", e->name,
			     record_fam(e->family), record_pr(e->proto), e->queue);
		if (w < 0 || (size_t)w >= len - off)
			return -ENOSPC;
		off += (size_t)w;
	}
	return (int)off;
}

int record_parse(const char *buf, size_t len, struct record *r)
{
	size_t magic = sizeof(RECORD_MAGIC) - 1, off;
	char line[128];

	r->n = 0;
	if (len < magic || memcmp(buf, RECORD_MAGIC, magic) != 0)
		return -EINVAL;
	for (off = magic; off < len;) {
		const char *nl = memchr(buf + off, '\n', len - off);
		size_t n;

		/* every line ends: a torn write is not a record */
		if (!nl)
			goto bad;
		n = (size_t)(nl - (buf + off));
		if (n == 0 || n >= sizeof(line) || memchr(buf + off, '\0', n))
			goto bad;
		memcpy(line, buf + off, n);
		line[n] = '\0';
		if (record_line_parse(line, r) < 0)
			goto bad;
		off += n + 1;
	}
	return 0;
bad:
	r->n = 0;
	return -EINVAL;
}

int record_write(const char *path, const struct record *r)
{
	char tmp[PATH_MAX], *buf = malloc(RECORD_MAX_BYTES);
	int len, fd = -1, rc, w;

	if (!buf)
		return -ENOMEM;
	w = snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if (w < 0 || (size_t)w >= sizeof(tmp)) {
		rc = -ENAMETOOLONG;
		goto out;
	}
	if ((len = record_format(r, buf, RECORD_MAX_BYTES)) < 0) {
		rc = len;
		goto out;
	}
	/* a leftover tmp of a crash mid-write is ours to replace */
	if (unlink(tmp) < 0 && errno != ENOENT) {
		rc = -errno;
		goto out;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0) {
		rc = -errno;
		goto out;
	}
	/* readable by root without CAP_DAC_OVERRIDE (--release under the
	 * unit) when `user` wrote it; fchmod as the umask may be 0077.  It
	 * names helpers and queues only, nothing secret. */
	rc = fchmod(fd, 0644) < 0 ? -errno : 0;
	if (!rc)
		rc = record_write_all(fd, buf, (size_t)len);
	/* rename(2) replaces atomically; the fsync first makes sure the new
	 * name never points at a file whose data did not reach the disk
	 * (/run is tmpfs by default, but runtime_dir need not be) */
	if (!rc && fsync(fd) < 0)
		rc = -errno;
	if (close(fd) < 0 && !rc)
		rc = -errno;
	if (!rc && rename(tmp, path) < 0)
		rc = -errno;
	if (rc)
		unlink(tmp);
out:
	free(buf);
	return rc;
}

int record_read(const char *path, struct record *r)
{
	char *buf;
	struct stat st;
	size_t len = 0;
	int fd, rc;

	r->n = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		rc = -errno;
		close(fd);
		return rc;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	if (st.st_size > (off_t)RECORD_MAX_BYTES) {
		close(fd);
		return -EFBIG;
	}
	buf = malloc(RECORD_MAX_BYTES + 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	/* the size can change under us: read at most one byte more than
	 * the limit, and refuse what did not fit */
	for (;;) {
		ssize_t n = read(fd, buf + len, RECORD_MAX_BYTES + 1 - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = -errno;
			goto out;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > RECORD_MAX_BYTES) {
			rc = -EFBIG;
			goto out;
		}
	}
	rc = record_parse(buf, len, r);
out:
	free(buf);
	close(fd);
	return rc;
}

int record_remove(const char *path)
{
	return unlink(path) == 0 || errno == ENOENT ? 0 : -errno;
}

/* Names are written between blanks: keep them to what a helper name
 * sensibly is (the config's [helper NAME] rules are stricter). */
static bool record_name_ok(const char *name)
{
	size_t n = strnlen(name, CTH_NAME_LEN);

	if (n == 0 || n >= CTH_NAME_LEN)
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)name[i];

		if (c <= ' ' || c >= 0x7f || c == '/')
			return false;
	}
	return true;
}

/* FNV-1a: only to tell two configuration paths apart in a file name. */
static uint64_t record_hash(const char *s)
{
	uint64_t h = 14695981039346656037ull;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ull;
	}
	return h;
}

static const char *record_fam(int f) { return f == AF_INET6 ? "ipv6" : "ipv4"; }
static const char *record_pr(int p) { return p == IPPROTO_UDP ? "udp" : "tcp"; }

/* One "NAME FAMILY PROTO QUEUE" line (without its newline, NUL-ended). */
static int record_line_parse(char *line, struct record *r)
{
	char *save = NULL, *name, *fam, *pr, *q, *end;
	int family, proto;
	unsigned long queue;

	name = strtok_r(line, " ", &save);
	fam = strtok_r(NULL, " ", &save);
	pr = strtok_r(NULL, " ", &save);
	q = strtok_r(NULL, " ", &save);
	if (!name || !fam || !pr || !q || strtok_r(NULL, " ", &save))
		return -EINVAL;
	if (strlen(name) >= CTH_NAME_LEN)
		return -EINVAL;
	if (strcmp(fam, "ipv4") == 0)
		family = AF_INET;
	else if (strcmp(fam, "ipv6") == 0)
		family = AF_INET6;
	else
		return -EINVAL;
	if (strcmp(pr, "tcp") == 0)
		proto = IPPROTO_TCP;
	else if (strcmp(pr, "udp") == 0)
		proto = IPPROTO_UDP;
	else
		return -EINVAL;
	if (q[0] < '0' || q[0] > '9')
		return -EINVAL;
	errno = 0;
	queue = strtoul(q, &end, 10);
	if (errno || *end || queue > UINT16_MAX)
		return -EINVAL;
	return record_add(r, name, family, proto, (uint16_t)queue) == 0 ? 0 : -EINVAL;
}

static int record_write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t w = write(fd, buf, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		buf += w;
		len -= (size_t)w;
	}
	return 0;
}
