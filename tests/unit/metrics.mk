# HTTP /metrics (server/control/metrics.c) served from a libev loop run by hand:
# the body is the control socket's "stats prometheus" answer; 404, 405,
# the client limit and idle timeout, and the [server] metrics key.
UNIT_SRC_test_metrics := server/control/metrics.c server/base/dynlib.c server/control/control.c server/runtime/stats.c server/control/stats_report.c \
                         server/base/strbuf.c server/runtime/config.c server/runtime/config_load.c server/runtime/config_server.c server/runtime/config_helper.c server/runtime/config_shards.c server/runtime/guard.c server/base/log.c \
                         server/control/metrics.h server/control/control.h server/runtime/config.h
