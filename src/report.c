/* report.c - one row per seed patch, from a baseline and a patched run.
 *
 * Honesty rule: a row is "fix verified" only when this review's baseline run
 * failed the seed's test (the kernel's own console report or the test's own
 * check) and the patched run passed it. Nothing here knows what a verdict
 * "should" be; review.ini only titles the rows. */
#include "report.h"
#include "util.h"

#include <json-c/json.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char *const conclusion_names[] = {
	[LAB_FIX_VERIFIED] = "fix verified",
	[LAB_NOT_REPRODUCED] = "not reproduced",
	[LAB_REGRESSION] = "regression",
	[LAB_CONCL_INCONCLUSIVE] = "inconclusive",
	[LAB_NOT_REPRODUCIBLE] = "not reproducible on 6.1",
};

const char *lab_conclusion_name(enum lab_conclusion c)
{
	return conclusion_names[c];
}

static int severity(const char *v)
{
	static const char *const order[] = { "pass", "skip", "inconclusive",
					     "error", "fail" };
	int i;

	for (i = 0; i < 5; i++)
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

enum lab_conclusion lab_conclude(const char *base, const char *patched)
{
	if (patched && strcmp(patched, "fail") == 0)
		return LAB_REGRESSION;
	if (!base || !patched)
		return LAB_CONCL_INCONCLUSIVE;
	if (strcmp(base, "fail") == 0 && strcmp(patched, "pass") == 0)
		return LAB_FIX_VERIFIED;
	if (strcmp(base, "pass") == 0 && strcmp(patched, "pass") == 0)
		return LAB_NOT_REPRODUCED;
	return LAB_CONCL_INCONCLUSIVE;
}

static void row_free(gpointer p)
{
	struct lab_row *r = p;

	g_free(r->seed);
	g_free(r->article);
	g_free(r->title);
	g_free(r->impact);
	g_free(r->base_verdict);
	g_free(r->patched_verdict);
	g_free(r->base_evidence);
	g_free(r->patched_evidence);
	g_free(r->why);
	g_free(r->impact_class);
	g_free(r->excerpt);
	g_free(r->base_dir);
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

/* The kernel's own first line when it complained, else the test's last
 * word, else the runner's reason. */
static char *evidence(const struct lab_run *run, const struct lab_result *r)
{
	if (r->reports->len) {
		char **f = g_strsplit(g_ptr_array_index(r->reports, 0), "|", 3);
		const char *title = f[1] ? f[1] : "", *first = f[1] && f[2] ? f[2] : "";
		/* "sysfs: cannot create ..." is its own title: say it once */
		char *e = g_str_has_prefix(first, title) ? g_strdup(first)
			: g_strdup_printf("%s: %s", title, first);

		g_strfreev(f);
		return e;
	}
	if (r->verdict == LAB_FAIL || r->verdict == LAB_PASS) {
		char *l = last_output_line(run->dir, r->dir);

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
	char *p = g_build_filename(run->dir, r->dir, "console-reports.txt", NULL);
	char *text = NULL;

	if (!g_file_get_contents(p, &text, NULL, NULL))
		text = NULL;
	g_free(p);
	if (text && strlen(text) > 6000)
		text[6000] = '\0';
	return text;
}

/* Aggregate a seed's instances in one run; *pick is the instance whose
 * evidence the row shows (the worst one). */
static char *seed_verdict(const struct lab_run *run, char **tests,
			  const struct lab_result **pick)
{
	GPtrArray *vs = g_ptr_array_new();
	const char *agg;
	char *out;
	guint i;

	*pick = NULL;
	for (i = 0; run && i < run->results->len; i++) {
		const struct lab_result *r = g_ptr_array_index(run->results, i);

		if (!in_list(tests, r->test))
			continue;
		g_ptr_array_add(vs, (gpointer)lab_verdict_name(r->verdict));
		if (!*pick || severity(lab_verdict_name(r->verdict)) >
			      severity(lab_verdict_name((*pick)->verdict)))
			*pick = r;
	}
	agg = lab_aggregate(vs);
	out = agg ? g_strdup(agg) : NULL;
	g_ptr_array_free(vs, TRUE);
	return out;
}

static void fill_verdicts(struct lab_row *row, char **tests,
			  struct lab_run *base, struct lab_run *patched,
			  const char *impact_if)
{
	const struct lab_result *b, *p;

	row->base_verdict = seed_verdict(base, tests, &b);
	row->patched_verdict = seed_verdict(patched, tests, &p);
	row->base_evidence = b ? evidence(base, b) : g_strdup("not run");
	row->patched_evidence = p ? evidence(patched, p) : g_strdup("not run");
	if (b) {
		row->excerpt = excerpt_of(base, b);
		row->base_dir = g_build_filename("baseline", b->dir, NULL);
	}
	row->conclusion = lab_conclude(row->base_verdict, row->patched_verdict);
	switch (row->conclusion) {
	case LAB_FIX_VERIFIED:
		row->why = g_strdup("reproduced on baseline in this run, clean on patched");
		row->impact_class = g_strdup(impact_if ? impact_if : "");
		break;
	case LAB_NOT_REPRODUCED:
		row->why = g_strdup("baseline stayed clean: the test or the port is wrong");
		break;
	case LAB_REGRESSION:
		row->why = g_strdup("the patched kernel fails the test");
		break;
	default:
		row->why = g_strdup_printf("baseline %s, patched %s",
					   row->base_verdict ? row->base_verdict : "not run",
					   row->patched_verdict ? row->patched_verdict : "not run");
	}
}

static struct lab_row *make_row(GKeyFile *kf, const char *grp,
				struct lab_run *base, struct lab_run *patched)
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
	if (g_key_file_get_boolean(kf, grp, "synthetic", NULL))
		row->synthetic = true;
	if (!reproducible) {
		row->conclusion = LAB_NOT_REPRODUCIBLE;
		row->why = g_strdup(reason ? reason : "");
	} else if (!tests || !tests[0] || !*tests[0]) {
		row->conclusion = LAB_CONCL_INCONCLUSIVE;
		row->why = g_strdup_printf("no test: %s", reason ? reason : "none written");
	} else {
		row->counts = true;
		fill_verdicts(row, tests, base, patched, impact_if);
	}
	if (!row->base_evidence)
		row->base_evidence = g_strdup("");
	if (!row->patched_evidence)
		row->patched_evidence = g_strdup("");
	g_strfreev(tests);
	g_free(impact_if);
	g_free(reason);
	return row;
}

GPtrArray *lab_report_rows(const char *review_ini, struct lab_run *base,
			   struct lab_run *patched, char **err)
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
			g_ptr_array_add(rows, make_row(kf, groups[i], base, patched));
	g_strfreev(groups);
	g_key_file_free(kf);
	return rows;
}

/* ---- text ---- */

static char *clip(const char *s, int n)
{
	if (!s)
		return g_strdup("-");
	if ((int)strlen(s) <= n)
		return g_strdup(s);
	return g_strdup_printf("%.*s...", n - 3, s);
}

char *lab_report_text(GPtrArray *rows)
{
	GString *t = g_string_new("");
	guint i;

	g_string_append_printf(t, "%-4s %-4s %-44s %-12s %-12s %s\n", "#", "seed",
			       "title", "baseline", "patched", "conclusion");
	for (i = 0; i < rows->len; i++) {
		const struct lab_row *r = g_ptr_array_index(rows, i);
		char *title = clip(r->title, 44);

		g_string_append_printf(t, "%-4s %-4s %-44s %-12s %-12s %s\n",
				       r->article, r->seed, title,
				       r->base_verdict ? r->base_verdict : "-",
				       r->patched_verdict ? r->patched_verdict : "-",
				       lab_conclusion_name(r->conclusion));
		if (r->base_verdict)
			g_string_append_printf(t, "          baseline: %s\n",
					       r->base_evidence);
		g_string_append_printf(t, "          %s%s%s%s\n",
				       r->synthetic ? "SYNTHETIC (fault injection): " : "",
				       r->why,
				       r->impact_class ? "; impact: " : "",
				       r->impact_class ? r->impact_class : "");
		g_free(title);
	}
	return g_string_free(t, FALSE);
}

/* ---- JSON ---- */

static void jadd(json_object *o, const char *k, const char *v)
{
	json_object_object_add(o, k, v ? json_object_new_string(v) : NULL);
}

char *lab_report_json(GPtrArray *rows, const struct lab_run *base,
		      const struct lab_run *patched)
{
	json_object *o = json_object_new_object(), *arr = json_object_new_array();
	char *s;
	guint i;

	jadd(o, "baseline_run", base ? base->id : NULL);
	jadd(o, "patched_run", patched ? patched->id : NULL);
	for (i = 0; i < rows->len; i++) {
		const struct lab_row *r = g_ptr_array_index(rows, i);
		json_object *j = json_object_new_object();

		jadd(j, "seed", r->seed);
		jadd(j, "article", r->article);
		jadd(j, "title", r->title);
		jadd(j, "impact", r->impact);
		jadd(j, "baseline", r->base_verdict);
		jadd(j, "baseline_evidence", r->base_evidence);
		jadd(j, "patched", r->patched_verdict);
		jadd(j, "patched_evidence", r->patched_evidence);
		jadd(j, "conclusion", lab_conclusion_name(r->conclusion));
		jadd(j, "why", r->why);
		jadd(j, "impact_class", r->impact_class);
		jadd(j, "baseline_dir", r->base_dir);
		json_object_object_add(j, "synthetic", json_object_new_boolean(r->synthetic));
		json_object_array_add(arr, j);
	}
	json_object_object_add(o, "rows", arr);
	s = g_strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
						    JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	return s;
}

/* ---- HTML: one file, inline CSS, no network ---- */

static const char html_head[] =
	"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	"<title>lab review: 2.6.32.9 security fixes on 6.1</title>\n<style>\n"
	"body{font-family:sans-serif;margin:1.5em;color:#222}\n"
	"table{border-collapse:collapse;width:100%}\n"
	"th,td{border:1px solid #ccc;padding:.35em .5em;vertical-align:top;text-align:left}\n"
	"th{background:#eee}\n"
	".v-pass{background:#d8f5d0}.v-fail{background:#f8d0d0}.v-error{background:#f3c6f3}\n"
	".v-inconclusive,.v-skip{background:#fff1c2}\n"
	".c-fix-verified{background:#b9efad;font-weight:bold}.c-regression{background:#f4a6a6;font-weight:bold}\n"
	".c-not-reproduced{background:#ffd9a0}.c-inconclusive{background:#fff1c2}\n"
	".c-not-reproducible-on-6-1{background:#e4e4e4}\n"
	"pre{white-space:pre-wrap;font-size:85%;background:#f7f7f7;padding:.5em;max-height:30em;overflow:auto}\n"
	"code{font-size:90%}\n</style></head><body>\n";

static char *css_class(const char *s)
{
	char *c = g_ascii_strdown(s ? s : "none", -1);

	g_strcanon(c, "abcdefghijklmnopqrstuvwxyz0123456789", '-');
	return c;
}

static void html_cell(GString *h, const char *cls_prefix, const char *v)
{
	char *c = css_class(v);
	char *e = g_markup_escape_text(v ? v : "not run", -1);

	g_string_append_printf(h, "<td class=\"%s%s\">%s</td>", cls_prefix, c, e);
	g_free(c);
	g_free(e);
}

static void html_row(GString *h, const struct lab_row *r)
{
	char *t = g_markup_escape_text(r->title ? r->title : "", -1);
	char *imp = g_markup_escape_text(r->impact ? r->impact : "", -1);
	char *be = g_markup_escape_text(r->base_evidence, -1);
	char *pe = g_markup_escape_text(r->patched_evidence, -1);
	char *why = g_markup_escape_text(r->why ? r->why : "", -1);

	g_string_append_printf(h, "<tr class=\"row\" id=\"seed-%s\"><td>#%s</td>"
			       "<td><b>%s</b><br><small>%s</small></td>",
			       r->seed, r->article, t, imp);
	html_cell(h, "v-", r->counts ? r->base_verdict : "n/a");
	g_string_append_printf(h, "<td><code>%s</code>", be);
	if (r->excerpt) {
		char *ex = g_markup_escape_text(r->excerpt, -1);

		g_string_append_printf(h, "<details><summary>console excerpt</summary><pre>%s</pre></details>", ex);
		g_free(ex);
	}
	if (r->base_dir)
		g_string_append_printf(h, "<br><a href=\"%s/output.txt\">test output</a>"
				       " &middot; <a href=\"baseline/consoles/\">consoles</a>",
				       r->base_dir);
	g_string_append(h, "</td>");
	html_cell(h, "v-", r->counts ? r->patched_verdict : "n/a");
	g_string_append_printf(h, "<td><code>%s</code></td>", pe);
	html_cell(h, "c-", lab_conclusion_name(r->conclusion));
	g_string_append_printf(h, "<td>%s%s%s%s</td></tr>\n",
			       r->synthetic ? "<b>SYNTHETIC: fault injection, not a user-space trigger.</b><br>" : "",
			       why,
			       r->impact_class ? "<br><b>impact:</b> " : "",
			       r->impact_class ? r->impact_class : "");
	g_free(t);
	g_free(imp);
	g_free(be);
	g_free(pe);
	g_free(why);
}

char *lab_report_html(GPtrArray *rows, const struct lab_run *base,
		      const struct lab_run *patched)
{
	GString *h = g_string_new(html_head);
	guint i;

	g_string_append_printf(h, "<h1>2.6.32.9 security fixes, reproduced on 6.1</h1>\n"
			       "<p>Baseline run <a href=\"baseline/results.json\">%s</a>, "
			       "patched run <a href=\"patched/results.json\">%s</a>. "
			       "A row says <i>fix verified</i> only when this review's "
			       "baseline run failed the test and the patched run passed it.</p>\n",
			       base && base->id ? base->id : "none",
			       patched && patched->id ? patched->id : "none");
	g_string_append(h, "<table><thead><tr><th>#</th><th>patch / article's impact</th>"
			"<th>baseline</th><th>baseline evidence</th><th>patched</th>"
			"<th>patched evidence</th><th>conclusion</th><th>why / impact class</th>"
			"</tr></thead><tbody>\n");
	for (i = 0; i < rows->len; i++)
		html_row(h, g_ptr_array_index(rows, i));
	g_string_append(h, "</tbody></table>\n</body></html>\n");
	return g_string_free(h, FALSE);
}

/* ---- files ---- */

static void link_run(const char *dir, const char *name, const char *target)
{
	char *p = g_build_filename(dir, name, NULL);

	unlink(p);
	if (target && symlink(target, p) != 0)
		lab_err("cannot link %s -> %s", p, target);
	g_free(p);
}

static int write_all(const char *dir, GPtrArray *rows, struct lab_run *b,
		     struct lab_run *p)
{
	char *txt = lab_report_text(rows), *json = lab_report_json(rows, b, p);
	char *html = lab_report_html(rows, b, p);
	char *pt = g_build_filename(dir, "report.txt", NULL);
	char *pj = g_build_filename(dir, "report.json", NULL);
	char *ph = g_build_filename(dir, "report.html", NULL);
	int rc = lab_write_file(pt, txt, -1) | lab_write_file(pj, json, -1) |
		 lab_write_file(ph, html, -1);

	fputs(txt, stdout);
	printf("report: %s (and report.json, report.txt)\n", ph);
	g_free(txt);
	g_free(json);
	g_free(html);
	g_free(pt);
	g_free(pj);
	g_free(ph);
	return rc;
}

int lab_report_write(const char *dir, const char *base_run_dir,
		     const char *patched_run_dir)
{
	char *ini = lab_src_path("patches/2.6.32.9/review.ini"), *err = NULL;
	struct lab_run *b = base_run_dir ? lab_results_load_dir(base_run_dir) : NULL;
	struct lab_run *p = patched_run_dir ? lab_results_load_dir(patched_run_dir) : NULL;
	GPtrArray *rows;
	int short_rows = -1;
	guint i;

	lab_mkdir_p(dir);
	link_run(dir, "baseline", base_run_dir);
	link_run(dir, "patched", patched_run_dir);
	rows = lab_report_rows(ini, b, p, &err);
	if (!rows) {
		lab_err("%s", err);
		goto out;
	}
	short_rows = 0;
	for (i = 0; i < rows->len; i++) {
		const struct lab_row *r = g_ptr_array_index(rows, i);

		if (r->counts && r->conclusion != LAB_FIX_VERIFIED) {
			lab_err("seed %s (#%s %s): %s (%s)", r->seed, r->article,
				r->title, lab_conclusion_name(r->conclusion), r->why);
			short_rows++;
		}
	}
	if (write_all(dir, rows, b, p) != 0)
		short_rows = -1;
	g_ptr_array_free(rows, TRUE);
out:
	lab_run_free(b);
	lab_run_free(p);
	g_free(ini);
	g_free(err);
	return short_rows;
}
