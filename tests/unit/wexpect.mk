# The worker's expectation backend and detach glue against an emulated
# kernel expectation table (tests/unit/nlfake.c in place of nlreq.c); the
# verdicts a kernel request sends first, none here, with the host code
# they are written from.
UNIT_SRC_test_wexpect := server/worker/worker_expect.c server/worker/worker_detach.c \
                         server/worker/worker_kreq.c server/worker/worker_verdict.c \
                         server/worker/verdict.c server/worker/vbatch.c server/worker/detach.c \
                         server/kernel/expect.c server/host/call.c server/host/link.c server/host/packet.c \
                         server/host/edit.c server/host/keep.c server/host/inflight.c \
                         server/runtime/guard.c server/base/log.c tests/unit/nlfake.c
