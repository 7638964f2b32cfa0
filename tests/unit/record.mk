# The record of registered kernel helpers (record.c): round trip, atomic
# replacement, the reload union, and refusal of corrupt or oversized files.
UNIT_SRC_test_record := server/kernel/record.c server/kernel/record.h
