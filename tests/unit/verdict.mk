# Verdict messages (server/worker/verdict.c: contents, the size bounds the batch
# relies on) and the batch that sends several in one datagram (vbatch.c).
UNIT_SRC_test_verdict := server/worker/verdict.c server/worker/vbatch.c server/kernel/expect.c \
                         server/worker/verdict.h server/worker/vbatch.h
