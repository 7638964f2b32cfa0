# TFTP plugin unit test: the request parser and the plugin on the
# daemon's host code (plugrun.mk; "=": that list is read later),
# deterministic fuzzing.
UNIT_SRC_test_tftp = plugins/tftp/tftp.c plugins/tftp/tftp_parse.c sdk/lib/util.c \
                     $(PLUGRUN_SRC)
