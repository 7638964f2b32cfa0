# libFuzzer targets (clang): tests/fuzz/fuzz_NAME.c, linked with the sources
# in FUZZ_SRC_fuzz_NAME.  `make fuzz` builds $(B)/fuzz/fuzz_*; tests/run.sh
# runs each briefly from its seed corpus, tests/fuzz/corpus/fuzz_NAME/.
FUZZ_CC      ?= clang
FUZZ_FLAGS   ?= -O1 -g -fsanitize=fuzzer,address,undefined \
                -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_TARGETS := $(filter-out fuzz_replay,$(notdir $(basename $(wildcard tests/fuzz/fuzz_*.c))))
FUZZ_HOST_SRC := server/host/call.c server/host/link.c server/host/packet.c server/host/edit.c server/host/keep.c \
                 server/host/inflight.c server/runtime/guard.c server/base/log.c
# a plugin's declared keys, defaults and settings through the daemon's
# parser (fuzz_hostpath.h fz_instance_init(), fz_configure())
FUZZ_KEYS_SRC := server/runtime/keys.c server/runtime/config.c server/runtime/config_helper.c \
                 server/runtime/config_shards.c
FUZZ_SRC_fuzz_host := $(FUZZ_HOST_SRC)
FUZZ_SRC_fuzz_ftp  := $(FUZZ_HOST_SRC) $(FUZZ_KEYS_SRC) plugins/ftp/ftp.c plugins/ftp/ftp_parse.c \
                      sdk/lib/util.c
FUZZ_CFLAGS = $(ALL_CPPFLAGS) $(FUZZ_FLAGS) -std=gnu11 $(CWARN) \
              $(SDK_INC) -Iserver -Itests/fuzz $(PKG_CFLAGS) \
              -DCTH_PLUGIN_DIR='"$(PLUGIN_DIR)"'

.PHONY: fuzz
fuzz: $(FUZZ_TARGETS:%=$(B)/fuzz/%)

$(B)/fuzz/%: tests/fuzz/%.c $$(FUZZ_SRC_$$*)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(LDFLAGS) -o $@ $(filter %.c,$^) $(PKG_LIBS)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -MM -MP -MT $@ -MF $@.d $(filter %.c,$^)
FUZZ_SRC_fuzz_qmsg := $(FUZZ_HOST_SRC) server/worker/qmsg.c
FUZZ_SRC_fuzz_sip := $(FUZZ_HOST_SRC) $(FUZZ_KEYS_SRC) plugins/sip/sip.c plugins/sip/sip_parse.c plugins/sip/sip_sdp.c \
                     plugins/sip/sip_media.c plugins/sip/sip_nat.c sdk/lib/util.c $(wildcard plugins/sip/*.h)
FUZZ_SRC_fuzz_tns := $(FUZZ_HOST_SRC) $(FUZZ_KEYS_SRC) $(sort $(wildcard plugins/tns/*.c)) sdk/lib/util.c
FUZZ_SRC_fuzz_rpc := $(FUZZ_HOST_SRC) $(FUZZ_KEYS_SRC) $(sort $(wildcard plugins/rpc/*.c)) sdk/lib/util.c
FUZZ_SRC_fuzz_tftp := $(FUZZ_HOST_SRC) $(FUZZ_KEYS_SRC) $(sort $(wildcard plugins/tftp/*.c)) sdk/lib/util.c
FUZZ_SRC_fuzz_ssdp := $(FUZZ_HOST_SRC) $(FUZZ_KEYS_SRC) $(sort $(wildcard plugins/ssdp/*.c)) sdk/lib/util.c
FUZZ_SRC_fuzz_rtsp := $(FUZZ_HOST_SRC) $(FUZZ_KEYS_SRC) $(sort $(wildcard plugins/rtsp/*.c)) sdk/lib/util.c \
                      $(wildcard plugins/rtsp/*.h)
FUZZ_SRC_fuzz_irc := $(FUZZ_HOST_SRC) $(FUZZ_KEYS_SRC) $(sort $(wildcard plugins/irc/*.c)) sdk/lib/util.c \
                     $(wildcard plugins/irc/*.h)
# amanda and sane on the plugin kit's driver (cth_plugtest_fuzz(), plugtest/;
# "=": PLUGTEST_SRC is set later)
FUZZ_SRC_fuzz_amanda = $(PLUGTEST_SRC) $(sort $(wildcard plugins/amanda/*.c)) sdk/lib/util.c \
                       $(wildcard plugins/amanda/*.h)
FUZZ_SRC_fuzz_sane = $(PLUGTEST_SRC) $(sort $(wildcard plugins/sane/*.c)) sdk/lib/util.c \
                     $(wildcard plugins/sane/*.h)
# the helpers of queries to a group or broadcast address (fuzz_lanq.h):
# the real plugin through the plugin kit's harness; "=": PLUGTEST_SRC is
# set after this file is read
FUZZ_LANQ_SRC = sdk/lib/util.c $(PLUGTEST_SRC) tests/fuzz/fuzz_lanq.h
FUZZ_SRC_fuzz_mdns = $(sort $(wildcard plugins/mdns/*.c plugins/mdns/*.h)) $(FUZZ_LANQ_SRC)
FUZZ_SRC_fuzz_slp = $(sort $(wildcard plugins/slp/*.c plugins/slp/*.h)) $(FUZZ_LANQ_SRC)
FUZZ_SRC_fuzz_dhcpv6 = $(sort $(wildcard plugins/dhcpv6/*.c plugins/dhcpv6/*.h)) $(FUZZ_LANQ_SRC)
FUZZ_SRC_fuzz_netbios_ns = $(sort $(wildcard plugins/netbios-ns/*.c plugins/netbios-ns/*.h)) \
                           $(FUZZ_LANQ_SRC)

# fuzz_replay.c, once per plugin: fuzz_replay_PLUGIN is a whole capture
# through the replay's engine (replay/ but main.c) with the plugin
# linked in.  FUZZ_REPLAY_DEFS_PLUGIN: its usual port(s) (FZR_PORT) and
# the "key=value" settings the input's knobs switch on (FZR_OPTS).  Seeds:
# tests/fuzz/corpus/fuzz_replay_PLUGIN/ (crash regressions) and the replay
# cases' captures, tests/replay/cases/PLUGIN/*.pcap (tests/run.sh).
FUZZ_REPLAY := ftp sip tns rpc tftp rtsp irc ssdp toydata
FUZZ_REPLAY_SRC := $(filter-out replay/main.c,$(sort $(wildcard replay/*.c))) \
                   $(FUZZ_HOST_SRC) $(FUZZ_KEYS_SRC) sdk/lib/util.c $(wildcard replay/*.h)
FUZZ_REPLAY_PLUGIN_ftp     := $(wildcard plugins/ftp/*.c plugins/ftp/*.h)
FUZZ_REPLAY_PLUGIN_sip     := $(wildcard plugins/sip/*.c plugins/sip/*.h)
FUZZ_REPLAY_PLUGIN_tns     := $(wildcard plugins/tns/*.c plugins/tns/*.h)
FUZZ_REPLAY_PLUGIN_rpc     := $(wildcard plugins/rpc/*.c plugins/rpc/*.h)
FUZZ_REPLAY_PLUGIN_tftp    := $(wildcard plugins/tftp/*.c plugins/tftp/*.h)
FUZZ_REPLAY_PLUGIN_rtsp    := $(wildcard plugins/rtsp/*.c plugins/rtsp/*.h)
FUZZ_REPLAY_PLUGIN_irc     := $(wildcard plugins/irc/*.c plugins/irc/*.h)
FUZZ_REPLAY_PLUGIN_ssdp    := $(wildcard plugins/ssdp/*.c plugins/ssdp/*.h)
FUZZ_REPLAY_PLUGIN_toydata := sdk/examples/toydata/toydata.c
FUZZ_REPLAY_DEFS_ftp     := -DFZR_PORT=21 -DFZR_OPTS='"loose=yes"'
FUZZ_REPLAY_DEFS_sip     := -DFZR_PORT=5060 \
                            -DFZR_OPTS='"sip_direct_media=no","sip_direct_signalling=no"'
FUZZ_REPLAY_DEFS_tns     := -DFZR_PORT=1521 -DFZR_OPTS='"tns_detach=no"'
FUZZ_REPLAY_DEFS_rpc     := -DFZR_PORT=111 -DFZR_OPTS='"permanent=yes"'
FUZZ_REPLAY_DEFS_tftp    := -DFZR_PORT=69
FUZZ_REPLAY_DEFS_rtsp    := -DFZR_PORT=554 -DFZR_OPTS='"third_party=yes","reverse=no"'
FUZZ_REPLAY_DEFS_irc     := -DFZR_PORT=6667
FUZZ_REPLAY_DEFS_ssdp    := -DFZR_PORT=1900 -DFZR_OPTS='"answers=any","location_own=no"'
FUZZ_REPLAY_DEFS_toydata := -DFZR_PORT=7000 -DFZR_OPTS='"min_port=1024"'
FUZZ_REPLAY_LIBS = $(call pkg,--libs,libpcap)
fuzz: $(FUZZ_REPLAY:%=$(B)/fuzz/fuzz_replay_%)

# a static pattern: the targets' own .d files (included by the Makefile)
# must not match it, or make would try to build them as fuzz_replay_NAME.d
$(FUZZ_REPLAY:%=$(B)/fuzz/fuzz_replay_%): $(B)/fuzz/fuzz_replay_%: tests/fuzz/fuzz_replay.c \
  $(FUZZ_REPLAY_SRC) $$(FUZZ_REPLAY_PLUGIN_$$*)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Ireplay $(FUZZ_REPLAY_DEFS_$*) $(LDFLAGS) -o $@ $(filter %.c,$^) \
	  $(PKG_LIBS) $(FUZZ_REPLAY_LIBS)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Ireplay $(FUZZ_REPLAY_DEFS_$*) -MM -MP -MT $@ -MF $@.d $(filter %.c,$^)
FUZZ_SRC_fuzz_record := server/kernel/record.c
# The worker's expectation backend and detach glue against the emulated
# kernel table of the unit tests (tests/unit/nlfake.c in place of nlreq.c).
FUZZ_SRC_fuzz_wexpect := server/worker/worker_expect.c server/worker/worker_detach.c \
                         server/worker/worker_kreq.c server/worker/worker_verdict.c \
                         server/worker/verdict.c server/worker/vbatch.c server/worker/detach.c \
                         server/kernel/expect.c $(FUZZ_HOST_SRC) tests/unit/nlfake.c tests/unit/nlfake.h
# exprepair.c's event path against the emulated kernel (nlfake.c for nlreq.c)
FUZZ_SRC_fuzz_exprepair := server/kernel/exprepair.c server/kernel/portids.c server/kernel/expect.c server/runtime/guard.c \
                           server/runtime/runtime.c server/runtime/loader.c server/runtime/keys.c server/runtime/dlfresh.c server/runtime/config.c server/runtime/config_load.c server/runtime/config_server.c server/runtime/config_helper.c server/runtime/config_shards.c \
                           server/base/log.c tests/unit/nlfake.c tests/unit/nlfake.h
# the whole configuration path: parse, shards, checks, a reload's plan
FUZZ_SRC_fuzz_config := server/runtime/config.c server/runtime/config_load.c server/runtime/config_server.c server/runtime/config_helper.c server/runtime/config_shards.c server/runtime/guard.c server/kernel/record.c server/daemon/reload_plan.c \
                        server/runtime/dlfresh.c server/base/strbuf.c server/base/log.c

# The plugin kit's libFuzzer driver (cth_plugtest_fuzz(), plugtest/) as an
# author's target uses it: sdk/examples/NAME/NAME-fuzz.c with the example
# linked in, here with the harness's sources (the daemon's host code)
# instrumented too.  Seeds: sdk/examples/NAME/fuzz-seeds/ (tests/run.sh).
FUZZ_KIT := udpback
fuzz: $(FUZZ_KIT:%=$(B)/fuzz/fuzz_kit_%)
$(FUZZ_KIT:%=$(B)/fuzz/fuzz_kit_%): $(B)/fuzz/fuzz_kit_%: sdk/examples/%/$$*-fuzz.c \
  sdk/examples/%/$$*.c sdk/lib/util.c $(PLUGTEST_SRC)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Iplugtest $(LDFLAGS) -o $@ $(filter %.c,$^) \
	  $(PKG_LIBS)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Iplugtest -MM -MP -MT $@ -MF $@.d $(filter %.c,$^)
# The worker's check of a sandbox's turn (server/sandbox/chan_check.c) on
# the host's functions: the input is what the sandbox writes back.
FUZZ_SRC_fuzz_chan := $(FUZZ_HOST_SRC) server/sandbox/chan_check.c server/sandbox/chan.c
# The daemon's adoption of a described plugin (server/sandbox/describe_wire.c)
# and the loader's checks: the input patches what a sandbox answers.
FUZZ_SRC_fuzz_describe := server/sandbox/describe_wire.c server/runtime/loader.c \
                          server/runtime/dlfresh.c $(FUZZ_KEYS_SRC) server/runtime/guard.c \
                          server/base/log.c
# kmod/'s packet filter (issue 34): the module's own header, nothing linked
FUZZ_SRC_fuzz_match := kmod/cthd_match.h
