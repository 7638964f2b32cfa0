# The worker's expectation backend and detach glue against an emulated
# kernel expectation table (tests/unit/nlfake.c in place of nlreq.c).
UNIT_SRC_test_wexpect := server/wexpect.c server/wdetach.c server/expect.c server/detach.c \
                         server/log.c tests/unit/nlfake.c
