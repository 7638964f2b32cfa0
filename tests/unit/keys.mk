# Declared keys (server/runtime/keys.c) over hand-built declarations: each
# type's parser, description and formatting, the declaration checks, the
# rule ports, a section applied (config.c's parsers, cfg_error()).
UNIT_SRC_test_keys := server/runtime/keys.c server/runtime/config.c server/runtime/config_load.c server/runtime/config_server.c server/runtime/config_helper.c server/runtime/config_shards.c server/runtime/guard.c server/base/log.c
