# The replay's account of first packets (replay/related.c) through its
# packet loop and the daemon's host code, with a plugin in the test.
UNIT_SRC_test_replay_engine := replay/engine.c replay/related.c replay/conn.c replay/nat.c \
                               replay/view.c replay/expect.c replay/report.c replay/replay.h \
                               server/host/call.c server/host/link.c server/host/packet.c server/host/edit.c \
                               server/host/keep.c server/host/inflight.c \
                               server/runtime/guard.c server/base/log.c sdk/lib/util.c
