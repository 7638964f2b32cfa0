/* SPDX-License-Identifier: MIT */
/*
 * The libFuzzer driver of <cthelperd/plugtest.h>: one input is a
 * connection and its packets (the layout is in plugtest.h, at
 * cth_plugtest_fuzz()), run through the test object; a plugin bug the
 * host or the packet checks see aborts, for libFuzzer to keep the input.
 * The addresses are the tests' usual ones (client 10.0.1.2 / fd00:1::2,
 * server 10.0.2.2 / fd00:2::2), the server's port the plugin's first
 * declared rule port, the NAT addresses documentation ones.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cthelperd/plugtest.h>

#define FZ_V6 0x01u
#define FZ_TCP 0x02u
#define FZ_SNAT 0x04u
#define FZ_DNAT 0x08u
#define FZ_EXPECTED 0x10u
#define FZ_KERNEL_SHIFT 5
#define FZ_PLAIN 0x80u
#define FZ_REPLY 0x80u
/* when the plugin declares no rule port */
#define FZ_PORT_DEFAULT 1024u

static void plugtest_fuzz_conn(struct cth_plugtest *t, uint8_t flags);
static void plugtest_fuzz_one(struct cth_plugtest *t, enum cth_dir dir, const uint8_t *p,
			      size_t n);
static unsigned int plugtest_fuzz_port(const struct cth_plugin_desc *d);

void cth_plugtest_fuzz(struct cth_plugtest *t, const uint8_t *data, size_t size)
{
	size_t off = 1, n;
	uint8_t h;

	if (!size)
		return;
	plugtest_fuzz_conn(t, data[0]);
	if (data[0] & FZ_PLAIN) {
		plugtest_fuzz_one(t, CTH_DIR_ORIGINAL, data + 1, size - 1);
		return;
	}
	while (off < size) {
		h = data[off++];
		n = (size_t)(h & 0x7fu) << 8;
		if (off < size)
			n |= data[off++];
		if (n > size - off)
			n = size - off;
		plugtest_fuzz_one(t, h & FZ_REPLY ? CTH_DIR_REPLY : CTH_DIR_ORIGINAL, data + off, n);
		off += n;
	}
}

/* The input's connection and the kernel's answers (byte 0). */
static void plugtest_fuzz_conn(struct cth_plugtest *t, uint8_t flags)
{
	static const int kernel[4][2] = { { 0, 0 }, { -EBUSY, 1 }, { -EBUSY, 0 }, { -ENOMEM, 0 } };
	const struct cth_plugin_desc *d = cth_plugtest_desc(t);
	const int *k = kernel[(flags >> FZ_KERNEL_SHIFT) & 3u];
	bool v6, tcp;
	char desc[256];
	int n;

	if (flags & FZ_PLAIN)
		flags = 0;
	v6 = d->families & CTH_FAMILY_IPV6 &&
	     (flags & FZ_V6 || !(d->families & CTH_FAMILY_IPV4));
	tcp = d->protocols & CTH_PROTO_TCP &&
	      (flags & FZ_TCP || !(d->protocols & CTH_PROTO_UDP));
	n = snprintf(desc, sizeof(desc), "%s %s:40000 > %s:%u", tcp ? "tcp" : "udp",
		     v6 ? "[fd00:1::2]" : "10.0.1.2", v6 ? "[fd00:2::2]" : "10.0.2.2",
		     plugtest_fuzz_port(d));
	if (flags & FZ_SNAT)
		n += snprintf(desc + n, sizeof(desc) - (size_t)n, " snat %s:40001",
			      v6 ? "[2001:db8::1]" : "192.0.2.1");
	if (flags & FZ_DNAT)
		n += snprintf(desc + n, sizeof(desc) - (size_t)n, " dnat %s:%u",
			      v6 ? "[2001:db8::2]" : "198.51.100.2", plugtest_fuzz_port(d));
	if (flags & FZ_EXPECTED)
		snprintf(desc + n, sizeof(desc) - (size_t)n, " expected");
	if (cth_plugtest_conn(t, desc) < 0) {
		fprintf(stderr, "cth_plugtest_fuzz: %s\n", cth_plugtest_error(t));
		abort();
	}
	cth_plugtest_kernel(t, k[0], (unsigned int)k[1], k[0] ? -EIO : 0);
}

static void plugtest_fuzz_one(struct cth_plugtest *t, enum cth_dir dir, const uint8_t *p,
			      size_t n)
{
	const struct cth_plugtest_result *r;
	uint8_t *copy;

	/* the host calls a plugin only for a payload */
	if (!n)
		return;
	/* exactly n bytes on the heap: a read past them is AddressSanitizer's */
	copy = malloc(n);
	if (!copy)
		abort();
	memcpy(copy, p, n);
	if (cth_plugtest_packet(t, dir, copy, n) >= 0) {
		r = cth_plugtest_result(t);
		if (r->n_bug) {
			fprintf(stderr, "invariant violated: plugin %s: %s\n",
				cth_plugtest_desc(t)->name, r->bug);
			abort();
		}
	}
	free(copy);
}

/* The server's port: the first default port of the key the plugin's
 * rules use (CTH_KEY_RULE_PORTS). */
static unsigned int plugtest_fuzz_port(const struct cth_plugin_desc *d)
{
	if (d->abi_version < 3 || d->size < sizeof(*d) || !d->keys)
		return FZ_PORT_DEFAULT;
	for (unsigned int i = 0; i < d->n_keys; i++) {
		const struct cth_key *k = &d->keys[i];
		unsigned long p;

		if (k->type == CTH_KEY_PORTS && (k->flags & CTH_KEY_RULE_PORTS) && k->def) {
			p = strtoul(k->def, NULL, 10);
			if (p >= 1 && p <= 65535)
				return (unsigned int)p;
		}
	}
	return FZ_PORT_DEFAULT;
}
