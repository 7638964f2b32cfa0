# The daemon's side of the plugins' match rules (server/worker/prefilter.c).
UNIT_SRC_test_prefilter := server/worker/prefilter.c server/worker/prefilter.h
