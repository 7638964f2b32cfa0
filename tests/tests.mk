# Unit tests: tests/unit/test_NAME.c, linked with the sources listed in
# UNIT_SRC_test_NAME (set in tests/unit/*.mk next to the test).  Built twice
# by tests/run.sh: plain into build/, with ASan+UBSan into build-asan/.

UNIT_TESTS := $(notdir $(basename $(wildcard tests/unit/test_*.c)))
-include $(wildcard tests/unit/*.mk)

UNIT_CFLAGS = $(ALL_CFLAGS) $(SDK_INC) -Iserver -Itests/unit $(PKG_CFLAGS) \
              -DCTH_VERSION='"$(VERSION)"' -DCTH_PLUGIN_DIR='"$(PLUGIN_DIR)"' -DCTH_DEFAULT_CONFIG='"$(SYSCONF)/cthelperd.conf"'

$(B)/tests/%: tests/unit/%.c $$(UNIT_SRC_$$*) $(wildcard tests/unit/*.h server/*.h sdk/include/cthelperd/*.h) | $(B)/tests
	$(CC) $(UNIT_CFLAGS) -o $@ $(filter %.c,$^) $(PKG_LIBS)

# Plugins built only for the loader test (bad ABI, missing symbol, ...).
$(B)/tests/bad/%.so: tests/unit/bad_plugins/%.c $(wildcard sdk/include/cthelperd/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fPIC -shared $(SDK_INC) -o $@ $<

BAD_PLUGINS := $(notdir $(basename $(wildcard tests/unit/bad_plugins/*.c)))
unit: all $(UNIT_TESTS:%=$(B)/tests/%) $(BAD_PLUGINS:%=$(B)/tests/bad/%.so)

unit-asan:
	$(MAKE) B=build-asan CFLAGS="-O1 -g $(SANFLAGS)" unit
