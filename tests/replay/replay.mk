# The replay's NAT check (tests/replay/README.md, "The NAT check"): one
# TFTP-shaped test helper, tests/replay/tftpback.c, built right, three
# ways wrong, once crashing and once with a long name, as $(B)/tests/replay/NAME.so (the file
# named as its descriptor); and built with ASan+UBSan whatever the build,
# as $(B)/tests/replay/asan/NAME.so, for the replay of a sanitizer-built
# plugin (cthelper-replay(1), SANITIZERS).  tests/replay/run.sh runs them.
TFTPBACK_DEFS_tftpback_ok    :=
TFTPBACK_DEFS_tftpback_nonat := -DBROKEN_NO_NAT
TFTPBACK_DEFS_tftpback_priv  := -DBROKEN_PRIVATE
TFTPBACK_DEFS_tftpback_port  := -DBROKEN_PORT
TFTPBACK_DEFS_tftpback_crash := -DCRASH
# a plugin name longer than a helper name may be (the replay names the
# helper after the file: cut, and said)
TFTPBACK_DEFS_tftpback_ok_longer_name :=
TFTPBACK := $(patsubst TFTPBACK_DEFS_%,%,$(filter TFTPBACK_DEFS_%,$(.VARIABLES)))

$(B)/tests/replay/%.so: tests/replay/tftpback.c $(B)/libcthsdk.a
	@mkdir -p $(@D)
	$(CC) $(PLUGIN_CFLAGS) -shared $(LDFLAGS) -DNAME='"$*"' $(TFTPBACK_DEFS_$*) \
	  -o $@ $< $(B)/libcthsdk.a
	$(call deps_of,$(PLUGIN_CFLAGS) -DNAME='"$*"' $(TFTPBACK_DEFS_$*))
	$(PLUGIN_PERMS)

$(B)/tests/replay/asan/%.so: tests/replay/tftpback.c $(B)/libcthsdk.a
	@mkdir -p $(@D)
	$(CC) $(PLUGIN_CFLAGS) -O1 $(SANFLAGS) -shared $(LDFLAGS) -DNAME='"$*"' \
	  $(TFTPBACK_DEFS_$*) -o $@ $< $(B)/libcthsdk.a
	$(call deps_of,$(PLUGIN_CFLAGS) -DNAME='"$*"' $(TFTPBACK_DEFS_$*))
	$(PLUGIN_PERMS)

unit: $(TFTPBACK:%=$(B)/tests/replay/%.so) \
      $(B)/tests/replay/asan/tftpback_ok.so $(B)/tests/replay/asan/tftpback_crash.so
