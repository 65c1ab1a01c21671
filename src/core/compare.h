/* compare.h - two runs, test by test. */
#ifndef LAB_COMPARE_H
#define LAB_COMPARE_H

/* "fixed", "regressed", "unchanged", "flaky" (other change), "only in A/B". */
const char *lab_compare_change(const char *a, const char *b);
/* Print a line per test of runs DIR_A and DIR_B with its change. 0, or 1
 * when a run cannot be loaded. */
int lab_compare_runs(const char *dir_a, const char *dir_b);

#endif
