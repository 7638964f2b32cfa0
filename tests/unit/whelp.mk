# The worker's batches (test_whelp.c): worker_help.c with the worker's
# glue, an emulated ctnetlink (tests/unit/nlfake.c in place of nlreq.c),
# the verdicts caught at the queue socket's send, and the sandbox end to
# end (the spawner, the build's cthelperd-sandbox and the probe plugin).
UNIT_SRC_test_whelp := server/worker/worker_help.c server/worker/prefilter.c server/worker/qmsg.c server/worker/worker_expect.c \
                       server/worker/worker_detach.c server/worker/worker_kreq.c \
                       server/worker/worker_verdict.c server/worker/worker_link.c \
                       server/worker/verdict.c server/worker/vbatch.c server/worker/detach.c \
                       server/worker/seqsync.c server/kernel/expect.c server/kernel/addrtab.c tests/unit/nlfake.c \
                       server/sandbox/sandbox.c server/sandbox/spawn.c server/sandbox/chan.c \
                       server/sandbox/chan_check.c server/sandbox/confine.c \
                       server/sandbox/describe.c server/sandbox/describe_wire.c \
                       $(filter-out server/runtime/stats.c,$(HOST_SRC)) server/runtime/stats.c
