/* candidate.h - the report of a regression review of a candidate kernel
 * against a base (`lab review --base A --candidate B`): one row per test
 * instance with its verdicts on both kernels over every run, its class
 * (core/regress.h), and for each regression the bisect command when B is
 * A plus a series. report.txt, report.json, report.html. */
#ifndef LAB_CANDIDATE_H
#define LAB_CANDIDATE_H

#include <stdbool.h>
#include <glib.h>

#include "core/regress.h"

struct lab_cand_row {
	char *name;   /* the instance, e.g. t010-dvb-demux-feeds */
	char *test;   /* its suite-map test (what a rerun or bisect names) */
	struct lab_outcomes base, cand;
	char *base_first, *cand_first; /* the first run's verdict words */
	char *why;    /* the candidate's reason when it did not pass, else base's */
	const char *cls;
	int part;     /* which of the job's runs it belongs to */
	const char *topology; /* where it ran (NULL: the report's) */
};

struct lab_cand_report {
	const char *base, *candidate, *topology;
	char *suites;       /* what ran, as the user named it */
	int reruns;
	bool bisectable;    /* the candidate is the base plus a series */
	char *base_run, *cand_run; /* the first runs' directories */
	double seconds;
	GPtrArray *rows;    /* struct lab_cand_row * */
};

struct lab_cand_report *lab_cand_report_new(void);
void lab_cand_report_free(struct lab_cand_report *r);
/* A row (owned by R) for NAME, created on first use. */
struct lab_cand_row *lab_cand_row(struct lab_cand_report *r, const char *name,
				  const char *test);
/* Every row's class; the number regressed. */
int lab_cand_classify(struct lab_cand_report *r);
/* Rows whose first verdicts differ: they are run again. */
bool lab_cand_differs(const struct lab_cand_row *row);
/* report.txt, report.json and report.html into DIR. 0 or -1. */
int lab_cand_write(const struct lab_cand_report *r, const char *dir);
/* The text report (what report.txt holds). */
char *lab_cand_text(const struct lab_cand_report *r);

#endif
