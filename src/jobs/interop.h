/* interop.h - `lab interop`: the NFS interop matrix (servers x versions x
 * groups) and its report. */
#ifndef LAB_INTEROP_H
#define LAB_INTEROP_H

#include <stdbool.h>

struct lab_interop_opts {
	const char *topology;
	const char *client;  /* the client guest */
	const char *kernel;  /* NULL: the client's as the topology says */
	const char *peer;    /* the second client (nfs-peer) for the clients group */
	char **servers;      /* NULL: every server of the topology */
	char **vers;         /* NULL: 3, 4.0, 4.1, 4.2 */
	char **groups;       /* NULL: every group */
	bool keep;           /* leave the guests up */
};

/* The versions and groups asked for exist: 0, or -1 with a message. */
int lab_interop_check(const struct lab_interop_opts *o);
/* Up, the matrix, down. 0 every cell passed (or skipped with its reason),
 * 1 a cell failed or nothing ran, 130 interrupted. */
int lab_interop(const struct lab_interop_opts *o);

#endif
