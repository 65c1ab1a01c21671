/* test_candidate.c - a candidate review's report: every row's class and
 * tallies, the totals, the bisect command offered for each regression
 * (only when the candidate is the base plus a series), and the same facts
 * in report.json and report.html. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "core/candidate.h"
#include "util/util.h"

static struct lab_cand_report *sample(bool bisectable)
{
	static const struct {
		const char *name, *a, *b;
		struct lab_outcomes base, cand;
	} rows[] = {
		{ "t010-dvb-demux-feeds", "pass", "fail", { 4, 0, 0 }, { 0, 4, 0 } },
		{ "t099-lab-selftest", "pass", "pass", { 1, 0, 0 }, { 1, 0, 0 } },
		{ "t004-tty-fasync-lockdep", "pass", "fail", { 4, 0, 0 }, { 3, 1, 0 } },
	};
	struct lab_cand_report *r = lab_cand_report_new();

	r->base = "patched";
	r->candidate = "queue";
	r->topology = "smoke";
	r->reruns = 3;
	r->bisectable = bisectable;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct lab_cand_row *w = lab_cand_row(r, rows[i].name, NULL);

		w->base = rows[i].base;
		w->cand = rows[i].cand;
		w->base_first = g_strdup(rows[i].a);
		w->cand_first = g_strdup(rows[i].b);
	}
	lab_cand_row(r, "t010-dvb-demux-feeds", NULL)->why =
		g_strdup("fail on queue: list_add corruption in dvb_dmxdev_add_pid");
	return r;
}

static void test_text(void **state)
{
	static const char *const want[] = {
		"t010-dvb-demux-feeds                     pass 4/4                 fail 4/4                 regressed",
		"t099-lab-selftest                        pass 1/1                 pass 1/1                 unchanged",
		"t004-tty-fasync-lockdep                  pass 4/4                 pass 3/4, fail 1/4       flaky",
		"1 regressed, 0 fixed, 1 flaky, 0 changed, 1 unchanged (3 tests)",
		"  t010-dvb-demux-feeds: fail on queue: list_add corruption in dvb_dmxdev_add_pid",
		"    lab bisect --good patched --bad queue -t smoke t010-dvb-demux-feeds",
	};
	struct lab_cand_report *r = sample(true);
	char *text;

	(void)state;
	assert_int_equal(lab_cand_classify(r), 1);
	assert_true(lab_cand_differs(lab_cand_row(r, "t010-dvb-demux-feeds", NULL)));
	assert_false(lab_cand_differs(lab_cand_row(r, "t099-lab-selftest", NULL)));
	text = lab_cand_text(r);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (!strstr(text, want[i]))
			fail_msg("missing line %zu: '%s' in:\n%s", i, want[i], text);
	g_free(text);
	lab_cand_report_free(r);
}

static void test_not_bisectable(void **state)
{
	struct lab_cand_report *r = sample(false);
	char *text;

	(void)state;
	lab_cand_classify(r);
	text = lab_cand_text(r);
	assert_null(strstr(text, "lab bisect"));
	assert_non_null(strstr(text, "(to bisect: lab build queue --series PATH --base patched)"));
	g_free(text);
	lab_cand_report_free(r);
}

static void test_files(void **state)
{
	struct lab_cand_report *r = sample(true);
	char *dir = g_dir_make_tmp("lab-cand-XXXXXX", NULL), *p, *json = NULL, *html = NULL;

	(void)state;
	lab_cand_classify(r);
	assert_int_equal(lab_cand_write(r, dir), 0);
	p = g_build_filename(dir, "report.json", NULL);
	assert_true(g_file_get_contents(p, &json, NULL, NULL));
	g_free(p);
	assert_non_null(strstr(json, "\"class\":\"regressed\""));
	assert_non_null(strstr(json, "\"bisect\":\"lab bisect --good patched --bad queue -t smoke "
				     "t010-dvb-demux-feeds\""));
	p = g_build_filename(dir, "report.html", NULL);
	assert_true(g_file_get_contents(p, &html, NULL, NULL));
	g_free(p);
	assert_non_null(strstr(html, "<tr class=\"regressed\"><td>t010-dvb-demux-feeds</td>"));
	lab_rm_rf(dir);
	g_free(dir);
	g_free(json);
	g_free(html);
	lab_cand_report_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_not_bisectable),
		cmocka_unit_test(test_files),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
