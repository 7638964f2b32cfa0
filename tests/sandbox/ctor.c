/* SPDX-License-Identifier: MIT */
/*
 * ctor: a test plugin whose constructor records that it ran, for
 * test_describe (tests/unit/test_describe.c): with CTH_CTOR_MARK set in
 * its environment, it writes its effective uid to that file.  The daemon
 * keeps its environment; a sandbox starts with none, so the mark shows
 * the constructor ran in the daemon (sandbox = no), and its absence that
 * a sandboxed helper's plugin was never loaded there.  Otherwise a
 * plugin that does nothing.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cthelperd/plugin.h>

__attribute__((constructor)) static void ctor_ran(void)
{
	const char *mark = getenv("CTH_CTOR_MARK");
	char line[32];
	int fd, n;

	if (!mark)
		return;
	fd = open(mark, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	n = snprintf(line, sizeof(line), "%u\n", (unsigned)geteuid());
	if (write(fd, line, (size_t)n) < 0)
		n = 0;
	close(fd);
}

static int ctor_packet(struct cth_ctx *ctx, const struct cth_packet *pkt, void *priv,
		       const void *config)
{
	(void)ctx;
	(void)pkt;
	(void)priv;
	(void)config;
	return CTH_VERDICT_ACCEPT;
}

CTH_PLUGIN_EXPORT const struct cth_plugin_desc cth_plugin = {
	.abi_version = CTH_ABI_VERSION,
	.size = sizeof(struct cth_plugin_desc),
	.name = "ctor",
	.version = "1.0",
	.description = "records that its constructor ran",
	.protocols = CTH_PROTO_TCP,
	.families = CTH_FAMILY_IPV4 | CTH_FAMILY_IPV6,
	.n_classes = 1,
	.classes = { { "data", 1, 30 } },
	.packet = ctor_packet,
};
