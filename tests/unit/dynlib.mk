# Libraries loaded when needed (server/dynlib.c): the daemon and the
# replay tool name neither libmicrohttpd nor libsystemd in DT_NEEDED, the
# loader resolves a typed table from each, and a missing library or
# function is a negative errno and a message, the table left empty.
UNIT_SRC_test_dynlib := server/dynlib.c server/dynlib.h
# The same daemon code built with library names that do not exist: a
# [server] metrics endpoint refused with the reason, NOTIFY_SOCKET warned
# about once.
UNIT_SRC_test_nolib := server/metrics.c server/notify.c server/dynlib.c server/control.c \
                       server/stats.c server/strbuf.c server/config.c server/guard.c server/log.c \
                       server/metrics.h server/notify.h server/dynlib.h
UNIT_DEFS_test_nolib := -DMETRICS_LIB='"libcth-test-missing-mhd.so.12"' \
                        -DNOTIFY_LIB='"libcth-test-missing-sd.so.0"'
