/* test_report.c - the review's conclusions, table-driven and from two
 * fixture runs (tests/unit/runs): eleven rows in the article's order, a
 * row is "fix verified" only when baseline failed with the seed's own
 * signature and patched passed; every row shows its provenance; crafted
 * results cannot inject markup. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "core/report.h"
#include "core/compare.h"
#include "util/util.h"

#define S(v, sig, all, oth) { .verdict = v, .signature = sig, .all_pass = all, .other = oth }

static void test_conclusion_rules(void **state)
{
	/* verdict, signature, all_pass, other */
	static const struct {
		struct lab_side b, p;
		enum lab_conclusion want;
		const char *why;
	} rows[] = {
		{ S("fail", true, false, NULL), S("pass", false, true, NULL),
		  LAB_FIX_VERIFIED, "signature" },
		{ S("pass", false, true, NULL), S("pass", false, true, NULL),
		  LAB_NOT_REPRODUCED, "clean" },
		{ S("fail", true, false, NULL), S("fail", true, false, NULL),
		  LAB_REGRESSION, "patched" },
		{ S("pass", false, true, NULL), S("fail", true, false, NULL),
		  LAB_REGRESSION, "patched" },
		/* another seed's splat on baseline: never verified */
		{ S("fail", false, false, "WARNING in attach_to_pi_state"),
		  S("pass", false, true, NULL),
		  LAB_CONCL_INCONCLUSIVE, "another reason: WARNING in attach_to_pi_state" },
		/* patched failing for another reason: not a regression of this fix,
		 * not a verification either */
		{ S("fail", true, false, NULL), S("fail", false, false, "INFO: task hung"),
		  LAB_CONCL_INCONCLUSIVE, "patched failed for another reason: INFO: task hung" },
		{ S("inconclusive", false, false, NULL), S("pass", false, true, NULL),
		  LAB_CONCL_INCONCLUSIVE, "baseline inconclusive" },
		{ S("fail", true, false, NULL), S("timeout", false, false, NULL),
		  LAB_CONCL_INCONCLUSIVE, "patched timeout" },
		{ S(NULL, false, false, NULL), S("pass", false, true, NULL),
		  LAB_CONCL_INCONCLUSIVE, "not run on baseline" },
		{ S("fail", true, false, NULL), S(NULL, false, false, NULL),
		  LAB_CONCL_INCONCLUSIVE, "not run on patched" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < G_N_ELEMENTS(rows); i++) {
		char *why = NULL;
		enum lab_conclusion c = lab_conclude(&rows[i].b, &rows[i].p, &why);

		if (c != rows[i].want || !strstr(why, rows[i].why))
			fail_msg("row %zu: got %s (%s), want %s with '%s'", i,
				 lab_conclusion_name(c), why,
				 lab_conclusion_name(rows[i].want), rows[i].why);
		g_free(why);
	}
}

static void test_aggregate_worst(void **state)
{
	GPtrArray *v = g_ptr_array_new();

	(void)state;
	assert_null(lab_aggregate(v));
	g_ptr_array_add(v, "pass");
	g_ptr_array_add(v, "inconclusive");
	assert_string_equal(lab_aggregate(v), "inconclusive");
	g_ptr_array_add(v, "fail");
	g_ptr_array_add(v, "skip");
	assert_string_equal(lab_aggregate(v), "fail");
	g_ptr_array_free(v, TRUE);
}

static struct lab_run *fixture(const char *k)
{
	char *p = g_strdup_printf("%s/tests/unit/runs/%s/results.json", lab_srcdir(), k);
	struct lab_run *r = lab_results_load(p);

	g_free(p);
	return r;
}

static const struct lab_row *row(GPtrArray *rows, const char *seed)
{
	guint i;

	for (i = 0; i < rows->len; i++) {
		const struct lab_row *r = g_ptr_array_index(rows, i);

		if (strcmp(r->seed, seed) == 0)
			return r;
	}
	fail_msg("no row for seed %s", seed);
	return NULL;
}

static void test_rows_from_fixture_runs(void **state)
{
	char *ini = lab_src_path("patches/2.6.32.9/review.ini"), *err = NULL;
	struct lab_run *b = fixture("baseline"), *p = fixture("patched");
	GPtrArray *rows = lab_report_rows(ini, b, p, NULL, &err);
	struct lab_review_info info = { "2.6.32.9", "default", "up 7 s, run 300 s", NULL };
	const struct lab_row *r;
	char *html, *text;

	(void)state;
	assert_non_null(rows);
	assert_int_equal(rows->len, 11);
	assert_string_equal(((struct lab_row *)g_ptr_array_index(rows, 0))->article, "2");
	assert_string_equal(((struct lab_row *)g_ptr_array_index(rows, 10))->article, "47");
	r = row(rows, "010");
	assert_int_equal(r->conclusion, LAB_FIX_VERIFIED);
	assert_non_null(strstr(r->base.evidence, "list_add corruption"));
	assert_non_null(r->impact_class);
	assert_non_null(r->base.excerpt);
	assert_string_equal(r->provenance, "faithful port");
	/* one version failed, one was never hit: the worst counts, and patched
	 * passed every version */
	assert_int_equal(row(rows, "009")->conclusion, LAB_FIX_VERIFIED);
	assert_int_equal(row(rows, "008")->conclusion, LAB_CONCL_INCONCLUSIVE);
	assert_null(row(rows, "008")->impact_class);
	assert_int_equal(row(rows, "003")->conclusion, LAB_NOT_REPRODUCED);
	assert_int_equal(row(rows, "002")->conclusion, LAB_REGRESSION);
	assert_int_equal(row(rows, "007")->conclusion, LAB_NOT_REPRODUCIBLE);
	assert_false(row(rows, "007")->counts);
	/* patched passed without the fix's own WARNING: not verified */
	assert_int_equal(row(rows, "006")->conclusion, LAB_CONCL_INCONCLUSIVE);
	assert_true(row(rows, "006")->synthetic);
	/* baseline failed only through another seed's splat: inconclusive,
	 * with the other title named */
	r = row(rows, "001");
	assert_int_equal(r->conclusion, LAB_CONCL_INCONCLUSIVE);
	assert_non_null(strstr(r->why, "another reason: WARNING in attach_to_pi_state"));
	html = lab_report_html(rows, &info, b, p);
	assert_null(strstr(html, "http://"));
	assert_null(strstr(html, "https://"));
	assert_non_null(strstr(html, "c-fix-verified"));
	assert_non_null(strstr(html, "fix verified (faithful port)"));
	text = lab_report_text(rows, &info, b, p);
	assert_non_null(strstr(text, "not reproducible on 6.1"));
	/* the summary opens the report: counts, both kernels, phases */
	assert_true(g_str_has_prefix(text, "review 2.6.32.9 on topology default: 2 fix verified"));
	assert_non_null(strstr(text, "kernel key 444f8730b9bb3784, uname -r 6.1.192"));
	assert_non_null(strstr(text, "wall time: up 7 s"));
	{	/* report.txt reads in a terminal or a mail: 100 columns */
		char **lines = g_strsplit(text, "\n", -1);

		for (int i = 0; lines[i]; i++)
			if (g_utf8_strlen(lines[i], -1) > 100)
				fail_msg("report.txt line %d is %ld columns: %s", i + 1,
					 g_utf8_strlen(lines[i], -1), lines[i]);
		g_strfreev(lines);
	}
	g_free(html);
	g_free(text);
	g_ptr_array_free(rows, TRUE);
	lab_run_free(b);
	lab_run_free(p);
	g_free(ini);
}

/* 006 is fault injection: baseline failing with the injected fault's
 * signature and patched handling it is its own conclusion, counted apart
 * from "fix verified" and not a row that falls short. */
static void test_fault_injection_counted_apart(void **state)
{
	char *ini = lab_src_path("patches/2.6.32.9/review.ini"), *err = NULL;
	struct lab_run *b = fixture("baseline"), *p = fixture("patched");
	struct lab_review_info info = { "2.6.32.9", "default", NULL, NULL };
	GPtrArray *rows;
	char *text, *json;
	guint i;

	(void)state;
	for (i = 0; i < p->results->len; i++) {
		struct lab_result *r = g_ptr_array_index(p->results, i);

		if (!strcmp(r->test, "t006-hda-divide-by-zero"))
			r->verdict = LAB_PASS; /* its own WARNING appeared */
	}
	rows = lab_report_rows(ini, b, p, NULL, &err);
	assert_non_null(rows);
	assert_int_equal(row(rows, "006")->conclusion, LAB_FAULT_HANDLED);
	assert_non_null(row(rows, "006")->impact_class);
	text = lab_report_text(rows, &info, b, p);
	assert_true(g_str_has_prefix(text, "review 2.6.32.9 on topology default: 2 fix verified, "
				   "1 fix handles the injected fault,"));
	json = lab_report_json(rows, &info, b, p);
	assert_true(strstr(json, "\"fault_handled\":1") || strstr(json, "\"fault_handled\": 1"));
	g_free(text);
	g_free(json);
	g_ptr_array_free(rows, TRUE);
	lab_run_free(b);
	lab_run_free(p);
	g_free(ini);
}

/* lab review --isolate: the isolated run holds only the seeds it isolated;
 * that seed's signature there is "yes", every other row says why not. */
static void test_isolation_column(void **state)
{
	char *ini = lab_src_path("patches/2.6.32.9/review.ini"), *err = NULL;
	struct lab_run *b = fixture("baseline"), *p = fixture("patched");
	struct lab_run *iso = fixture("baseline");
	GPtrArray *rows;
	guint i = 0;

	(void)state;
	while (i < iso->results->len) {	/* keep t010's results only */
		struct lab_result *r = g_ptr_array_index(iso->results, i);

		if (strcmp(r->test, "t010-dvb-demux-feeds"))
			g_ptr_array_remove_index(iso->results, i);
		else
			i++;
	}
	assert_true(iso->results->len > 0);
	rows = lab_report_rows(ini, b, p, iso, &err);
	assert_non_null(rows);
	assert_string_equal(row(rows, "010")->isolated, "yes");
	assert_string_equal(row(rows, "007")->isolated,
			    "not run (not reproducible on 6.1; only rows whose seed showed are isolated)");
	assert_true(g_str_has_prefix(row(rows, "003")->isolated, "not run (not reproduced"));
	g_ptr_array_free(rows, TRUE);
	rows = lab_report_rows(ini, b, p, NULL, &err); /* no isolation run: no column */
	assert_null(row(rows, "010")->isolated);
	g_ptr_array_free(rows, TRUE);
	lab_run_free(b);
	lab_run_free(p);
	lab_run_free(iso);
	g_free(ini);
}

static void test_compare_changes(void **state)
{
	(void)state;
	assert_string_equal(lab_compare_change("fail", "pass"), "fixed");
	assert_string_equal(lab_compare_change("pass", "fail"), "regressed");
	assert_string_equal(lab_compare_change("pass", "pass"), "unchanged");
	assert_string_equal(lab_compare_change("inconclusive", "fail"), "flaky");
	assert_string_equal(lab_compare_change(NULL, "pass"), "only in B");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_conclusion_rules),
		cmocka_unit_test(test_aggregate_worst),
		cmocka_unit_test(test_rows_from_fixture_runs),
		cmocka_unit_test(test_fault_injection_counted_apart),
		cmocka_unit_test(test_isolation_column),
		cmocka_unit_test(test_compare_changes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
