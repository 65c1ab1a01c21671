/* report.c - one row per seed patch, from a baseline and a patched run.
 *
 * Honesty rule: a row is "fix verified" only when this review's baseline run
 * failed the seed's test with that seed's signature (a console report or
 * the test's own check that belongs to its bug: verdict.h) and the patched
 * run passed every instance of it. A failure for another reason (another
 * seed's splat, a dead guest with no report) makes the row inconclusive and
 * names that reason. Every row carries its provenance (faithful port,
 * emulated, approximate, fault injection, not in 2.6.32). Nothing here
 * knows what a verdict "should" be; review.ini only titles the rows. */
#include "core/report.h"
#include "core/results.h"
#include "util/util.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const conclusion_names[] = {
	[LAB_FIX_VERIFIED] = "fix verified",
	[LAB_NOT_REPRODUCED] = "not reproduced",
	[LAB_REGRESSION] = "regression",
	[LAB_CONCL_INCONCLUSIVE] = "inconclusive",
	[LAB_NOT_REPRODUCIBLE] = "not reproducible on 6.1",
	[LAB_FAULT_HANDLED] = "fix handles the injected fault",
};

const char *lab_conclusion_name(enum lab_conclusion c)
{
	return conclusion_names[c];
}

static int severity(const char *v)
{
	static const char *const order[] = { "pass", "skip", "inconclusive",
					     "error", "timeout", "fail" };
	int i;

	for (i = 0; i < (int)G_N_ELEMENTS(order); i++)
		if (strcmp(v, order[i]) == 0)
			return i;
	return 3;
}

const char *lab_aggregate(GPtrArray *verdicts)
{
	const char *worst = NULL;
	guint i;

	for (i = 0; i < verdicts->len; i++) {
		const char *v = g_ptr_array_index(verdicts, i);

		if (!worst || severity(v) > severity(worst))
			worst = v;
	}
	return worst;
}

enum lab_conclusion lab_conclude(const struct lab_side *b,
				 const struct lab_side *p, char **why)
{
	if (p->verdict && p->signature) {
		*why = g_strdup("the patched kernel fails with the seed's own signature");
		return LAB_REGRESSION;
	}
	if (!b->verdict || !p->verdict) {
		*why = g_strdup_printf("not run on %s", !b->verdict ? "baseline" : "patched");
		return LAB_CONCL_INCONCLUSIVE;
	}
	if (b->signature && p->all_pass) {
		*why = g_strdup("baseline failed with the seed's signature in this run, patched passed every instance");
		return LAB_FIX_VERIFIED;
	}
	if (b->all_pass && p->all_pass) {
		*why = g_strdup("baseline stayed clean: the test or the port is wrong");
		return LAB_NOT_REPRODUCED;
	}
	if (b->other && !b->signature)
		*why = g_strdup_printf("baseline failed for another reason: %s", b->other);
	else if (p->other)
		*why = g_strdup_printf("patched failed for another reason: %s", p->other);
	else
		*why = g_strdup_printf("baseline %s, patched %s", b->verdict, p->verdict);
	return LAB_CONCL_INCONCLUSIVE;
}

static void side_clear(struct lab_side *s)
{
	g_free(s->verdict);
	g_free(s->other);
	g_free(s->evidence);
	g_free(s->dir);
	g_free(s->excerpt);
}

static void row_free(gpointer p)
{
	struct lab_row *r = p;

	g_free(r->seed);
	g_free(r->article);
	g_free(r->title);
	g_free(r->impact);
	g_free(r->provenance);
	g_free(r->provenance_why);
	side_clear(&r->base);
	side_clear(&r->patched);
	g_free(r->why);
	g_free(r->impact_class);
	g_free(r->isolated);
	g_free(r->notes);
	g_free(r);
}

/* ---- evidence from a run ---- */

static bool in_list(char **tests, const char *t)
{
	for (; tests && *tests; tests++)
		if (strcmp(*tests, t) == 0)
			return true;
	return false;
}

static char *last_output_line(const char *run_dir, const char *test_dir)
{
	char *p = g_build_filename(run_dir, test_dir, "output.txt", NULL);
	char *text = NULL, *line = NULL;

	if (g_file_get_contents(p, &text, NULL, NULL)) {
		char **lines = g_strsplit(g_strchomp(text), "\n", -1);
		guint n = g_strv_length(lines);

		if (n)
			line = g_strdup(g_strstrip(lines[n - 1]));
		g_strfreev(lines);
	}
	g_free(text);
	g_free(p);
	return line;
}

/* The kernel's own first line when it complained (the signature's report
 * first), else the test's last word, else the runner's reason. */
static char *evidence(const struct lab_run *run, const struct lab_result *r)
{
	const struct lab_rreport *rep = NULL;
	guint i;

	for (i = 0; i < r->reports->len; i++) {
		const struct lab_rreport *x = g_ptr_array_index(r->reports, i);

		if (!rep || (x->signature && !rep->signature))
			rep = x;
	}
	if (rep) /* "sysfs: cannot create ..." is its own title: say it once */
		return g_str_has_prefix(rep->first_line, rep->title)
			? g_strdup(rep->first_line)
			: g_strdup_printf("%s: %s", rep->title, rep->first_line);
	if (r->verdict == LAB_FAIL || r->verdict == LAB_PASS) {
		char *l = r->dir ? last_output_line(run->dir, r->dir) : NULL;

		if (l && g_str_has_prefix(l, "# result: ")) {
			char *said = g_strdup(l + strlen("# result: "));

			g_free(l);
			l = said;
		}
		if (l && *l)
			return l;
		g_free(l);
	}
	return g_strdup(r->reason ? r->reason : "");
}

static char *excerpt_of(const struct lab_run *run, const struct lab_result *r)
{
	char *p = r->dir ? g_build_filename(run->dir, r->dir, "console-reports.txt", NULL) : NULL;
	char *text = NULL;

	if (!p || !g_file_get_contents(p, &text, NULL, NULL))
		text = NULL;
	g_free(p);
	if (text && strlen(text) > 6000)
		text[6000] = '\0';
	return text;
}

/* Which instance a side shows: a signature failure, else a failure for
 * another reason, else the worst verdict. */
static int rank(const struct lab_result *r)
{
	if (r->verdict == LAB_FAIL)
		return r->evidence == LAB_EV_SIGNATURE ? 100 : 90;
	return severity(lab_verdict_name(r->verdict));
}

static char *other_reason(const struct lab_result *r)
{
	const char *m = r->reason ? strstr(r->reason, "another reason: ") : NULL;

	return g_strdup(m ? m + strlen("another reason: ") : r->reason ? r->reason : "?");
}

static void fill_side(struct lab_side *s, const struct lab_run *run,
		      char **tests, const char *prefix, GString *notes)
{
	GPtrArray *vs = g_ptr_array_new();
	const struct lab_result *pick = NULL;
	guint i;

	s->all_pass = true;
	for (i = 0; run && i < run->results->len; i++) {
		const struct lab_result *r = g_ptr_array_index(run->results, i);

		if (!in_list(tests, r->test))
			continue;
		g_ptr_array_add(vs, (gpointer)lab_verdict_name(r->verdict));
		s->signature |= r->verdict == LAB_FAIL && r->evidence == LAB_EV_SIGNATURE;
		s->all_pass &= r->verdict == LAB_PASS;
		if (r->verdict == LAB_FAIL && r->evidence != LAB_EV_SIGNATURE && !s->other)
			s->other = other_reason(r);
		if (!pick || rank(r) > rank(pick))
			pick = r;
		if (notes && (r->window_hits >= 0 || r->counts))
			g_string_append_printf(notes, "%s%s %s: %s", notes->len ? "; " : "",
					       prefix, r->name, r->counts ? r->counts : "");
		if (notes && r->window_hits >= 0 && !r->counts)
			g_string_append_printf(notes, "window hits %ld", r->window_hits);
	}
	if (vs->len)
		s->verdict = g_strdup(lab_aggregate(vs));
	else
		s->all_pass = false;
	g_ptr_array_free(vs, TRUE);
	s->evidence = pick ? evidence(run, pick) : g_strdup("not run");
	if (pick) {
		s->excerpt = excerpt_of(run, pick);
		s->dir = pick->dir ? g_build_filename(prefix, pick->dir, NULL) : NULL;
	}
}

/* Single-bug runs (lab review --isolate): the same signature must show. */
static char *isolation(const struct lab_run *iso, char **tests)
{
	struct lab_side s = { 0 };
	char *out;

	if (!iso)
		return NULL;
	fill_side(&s, iso, tests, "isolated", NULL);
	if (!s.verdict)
		out = NULL;
	else if (s.signature)
		out = g_strdup("yes");
	else if (s.other)
		out = g_strdup_printf("no (failed for another reason: %s)", s.other);
	else
		out = g_strdup_printf("no (%s)", s.verdict);
	side_clear(&s);
	return out;
}

static void fill_row(struct lab_row *row, char **tests, struct lab_run *base,
		     struct lab_run *patched, struct lab_run *iso,
		     const char *impact_if)
{
	GString *notes = g_string_new("");

	fill_side(&row->base, base, tests, "baseline", notes);
	fill_side(&row->patched, patched, tests, "patched", notes);
	row->conclusion = lab_conclude(&row->base, &row->patched, &row->why);
	if (row->conclusion == LAB_FIX_VERIFIED && row->synthetic)
		row->conclusion = LAB_FAULT_HANDLED; /* a module made the fault */
	if (row->conclusion == LAB_FIX_VERIFIED || row->conclusion == LAB_FAULT_HANDLED)
		row->impact_class = g_strdup(impact_if ? impact_if : "");
	row->isolated = isolation(iso, tests);
	row->notes = g_string_free(notes, notes->len == 0);
}

static struct lab_row *make_row(GKeyFile *kf, const char *grp,
				struct lab_run *base, struct lab_run *patched,
				struct lab_run *iso)
{
	struct lab_row *row = g_new0(struct lab_row, 1);
	char **tests = g_key_file_get_string_list(kf, grp, "tests", NULL, NULL);
	char *impact_if = g_key_file_get_string(kf, grp, "impact_if_verified", NULL);
	char *reason = g_key_file_get_string(kf, grp, "reason", NULL);
	GError *e = NULL;
	bool reproducible = g_key_file_get_boolean(kf, grp, "reproducible", &e);

	if (e) {
		reproducible = true;
		g_error_free(e);
	}
	row->seed = g_strdup(grp + strlen("seed "));
	row->article = g_key_file_get_string(kf, grp, "article", NULL);
	row->title = g_key_file_get_string(kf, grp, "title", NULL);
	row->impact = g_key_file_get_string(kf, grp, "impact", NULL);
	row->provenance = g_key_file_get_string(kf, grp, "provenance", NULL);
	row->provenance_why = g_key_file_get_string(kf, grp, "provenance_why", NULL);
	row->synthetic = row->provenance && strcmp(row->provenance, "fault injection") == 0;
	if (!reproducible) {
		row->conclusion = LAB_NOT_REPRODUCIBLE;
		row->why = g_strdup(reason ? reason : "");
	} else if (!tests || !tests[0] || !*tests[0]) {
		row->conclusion = LAB_CONCL_INCONCLUSIVE;
		row->why = g_strdup_printf("no test: %s", reason ? reason : "none written");
	} else {
		row->counts = true;
		fill_row(row, tests, base, patched, iso, impact_if);
	}
	if (iso && !row->isolated) /* an isolation run: say why not this row */
		row->isolated = g_strdup_printf("not run (%s; only rows whose seed showed are isolated)",
						lab_conclusion_name(row->conclusion));
	g_strfreev(tests);
	g_free(impact_if);
	g_free(reason);
	return row;
}

GPtrArray *lab_report_rows(const char *review_ini, struct lab_run *base,
			   struct lab_run *patched, struct lab_run *isolated,
			   char **err)
{
	GKeyFile *kf = g_key_file_new();
	GPtrArray *rows = g_ptr_array_new_with_free_func(row_free);
	GError *e = NULL;
	char **groups;
	int i;

	if (!g_key_file_load_from_file(kf, review_ini, G_KEY_FILE_NONE, &e)) {
		*err = g_strdup_printf("%s: %s", review_ini, e->message);
		g_error_free(e);
		g_key_file_free(kf);
		g_ptr_array_free(rows, TRUE);
		return NULL;
	}
	groups = g_key_file_get_groups(kf, NULL);
	for (i = 0; groups[i]; i++)
		if (g_str_has_prefix(groups[i], "seed "))
			g_ptr_array_add(rows, make_row(kf, groups[i], base, patched, isolated));
	g_strfreev(groups);
	g_key_file_free(kf);
	return rows;
}

/* "fix verified (emulated bug)": the conclusion with what kind of evidence
 * stands behind it. */
