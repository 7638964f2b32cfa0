# Server unit tests: config parser, plugin loader and runtime building.
UNIT_SRC_test_config := server/runtime/config.c server/runtime/config_load.c server/runtime/config_server.c server/runtime/config_helper.c server/runtime/config_shards.c server/runtime/guard.c server/base/log.c
UNIT_SRC_test_loader := server/runtime/loader.c server/runtime/keys.c server/runtime/dlfresh.c server/runtime/runtime.c server/runtime/config.c server/runtime/config_load.c server/runtime/config_server.c server/runtime/config_helper.c server/runtime/config_shards.c server/runtime/guard.c server/base/log.c
# Registration decisions (cthelper_decide.c) and the GET answer parser
# (cthelper_msg.c): no kernel needed.
UNIT_SRC_test_cthelper := kmod/cthd_match.h server/kernel/cthelper_msg.c server/kernel/cthelper_decide.c server/kernel/cthelper_tuple.c server/kernel/nlreq.c server/base/log.c
