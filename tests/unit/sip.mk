# SIP plugin unit test: the parser (framing, headers, URIs, Via, CSeq,
# SDP), the plugin's packet callback against a fake host, deterministic
# fuzzing.  Headers are listed so a change to them rebuilds the test (the
# recipe only compiles the .c files).
UNIT_SRC_test_sip := plugins/sip/sip.c plugins/sip/sip_parse.c \
                     plugins/sip/sip_sdp.c plugins/sip/sip_media.c \
                     plugins/sip/sip_nat.c plugins/sip/sip.h \
                     plugins/sip/sip_parse.h sdk/lib/util.c
