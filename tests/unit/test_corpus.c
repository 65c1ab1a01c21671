/* test_corpus.c - the hostile-input corpus under tests/corpus/: each file
 * is listed in its directory's expected.tsv with what it must give.
 *   topologies/NAME.ini the loader's error (FILE:LINE: [GROUP] KEY: why) or
 *                     "loads";
 *   results/NAME.json the results loader's error, or "loads" (and then it
 *                     renders: JSON, JUnit, KTAP lines, and the review's HTML
 *                     with no markup of its own);
 *   consoles/NAME.log the number of reports the scanner finds (no crash). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "core/console.h"
#include "core/report.h"
#include "core/results.h"
#include "core/topology.h"
#include "util/util.h"

/* The host the topology corpus is checked against. */
#define HOST_MEM 24000
#define HOST_CPUS 4

/* NULL when the file gives what is expected, else what it gave instead. */
typedef char *(*check_fn)(const char *path, const char *expect);

static char *check_topology(const char *path, const char *expect)
{
	char *err = NULL;
	struct lab_topology *t = lab_topology_load_host(path, HOST_MEM, HOST_CPUS,
							&err);
	char *why = NULL;

	if (strcmp(expect, "loads") == 0 && !t)
		why = g_strdup_printf("refused: %s", err);
	else if (strcmp(expect, "loads") != 0 && (t || !strstr(err, expect)))
		why = g_strdup_printf("gave '%s'", t ? "a topology" : err);
	lab_topology_free(t);
	g_free(err);
	return why;
}

/* A run that loads renders into the review's HTML with its text escaped:
 * the page holds no <script> (it has none of its own). */
static char *html_of(struct lab_run *run)
{
	char *ini = lab_src_path("patches/2.6.32.9/review.ini");
	char *err = NULL, *html = NULL;
	GPtrArray *rows = lab_report_rows(ini, run, run, NULL, &err);

	if (rows) {
		html = lab_report_html(rows, NULL, run, run);
		g_ptr_array_free(rows, TRUE);
	}
	g_free(err);
	g_free(ini);
	return html;
}

/* What lab makes of a loaded run besides the HTML: JSON, JUnit, KTAP. */
static bool renders(const struct lab_run *run)
{
	char *json = lab_results_json(run), *junit = lab_results_junit(run);
	bool ok = json && junit && g_utf8_validate(json, -1, NULL);
	guint i;

	for (i = 0; i < run->results->len; i++) {
		char *line = lab_result_ktap_line(g_ptr_array_index(run->results, i),
						  (int)i + 1);

		ok &= line && !strstr(line, "(null)");
		g_free(line);
	}
	g_free(json);
	g_free(junit);
	return ok;
}

static char *check_results(const char *path, const char *expect)
{
	char *err = NULL, *html, *why = NULL;
	struct lab_run *run = lab_results_parse(path, &err);

	if (strcmp(expect, "loads") != 0) {
		if (run || !strstr(err, expect))
			why = g_strdup_printf("gave '%s'", run ? "a run" : err);
	} else if (!run) {
		why = g_strdup_printf("refused: %s", err);
	} else if (!(html = html_of(run)) || !renders(run)) {
		why = g_strdup("no report, or it does not render");
	} else {
		if (strstr(html, "<script"))
			why = g_strdup("its HTML report holds a <script> element");
		g_free(html);
	}
	lab_run_free(run);
	g_free(err);
	return why;
}

static char *check_console(const char *path, const char *expect)
{
	GError *e = NULL;
	GPtrArray *reports = lab_console_scan_file(path, &e);
	char *text = NULL, *why = NULL;

	if (!reports)
		return g_strdup_printf("unreadable: %s", e->message);
	if (reports->len != (guint)atoi(expect))
		why = g_strdup_printf("%u reports", reports->len);
	g_ptr_array_free(reports, TRUE);
	/* the same as text (up to a NUL), and its tail for error messages */
	if (g_file_get_contents(path, &text, NULL, NULL)) {
		g_ptr_array_free(lab_console_scan(text), TRUE);
		g_free(lab_console_tail(text, 10));
	}
	g_free(text);
	return why;
}

static const struct corpus {
	const char *dir;
	const char *ext;
	check_fn check;
	guint at_least; /* files, so a lost corpus cannot pass */
} corpora[] = {
	{ "tests/corpus/topologies", ".ini", check_topology, 40 },
	{ "tests/corpus/results", ".json", check_results, 20 },
	{ "tests/corpus/consoles", ".log", check_console, 10 },
};

/* expected.tsv: "file<TAB>expectation" lines, # comments. */
static GHashTable *read_expected(const char *dir)
{
	GHashTable *h = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	char *path = g_build_filename(dir, "expected.tsv", NULL), *data = NULL;
	char **lines;
	int i;

	if (!g_file_get_contents(path, &data, NULL, NULL))
		fail_msg("cannot read %s", path);
	lines = g_strsplit(data, "\n", -1);
	for (i = 0; lines[i]; i++) {
		char *tab = strchr(lines[i], '\t');

		if (lines[i][0] == '#' || !tab)
			continue;
		g_hash_table_insert(h, g_strndup(lines[i], tab - lines[i]),
				    g_strdup(tab + 1));
	}
	g_strfreev(lines);
	g_free(data);
	g_free(path);
	return h;
}

static void run_corpus(const struct corpus *c)
{
	char *dir = g_build_filename(lab_srcdir(), c->dir, NULL);
	GHashTable *expected = read_expected(dir);
	GDir *d = g_dir_open(dir, 0, NULL);
	GString *failures = g_string_new(NULL);
	const char *name;
	guint n = 0;

	assert_non_null(d);
	while ((name = g_dir_read_name(d))) {
		const char *expect = g_hash_table_lookup(expected, name);
		char *path, *why;

		if (!g_str_has_suffix(name, c->ext))
			continue;
		n++;
		if (!expect) {
			g_string_append_printf(failures, "%s: not in expected.tsv\n", name);
			continue;
		}
		path = g_build_filename(dir, name, NULL);
		why = c->check(path, expect);
		if (why)
			g_string_append_printf(failures, "%s: want '%s', %s\n", name,
					       expect, why);
		g_hash_table_remove(expected, name);
		g_free(why);
		g_free(path);
	}
	if (g_hash_table_size(expected))
		g_string_append_printf(failures, "%u files of expected.tsv are missing\n",
				       g_hash_table_size(expected));
	if (n < c->at_least)
		g_string_append_printf(failures, "only %u files\n", n);
	if (failures->len)
		fail_msg("%s:\n%s", c->dir, failures->str);
	g_string_free(failures, TRUE);
	g_dir_close(d);
	g_hash_table_destroy(expected);
	g_free(dir);
}

static void test_topologies(void **state)
{
	(void)state;
	run_corpus(&corpora[0]);
}

static void test_results(void **state)
{
	(void)state;
	run_corpus(&corpora[1]);
}

static void test_consoles(void **state)
{
	(void)state;
	run_corpus(&corpora[2]);
}

/* The loaded <script> really reaches the page, escaped: the check above
 * would pass vacuously if the report dropped the text. */
static void test_script_escaped(void **state)
{
	char *path = g_build_filename(lab_srcdir(), "tests/corpus/results/ok-script.json",
				      NULL);
	char *err = NULL, *html;
	struct lab_run *run = lab_results_parse(path, &err);

	(void)state;
	assert_non_null(run);
	html = html_of(run);
	assert_non_null(html);
	assert_non_null(strstr(html, "&lt;script&gt;alert(1)&lt;/script&gt;"));
	g_free(html);
	lab_run_free(run);
	g_free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_topologies),
		cmocka_unit_test(test_results),
		cmocka_unit_test(test_consoles),
		cmocka_unit_test(test_script_escaped),
	};

	return cmocka_run_group_tests_name("corpus", tests, NULL, NULL);
}
