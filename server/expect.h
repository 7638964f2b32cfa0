/* SPDX-License-Identifier: MIT */
#ifndef CTH_EXPECT_H
#define CTH_EXPECT_H

#include <stdbool.h>
#include <libnetfilter_conntrack/libnetfilter_conntrack.h>

#include <cthelperd/plugin.h>

/*
 * Turn a plugin's expectation into a libnetfilter_conntrack object.  The
 * master tuple is only needed when the expectation goes over ctnetlink
 * (the NFQA_EXP path takes the master from the queued packet).
 */
struct nf_expect *expect_build(const struct cth_expect *e,
			       const struct cth_packet *pkt,
			       const char *helper, bool with_master);

#endif
