# The host code around the plugin call: the in-flight state table (with
# the real FTP plugin) and the argument checks every expect path shares.
UNIT_SRC_test_hostcall := server/host/inflight.c server/host/call.c server/host/link.c server/host/packet.c server/runtime/guard.c \
                         server/host/edit.c server/host/keep.c \
                         server/base/log.c plugins/ftp/ftp.c plugins/ftp/ftp_parse.c \
                         sdk/lib/util.c
