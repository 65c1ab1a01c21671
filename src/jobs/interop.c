/* interop.c - `lab interop`: the NFS interop matrix. Brings up a client
 * and the servers of the interop topology (knfsd on the lab's kernel, knfsd
 * on Debian's own kernel, NFS-Ganesha), runs t100 per server x version x
 * group (the suite map's servers= and groups=), and writes the matrix as
 * matrix.txt, matrix.json and a self-contained matrix.html beside a link to
 * the run (which `lab compare` compares with any other). Every cell that is
 * not a pass keeps its reason. */
#include "jobs/interop.h"
#include "core/results.h"
#include "core/suite.h"
#include "jobs/session.h"
#include "util/util.h"

#include <json-c/json.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define INTEROP_TEST "t100-nfs-interop-suite"

static const char *const all_versions[] = { "3", "4.0", "4.1", "4.2", NULL };
static const char *const all_groups[] = { "basic", "general", "special", "lock",
					  "coherence", NULL };

struct cell {
	const struct lab_result *r;
	char *counts; /* "pass=16 fail=0 skip=0" from the program */
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

static char *counts_of(const struct lab_run *run, const struct lab_result *r)
{
	char *p = g_build_filename(run->dir, r->dir, "output.txt", NULL);
	char *text = NULL, *out = NULL;
	const char *m;

	if (g_file_get_contents(p, &text, NULL, NULL) && (m = strstr(text, "# interop: "))) {
		const char *pass = strstr(m, "pass=");

		if (pass)
			out = g_strndup(pass, strcspn(pass, "\n"));
	}
	g_free(text);
	g_free(p);
	return out;
}

struct matrix {
	GPtrArray *servers;      /* char *, in run order */
	GHashTable *cells;       /* "server|vers|group" -> struct cell * */
};

static void cell_free(gpointer p)
{
	struct cell *c = p;

	g_free(c->counts);
	g_free(c);
}

static struct matrix *matrix_of(const struct lab_run *run)
{
	struct matrix *m = g_new0(struct matrix, 1);
	guint i;

	m->servers = g_ptr_array_new_with_free_func(g_free);
	m->cells = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, cell_free);
	for (i = 0; i < run->results->len; i++) {
		const struct lab_result *r = g_ptr_array_index(run->results, i);
		char *server = NULL, *vers = NULL, *group = NULL;
		struct cell *c;

		if (!parse_name(r->name, &server, &vers, &group))
			continue;
		if (!g_ptr_array_find_with_equal_func(m->servers, server, g_str_equal, NULL))
			g_ptr_array_add(m->servers, g_strdup(server));
		c = g_new0(struct cell, 1);
		c->r = r;
		c->counts = counts_of(run, r);
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
	g_hash_table_destroy(m->cells);
	g_free(m);
}

static const struct cell *cell_at(const struct matrix *m, const char *server,
				  const char *vers, const char *group)
{
	char *k = g_strdup_printf("%s|%s|%s", server, vers, group);
	const struct cell *c = g_hash_table_lookup(m->cells, k);

	g_free(k);
	return c;
}

/* Checks the program skipped inside a cell ("skip=N" in its counts). */
static long skipped_in(const struct cell *c)
{
	const char *p = c && c->counts ? strstr(c->counts, "skip=") : NULL;

	return p ? strtol(p + 5, NULL, 10) : 0;
}

/* "pass", or "pass, 2 skip": what a cell says without hovering. */
static char *cell_word(const struct cell *c)
{
	long k = skipped_in(c);

	if (!c)
		return g_strdup("-");
	return k > 0 ? g_strdup_printf("%s, %ld skip", lab_verdict_name(c->r->verdict), k)
		     : g_strdup(lab_verdict_name(c->r->verdict));
}

/* "15 cells: 13 pass, 1 fail, 1 skip; 2 checks skipped inside passing cells" */
static char *totals(const struct matrix *m)
{
	long n[LAB_VERDICTS] = { 0 }, inside = 0, cells = 0;
	GString *t = g_string_new("");
	GHashTableIter it;
	gpointer k, val;
	int v;

	g_hash_table_iter_init(&it, m->cells);
	while (g_hash_table_iter_next(&it, &k, &val)) {
		const struct cell *c = val;

		n[c->r->verdict]++;
		cells++;
		if (c->r->verdict == LAB_PASS)
			inside += skipped_in(c);
	}
	g_string_append_printf(t, "%ld cells:", cells);
	for (v = 0; v < LAB_VERDICTS; v++)
		if (n[v])
			g_string_append_printf(t, " %ld %s,", n[v], lab_verdict_name((enum lab_verdict)v));
	g_string_truncate(t, t->len - (t->str[t->len - 1] == ',' ? 1 : 0));
	g_string_append_printf(t, "; %ld check%s skipped inside passing cells", inside,
			       inside == 1 ? "" : "s");
	return g_string_free(t, FALSE);
}

static char *matrix_text(const struct matrix *m, const struct lab_run *run)
{
	GString *t = g_string_new("");
	guint s, listed = 0;
	int v, g;

	g_string_append_printf(t, "NFS interop matrix, run %s (client kernel %s, %s)\n\n",
			       run->id ? run->id : "?", run->kernel ? run->kernel : "?",
			       run->kernel_release ? run->kernel_release : "?");
	g_string_append_printf(t, "%-14s %-10s", "server", "group");
	for (v = 0; all_versions[v]; v++)
		g_string_append_printf(t, " %-13s", all_versions[v]);
	g_string_append(t, "\n");
	for (s = 0; s < m->servers->len; s++)
		for (g = 0; all_groups[g]; g++) {
			g_string_append_printf(t, "%-14s %-10s", (char *)g_ptr_array_index(m->servers, s),
					       all_groups[g]);
			for (v = 0; all_versions[v]; v++) {
				const struct cell *c = cell_at(m, g_ptr_array_index(m->servers, s),
							       all_versions[v], all_groups[g]);

				char *w = cell_word(c);

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
	for (s = 0; s < m->servers->len; s++)
		for (g = 0; all_groups[g]; g++)
			for (v = 0; all_versions[v]; v++) {
				const struct cell *c = cell_at(m, g_ptr_array_index(m->servers, s),
							       all_versions[v], all_groups[g]);

				if (c && c->r->verdict != LAB_PASS) {
					g_string_append_printf(t, "  %s v%s %s: %s: %s\n",
							       (char *)g_ptr_array_index(m->servers, s),
							       all_versions[v], all_groups[g],
							       lab_verdict_name(c->r->verdict), c->r->reason);
					listed++;
				}
			}
	if (!listed)
		g_string_append(t, "  none\n");
	return g_string_free(t, FALSE);
}

static char *matrix_json(const struct matrix *m, const struct lab_run *run)
{
	json_object *o = json_object_new_object(), *cells = json_object_new_array();
	char *out;
	guint s;
	int v, g;

	json_object_object_add(o, "run", lab_json_str(run->id ? run->id : ""));
	for (s = 0; s < m->servers->len; s++)
		for (g = 0; all_groups[g]; g++)
			for (v = 0; all_versions[v]; v++) {
				const struct cell *c = cell_at(m, g_ptr_array_index(m->servers, s),
							       all_versions[v], all_groups[g]);
				json_object *j;
				char *reason;

				if (!c)
					continue;
				j = json_object_new_object();
				reason = g_utf8_make_valid(c->r->reason ? c->r->reason : "", -1);
				json_object_object_add(j, "server", lab_json_str(g_ptr_array_index(m->servers, s)));
				json_object_object_add(j, "version", json_object_new_string(all_versions[v]));
				json_object_object_add(j, "group", json_object_new_string(all_groups[g]));
				json_object_object_add(j, "verdict", json_object_new_string(lab_verdict_name(c->r->verdict)));
				json_object_object_add(j, "reason", lab_json_str(reason));
				json_object_object_add(j, "counts", c->counts ? lab_json_str(c->counts) : NULL);
				json_object_array_add(cells, j);
				g_free(reason);
			}
	json_object_object_add(o, "cells", cells);
	out = g_strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY));
	json_object_put(o);
	return out;
}

static char *esc(const char *s)
{
	char *ok = g_utf8_make_valid(s ? s : "", -1), *e = g_markup_escape_text(ok, -1);

	g_free(ok);
	return e;
}

static char *matrix_html(const struct matrix *m, const struct lab_run *run)
{
	GString *h = g_string_new("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
				  "<title>lab NFS interop matrix</title><style>"
				  "body{font-family:sans-serif;margin:1em;max-width:1260px}"
				  "table{border-collapse:collapse}td,th{border:1px solid #ccc;"
				  "padding:.25em .5em;font-size:90%}"
				  ".pass{background:#d8f5d0}.fail{background:#f8d0d0}"
				  ".error,.timeout{background:#f3c6f3}.skip,.inconclusive{background:#fff1c2}"
				  ".pass.skipped{background:#e8f5c0}"
				  "</style><meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
				  "</head><body>\n");
	char *id = esc(run->id);
	guint s;
	int v, g;

	g_string_append_printf(h, "<h1>NFS interop matrix</h1><p>run %s</p>\n<table><tr>"
			       "<th>server</th><th>group</th>", id);
	for (v = 0; all_versions[v]; v++)
		g_string_append_printf(h, "<th>v%s</th>", all_versions[v]);
	g_string_append(h, "</tr>\n");
	for (s = 0; s < m->servers->len; s++)
		for (g = 0; all_groups[g]; g++) {
			char *sv = esc(g_ptr_array_index(m->servers, s));

			g_string_append_printf(h, "<tr class=\"cellrow\"><td>%s</td><td>%s</td>", sv,
					       all_groups[g]);
			for (v = 0; all_versions[v]; v++) {
				const struct cell *c = cell_at(m, g_ptr_array_index(m->servers, s),
							       all_versions[v], all_groups[g]);
				char *why = esc(c ? c->r->reason : "not run");
				char *cnt = esc(c && c->counts ? c->counts : "");
				char *word = cell_word(c), *ew = esc(word);

				g_string_append_printf(h, "<td class=\"%s%s\" title=\"%s\">%s<br><small>%s"
						       "</small><br><small>%.0f s</small>%s%s%s</td>",
						       c ? lab_verdict_name(c->r->verdict) : "none",
						       skipped_in(c) ? " skipped" : "", why, ew, cnt,
						       c ? c->r->seconds : 0.0,
						       c && c->r->verdict != LAB_PASS ? "<br><small>" : "",
						       c && c->r->verdict != LAB_PASS ? why : "",
						       c && c->r->verdict != LAB_PASS ? "</small>" : "");
				g_free(why);
				g_free(cnt);
				g_free(word);
				g_free(ew);
			}
			g_string_append(h, "</tr>\n");
			g_free(sv);
		}
	{
		char *tot = totals(m), *et = esc(tot);

		g_string_append_printf(h, "</table>\n<p class=\"totals\">%s</p>\n<p>A cell that is "
				       "not a pass shows its reason; <a href=\"run/results.json\">the "
				       "run</a>.</p></body></html>\n", et);
		g_free(tot);
		g_free(et);
	}
	g_free(id);
	return g_string_free(h, FALSE);
}

int lab_interop_write(const char *dir, const char *run_dir)
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
	m = matrix_of(run);
	txt = matrix_text(m, run);
	json = matrix_json(m, run);
	html = matrix_html(m, run);
	p = g_build_filename(dir, "matrix.txt", NULL);
	rc |= lab_write_file(p, txt, -1);
	g_free(p);
	p = g_build_filename(dir, "matrix.json", NULL);
	rc |= lab_write_file(p, json, -1);
	g_free(p);
	p = g_build_filename(dir, "matrix.html", NULL);
	rc |= lab_write_file(p, html, -1);
	fputs(txt, stdout);
	printf("matrix: %s (and matrix.txt, matrix.json)\n", p);
	g_free(p);
	g_free(txt);
	g_free(json);
	g_free(html);
	matrix_free(m);
	lab_run_free(run);
	return rc;
}

/* interop/DATE, -2 ... when another instance's matrix ends this second */
static char *new_dir(void)
{
	char *root = lab_path("interop"), *id = NULL, *dir;

	dir = lab_unique_dir(root, NULL, &id);
	g_free(root);
	g_free(id);
	return dir;
}

/* Every name of ONLY is one of KNOWN; else -1 with a message naming the
 * option and what it takes (before anything comes up). */
static int check_names(const char *opt, char **only, const char *const *known)
{
	for (; only && *only; only++)
		if (!g_strv_contains(known, *only)) {
			char *list = g_strjoinv(", ", (char **)known);

			lab_err("interop: %s: '%s' is none of %s", opt, *only, list);
			g_free(list);
			return -1;
		}
	return 0;
}

int lab_interop_check(const struct lab_interop_opts *o)
{
	return check_names("--vers", o->vers, all_versions) == 0 &&
	       check_names("--groups", o->groups, all_groups) == 0 ? 0 : -1;
}

int lab_interop(const struct lab_interop_opts *o)
{
	struct lab_up_opts up = { .topology = o->topology, .accel = "auto",
				  .timeout_s = 900 };
	char *names[] = { INTEROP_TEST, NULL };
	struct lab_run_opts ro = { .names = names, .only_servers = o->servers,
				   .only_vers = o->vers, .only_groups = o->groups };
	char *servers = o->servers ? g_strjoinv(",", o->servers)
				   : g_strdup("knfsd,knfsd-debian,ganesha");
	char *list = g_strdup_printf("%s,%s", o->client, servers);
	char **only = g_strsplit(list, ",", -1), *run_dir = NULL, *dir = NULL;
	struct lab_session se;
	bool lost;
	int rc;

	up.only = only;
	rc = lab_session_up(&se, &up, false, &lost);
	if (rc == 0) {
		rc = lab_session_run(&se, &ro, &run_dir);
		rc = rc == 130 ? 130 : rc == 0 ? 0 : 1; /* a cell that is not a pass fails */
		if (run_dir) {
			dir = new_dir();
			if (!dir || lab_interop_write(dir, run_dir) != 0)
				rc = rc == 130 ? 130 : 1;
		}
	}
	lab_session_end(&se, o->keep);
	g_strfreev(only);
	g_free(list);
	g_free(servers);
	g_free(run_dir);
	g_free(dir);
	return rc;
}
