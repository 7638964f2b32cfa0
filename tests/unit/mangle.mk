# Payload edits: server/host/mangle.c through the packet view and the plugin
# call (server/host/packet.c); headers listed so a change rebuilds the test.
UNIT_SRC_test_mangle := server/host/mangle.c server/host/packet.c server/runtime/guard.c server/host/keep.c server/base/log.c \
                        server/host/mangle.h tests/fuzz/pktcheck.h
