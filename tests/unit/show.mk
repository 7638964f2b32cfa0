# cthelperd -n's listing (server/daemon/show.c) of runtimes the runtime
# builds with the SDK 3 test plugin and an ABI 2 descriptor, and the
# daemon's own -n output.
UNIT_SRC_test_show := server/daemon/show.c server/runtime/keys.c server/runtime/runtime.c server/runtime/loader.c server/runtime/dlfresh.c server/runtime/config.c server/runtime/config_load.c server/runtime/config_server.c server/runtime/config_helper.c server/runtime/config_shards.c server/runtime/guard.c server/base/log.c
