/* review.h - `lab review`, `lab report`, `lab compare`. */
#ifndef LAB_REVIEW_H
#define LAB_REVIEW_H

#include <stdbool.h>

/* "fixed", "regressed", "unchanged", "flaky" (other change), "only in A/B". */
const char *lab_compare_change(const char *a, const char *b);

/* A review's name reaches a path (patches/NAME): digits and dots only. */
bool lab_review_name_valid(const char *name);

int cmd_review(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_compare(int argc, char **argv);

#endif
