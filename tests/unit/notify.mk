# sd_notify: the datagrams a fake NOTIFY_SOCKET receives, and no-ops
# without one.
UNIT_SRC_test_notify := server/daemon/notify.c server/base/dynlib.c server/base/log.c server/daemon/notify.h
