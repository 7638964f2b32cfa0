# TNS plugin unit test: the parser (headers, connect descriptors), the
# plugin's packet callback against a fake host, deterministic fuzzing.
# Headers are listed so a change to them rebuilds the test (the recipe only
# compiles the .c files).
UNIT_SRC_test_tns := plugins/tns/tns.c plugins/tns/tns_nat.c \
                     plugins/tns/tns_parse.c plugins/tns/tns.h \
                     plugins/tns/tns_parse.h sdk/lib/util.c
