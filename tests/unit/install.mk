# make install/uninstall into a temporary DESTDIR (runs make and the
# installed daemon; no sources of its own).
UNIT_SRC_test_install :=
