# Kept bytes (cth_keep): the per-worker table through the host code the
# worker runs around the plugin call; headers listed so a change rebuilds.
UNIT_SRC_test_keep := server/host/keep.c server/host/call.c server/host/link.c server/host/packet.c server/host/edit.c \
                      server/host/inflight.c server/runtime/guard.c server/base/log.c \
                      server/host/keep.h tests/fuzz/pktcheck.h
