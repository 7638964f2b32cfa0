# The host code around the plugin call: in-flight state overlay (with the
# real FTP plugin) and the argument checks every expect path shares.
UNIT_SRC_test_hostcall := server/overlay.c server/packet.c server/guard.c server/mangle.c server/keep.c \
                         server/log.c plugins/ftp/ftp.c plugins/ftp/ftp_parse.c \
                         sdk/lib/util.c
