# Queue message reading with messages that lie or lack things.
UNIT_SRC_test_qmsg := server/worker/qmsg.c server/host/packet.c server/base/log.c
