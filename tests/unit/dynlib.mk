# Libraries loaded when needed (server/dynlib.c): the loader resolves a
# typed table from each, and a missing library or function is a negative
# errno and a message, the table left empty.
UNIT_SRC_test_dynlib := server/dynlib.c server/dynlib.h
