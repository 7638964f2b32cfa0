/* SPDX-License-Identifier: MIT */
/*
 * Framing of an RTSP byte stream (RFC 2326 sec. 4, RFC 7826 sec. 8):
 * request and status lines, headers up to the empty line, a body of
 * Content-Length bytes, and the interleaved binary frames ('$', channel,
 * 16-bit length, data) that share the connection.  Pure functions over a
 * byte buffer (no host calls), for the plugin, its unit tests and fuzzing.
 * Offsets are in the buffer given; nothing reads past its length.
 */
#ifndef CTH_RTSP_PARSE_H
#define CTH_RTSP_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A range of the buffer. */
struct rtsp_span {
	size_t off;
	size_t len;
};

enum rtsp_kind {
	RTSP_KIND_REQUEST,      /* METHOD SP URI SP RTSP/x.y */
	RTSP_KIND_STATUS,       /* RTSP/x.y SP NNN SP reason */
	RTSP_KIND_FRAME,        /* '$' channel length data */
};

/* Results of rtsp_msg_parse(). */
enum rtsp_parse {
	RTSP_PARSE_OK = 0,      /* a message whose headers are all there */
	RTSP_PARSE_MORE,        /* the start of one: its headers go on past the buffer */
	RTSP_PARSE_GARBAGE,     /* not a message start: skip the line */
	RTSP_PARSE_OVERSIZED,   /* start line and headers beyond the bound */
};

/* Most bytes a body may announce: more is taken as broken framing. */
#define RTSP_BODY_MAX (1u << 24)

/* One message (or frame) at m->start. */
struct rtsp_msg {
	enum rtsp_kind kind;
	size_t start;
	size_t head_end;        /* past the empty line (a frame: its 4-byte header) */
	uint64_t end;           /* past the body or frame data: may lie beyond the buffer */
	struct rtsp_span method; /* a request's */
	unsigned int version;   /* 10 or 20 */
	unsigned int status;    /* a status line's code */
	bool bad_length;        /* a Content-Length that is no number: taken as 0 */
};

/*
 * Read the message starting at buf[start], at most max bytes of start
 * line and headers.  OK fills m; MORE means keep from start and look
 * again with the next segment; GARBAGE, skip to rtsp_line_next().
 */
enum rtsp_parse rtsp_msg_parse(const uint8_t *buf, size_t len, size_t start, size_t max,
			       struct rtsp_msg *m);
/* Offset just past the line feed that ends the line at off, or len. */
size_t rtsp_line_next(const uint8_t *buf, size_t len, size_t off);
/* Is the request's method this one (case-sensitive, RFC 2326 sec. 6.1)? */
bool rtsp_method_is(const uint8_t *buf, const struct rtsp_msg *m, const char *method);
/*
 * The next header called name (ASCII case ignored) of message m, from
 * *pos (0: the first header) on: value receives its value without the
 * surrounding blanks, *pos where to look for the next one.
 */
bool rtsp_header_next(const uint8_t *buf, const struct rtsp_msg *m, const char *name,
		      size_t *pos, struct rtsp_span *value);

#endif /* CTH_RTSP_PARSE_H */
