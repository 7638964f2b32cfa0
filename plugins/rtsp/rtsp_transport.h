/* SPDX-License-Identifier: MIT */
/*
 * The Transport header: a comma-separated list of transport specs, each
 * a transport id (RTP/AVP[/UDP|/TCP], ...) and ';'-separated parameters,
 * in the syntax of RTSP/1.0 (RFC 2326 sec. 12.39: client_port,
 * server_port, destination, source) and of RTSP/2.0 (RFC 7826 sec. 18.54:
 * dest_addr, src_addr, RTCP-mux).  Pure functions over a byte buffer, for
 * the plugin, its unit tests and fuzzing; offsets are in that buffer.
 */
#ifndef CTH_RTSP_TRANSPORT_H
#define CTH_RTSP_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cthelperd/plugin.h>

#include "rtsp_parse.h"

/* Most transport specs of one message used. */
#define RTSP_SPECS_MAX 4u

/* The lower transport of a spec. */
enum rtsp_lower {
	RTSP_LOWER_OTHER = 0,   /* not RTP: ignored */
	RTSP_LOWER_UDP,         /* RTP over UDP: ports to expect */
	RTSP_LOWER_TCP,         /* interleaved on the RTSP connection */
};

/* A port as written: text.len 0 when implied (RTCP = RTP + 1). */
struct rtsp_port {
	uint16_t val;
	struct rtsp_span text;
};

/* client_port=a[-b] / server_port=, or the ports of dest_addr / src_addr. */
struct rtsp_ports {
	unsigned int n;         /* 0: none; 1: RTP only; 2: RTP and RTCP */
	struct rtsp_port port[2];
};

/* destination= / source=, or the host of dest_addr / src_addr. */
struct rtsp_host {
	bool set;
	union cth_addr addr;
	unsigned int n;         /* places it is written (dest_addr: one per address) */
	struct rtsp_span text[2]; /* without brackets or quotes */
};

struct rtsp_spec {
	enum rtsp_lower lower;
	bool multicast;
	bool rtcp_mux;
	bool bad;               /* bad ports or address: nothing from this spec */
	struct rtsp_ports client;   /* client_port, dest_addr */
	struct rtsp_ports server;   /* server_port, src_addr */
	struct rtsp_host dest;      /* destination, dest_addr */
	struct rtsp_host src;       /* source, src_addr */
};

/*
 * Parse buf[off, off + len), one Transport header's value, into at most
 * max specs (addresses of family: AF_INET or AF_INET6).  Returns how many
 * were filled.
 */
unsigned int rtsp_transport_parse(const uint8_t *buf, size_t off, size_t len, int family,
				  struct rtsp_spec *specs, unsigned int max);

/*
 * The RTP and RTCP ports of p: a-b gives a and b; a alone gives a and
 * a + 1 (RFC 3550 sec. 11), or a for both with RTCP-mux.  False when p
 * holds no port.
 */
bool rtsp_ports_pair(const struct rtsp_ports *p, bool rtcp_mux, uint16_t *rtp, uint16_t *rtcp);

#endif /* CTH_RTSP_TRANSPORT_H */
