# The plugin tests' host (plugrun.c): the daemon's code around a plugin
# call -- packet view and host-call table, the expectation rule, payload
# edits, kept bytes -- with a recording kernel side.  Used by every test
# that includes plugtest.h.  The plugin's declared keys (defaults, values)
# go through the daemon's parser: runtime/keys.c, with the config helpers
# it uses.
PLUGRUN_SRC := tests/unit/plugrun.c server/host/packet.c server/host/call.c server/host/link.c server/host/edit.c server/host/inflight.c \
               server/host/keep.c server/runtime/guard.c server/base/log.c \
               server/runtime/keys.c server/runtime/config.c server/runtime/config_helper.c \
               server/runtime/config_shards.c
