/* SPDX-License-Identifier: MIT */
/*
 * cthelperd-sandbox: run by cthelperd only (docs/security.md), as its
 * spawner or as one helper's sandbox.  Not a command for operators.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbx.h"

int main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "--spawner") == 0)
		return sbx_spawner_main(strtol(argv[2], NULL, 10), strtol(argv[3], NULL, 10));
	if (argc == 2 && strcmp(argv[1], "--serve") == 0)
		return sbx_serve_main();
	fprintf(stderr, "cthelperd-sandbox: started by cthelperd only (see cthelperd(8), "
		"docs/security.md)\n");
	return 2;
}
