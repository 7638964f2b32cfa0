/* SPDX-License-Identifier: MIT */
/* The SDK 3 test plugin's configuration block (sdk3_plugin.c), for the
 * tests that read what the host parsed into it. */
#ifndef CTH_TEST_SDK3_PLUGIN_H
#define CTH_TEST_SDK3_PLUGIN_H

#include <stdbool.h>
#include <stdint.h>

#include <cthelperd/plugin.h>

struct sdk3_config {
	bool flag;
	uint32_t level;
	struct cth_ports ports;
	unsigned int mode;
	char label[17];
	char custom;
	bool inited;
};

enum { SDK3_MODE_FAST, SDK3_MODE_SAFE };
enum { SDK3_C_PACKETS, SDK3_C_BYTES };

#endif
