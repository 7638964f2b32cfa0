# The sandbox end to end without a kernel (test_sandbox.c): the daemon's
# side of the channel and the spawner, the build's cthelperd-sandbox and
# plugins (ftp, the probe and ctoralloc test plugins).
UNIT_SRC_test_sandbox := server/sandbox/sandbox.c server/sandbox/spawn.c server/sandbox/chan.c server/sandbox/chan_check.c \
                         server/sandbox/confine.c server/sandbox/describe.c server/sandbox/describe_wire.c \
                         $(filter-out server/runtime/stats.c,$(HOST_SRC)) server/runtime/stats.c
