# Expectations committed without their NAT (exprepair.c): which mapping a
# NATed master's tuples give.
UNIT_SRC_test_exprepair := server/kernel/exprepair.c server/kernel/portids.c server/kernel/expect.c tests/unit/nlfake.c server/base/log.c server/runtime/runtime.c server/runtime/loader.c server/runtime/keys.c server/runtime/dlfresh.c server/runtime/config.c server/runtime/config_load.c server/runtime/config_server.c server/runtime/config_helper.c server/runtime/config_shards.c server/runtime/guard.c
