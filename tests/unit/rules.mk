# --print-rules: the printer over hand-built runtimes (config.c for the
# port-list parser it shares with the rule_ports key).
UNIT_SRC_test_rules := server/rules.c server/config.c server/guard.c server/log.c server/rules.h
