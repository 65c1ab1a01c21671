/* up.h - `lab up`: a topology's guests, restored from the saved ready state
 * or booted (and then saved); the restart of one guest during `lab run`. */
#ifndef LAB_UP_H
#define LAB_UP_H

#include <stdbool.h>
#include <libvirt/libvirt.h>

struct lab_up_opts {
	const char *topology;  /* name or path */
	const char *kernel;    /* NULL: as the topology says */
	const char *accel;     /* "auto", "tcg", "kvm" */
	const char *tests_iso; /* NULL: build (or find) it */
	int timeout_s;         /* per guest readiness */
	bool keep;             /* leave guests up on failure */
	bool fresh;            /* ignore and refresh the saved ready state */
	char **only;           /* NULL, or the guests to bring up (the rest of
				* the topology is left out) */
	const char *host;      /* NULL: the local default; else a hosts.ini name */
	const char *hosts_file; /* NULL: $LAB_HOME/hosts.ini */
};

/* 0 up, 1 failed (everything created torn down), 2 bad topology. */
int lab_up(const struct lab_up_opts *o);
/* Restart a guest after a crash or a spent kernel; its old console log is
 * saved as save_console. 0 when it answers again. */
int lab_virt_restart(virConnectPtr conn, const char *guest,
		     const char *save_console, int timeout_s);
int cmd_up(int argc, char **argv);
int cmd_restart(int argc, char **argv);

#endif
