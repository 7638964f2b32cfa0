# --print-rules: the printer over hand-built runtimes (keys.c reads a
# plugin's declared rule ports; config.c for the port-list parser it
# shares with the rule_ports key), and over one the runtime builds with
# the SDK 3 test plugin.
UNIT_SRC_test_rules := server/daemon/rules.c server/runtime/keys.c server/runtime/runtime.c server/runtime/loader.c server/runtime/dlfresh.c server/runtime/config.c server/runtime/config_load.c server/runtime/config_server.c server/runtime/config_helper.c server/runtime/config_shards.c server/runtime/guard.c server/base/log.c server/daemon/rules.h
