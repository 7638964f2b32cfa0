# rpc plugin unit test: the parser (RPC headers, portmapper/rpcbind
# arguments and results, universal addresses, record marking) and the
# plugin on the daemon's host code (plugrun.mk; "=": that list is read
# later), deterministic fuzzing.
UNIT_SRC_test_rpc = plugins/rpc/rpc.c plugins/rpc/rpc_parse.c \
                    plugins/rpc/rpc_reply.c sdk/lib/util.c $(PLUGRUN_SRC)
