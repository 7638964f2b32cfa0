# The queue worker's receive vector (recvmmsg) over a datagram socket pair.
UNIT_SRC_test_rxvec := server/worker/rxvec.c server/worker/rxvec.h
