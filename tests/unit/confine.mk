# The sandbox's confinement (server/sandbox/confine.c): each case a forked
# child that confines itself (seccomp LOAD/SERVE, rlimits, landlock) and
# tries one call; dlopen()s the built plugins of $CTH_BUILD.
UNIT_SRC_test_confine := server/sandbox/confine.c server/sandbox/confine.h
