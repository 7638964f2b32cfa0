# FTP plugin unit test: the parser, the SDK text utilities and the plugin
# on the daemon's host code (plugrun.mk; "=": that list is read later).
UNIT_SRC_test_ftp = plugins/ftp/ftp.c plugins/ftp/ftp_parse.c sdk/lib/util.c \
                    $(PLUGRUN_SRC)
