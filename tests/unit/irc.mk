# IRC plugin unit test: the DCC line parser, the plugin's declared keys,
# the plugin on the daemon's host code (plugrun.mk; "=": that list is
# read later), deterministic fuzzing.
UNIT_SRC_test_irc = plugins/irc/irc.c plugins/irc/irc_parse.c sdk/lib/util.c \
                    $(PLUGRUN_SRC)
