# Least privilege: the user key, the switch read back from /proc (in
# forked children, a thread created after it too), the control socket a
# dropped daemon leaves, the loader's plugin ownership and mode rule.
UNIT_SRC_test_privdrop := server/daemon/privdrop.c server/runtime/loader.c server/runtime/keys.c server/runtime/dlfresh.c server/control/control.c \
                          server/runtime/stats.c server/control/stats_report.c server/base/strbuf.c server/runtime/config.c server/runtime/config_load.c server/runtime/config_server.c server/runtime/config_helper.c server/runtime/config_shards.c server/runtime/guard.c \
                          server/base/log.c server/daemon/privdrop.h server/runtime/loader.h
