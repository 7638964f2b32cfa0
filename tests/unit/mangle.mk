# Payload edits (cth_mangle): server/host/edit.c through the packet view
# (server/host/packet.c) and the plugin call (server/host/call.c); headers
# listed so a change rebuilds the test.
UNIT_SRC_test_mangle := server/host/edit.c server/host/call.c server/host/link.c server/host/packet.c server/host/keep.c \
                        server/host/inflight.c server/runtime/guard.c server/base/log.c \
                        server/host/edit.h tests/fuzz/pktcheck.h
