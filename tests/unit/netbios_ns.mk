# NetBIOS-NS plugin unit test: the name service header check, the
# declarations, the plugin through the plugin kit's harness with the link
# view (lanq.h); "=": PLUGTEST_SRC is read later.
UNIT_SRC_test_netbios_ns = plugins/netbios-ns/netbios_ns.c plugins/netbios-ns/netbios_ns_parse.c \
                           sdk/lib/util.c $(PLUGTEST_SRC) $(wildcard plugtest/*.h) tests/unit/lanq.h
UNIT_DEFS_test_netbios_ns := -Iplugtest -Itests/fuzz
