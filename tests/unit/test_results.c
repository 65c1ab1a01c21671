/* test_results.c - taint bits, KTAP lines, results.json round trip,
 * JUnit (valid XML 1.0 whatever the console printed), and a loader that
 * refuses malformed results with a message instead of crashing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <unistd.h>

#include <json-c/json.h>
#include "core/results.h"
#include "util/util.h"

static void test_taint_bits(void **state)
{
	(void)state;
	assert_int_equal(lab_taint_bad_bits(0, 512), 512);      /* W */
	assert_int_equal(lab_taint_bad_bits(0, 128 | 512), 640); /* D + W */
	assert_int_equal(lab_taint_bad_bits(512, 512), 0);      /* not new */
	assert_int_equal(lab_taint_bad_bits(0, 4096), 0);       /* O: no complaint */
	assert_int_equal(lab_taint_bad_bits(-1, 512), 0);       /* unknown */
}

static struct lab_run *sample_run(const char *dir)
{
	struct lab_run *run = g_new0(struct lab_run, 1);
	struct lab_result *a = lab_result_new("t010-dvb-demux-feeds", "t010-dvb-demux-feeds");
	struct lab_result *b = lab_result_new("t009-nfs-umount-race:v4.1", "t009-nfs-umount-race");

	run->id = g_strdup("20261203-120000-baseline");
	run->dir = g_strdup(dir);
	run->topology = g_strdup("smoke");
	run->kernel = g_strdup("baseline");
	run->results = g_ptr_array_new_with_free_func((GDestroyNotify)lab_result_free);
	a->verdict = LAB_FAIL;
	a->reason = g_strdup("the kernel complained on the console (1 report)");
	a->seed = g_strdup("010");
	a->evidence = LAB_EV_SIGNATURE;
	g_ptr_array_add(a->reports, lab_rreport_new("list-corruption",
		"list_add corruption in dvb_dmxdev_start_feed",
		"list_add corruption. next is NULL.\x1b[0m \xff", "dvb_dmxdev_start_feed", true));
	b->verdict = LAB_INCONCLUSIVE;
	b->reason = g_strdup("inconclusive: the window was never hit");
	b->window_hits = 0;
	g_ptr_array_add(run->results, a);
	g_ptr_array_add(run->results, b);
	return run;
}

static void test_ktap_lines(void **state)
{
	struct lab_run *run = sample_run("/nonexistent");
	char *l1 = lab_result_ktap_line(g_ptr_array_index(run->results, 0), 1);
	char *l2 = lab_result_ktap_line(g_ptr_array_index(run->results, 1), 2);

	(void)state;
	assert_true(g_str_has_prefix(l1, "not ok 1 t010-dvb-demux-feeds # "));
	assert_non_null(strstr(l1, "list_add corruption in dvb_dmxdev_start_feed"));
	/* inconclusive is never reported as a plain "ok" */
	assert_true(g_str_has_prefix(l2, "ok 2 t009-nfs-umount-race:v4.1 # SKIP inconclusive"));
	g_free(l1);
	g_free(l2);
	lab_run_free(run);
}

/* A loaded result may have no reason: its line says the report's title
 * (it used to pass NULL to strstr: found by fuzz_results). */
static void test_ktap_without_reason(void **state)
{
	static const struct {
		enum lab_verdict v;
		bool report;
		const char *want;
	} cases[] = {
		{ LAB_FAIL, true, "not ok 1 t # oops in f" },
		{ LAB_FAIL, false, "not ok 1 t # " },
		{ LAB_ERROR, true, "not ok 1 t # ERROR oops in f" },
		{ LAB_SKIP, false, "ok 1 t # SKIP " },
		{ LAB_TIMEOUT, false, "not ok 1 t # TIMEOUT " },
	};
	size_t i;

	(void)state;
	for (i = 0; i < G_N_ELEMENTS(cases); i++) {
		struct lab_result *r = lab_result_new("t", "t");
		char *line;

		r->verdict = cases[i].v;
		if (cases[i].report)
			g_ptr_array_add(r->reports, lab_rreport_new("oops", "oops in f",
								    NULL, "f", false));
		line = lab_result_ktap_line(r, 1);
		assert_string_equal(line, cases[i].want);
		g_free(line);
		lab_result_free(r);
	}
}

static void test_json_round_trip_and_junit(void **state)
{
	char *dir = g_dir_make_tmp("lab-results-XXXXXX", NULL);
	struct lab_run *run = sample_run(dir), *back;
	char *path = g_build_filename(dir, "results.json", NULL);
	char *xml = NULL, *junit = g_build_filename(dir, "junit.xml", NULL);
	struct lab_result *r;

	(void)state;
	/* when its verdict was made: a stress run files failures by it */
	((struct lab_result *)g_ptr_array_index(run->results, 0))->ended = 1796460276;
	assert_int_equal(lab_results_write(run), 0);
	back = lab_results_load(path);
	assert_non_null(back);
	assert_int_equal(back->results->len, 2);
	r = g_ptr_array_index(back->results, 0);
	assert_int_equal(r->verdict, LAB_FAIL);
	assert_string_equal(r->seed, "010");
	assert_int_equal(r->ended, 1796460276);
	assert_int_equal(((struct lab_result *)g_ptr_array_index(back->results, 1))->ended, 0);
	assert_int_equal(r->reports->len, 1);
	assert_int_equal(r->evidence, LAB_EV_SIGNATURE);
	assert_string_equal(((struct lab_rreport *)g_ptr_array_index(r->reports, 0))->function,
			    "dvb_dmxdev_start_feed");
	assert_true(((struct lab_rreport *)g_ptr_array_index(r->reports, 0))->signature);
	/* the console's escape and its invalid byte did not survive as such */
	assert_true(g_utf8_validate(((struct lab_rreport *)g_ptr_array_index(r->reports, 0))->first_line, -1, NULL));
	r = g_ptr_array_index(back->results, 1);
	assert_int_equal(r->verdict, LAB_INCONCLUSIVE);
	assert_int_equal(r->window_hits, 0);
	assert_true(g_file_get_contents(junit, &xml, NULL, NULL));
	assert_non_null(strstr(xml, "<testsuite"));
	assert_non_null(strstr(xml, "<failure"));
	/* XML 1.0: no escape character, not even as a reference */
	assert_null(strstr(xml, "\x1b"));
	assert_null(strstr(xml, "&#x1b;"));
	assert_null(strstr(xml, "&#27;"));
	assert_true(g_utf8_validate(xml, -1, NULL));
	lab_run_free(run);
	lab_run_free(back);
	lab_rm_rf(dir);
	g_free(dir);
	g_free(path);
	g_free(junit);
	g_free(xml);
}

/* Crafted results files: each is refused with a message naming the file
 * and the member, never a crash (json-c asserts on a wrong type). */
/* What a guest or a console printed reaches XML and JSON only as text
 * those formats take: no control character, no U+FFFE/U+FFFF in XML,
 * valid UTF-8 in JSON. Files lab writes are 0644 whatever the umask. */
static void test_text_for_files(void **state)
{
	char *x = lab_xml_text("a\x1b[2J\xef\xbf\xbf\xef\xbf\xbe\xff-b\tc");
	json_object *j = lab_json_str("bad \xff\xfe utf-8");
	const char *js = json_object_to_json_string(j);
	char *dir = g_dir_make_tmp("lab-mode-XXXXXX", NULL);
	char *p = g_build_filename(dir, "f", NULL);
	struct stat st;
	mode_t old;

	(void)state;
	assert_null(strchr(x, 0x1b));
	assert_null(strstr(x, "\xef\xbf\xbf"));
	assert_null(strstr(x, "\xef\xbf\xbe"));
	assert_true(g_utf8_validate(x, -1, NULL));
	assert_non_null(strstr(x, "b\tc"));
	assert_true(g_utf8_validate(js, -1, NULL));
	json_object_put(j);
	old = umask(0);
	assert_int_equal(lab_write_file(p, "x", -1), 0);
	umask(old);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	unlink(p);
	rmdir(dir);
	g_free(p);
	g_free(dir);
	g_free(x);
}

static void test_malformed_results(void **state)
{
	static const char *const bad[] = {
		"[1,2,3]",
		"{\"tests\": 5}",
		"{\"tests\": [7]}",
		"{\"tests\": [{\"verdict\":\"pass\"}]}",
		"{\"tests\": [{\"name\": 5, \"verdict\":\"pass\"}]}",
		"{\"tests\": [{\"name\":\"a\",\"verdict\":\"great\"}]}",
		"{\"tests\": [{\"name\":\"a\",\"verdict\":\"pass\",\"exit_code\":\"x\"}]}",
		"{\"tests\": [{\"name\":\"a\",\"verdict\":\"pass\",\"reports\":{}}]}",
		"{\"tests\": [{\"name\":\"a\",\"verdict\":\"pass\",\"reports\":[3]}]}",
		"{\"tests\": [{\"name\":\"a\",\"verdict\":\"pass\",\"dir\":\"../../etc\"}]}",
		"{\"tests\": [{\"name\":\"a\",\"verdict\":\"fail\",\"evidence\":\"maybe\"}]}",
		"not json at all",
	};
	char *dir = g_dir_make_tmp("lab-bad-XXXXXX", NULL);
	char *p = g_build_filename(dir, "results.json", NULL);
	size_t i;

	(void)state;
	for (i = 0; i < G_N_ELEMENTS(bad); i++) {
		struct lab_run *r;

		assert_int_equal(lab_write_file(p, bad[i], -1), 0);
		r = lab_results_load(p);
		if (r)
			fail_msg("case %zu loaded: %s", i, bad[i]);
	}
	lab_rm_rf(dir);
	g_free(dir);
	g_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_for_files),
		cmocka_unit_test(test_malformed_results),
		cmocka_unit_test(test_taint_bits),
		cmocka_unit_test(test_ktap_lines),
		cmocka_unit_test(test_ktap_without_reason),
		cmocka_unit_test(test_json_round_trip_and_junit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
