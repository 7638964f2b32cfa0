/* SPDX-License-Identifier: MIT */
/*
 * Captures in and out through libpcap, which reads pcap and pcapng alike
 * (pcap_open_offline).  Only the link layer is ours to skip: Ethernet
 * (with 802.1Q/802.1ad tags), Linux cooked v1 and v2 (tcpdump -i any),
 * raw IP and BSD loopback.  The rest of the frame is left to the packet
 * view of the daemon (pkt_view_parse).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <pcap/pcap.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "replay.h"

struct rp_capture {
	pcap_t *pc;
	pcap_dumper_t *dump;
	int linktype;
	unsigned long no, skipped;
};

/* The few link types a capture of IP traffic comes in. */
#ifndef DLT_LINUX_SLL2
#define DLT_LINUX_SLL2 276
#endif

static int rp_ethertype_family(unsigned int type)
{
	return type == 0x0800 ? AF_INET : type == 0x86dd ? AF_INET6 : 0;
}

static int rp_version_family(const uint8_t *p, size_t n)
{
	if (n < 1)
		return 0;
	return (p[0] >> 4) == 4 ? AF_INET : (p[0] >> 4) == 6 ? AF_INET6 : 0;
}

/* Where the IP header starts and which family, from the link header. */
static void rp_frame_l3(int linktype, struct rp_frame *f)
{
	const uint8_t *p = f->data;
	size_t n = f->caplen, off;
	unsigned int type;

	f->family = 0;
	switch (linktype) {
	case DLT_EN10MB:
		if (n < 14)
			return;
		off = 12;
		type = (unsigned)p[off] << 8 | p[off + 1];
		/* VLAN tags, stacked or not */
		while ((type == 0x8100 || type == 0x88a8) && off + 6 <= n) {
			off += 4;
			type = (unsigned)p[off] << 8 | p[off + 1];
		}
		f->l3 = off + 2;
		f->family = rp_ethertype_family(type);
		break;
	case DLT_LINUX_SLL:
		if (n < 16)
			return;
		f->l3 = 16;
		f->family = rp_ethertype_family((unsigned)p[14] << 8 | p[15]);
		break;
	case DLT_LINUX_SLL2:
		if (n < 20)
			return;
		f->l3 = 20;
		f->family = rp_ethertype_family((unsigned)p[0] << 8 | p[1]);
		break;
	case DLT_RAW:
	case DLT_IPV4:
	case DLT_IPV6:
		f->l3 = 0;
		f->family = rp_version_family(p, n);
		break;
	case DLT_NULL:
	case DLT_LOOP:
		if (n < 4)
			return;
		f->l3 = 4;
		f->family = rp_version_family(p + 4, n - 4);
		break;
	default:
		return;
	}
	if (f->l3 >= n)
		f->family = 0;
}

static bool rp_linktype_known(int lt)
{
	return lt == DLT_EN10MB || lt == DLT_LINUX_SLL || lt == DLT_LINUX_SLL2 ||
	       lt == DLT_RAW || lt == DLT_IPV4 || lt == DLT_IPV6 ||
	       lt == DLT_NULL || lt == DLT_LOOP;
}

/* "FILE: why" from libpcap's why, which names the file itself when the
 * file could not be opened (an errno) but not in a format error. */
static void rp_capture_why(char *err, size_t errlen, const char *file, const char *why)
{
	size_t n = strlen(file);

	if (strncmp(why, file, n) == 0 && strncmp(why + n, ": ", 2) == 0)
		snprintf(err, errlen, "%s", why);
	else
		snprintf(err, errlen, "%s: %s", file, why);
}

/* The capture read by pc (NULL: not opened, perr says why) as *out. */
static int rp_capture_start(pcap_t *pc, const char *perr, const char *name,
			    struct rp_capture **out, char *err, size_t errlen)
{
	struct rp_capture *cap;

	if (!pc) {
		rp_capture_why(err, errlen, name, perr);
		return -EINVAL;
	}
	cap = calloc(1, sizeof(*cap));
	if (!cap) {
		pcap_close(pc);
		return -ENOMEM;
	}
	cap->pc = pc;
	cap->linktype = pcap_datalink(cap->pc);
	if (!rp_linktype_known(cap->linktype)) {
		const char *lt = pcap_datalink_val_to_name(cap->linktype);

		snprintf(err, errlen, "%s: link type %d (%s) not supported: use Ethernet, "
			 "Linux cooked, raw IP or loopback captures", name, cap->linktype,
			 lt ? lt : "unknown");
		pcap_close(cap->pc);
		free(cap);
		return -EINVAL;
	}
	*out = cap;
	return 0;
}

int rp_capture_open(const char *file, struct rp_capture **out, char *err, size_t errlen)
{
	char perr[PCAP_ERRBUF_SIZE] = "";

	return rp_capture_start(pcap_open_offline(file, perr), perr, file, out, err, errlen);
}

int rp_capture_open_fp(FILE *fp, const char *name, struct rp_capture **out, char *err,
		       size_t errlen)
{
	char perr[PCAP_ERRBUF_SIZE] = "";
	pcap_t *pc = pcap_fopen_offline(fp, perr);

	if (!pc)
		fclose(fp);
	return rp_capture_start(pc, perr, name, out, err, errlen);
}

int rp_capture_next(struct rp_capture *cap, struct rp_frame *f)
{
	struct pcap_pkthdr *h;
	const u_char *data;
	int rc;

	for (;;) {
		rc = pcap_next_ex(cap->pc, &h, &data);
		if (rc == PCAP_ERROR_BREAK)
			return 0;
		if (rc != 1)
			return -EIO;
		cap->no++;
		if (h->caplen > RP_FRAME_MAX) {
			cap->skipped++;
			continue;
		}
		memset(f, 0, sizeof(*f));
		f->no = cap->no;
		f->ms = (uint64_t)h->ts.tv_sec * 1000u + (uint64_t)h->ts.tv_usec / 1000u;
		f->sec = (long)h->ts.tv_sec;
		f->usec = (long)h->ts.tv_usec;
		f->data = data;
		f->caplen = h->caplen;
		f->wirelen = h->len;
		rp_frame_l3(cap->linktype, f);
		return 1;
	}
}

int rp_capture_dump_open(struct rp_capture *cap, const char *file, char *err, size_t errlen)
{
	cap->dump = pcap_dump_open(cap->pc, file);
	if (!cap->dump) {
		rp_capture_why(err, errlen, file, pcap_geterr(cap->pc));
		return -EIO;
	}
	return 0;
}

void rp_capture_dump(struct rp_capture *cap, const struct rp_frame *f,
		     const uint8_t *l3, size_t l3len)
{
	static uint8_t buf[RP_FRAME_MAX + 65536];
	struct pcap_pkthdr h = { 0 };

	if (!cap->dump)
		return;
	h.ts.tv_sec = (time_t)f->sec;
	h.ts.tv_usec = (suseconds_t)f->usec;
	if (!f->family || !l3) {
		h.caplen = (bpf_u_int32)f->caplen;
		h.len = (bpf_u_int32)f->wirelen;
		pcap_dump((u_char *)cap->dump, &h, f->data);
		return;
	}
	/* a rewritten packet's length is its new IP length: not a snippet;
	 * a snippet only moved by the sequence adjustment stays one */
	memcpy(buf, f->data, f->l3);
	memcpy(buf + f->l3, l3, l3len);
	h.caplen = h.len = (bpf_u_int32)(f->l3 + l3len);
	if (f->caplen < f->wirelen && h.caplen == f->caplen)
		h.len = (bpf_u_int32)f->wirelen;
	pcap_dump((u_char *)cap->dump, &h, buf);
}

unsigned long rp_capture_skipped(const struct rp_capture *cap)
{
	return cap->skipped;
}

void rp_capture_close(struct rp_capture *cap)
{
	if (!cap)
		return;
	if (cap->dump)
		pcap_dump_close(cap->dump);
	pcap_close(cap->pc);
	free(cap);
}
