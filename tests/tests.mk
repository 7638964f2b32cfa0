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

$(B)/tests/bad/%.so: tests/unit/bad_plugin.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fPIC -shared $(SDK_INC) -DNAME='"$*"' \
	  $(BAD_PLUGIN_DEFS_$*) $(LDFLAGS) -o $@ $<
	$(call deps_of,$(ALL_CFLAGS) $(SDK_INC))
	$(PLUGIN_PERMS)

# ABI 2 descriptors as the loader sees them: the ABI 3 layout cut after
# packet (what is past that size, here nonsense, is never read)
BAD_PLUGIN_DEFS_abi2_prefix  := -DABI=2 -DSIZE='offsetof(struct cth_plugin_desc, keys)' -DABI3_GARBAGE
BAD_PLUGIN_DEFS_abi2_size    := -DABI=2
BAD_PLUGIN_DEFS_abi3_short   := -DSIZE='offsetof(struct cth_plugin_desc, keys)'
BAD_PLUGINS := $(patsubst BAD_PLUGIN_DEFS_%,%,$(filter BAD_PLUGIN_DEFS_%,$(.VARIABLES)))

# The SDK 3 test plugin (tests/unit/sdk3_plugin.c): sdk3 as it is, the
# others each with one declaration the loader refuses (k_: keys, c_:
# counters, p_: state version), or one default only an instance finds bad.
SDK3_PLUGIN_DEFS_sdk3           :=
SDK3_PLUGIN_DEFS_k_dup          := -DDUP_KEY
SDK3_PLUGIN_DEFS_k_daemon       := -DDAEMON_KEY
SDK3_PLUGIN_DEFS_k_type         := -DBAD_TYPE
SDK3_PLUGIN_DEFS_k_name         := -DFLAG_NAME='"Flag"'
SDK3_PLUGIN_DEFS_k_long         := -DLONG_NAME
SDK3_PLUGIN_DEFS_k_ports_max    := -DPORTS_MAX=17
SDK3_PLUGIN_DEFS_k_uint_range   := -DUINT_MIN=101
SDK3_PLUGIN_DEFS_k_no_choice    := -DNO_CHOICES
SDK3_PLUGIN_DEFS_k_many_choices := -DTOO_MANY_CHOICES
SDK3_PLUGIN_DEFS_k_string_max   := -DSTRING_MAX=256
SDK3_PLUGIN_DEFS_k_offset       := -DLABEL_OFFSET='(sizeof(struct sdk3_config) - 4)'
SDK3_PLUGIN_DEFS_k_rule_twice   := -DRULE_TWICE
SDK3_PLUGIN_DEFS_k_rule_type    := -DLABEL_FLAGS=CTH_KEY_RULE_PORTS
SDK3_PLUGIN_DEFS_k_custom       := -DCONFIGURE=NULL
SDK3_PLUGIN_DEFS_k_default      := -DLEVEL_DEF='"1000"'
SDK3_PLUGIN_DEFS_k_too_many     := -DN_KEYS=33
SDK3_PLUGIN_DEFS_c_too_many     := -DN_COUNTERS=17
SDK3_PLUGIN_DEFS_c_dup          := -DCOUNTER2='"packets"'
SDK3_PLUGIN_DEFS_c_name         := -DCOUNTER2='"Bytes"'
SDK3_PLUGIN_DEFS_p_at           := -DPRIV_AT=8
SDK3_PLUGIN_DEFS_p_valid        := -DPRIV_VERSION=0
SDK3_PLUGIN_DEFS_custom_def     := -DCUSTOM_DEF='"X"'
SDK3_PLUGINS := $(patsubst SDK3_PLUGIN_DEFS_%,%,$(filter SDK3_PLUGIN_DEFS_%,$(.VARIABLES)))

$(B)/tests/sdk3/%.so: tests/unit/sdk3_plugin.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fPIC -shared $(SDK_INC) -Itests/unit -DNAME='"$*"' \
	  $(SDK3_PLUGIN_DEFS_$*) $(LDFLAGS) -o $@ $<
	$(call deps_of,$(ALL_CFLAGS) $(SDK_INC) -Itests/unit)
	$(PLUGIN_PERMS)

unit: all $(UNIT_TESTS:%=$(B)/tests/%) $(BAD_PLUGINS:%=$(B)/tests/bad/%.so) \
      $(SDK3_PLUGINS:%=$(B)/tests/sdk3/%.so)

unit-asan:
	$(MAKE) B=build-asan CFLAGS="-O1 -g $(SANFLAGS)" unit

# Test-only plugins driven by their payload (tests/host/).
$(B)/tests/plugins/%.so: tests/host/%.c
	@mkdir -p $(dir $@)
	$(CC) $(PLUGIN_CFLAGS) -shared $(LDFLAGS) -o $@ $<
	$(call deps_of,$(PLUGIN_CFLAGS))
	$(PLUGIN_PERMS)
unit: $(B)/tests/plugins/probe.so
# The hostile plugin of the sandbox suite (tests/sandbox/README.md): the
# same directory, so one plugin_dir serves both test plugins.
$(B)/tests/plugins/%.so: tests/sandbox/%.c
	@mkdir -p $(dir $@)
	$(CC) $(PLUGIN_CFLAGS) -shared $(LDFLAGS) -o $@ $<
	$(call deps_of,$(PLUGIN_CFLAGS))
	$(PLUGIN_PERMS)
unit: $(B)/tests/plugins/hostile.so
# The plugin whose constructor allocates (tests/unit/ctoralloc.c): the
# sandbox's address-space limit before the load (test_confine, test_sandbox).
$(B)/tests/plugins/ctoralloc.so: tests/unit/ctoralloc.c
	@mkdir -p $(dir $@)
	$(CC) $(PLUGIN_CFLAGS) -shared $(LDFLAGS) -o $@ $<
	$(call deps_of,$(PLUGIN_CFLAGS))
	$(PLUGIN_PERMS)
unit: $(B)/tests/plugins/ctoralloc.so
# tests/sandbox/ctor.c: its constructor says whether it ran in the daemon
# (test_describe.c).
unit: $(B)/tests/plugins/ctor.so

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

# A plugin built against the ABI 2 SDK (tests/abi2/README.md): the frozen
# example against the frozen headers (not sdk/include), today's library.
$(B)/tests/abi2/toydata.so: tests/abi2/toydata_abi2.c $(B)/libcthsdk.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fPIC -fvisibility=hidden -Itests/abi2 -shared $(LDFLAGS) \
	  -Wl,-z,defs -Wl,--no-undefined -o $@ $< $(B)/libcthsdk.a
	$(call deps_of,$(ALL_CFLAGS) -Itests/abi2)
	$(PLUGIN_PERMS)
unit: $(B)/tests/abi2/toydata.so

# The replay's NAT check plugins (tests/replay/replay.mk)
include tests/replay/replay.mk

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
