/* candidate.c - a regression review of a candidate kernel: the tests on
 * the base and on the candidate, each on fresh guests; a test whose first
 * verdicts differ runs again --reruns times on each kernel (fresh guests
 * each time: a race is not called a regression on one sample, and a spent
 * kernel does not decide the next run); then regressed / fixed / flaky /
 * changed / unchanged per test (core/regress.h, core/candidate.h). */
#include "jobs/candidate.h"
#include "jobs/bisect.h"
#include "build/kernel.h"
#include "build/user_kernel.h"
#include "core/candidate.h"
#include "core/results.h"
#include "jobs/session.h"
#include "util/util.h"

#include <stdio.h>
#include <string.h>

#define READY_TIMEOUT_S 900

int lab_candidate_check(const struct lab_candidate_opts *o)
{
	if (!lab_kernel_known(o->base)) {
		lab_err("review: --base %s is no kernel lab knows (`lab kernels`)", o->base);
		return 2;
	}
	if (!lab_kernel_known(o->candidate)) {
		lab_err("review: --candidate %s is no kernel lab knows (`lab build NAME --series "
			"PATH --base %s` defines one)", o->candidate, o->base);
		return 2;
	}
	if (!strcmp(o->base, o->candidate)) {
		lab_err("review: --base and --candidate are both %s", o->base);
		return 2;
	}
	return 0;
}

/* What the review runs: tests on one topology, or an interop slice. */
struct part {
	const char *topology;
	char **names;   /* NULL: the topology's suite */
	char **only;    /* NULL: every guest; else these (interop: client, server) */
	char **servers, **vers, **groups; /* the interop slice's cells */
	const char *what;
};

static char *interop_only[] = { "client", "knfsd", NULL };
static char *interop_names[] = { "t100-nfs-interop-suite", NULL };
static char *interop_servers[] = { "knfsd", NULL };
static char *interop_vers[] = { "3", "4.2", NULL };
static char *interop_groups[] = { "basic", NULL };
static char *client_guest[] = { "client", NULL };

/* The user's topology and tests; on the default topology with no tests
 * named, also an interop slice (the candidate as knfsd's client). N parts. */
static int parts_of(const struct lab_candidate_opts *o, struct part *p)
{
	p[0] = (struct part){ o->topology, o->names, NULL, NULL, NULL, NULL,
			      o->names ? "the tests named" : "the topology's suite" };
	if (o->names || strcmp(o->topology, "default"))
		return 1;
	p[1] = (struct part){ "interop", interop_names, interop_only, interop_servers,
			      interop_vers, interop_groups,
			      "an interop slice: the candidate as knfsd's client, v3 and v4.2, basic" };
	return 2;
}

/* One run of NAMES (NULL: the part's) on KERNEL on fresh guests: its
 * directory or NULL. */
static char *one_run(const struct lab_candidate_opts *o, const struct part *p,
		     const char *kernel, char **names)
{
	struct lab_up_opts up = { .topology = p->topology, .kernel = kernel, .accel = "auto",
				  .tests_iso = o->iso, .timeout_s = READY_TIMEOUT_S,
				  .only = p->only, .kernel_guests = p->only ? client_guest : NULL };
	struct lab_run_opts ro = { .names = names ? names : p->names,
				   .duration_s = o->duration_s, .only_servers = p->servers,
				   .only_vers = p->vers, .only_groups = p->groups };
	char *run_dir = NULL;
	bool lost;

	lab_session_once(&up, &ro, false, &run_dir, &lost);
	return run_dir;
}

/* A run's verdicts into the report: BASE or the candidate's side; FIRST:
 * the first run (its verdict words are kept). */
static void count(struct lab_cand_report *r, const char *run_dir, const struct part *p,
		  int part, bool base, bool first)
{
	struct lab_run *run = run_dir ? lab_results_load_dir(run_dir) : NULL;

	for (guint i = 0; run && i < run->results->len; i++) {
		const struct lab_result *x = g_ptr_array_index(run->results, i);
		struct lab_cand_row *w = lab_cand_row(r, x->name, x->test);
		struct lab_outcomes *o = base ? &w->base : &w->cand;

		w->part = part;
		w->topology = p->topology;

		o->pass += x->verdict == LAB_PASS;
		o->fail += x->verdict == LAB_FAIL;
		o->other += x->verdict != LAB_PASS && x->verdict != LAB_FAIL;
		if (first)
			*(base ? &w->base_first : &w->cand_first) =
				g_strdup(lab_verdict_name(x->verdict));
		if (x->verdict != LAB_PASS && (!base || !w->why)) {
			g_free(w->why);
			w->why = g_strdup_printf("%s on %s: %s", lab_verdict_name(x->verdict),
						 base ? r->base : r->candidate,
						 x->reason ? x->reason : "");
		}
	}
	lab_run_free(run);
}

/* The suite-map tests of PART's rows whose first verdicts differ. */
static char **differing(const struct lab_cand_report *r, int part)
{
	GPtrArray *out = g_ptr_array_new();

	for (guint i = 0; i < r->rows->len; i++) {
		const struct lab_cand_row *w = g_ptr_array_index(r->rows, i);

		if (w->part == part && lab_cand_differs(w) &&
		    !g_ptr_array_find_with_equal_func(out, w->test, g_str_equal, NULL))
			g_ptr_array_add(out, g_strdup(w->test));
	}
	g_ptr_array_add(out, NULL);
	return (char **)g_ptr_array_free(out, FALSE);
}

/* Rows differing at first run RERUNS more times on each kernel, on fresh
 * guests each time; the others ran once on each, that is all they get. */
static void rerun(const struct lab_candidate_opts *o, const struct part *p, int part,
		  struct lab_cand_report *r)
{
	char **again = differing(r, part), *list;

	if (!again[0] || o->reruns == 0) {
		g_strfreev(again);
		return;
	}
	list = g_strjoinv(", ", again);
	lab_info("=== %d more runs of %s on each kernel: their verdicts differ ===",
		 o->reruns, list);
	g_free(list);
	for (int k = 0; k < o->reruns && !lab_interrupted; k++)
		for (int side = 0; side < 2 && !lab_interrupted; side++) {
			char *dir = one_run(o, p, side ? o->candidate : o->base, again);

			count(r, dir, p, part, side == 0, false);
			g_free(dir);
		}
	g_strfreev(again);
}

/* PART on both kernels, then its reruns. 0, or -1 when a kernel's run
 * broke. */
static int run_part(const struct lab_candidate_opts *o, const struct part *p, int part,
		    struct lab_cand_report *r)
{
	char *base_run, *cand_run = NULL;

	lab_info("=== %s on %s: base %s ===", p->what, p->topology, o->base);
	base_run = one_run(o, p, o->base, NULL);
	if (base_run && !lab_interrupted) {
		lab_info("=== %s on %s: candidate %s ===", p->what, p->topology, o->candidate);
		cand_run = one_run(o, p, o->candidate, NULL);
	}
	if (!base_run || !cand_run) {
		lab_err("review: the %s kernel's run of %s broke; no report",
			base_run ? "candidate" : "base", p->what);
		g_free(base_run);
		return -1;
	}
	count(r, base_run, p, part, true, true);
	count(r, cand_run, p, part, false, true);
	if (part == 0) { /* the report links the first part's runs */
		r->base_run = base_run;
		r->cand_run = cand_run;
	} else {
		g_free(base_run);
		g_free(cand_run);
	}
	rerun(o, p, part, r);
	return 0;
}

int lab_candidate_review(const struct lab_candidate_opts *o)
{
	struct lab_cand_report *r = lab_cand_report_new();
	char *root = lab_path("reviews"), *id = NULL, *out = NULL, *text;
	double t0 = lab_now();
	struct part parts[2];
	int regressed, rc = 1, n;

	r->base = o->base;
	r->candidate = o->candidate;
	r->topology = o->topology;
	r->reruns = o->reruns;
	r->suites = o->names ? g_strjoinv(",", o->names) : NULL;
	r->bisectable = lab_bisectable(o->base, o->candidate, NULL);
	n = parts_of(o, parts);
	if (n > 1)
		r->suites = g_strdup_printf("the %s topology's suite, and %s", o->topology,
					    parts[1].what);
	if (lab_kernel_build(LAB_REVIEW_DEFAULT, o->base) != 0 ||
	    lab_kernel_build(LAB_REVIEW_DEFAULT, o->candidate) != 0)
		goto out;
	for (int i = 0; i < n; i++)
		if (lab_interrupted || run_part(o, &parts[i], i, r) != 0)
			goto out;
	if (lab_interrupted) {
		rc = 130;
		goto out;
	}
	regressed = lab_cand_classify(r);
	r->seconds = lab_now() - t0;
	if (!(out = lab_unique_dir(root, "candidate", &id)) || lab_cand_write(r, out) != 0)
		goto out;
	text = lab_cand_text(r);
	fputs(text, stdout);
	g_free(text);
	printf("report: %s/report.txt (and report.json, report.html)\n", out);
	rc = regressed ? 1 : 0;
out:
	if (lab_interrupted)
		rc = 130;
	lab_cand_report_free(r);
	g_free(root);
	g_free(id);
	g_free(out);
	return rc;
}
