# The SDK example plugin (sdk/examples/toydata) on the daemon's host code
# (plugrun.mk; "=": that list is read later).
UNIT_SRC_test_toydata = sdk/examples/toydata/toydata.c sdk/lib/util.c $(PLUGRUN_SRC)
