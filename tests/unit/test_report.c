/* test_report.c - the review's conclusions, from two fixture runs
 * (tests/unit/runs): eleven rows in the article's order, and a row is
 * "fix verified" only when baseline failed and patched passed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "../../src/report.h"
#include "../../src/review.h"
#include "../../src/util.h"

static void test_conclusion_rules(void **state)
{
	(void)state;
	assert_int_equal(lab_conclude("fail", "pass"), LAB_FIX_VERIFIED);
	assert_int_equal(lab_conclude("pass", "pass"), LAB_NOT_REPRODUCED);
	assert_int_equal(lab_conclude("fail", "fail"), LAB_REGRESSION);
	assert_int_equal(lab_conclude("pass", "fail"), LAB_REGRESSION);
	assert_int_equal(lab_conclude("inconclusive", "pass"), LAB_CONCL_INCONCLUSIVE);
	assert_int_equal(lab_conclude("error", "pass"), LAB_CONCL_INCONCLUSIVE);
	assert_int_equal(lab_conclude(NULL, "pass"), LAB_CONCL_INCONCLUSIVE);
	assert_int_equal(lab_conclude("fail", NULL), LAB_CONCL_INCONCLUSIVE);
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
	GPtrArray *rows = lab_report_rows(ini, b, p, &err);
	const struct lab_row *r;
	char *html, *text;

	(void)state;
	assert_non_null(rows);
	assert_int_equal(rows->len, 11);
	assert_string_equal(((struct lab_row *)g_ptr_array_index(rows, 0))->article, "2");
	assert_string_equal(((struct lab_row *)g_ptr_array_index(rows, 10))->article, "47");
	r = row(rows, "010");
	assert_int_equal(r->conclusion, LAB_FIX_VERIFIED);
	assert_non_null(strstr(r->base_evidence, "list_add corruption"));
	assert_non_null(r->impact_class);
	assert_non_null(r->excerpt);
	/* one version failed, one was never hit: the worst counts, and patched
	 * passed every version */
	assert_int_equal(row(rows, "009")->conclusion, LAB_FIX_VERIFIED);
	assert_int_equal(row(rows, "008")->conclusion, LAB_CONCL_INCONCLUSIVE);
	assert_null(row(rows, "008")->impact_class);
	assert_int_equal(row(rows, "003")->conclusion, LAB_NOT_REPRODUCED);
	assert_int_equal(row(rows, "002")->conclusion, LAB_REGRESSION);
	assert_int_equal(row(rows, "007")->conclusion, LAB_NOT_REPRODUCIBLE);
	assert_false(row(rows, "007")->counts);
	assert_int_equal(row(rows, "006")->conclusion, LAB_CONCL_INCONCLUSIVE);
	assert_int_equal(row(rows, "001")->conclusion, LAB_CONCL_INCONCLUSIVE);
	html = lab_report_html(rows, b, p);
	assert_null(strstr(html, "http://"));
	assert_null(strstr(html, "https://"));
	assert_non_null(strstr(html, "c-fix-verified"));
	text = lab_report_text(rows);
	assert_non_null(strstr(text, "not reproducible on 6.1"));
	g_free(html);
	g_free(text);
	g_ptr_array_free(rows, TRUE);
	lab_run_free(b);
	lab_run_free(p);
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
		cmocka_unit_test(test_compare_changes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
