/* SPDX-License-Identifier: MIT */
/*
 * SDP (RFC 4566) as far as a firewall needs it: the session's o= and c=
 * addresses and, for up to three audio/video/image m= lines with a port,
 * the port and the media-level c= that overrides the session's.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "sip_parse.h"

static const struct {
	const char *name;
	enum sip_media_type type;
} sip_media_names[] = {
	{ "audio", SIP_MEDIA_AUDIO },
	{ "video", SIP_MEDIA_VIDEO },
	{ "image", SIP_MEDIA_IMAGE },
};

/* Next white-space separated word of [*off, end); false when none. */
static bool sdp_word(const uint8_t *buf, size_t *off, size_t end,
		     struct sip_span *w)
{
	size_t i = *off;

	while (i < end && (buf[i] == ' ' || buf[i] == '\t'))
		i++;
	w->off = i;
	while (i < end && buf[i] != ' ' && buf[i] != '\t')
		i++;
	w->len = i - w->off;
	*off = i;
	return w->len != 0;
}

static unsigned char sdp_lower(uint8_t c)
{
	return c >= 'A' && c <= 'Z' ? (unsigned char)(c + 'a' - 'A') : c;
}

/* The word is text (a non-empty literal), ignoring ASCII case. */
static bool sdp_word_is(const uint8_t *buf, const struct sip_span *w,
			const char *text)
{
	size_t n = strlen(text);

	if (n == 0 || w->len != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (sdp_lower(buf[w->off + i]) != sdp_lower((uint8_t)text[i]))
			return false;
	return true;
}

/* "IN IP4 ADDR[/ttl]" (c=) or its tail in o=: the address of family. */
static int sdp_addr(const uint8_t *buf, size_t off, size_t end, int family,
		    struct sip_hostport *hp)
{
	struct sip_span net, type, addr;
	const uint8_t *slash;
	int ret;

	if (!sdp_word(buf, &off, end, &net) || !sdp_word_is(buf, &net, "IN") ||
	    !sdp_word(buf, &off, end, &type) || !sdp_word(buf, &off, end, &addr))
		return -EINVAL;
	if (!sdp_word_is(buf, &type, family == AF_INET ? "IP4" : "IP6"))
		return -ENOENT;
	slash = memchr(buf + addr.off, '/', addr.len);
	if (slash)
		addr.len = (size_t)(slash - (buf + addr.off));
	ret = sip_hostport_parse(buf, addr.off, addr.off + addr.len, family, hp);
	if (ret == 0 && hp->has_port)
		return -EINVAL;
	return ret;
}

/* o=<user> <sess-id> <sess-version> IN IP4 <addr> */
static int sdp_owner(const uint8_t *buf, size_t off, size_t end, int family,
		     struct sip_hostport *hp)
{
	struct sip_span w;

	for (int i = 0; i < 3; i++)
		if (!sdp_word(buf, &off, end, &w))
			return -EINVAL;
	return sdp_addr(buf, off, end, family, hp);
}

static enum sip_media_type sdp_media_type(const uint8_t *buf,
					  const struct sip_span *w)
{
	for (size_t i = 0; i < sizeof(sip_media_names) / sizeof(sip_media_names[0]); i++)
		if (sdp_word_is(buf, w, sip_media_names[i].name))
			return sip_media_names[i].type;
	return SIP_MEDIA_NONE;
}

/* m=<type> <port>[/<count>] <proto> ...; NULL when it gets nothing. */
static struct sip_sdp_media *sdp_media(const uint8_t *buf, size_t off,
				       size_t end, struct sip_sdp *sdp)
{
	struct sip_sdp_media *md;
	struct sip_span type, port;
	enum sip_media_type t;
	uint32_t val;
	size_t used;

	if (!sdp_word(buf, &off, end, &type) || !sdp_word(buf, &off, end, &port))
		goto skip;
	t = sdp_media_type(buf, &type);
	/* A huge number is still a port out of range, not a parse error. */
	if (t == SIP_MEDIA_NONE ||
	    cth_parse_uint(buf + port.off, port.len, UINT32_MAX, &val, &used) < 0 ||
	    (used < port.len && buf[port.off + used] != '/') || val == 0)
		goto skip;
	if (sdp->n_media == SIP_SDP_MEDIA_MAX)
		goto skip;
	md = &sdp->media[sdp->n_media++];
	md->type = t;
	md->port = val;
	md->port_span.off = port.off;
	md->port_span.len = used;
	return md;
skip:
	sdp->n_skipped++;
	return NULL;
}

int sip_sdp_parse(const uint8_t *buf, size_t off, size_t len, int family,
		  struct sip_sdp *sdp)
{
	size_t end = off + len, l = off;
	struct sip_sdp_media *cur = NULL;
	bool in_media = false;

	memset(sdp, 0, sizeof(*sdp));
	if (len < 2 || buf[off] != 'v' || buf[off + 1] != '=')
		return -EINVAL;
	while (l < end) {
		const uint8_t *lf = memchr(buf + l, '\n', end - l);
		size_t nl = lf ? (size_t)(lf - buf) : end, lend = nl;

		if (lend > l && buf[lend - 1] == '\r')
			lend--;
		if (lend - l >= 2 && buf[l + 1] == '=') {
			switch (buf[l]) {
			case 'm':
				in_media = true;
				cur = sdp_media(buf, l + 2, lend, sdp);
				break;
			case 'c':
				if (!in_media && !sdp->has_addr)
					sdp->has_addr = sdp_addr(buf, l + 2, lend, family,
								 &sdp->addr) == 0;
				else if (cur && !cur->has_addr)
					cur->has_addr = sdp_addr(buf, l + 2, lend, family,
								 &cur->addr) == 0;
				break;
			case 'o':
				if (!in_media && !sdp->has_owner)
					sdp->has_owner = sdp_owner(buf, l + 2, lend, family,
								   &sdp->owner) == 0;
				break;
			default:
				break;
			}
		}
		l = nl + 1;
	}
	return 0;
}
