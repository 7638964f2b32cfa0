/* SPDX-License-Identifier: MIT */
/* cthelperd-sandbox's two roles (main.c picks one). */
#ifndef CTH_SBX_H
#define CTH_SBX_H

/* The spawner (spawner.c): fd 3 is the daemon's socket. */
int sbx_spawner_main(long uid, long gid);
/* One helper's sandbox (serve.c): fd 3 the channel's socket, fd 4 its
 * memory. */
int sbx_serve_main(void);

#endif
