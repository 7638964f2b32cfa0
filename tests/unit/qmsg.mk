# Queue message reading with messages that lie or lack things.
UNIT_SRC_test_qmsg := server/qmsg.c server/packet.c server/guard.c server/mangle.c server/keep.c server/log.c
