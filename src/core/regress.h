/* regress.h - the pure decisions of a candidate review and a bisection:
 * a test's outcomes on two kernels as regressed, fixed, unchanged, changed
 * or flaky; how many tries a bisection step needs and how sure a passing
 * step is; which step a bisection tries next (around skipped ones). */
#ifndef LAB_REGRESS_H
#define LAB_REGRESS_H

/* One test's verdicts over its runs on one kernel. */
struct lab_outcomes {
	int pass, fail, other; /* other: inconclusive, error, timeout, skip */
};

/* regressed: the base never failed and the candidate never passed (and
 * failed); fixed: the reverse; unchanged: every run of both one same
 * kind; changed: each kernel one kind, not pass against fail (e.g. pass
 * -> error); flaky: anything else (a kernel that both passed and failed). */
const char *lab_regress_class(const struct lab_outcomes *base,
			      const struct lab_outcomes *cand);

/* Chance that a bug failing a try with probability P passes K tries. */
double lab_bisect_miss(double p, int k);
/* Tries per bisection step from the bad kernel's FAILS of TRIES: the
 * fewest K with lab_bisect_miss(p, K) <= 5 %, p = FAILS / (TRIES + 1) (one
 * try more than seen: three of three is not taken as certain), 1..10.
 * 0 when FAILS is 0 (nothing to bisect). *P gets p. */
int lab_bisect_tries(int fails, int tries, double *p);

enum lab_step { LAB_STEP_UNTESTED, LAB_STEP_GOOD, LAB_STEP_BAD, LAB_STEP_SKIP };

/* STATE[0..N]: step i is the base with the first i patches (0 good, N
 * bad). The step to try next: an untested one between the last good and
 * the first bad after it, nearest their middle; -1 when there is none
 * (then *LO and *HI bound the first bad patch: LO + 1 .. HI, one patch when
 * HI == LO + 1). */
int lab_bisect_next(const enum lab_step *state, int n, int *lo, int *hi);

#endif
