/* report.h - the review's report: one row per seed patch from a baseline
 * run and a patched run, as text, report.json and a self-contained HTML. */
#ifndef LAB_REPORT_H
#define LAB_REPORT_H

#include <glib.h>

#include "results.h"

enum lab_conclusion {
	LAB_FIX_VERIFIED,     /* baseline failed in this run, patched clean */
	LAB_NOT_REPRODUCED,   /* baseline clean: the test or the port is wrong */
	LAB_REGRESSION,       /* patched fails */
	LAB_CONCL_INCONCLUSIVE,
	LAB_NOT_REPRODUCIBLE, /* cannot be reproduced on 6.1, with the reason */
};

struct lab_row {
	char *seed, *article, *title, *impact;
	char *base_verdict, *patched_verdict; /* aggregated over instances */
	char *base_evidence;   /* the kernel's own first line, or the test's */
	char *patched_evidence;
	enum lab_conclusion conclusion;
	char *why;             /* one line behind the conclusion */
	char *impact_class;    /* only when the fix is verified */
	char *excerpt;         /* baseline console excerpt */
	char *base_dir;        /* the failing baseline test's dir, for links */
	bool counts;           /* part of the exit status */
	bool synthetic;        /* the only test is fault injection */
};

const char *lab_conclusion_name(enum lab_conclusion c);
/* Conclusion from the two aggregated verdicts (NULL: not run). */
enum lab_conclusion lab_conclude(const char *base, const char *patched);
/* Worst verdict of a seed's test instances: fail > error > inconclusive >
 * skip > pass; NULL when there is none. */
const char *lab_aggregate(GPtrArray *verdicts);

/* Rows for every seed of review.ini from two runs (either may be NULL). */
GPtrArray *lab_report_rows(const char *review_ini, struct lab_run *base,
			   struct lab_run *patched, char **err);
char *lab_report_text(GPtrArray *rows);
char *lab_report_json(GPtrArray *rows, const struct lab_run *base,
		      const struct lab_run *patched);
char *lab_report_html(GPtrArray *rows, const struct lab_run *base,
		      const struct lab_run *patched);
/* Write report.txt/json/html into dir (base/ and patched/ link the runs).
 * Returns the number of counted rows that fall short (0: all verified). */
int lab_report_write(const char *dir, const char *base_run_dir,
		     const char *patched_run_dir);

#endif
