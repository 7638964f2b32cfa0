# Server unit tests: config parser, plugin loader and runtime building.
UNIT_SRC_test_config := server/config.c server/log.c
UNIT_SRC_test_loader := server/loader.c server/runtime.c server/config.c server/log.c
