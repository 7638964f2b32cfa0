# The host's rules for what a plugin may ask (guard.c): expectations that
# touch their master, expect_networks, mark_mask.
UNIT_SRC_test_guard := server/runtime/guard.c server/runtime/guard.h
