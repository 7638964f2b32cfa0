# mDNS plugin unit test: the DNS header check, the declarations, the
# plugin through the plugin kit's harness with the link view (lanq.h);
# "=": PLUGTEST_SRC is read later.
UNIT_SRC_test_mdns = plugins/mdns/mdns.c plugins/mdns/mdns_parse.c sdk/lib/util.c \
                     $(PLUGTEST_SRC) $(wildcard plugtest/*.h) tests/unit/lanq.h
UNIT_DEFS_test_mdns := -Iplugtest -Itests/fuzz
