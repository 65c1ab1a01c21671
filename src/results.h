/* results.h - one run's results: verdicts, results.json, junit.xml, KTAP. */
#ifndef LAB_RESULTS_H
#define LAB_RESULTS_H

#include <stdbool.h>
#include <glib.h>

enum lab_verdict {
	LAB_PASS,
	LAB_FAIL,         /* program saw the bug, or the kernel complained */
	LAB_INCONCLUSIVE, /* race window never hit, lockdep already off */
	LAB_SKIP,         /* missing device/config/role: says why */
	LAB_ERROR,        /* setup broke: the test says nothing */
};

struct lab_result {
	char *name;     /* instance name, e.g. "t009-nfs-umount-race:v4.1" */
	char *test;     /* suite-map name */
	char *seed;
	char *guest;
	char *kernel;
	enum lab_verdict verdict;
	char *reason;   /* one line: why this verdict */
	int exit_code;  /* the program's, -1 if it did not finish */
	double seconds;
	long taint_before, taint_after;
	long window_hits; /* -1 when the test does not report it */
	GPtrArray *reports; /* char *: "type|title|first line" of each report */
	char *dir;      /* per-test output directory, relative to the run */
};

struct lab_run {
	char *id;
	char *dir;
	char *topology;
	char *kernel;   /* "baseline", "patched" or "mixed" */
	double started;
	GPtrArray *results; /* struct lab_result * */
};

const char *lab_verdict_name(enum lab_verdict v);
int lab_verdict_parse(const char *s, enum lab_verdict *v);
struct lab_result *lab_result_new(const char *name, const char *test);
void lab_result_free(struct lab_result *r);

/* Verdict from what was observed; exit codes as in tests/guest/README.md:
 * 0 pass, 1 fail, 2 inconclusive, 3 error, 4 skip. A kernel report or a new
 * taint bit during the test makes it a failure whatever the program said. */
enum lab_verdict lab_verdict_decide(int exit_code, bool crashed,
				    guint n_reports, long taint_new_bits,
				    char **reason);

/* Taint bits that mean the kernel complained (W, D, L, ...). */
long lab_taint_bad_bits(long before, long after);

char *lab_results_json(const struct lab_run *run);
char *lab_results_junit(const struct lab_run *run);
char *lab_result_ktap_line(const struct lab_result *r, int n);
/* Write results.json and junit.xml atomically into run->dir. */
int lab_results_write(const struct lab_run *run);
/* Load a results.json (for report/compare). NULL with message on error. */
struct lab_run *lab_results_load(const char *path);
/* The same from a run directory (or a path to its results.json). */
struct lab_run *lab_results_load_dir(const char *run);
void lab_run_free(struct lab_run *run);

#endif
