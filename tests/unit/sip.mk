# SIP plugin unit test: the parser (framing, headers, URIs, Via, CSeq,
# SDP), the plugin on the daemon's host code (plugrun.mk; "=": that list
# is read later), deterministic fuzzing.
UNIT_SRC_test_sip = plugins/sip/sip.c plugins/sip/sip_parse.c \
                    plugins/sip/sip_sdp.c plugins/sip/sip_media.c \
                    plugins/sip/sip_nat.c sdk/lib/util.c $(PLUGRUN_SRC)
