/* SPDX-License-Identifier: MIT */
/*
 * The configuration as data (config.h): how its errors are reported, how
 * it is freed, and how its values are spelled.  Reading a file is
 * config_load.c's; the keys of each section are config_server.c's and
 * config_helper.c's; shards are config_shards.c's.  Every file of the
 * parser names its functions cfg_* (cfg_load_*, cfg_server_*, ...), as
 * the structure they fill.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/log.h"
#include "config.h"

const struct cfg_bits cfg_families = {
	.key = "family",
	.names = { [CTH_FAMILY_IPV4] = "ipv4", [CTH_FAMILY_IPV6] = "ipv6",
		   [CTH_FAMILY_IPV4 | CTH_FAMILY_IPV6] = "both" },
}, cfg_protocols = {
	.key = "protocol",
	.names = { [CTH_PROTO_TCP] = "tcp", [CTH_PROTO_UDP] = "udp",
		   [CTH_PROTO_TCP | CTH_PROTO_UDP] = "both" },
};

const struct cfg_key *cfg_key_find(const struct cfg_key *keys, const char *k)
{
	for (; keys->name; keys++)
		if (strcmp(keys->name, k) == 0)
			return keys;
	return NULL;
}

void cfg_error(const struct cfg *cfg, int line, const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* a running daemon (reload) logs them: stderr may be /dev/null */
	if (log_capturing())
		log_err("%s:%d: %s", cfg->file, line, msg);
	else
		fprintf(stderr, "%s:%d: %s\n", cfg->file, line, msg);
	((struct cfg *)cfg)->n_errors++;
}

void cfg_free(struct cfg *cfg)
{
	if (!cfg)
		return;
	for (size_t i = 0; i < cfg->n_helpers; i++) {
		free(cfg->helpers[i].plugin);
		for (size_t j = 0; j < cfg->helpers[i].n_opts; j++) {
			free(cfg->helpers[i].opts[j].key);
			free(cfg->helpers[i].opts[j].value);
		}
	}
	free(cfg->plugin_dir);
	free(cfg->sandbox_user);
	free(cfg->control_socket);
	free(cfg->share_dir);
	free(cfg->runtime_dir);
	free(cfg->metrics);
	free(cfg->user);
	free(cfg->file);
	free(cfg);
}

int cfg_bool_parse(const char *v, bool *out)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };

	for (size_t i = 0; i < 4; i++) {
		if (strcasecmp(v, yes[i]) == 0)
			return *out = true, 0;
		if (strcasecmp(v, no[i]) == 0)
			return *out = false, 0;
	}
	return -EINVAL;
}

int cfg_u32_parse(const char *v, uint32_t min, uint32_t max, uint32_t *out)
{
	char *end;
	unsigned long n;

	if (*v < '0' || *v > '9')
		return -EINVAL;
	errno = 0;
	n = strtoul(v, &end, 10);
	if (errno || *end || n < min || n > max)
		return -ERANGE;
	*out = (uint32_t)n;
	return 0;
}

int cfg_ports_parse(const char *v, uint16_t *ports, size_t max, size_t *n)
{
	size_t got = 0;

	while (*v) {
		char *end;
		unsigned long port;

		v += strspn(v, " \t,");
		if (!*v)
			break;
		if (*v < '0' || *v > '9' || got == max)
			return -EINVAL;
		errno = 0;
		port = strtoul(v, &end, 10);
		if (errno || port == 0 || port > 65535 ||
		    (*end && !strchr(" \t,", *end)))
			return -EINVAL;
		ports[got++] = (uint16_t)port;
		v = end;
	}
	if (got == 0)
		return -EINVAL;
	*n = got;
	return 0;
}

int cfg_addr_port_parse(const char *v, struct sockaddr_storage *sa, socklen_t *len)
{
	char host[INET6_ADDRSTRLEN];
	const char *colon, *end;
	uint32_t port;
	size_t n;

	/* the last colon: an IPv6 literal has its own, hence the brackets */
	colon = strrchr(v, ':');
	if (!colon || cfg_u32_parse(colon + 1, 0, 65535, &port))
		return -EINVAL;
	memset(sa, 0, sizeof(*sa));
	if (v[0] == '[') {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)sa;

		end = colon - 1;          /* >= v: v[0] is '[', not ':' */
		if (end == v || *end != ']' ||
		    (n = (size_t)(end - v - 1)) >= sizeof(host))
			return -EINVAL;
		memcpy(host, v + 1, n);
		host[n] = '\0';
		if (inet_pton(AF_INET6, host, &s6->sin6_addr) != 1)
			return -EINVAL;
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)port);
		*len = sizeof(*s6);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)sa;

		n = (size_t)(colon - v);
		if (n >= sizeof(host))
			return -EINVAL;
		memcpy(host, v, n);
		host[n] = '\0';
		/* inet_pton() takes only the dotted quad, no "127.1" or names */
		if (inet_pton(AF_INET, host, &s4->sin_addr) != 1)
			return -EINVAL;
		s4->sin_family = AF_INET;
		s4->sin_port = htons((uint16_t)port);
		*len = sizeof(*s4);
	}
	return 0;
}

bool cfg_name_ok(const char *s, size_t maxlen)
{
	size_t n = strlen(s);

	if (n == 0 || n >= maxlen)
		return false;
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			 "0123456789_-") == n;
}

int cfg_str_set(char **dst, const char *v)
{
	char *s = strdup(v);

	if (!s)
		return -ENOMEM;
	free(*dst);
	*dst = s;
	return 0;
}
