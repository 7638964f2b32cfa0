# FTP plugin unit test: the parser, the SDK text utilities and the plugin's
# packet callback against a fake host.  Headers are listed so a change to
# them rebuilds the test (the recipe only compiles the .c files).
UNIT_SRC_test_ftp := plugins/ftp/ftp.c plugins/ftp/ftp_parse.c \
                     plugins/ftp/ftp_parse.h sdk/lib/util.c
