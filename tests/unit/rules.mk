# --print-rules: the printer over hand-built runtimes (config.c for the
# port-list parser it shares with the rule_ports key).
UNIT_SRC_test_rules := server/daemon/rules.c server/runtime/config.c server/runtime/config_load.c server/runtime/config_server.c server/runtime/config_helper.c server/runtime/config_shards.c server/runtime/guard.c server/base/log.c server/daemon/rules.h
