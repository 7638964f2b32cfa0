# Counters, the kernel's queue numbers, the three renderings (JSON parsed
# back by python3, Prometheus by a strict checker in the test), the
# control socket's answers and its limits, the control_* config keys.
UNIT_SRC_test_stats := server/stats.c server/strbuf.c server/control.c \
                       server/config.c server/guard.c server/log.c server/stats.h \
                       server/control.h server/strbuf.h
