/* SPDX-License-Identifier: MIT */
#ifndef CTH_CONFIG_H
#define CTH_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>

#include <cthelperd/plugin.h>

#include "guard.h"

struct plugin;

#define CFG_MAX_HELPERS  64
#define CFG_MAX_OPTS     32
#define CFG_MAX_POLICIES 8
#define CFG_DEFAULT_QUEUE_LEN 4096u
/* [server] inflight_entries (host/inflight.h), per queue worker: 256
 * (12 KiB) fits a small firewall's few hundred connections writing
 * helper state at once per queue; measured at scale in tests/bench */
#define CFG_INFLIGHT_ENTRIES 256u
#define CFG_INFLIGHT_ENTRIES_MIN 16u
#define CFG_INFLIGHT_ENTRIES_MAX 1048576u
/* sun_path holds 108 bytes, the NUL included */
#define CFG_SOCKET_PATH_MAX 108
/* leaves room in PATH_MAX for NAME.FAMILY.PROTO */
#define CFG_SHARE_DIR_MAX 3900
/* The build's RUNSTATEDIR (Makefile: make RUNSTATEDIR=...) */
#ifndef CTH_RUNSTATEDIR
#define CTH_RUNSTATEDIR "/run"
#endif
/* [server] share_dir's default; "none" turns sharing off (kernel/share.h) */
#define CFG_SHARE_DIR_DEFAULT CTH_RUNSTATEDIR "/cthelperd-shared"
/* [server] runtime_dir's default; "none": no record (kernel/record.h) */
#define CFG_RUNTIME_DIR_DEFAULT CTH_RUNSTATEDIR "/cthelperd"
#define CFG_MAX_RULE_PORTS 16
/* shards = N: at most this many kernel helpers (and queues) per section */
#define CFG_MAX_SHARDS 16
/* policy.CLASS.max / policy.CLASS.timeout */
#define CFG_POLICY_PREFIX "policy."

/* A key the daemon does not know: handed to the plugin's configure(). */
struct cfg_opt {
	char *key;
	char *value;
	int line;
};

/* policy.CLASS.max / policy.CLASS.timeout, matched to the plugin's
 * classes once the plugin is loaded. */
struct cfg_policy {
	char cls[CTH_NAME_LEN];
	int line;
	bool has_max, has_timeout;
	uint32_t max, timeout;
};

/*
 * One helper instance.  A section with shards = N becomes N consecutive
 * entries at load (cfg_load): shard 0 has the section's name and queue,
 * shard k the name "NAME.k" and queue + k, everything else the same.
 */
/* A helper's sandbox settings (docs/security.md): its plugin runs in a
 * process of its own unless on is false. */
struct cfg_sandbox {
	bool on;
	bool drop;            /* sandbox_verdict = drop: packets it lost are dropped */
	uint32_t timeout_ms;  /* budget of one plugin call */
	uint32_t memory_mb;   /* its address space (RLIMIT_AS) */
	/* [server] inflight_entries, copied at load: the sandbox keeps the
	 * in-flight table of its plugin's connections */
	uint32_t inflight_entries;
};
#define CFG_SANDBOX_TIMEOUT_MS 200u
#define CFG_SANDBOX_MEMORY_MB 256u
#define CFG_SANDBOX_USER "cthelperd-sandbox"

struct cfg_helper {
	char name[CTH_NAME_LEN];
	char *plugin;
	int line;             /* of the [helper NAME] header */
	unsigned int shards;  /* the section's shards key (1: not sharded) */
	unsigned int shard;   /* this entry's: 0..shards-1 */
	int shards_line;      /* of the shards key, for later checks */
	unsigned int families;  /* 0: every family the plugin supports */
	unsigned int protocols; /* 0: every protocol the plugin supports */
	int family_line, protocol_line; /* of those keys, for later checks */
	uint16_t queue;
	uint32_t queue_len;
	bool fail_open;
	struct guard guard;   /* mark_mask, expect_networks (guard.h) */
	struct cfg_sandbox sandbox; /* sandbox, sandbox_* keys (server/sandbox/) */
	size_t n_rule_ports;  /* rule_ports: read by --print-rules only */
	uint16_t rule_ports[CFG_MAX_RULE_PORTS];
	size_t n_policies;
	struct cfg_policy policies[CFG_MAX_POLICIES];
	size_t n_opts;
	struct cfg_opt opts[CFG_MAX_OPTS];
};

struct cfg {
	char *file;
	char *plugin_dir;
	int log_level;
	char *control_socket;     /* NULL: no control socket */
	uint32_t control_mode;    /* permissions of the socket file */
	long control_gid;         /* -1: the daemon's group */
	char *metrics;            /* ADDR:PORT of HTTP /metrics; NULL: none */
	int metrics_line;         /* of that key, for a later check (daemon/main.c) */
	char *user;               /* [server] user; NULL: stay as started */
	char *share_dir;          /* share.h; NULL: helpers not shared */
	char *runtime_dir;        /* record.h; NULL: no record kept */
	long uid, gid;            /* user's, from getpwnam() at load; -1: unset */
	uint32_t inflight_entries; /* per queue worker (host/inflight.h) */
	/* [server] sandbox_user, resolved at load; NULL and -1: not set (the
	 * sandboxes' start resolves the default, server/sandbox/spawn.c) */
	char *sandbox_user;
	long sandbox_uid, sandbox_gid;
	/* not a key: how runtime_build() reads a sandboxed helper's plugin
	 * without running its code (server/sandbox/describe.h), set by a
	 * caller that has the spawner; NULL: loaded in process as a
	 * sandbox = no one is (tests that start no sandbox) */
	int (*describe)(const char *dir, const char *name, struct plugin **out,
			char *err, size_t errlen);
	size_t n_helpers;
	struct cfg_helper helpers[CFG_MAX_HELPERS];
	size_t n_errors;
};

/* A family or protocol key: its name and its values as the config spells
 * them, indexed by CTH_FAMILY_* / CTH_PROTO_* bits (1, 2, 3). */
struct cfg_bits {
	const char *key;
	const char *names[4];
};
extern const struct cfg_bits cfg_families, cfg_protocols;

/* The parser's state as a key's setter sees it (config_load.c fills it). */
struct cfg_parse {
	struct cfg *cfg;
	FILE *fp;
	int line;
	struct cfg_helper *cur;   /* current [helper X] section or NULL */
	bool in_server;
	bool bad_section;         /* unknown section: errors reported once */
};

/* A daemon key and what sets it (NULL name ends a table).  Returns 0 (a
 * bad value is reported and counted) or a negative errno that stops the
 * parse (-ENOMEM).  The tables: config_server.h, config_helper.h. */
struct cfg_key {
	const char *name;
	int (*set)(struct cfg_parse *p, const char *k, const char *v);
};
/* The entry of keys (a table) named k, or NULL. */
const struct cfg_key *cfg_key_find(const struct cfg_key *keys, const char *k);

/* Print "FILE:LINE: message" and count it in cfg->n_errors: for the
 * parser, and for a later check (e.g. plugin options). */
void cfg_error(const struct cfg *cfg, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void cfg_free(struct cfg *cfg);

/* Values as the configuration spells them; each 0 or a negative errno,
 * *out untouched on error. */
/* yes, true, on, 1 / no, false, off, 0 (any case) */
int cfg_bool_parse(const char *v, bool *out);
/* a decimal number in min..max: -EINVAL (not a number) or -ERANGE */
int cfg_u32_parse(const char *v, uint32_t min, uint32_t max, uint32_t *out);
/* "P[,P...]" (commas or blanks) into ports[0..max); 0 or -EINVAL. */
int cfg_ports_parse(const char *v, uint16_t *ports, size_t max, size_t *n);
/* "A.B.C.D:PORT" or "[IPv6]:PORT" (literals only, PORT 0..65535, 0 for
 * tests: the kernel chooses) into *sa; 0 or -EINVAL. */
int cfg_addr_port_parse(const char *v, struct sockaddr_storage *sa, socklen_t *len);
/* A name for the kernel or a file: [A-Za-z0-9_-], 1..maxlen-1 bytes. */
bool cfg_name_ok(const char *s, size_t maxlen);
/* *dst = a copy of v (the old one freed): 0 or -ENOMEM. */
int cfg_str_set(char **dst, const char *v);

#endif
