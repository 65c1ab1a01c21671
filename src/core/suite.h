/* suite.h - the suite map (tests/suite.ini): tests, their roles, bounds
 * and signatures, and the suites that group them. */
#ifndef LAB_SUITE_H
#define LAB_SUITE_H

#include <stdbool.h>
#include <glib.h>

struct lab_test {
	char *name;          /* program name under /lab in the guest */
	char *seed;          /* "010", or NULL for plumbing checks */
	char **roles;        /* roles that can run it, in preference order */
	int order;           /* ascending run order */
	int timeout_s;       /* hard bound, the runner's kill */
	bool consumes_boot;  /* a failure spends the guest's kernel */
	char *needs_cmdline; /* must be in /proc/cmdline, else skip */
	char **nfs_versions; /* run once per version (NULL: once) */
	char **amplifiers;   /* "PATH=VALUE" each: written when PATH exists */
	char *window;        /* for races: what a "window hit" is */
	bool nfs_mount;      /* runner mounts the export at LAB_NFS_DIR */
	bool reset_server;   /* the program may ask the runner to reset its
			      * NFS server hard (run_reset.c) */
	char *netem;         /* delay on eth0 during the test, e.g. "20ms" */
	char *expected_report; /* a report containing this is the fix at work */
	char *title;
	char **peers;        /* roles of other guests the test uses (the NFS
			      * server, its parts' guests): they must not
			      * restart under it */
	char **parts;        /* "ROLE:PROGRAM": programs started on other
			      * guests for the test's length (a server, a
			      * second client); their roles are in peers */
	char **signature;    /* the seed's bug in a console report (verdict.h) */
	char *signature_program; /* the seed's bug in the program's fail line */
	int min_hits;        /* races: window hits the program needs to decide */
	char **servers;      /* roles of NFS servers: run once against each
			      * guest with one (the interop matrix) */
	char **groups;       /* run once per group (LAB_INTEROP_GROUP) */
};

struct lab_suite {
	char *path;
	GPtrArray *tests;    /* struct lab_test *, in file order */
	GHashTable *suites;  /* name -> char ** of test names */
};

/* Load and check a suite map: every suite member must be a test, every
 * test needs seed/roles/timeout. NULL with *err naming file and key. */
struct lab_suite *lab_suite_load(const char *path, char **err);
void lab_suite_free(struct lab_suite *s);
const struct lab_test *lab_suite_test(const struct lab_suite *s,
				      const char *name);
/* Expand test and suite names into tests sorted by order (stable). NULL
 * with *err listing the known names when one is unknown. */
GPtrArray *lab_suite_resolve(const struct lab_suite *s, char **names,
			     char **err);
/* The same without sorting: tests in the order named (lab stress
 * shuffles its iterations). */
GPtrArray *lab_suite_expand(const struct lab_suite *s, char **names,
			    char **err);
/* Known test and suite names, one line, for error messages. */
char *lab_suite_known(const struct lab_suite *s);

#endif
