/* candidate.h - `lab review --base A --candidate B`: a regression review
 * of a candidate kernel. */
#ifndef LAB_CANDIDATE_JOB_H
#define LAB_CANDIDATE_JOB_H

struct lab_candidate_opts {
	const char *base, *candidate;
	const char *topology;
	char **names;    /* tests and suites; NULL: the topology's suite */
	int reruns;      /* runs more of a test whose first verdicts differ */
	int duration_s;  /* LAB_DURATION for the race tests, 0: their own */
	const char *iso; /* the tests disk, once built */
};

/* Both kernels known and not the same: 0, or 2 with a message. */
int lab_candidate_check(const struct lab_candidate_opts *o);
/* The tests on both kernels (each on fresh guests), every test whose
 * verdicts differ again RERUNS times on each, and the report under
 * $LAB_HOME/reviews/ID-candidate. 0 nothing regressed, 1 something did
 * (or a kernel's run broke), 130 interrupted. */
int lab_candidate_review(const struct lab_candidate_opts *o);

#endif
