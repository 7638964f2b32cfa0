# The SDK library's cth_expect_answers() (sdk/lib/util.c): the answers to
# a query sent to a group or broadcast address.
UNIT_SRC_test_sdkanswers := sdk/lib/util.c
