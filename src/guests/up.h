/* up.h - `lab up`: a topology's guests on one host, restored from the
 * saved ready state or booted (and then saved). */
#ifndef LAB_UP_H
#define LAB_UP_H

#include <stdbool.h>

/* Seconds a booting guest has to become ready, by default. */
#define LAB_READY_TIMEOUT_S 600

struct lab_up_opts {
	const char *topology;  /* name or path */
	const char *kernel;    /* NULL: as the topology says */
	char **kernel_guests;  /* NULL: KERNEL for every guest; else only these */
	const char *accel;     /* "auto", "tcg", "kvm" */
	const char *tests_iso; /* NULL: build (or find) it */
	int timeout_s;         /* per guest readiness */
	bool keep;             /* leave guests up on failure */
	bool fresh;            /* ignore and refresh the saved ready state */
	char **only;           /* NULL, or the guests to bring up (the rest of
				* the topology is left out) */
	const char *host;      /* NULL: local; else a hosts.ini name */
	const char *hosts_file; /* NULL: $LAB_HOME/hosts.ini */
};

/* 0 up, 1 failed (everything created torn down), 2 bad topology or host. */
int lab_up(const struct lab_up_opts *o);

#endif
