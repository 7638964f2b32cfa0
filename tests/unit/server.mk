# Server unit tests: config parser, plugin loader and runtime building.
UNIT_SRC_test_config := server/config.c server/guard.c server/log.c
UNIT_SRC_test_loader := server/loader.c server/dlfresh.c server/runtime.c server/config.c server/guard.c server/log.c
# Registration decisions and the GET answer parser (no kernel needed).
UNIT_SRC_test_cthelper := server/cthelper.c server/record.c server/share.c server/kcheck.c server/nlreq.c server/log.c
