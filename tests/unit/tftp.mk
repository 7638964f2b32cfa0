# TFTP plugin unit test: the request parser, its declared keys through
# the daemon's parser (keys.c, and the config code it reports through),
# the plugin on the daemon's host code (plugrun.mk; "=": that list is read
# later), deterministic fuzzing.
UNIT_SRC_test_tftp = plugins/tftp/tftp.c plugins/tftp/tftp_parse.c sdk/lib/util.c \
                     server/runtime/keys.c server/runtime/config.c \
                     server/runtime/config_helper.c server/runtime/config_shards.c \
                     $(PLUGRUN_SRC)
