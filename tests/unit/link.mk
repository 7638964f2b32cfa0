# The link view (cth_link()): host/link.c's rules on address lists, and
# the daemon's side, the worker's copy of this host's addresses
# (worker/worker_link.c) read by kernel/addrtab.c from rtnetlink.
UNIT_SRC_test_link := server/host/link.c server/worker/worker_link.c server/kernel/addrtab.c \
                      server/base/log.c
