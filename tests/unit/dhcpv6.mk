# DHCPv6 plugin unit test: the message types, the declarations, the
# plugin through the plugin kit's harness with the link view (lanq.h);
# "=": PLUGTEST_SRC is read later.
UNIT_SRC_test_dhcpv6 = plugins/dhcpv6/dhcpv6.c plugins/dhcpv6/dhcpv6_parse.c sdk/lib/util.c \
                     $(PLUGTEST_SRC) $(wildcard plugtest/*.h) tests/unit/lanq.h
UNIT_DEFS_test_dhcpv6 := -Iplugtest -Itests/fuzz
