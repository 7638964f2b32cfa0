# The manuals against the code: --help's long options in cthelperd(8), the
# config parser's key tables (server/runtime/config.c server/runtime/guard.c) in cthelperd.conf(5).
UNIT_SRC_test_docs := server/runtime/config.c server/runtime/guard.c server/base/log.c server/runtime/config.h
