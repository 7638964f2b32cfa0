# Stuck workers (watchdog.c): stall episodes, and joins bounded against a
# thread that never returns (a plugin looping forever, in isolation: the
# worker itself needs a kernel queue).
UNIT_SRC_test_watchdog := server/worker/watchdog.c server/worker/watchdog.h
