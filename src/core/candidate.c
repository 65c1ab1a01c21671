/* candidate.c - see candidate.h. */
#include "core/candidate.h"
#include "util/util.h"

#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

static void row_free(gpointer p)
{
	struct lab_cand_row *w = p;

	g_free(w->name);
	g_free(w->test);
	g_free(w->base_first);
	g_free(w->cand_first);
	g_free(w->why);
	g_free(w);
}

struct lab_cand_report *lab_cand_report_new(void)
{
	struct lab_cand_report *r = g_new0(struct lab_cand_report, 1);

	r->rows = g_ptr_array_new_with_free_func(row_free);
	return r;
}

void lab_cand_report_free(struct lab_cand_report *r)
{
	if (!r)
		return;
	g_ptr_array_free(r->rows, TRUE);
	g_free(r->suites);
	g_free(r->base_run);
	g_free(r->cand_run);
	g_free(r);
}

struct lab_cand_row *lab_cand_row(struct lab_cand_report *r, const char *name,
				  const char *test)
{
	struct lab_cand_row *w;

	for (guint i = 0; i < r->rows->len; i++) {
		w = g_ptr_array_index(r->rows, i);
		if (!strcmp(w->name, name))
			return w;
	}
	w = g_new0(struct lab_cand_row, 1);
	w->name = g_strdup(name);
	w->test = g_strdup(test ? test : name);
	g_ptr_array_add(r->rows, w);
	return w;
}

bool lab_cand_differs(const struct lab_cand_row *w)
{
	return g_strcmp0(w->base_first, w->cand_first) != 0;
}

int lab_cand_classify(struct lab_cand_report *r)
{
	int regressed = 0;

	for (guint i = 0; i < r->rows->len; i++) {
		struct lab_cand_row *w = g_ptr_array_index(r->rows, i);

		w->cls = lab_regress_class(&w->base, &w->cand);
		regressed += !strcmp(w->cls, "regressed");
	}
	return regressed;
}

/* "pass 4/4", "fail 3/4, 1 other", "-" (not run). */
static char *tally(const struct lab_outcomes *o)
{
	int n = o->pass + o->fail + o->other;
	GString *s = g_string_new(NULL);

	if (!n) {
		g_string_free(s, TRUE);
		return g_strdup("-");
	}
	if (o->pass)
		g_string_append_printf(s, "pass %d/%d", o->pass, n);
	if (o->fail)
		g_string_append_printf(s, "%sfail %d/%d", s->len ? ", " : "", o->fail, n);
	if (o->other)
		g_string_append_printf(s, "%sother %d/%d", s->len ? ", " : "", o->other, n);
	return g_string_free(s, FALSE);
}

static int count_class(const struct lab_cand_report *r, const char *cls)
{
	int n = 0;

	for (guint i = 0; i < r->rows->len; i++) {
		const struct lab_cand_row *w = g_ptr_array_index(r->rows, i);

		n += w->cls && !strcmp(w->cls, cls);
	}
	return n;
}

static const char *topo(const struct lab_cand_report *r, const struct lab_cand_row *w)
{
	return w->topology ? w->topology : r->topology;
}

static void text_regressions(const struct lab_cand_report *r, GString *s)
{
	int n = 0;

	g_string_append(s, "\nRegressions, and how to find the patch:\n");
	for (guint i = 0; i < r->rows->len; i++) {
		const struct lab_cand_row *w = g_ptr_array_index(r->rows, i);

		if (strcmp(w->cls, "regressed"))
			continue;
		n++;
		g_string_append_printf(s, "  %s: %s\n", w->name, w->why ? w->why : "");
		if (r->bisectable)
			g_string_append_printf(s, "    lab bisect --good %s --bad %s -t %s %s\n",
					       r->base, r->candidate, topo(r, w), w->test);
		else
			g_string_append_printf(s, "    (to bisect: lab build %s --series PATH "
					       "--base %s)\n", r->candidate, r->base);
	}
	if (!n)
		g_string_append(s, "  none\n");
}

char *lab_cand_text(const struct lab_cand_report *r)
{
	static const char *const classes[] = { "regressed", "fixed", "flaky", "changed",
					       "unchanged" };
	GString *s = g_string_new(NULL);

	g_string_append_printf(s, "Regression review: candidate %s against base %s\n", r->candidate,
			       r->base);
	g_string_append_printf(s, "topology %s, tests %s; a test whose first verdicts differ "
			       "ran %d more times on each kernel; %.0f s\n", r->topology,
			       r->suites ? r->suites : "(the topology's suite)", r->reruns,
			       r->seconds);
	g_string_append_printf(s, "runs: base %s, candidate %s\n\n",
			       r->base_run ? r->base_run : "-", r->cand_run ? r->cand_run : "-");
	g_string_append_printf(s, "%-40s %-24s %-24s %s\n", "test", r->base, r->candidate,
			       "class");
	for (guint i = 0; i < r->rows->len; i++) {
		const struct lab_cand_row *w = g_ptr_array_index(r->rows, i);
		char *a = tally(&w->base), *b = tally(&w->cand);

		g_string_append_printf(s, "%-40s %-24s %-24s %s\n", w->name, a, b, w->cls);
		g_free(a);
		g_free(b);
	}
	g_string_append(s, "\n");
	for (size_t i = 0; i < G_N_ELEMENTS(classes); i++)
		g_string_append_printf(s, "%s%d %s", i ? ", " : "", count_class(r, classes[i]),
				       classes[i]);
	g_string_append_printf(s, " (%u tests)\n", r->rows->len);
	text_regressions(r, s);
	return g_string_free(s, FALSE);
}

static json_object *outcomes_json(const struct lab_outcomes *o)
{
	json_object *j = json_object_new_object();

	json_object_object_add(j, "pass", json_object_new_int(o->pass));
	json_object_object_add(j, "fail", json_object_new_int(o->fail));
	json_object_object_add(j, "other", json_object_new_int(o->other));
	return j;
}

static char *json_text(const struct lab_cand_report *r)
{
	json_object *j = json_object_new_object(), *rows = json_object_new_array();
	char *out;

	json_object_object_add(j, "base", json_object_new_string(r->base));
	json_object_object_add(j, "candidate", json_object_new_string(r->candidate));
	json_object_object_add(j, "topology", json_object_new_string(r->topology));
	json_object_object_add(j, "reruns", json_object_new_int(r->reruns));
	json_object_object_add(j, "seconds", json_object_new_double(r->seconds));
	for (guint i = 0; i < r->rows->len; i++) {
		const struct lab_cand_row *w = g_ptr_array_index(r->rows, i);
		json_object *o = json_object_new_object();

		json_object_object_add(o, "test", json_object_new_string(w->name));
		json_object_object_add(o, "class", json_object_new_string(w->cls));
		json_object_object_add(o, "base", outcomes_json(&w->base));
		json_object_object_add(o, "candidate", outcomes_json(&w->cand));
		if (w->why)
			json_object_object_add(o, "why", json_object_new_string(w->why));
		if (!strcmp(w->cls, "regressed") && r->bisectable) {
			char *cmd = g_strdup_printf("lab bisect --good %s --bad %s -t %s %s", r->base,
						    r->candidate, topo(r, w), w->test);

			json_object_object_add(o, "bisect", json_object_new_string(cmd));
			g_free(cmd);
		}
		json_object_array_add(rows, o);
	}
	json_object_object_add(j, "tests", rows);
	out = g_strdup(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PRETTY));
	json_object_put(j);
	return out;
}

static char *html_text(const struct lab_cand_report *r, const char *text)
{
	GString *s = g_string_new("<!doctype html>\n<html><head><meta charset=\"utf-8\">"
				  "<title>lab: regression review</title><style>"
				  "body{font-family:sans-serif}td,th{padding:2px 8px;text-align:left}"
				  ".regressed{background:#f8c8c8}.fixed{background:#c8f0c8}"
				  ".flaky,.changed{background:#f8f0b8}</style></head><body>\n");
	char *e = lab_html_esc(r->candidate), *f = lab_html_esc(r->base);

	g_string_append_printf(s, "<h1>Candidate %s against base %s</h1>\n<table>\n"
			       "<tr><th>test</th><th>%s</th><th>%s</th><th>class</th><th>why"
			       "</th></tr>\n", e, f, f, e);
	for (guint i = 0; i < r->rows->len; i++) {
		const struct lab_cand_row *w = g_ptr_array_index(r->rows, i);
		char *a = tally(&w->base), *b = tally(&w->cand), *n = lab_html_esc(w->name);
		char *y = lab_html_esc(w->why ? w->why : "");

		g_string_append_printf(s, "<tr class=\"%s\"><td>%s</td><td>%s</td><td>%s</td>"
				       "<td>%s</td><td>%s</td></tr>\n", w->cls, n, a, b, w->cls, y);
		g_free(a);
		g_free(b);
		g_free(n);
		g_free(y);
	}
	g_free(e);
	g_free(f);
	e = lab_html_esc(text);
	g_string_append_printf(s, "</table>\n<pre>%s</pre>\n</body></html>\n", e);
	g_free(e);
	return g_string_free(s, FALSE);
}

int lab_cand_write(const struct lab_cand_report *r, const char *dir)
{
	char *txt = lab_cand_text(r), *json = json_text(r), *html = html_text(r, txt);
	const char *names[] = { "report.txt", "report.json", "report.html" };
	const char *data[] = { txt, json, html };
	int rc = 0;

	for (int i = 0; i < 3 && rc == 0; i++) {
		char *p = g_build_filename(dir, names[i], NULL);

		rc = lab_write_file(p, data[i], -1);
		g_free(p);
	}
	g_free(txt);
	g_free(json);
	g_free(html);
	return rc;
}
