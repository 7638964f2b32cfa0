# The replay's emulated kernel (replay/conn.c, nat.c, view.c, expect.c):
# NAT option parsing and mapping (rules, ports, nf_nat_follow_master),
# tuples, ctinfo, sequence adjustment, the expectation table, the two
# kinds of capture; report.c for the lines the table writes.  Headers
# listed so a change rebuilds the test.
UNIT_SRC_test_replay := replay/conn.c replay/nat.c replay/view.c replay/expect.c server/host/link.c \
                        replay/report.c replay/replay.h
