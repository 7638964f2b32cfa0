# Waiting detaches (cth_detach with expectations pending): the per-worker
# table and the ctnetlink update it sends; the no-op update of seqsync.c.
UNIT_SRC_test_detach := server/detach.c server/expect.c server/seqsync.c server/log.c \
                        server/detach.h
