# Kept bytes (cth_keep): the per-worker table through the host code the
# worker runs around the plugin call; headers listed so a change rebuilds.
UNIT_SRC_test_keep := server/keep.c server/packet.c server/guard.c server/mangle.c server/log.c \
                      server/keep.h tests/fuzz/pktcheck.h
