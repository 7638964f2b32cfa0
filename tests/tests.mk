# Unit tests: tests/unit/test_NAME.c, linked with the sources listed in
# UNIT_SRC_test_NAME (set in tests/unit/*.mk next to the test), compiled
# with UNIT_DEFS_test_NAME if set.  Built twice by tests/run.sh: plain
# into build/, with ASan+UBSan into build-asan/.

UNIT_TESTS := $(notdir $(basename $(wildcard tests/unit/test_*.c)))
-include $(wildcard tests/unit/*.mk)

UNIT_CFLAGS = $(ALL_CFLAGS) $(SDK_INC) -Iserver -Itests/unit $(PKG_CFLAGS) $(SERVER_DEFS)

$(B)/tests/%: tests/unit/%.c $$(UNIT_SRC_$$*) $(PATHS_STAMP) | $(B)/tests
	$(CC) $(UNIT_CFLAGS) $(UNIT_DEFS_$*) $(LDFLAGS) -o $@ $(filter %.c,$^) $(PKG_LIBS)
	$(call deps_of,$(UNIT_CFLAGS) $(UNIT_DEFS_$*))

# Plugins built only for the loader test: one source, one -D set each.
BAD_PLUGIN_DEFS_good         :=
BAD_PLUGIN_DEFS_bad_abi      := -DABI=99
BAD_PLUGIN_DEFS_bad_size     := -DSIZE=8
BAD_PLUGIN_DEFS_big_priv     := -DPRIV=64
BAD_PLUGIN_DEFS_no_packet    := -DPACKET=NULL
BAD_PLUGIN_DEFS_zero_classes := -DNCLS=0
BAD_PLUGIN_DEFS_five_classes := -DNCLS=5
BAD_PLUGIN_DEFS_dup_class    := -DCLS2='"a"'
BAD_PLUGIN_DEFS_wrong_name   := -DDECLARED_NAME='"other"'
BAD_PLUGIN_DEFS_no_symbol    := -DNO_SYMBOL
BAD_PLUGIN_DEFS_missing_dep  := -DMISSING_DEP
BAD_PLUGIN_DEFS_long_timeout := -DTIMEOUT=604801
BAD_PLUGIN_DEFS_mutating     := -DMUTATE
BAD_PLUGIN_DEFS_tcp_udp      := -DPROTOS='CTH_PROTO_TCP|CTH_PROTO_UDP'
BAD_PLUGIN_DEFS_long_class   := -DCLS2='"a_class_name_longer_than_the_kernel_allows"'
BAD_PLUGIN_DEFS_long_name    := -DDECLARED_NAME='"long_name_$(shell printf "%0100d" 0)"'
BAD_PLUGINS := $(patsubst BAD_PLUGIN_DEFS_%,%,$(filter BAD_PLUGIN_DEFS_%,$(.VARIABLES)))

$(B)/tests/bad/%.so: tests/unit/bad_plugin.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fPIC -shared $(SDK_INC) -DNAME='"$*"' \
	  $(BAD_PLUGIN_DEFS_$*) $(LDFLAGS) -o $@ $<
	$(call deps_of,$(ALL_CFLAGS) $(SDK_INC))
	$(PLUGIN_PERMS)

unit: all $(UNIT_TESTS:%=$(B)/tests/%) $(BAD_PLUGINS:%=$(B)/tests/bad/%.so)

unit-asan:
	$(MAKE) B=build-asan CFLAGS="-O1 -g $(SANFLAGS)" unit

# Test-only plugins driven by their payload (tests/host/).
$(B)/tests/plugins/%.so: tests/host/%.c
	@mkdir -p $(dir $@)
	$(CC) $(PLUGIN_CFLAGS) -shared $(LDFLAGS) -o $@ $<
	$(call deps_of,$(PLUGIN_CFLAGS))
	$(PLUGIN_PERMS)
unit: $(B)/tests/plugins/probe.so

# ftp.so as a rebuild that reports another version: tests/ops replaces the
# installed one with it and reloads.
$(B)/tests/ftp-next/ftp.so: $(wildcard plugins/ftp/*.c) $(B)/libcthsdk.a
	@mkdir -p $(dir $@)
	$(CC) $(PLUGIN_CFLAGS) -shared $(LDFLAGS) \
	  -DFTP_PLUGIN_VERSION='"1.0.1-next"' -o $@ $(filter %.c,$^) $(B)/libcthsdk.a
	$(call deps_of,$(PLUGIN_CFLAGS) -DFTP_PLUGIN_VERSION='"1.0.1-next"')
unit: $(B)/tests/ftp-next/ftp.so

# The SDK example built in tree, for its replay cases (tests/replay/).
$(B)/tests/toydata/toydata.so: sdk/examples/toydata/toydata.c $(B)/libcthsdk.a
	@mkdir -p $(dir $@)
	$(CC) $(PLUGIN_CFLAGS) -shared $(LDFLAGS) -o $@ $< $(B)/libcthsdk.a
	$(call deps_of,$(PLUGIN_CFLAGS))
	$(PLUGIN_PERMS)
unit: $(B)/tests/toydata/toydata.so

# The UDP example (sdk/examples/udpback): its .so for the replay cases
# and test_plugtest, and its own unit test linked with the libraries
# `make install` ships, as its Makefile links it out of the tree.
$(B)/tests/udpback/udpback.so: sdk/examples/udpback/udpback.c $(B)/libcthsdk.a
	@mkdir -p $(dir $@)
	$(CC) $(PLUGIN_CFLAGS) -shared $(LDFLAGS) -o $@ $< $(B)/libcthsdk.a
	$(call deps_of,$(PLUGIN_CFLAGS))
	$(PLUGIN_PERMS)
$(B)/tests/test_udpback: sdk/examples/udpback/udpback.c sdk/examples/udpback/udpback-test.c \
  $(B)/libcthelperd-plugtest.a $(B)/libcthsdk.a | $(B)/tests
	$(CC) $(ALL_CFLAGS) $(SDK_INC) $(LDFLAGS) -o $@ $(filter %.c,$^) \
	  $(B)/libcthelperd-plugtest.a $(B)/libcthsdk.a $(PKG_LIBS)
	$(call deps_of,$(ALL_CFLAGS) $(SDK_INC))
unit: $(B)/tests/udpback/udpback.so $(B)/tests/test_udpback

# libFuzzer targets: `make fuzz` (tests/fuzz/fuzz.mk)
include tests/fuzz/fuzz.mk
