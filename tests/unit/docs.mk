# The manuals against the code: --help's long options in cthelperd(8), the
# config parser's key tables (server/runtime/config_server.c, config_helper.c) in cthelperd.conf(5),
# the built plugins' declared keys and counters (dlopen()ed) in docs/plugins/NAME.md and cthelperd.conf(5).
UNIT_SRC_test_docs := server/runtime/config.c server/runtime/config_load.c server/runtime/config_server.c server/runtime/config_helper.c server/runtime/config_shards.c server/runtime/guard.c server/base/log.c server/runtime/config.h
