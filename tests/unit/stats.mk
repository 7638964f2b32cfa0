# Counters, the kernel's queue numbers, the three renderings (JSON parsed
# back by python3, Prometheus by a strict checker in the test), the
# control socket's answers and its limits, the control_* config keys.
UNIT_SRC_test_stats := server/runtime/stats.c server/control/stats_report.c server/base/strbuf.c server/control/control.c \
                       server/runtime/config.c server/runtime/config_load.c server/runtime/config_server.c server/runtime/config_helper.c server/runtime/config_shards.c server/runtime/guard.c server/base/log.c server/runtime/stats.h \
                       server/control/control.h server/base/strbuf.h
