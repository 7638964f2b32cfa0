# rpc plugin unit test: the parser (RPC headers, portmapper/rpcbind
# arguments and results, universal addresses, record marking) and the
# plugin's packet callback against a fake host, deterministic fuzzing.
# Headers are listed so a change to them rebuilds the test (the recipe
# only compiles the .c files).
UNIT_SRC_test_rpc := plugins/rpc/rpc.c plugins/rpc/rpc_parse.c \
                     plugins/rpc/rpc_reply.c plugins/rpc/rpc.h \
                     plugins/rpc/rpc_parse.h sdk/lib/util.c
