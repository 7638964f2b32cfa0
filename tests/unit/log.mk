# The rate-limited log lines (server/log.c log_rl_msg()): a burst, then
# suppression, then the summary line once lines go through again.
UNIT_SRC_test_log := server/log.c server/log.h
