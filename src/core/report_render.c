/* report_render.c - the review's report as files: report.txt (rows in a
 * table), report.json (everything a tool needs) and report.html (one
 * self-contained page, fits 1280 px), each opening with the same summary;
 * and `lab report`, which renders a review again from its runs. */
#include "core/report.h"
#include "core/results.h"
#include "util/util.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *conclusion_label(const struct lab_row *r)
{
	const char *c = lab_conclusion_name(r->conclusion);

	if (!r->provenance || r->conclusion == LAB_NOT_REPRODUCIBLE)
		return g_strdup(c);
	if (!strcmp(r->provenance, "emulated") || !strcmp(r->provenance, "approximate"))
		return g_strdup_printf("%s (%s bug)", c, r->provenance);
	return g_strdup_printf("%s (%s)", c, r->provenance);
}

/* ---- the summary every format opens with ---- */

struct counts {
	int verified, inconclusive, not_reproducible, not_reproduced, regression;
	int fault_handled; /* fault injection: apart from "fix verified" */
};

static struct counts count_rows(GPtrArray *rows)
{
	struct counts n = { 0 };
	guint i;

	for (i = 0; i < rows->len; i++) {
		const struct lab_row *r = g_ptr_array_index(rows, i);

		n.verified += r->conclusion == LAB_FIX_VERIFIED;
		n.inconclusive += r->conclusion == LAB_CONCL_INCONCLUSIVE;
		n.not_reproducible += r->conclusion == LAB_NOT_REPRODUCIBLE;
		n.not_reproduced += r->conclusion == LAB_NOT_REPRODUCED;
		n.regression += r->conclusion == LAB_REGRESSION;
		n.fault_handled += r->conclusion == LAB_FAULT_HANDLED;
	}
	return n;
}

static char *kernel_line(const char *which, const struct lab_run *r)
{
	if (!r)
		return g_strdup_printf("%s: not run", which);
	return g_strdup_printf("%s: run %s, kernel key %s, uname -r %s", which,
			       r->id ? r->id : "?", r->kernel_key ? r->kernel_key : "?",
			       r->kernel_release ? r->kernel_release : "?");
}

static char *summary_text(GPtrArray *rows, const struct lab_review_info *info,
			  const struct lab_run *b, const struct lab_run *p)
{
	struct counts n = count_rows(rows);
	char *kb = kernel_line("baseline", b), *kp = kernel_line("patched", p);
	char *s = g_strdup_printf(
		"review %s on topology %s: %d fix verified, %d fix handles the injected "
		"fault, %d inconclusive, %d not reproducible on 6.1, %d not reproduced, "
		"%d regression\n"
		"%s\n%s\n%s%s%s",
		info && info->name ? info->name : "?",
		info && info->topology ? info->topology
			: b && b->topology ? b->topology : "?",
		n.verified, n.fault_handled, n.inconclusive, n.not_reproducible, n.not_reproduced,
		n.regression, kb, kp,
		info && info->phases ? "wall time: " : "",
		info && info->phases ? info->phases : "",
		info && info->phases ? "\n" : "");

	g_free(kb);
	g_free(kp);
	return s;
}

/* One line that says how the review came out, for the top of a page. */
static char *verdict_banner(const struct counts *n)
{
	int counted = n->verified + n->inconclusive + n->not_reproduced + n->regression;

	if (n->regression)
		return g_strdup_printf("%d regression%s: a fix fails on patched",
				       n->regression, n->regression == 1 ? "" : "s");
	const char *inj = n->fault_handled ? "; the injected fault handled" : "";

	if (n->verified == counted)
		return g_strdup_printf("%d of %d reproducible fixes verified%s", n->verified,
				       counted, inj);
	return g_strdup_printf("%d of %d reproducible fixes verified; %d fall short "
			       "(inconclusive or not reproduced)%s", n->verified, counted,
			       counted - n->verified, inj);
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

#define TEXT_WIDTH 100 /* report.txt reads in a terminal or a mail */

/* TEXT after INDENT spaces, wrapped at spaces to TEXT_WIDTH columns (a
 * word longer than a line stays whole). */
static void wrapped(GString *t, int indent, const char *text)
{
	const char *p = text ? text : "-";
	int col = 0;

	while (*p) {
		size_t w = strcspn(p, " "), n;

		if (col && col + 1 + (int)w > TEXT_WIDTH - indent) {
			g_string_append_c(t, '\n');
			col = 0;
		}
		if (!col)
			g_string_append_printf(t, "%*s", indent, "");
		else
			g_string_append_c(t, ' ');
		g_string_append_len(t, p, (gssize)w);
		col += (col ? 1 : 0) + (int)w;
		p += w;
		n = strspn(p, " ");
		p += n;
	}
	g_string_append_c(t, '\n');
}

char *lab_report_text(GPtrArray *rows, const struct lab_review_info *info,
		      const struct lab_run *b, const struct lab_run *p)
{
	char *sum = summary_text(rows, info, b, p);
	char **lines = g_strsplit(g_strchomp(sum), "\n", -1);
	GString *t = g_string_new("");
	guint i;

	for (i = 0; lines[i]; i++)
		wrapped(t, 0, lines[i]); /* the wall-time line is long */
	g_strfreev(lines);
	g_free(sum);
	/* the provenance has its own line below: the row fits TEXT_WIDTH */
	g_string_append_printf(t, "\n%-4s %-4s %-30s %-12s %-12s %s\n", "#", "seed",
			       "title", "baseline", "patched", "conclusion");
	for (i = 0; i < rows->len; i++) {
		const struct lab_row *r = g_ptr_array_index(rows, i);
		char *title = clip(r->title, 30);
		const char *label = lab_conclusion_name(r->conclusion);

		g_string_append_printf(t, "%-4s %-4s %-30s %-12s %-12s %s\n",
				       r->article, r->seed, title,
				       r->base.verdict ? r->base.verdict : "-",
				       r->patched.verdict ? r->patched.verdict : "-", label);
		if (r->base.verdict) {
			char *e = g_strdup_printf("baseline: %s", r->base.evidence);

			wrapped(t, 10, e);
			g_free(e);
		}
		{
			char *w = g_strdup_printf("%s%s%s%s",
						  r->synthetic ? "SYNTHETIC (fault injection): " : "",
						  r->why, r->impact_class ? "; impact: " : "",
						  r->impact_class ? r->impact_class : "");

			wrapped(t, 10, w);
			g_free(w);
		}
		if (r->provenance_why) {
			char *pv = g_strdup_printf("provenance: %s: %s", r->provenance,
						   r->provenance_why);

			wrapped(t, 10, pv);
			g_free(pv);
		}
		if (r->isolated) {
			char *iso = g_strdup_printf("isolated: %s", r->isolated);

			wrapped(t, 10, iso);
			g_free(iso);
		}
		if (r->notes)
			wrapped(t, 10, r->notes);
		g_free(title);
	}
	return g_string_free(t, FALSE);
}

/* ---- JSON ---- */

static void jadd(json_object *o, const char *k, const char *v)
{
	char *ok = v ? g_utf8_make_valid(v, -1) : NULL;

	json_object_object_add(o, k, ok ? json_object_new_string(ok) : NULL);
	g_free(ok);
}

static json_object *side_json(const struct lab_side *s)
{
	json_object *j = json_object_new_object();

	jadd(j, "verdict", s->verdict);
	json_object_object_add(j, "signature", json_object_new_boolean(s->signature));
	json_object_object_add(j, "all_pass", json_object_new_boolean(s->all_pass));
	jadd(j, "failed_for_another_reason", s->other);
	jadd(j, "evidence", s->evidence);
	jadd(j, "dir", s->dir);
	return j;
}

static json_object *run_json(const struct lab_run *r)
{
	json_object *j = json_object_new_object();

	jadd(j, "id", r ? r->id : NULL);
	jadd(j, "kernel_key", r ? r->kernel_key : NULL);
	jadd(j, "uname_r", r ? r->kernel_release : NULL);
	return j;
}

char *lab_report_json(GPtrArray *rows, const struct lab_review_info *info,
		      const struct lab_run *base, const struct lab_run *patched)
{
	json_object *o = json_object_new_object(), *arr = json_object_new_array();
	json_object *sum = json_object_new_object();
	struct counts n = count_rows(rows);
	char *s;
	guint i;

	jadd(o, "review", info ? info->name : NULL);
	jadd(o, "topology", info ? info->topology : NULL);
	jadd(o, "wall_time", info ? info->phases : NULL);
	json_object_object_add(o, "baseline", run_json(base));
	json_object_object_add(o, "patched", run_json(patched));
	json_object_object_add(sum, "fix_verified", json_object_new_int(n.verified));
	json_object_object_add(sum, "fault_handled", json_object_new_int(n.fault_handled));
	json_object_object_add(sum, "inconclusive", json_object_new_int(n.inconclusive));
	json_object_object_add(sum, "not_reproducible", json_object_new_int(n.not_reproducible));
	json_object_object_add(sum, "not_reproduced", json_object_new_int(n.not_reproduced));
	json_object_object_add(sum, "regression", json_object_new_int(n.regression));
	json_object_object_add(o, "summary", sum);
	for (i = 0; i < rows->len; i++) {
		const struct lab_row *r = g_ptr_array_index(rows, i);
		json_object *j = json_object_new_object();
		char *label = conclusion_label(r);

		jadd(j, "seed", r->seed);
		jadd(j, "article", r->article);
		jadd(j, "title", r->title);
		jadd(j, "impact", r->impact);
		jadd(j, "provenance", r->provenance);
		jadd(j, "provenance_why", r->provenance_why);
		json_object_object_add(j, "baseline", side_json(&r->base));
		json_object_object_add(j, "patched", side_json(&r->patched));
		jadd(j, "conclusion", lab_conclusion_name(r->conclusion));
		jadd(j, "label", label);
		jadd(j, "why", r->why);
		jadd(j, "impact_class", r->impact_class);
		jadd(j, "isolated", r->isolated);
		jadd(j, "notes", r->notes);
		json_object_object_add(j, "synthetic", json_object_new_boolean(r->synthetic));
		json_object_array_add(arr, j);
		g_free(label);
	}
	json_object_object_add(o, "rows", arr);
	s = g_strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
						    JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	return s;
}

/* ---- HTML: one file, inline CSS, no network; fits 1280 px ---- */

static const char html_style[] =
	"<style>\n"
	"body{font-family:sans-serif;margin:1em;color:#222;max-width:1240px}\n"
	"table{border-collapse:collapse;width:100%;table-layout:fixed}\n"
	"th,td{border:1px solid #ccc;padding:.3em .4em;vertical-align:top;text-align:left;"
	"overflow-wrap:anywhere;word-break:break-word;font-size:90%}\n"
	"th{background:#eee}\n"
	"col.n{width:3em}col.t{width:14%}col.v{width:6.3em}col.e{width:15%}col.c{width:8em}\n"
	".v-pass{background:#d8f5d0}.v-fail{background:#f8d0d0}.v-error,.v-timeout{background:#f3c6f3}\n"
	".v-inconclusive,.v-skip{background:#fff1c2}\n"
	".c-fix-verified{background:#b9efad;font-weight:bold}.c-fix-handles-the-injected-fault{background:#dcefd6}.c-regression{background:#f4a6a6;font-weight:bold}\n"
	".c-not-reproduced{background:#ffd9a0}.c-inconclusive{background:#fff1c2}\n"
	".c-not-reproducible-on-6-1{background:#e4e4e4}\n"
	"pre{white-space:pre-wrap;font-size:85%;background:#f7f7f7;padding:.4em;max-height:25em;overflow:auto}\n"
	"code{font-size:95%}.summary td{font-size:100%}\n"
	".banner{font-size:130%;font-weight:bold;padding:.5em .7em;margin:.5em 0;border-radius:4px}\n"
	".banner.ok{background:#b9efad}.banner.short{background:#f4a6a6}\n"
	".wide{overflow-x:auto}\n"
	"@media (max-width:900px){table{table-layout:auto;min-width:860px}body{margin:.4em}}\n"
	"</style>\n";

static char *css_class(const char *s)
{
	char *c = g_ascii_strdown(s ? s : "none", -1);

	g_strcanon(c, "abcdefghijklmnopqrstuvwxyz0123456789", '-');
	return c;
}

static void html_verdict(GString *h, const char *v)
{
	char *c = css_class(v), *e = lab_html_esc(v ? v : "not run");

	g_string_append_printf(h, "<td class=\"v-%s\">%s</td>", c, e);
	g_free(c);
	g_free(e);
}

static void html_evidence(GString *h, const struct lab_side *s, bool links)
{
	char *e = lab_html_esc(s->evidence);

	g_string_append_printf(h, "<td><code>%s</code>", e);
	if (s->excerpt) {
		char *ex = lab_html_esc(s->excerpt);

		g_string_append_printf(h, "<details><summary>console excerpt</summary><pre>%s</pre></details>", ex);
		g_free(ex);
	}
	if (links && s->dir) {
		char *d = lab_html_esc(s->dir);

		g_string_append_printf(h, "<br><a href=\"%s/output.txt\">test output</a>", d);
		g_free(d);
	}
	g_string_append(h, "</td>");
	g_free(e);
}

static void html_row(GString *h, const struct lab_row *r)
{
	char *seed = lab_html_esc(r->seed), *art = lab_html_esc(r->article), *t = lab_html_esc(r->title);
	char *imp = lab_html_esc(r->impact), *why = lab_html_esc(r->why), *label = conclusion_label(r);
	char *lab = lab_html_esc(label), *cls = css_class(lab_conclusion_name(r->conclusion));
	char *ic = lab_html_esc(r->impact_class), *prov = lab_html_esc(r->provenance_why);
	char *iso = lab_html_esc(r->isolated ? r->isolated : "not run"), *notes = lab_html_esc(r->notes);

	g_string_append_printf(h, "<tr class=\"row\" id=\"seed-%s\"><td>#%s<br><small>%s</small></td>"
			       "<td><b>%s</b><br><small>%s</small></td>", seed, art, seed, t, imp);
	html_verdict(h, r->counts ? r->base.verdict : "n/a");
	html_evidence(h, &r->base, true);
	html_verdict(h, r->counts ? r->patched.verdict : "n/a");
	html_evidence(h, &r->patched, false);
	g_string_append_printf(h, "<td class=\"c-%s\">%s</td>", cls, lab);
	g_string_append_printf(h, "<td>%s%s%s%s%s%s%s%s<br><small>isolated: %s</small>%s%s%s</td></tr>\n",
			       r->synthetic ? "<b>SYNTHETIC: fault injection, not a user-space trigger.</b><br>" : "",
			       why, r->impact_class ? "<br><b>impact:</b> " : "", r->impact_class ? ic : "",
			       r->provenance_why ? "<br><small><b>provenance:</b> " : "",
			       r->provenance_why ? prov : "", r->provenance_why ? "</small>" : "",
			       "", iso, r->notes ? "<br><small>" : "", r->notes ? notes : "",
			       r->notes ? "</small>" : "");
	g_free(seed);
	g_free(art);
	g_free(t);
	g_free(imp);
	g_free(why);
	g_free(label);
	g_free(lab);
	g_free(cls);
	g_free(ic);
	g_free(prov);
	g_free(iso);
	g_free(notes);
}

char *lab_report_html(GPtrArray *rows, const struct lab_review_info *info,
		      const struct lab_run *base, const struct lab_run *patched)
{
	char *name = lab_html_esc(info && info->name ? info->name : "?");
	char *sum = summary_text(rows, info, base, patched), *esum = lab_html_esc(sum);
	struct counts n = count_rows(rows);
	char *banner = verdict_banner(&n);
	GString *h = g_string_new("");
	guint i;

	g_string_append_printf(h, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
			       "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\n"
			       "<title>lab review: %s security fixes on 6.1</title>\n%s</head><body>\n"
			       "<h1>%s security fixes, reproduced on 6.1</h1>\n"
			       "<div class=\"banner %s\">%s</div>\n"
			       "<pre class=\"summary\">%s</pre>\n"
			       "<p>A row says <i>fix verified</i> only when this review's baseline run "
			       "failed the seed's test with that seed's own signature (its kernel report "
			       "or its test's own check) and the patched run passed every instance. "
			       "A failure for another reason makes the row inconclusive. Links: "
			       "<a href=\"baseline/results.json\">baseline run</a>, "
			       "<a href=\"patched/results.json\">patched run</a>.</p>\n",
			       name, html_style, name,
			       (n.regression + n.not_reproduced + n.inconclusive) ? "short" : "ok",
			       banner, esum);
	g_string_append(h, "<div class=\"wide\"><table><colgroup><col class=\"n\"><col class=\"t\"><col class=\"v\">"
			"<col class=\"e\"><col class=\"v\"><col class=\"e\"><col class=\"c\"><col>"
			"</colgroup><thead><tr><th>#</th><th>patch / article's impact</th>"
			"<th>baseline</th><th>baseline evidence</th><th>patched</th>"
			"<th>patched evidence</th><th>conclusion</th><th>why / impact / provenance</th>"
			"</tr></thead><tbody>\n");
	for (i = 0; i < rows->len; i++)
		html_row(h, g_ptr_array_index(rows, i));
	g_string_append(h, "</tbody></table></div>\n</body></html>\n");
	g_free(name);
	g_free(sum);
	g_free(esum);
	g_free(banner);
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

static int write_all(const char *dir, GPtrArray *rows,
		     const struct lab_review_info *info, struct lab_run *b,
		     struct lab_run *p)
{
	char *txt = lab_report_text(rows, info, b, p);
	char *json = lab_report_json(rows, info, b, p);
	char *html = lab_report_html(rows, info, b, p);
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

int lab_report_write(const char *dir, const struct lab_review_info *info,
		     const char *base_run_dir, const char *patched_run_dir,
		     const char *isolated_run_dir)
{
	char *rel = g_strdup_printf("patches/%s/review.ini",
				    info && info->name ? info->name : "2.6.32.9");
	char *ini = lab_src_path(rel), *err = NULL;
	struct lab_run *b = base_run_dir ? lab_results_load_dir(base_run_dir) : NULL;
	struct lab_run *p = patched_run_dir ? lab_results_load_dir(patched_run_dir) : NULL;
	struct lab_run *iso = isolated_run_dir ? lab_results_load_dir(isolated_run_dir) : NULL;
	GPtrArray *rows;
	int short_rows = -1;
	guint i;

	if ((base_run_dir && !b) || (patched_run_dir && !p))
		goto out; /* the loader said why */
	lab_mkdir_p(dir);
	link_run(dir, "baseline", base_run_dir);
	link_run(dir, "patched", patched_run_dir);
	if (isolated_run_dir)
		link_run(dir, "isolated", isolated_run_dir);
	rows = lab_report_rows(ini, b, p, iso, &err);
	if (!rows) {
		lab_err("%s", err);
		goto out;
	}
	short_rows = 0;
	for (i = 0; i < rows->len; i++) {
		const struct lab_row *r = g_ptr_array_index(rows, i);

		if (r->counts && r->conclusion != LAB_FIX_VERIFIED &&
		    r->conclusion != LAB_FAULT_HANDLED) {
			lab_err("seed %s (#%s %s): %s (%s)", r->seed, r->article,
				r->title, lab_conclusion_name(r->conclusion), r->why);
			short_rows++;
		}
	}
	if (write_all(dir, rows, info, b, p) != 0)
		short_rows = -1;
	g_ptr_array_free(rows, TRUE);
out:
	lab_run_free(b);
	lab_run_free(p);
	lab_run_free(iso);
	g_free(rel);
	g_free(ini);
	g_free(err);
	return short_rows;
}

bool lab_review_name_valid(const char *name)
{
	return name && *name && strspn(name, "0123456789.") == strlen(name) &&
	       !strstr(name, "..");
}

int lab_report_redo(const char *out_dir, const char *base_run,
		    const char *patched_run)
{
	struct lab_review_info info = { LAB_REVIEW_DEFAULT, NULL, NULL, NULL };
	char *base, *patched, *dir = g_strdup(out_dir), *iso, *ini;
	char *name = NULL, *topo = NULL, *phases = NULL;
	GKeyFile *kf = g_key_file_new();
	int rc;

	base = base_run ? g_strdup(base_run) : g_build_filename(dir, "baseline", NULL);
	patched = patched_run ? g_strdup(patched_run) : g_build_filename(dir, "patched", NULL);
	iso = g_build_filename(dir, "isolated", NULL);
	ini = g_build_filename(dir, "review.ini", NULL);
	if (g_key_file_load_from_file(kf, ini, G_KEY_FILE_NONE, NULL)) {
		name = g_key_file_get_string(kf, "review", "name", NULL);
		topo = g_key_file_get_string(kf, "review", "topology", NULL);
		phases = g_key_file_get_string(kf, "review", "phases", NULL);
		if (name && lab_review_name_valid(name))
			info.name = name;
		info.topology = topo;
		info.phases = phases;
	}
	if (!lab_exists(base) && !lab_exists(patched)) {
		lab_err("%s has no baseline/ or patched/ run", dir);
		rc = 1;
	} else {
		char *b = realpath(base, NULL), *p = realpath(patched, NULL);
		char *i = realpath(iso, NULL);

		rc = lab_report_write(dir, &info, b, p, i) == 0 ? 0 : 1;
		free(b);
		free(p);
		free(i);
	}
	g_key_file_free(kf);
	g_free(name);
	g_free(topo);
	g_free(phases);
	g_free(iso);
	g_free(ini);
	g_free(base);
	g_free(patched);
	g_free(dir);
	return rc;
}
