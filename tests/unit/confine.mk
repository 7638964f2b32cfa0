# The sandbox's confinement (server/sandbox/confine.c): each case a forked
# child that confines itself (seccomp LOAD/SERVE, rlimits, landlock) and
# tries one call; dlopen()s the built plugins of $CTH_BUILD, and runs the
# FTP plugin's packet path on the daemon's host code (plugrun.mk; "=":
# that list is read later) under the serve filter.
UNIT_SRC_test_confine = server/sandbox/confine.c server/sandbox/confine.h \
                        plugins/ftp/ftp.c plugins/ftp/ftp_parse.c sdk/lib/util.c $(PLUGRUN_SRC)
