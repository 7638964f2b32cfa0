# SANE plugin unit test: the plugin's declared keys and state, the
# plugin on the daemon's host code (plugrun.mk; "=": that list is read
# later), kept bytes across segments, deterministic fuzzing.
UNIT_SRC_test_sane = plugins/sane/sane.c sdk/lib/util.c $(PLUGRUN_SRC)
