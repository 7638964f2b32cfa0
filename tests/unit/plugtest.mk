# The plugin kit's test harness (plugtest/, <cthelperd/plugtest.h>) on
# the udpback example and a test plugin of its own; it loads the example's
# .so too ($(B)/tests/udpback/, tests.mk).  "=": PLUGTEST_SRC is read later.
UNIT_SRC_test_plugtest = sdk/examples/udpback/udpback.c sdk/lib/util.c $(PLUGTEST_SRC) \
                         $(wildcard plugtest/*.h)
UNIT_DEFS_test_plugtest := -Iplugtest -Itests/fuzz
