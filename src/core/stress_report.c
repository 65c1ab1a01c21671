/* stress_report.c - a stress run's summary: report.txt (also what
 * `lab stress --status` prints), report.json (the state itself) and a
 * self-contained report.html with an inline SVG timeline (no network). */
#include "core/stress_report.h"
#include "util/util.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

static char *when(gint64 t)
{
	char buf[32];
	time_t tt = (time_t)t;

	struct tm tm;

	if (!t)
		return g_strdup("-");
	if (!localtime_r(&tt, &tm) || !strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm))
		return g_strdup("?");
	return g_strdup(buf);
}

static char *hms(double s)
{
	long n = (long)s;

	return g_strdup_printf("%02ld:%02ld:%02ld", n / 3600, (n / 60) % 60, n % 60);
}

static char *join(const GPtrArray *a)
{
	GString *s = g_string_new("");
	guint i;

	for (i = 0; i < a->len; i++)
		g_string_append_printf(s, "%s%s", i ? ", " : "",
				       (const char *)g_ptr_array_index(a, i));
	return g_string_free(s, FALSE);
}

char *lab_stress_text(const struct lab_stress *s)
{
	GString *t = g_string_new("");
	char *el = hms(s->elapsed_s);
	guint i;

	g_string_append_printf(t, "stress %s: topology %s, kernel %s, seed %" G_GUINT64_FORMAT
			       ", %d iterations, %ld tests, %s elapsed",
			       s->id, s->topology ? s->topology : "?", s->kernel ? s->kernel : "?",
			       s->seed, s->iteration, s->tests_run, el);
	if (s->tests_run)
		g_string_append_printf(t, ", loop overhead %.2f s per test",
				       s->overhead_s / (double)s->tests_run);
	for (i = 0; s->env && s->env[i]; i++)
		g_string_append_printf(t, "%s%s", i ? " " : "\ntest settings: ", s->env[i]);
	g_string_append_printf(t, "\nstopped: %s\n\n", s->stop_reason ? s->stop_reason : "running");
	g_string_append_printf(t, "%-34s %5s %5s %5s %5s %5s %5s %6s %-17s %7s %7s  %s\n",
			       "test", "runs", "pass", "fail", "incon", "error", "tmout",
			       "hits", "fail rate (95%)", "mean s", "max s", "first / last failure");
	for (i = 0; i < s->tests->len; i++) {
		const struct lab_stress_test *x = g_ptr_array_index(s->tests, i);
		char *ff = when(x->first_fail), *lf = when(x->last_fail);
		double lo, hi;
		char rate[32];

		lab_wilson(x->fail, x->runs, &lo, &hi);
		snprintf(rate, sizeof(rate), "%.2f [%.2f,%.2f]",
			 x->runs ? (double)x->fail / (double)x->runs : 0, lo, hi);
		g_string_append_printf(t, "%-34s %5ld %5ld %5ld %5ld %5ld %5ld %6ld %-17s %7.1f %7.1f  %s / %s%s\n",
				       x->name, x->runs, x->pass, x->fail, x->inconclusive,
				       x->error, x->timeout, x->window_hits, rate,
				       x->runs ? x->total_s / (double)x->runs : 0, x->max_s, ff, lf,
				       x->quarantined ? "  QUARANTINED" : "");
		g_free(ff);
		g_free(lf);
	}
	g_string_append(t, "\nworkload rates (from the tests' counts):\n");
	for (i = 0; i < s->tests->len; i++) {
		const struct lab_stress_test *x = g_ptr_array_index(s->tests, i);

		lab_stress_rates_text(t, x->name, x->rates);
	}
	g_string_append_printf(t, "\ncrash titles: %u\n", s->crashes->len);
	for (i = 0; i < s->crashes->len; i++) {
		const struct lab_stress_crash *c = g_ptr_array_index(s->crashes, i);
		char *f = when(c->first), *l = when(c->last);
		char *tests = join(c->tests);
		guint j;

		g_string_append_printf(t, "%4ld x %s\n       first %s, last %s; in %s\n", c->count,
				       c->title, f, l, tests);
		for (j = 0; j < c->excerpts->len; j++)
			g_string_append_printf(t, "       excerpt: %s/%s\n", s->dir ? s->dir : ".",
					       (char *)g_ptr_array_index(c->excerpts, j));
		for (j = 0; j < c->dumps->len; j++)
			g_string_append_printf(t, "       dump: " LAB_CRASH_CMD " %s/vmlinux %s/%s\n",
					       s->kernel_dir ? s->kernel_dir : "KERNEL_DIR",
					       s->dir ? s->dir : ".", (char *)g_ptr_array_index(c->dumps, j));
		g_free(f);
		g_free(l);
		g_free(tests);
	}
	g_free(el);
	return g_string_free(t, FALSE);
}

/* ---- HTML ---- */

static const char *colour(char v)
{
	switch (v) {
	case 'p': return "#4caf50";
	case 'f': return "#e53935";
	case 't': return "#8e24aa";
	case 'e': return "#d81b60";
	case 'i': return "#fbc02d";
	default: return "#9e9e9e";
	}
}

/* One row per test, a tick per outcome at its time. */
/* Under the timeline: five ticks with the local time they stand for. */
static void time_axis(GString *h, gint64 t0, gint64 t1, int left, int w, unsigned y)
{
	int i;

	g_string_append_printf(h, "<line class=\"axis\" x1=\"%d\" y1=\"%u\" x2=\"%d\" "
			       "y2=\"%u\" stroke=\"#888\"/>\n", left, y, left + w, y);
	for (i = 0; i <= 4; i++) {
		gint64 t = t0 + (t1 - t0) * i / 4;
		char *label = when(t);
		int x = left + w * i / 4;

		g_string_append_printf(h, "<line x1=\"%d\" y1=\"%u\" x2=\"%d\" y2=\"%u\" "
				       "stroke=\"#888\"/><text class=\"axis\" x=\"%d\" y=\"%u\" "
				       "font-size=\"10\" text-anchor=\"%s\">%s</text>\n", x, y,
				       x, y + 4, x, y + 16, i == 0 ? "start" : i == 4 ? "end" : "middle",
				       label);
		g_free(label);
	}
}

static void timeline_svg(GString *h, const struct lab_stress *s)
{
	const int w = 1000, row = 18, left = 260;
	gint64 t0 = G_MAXINT64, t1 = 0;
	guint i, j;

	for (i = 0; i < s->tests->len; i++) {
		const struct lab_stress_test *x = g_ptr_array_index(s->tests, i);

		for (j = 0; j < x->timeline->len; j++) {
			gint64 t = g_array_index(x->timeline, struct lab_stress_point, j).t;

			t0 = MIN(t0, t);
			t1 = MAX(t1, t);
		}
	}
	if (t0 > t1) /* no point at all */
		t0 = 0, t1 = 1;
	else if (t1 == t0)
		t1 = t0 + 1;
	g_string_append_printf(h, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%u\" "
			       "role=\"img\" aria-label=\"outcomes over time\">\n",
			       left + w + 10, s->tests->len * row + 44);
	time_axis(h, t0, t1, left, w, s->tests->len * row + 6);
	for (i = 0; i < s->tests->len; i++) {
		const struct lab_stress_test *x = g_ptr_array_index(s->tests, i);
		char *n = lab_html_esc(x->name);

		g_string_append_printf(h, "<text x=\"4\" y=\"%u\" font-size=\"11\">%s</text>\n",
				       i * row + 13, n);
		for (j = 0; j < x->timeline->len; j++) {
			const struct lab_stress_point *p = &g_array_index(x->timeline, struct lab_stress_point, j);
			double px = left + (double)(p->t - t0) * w / (double)(t1 - t0);

			g_string_append_printf(h, "<rect class=\"tick\" x=\"%.1f\" y=\"%u\" width=\"3\" "
					       "height=\"14\" fill=\"%s\"/>\n", px, i * row + 2,
					       colour(p->verdict));
		}
		g_free(n);
	}
	g_string_append(h, "</svg>\n");
}

char *lab_stress_html(const struct lab_stress *s)
{
	char *sum = lab_stress_text(s), *esum = lab_html_esc(sum), *id = lab_html_esc(s->id);
	GString *h = g_string_new("");
	guint i;

	g_string_append_printf(h, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
			       "<title>lab stress %s</title><style>\n"
			       "body{font-family:sans-serif;margin:1em;max-width:1260px}"
			       "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2em .4em;"
			       "font-size:90%%}pre{white-space:pre-wrap;font-size:80%%;background:#f7f7f7}"
			       "</style><meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
			       "</head><body>\n<h1>lab stress %s</h1>\n"
			       "<h2>Summary</h2>\n<pre class=\"summary\">%s</pre>\n", id, id, esum);
	g_string_append(h, "<h2>Outcomes over time</h2>\n<p><small>green pass, red fail, "
			"purple timeout, pink error, yellow inconclusive, grey skip</small></p>\n");
	timeline_svg(h, s);
	g_string_append(h, "<h2>Workload rates over time</h2>\n<table><tr><th>test</th><th>rate</th>"
			"<th>samples</th><th>min</th><th>max</th><th>last</th><th>over time</th></tr>\n");
	for (i = 0; i < s->tests->len; i++) {
		const struct lab_stress_test *x = g_ptr_array_index(s->tests, i);

		lab_stress_rates_html(h, x->name, x->rates);
	}
	g_string_append(h, "</table>\n");
	g_string_append(h, "<h2>Crash titles</h2>\n<table><tr><th>count</th><th>title</th>"
			"<th>tests</th></tr>\n");
	for (i = 0; i < s->crashes->len; i++) {
		const struct lab_stress_crash *c = g_ptr_array_index(s->crashes, i);
		char *t = lab_html_esc(c->title), *tests = join(c->tests), *et = lab_html_esc(tests);

		g_string_append_printf(h, "<tr class=\"crash\"><td>%ld</td><td>%s</td><td>%s</td></tr>\n",
				       c->count, t, et);
		g_free(t);
		g_free(tests);
		g_free(et);
	}
	g_string_append(h, "</table>\n</body></html>\n");
	g_free(sum);
	g_free(esum);
	g_free(id);
	return g_string_free(h, FALSE);
}

int lab_stress_write_reports(const struct lab_stress *s)
{
	char *txt = lab_stress_text(s), *html = lab_stress_html(s);
	char *json = lab_stress_to_json(s);
	char *pt = g_build_filename(s->dir, "report.txt", NULL);
	char *ph = g_build_filename(s->dir, "report.html", NULL);
	char *pj = g_build_filename(s->dir, "report.json", NULL);
	int rc = lab_write_file(pt, txt, -1) | lab_write_file(ph, html, -1) |
		 lab_write_file(pj, json, -1);

	g_free(txt);
	g_free(html);
	g_free(json);
	g_free(pt);
	g_free(ph);
	g_free(pj);
	return rc;
}
