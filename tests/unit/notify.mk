# sd_notify: the datagrams a fake NOTIFY_SOCKET receives, and no-ops
# without one.
UNIT_SRC_test_notify := server/notify.c server/dynlib.c server/log.c server/notify.h
