# HTTP /metrics (server/metrics.c) served from a libev loop run by hand:
# the body is the control socket's "stats prometheus" answer; 404, 405,
# the client limit and idle timeout, and the [server] metrics key.
UNIT_SRC_test_metrics := server/metrics.c server/dynlib.c server/control.c server/stats.c \
                         server/strbuf.c server/config.c server/guard.c server/log.c \
                         server/metrics.h server/control.h server/config.h
