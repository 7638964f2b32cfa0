# RTSP plugin unit test: the framing and Transport parsers, the plugin's
# declared keys, the plugin on the daemon's host code (plugrun.mk; "=":
# that list is read later), deterministic fuzzing.
UNIT_SRC_test_rtsp = plugins/rtsp/rtsp.c plugins/rtsp/rtsp_parse.c \
                     plugins/rtsp/rtsp_transport.c plugins/rtsp/rtsp_nat.c sdk/lib/util.c \
                     $(PLUGRUN_SRC)
