# Amanda plugin unit test: the reply parser, the plugin's declared keys
# through the daemon's parser, the plugin on the daemon's host code
# (plugrun.mk; "=": that list is read later), deterministic fuzzing.
UNIT_SRC_test_amanda = plugins/amanda/amanda.c plugins/amanda/amanda_parse.c sdk/lib/util.c \
                       $(PLUGRUN_SRC)
