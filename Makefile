# cthelperd — one top-level build.  See README.md.
#
#   make            build/cthelperd, build/plugins/*.so, build/libcthsdk.a
#   make deps       install every Debian package needed (build, test, demo)
#   make check      whole test suite (unit, sanitizers, VM end-to-end)
#   make demo       FTP through a firewall in the VM with cthelperd as helper
#   make fuzz       libFuzzer targets (clang) into build/fuzz/, see tests/fuzz/

CC       ?= cc
PKGS     := libmnl libnetfilter_queue libnetfilter_conntrack inih
CWARN    := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
            -Wmissing-prototypes -Wpointer-arith -Wformat=2 -Wvla
CFLAGS   ?= -O2 -g
# CFLAGS is the user's (optimisation, sanitizers); warnings always apply
ALL_CFLAGS = $(CFLAGS) -std=gnu11 $(CWARN) -D_GNU_SOURCE
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all \
            -fno-omit-frame-pointer
B        ?= build
SDK_INC  := -Isdk/include

SERVER_SRC := $(sort $(wildcard server/*.c))
SERVER_LIB_SRC := $(filter-out server/main.c,$(SERVER_SRC))
SDK_SRC    := $(sort $(wildcard sdk/lib/*.c))
PLUGINS    := $(notdir $(patsubst %/,%,$(sort $(dir $(wildcard plugins/*/*.c)))))

PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lev -ldl -lpthread

.PHONY: all deps check unit unit-asan e2e demo bench clean
all: $(B)/cthelperd $(B)/libcthsdk.a $(PLUGINS:%=$(B)/plugins/%.so)

# --- SDK utility library: linked statically into plugins (PIC) ---------
$(B)/sdk/%.o: sdk/lib/%.c $(wildcard sdk/include/cthelperd/*.h) | $(B)/sdk
	$(CC) $(ALL_CFLAGS) -fPIC -fvisibility=hidden $(SDK_INC) -c -o $@ $<
$(B)/libcthsdk.a: $(SDK_SRC:sdk/lib/%.c=$(B)/sdk/%.o)
	$(AR) rcs $@ $^

# --- plugins: each only against sdk/ -----------------------------------
.SECONDEXPANSION:
$(B)/plugins/%.so: $$(wildcard plugins/%/*.c plugins/%/*.h) $(B)/libcthsdk.a | $(B)/plugins
	$(CC) $(ALL_CFLAGS) -fPIC -fvisibility=hidden -shared $(SDK_INC) \
	  -Wl,-z,defs -Wl,--no-undefined -o $@ $(filter %.c,$^) $(B)/libcthsdk.a
# --- daemon -------------------------------------------------------------
$(B)/server/%.o: server/%.c $(wildcard server/*.h sdk/include/cthelperd/*.h) | $(B)/server
	$(CC) $(ALL_CFLAGS) -fvisibility=hidden $(SDK_INC) $(PKG_CFLAGS) \
	  -DCTH_VERSION='"$(VERSION)"' -DCTH_PLUGIN_DIR='"$(PLUGIN_DIR)"' -DCTH_DEFAULT_CONFIG='"$(SYSCONF)/cthelperd.conf"' -c -o $@ $<
$(B)/cthelperd: $(SERVER_SRC:server/%.c=$(B)/server/%.o)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(PKG_LIBS)

VERSION    ?= 0.1.0
PLUGIN_DIR ?= /usr/local/lib/cthelperd
SYSCONF    ?= /usr/local/etc
SYSCONF    ?= /etc

$(B) $(B)/sdk $(B)/plugins $(B)/server $(B)/tests:
	mkdir -p $@

# --- tests --------------------------------------------------------------
include tests/tests.mk

deps:
	tests/deps.sh

check: all
	tests/run.sh

demo: all
	tests/vm/demo.sh

bench: all
	tests/bench/run.sh

clean:
	rm -rf $(B) build-asan
