/* regress.c - see regress.h. */
#include "core/regress.h"

#include <math.h>
#include <stdlib.h>

/* The one kind of verdict every run had: 'p', 'f', 'o', or 0 (mixed). */
static char only(const struct lab_outcomes *o)
{
	if (o->pass && !o->fail && !o->other)
		return 'p';
	if (o->fail && !o->pass && !o->other)
		return 'f';
	if (o->other && !o->pass && !o->fail)
		return 'o';
	return 0;
}

const char *lab_regress_class(const struct lab_outcomes *base,
			      const struct lab_outcomes *cand)
{
	char a = only(base), b = only(cand);

	if (!base->fail && base->pass && !cand->pass && cand->fail)
		return "regressed";
	if (!cand->fail && cand->pass && !base->pass && base->fail)
		return "fixed";
	if (a && a == b)
		return "unchanged";
	if (a && b)
		return "changed";
	return "flaky";
}

double lab_bisect_miss(double p, int k)
{
	return pow(1.0 - p, k);
}

int lab_bisect_tries(int fails, int tries, double *p)
{
	int k = 1;

	*p = tries > 0 ? (double)fails / (tries + 1) : 0.0;
	if (fails <= 0)
		return 0;
	while (k < 10 && lab_bisect_miss(*p, k) > 0.05)
		k++;
	return k;
}

int lab_bisect_next(const enum lab_step *state, int n, int *lo, int *hi)
{
	int best = -1;

	*lo = 0;
	for (int i = 0; i <= n; i++)
		if (state[i] == LAB_STEP_GOOD)
			*lo = i;
	*hi = n;
	for (int i = n; i > *lo; i--)
		if (state[i] == LAB_STEP_BAD)
			*hi = i;
	for (int i = *lo + 1; i < *hi; i++) {
		int mid2 = *lo + *hi; /* twice the middle: no rounding */

		if (state[i] == LAB_STEP_UNTESTED &&
		    (best < 0 || abs(2 * i - mid2) < abs(2 * best - mid2)))
			best = i;
	}
	return best;
}
