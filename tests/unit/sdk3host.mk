# The SDK 3 test plugin (sdk3_plugin.c) on the daemon's host code
# (plugrun.mk): the state version the host keeps, counters.
UNIT_SRC_test_sdk3host = tests/unit/sdk3_plugin.c $(PLUGRUN_SRC)
