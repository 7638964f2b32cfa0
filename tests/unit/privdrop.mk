# Least privilege: the user key, the switch read back from /proc (in
# forked children, a thread created after it too), the control socket a
# dropped daemon leaves, the loader's plugin ownership and mode rule.
UNIT_SRC_test_privdrop := server/privdrop.c server/loader.c server/dlfresh.c server/control.c \
                          server/stats.c server/strbuf.c server/config.c server/guard.c \
                          server/log.c server/privdrop.h server/loader.h
