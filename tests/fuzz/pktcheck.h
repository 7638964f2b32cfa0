/* SPDX-License-Identifier: MIT */
/*
 * The tests' packets: built for the host (pc_build) and, when the host
 * hands one back to the kernel, checked independently: lengths and
 * RFC 1071 checksums computed here from the bytes, not with the daemon's
 * (or libnetfilter_queue's) code.  Shared by the unit tests and the fuzz
 * targets.
 */
#ifndef CTH_TEST_PKTCHECK_H
#define CTH_TEST_PKTCHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cthelperd/plugin.h>

/* Largest packet a verdict carries (NFQA_PAYLOAD, 16-bit attribute length
 * with a 4-byte header).  Written out here, not taken from the daemon. */
#define PC_OUT_MAX 65531u

/* Ones' complement sum of big-endian 16-bit words; an odd last byte is
 * padded with a zero byte.  n must be even except for the last call. */
static inline uint32_t pc_sum(uint32_t s, const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		s += (uint32_t)p[i] << 8 | p[i + 1];
	if (n & 1)
		s += (uint32_t)p[n - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return s;
}

static inline unsigned int pc_get16(const uint8_t *p)
{
	return (unsigned int)p[0] << 8 | p[1];
}

/* Sum of the pseudo-header and the transport segment [l4, len). */
static inline uint32_t pc_l4_sum(const uint8_t *pkt, size_t len, size_t l4,
				 uint8_t proto)
{
	bool v6 = (pkt[0] >> 4) == 6;
	uint32_t s = 0;
	size_t seglen = len - l4;

	if (v6)
		s = pc_sum(s, pkt + 8, 32);
	else
		s = pc_sum(s, pkt + 12, 8);
	s += proto;
	s += (uint32_t)(seglen >> 16) + (uint32_t)(seglen & 0xffff);
	return pc_sum(s, pkt + l4, seglen);
}

/* The checksum value to write for a segment whose checksum field (at
 * l4 + 16 for TCP, l4 + 6 for UDP) is currently zero. */
static inline uint16_t pc_l4_csum(const uint8_t *pkt, size_t len, size_t l4,
				  uint8_t proto)
{
	uint16_t c = (uint16_t)~pc_l4_sum(pkt, len, l4, proto);

	return proto == 17 && c == 0 ? 0xffff : c;
}

/*
 * Is this a packet the kernel accepts as it stands: at most PC_OUT_MAX
 * bytes, IP length field equal to the buffer length, valid IPv4 header
 * checksum, UDP length and a non-zero valid UDP checksum, valid TCP
 * checksum?  l4 is the transport offset, proto 6 or 17.  On failure,
 * writes why and returns false.
 */
static inline bool pc_packet_ok(const uint8_t *pkt, size_t len, size_t l4,
				uint8_t proto, char *why, size_t whylen)
{
	bool v6;

	if (len > PC_OUT_MAX || len < 20) {
		snprintf(why, whylen, "length %zu", len);
		return false;
	}
	v6 = (pkt[0] >> 4) == 6;
	if (v6 && (len < 40 || pc_get16(pkt + 4) + 40u != len)) {
		snprintf(why, whylen, "IPv6 payload length %u + 40 != %zu",
			 len < 40 ? 0 : pc_get16(pkt + 4), len);
		return false;
	}
	if (!v6 && pc_get16(pkt + 2) != len) {
		snprintf(why, whylen, "IPv4 total length %u != %zu",
			 pc_get16(pkt + 2), len);
		return false;
	}
	if (!v6 && pc_sum(0, pkt, (size_t)(pkt[0] & 15) * 4) != 0xffff) {
		snprintf(why, whylen, "IPv4 header checksum");
		return false;
	}
	if (l4 + (proto == 6 ? 20u : 8u) > len) {
		snprintf(why, whylen, "transport header past the end");
		return false;
	}
	if (proto == 17 && pc_get16(pkt + l4 + 4) != len - l4) {
		snprintf(why, whylen, "UDP length %u != %zu",
			 pc_get16(pkt + l4 + 4), len - l4);
		return false;
	}
	if (proto == 17 && pc_get16(pkt + l4 + 6) == 0) {
		snprintf(why, whylen, "UDP checksum 0");
		return false;
	}
	if (pc_l4_sum(pkt, len, l4, proto) != 0xffff) {
		snprintf(why, whylen, "%s checksum 0x%04x does not verify",
			 proto == 6 ? "TCP" : "UDP",
			 pc_get16(pkt + l4 + (proto == 6 ? 16 : 6)));
		return false;
	}
	return true;
}

/* ---------------------------------------------------------------- building */

static inline void pc_put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/*
 * The IPv4/IPv6 packet of tuple t (family, proto) carrying n payload bytes
 * at its end, in a heap block of exactly its size (AddressSanitizer sees
 * a read past the payload); TCP with seq and flags.  Checksums are left 0:
 * the host computes those it sends.  NULL when the payload does not fit
 * one packet (or no memory).
 */
static inline uint8_t *pc_build(int family, uint8_t proto, const struct cth_tuple *t,
				uint32_t seq, uint8_t tcp_flags, const void *payload,
				size_t n, size_t *lenp)
{
	int v6 = family == AF_INET6, tcp = proto == IPPROTO_TCP;
	size_t l3 = v6 ? 40 : 20, l4 = tcp ? 20 : 8, len = l3 + l4 + n;
	uint8_t *p, *h;

	if (l4 + n > 65535 - (v6 ? 0 : l3))
		return NULL;
	p = calloc(1, len);
	if (!p)
		return NULL;
	if (v6) {
		p[0] = 0x60;
		pc_put16(p + 4, (uint32_t)(l4 + n));
		p[6] = proto;
		p[7] = 64;
		memcpy(p + 8, t->src.raw, 16);
		memcpy(p + 24, t->dst.raw, 16);
	} else {
		p[0] = 0x45;
		pc_put16(p + 2, (uint32_t)len);
		p[8] = 64;
		p[9] = proto;
		memcpy(p + 12, t->src.raw, 4);
		memcpy(p + 16, t->dst.raw, 4);
	}
	h = p + l3;
	pc_put16(h, t->sport);
	pc_put16(h + 2, t->dport);
	if (tcp) {
		pc_put16(h + 4, seq >> 16);
		pc_put16(h + 6, seq & 0xffff);
		h[12] = 5 << 4;
		h[13] = tcp_flags;
		pc_put16(h + 14, 0xffff);
	} else {
		pc_put16(h + 4, (uint32_t)(l4 + n));
	}
	if (n)
		memcpy(h + l4, payload, n);
	*lenp = len;
	return p;
}

#endif
