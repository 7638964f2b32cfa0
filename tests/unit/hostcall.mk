# The host code around the plugin call: in-flight state overlay (with the
# real FTP plugin) and the argument checks every expect path shares.
UNIT_SRC_test_hostcall := server/host/overlay.c server/host/packet.c server/runtime/guard.c server/host/mangle.c server/host/keep.c \
                         server/base/log.c plugins/ftp/ftp.c plugins/ftp/ftp_parse.c \
                         sdk/lib/util.c
