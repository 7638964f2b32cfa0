# The rate-limited log lines (server/base/log.c log_rl_msg()): a burst, then
# suppression, then the summary line once lines go through again.
UNIT_SRC_test_log := server/base/log.c server/base/log.h
