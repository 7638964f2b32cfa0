# libFuzzer targets (clang): tests/fuzz/fuzz_NAME.c, linked with the sources
# in FUZZ_SRC_fuzz_NAME.  `make fuzz` builds $(B)/fuzz/fuzz_*; tests/run.sh
# runs each briefly from its seed corpus, tests/fuzz/corpus/fuzz_NAME/.
FUZZ_CC      ?= clang
FUZZ_FLAGS   ?= -O1 -g -fsanitize=fuzzer,address,undefined \
                -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_TARGETS := $(notdir $(basename $(wildcard tests/fuzz/fuzz_*.c)))
FUZZ_HOST_SRC := server/mangle.c server/packet.c server/keep.c server/log.c
FUZZ_SRC_fuzz_host := $(FUZZ_HOST_SRC)
FUZZ_SRC_fuzz_ftp  := $(FUZZ_HOST_SRC) plugins/ftp/ftp.c plugins/ftp/ftp_parse.c \
                      sdk/lib/util.c
FUZZ_CFLAGS = $(FUZZ_FLAGS) -std=gnu11 $(CWARN) \
              -D_GNU_SOURCE $(SDK_INC) -Iserver -Itests/fuzz $(PKG_CFLAGS)

.PHONY: fuzz
fuzz: $(FUZZ_TARGETS:%=$(B)/fuzz/%)

$(B)/fuzz/%: tests/fuzz/%.c $$(FUZZ_SRC_$$*) $(wildcard tests/fuzz/*.h server/*.h \
             plugins/*/*.h sdk/include/cthelperd/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $(filter %.c,$^) $(PKG_LIBS)
FUZZ_SRC_fuzz_qmsg := $(FUZZ_HOST_SRC) server/qmsg.c
FUZZ_SRC_fuzz_sip := $(FUZZ_HOST_SRC) plugins/sip/sip.c plugins/sip/sip_parse.c plugins/sip/sip_sdp.c \
                     plugins/sip/sip_media.c plugins/sip/sip_nat.c sdk/lib/util.c $(wildcard plugins/sip/*.h)
FUZZ_SRC_fuzz_tns := $(FUZZ_HOST_SRC) $(sort $(wildcard plugins/tns/*.c)) sdk/lib/util.c
FUZZ_SRC_fuzz_rpc := $(FUZZ_HOST_SRC) $(sort $(wildcard plugins/rpc/*.c)) sdk/lib/util.c
