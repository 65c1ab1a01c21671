/* report.h - the review's report: one row per seed patch from a baseline
 * run and a patched run (and, with --isolate, single-bug runs), as text,
 * report.json and a self-contained HTML page. */
#ifndef LAB_REPORT_H
#define LAB_REPORT_H

#include <stdbool.h>
#include <glib.h>

#include "core/results.h"

/* The review lab does unless told another (patches/NAME/). */
#define LAB_REVIEW_DEFAULT "2.6.32.9"

enum lab_conclusion {
	LAB_FIX_VERIFIED,     /* baseline failed with the seed's signature, patched clean */
	LAB_NOT_REPRODUCED,   /* baseline clean: the test or the port is wrong */
	LAB_REGRESSION,       /* patched fails with the seed's signature */
	LAB_CONCL_INCONCLUSIVE,
	LAB_NOT_REPRODUCIBLE, /* cannot be reproduced on 6.1, with the reason */
	LAB_FAULT_HANDLED,    /* fault injection: baseline failed with the
			       * signature of the injected fault, patched
			       * handled it. Not a user-triggered bug: counted
			       * apart from "fix verified" */
};

/* One kernel's instances of a seed's tests, summed up. */
struct lab_side {
	char *verdict;        /* worst verdict, NULL: not run */
	bool signature;       /* some instance failed with the seed's signature */
	bool all_pass;        /* every instance passed */
	char *other;          /* title of a failure for another reason, or NULL */
	char *evidence;       /* the kernel's own first line, or the test's word */
	char *dir;            /* the instance shown, relative to its run */
	char *excerpt;        /* its console excerpt */
};

struct lab_row {
	char *seed, *article, *title, *impact;
	char *provenance;      /* faithful port, emulated, approximate, ... */
	char *provenance_why;
	struct lab_side base, patched;
	enum lab_conclusion conclusion;
	char *why;             /* one line behind the conclusion */
	char *impact_class;    /* only when the fix is verified */
	char *isolated;        /* "yes", "no: TITLE", or NULL: not run */
	char *notes;           /* per-instance facts: knob, window hits */
	bool counts;           /* part of the exit status */
	bool synthetic;        /* the only test is fault injection */
};

/* What a review adds around its rows (all optional). */
struct lab_review_info {
	const char *name;          /* "2.6.32.9" */
	const char *topology;
	const char *phases;        /* "build 0.1 s, up (baseline) 7.2 s, ..." */
	struct lab_run *isolated;  /* single-bug runs, merged */
};

const char *lab_conclusion_name(enum lab_conclusion c);
/* The conclusion from both sides (pure; unit-tested row by row). */
enum lab_conclusion lab_conclude(const struct lab_side *base,
				 const struct lab_side *patched, char **why);
/* Worst verdict of a list: fail > timeout > error > inconclusive > skip >
 * pass; NULL when empty. */
const char *lab_aggregate(GPtrArray *verdicts);

/* Rows for every seed of review.ini from two runs (either may be NULL). */
GPtrArray *lab_report_rows(const char *review_ini, struct lab_run *base,
			   struct lab_run *patched, struct lab_run *isolated,
			   char **err);
char *lab_report_text(GPtrArray *rows, const struct lab_review_info *info,
		      const struct lab_run *base, const struct lab_run *patched);
char *lab_report_json(GPtrArray *rows, const struct lab_review_info *info,
		      const struct lab_run *base, const struct lab_run *patched);
char *lab_report_html(GPtrArray *rows, const struct lab_review_info *info,
		      const struct lab_run *base, const struct lab_run *patched);
/* Write report.txt/json/html into dir (base/ and patched/ link the runs).
 * Returns the number of counted rows that fall short (0: all verified),
 * -1 when the report could not be made. */
int lab_report_write(const char *dir, const struct lab_review_info *info,
		     const char *base_run_dir, const char *patched_run_dir,
		     const char *isolated_run_dir);
/* `lab report`: render OUT_DIR's report again from its review.ini and
 * runs (BASE_RUN/PATCHED_RUN NULL: OUT_DIR/baseline, OUT_DIR/patched). 0
 * when every counted row is verified, else 1. */
int lab_report_redo(const char *out_dir, const char *base_run,
		    const char *patched_run);
/* A review's name reaches a path (patches/NAME): digits and dots only. */
bool lab_review_name_valid(const char *name);

#endif
