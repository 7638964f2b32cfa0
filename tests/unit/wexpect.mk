# The worker's expectation backend and detach glue against an emulated
# kernel expectation table (tests/unit/nlfake.c in place of nlreq.c).
UNIT_SRC_test_wexpect := server/worker/wexpect.c server/worker/wdetach.c server/kernel/expect.c server/worker/detach.c \
                         server/base/log.c tests/unit/nlfake.c
