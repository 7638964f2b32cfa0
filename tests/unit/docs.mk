# The manuals against the code: --help's long options in cthelperd(8), the
# config parser's key tables (server/config.c server/guard.c) in cthelperd.conf(5).
UNIT_SRC_test_docs := server/config.c server/guard.c server/log.c server/config.h
