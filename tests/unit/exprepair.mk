# Expectations committed without their NAT (exprepair.c): which mapping a
# NATed master's tuples give.
UNIT_SRC_test_exprepair := server/exprepair.c server/portids.c server/expect.c tests/unit/nlfake.c server/log.c server/runtime.c server/loader.c server/dlfresh.c server/config.c server/guard.c
