# SLP plugin unit test: the SLPv2 header check, the declarations, the
# plugin through the plugin kit's harness with the link view (lanq.h);
# "=": PLUGTEST_SRC is read later.
UNIT_SRC_test_slp = plugins/slp/slp.c plugins/slp/slp_parse.c sdk/lib/util.c \
                     $(PLUGTEST_SRC) $(wildcard plugtest/*.h) tests/unit/lanq.h
UNIT_DEFS_test_slp := -Iplugtest -Itests/fuzz
