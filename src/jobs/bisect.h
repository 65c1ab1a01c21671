/* bisect.h - `lab bisect`: the first patch of a series, or the first
 * commit of a tree of the user's, that makes a test fail. */
#ifndef LAB_BISECT_H
#define LAB_BISECT_H

struct lab_bisect_opts {
	const char *good;     /* a kernel the test passes on */
	const char *bad;      /* a kernel of the user's whose base is GOOD, or a
			       * tree kernel whose commit descends from GOOD's */
	const char *test;     /* a test of tests/suite.ini */
	const char *topology; /* where its guests come from */
	int tries;            /* per step; 0: from the bad kernel's failure rate */
	const char *iso;      /* the tests disk, once built */
};

#include <stdbool.h>

/* BAD is GOOD plus a series of the user's, or GOOD and BAD are one tree's
 * commits, GOOD an ancestor of BAD: steps lie between them. Else false
 * and *why (when WHY is not NULL). */
bool lab_bisectable(const char *good, const char *bad, char **why);
/* Everything checked before anything is built: 0 or 2 with a message. */
int lab_bisect_check(const struct lab_bisect_opts *o);
/* Build the series' prefixes (one tree, ccache) or the tree's commits
 * (first parents: a merge is one step), bring up only the guests
 * TEST needs on each, run it, and name the first bad one; the log and
 * bisect.json under $LAB_HOME/bisect/ID. 0 found, 1 not (the ends do not
 * differ, or skipped steps leave a range), 130 interrupted. */
int lab_bisect(const struct lab_bisect_opts *o);

#endif
