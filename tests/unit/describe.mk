# Describe mode (test_describe.c): the wire form both ways on loaded
# plugins and hostile copies, no process; then the build's cthelperd -n
# and --print-rules with the ctor, sdk3 and ABI 2 test plugins sandboxed.
UNIT_SRC_test_describe := server/sandbox/describe_wire.c server/runtime/loader.c server/runtime/keys.c \
                          server/runtime/dlfresh.c server/runtime/config.c server/runtime/config_load.c \
                          server/runtime/config_server.c server/runtime/config_helper.c \
                          server/runtime/config_shards.c server/runtime/guard.c server/base/log.c
