# State overlay: the real FTP plugin through the daemon's host code.
UNIT_SRC_test_overlay := server/overlay.c server/packet.c server/mangle.c \
                         server/log.c plugins/ftp/ftp.c plugins/ftp/ftp_parse.c \
                         sdk/lib/util.c
