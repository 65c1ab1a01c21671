/* run.h - `lab run`: tests in the guests, verdicts, results. */
#ifndef LAB_RUN_H
#define LAB_RUN_H

#include <stdbool.h>

struct lab_run_opts {
	char **names;          /* tests/suites; NULL: the topology's suite */
	int duration_s;        /* LAB_DURATION for the tests, 0: their own */
	char **env;            /* NAME=VALUE for every program and part
				* (checked: core/test_env.h), or NULL */
	bool keep_order;       /* run in the order named (lab stress) */
	bool quiet;            /* no KTAP on stdout (lab stress prints its own) */
	const char *runs_root; /* NULL: $LAB_HOME/runs (with runs/latest) */
	const char *dump_dir;  /* NULL: no memory dumps of guests that died */
	bool inject_crash;     /* the first test's guest panics (sysrq-c) 2 s
				* into it: CI proves the crash path */
	char **only_servers;   /* NULL, or the servers= guests to use */
	char **only_vers;      /* NULL, or the NFS versions to run */
	char **only_groups;    /* NULL, or the groups to run */
};

struct lab_inst;

/* Run tests on IN, the instance that is up (open, locked and attached);
 * *run_dir (optional) gets the run directory. 0 when nothing failed,
 * errored or timed out, 1 otherwise, 2 unknown names, 3 the guests' host
 * (libvirtd) stopped answering, 130 interrupted. */
int lab_run_with(struct lab_inst *in, const struct lab_run_opts *o, char **run_dir);

#endif
