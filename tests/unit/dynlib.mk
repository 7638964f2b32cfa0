# Libraries loaded when needed (server/base/dynlib.c): the daemon and the
# replay tool name neither libmicrohttpd nor libsystemd in DT_NEEDED, the
# loader resolves a typed table from each, and a missing library or
# function is a negative errno and a message, the table left empty.
UNIT_SRC_test_dynlib := server/base/dynlib.c server/base/dynlib.h
# The same daemon code built with library names that do not exist: a
# [server] metrics endpoint refused with the reason, NOTIFY_SOCKET warned
# about once.
UNIT_SRC_test_nolib := server/control/metrics.c server/daemon/notify.c server/base/dynlib.c server/control/control.c \
                       server/runtime/stats.c server/control/stats_report.c server/base/strbuf.c server/runtime/config.c server/runtime/config_load.c server/runtime/config_server.c server/runtime/config_helper.c server/runtime/config_shards.c server/runtime/guard.c server/base/log.c \
                       server/control/metrics.h server/daemon/notify.h server/base/dynlib.h
UNIT_DEFS_test_nolib := -DMETRICS_LIB='"libcth-test-missing-mhd.so.12"' \
                        -DNOTIFY_LIB='"libcth-test-missing-sd.so.0"'
