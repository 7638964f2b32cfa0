# SSDP plugin unit test: the message, header and URL parsers, the plugin's
# declared keys through the daemon's parser, the plugin on the daemon's
# host code (plugrun.mk; "=": that list is read later), deterministic
# fuzzing.
UNIT_SRC_test_ssdp = plugins/ssdp/ssdp.c plugins/ssdp/ssdp_parse.c sdk/lib/util.c \
                     server/runtime/keys.c server/runtime/config.c \
                     server/runtime/config_helper.c server/runtime/config_shards.c \
                     $(PLUGRUN_SRC)
