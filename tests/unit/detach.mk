# Waiting detaches (cth_detach with expectations pending): the per-worker
# table and the ctnetlink update it sends.
UNIT_SRC_test_detach := server/detach.c server/expect.c server/detach.h
