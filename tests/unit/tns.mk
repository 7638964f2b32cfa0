# TNS plugin unit test: the parser (headers, connect descriptors), the
# plugin on the daemon's host code (plugrun.mk; "=": that list is read
# later), deterministic fuzzing.
UNIT_SRC_test_tns = plugins/tns/tns.c plugins/tns/tns_nat.c \
                    plugins/tns/tns_parse.c sdk/lib/util.c $(PLUGRUN_SRC)
