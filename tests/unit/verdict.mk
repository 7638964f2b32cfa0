# Verdict messages (server/verdict.c: contents, the size bounds the batch
# relies on) and the batch that sends several in one datagram (vbatch.c).
UNIT_SRC_test_verdict := server/verdict.c server/vbatch.c server/expect.c \
                         server/verdict.h server/vbatch.h
