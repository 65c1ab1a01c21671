/* matrix.c - see matrix.h. A cell is a result named
 * "t100-nfs-interop-suite:SERVER:vVERS:GROUP"; its program's output says
 * its counts ("# interop: ... pass=N fail=N skip=N") and each check it
 * failed or skipped ("# check GROUP/NAME: skip: WHY (T s)"). */
#include "core/matrix.h"
#include "core/results.h"
#include "util/util.h"

#include <json-c/json.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

const char *const lab_matrix_versions[] = { "3", "4.0", "4.1", "4.2", NULL };

struct cell {
	const struct lab_result *r;
	char *counts;     /* "pass=16 fail=0 skip=0" from the program */
	GPtrArray *skips; /* "GROUP/CHECK: why", one per skipped check */
	GPtrArray *fails; /* the same for each check that failed */
};

struct matrix {
	const struct lab_run *run;
	GHashTable *software;    /* server -> what it runs, or NULL */
	GPtrArray *servers;      /* char *, in run order */
	GPtrArray *groups;       /* char *, in run order (the suite map's) */
	GHashTable *cells;       /* "server|vers|group" -> struct cell * */
};

/* "t100-nfs-interop-suite:knfsd:v4.1:basic" -> server, version, group */
static bool parse_name(const char *name, char **server, char **vers, char **group)
{
	gchar **p = g_strsplit(name, ":", -1);
	bool ok = g_strv_length(p) == 4 && p[2][0] == 'v';

	if (ok) {
		*server = g_strdup(p[1]);
		*vers = g_strdup(p[2] + 1);
		*group = g_strdup(p[3]);
	}
	g_strfreev(p);
	return ok;
}

/* "# check basic/xattr: skip: why (0.05 s)" -> "basic/xattr: why" when
 * WORD (": skip: ", ": fail: ") is the check's verdict, else NULL. */
static char *check_of(const char *line, const char *word)
{
	const char *colon = strstr(line, word);
	size_t w = strlen(word), n;

	if (strncmp(line, "# check ", 8) || !colon || strchr(line + 8, ':') != colon)
		return NULL;
	n = strlen(colon + w);
	if (n > 4 && !strcmp(colon + w + n - 3, " s)")) /* the check's time */
		n = (size_t)(strrchr(colon + w, '(') - (colon + w));
	while (n && colon[w + n - 1] == ' ')
		n--;
	return g_strdup_printf("%.*s: %.*s", (int)(colon - line - 8), line + 8, (int)n, colon + w);
}

static void read_output(const struct lab_run *run, struct cell *c)
{
	char *p = g_build_filename(run->dir, c->r->dir, "output.txt", NULL);
	char *text = NULL, **lines, **l;

	c->skips = g_ptr_array_new_with_free_func(g_free);
	c->fails = g_ptr_array_new_with_free_func(g_free);
	if (!g_file_get_contents(p, &text, NULL, NULL)) {
		g_free(p);
		return;
	}
	lines = g_strsplit(text, "\n", -1);
	for (l = lines; *l; l++) {
		const char *pass = strstr(*l, "pass=");
		char *s;

		if (!strncmp(*l, "# interop: ", 11) && pass && !c->counts)
			c->counts = g_strdup(pass);
		else if ((s = check_of(*l, ": skip: ")))
			g_ptr_array_add(c->skips, s);
		else if ((s = check_of(*l, ": fail: ")))
			g_ptr_array_add(c->fails, s);
	}
	g_strfreev(lines);
	g_free(text);
	g_free(p);
}

static void cell_free(gpointer p)
{
	struct cell *c = p;

	g_free(c->counts);
	g_ptr_array_free(c->skips, TRUE);
	g_ptr_array_free(c->fails, TRUE);
	g_free(c);
}

static void add_unique(GPtrArray *a, const char *s)
{
	if (!g_ptr_array_find_with_equal_func(a, s, g_str_equal, NULL))
		g_ptr_array_add(a, g_strdup(s));
}

static struct matrix *matrix_of(const struct lab_run *run, GHashTable *software)
{
	struct matrix *m = g_new0(struct matrix, 1);
	guint i;

	m->run = run;
	m->software = software;
	m->servers = g_ptr_array_new_with_free_func(g_free);
	m->groups = g_ptr_array_new_with_free_func(g_free);
	m->cells = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, cell_free);
	for (i = 0; i < run->results->len; i++) {
		const struct lab_result *r = g_ptr_array_index(run->results, i);
		char *server = NULL, *vers = NULL, *group = NULL;
		struct cell *c;

		if (!parse_name(r->name, &server, &vers, &group))
			continue;
		add_unique(m->servers, server);
		add_unique(m->groups, group);
		c = g_new0(struct cell, 1);
		c->r = r;
		read_output(run, c);
		g_hash_table_insert(m->cells, g_strdup_printf("%s|%s|%s", server, vers, group), c);
		g_free(server);
		g_free(vers);
		g_free(group);
	}
	return m;
}

static void matrix_free(struct matrix *m)
{
	g_ptr_array_free(m->servers, TRUE);
	g_ptr_array_free(m->groups, TRUE);
	g_hash_table_destroy(m->cells);
	g_free(m);
}

static const struct cell *cell_at(const struct matrix *m, guint s, const char *vers, guint g)
{
	char *k = g_strdup_printf("%s|%s|%s", (char *)g_ptr_array_index(m->servers, s), vers,
				  (char *)g_ptr_array_index(m->groups, g));
	const struct cell *c = g_hash_table_lookup(m->cells, k);

	g_free(k);
	return c;
}

/* Every cell that ran, in report order (server, group, version). */
typedef void (*cell_fn)(const struct matrix *m, const char *server, const char *vers,
			const char *group, const struct cell *c, void *ud);

static void each_cell(const struct matrix *m, cell_fn fn, void *ud)
{
	for (guint s = 0; s < m->servers->len; s++)
		for (guint g = 0; g < m->groups->len; g++)
			for (int v = 0; lab_matrix_versions[v]; v++) {
				const struct cell *c = cell_at(m, s, lab_matrix_versions[v], g);

				if (c)
					fn(m, g_ptr_array_index(m->servers, s), lab_matrix_versions[v],
					   g_ptr_array_index(m->groups, g), c, ud);
			}
}

/* "pass", "pass, 2 skip", "skip", "fail": what a cell says at a glance. */
static char *cell_word(const struct cell *c)
{
	if (!c)
		return g_strdup("-");
	if (c->r->verdict == LAB_PASS && c->skips->len)
		return g_strdup_printf("pass, %u skip", c->skips->len);
	return g_strdup(lab_verdict_name(c->r->verdict));
}

struct tally {
	long n[LAB_VERDICTS], cells, inside;
};

static void tally_cell(const struct matrix *m, const char *server, const char *vers,
		       const char *group, const struct cell *c, void *ud)
{
	struct tally *t = ud;

	(void)m, (void)server, (void)vers, (void)group;
	t->n[c->r->verdict]++;
	t->cells++;
	if (c->r->verdict == LAB_PASS)
		t->inside += c->skips->len;
}

/* "15 cells: 13 pass, 1 fail, 1 skip; 2 checks skipped inside passing cells" */
static char *totals(const struct matrix *m)
{
	struct tally t = { { 0 }, 0, 0 };
	GString *s = g_string_new("");

	each_cell(m, tally_cell, &t);
	g_string_append_printf(s, "%ld cells:", t.cells);
	for (int v = 0; v < LAB_VERDICTS; v++)
		if (t.n[v])
			g_string_append_printf(s, " %ld %s,", t.n[v],
					       lab_verdict_name((enum lab_verdict)v));
	if (s->str[s->len - 1] == ',')
		g_string_truncate(s, s->len - 1);
	g_string_append_printf(s, "; %ld check%s skipped inside passing cells", t.inside,
			       t.inside == 1 ? "" : "s");
	return g_string_free(s, FALSE);
}

static void not_pass_line(const struct matrix *m, const char *server, const char *vers,
			  const char *group, const struct cell *c, void *ud)
{
	const char *word = lab_verdict_name(c->r->verdict);
	size_t n = strlen(word);
	/* the reason may be the program's own result line: "fail: ..." */
	bool said = c->r->reason && !strncmp(c->r->reason, word, n) && c->r->reason[n] == ':';

	(void)m;
	if (c->r->verdict == LAB_PASS)
		return;
	g_string_append_printf(ud, "  %s v%s %s: %s%s%s\n", server, vers, group, said ? "" : word,
			       said ? "" : ": ", c->r->reason);
	for (guint i = 0; i < c->fails->len; i++)
		g_string_append_printf(ud, "    failed %s\n", (char *)g_ptr_array_index(c->fails, i));
}

/* Each skipped check's reason once, with the cells that gave it. */
struct skips {
	GPtrArray *order;   /* reasons, first seen first */
	GHashTable *where;  /* reason -> GString of "server vV" */
};

static void collect_skips(const struct matrix *m, const char *server, const char *vers,
			  const char *group, const struct cell *c, void *ud)
{
	struct skips *k = ud;

	(void)m, (void)group;
	for (guint i = 0; i < c->skips->len; i++) {
		const char *why = g_ptr_array_index(c->skips, i);
		GString *w = g_hash_table_lookup(k->where, why);

		if (!w) {
			w = g_string_new("");
			g_hash_table_insert(k->where, g_strdup(why), w);
			g_ptr_array_add(k->order, g_strdup(why));
		}
		g_string_append_printf(w, "%s%s v%s", w->len ? ", " : "", server, vers);
	}
}

static void gstring_free(gpointer p)
{
	g_string_free(p, TRUE);
}

static void skips_text(const struct matrix *m, GString *t)
{
	struct skips k = { g_ptr_array_new_with_free_func(g_free),
			   g_hash_table_new_full(g_str_hash, g_str_equal, g_free, gstring_free) };

	each_cell(m, collect_skips, &k);
	g_string_append(t, "\nEvery check skipped, and why:\n");
	for (guint i = 0; i < k.order->len; i++) {
		const char *why = g_ptr_array_index(k.order, i);

		g_string_append_printf(t, "  %s\n    (%s)\n", why,
				       ((GString *)g_hash_table_lookup(k.where, why))->str);
	}
	if (!k.order->len)
		g_string_append(t, "  none\n");
	g_ptr_array_free(k.order, TRUE);
	g_hash_table_destroy(k.where);
}

static void server_seconds(const struct matrix *m, const char *server, const char *vers,
			   const char *group, const struct cell *c, void *ud)
{
	double *sum = g_hash_table_lookup(ud, server);

	(void)m, (void)vers, (void)group;
	if (!sum) {
		sum = g_new0(double, 1);
		g_hash_table_insert(ud, g_strdup(server), sum);
	}
	*sum += c->r->seconds;
}

/* "knfsd (kernel 6.1.192, knfsd): 20 cells in 312 s" per server */
static void servers_text(const struct matrix *m, GString *t)
{
	GHashTable *secs = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);

	each_cell(m, server_seconds, secs);
	for (guint s = 0; s < m->servers->len; s++) {
		const char *name = g_ptr_array_index(m->servers, s);
		const char *sw = m->software ? g_hash_table_lookup(m->software, name) : NULL;
		double *sum = g_hash_table_lookup(secs, name);

		g_string_append_printf(t, "  %-14s %s; its cells took %.0f s\n", name,
				       sw ? sw : "(what it runs was not asked)", sum ? *sum : 0.0);
	}
	g_hash_table_destroy(secs);
}

/* The client's kernel: the one its cells ran on (the run's own word is
 * "mixed" when the servers boot others). */
static const char *client_kernel(const struct lab_run *run)
{
	for (guint i = 0; i < run->results->len; i++) {
		const struct lab_result *x = g_ptr_array_index(run->results, i);

		if (x->kernel && *x->kernel)
			return x->kernel;
	}
	return run->kernel ? run->kernel : "?";
}

static char *matrix_text(const struct matrix *m)
{
	GString *t = g_string_new("");
	const struct lab_run *run = m->run;
	size_t before;

	g_string_append_printf(t, "NFS interop matrix, run %s (client kernel %s, %s)\n",
			       run->id ? run->id : "?", client_kernel(run),
			       run->kernel_release ? run->kernel_release : "?");
	servers_text(m, t);
	g_string_append_printf(t, "\n%-14s %-10s", "server", "group");
	for (int v = 0; lab_matrix_versions[v]; v++)
		g_string_append_printf(t, " %-13s", lab_matrix_versions[v]);
	g_string_append(t, "\n");
	for (guint s = 0; s < m->servers->len; s++)
		for (guint g = 0; g < m->groups->len; g++) {
			g_string_append_printf(t, "%-14s %-10s", (char *)g_ptr_array_index(m->servers, s),
					       (char *)g_ptr_array_index(m->groups, g));
			for (int v = 0; lab_matrix_versions[v]; v++) {
				char *w = cell_word(cell_at(m, s, lab_matrix_versions[v], g));

				g_string_append_printf(t, " %-13s", w);
				g_free(w);
			}
			g_string_append(t, "\n");
		}
	{
		char *tot = totals(m);

		g_string_append_printf(t, "\n%s\n", tot);
		g_free(tot);
	}
	g_string_append(t, "\nEvery cell that is not a pass, and why:\n");
	before = t->len;
	each_cell(m, not_pass_line, t);
	if (t->len == before)
		g_string_append(t, "  none\n");
	skips_text(m, t);
	return g_string_free(t, FALSE);
}

static void json_cell(const struct matrix *m, const char *server, const char *vers,
		      const char *group, const struct cell *c, void *ud)
{
	json_object *j = json_object_new_object(), *skips = json_object_new_array();
	char *reason = g_utf8_make_valid(c->r->reason ? c->r->reason : "", -1);

	(void)m;
	json_object_object_add(j, "server", lab_json_str(server));
	json_object_object_add(j, "version", json_object_new_string(vers));
	json_object_object_add(j, "group", lab_json_str(group));
	json_object_object_add(j, "verdict", json_object_new_string(lab_verdict_name(c->r->verdict)));
	json_object_object_add(j, "reason", lab_json_str(reason));
	json_object_object_add(j, "counts", c->counts ? lab_json_str(c->counts) : NULL);
	json_object_object_add(j, "seconds", json_object_new_double(c->r->seconds));
	for (guint i = 0; i < c->skips->len; i++)
		json_object_array_add(skips, lab_json_str(g_ptr_array_index(c->skips, i)));
	json_object_object_add(j, "skips", skips);
	skips = json_object_new_array();
	for (guint i = 0; i < c->fails->len; i++)
		json_object_array_add(skips, lab_json_str(g_ptr_array_index(c->fails, i)));
	json_object_object_add(j, "fails", skips);
	json_object_array_add(ud, j);
	g_free(reason);
}

static char *matrix_json(const struct matrix *m)
{
	json_object *o = json_object_new_object(), *cells = json_object_new_array();
	json_object *sw = json_object_new_object();
	char *out;

	json_object_object_add(o, "run", lab_json_str(m->run->id ? m->run->id : ""));
	for (guint s = 0; m->software && s < m->servers->len; s++) {
		const char *name = g_ptr_array_index(m->servers, s);
		const char *what = g_hash_table_lookup(m->software, name);

		if (what)
			json_object_object_add(sw, name, lab_json_str(what));
	}
	json_object_object_add(o, "software", sw);
	each_cell(m, json_cell, cells);
	json_object_object_add(o, "cells", cells);
	out = g_strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
							   JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	return out;
}

/* One <td>: the word, the counts, the time, and below them the reason of a
 * cell that is not a pass and every check it failed or skipped, with why. */
static void html_cell(GString *h, const struct cell *c)
{
	char *why = lab_html_esc(c ? c->r->reason : "not run"), *cnt = lab_html_esc(c && c->counts ? c->counts : "");
	char *word = cell_word(c), *ew = lab_html_esc(word);

	g_string_append_printf(h, "<td class=\"%s%s\" title=\"%s\">%s<br><small>%s</small>"
			       "<br><small>%.0f s</small>", c ? lab_verdict_name(c->r->verdict) : "none",
			       c && c->skips->len ? " skipped" : "", why, ew, cnt,
			       c ? c->r->seconds : 0.0);
	if (c && c->r->verdict != LAB_PASS)
		g_string_append_printf(h, "<br><small>%s</small>", why);
	for (guint i = 0; c && i < c->fails->len + c->skips->len; i++) {
		bool failed = i < c->fails->len;
		char *s = lab_html_esc(g_ptr_array_index(failed ? c->fails : c->skips,
						failed ? i : i - c->fails->len));

		g_string_append_printf(h, "<br><small class=\"why\">%s%s</small>",
				       failed ? "failed " : "", s);
		g_free(s);
	}
	g_string_append(h, "</td>");
	g_free(why);
	g_free(cnt);
	g_free(word);
	g_free(ew);
}

static void html_software(const struct matrix *m, GString *h)
{
	g_string_append(h, "<ul class=\"software\">");
	for (guint s = 0; s < m->servers->len; s++) {
		const char *name = g_ptr_array_index(m->servers, s);
		const char *sw = m->software ? g_hash_table_lookup(m->software, name) : NULL;
		char *en = lab_html_esc(name), *es = lab_html_esc(sw ? sw : "(not asked)");

		g_string_append_printf(h, "<li>%s: %s</li>", en, es);
		g_free(en);
		g_free(es);
	}
	g_string_append(h, "</ul>\n");
}

static char *matrix_html(const struct matrix *m)
{
	GString *h = g_string_new("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
				  "<title>lab NFS interop matrix</title><style>"
				  "body{font-family:sans-serif;margin:1em;max-width:1260px}"
				  "table{border-collapse:collapse}td,th{border:1px solid #ccc;"
				  "padding:.25em .5em;font-size:90%;vertical-align:top}"
				  ".pass{background:#d8f5d0}.fail{background:#f8d0d0}"
				  ".error,.timeout{background:#f3c6f3}.skip,.inconclusive{background:#fff1c2}"
				  ".pass.skipped{background:#e8f5c0}.why{color:#555}"
				  "</style><meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
				  "</head><body>\n");
	char *id = lab_html_esc(m->run->id), *kr = lab_html_esc(m->run->kernel_release);
	char *tot = totals(m), *et = lab_html_esc(tot);

	g_string_append_printf(h, "<h1>NFS interop matrix</h1><p>run %s, client kernel %s</p>\n",
			       id, kr);
	html_software(m, h);
	g_string_append(h, "<table><tr><th>server</th><th>group</th>");
	for (int v = 0; lab_matrix_versions[v]; v++)
		g_string_append_printf(h, "<th>v%s</th>", lab_matrix_versions[v]);
	g_string_append(h, "</tr>\n");
	for (guint s = 0; s < m->servers->len; s++)
		for (guint g = 0; g < m->groups->len; g++) {
			char *sv = lab_html_esc(g_ptr_array_index(m->servers, s));

			g_string_append_printf(h, "<tr class=\"cellrow\"><td>%s</td><td>%s</td>", sv,
					       (char *)g_ptr_array_index(m->groups, g));
			for (int v = 0; lab_matrix_versions[v]; v++)
				html_cell(h, cell_at(m, s, lab_matrix_versions[v], g));
			g_string_append(h, "</tr>\n");
			g_free(sv);
		}
	g_string_append_printf(h, "</table>\n<p class=\"totals\">%s</p>\n<p>A cell that is "
			       "not a pass shows its reason, and every cell the checks it skipped "
			       "and why; <a href=\"run/results.json\">the run</a>.</p></body></html>\n",
			       et);
	g_free(tot);
	g_free(et);
	g_free(id);
	g_free(kr);
	return g_string_free(h, FALSE);
}

static int write_one(const char *dir, const char *name, const char *text)
{
	char *p = g_build_filename(dir, name, NULL);
	int rc = lab_write_file(p, text, -1);

	g_free(p);
	return rc;
}

int lab_matrix_write(const char *dir, const char *run_dir, GHashTable *software)
{
	struct lab_run *run = lab_results_load_dir(run_dir);
	struct matrix *m;
	char *txt, *json, *html, *p;
	int rc = 0;

	if (!run)
		return -1;
	lab_mkdir_p(dir);
	p = g_build_filename(dir, "run", NULL);
	unlink(p);
	if (symlink(run_dir, p) != 0)
		lab_err("cannot link %s", p);
	g_free(p);
	m = matrix_of(run, software);
	txt = matrix_text(m);
	json = matrix_json(m);
	html = matrix_html(m);
	rc |= write_one(dir, "matrix.txt", txt);
	rc |= write_one(dir, "matrix.json", json);
	rc |= write_one(dir, "matrix.html", html);
	fputs(txt, stdout);
	printf("matrix: %s/matrix.html (and matrix.txt, matrix.json)\n", dir);
	g_free(txt);
	g_free(json);
	g_free(html);
	matrix_free(m);
	lab_run_free(run);
	return rc;
}
