# The SDK library's expectation fillers (sdk/lib/util.c cth_expect_back(),
# cth_expect_to()) against the table at struct cth_expect in plugin.h.
UNIT_SRC_test_sdkexpect := sdk/lib/util.c
