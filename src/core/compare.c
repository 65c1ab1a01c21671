/* compare.c - two runs test by test: fixed, regressed, unchanged, flaky
 * (`lab compare`). */
#include "core/compare.h"
#include "core/results.h"
#include "util/util.h"

#include <stdio.h>
#include <string.h>

static const struct lab_result *find(const struct lab_run *r, const char *name)
{
	guint i;

	for (i = 0; i < r->results->len; i++) {
		const struct lab_result *x = g_ptr_array_index(r->results, i);

		if (strcmp(x->name, name) == 0)
			return x;
	}
	return NULL;
}

const char *lab_compare_change(const char *a, const char *b)
{
	if (!a || !b)
		return a ? "only in A" : "only in B";
	if (strcmp(a, b) == 0)
		return "unchanged";
	if (strcmp(a, "fail") == 0 && strcmp(b, "pass") == 0)
		return "fixed";
	if (strcmp(a, "pass") == 0 && strcmp(b, "fail") == 0)
		return "regressed";
	return "flaky";
}

/* One line; 1 when the test regressed from A to B. */
static int compare_line(const char *name, const struct lab_result *x,
			const struct lab_result *y)
{
	const char *a = x ? lab_verdict_name(x->verdict) : NULL;
	const char *b = y ? lab_verdict_name(y->verdict) : NULL;
	const char *change = lab_compare_change(a, b);

	printf("%-36s %-13s %-13s %s\n", name, a ? a : "-", b ? b : "-", change);
	return strcmp(change, "regressed") == 0;
}

/* A run directory, or the ID a run printed ($LAB_HOME/runs/ID, "latest"). */
char *lab_run_dir_of(const char *arg)
{
	char *dir;

	if (g_file_test(arg, G_FILE_TEST_IS_DIR) || strchr(arg, '/'))
		return g_strdup(arg);
	dir = g_build_filename(lab_home(), "runs", arg, NULL);
	if (g_file_test(dir, G_FILE_TEST_IS_DIR))
		return dir;
	g_free(dir);
	return g_strdup(arg);
}

int lab_compare_runs(const char *arg_a, const char *arg_b)
{
	char *dir_a = lab_run_dir_of(arg_a), *dir_b = lab_run_dir_of(arg_b);
	struct lab_run *a, *b;
	int regressed = 0;
	guint i;

	a = lab_results_load_dir(dir_a);
	b = a ? lab_results_load_dir(dir_b) : NULL;
	g_free(dir_a);
	g_free(dir_b);
	if (!a || !b) {
		lab_run_free(a);
		return 1;
	}
	printf("%-36s %-13s %-13s %s\n", "test", a->kernel ? a->kernel : "A",
	       b->kernel ? b->kernel : "B", "change");
	for (i = 0; i < a->results->len; i++) {
		const struct lab_result *x = g_ptr_array_index(a->results, i);

		regressed += compare_line(x->name, x, find(b, x->name));
	}
	for (i = 0; i < b->results->len; i++) {
		const struct lab_result *y = g_ptr_array_index(b->results, i);

		if (!find(a, y->name))
			compare_line(y->name, NULL, y);
	}
	lab_run_free(a);
	lab_run_free(b);
	if (regressed)
		printf("%d test%s regressed from A to B\n", regressed, regressed == 1 ? "" : "s");
	return regressed ? 1 : 0;
}
