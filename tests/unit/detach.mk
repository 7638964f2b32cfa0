# Waiting detaches (cth_detach with expectations pending): the per-worker
# table and the ctnetlink update it sends; the no-op update of seqsync.c.
UNIT_SRC_test_detach := server/worker/detach.c server/kernel/expect.c server/worker/seqsync.c server/base/log.c \
                        server/worker/detach.h
