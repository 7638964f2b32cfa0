# Reload without a kernel: refused keys, counter slots, the summary (also
# of configs whose shards change: config_shards.c), and dlfresh (a replaced
# plugin file is loaded, not the old object).
UNIT_SRC_test_reload := server/daemon/reload_plan.c server/runtime/dlfresh.c server/base/strbuf.c server/base/log.c server/runtime/config.c server/runtime/config_load.c server/runtime/config_server.c server/runtime/config_helper.c server/runtime/config_shards.c server/runtime/guard.c
