/* stress.h - `lab stress`: overnight loops of tests with failure rates,
 * crash dedup by title, memory dumps, quarantine, resume. The state lives
 * in $LAB_HOME/stress/ID/stress.json, rewritten atomically after every
 * iteration (core/stress_state.h). */
#ifndef LAB_STRESS_H
#define LAB_STRESS_H

#include <stdbool.h>
#include "core/stress_state.h"

struct lab_stress_opts {
	const char *topology;
	const char *kernel;
	const char *resume;
	const char *status;
	int inject_crash;   /* iteration whose first test meets a panic (CI) */
	bool keep;          /* leave the instance up at the end */
	const char *host;   /* NULL: local default; else a hosts.ini name */
	char **hosts;       /* --hosts A,B,...: spread (stress_spread.c) */
	const char *hosts_file;
};

/* The loop on this process's instance (brought up on so->host when it is
 * not up, and down again after unless --keep), then its reports. 0, 1
 * failed to start, 3 the host dropped out (*host_lost), 130 Ctrl-C. */
int lab_stress_here(struct lab_stress *s, const struct lab_stress_opts *so,
		    bool *host_lost);
/* The words of each part that failed (exit 1) in OUT, a test's output as
 * run_parts.c writes it ("# ---- part ROLE: PROG on GUEST, exit N ----",
 * then that program's output): its last "# result: fail: WORDS" line.
 * NULL-terminated. Pure. A part's bug gets its own title even when a
 * console report or another part decided the test's verdict (the soak:
 * 004's lockdep on the tty guest and 011 on the conntrack host at once). */
char **lab_stress_part_fails(const char *out);
/* $LAB_HOME/stress/ID */
char *lab_stress_dir(const char *id);


#endif
