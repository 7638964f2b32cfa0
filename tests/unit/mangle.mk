# Payload edits: server/mangle.c through the packet view and the plugin
# call (server/packet.c); headers listed so a change rebuilds the test.
UNIT_SRC_test_mangle := server/mangle.c server/packet.c server/guard.c server/keep.c server/log.c \
                        server/mangle.h tests/fuzz/pktcheck.h
