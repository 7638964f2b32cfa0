# The replay's emulated kernel (replay/conn.c, replay/expect.c): NAT
# option parsing, tuples, ctinfo, sequence adjustment, the expectation
# table; report.c for the lines the table writes.  Headers listed so a
# change rebuilds the test.
UNIT_SRC_test_replay := replay/conn.c replay/expect.c replay/report.c replay/replay.h
