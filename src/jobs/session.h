/* session.h - up, run, down: what review, isolate, interop and stress do
 * with an instance, written once. */
#ifndef LAB_SESSION_H
#define LAB_SESSION_H

#include <stdbool.h>

#include "guests/instance.h"
#include "guests/up.h"
#include "jobs/run.h"

struct lab_session {
	struct lab_inst in;  /* open, locked and attached while it is up */
	bool brought_up;     /* this session brought it up (and takes it down) */
	const char *host;    /* where (NULL: local), for host_lost */
	const char *hosts_file;
};

/* The instance up: brought up with UP, or (REUSE) the one that is up
 * already. 0 up, else lab_up's code (1 failed, 2 bad input); *host_lost
 * when it failed because UP's host no longer answers. */
int lab_session_up(struct lab_session *s, const struct lab_up_opts *up,
		   bool reuse, bool *host_lost);
/* lab_run_with on the session's instance. */
int lab_session_run(struct lab_session *s, const struct lab_run_opts *ro,
		    char **run_dir);
/* Down (when this session brought it up and KEEP is false), closed. */
void lab_session_end(struct lab_session *s, bool keep);
/* The three at once: 0 ran (*run_dir), else 1; *host_lost when the host
 * failed it (no guests came up there, or its libvirtd stopped answering
 * during the run). */
int lab_session_once(const struct lab_up_opts *up, const struct lab_run_opts *ro,
		     bool keep, char **run_dir, bool *host_lost);

#endif
