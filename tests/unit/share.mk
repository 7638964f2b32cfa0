# Shared kernel helpers between daemons (share.c): the flock protocol,
# two "daemons" being two open file descriptions of one lock file.
UNIT_SRC_test_share := server/kernel/share.c server/kernel/share.h
