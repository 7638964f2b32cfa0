/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: a whole capture through the replay's engine
 * (replay/engine.c: emulated conntrack, expectations, NAT and sequence
 * adjustment around the daemon's own host code) with one real plugin
 * linked in as cth_plugin.  Built once per plugin (tests/fuzz/fuzz.mk):
 * fuzz_replay_ftp, _sip, _tns, _rpc, _tftp, _rtsp, _toydata.
 *
 * Input: a pcap (or pcapng) file, read by libpcap from memory.  The pcap
 * header's thiszone and sigfigs fields (bytes 8..15, which libpcap
 * ignores) are the run's knobs; a pcapng input or one shorter than a
 * header runs with all knobs 0:
 *
 *   byte 8   bit 0  SNAT of the helped connections (FZR_SNAT4/6)
 *            bit 1  DNAT of the helped connections (FZR_DNAT4/6)
 *            bit 2  the SNAT with a port (FZR_SNAT_PORT), else the port kept
 *            bit 3  the DNAT with a port (FZR_DNAT_PORT), else the port kept
 *            bit 4  the helper on the plugin's usual port (FZR_PORT), else
 *                   on the first flow's destination port
 *            bits 5-6  protocol: 1 TCP, 2 UDP, else the plugin's
 *            bit 7  the plugin's debug log lines into the report too
 *   byte 9   bit i  the i-th of FZR_OPTS set ("key=value": the plugin's keys
 *                   away from their defaults)
 *
 * The NAT addresses are of the first IP frame's family.  So the replay
 * cases' captures (the .pcap files in tests/replay/cases/PLUGIN/, zeros
 * there) are seeds as they are: the fuzzer finds the knobs by itself.
 *
 * Checked for every packet the engine passes on changed (rewritten by
 * the plugin or moved by the sequence adjustment; an unchanged one comes
 * with l3 NULL): at most 65531 bytes, IP length field equal to its
 * length, valid checksums (pktcheck.h, independent of the daemon's), the
 * headers otherwise as captured but for TCP's sequence and
 * acknowledgement numbers.  Of a packet captured in part (snap length,
 * or an IP length field beyond the bytes captured) only the sequence
 * and acknowledgement numbers and the TCP checksum may change.
 * A violation prints "invariant violated: ..." and aborts.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <sys/socket.h>

#include "fuzz_hostpath.h"
#include "replay.h"

#ifndef FZR_PORT
#error "FZR_PORT: the plugin's usual port (tests/fuzz/fuzz.mk)"
#endif
/* "key=value" settings the knob byte 9 switches on, in order */
#ifndef FZR_OPTS
#define FZR_OPTS NULL
#endif

#define FZR_SNAT4 "198.51.100.7"
#define FZR_DNAT4 "203.0.113.9"
#define FZR_SNAT6 "2001:db8:5::7"
#define FZR_DNAT6 "2001:db8:d::9"
#define FZR_SNAT_PORT 40001u
#define FZR_DNAT_PORT 24000u

#define FZR_PCAP_HDR 24u

static const char *const fzr_opts[] = { FZR_OPTS };
static const struct plugin fzr_pl = { .desc = &cth_plugin };
static unsigned long fzr_changed;

/* Bytes 8 and 9 of a pcap header (either byte order, micro- or
 * nanoseconds), else 0. */
static void fzr_knobs(const uint8_t *data, size_t size, uint8_t k[2])
{
	static const uint8_t magic[4][4] = {
		{ 0xa1, 0xb2, 0xc3, 0xd4 }, { 0xd4, 0xc3, 0xb2, 0xa1 },
		{ 0xa1, 0xb2, 0x3c, 0x4d }, { 0x4d, 0x3c, 0xb2, 0xa1 },
	};

	k[0] = k[1] = 0;
	if (size < FZR_PCAP_HDR)
		return;
	for (size_t i = 0; i < 4; i++) {
		if (memcmp(data, magic[i], 4) == 0) {
			k[0] = data[8];
			k[1] = data[9];
			return;
		}
	}
}

/* The plugin's instance (fuzz_hostpath.h: its declared defaults), then
 * the knobs' keys as the daemon sets them. */
static int fzr_instance(struct instance *in, uint8_t opts)
{
	void *config = calloc(1, cth_plugin.config_size ? cth_plugin.config_size : 1);

	if (!config)
		return -1;
	fz_instance_init(in, &fzr_pl, config);
	for (size_t i = 0; i < sizeof(fzr_opts) / sizeof(fzr_opts[0]) && i < 8; i++)
		if (fzr_opts[i] && (opts & (1u << i)))
			fz_configure(&cth_plugin, config, fzr_opts[i]);
	return 0;
}

static void fzr_nat(struct rp_nat *n, int family, const char *v4, const char *v6,
		    uint16_t port)
{
	memset(n, 0, sizeof(*n));
	n->family = family;
	if (inet_pton(family, family == AF_INET6 ? v6 : v4, n->addr.raw) != 1)
		abort();
	n->port = port;
}

/* May header byte i of a TCP/UDP packet differ from the captured one:
 * lengths, checksums, and TCP's sequence and acknowledgement numbers. */
static bool fzr_may_change(const struct cth_packet *p, size_t i)
{
	size_t l4 = p->l4_offset;

	return fz_field_may_change(p, i) ||
	       (fz_view_proto(p) == IPPROTO_TCP && i >= l4 + 4 && i < l4 + 12);
}

/* Do we hold all of the captured packet o (its IP length field within
 * what the view holds, not cut by the snap length)? */
static bool fzr_whole(const struct rp_frame *f, const struct cth_packet *o)
{
	const uint8_t *d = o->data;

	if (f->caplen < f->wirelen)
		return false;
	if ((d[0] >> 4) == 4)
		return pc_get16(d + 2) <= o->len;
	return pc_get16(d + 4) && 40u + pc_get16(d + 4) <= o->len;
}

/* The engine's emit: every packet passed on changed is checked. */
static void fzr_emit(void *arg, const struct rp_frame *f, const uint8_t *l3, size_t len)
{
	/* the header structs want the alignment the kernel's buffers have */
	static uint8_t orig[RP_FRAME_MAX] __attribute__((aligned(8)));
	struct cth_packet o;
	char why[160];
	uint8_t proto;

	(void)arg;
	if (!l3)
		return;
	fzr_changed++;
	FZ_ASSERT(f->family, "frame %lu: not IP, passed on changed", f->no);
	memcpy(orig, f->data + f->l3, f->caplen - f->l3);
	FZ_ASSERT(pkt_view_parse(&o, orig, f->caplen - f->l3, f->family) == 0,
		  "frame %lu: not TCP/UDP, passed on changed", f->no);
	proto = fz_view_proto(&o);
	FZ_ASSERT(len >= o.payload_offset, "frame %lu: %zu bytes, shorter than its headers",
		  f->no, len);
	for (size_t i = 0; i < o.payload_offset; i++)
		FZ_ASSERT(l3[i] == o.data[i] || fzr_may_change(&o, i),
			  "frame %lu: header byte %zu changed 0x%02x -> 0x%02x", f->no, i,
			  o.data[i], l3[i]);
	if (fzr_whole(f, &o)) {
		FZ_ASSERT(pc_packet_ok(l3, len, o.l4_offset, proto, why, sizeof(why)),
			  "frame %lu: %s", f->no, why);
		return;
	}
	/* part of a packet: only its sequence numbers may move (with the
	 * checksum), its lengths and payload are as captured */
	FZ_ASSERT(proto == IPPROTO_TCP && len == o.len &&
		  memcmp(l3 + o.payload_offset, o.payload, o.payload_len) == 0,
		  "frame %lu: %zu of %zu bytes held (IP length field %u), passed on "
		  "rewritten as %zu bytes", f->no, o.len, f->wirelen - f->l3,
		  pc_get16(o.data + ((o.data[0] >> 4) == 4 ? 2 : 4)), len);
	for (size_t i = 0; i < o.payload_offset; i++)
		FZ_ASSERT(l3[i] == o.data[i] || (i >= o.l4_offset + 4 && i < o.l4_offset + 12) ||
			  i == o.l4_offset + 16 || i == o.l4_offset + 17,
			  "frame %lu: part of a packet, header byte %zu changed", f->no, i);
}

/* FUZZ_VERBOSE: the knobs and the engine's summary line. */
static void fzr_say(struct rp_engine *e, const uint8_t k[2])
{
	const char *last;

	fflush(e->rep.mem);
	last = e->rep.buf ? strstr(e->rep.buf, "# frames ") : NULL;
	fprintf(stderr, "fuzz_replay_%s: knobs %02x %02x, changed %lu: %.*s\n",
		cth_plugin.name, k[0], k[1], fzr_changed,
		last ? (int)strcspn(last + 2, "\n") : 4, last ? last + 2 : "none");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint16_t usual[] = { FZR_PORT };
	static struct rp_engine e;
	struct rp_capture *cap = NULL;
	struct instance inst;
	struct rp_frame f;
	bool nat_set = false;
	char err[256];
	uint8_t k[2];
	FILE *fp;

	if (!size)
		return 0;
	fzr_knobs(data, size, k);
	if (fzr_instance(&inst, k[1]) < 0)
		return 0;
	/* libpcap reads through the stream: no copy of the input needed */
	fp = fmemopen((void *)(uintptr_t)data, size, "r");
	if (!fp || rp_capture_open_fp(fp, "input", &cap, err, sizeof(err)) < 0) {
		free(inst.config);
		return 0;
	}
	memset(&e, 0, offsetof(struct rp_engine, buf));
	if (rp_report_open(&e.rep, NULL) < 0)
		abort();
	rp_engine_init(&e, &inst);
	e.rep.debug = k[0] & 0x80;
	e.proto = (k[0] >> 5 & 3) == 1 ? IPPROTO_TCP : (k[0] >> 5 & 3) == 2 ? IPPROTO_UDP : 0;
	if (k[0] & 0x10) {
		e.n_ports = sizeof(usual) / sizeof(usual[0]);
		memcpy(e.ports, usual, sizeof(usual));
	}
	e.emit = fzr_emit;
	fzr_changed = 0;
	while (rp_capture_next(cap, &f) > 0) {
		if (!nat_set && f.family) {
			nat_set = true;
			if (k[0] & 1)
				fzr_nat(&e.ct.snat, f.family, FZR_SNAT4, FZR_SNAT6,
					k[0] & 4 ? FZR_SNAT_PORT : 0);
			if (k[0] & 2)
				fzr_nat(&e.ct.dnat, f.family, FZR_DNAT4, FZR_DNAT6,
					k[0] & 8 ? FZR_DNAT_PORT : 0);
		}
		rp_engine_frame(&e, &f);
	}
	rp_engine_summary(&e);
	if (fz_verbose)
		fzr_say(&e, k);
	rp_capture_close(cap);
	rp_report_close(&e.rep);
	rp_engine_free(&e);
	free(inst.config);
	return 0;
}
