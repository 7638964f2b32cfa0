# The worker's check of what a sandbox sends back (test_chan_check.c):
# server/sandbox/chan_check.c on the host's own functions, no process.
UNIT_SRC_test_chan_check := server/sandbox/chan_check.c server/sandbox/chan.c \
                            server/host/call.c server/host/edit.c server/host/keep.c \
                            server/host/link.c server/host/packet.c server/host/inflight.c \
                            server/runtime/guard.c server/base/log.c
