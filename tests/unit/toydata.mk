# The SDK example plugin (sdk/examples/toydata) against the fake host.
UNIT_SRC_test_toydata := sdk/examples/toydata/toydata.c sdk/lib/util.c
