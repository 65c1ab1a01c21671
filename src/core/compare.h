/* compare.h - two runs, test by test. */
#ifndef LAB_COMPARE_H
#define LAB_COMPARE_H

/* "fixed", "regressed", "unchanged", "flaky" (other change), "only in A/B". */
const char *lab_compare_change(const char *a, const char *b);
/* A run directory, or the ID a run printed ($LAB_HOME/runs/ID, "latest"). */
char *lab_run_dir_of(const char *arg);
/* Print a line per test of runs A and B (directories or IDs) with its
 * change. 0; 1 when a test regressed or a run cannot be loaded. */
int lab_compare_runs(const char *a, const char *b);

#endif
