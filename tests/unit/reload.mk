# Reload without a kernel: refused keys, counter slots, the summary (also
# of configs whose shards change: config.c), and dlfresh (a replaced
# plugin file is loaded, not the old object).
UNIT_SRC_test_reload := server/reload_plan.c server/dlfresh.c server/strbuf.c server/log.c server/config.c server/guard.c
