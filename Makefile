# cthelperd — one top-level build.  See README.md.
#
#   make            build/cthelperd, cthelperctl, cthelper-replay, plugins/*.so, libcthsdk.a
#   make deps       install every Debian package needed (build, test, demo)
#   make check      whole test suite (unit, sanitizers, VM end-to-end)
#   make demo       FTP through a firewall in the VM with cthelperd as helper
#   make fuzz       libFuzzer targets (clang) into build/fuzz/, see tests/fuzz/

CC       ?= cc
# PKGS are linked; PKGS_DLOPEN only lend their headers: the daemon loads
# them with dlopen() when a feature needs them (server/base/dynlib.h),
# since a linked library costs its RSS at every start, used or not
PKGS        := libmnl libnetfilter_queue libnetfilter_conntrack inih libcap-ng
PKGS_DLOPEN := libmicrohttpd libsystemd
# Warnings are errors for developers and CI; a distributor builds with
# `make WERROR=` (a newer compiler's new warning must not break a package).
WERROR   ?= -Werror
CWARN    := -Wall -Wextra $(WERROR) -Wshadow -Wstrict-prototypes \
            -Wmissing-prototypes -Wpointer-arith -Wformat=2 -Wvla
# CFLAGS, CPPFLAGS and LDFLAGS are the builder's (optimisation,
# sanitizers, a distribution's hardening flags) and reach every binary,
# plugin and test; warnings and the language level always apply.
CFLAGS   ?= -O2 -g
ALL_CPPFLAGS = $(CPPFLAGS) -D_GNU_SOURCE
ALL_CFLAGS   = $(ALL_CPPFLAGS) $(CFLAGS) -std=gnu11 $(CWARN)
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all \
            -fno-omit-frame-pointer
B        ?= build
SDK_INC  := -Isdk/include

# The version has one home, debian/changelog's first entry: its upstream
# part (no epoch, no Debian revision) unless VERSION is given.  Read with
# sed, so `make` needs no Debian tools.  kmod/dkms.conf cannot read it
# (DKMS parses that file itself) and repeats it: the build stops when the
# two differ.
# "cthelperd (1:0.2.0-1) unstable; ..." gives 0.2.0
CHANGELOG_SED := 1{s/^[^ ]* [(]\([0-9]*:\)\{0,1\}\([^ ]*\)[)] .*/\2/;s/-[^-]*$$//;p;}
CHANGELOG_VERSION := $(shell sed -n '$(CHANGELOG_SED)' debian/changelog 2>/dev/null)
DKMS_VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"$$/\1/p' kmod/dkms.conf 2>/dev/null)
ifeq ($(CHANGELOG_VERSION),)
$(error cannot read the version from debian/changelog's first line)
endif
ifneq ($(CHANGELOG_VERSION),$(DKMS_VERSION))
$(error version mismatch: debian/changelog says $(CHANGELOG_VERSION), kmod/dkms.conf's \
  PACKAGE_VERSION says "$(DKMS_VERSION)": set PACKAGE_VERSION to $(CHANGELOG_VERSION))
endif
VERSION    ?= $(CHANGELOG_VERSION)
# Compiled in as defaults and used by `make install`: one set of paths,
# each overridable on the command line (make PREFIX=/usr SYSCONFDIR=...).
# PREFIX=/usr is a distribution's layout (FHS): the configuration goes
# to /etc and /var, not /usr/etc; any other PREFIX keeps its own etc/
# and var/.  RUNSTATEDIR is /run whatever the PREFIX: what lives there
# (control socket, runtime_dir, share_dir) is per boot, and the systemd
# unit's RuntimeDirectory= is under /run.  SYSCONF is the older name of
# SYSCONFDIR, still honoured.
PREFIX     ?= /usr/local
SBINDIR    ?= $(PREFIX)/sbin
BINDIR     ?= $(PREFIX)/bin
PLUGIN_DIR ?= $(PREFIX)/lib/cthelperd
FHS_USR    := $(filter /usr /usr/,$(PREFIX))
SYSCONF    ?= $(if $(FHS_USR),/etc,$(PREFIX)/etc)
SYSCONFDIR ?= $(SYSCONF)
LOCALSTATEDIR ?= $(if $(FHS_USR),/var,$(PREFIX)/var)
RUNSTATEDIR ?= /run
DATADIR    ?= $(PREFIX)/share
MANDIR     ?= $(DATADIR)/man
UNITDIR    ?= $(PREFIX)/lib/systemd/system
INCLUDEDIR ?= $(PREFIX)/include
LIBDIR     ?= $(PREFIX)/lib
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
# the plugin author's kit: examples, the skeleton cthelper-new-plugin
# copies, the kit's README (sdk/README.md)
KITDIR     ?= $(DATADIR)/cthelperd-sdk

# The paths compiled into the daemon, cthelperctl and the tests, one
# NAME=VALUE a line in $(B)/paths: written when a build runs with other
# ones (their objects depend on it, so they are rebuilt), read by `make
# install`, which builds nothing and refuses paths the build did not use.
BUILD_PATHS = SYSCONFDIR=$(SYSCONFDIR) PLUGIN_DIR=$(PLUGIN_DIR) RUNSTATEDIR=$(RUNSTATEDIR)
PATHS_STAMP := $(B)/paths
ifneq ($(filter-out install uninstall clean deps,$(or $(MAKECMDGOALS),all)),)
$(shell mkdir -p $(B) && printf '%s\n' $(BUILD_PATHS) >$(PATHS_STAMP).new && \
  { cmp -s $(PATHS_STAMP).new $(PATHS_STAMP) && rm -f $(PATHS_STAMP).new || \
    mv -f $(PATHS_STAMP).new $(PATHS_STAMP); })
endif

# server/ by concern, dependencies one way (tests/layers.sh checks them;
# docs/architecture.md "Source map" says what each holds)
SERVER_SRC := $(sort $(wildcard server/*/*.c))
# what the replay tool links: the plugin host and what it stands on
HOST_SRC   := $(sort $(wildcard server/base/*.c server/runtime/*.c server/host/*.c))
SDK_SRC    := $(sort $(wildcard sdk/lib/*.c))
PLUGINS    := $(notdir $(patsubst %/,%,$(sort $(dir $(wildcard plugins/*/*.c)))))

# $(call pkg,FLAGS,PACKAGES): pkg-config's answer, or the build stops
# naming the packages it cannot find.  Expanded only when a recipe needs
# it, after `make deps` (in `make deps check`) has installed them.
pkg_missing = $(strip $(foreach p,$(1),$(if $(shell pkg-config --exists $(p) && echo y),,$(p))))
pkg = $(if $(call pkg_missing,$(2)),$(error pkg-config cannot find: $(call pkg_missing,$(2)) \
        (run `make deps` as root, or install their -dev packages)),$(shell pkg-config $(1) $(2)))
# each asked of pkg-config once, when first used
PKG_CFLAGS = $(eval PKG_CFLAGS := $(call pkg,--cflags,$(PKGS) $(PKGS_DLOPEN)))$(PKG_CFLAGS)
PKG_LIBS   = $(eval PKG_LIBS := $(call pkg,--libs,$(PKGS)) -lev -ldl -lpthread)$(PKG_LIBS)
# A target built from several sources in one command (a plugin, a test)
# gets its header dependencies from a second, preprocessor-only pass:
# -MMD there would write one .d per command, the last source's, and so
# would -MF: the rules of every source go to stdout, and from there to
# $@.d (a target named in several rules gets all their prerequisites).
# $(call deps_of,FLAGS): after the recipe's compile, into $@.d
deps_of = $(CC) $(1) -MM -MP -MT $@ $(filter %.c,$^) >$@.d

.PHONY: all deps check unit unit-asan demo bench clean install uninstall layers
all: $(B)/cthelperd $(B)/cthelperd-sandbox $(B)/cthelperctl $(B)/cthelper-replay $(B)/libcthsdk.a $(PLUGINS:%=$(B)/plugins/%.so) \
     $(B)/libcthelperd-plugtest.a

# --- SDK utility library: linked statically into plugins (PIC) ---------
$(B)/sdk/%.o: sdk/lib/%.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -MMD -MP -fPIC -fvisibility=hidden $(SDK_INC) -c -o $@ $<
$(B)/libcthsdk.a: $(SDK_SRC:sdk/lib/%.c=$(B)/sdk/%.o)
	$(AR) rcs $@ $^

# --- plugins: each only against sdk/ -----------------------------------
# The daemon refuses a plugin whose file or directory is group- or
# world-writable (server/runtime/loader.c): whatever the builder's umask
# (0002 is common), built plugins and their directories are made writable
# by their owner only, so the tests and `make demo` load them.
PLUGIN_PERMS = chmod go-w $@ $(@D)
PLUGIN_CFLAGS = $(ALL_CFLAGS) -fPIC -fvisibility=hidden $(SDK_INC)
.SECONDEXPANSION:
$(B)/plugins/%.so: $$(wildcard plugins/%/*.c) $(B)/libcthsdk.a
	@mkdir -p $(@D)
	$(CC) $(PLUGIN_CFLAGS) -shared $(LDFLAGS) -Wl,-z,defs -Wl,--no-undefined \
	  -o $@ $(filter %.c,$^) $(B)/libcthsdk.a
	$(call deps_of,$(PLUGIN_CFLAGS))
	$(PLUGIN_PERMS)
# --- daemon -------------------------------------------------------------
SERVER_DEFS = -DCTH_VERSION='"$(VERSION)"' -DCTH_PLUGIN_DIR='"$(PLUGIN_DIR)"' \
              -DCTH_DEFAULT_CONFIG='"$(SYSCONFDIR)/cthelperd.conf"' \
              -DCTH_RUNSTATEDIR='"$(RUNSTATEDIR)"' \
              -DCTH_SANDBOX_PROGRAM='"$(PLUGIN_DIR)/cthelperd-sandbox"'
$(B)/server/%.o: server/%.c $(PATHS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -MMD -MP -fvisibility=hidden $(SDK_INC) -Iserver $(PKG_CFLAGS) \
	  $(SERVER_DEFS) -c -o $@ $<
$(B)/cthelperd: $(SERVER_SRC:%.c=$(B)/%.o)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(PKG_LIBS)
# the sandbox program (docs/security.md): the spawner and each helper's
# sandbox run it; the plugin host and the channel, no netlink, no kernel/
SANDBOXD_SRC := $(sort $(wildcard sandboxd/*.c)) server/sandbox/chan.c server/sandbox/confine.c \
                server/sandbox/describe_wire.c
SANDBOXD_LIBS = $(eval SANDBOXD_LIBS := $(call pkg,--libs,inih libcap-ng libnetfilter_queue) -ldl)$(SANDBOXD_LIBS)
$(B)/sandboxd/%.o: sandboxd/%.c $(PATHS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -MMD -MP -fvisibility=hidden $(SDK_INC) -Iserver $(PKG_CFLAGS) \
	  $(SERVER_DEFS) -c -o $@ $<
$(B)/cthelperd-sandbox: $(patsubst %.c,$(B)/%.o,$(SANDBOXD_SRC) $(HOST_SRC))
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(SANDBOXD_LIBS)
# the replay tool: the daemon's plugin host (server/host/ and what it
# stands on) with an emulated kernel (replay/)
REPLAY_SRC  := $(sort $(wildcard replay/*.c))
REPLAY_LIBS  = $(eval REPLAY_LIBS := $(call pkg,--libs,libpcap libnetfilter_queue inih) -ldl)$(REPLAY_LIBS)
$(B)/replay/%.o: replay/%.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -MMD -MP $(SDK_INC) -Iserver $(PKG_CFLAGS) -DCTH_VERSION='"$(VERSION)"' -c -o $@ $<
# --sandbox: the daemon's side of the sandbox (server/sandbox/) too
REPLAY_SANDBOX_SRC := $(sort $(wildcard server/sandbox/*.c))
$(B)/cthelper-replay: $(REPLAY_SRC:%.c=$(B)/%.o) $(HOST_SRC:%.c=$(B)/%.o) \
    $(REPLAY_SANDBOX_SRC:%.c=$(B)/%.o)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(REPLAY_LIBS)
# the replay with ASan+UBSan, which runs a plugin built with them
# (cthelper-replay(1), SANITIZERS): build-asan/cthelper-replay
.PHONY: replay-asan
replay-asan:
	$(MAKE) B=build-asan CFLAGS="-O1 -g $(SANFLAGS)" build-asan/cthelper-replay
# The plugin author's test harness (<cthelperd/plugtest.h>, plugtest/)
# and the daemon's own objects of its host code and loader, and what they
# stand on: one static library that tests and libFuzzer targets out of
# the tree link (cthelperd-plugtest.pc).  A test's settings are parsed by
# the daemon's key parser (keys.c) with the value parsers and [helper]
# key table it uses (config.c, config_helper.c and config_shards.c, which
# that table's setters call; not config_load.c: no inih).  The harness
# checks the packets the host sends with the tests' own code
# (tests/fuzz/pktcheck.h).
PLUGTEST_SRC := $(sort $(wildcard plugtest/*.c server/host/*.c)) server/runtime/loader.c \
                server/runtime/keys.c server/runtime/config.c server/runtime/config_helper.c \
                server/runtime/config_shards.c server/runtime/dlfresh.c \
                server/runtime/guard.c server/runtime/stats.c server/base/log.c
$(B)/plugtest/%.o: plugtest/%.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -MMD -MP $(SDK_INC) -Iserver -Iplugtest -Itests/fuzz $(PKG_CFLAGS) \
	  -c -o $@ $<
$(B)/libcthelperd-plugtest.a: $(patsubst %.c,$(B)/%.o,$(PLUGTEST_SRC))
	$(AR) rcs $@ $^
# the control client: the socket protocol only, nothing of the daemon
$(B)/cthelperctl: ctl/cthelperctl.c $(PATHS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -MMD -MP -DCTH_RUNSTATEDIR='"$(RUNSTATEDIR)"' $(LDFLAGS) -o $@ $<

# every .d the rules above wrote (a missing header is then a rebuild, not an
# error); files only: a directory may end in .d too (a unit's drop-in dir)
-include $(shell find $(B) -name '*.d' -type f 2>/dev/null)

# The include rules between server/'s folders, the replay tool, the SDK
# and the plugins (tests/layers.sh); part of `make check`.
layers:
	tests/layers.sh


$(B) $(B)/tests:
	mkdir -p $@

# --- tests --------------------------------------------------------------
include tests/tests.mk

deps:
	tests/deps.sh

check: all
	tests/run.sh

demo: all
	tests/vm/demo.sh

# issue 17: ratios measured in one VM run, never asserted (tests/bench/README.md)
BENCH_BIN := $(B)/bench/cthbench-floor $(B)/bench/cthbench-load
$(B)/bench:
	mkdir -p $@
$(B)/bench/cthbench-%: tests/bench/%.c | $(B)/bench
	$(CC) $(ALL_CFLAGS) -MMD -MP $(PKG_CFLAGS) $(LDFLAGS) -o $@ $< $(PKG_LIBS)
bench: all $(BENCH_BIN)
	CTH_BUILD=$(B) tests/bench/run.sh

# issue 32: a packet sandboxed vs in process, host only, in seconds
# (tests/bench/chanbench.c); the sources are test_sandbox's
$(B)/bench/cthbench-chan: tests/bench/chanbench.c $(UNIT_SRC_test_sandbox) $(PATHS_STAMP) | $(B)/bench
	$(CC) $(UNIT_CFLAGS) $(LDFLAGS) -o $@ $(filter %.c,$^) $(PKG_LIBS)
	$(call deps_of,$(UNIT_CFLAGS))
# built with the unit tests, so that a change to what it calls breaks the build
unit: $(B)/bench/cthbench-chan
# tests/e2e's scale case holds many FTP sessions with it (issue 34)
unit: $(B)/bench/cthbench-load
.PHONY: bench-chan
bench-chan: all $(B)/bench/cthbench-chan
	CTH_BUILD=$(B) $(B)/bench/cthbench-chan
# the same inside the test VM (TCG), as it comes and on one vCPU
.PHONY: bench-chan-vm
bench-chan-vm: all $(B)/bench/cthbench-chan
	VM_PASS_ENV=CTH_BUILD CTH_BUILD=$(B) tests/vm/run.sh --timeout 1500 tests/bench/chanvm.sh

# instructions per plugin call under callgrind, host only (tests/bench/README.md)
.PHONY: bench-callgrind
bench-callgrind: all
	tests/bench/callgrind.sh $(B)

clean:
	rm -rf $(B) build-asan build-kit build-deb

# --- install ------------------------------------------------------------
# after `make clean all` (the parse wrote it before clean ran)
$(PATHS_STAMP):
	@mkdir -p $(@D)
	printf '%s\n' $(BUILD_PATHS) >$@

# Installs what $(B) holds and builds nothing: `make install B=build-asan`
# must not rebuild the sanitizer build with other CFLAGS.  So it refuses
# to install a build made for other paths than its own ($(B)/paths): the
# daemon would look for its configuration and plugins where they are not.
# Optional parts (cthelperctl, the systemd unit) are installed when they
# exist.  An existing cthelperd.conf is the operator's and is never
# overwritten: the example then goes next to it as cthelperd.conf.example.
INSTALL      ?= install
INST_SBIN    := $(B)/cthelperd $(wildcard $(B)/cthelperctl)
# the replay tool is a developer's: not in sbin
INST_BIN     := $(wildcard $(B)/cthelper-replay)
INST_PLUGINS := $(PLUGINS:%=$(B)/plugins/%.so)
INST_MAN8    := $(wildcard docs/man/*.8)
INST_MAN5    := $(wildcard docs/man/*.5)
INST_MAN1    := $(wildcard docs/man/*.1)
INST_UNIT    := $(wildcard conf/cthelperd.service)
INST_SDK_H   := $(wildcard sdk/include/cthelperd/*.h)
INST_SDK_PC  := cthelperd-sdk cthelperd-plugtest
# The plugin author's kit (sdk/README.md): its tools in BINDIR, the rest
# under KITDIR as under sdk/ (examples/NAME/, skeleton/): the sources,
# descriptions, captures and goldens of each example, nothing built.
INST_KIT_BIN := sdk/tools/cthelper-mkpcap sdk/tools/cthelper-new-plugin
INST_KIT     := sdk/README.md sdk/TUTORIAL.md $(wildcard sdk/skeleton/*) \
                $(wildcard $(addprefix sdk/examples/*/,*.c *.h *.md *.conv *.pcap *.expect Makefile) \
                           sdk/examples/*/fuzz-seeds/*)
# the plugin ABI the SDK's header declares, for cthelperd-sdk.pc
SDK_ABI      := $(shell sed -n 's/^\#define CTH_ABI_VERSION \([0-9]*\)u$$/\1/p' sdk/include/cthelperd/plugin.h)
PC_SED       := -e 's|@PREFIX@|$(PREFIX)|' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' \
                -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@PLUGIN_DIR@|$(PLUGIN_DIR)|' \
                -e 's|@ABI@|$(SDK_ABI)|' -e 's|@VERSION@|$(VERSION)|' \
                -e 's|@BINDIR@|$(BINDIR)|' -e 's|@SBINDIR@|$(SBINDIR)|' \
                -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|' -e 's|@KITDIR@|$(KITDIR)|'
# the example's plugin_dir is the build tree's, and the docs name the
# default paths: the installed copies name the configured ones
INST_SED     := -e 's|^plugin_dir *=.*|plugin_dir = $(PLUGIN_DIR)|' \
                -e 's|/usr/local/sbin|$(SBINDIR)|g' -e 's|/usr/local/bin|$(BINDIR)|g' \
                -e 's|/usr/local/etc|$(SYSCONFDIR)|g' \
                -e 's|/usr/local/lib/cthelperd|$(PLUGIN_DIR)|g' \
                -e 's|/usr/local/share/cthelperd-sdk|$(KITDIR)|g' \
                -e 's|/usr/local/lib/systemd/system|$(UNITDIR)|g' \
                -e 's|/run/cthelperd|$(RUNSTATEDIR)/cthelperd|g'
CONF_DEST     = $(DESTDIR)$(SYSCONFDIR)/cthelperd.conf

install:
	@if ! printf '%s\n' $(BUILD_PATHS) | cmp -s - $(PATHS_STAMP); then \
	  echo "install: $(B) was built for other paths than this install's:" >&2; \
	  echo "  built for: $$(tr '\n' ' ' <$(PATHS_STAMP) 2>/dev/null || echo '(not recorded)')" >&2; \
	  echo "  installing: $(BUILD_PATHS)" >&2; \
	  echo "its daemon would look for its configuration and plugins where they are not." >&2; \
	  echo "Build with the install's paths, then install:" >&2; \
	  echo "  make B=$(B) PREFIX=$(PREFIX) && make B=$(B) PREFIX=$(PREFIX) install" >&2; \
	  echo "(with the same SYSCONFDIR, PLUGIN_DIR, RUNSTATEDIR if you set them)" >&2; \
	  exit 1; fi
	@for f in $(INST_SBIN) $(B)/cthelperd-sandbox $(INST_PLUGINS) $(B)/libcthsdk.a $(B)/libcthelperd-plugtest.a; do \
	  [ -f "$$f" ] || { echo "install: $$f missing: run make B=$(B) first" >&2; exit 1; }; done
	$(INSTALL) -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(PLUGIN_DIR) $(DESTDIR)$(SYSCONFDIR) \
	  $(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man1 \
	  $(DESTDIR)$(BINDIR)
	$(INSTALL) -m 0755 $(INST_SBIN) $(DESTDIR)$(SBINDIR)/
ifneq ($(INST_BIN),)
	$(INSTALL) -m 0755 $(INST_BIN) $(DESTDIR)$(BINDIR)/
endif
	$(INSTALL) -m 0644 $(INST_PLUGINS) $(DESTDIR)$(PLUGIN_DIR)/
	$(INSTALL) -m 0755 $(B)/cthelperd-sandbox $(DESTDIR)$(PLUGIN_DIR)/
	@for m in $(INST_MAN8) $(INST_MAN5) $(INST_MAN1); do \
	  d=$(DESTDIR)$(MANDIR)/man$${m##*.}/$${m##*/}; echo "sed ... $$m > $$d"; \
	  sed $(INST_SED) $$m > $$d && chmod 0644 $$d || exit 1; done
	sed $(INST_SED) conf/cthelperd.conf > $(CONF_DEST).new
	@if [ -e $(CONF_DEST) ]; then \
	  mv -f $(CONF_DEST).new $(CONF_DEST).example; chmod 0644 $(CONF_DEST).example; \
	  echo "install: kept $(CONF_DEST); the example is $(CONF_DEST).example"; \
	else mv -f $(CONF_DEST).new $(CONF_DEST); chmod 0644 $(CONF_DEST); fi
	$(INSTALL) -d $(DESTDIR)$(INCLUDEDIR)/cthelperd $(DESTDIR)$(LIBDIR) $(DESTDIR)$(PKGCONFIGDIR)
	$(INSTALL) -m 0644 $(INST_SDK_H) $(DESTDIR)$(INCLUDEDIR)/cthelperd/
	$(INSTALL) -m 0644 $(B)/libcthsdk.a $(B)/libcthelperd-plugtest.a $(DESTDIR)$(LIBDIR)/
	@for p in $(INST_SDK_PC); do d=$(DESTDIR)$(PKGCONFIGDIR)/$$p.pc; \
	  echo "sed ... sdk/$$p.pc.in > $$d"; \
	  sed $(PC_SED) sdk/$$p.pc.in > $$d && chmod 0644 $$d || exit 1; done
	sed -e 's|@KITDIR@|$(KITDIR)|' sdk/tools/cthelper-new-plugin > $(DESTDIR)$(BINDIR)/cthelper-new-plugin
	chmod 0755 $(DESTDIR)$(BINDIR)/cthelper-new-plugin
	$(INSTALL) -m 0755 sdk/tools/cthelper-mkpcap $(DESTDIR)$(BINDIR)/
	@for f in $(INST_KIT); do d=$(DESTDIR)$(KITDIR)/$${f#sdk/}; \
	  $(INSTALL) -d $${d%/*} && $(INSTALL) -m 0644 $$f $$d || exit 1; done
	sed $(INST_SED) sdk/README.md > $(DESTDIR)$(KITDIR)/README.md
	@echo "install: the plugin kit in $(DESTDIR)$(KITDIR)"
ifneq ($(INST_UNIT),)
	$(INSTALL) -d $(DESTDIR)$(UNITDIR)
	sed $(INST_SED) $(INST_UNIT) > $(DESTDIR)$(UNITDIR)/cthelperd.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/cthelperd.service
endif

# cthelperd.conf stays (the operator's); everything else install may have
# put there goes, whether or not this tree still builds it.
uninstall:
	rm -f $(DESTDIR)$(SBINDIR)/cthelperd $(DESTDIR)$(SBINDIR)/cthelperctl
	rm -f $(DESTDIR)$(BINDIR)/cthelper-replay
	rm -f $(PLUGINS:%=$(DESTDIR)$(PLUGIN_DIR)/%.so) $(DESTDIR)$(PLUGIN_DIR)/cthelperd-sandbox
	-rmdir $(DESTDIR)$(PLUGIN_DIR) 2>/dev/null
	rm -f $(INST_MAN8:docs/man/%=$(DESTDIR)$(MANDIR)/man8/%)
	rm -f $(INST_MAN5:docs/man/%=$(DESTDIR)$(MANDIR)/man5/%)
	rm -f $(INST_MAN1:docs/man/%=$(DESTDIR)$(MANDIR)/man1/%)
	rm -f $(DESTDIR)$(MANDIR)/man8/cthelperctl.8
	rm -f $(DESTDIR)$(UNITDIR)/cthelperd.service $(CONF_DEST).example
	rm -f $(INST_SDK_H:sdk/include/%=$(DESTDIR)$(INCLUDEDIR)/%) $(DESTDIR)$(LIBDIR)/libcthsdk.a
	-rmdir $(DESTDIR)$(INCLUDEDIR)/cthelperd 2>/dev/null
	rm -f $(INST_SDK_PC:%=$(DESTDIR)$(PKGCONFIGDIR)/%.pc) $(DESTDIR)$(LIBDIR)/libcthelperd-plugtest.a
	rm -f $(INST_KIT_BIN:sdk/tools/%=$(DESTDIR)$(BINDIR)/%)
	rm -f $(INST_KIT:sdk/%=$(DESTDIR)$(KITDIR)/%)
	-printf '%s\n' $(dir $(INST_KIT:sdk/%=$(DESTDIR)$(KITDIR)/%)) $(DESTDIR)$(KITDIR)/examples/ | \
	  sort -ru | while read -r d; do rmdir "$$d" 2>/dev/null; done; true
