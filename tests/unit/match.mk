# Issue 34's match rules (test_match.c): kmod/'s matcher header, the
# loader's checks of a rule table, the describe wire, ftp.so's rules.
UNIT_SRC_test_match := server/sandbox/describe_wire.c server/runtime/loader.c server/runtime/keys.c \
                       server/runtime/dlfresh.c server/runtime/config.c server/runtime/config_load.c \
                       server/runtime/config_server.c server/runtime/config_helper.c \
                       server/runtime/config_shards.c server/runtime/guard.c server/base/log.c \
                       kmod/cthd_match.h
